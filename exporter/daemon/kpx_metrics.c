// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics in the Prometheus text exposition format 0.0.4 or in
 * OpenMetrics 1.0.0, as the scraper's Accept asks (kpx_metrics_accept.c):
 * the page, and the exporter's own families.  The BPF families and
 * /formats are in kpx_metrics_formats.c, the module's counters in
 * kpx_metrics_kernel.c, the helpers every family uses in kpx_expo.c.
 *
 * One writer for both expositions: for what we serve they differ in three
 * places only: a counter's family is named without its _total in HELP and
 * TYPE (kpx_expo_head()), each per-format counter carries an exemplar (the
 * newest record of it the store holds: kpx_exemplar()), and the page ends
 * in "# EOF" (kpx_metrics_render_as()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kpx_catalogs.h"
#include "kpx_events.h"
#include "kpx_expo.h"
#include "kpx_http.h"
#include "kpx_journal.h"
#include "kpx_metrics.h"
#include "kpx_metrics_formats.h"
#include "kpx_metrics_kernel.h"
#include "kpx_problems.h"
#include "kpx_sites.h"
#include "kpx_store.h"

const char *const kpx_lost_names[KPX_NR_LOST] = {
	[KPX_LOST_OVERWRITTEN] = "overwritten",
	[KPX_LOST_RELOADED] = "reloaded",
};

const char *const kpx_refusal_names[KPX_NR_REFUSED] = {
	[KPX_REFUSED_CONNECTIONS] = "connections",
	[KPX_REFUSED_ADDRESS] = "address",
	[KPX_REFUSED_REQUESTS] = "requests",
};

/* What the HTTP limits refused (kpx_accept.c, kpx_http.c); 0 without HTTP. */
static void kpx_metrics_refused(struct kpx_expo *e, struct kpx_http *h)
{
	kpx_expo_metric_head(e, KPX_M_HTTP_REFUSED);
	for (int i = 0; i < KPX_NR_REFUSED; i++)
		kpx_expo_sample1(e->out, KPX_M_HTTP_REFUSED, "reason", kpx_refusal_names[i],
				 h ? __atomic_load_n(&h->refused[i], __ATOMIC_RELAXED) : 0);
}

/* The /events families; all 0 where nothing serves streams. */
static void kpx_metrics_events(struct kpx_expo *e, struct kpx_events *ev)
{
	uint64_t streams = 0, refused = 0, waiting = 0, sent = 0, lost[KPX_NR_LOST] = { 0 };

	if (ev && ev->ready) {
		pthread_mutex_lock(&ev->lock);
		streams = ev->nstreams;
		refused = ev->refused;
		waiting = ev->nanswers;
		pthread_mutex_unlock(&ev->lock);
		sent = __atomic_load_n(&ev->sent, __ATOMIC_RELAXED);
		for (int i = 0; i < KPX_NR_LOST; i++)
			lost[i] = __atomic_load_n(&ev->lost[i], __ATOMIC_RELAXED);
	}
	kpx_expo_single(e, KPX_M_EVENT_STREAMS, streams);
	kpx_expo_single(e, KPX_M_EVENT_STREAMS_REFUSED, refused);
	kpx_expo_single(e, KPX_M_RECORDS_WAITING, waiting);
	kpx_expo_single(e, KPX_M_EVENTS_SENT, sent);
	kpx_expo_metric_head(e, KPX_M_EVENTS_LOST);
	for (int i = 0; i < KPX_NR_LOST; i++)
		kpx_expo_sample1(e->out, KPX_M_EVENTS_LOST, "reason", kpx_lost_names[i], lost[i]);
}

/* One series per language; without --catalog, the family has none. */
static void kpx_metrics_catalogs(struct kpx_expo *e, struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set = kpx_catalogs_get(c);

	kpx_expo_metric_head(e, KPX_M_CATALOG_TRANSLATIONS);
	/* Languages are checked at load: no label escaping needed. */
	for (size_t i = 0; set && i < set->n; i++)
		kpx_expo_sample1(e->out, KPX_M_CATALOG_TRANSLATIONS, "language", set->l[i].lang,
				 kpc_catalog_stats(set->l[i].cat)->translated);
	kpx_catalog_set_put(set);
}

static void kpx_metrics_exporter(struct kpx_expo *e, struct kpx_metrics *m, uint64_t forged)
{
	struct kpx_store *s = m->store;
	uint64_t received, lost[KPC_LOST_REASONS], resyncs, malformed, reloads;
	bool up, loaded;

	pthread_mutex_lock(&s->lock);
	received = s->received;
	memcpy(lost, s->lost, sizeof(lost));
	resyncs = s->resyncs;
	malformed = s->malformed;
	up = s->ingest_up;
	loaded = s->module_loaded;
	reloads = s->reloads;
	forged += s->forged;
	pthread_mutex_unlock(&s->lock);

	kpx_expo_single(e, KPX_M_INGEST_UP, up);
	kpx_expo_single(e, KPX_M_MODULE_LOADED, loaded);
	kpx_expo_single(e, KPX_M_MODULE_RELOADS, reloads);
	kpx_expo_single(e, KPX_M_RECORDS_RECEIVED, received);
	kpx_expo_metric_head(e, KPX_M_RECORDS_LOST);
	for (int r = 0; r < KPC_LOST_REASONS; r++)
		kpx_expo_sample1(e->out, KPX_M_RECORDS_LOST, "reason", kpc_lost_reason_name(r), lost[r]);
	kpx_expo_single(e, KPX_M_RESYNCS, resyncs);
	kpx_expo_single(e, KPX_M_RECORDS_MALFORMED, malformed);
	kpx_expo_single(e, KPX_M_FORGED_DATAGRAMS, forged);
	kpx_metrics_events(e, m->events);
	kpx_metrics_refused(e, m->http);
	kpx_metrics_catalogs(e, m->catalogs);
	kpx_expo_metric_head(e, KPX_M_BUILD_INFO);
	kpx_expo_sample1(e->out, KPX_M_BUILD_INFO, "version", KPRINT_VERSION, 1);
}

static double kpx_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

char *kpx_metrics_render_as(struct kpx_metrics *m, enum kpx_expo_format format, size_t *len)
{
	struct kpx_latest_set latest = { 0 };
	struct kpx_expo e = { .format = format };
	double start = kpx_now();
	uint64_t forged;
	char *buf = NULL;

	/* Before the scrape lock: the store's lock is ingest's, not the scrape's. */
	if (format == KPX_EXPO_OPENMETRICS) {
		if (kpx_latest_collect(m->store, &latest))
			return NULL;
		e.latest = &latest;
	}
	e.out = open_memstream(&buf, len);
	if (!e.out) {
		free(latest.l);
		return NULL;
	}
	pthread_mutex_lock(&m->lock);
	kpx_metrics_bpf(&e, m);
	/* A replay has no kernel to ask: its kprint_kernel_* are left out. */
	if (!m->store->replay)
		kpx_metrics_kernel(&e, m);
	/* The stats socket drops forgeries too (while it reads replies). */
	forged = m->ctl ? kpc_sock_foreign(m->ctl) : 0;
	pthread_mutex_unlock(&m->lock);
	free(latest.l);
	e.latest = NULL;
	kpx_metrics_exporter(&e, m, forged);
	kpx_sites_metrics(&e, m->sites, m);
	kpx_problems_metrics(&e, m->problems);
	kpx_journal_metrics(&e, m->journal);
	kpx_expo_metric_head(&e, KPX_M_SCRAPE_DURATION);
	fprintf(e.out, "%s %.6f\n", kpx_metric_name(KPX_M_SCRAPE_DURATION), kpx_now() - start);
	if (format == KPX_EXPO_OPENMETRICS)
		fputs("# EOF\n", e.out);
	if (ferror(e.out)) {
		fclose(e.out);
		free(buf);
		return NULL;
	}
	if (fclose(e.out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *kpx_metrics_render(struct kpx_metrics *m, size_t *len)
{
	return kpx_metrics_render_as(m, KPX_EXPO_TEXT, len);
}
