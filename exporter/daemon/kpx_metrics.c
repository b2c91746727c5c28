// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics in the Prometheus text exposition format 0.0.4 or in
 * OpenMetrics 1.0.0, as the scraper's Accept asks, and /formats.
 *
 * Counts come from the pinned BPF maps and the module's counters at each
 * scrape, so a restarted exporter reports the same totals: nothing here
 * accumulates what the kernel already counts.
 *
 * One writer for both expositions: for what we serve they differ in three
 * places only, all in here (kpx_head(), kpx_exemplar(), the end of
 * kpx_metrics_render_as()): a counter's family is named without its _total
 * in HELP and TYPE, each per-format counter carries an exemplar (the newest
 * record of it the store holds), and the page ends in "# EOF".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kpx_catalogs.h"
#include "kpx_events.h"
#include "kpx_http.h"
#include "kpx_journal.h"
#include "kpx_metrics.h"
#include "kpx_replay.h"
#include "kpx_store.h"

const struct kpx_metric_def kpx_metric_defs[KPX_NR_METRICS] = {
	[KPX_M_BPF_UP] = { "kprint_bpf_up", "gauge",
		"Whether the in-kernel BPF per-format counters are loaded (1) or not (0)." },
	[KPX_M_BPF_ATTACHED] = { "kprint_bpf_attached", "gauge",
		"Whether the BPF hook of a source counts now." },
	[KPX_M_FORMAT_MESSAGES] = { "kprint_format_messages_total", "counter",
		"Messages per format, level, class, subsystem and module, counted in the kernel "
		"by BPF; printk has class none and empty subsystem and module; source replay: "
		"the records of a --replay file; past --max-series per source the rest is "
		"summed in format __overflow__ with the other labels empty." },
	[KPX_M_BPF_MESSAGES] = { "kprint_bpf_messages_total", "counter",
		"Messages seen by the BPF hook of a source." },
	[KPX_M_BPF_OVERFLOW] = { "kprint_bpf_overflow_total", "counter",
		"Messages of a source seen but not counted per format: the map update failed "
		"(kprint_bpf_update_failures_total) or the format was unreadable." },
	[KPX_M_BPF_UPDATE_FAILURES] = { "kprint_bpf_update_failures_total", "counter",
		"BPF map updates that failed, per source (kprint, printk, ratelimit) and reason: "
		"full (E2BIG), busy (EBUSY, the bucket lock taken on this CPU), nomem, other." },
	[KPX_M_BPF_PRINTK_HOOK] = { "kprint_bpf_printk_hook_messages_total", "counter",
		"printk messages counted per key, all by one hook at the return of vprintk_store: "
		"plain (the key it computes: kprint.ko not bridging them), bridge (the key "
		"kprint.ko's bridge handed over) or echo (kprint.ko's echo of a record, counted "
		"per format as that record, source kprint); each message once." },
	[KPX_M_BPF_HANDOFF_TORN] = { "kprint_bpf_handoff_torn_total", "counter",
		"Bridged printk messages whose handoff slot was reused while being read, counted "
		"under the plain key instead (docs/bpf-counters.md)." },
	[KPX_M_BPF_HANDOFF_SWITCHED] = { "kprint_bpf_handoff_switched_total", "counter",
		"Bridged printk messages whose task was switched out between the bridge's hook and "
		"the return of vprintk_store (a preemptible kernel): counted under the newest slot "
		"with their task and pointers (docs/bpf-counters.md)." },
	[KPX_M_RATELIMIT_CALLS] = { "kprint_ratelimit_calls_total", "counter",
		"Calls of the kernel's ___ratelimit() seen by BPF." },
	[KPX_M_RATELIMIT_SUPPRESSED] = { "kprint_ratelimit_suppressed_total", "counter",
		"Calls ___ratelimit() refused (the caller dropped its message), per caller name "
		"(its __func__; net_ratelimit for net_ratelimit(), the writer's comm for "
		"/dev/kmsg), summed over the ratelimit states of that name." },
	[KPX_M_KERNEL_UP] = { "kprint_kernel_up", "gauge",
		"Whether the module's counters could be read at this scrape." },
	[KPX_M_KERNEL_RECORDS] = { "kprint_kernel_records_total", "counter",
		"Records stored in the kernel ring since kprint.ko was loaded." },
	[KPX_M_KERNEL_OVERWRITTEN] = { "kprint_kernel_overwritten_total", "counter",
		"Records the kernel ring overwrote since kprint.ko was loaded." },
	[KPX_M_BRIDGE_ENABLED] = { "kprint_bridge_enabled", "gauge",
		"Whether kprint.ko's printk bridge is on (1: every printk() of the kernel "
		"becomes a record of source printk) or off (0: bridge=0, or switched off)." },
	[KPX_M_BRIDGE_RECORDS] = { "kprint_bridge_records_total", "counter",
		"printk messages the bridge stored as records since kprint.ko was loaded "
		"(the backlog not included)." },
	[KPX_M_BRIDGE_SKIPPED] = { "kprint_bridge_skipped_total", "counter",
		"printk messages that were kprint's own echo of its records, "
		"not bridged again (never a loss)." },
	[KPX_M_BRIDGE_DROPPED] = { "kprint_bridge_dropped_total", "counter",
		"printk messages the bridge saw but did not store, by reason: nmi (made in "
		"NMI context, counted only), recursion (the bridge was busy on that CPU), "
		"scratch (no scratch record free), missed (the hook itself missed them)." },
	[KPX_M_BRIDGE_BACKLOG] = { "kprint_bridge_backlog_records_total", "counter",
		"Text-only records taken at load from what printk stored before kprint.ko "
		"was loaded." },
	[KPX_M_INGEST_UP] = { "kprint_exporter_ingest_up", "gauge",
		"Whether the exporter's subscription to kprint records is alive." },
	[KPX_M_MODULE_LOADED] = { "kprint_module_loaded", "gauge",
		"Whether kprint.ko is loaded, as the exporter's subscription last saw." },
	[KPX_M_MODULE_RELOADS] = { "kprint_exporter_module_reloads_total", "counter",
		"Times kprint.ko was loaded again while the exporter ran; its sequence "
		"numbers restart and /records starts afresh each time." },
	[KPX_M_RECORDS_RECEIVED] = { "kprint_exporter_records_received_total", "counter",
		"Records the exporter received from the kernel." },
	[KPX_M_RECORDS_LOST] = { "kprint_exporter_records_lost_total", "counter",
		"Records the exporter could not get, by reason." },
	[KPX_M_RESYNCS] = { "kprint_exporter_resyncs_total", "counter",
		"Times notifications were skipped or overran and the ring was re-read." },
	[KPX_M_RECORDS_MALFORMED] = { "kprint_exporter_records_malformed_total", "counter",
		"Records that could not be decoded." },
	[KPX_M_FORGED_DATAGRAMS] = { "kprint_exporter_forged_datagrams_total", "counter",
		"Netlink datagrams another process sent to the exporter's sockets, posing as "
		"the kernel: dropped unread, never shown." },
	[KPX_M_EVENT_STREAMS] = { "kprint_exporter_event_streams", "gauge",
		"/events streams open now." },
	[KPX_M_EVENT_STREAMS_REFUSED] = { "kprint_exporter_event_streams_refused_total", "counter",
		"/events requests answered 503: --web.max-streams streams were open." },
	[KPX_M_EVENTS_SENT] = { "kprint_exporter_events_sent_total", "counter",
		"Records sent as events, over all /events streams." },
	[KPX_M_EVENTS_LOST] = { "kprint_exporter_events_lost_total", "counter",
		"lost events sent, by reason: overwritten (the store no longer held records "
		"a stream had not taken: a slow client, or an old Last-Event-ID), reloaded "
		"(records of an earlier kprint.ko instance, or an id this exporter does not know)." },
	[KPX_M_HTTP_REFUSED] = { "kprint_exporter_http_refused_total", "counter",
		"HTTP connections and requests answered 503 for a limit, by reason: connections "
		"(" KPX_STR(KPX_HTTP_CONNECTIONS) " open in all), address ("
		KPX_STR(KPX_HTTP_PER_IP) " open from the client's address), requests "
		"(--web.max-requests in flight from the client's address)." },
	[KPX_M_CATALOG_TRANSLATIONS] = { "kprint_exporter_catalog_translations", "gauge",
		"Formats the --catalog file of a language translates, as last read (at start "
		"or on a SIGHUP that took it); one series per language served with lang=." },
	[KPX_M_BUILD_INFO] = { "kprint_exporter_build_info", "gauge",
		"The exporter's version." },
	[KPX_M_SCRAPE_DURATION] = { "kprint_exporter_scrape_duration_seconds", "gauge",
		"How long this scrape took to collect." },
};

/*
 * A family's HELP and TYPE lines; its samples follow right after.  In
 * OpenMetrics a counter family is named without the _total its samples
 * carry (the spec's "counter" type: samples NAME_total).
 */
void kpx_expo_head(struct kpx_expo *e, const struct kpx_metric_def *d)
{
	size_t len = strlen(d->name);

	if (e->format == KPX_EXPO_OPENMETRICS && !strcmp(d->type, "counter") &&
	    len > 6 && !strcmp(d->name + len - 6, "_total"))
		len -= 6;
	fprintf(e->out, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, d->name, d->help,
		(int)len, d->name, d->type);
}

static void kpx_head(struct kpx_expo *e, enum kpx_metric m)
{
	kpx_expo_head(e, &kpx_metric_defs[m]);
}

/* A sample without labels. */
static void kpx_sample(FILE *out, enum kpx_metric m, uint64_t v)
{
	fprintf(out, "%s %" PRIu64 "\n", kpx_metric_name(m), v);
}

/* A family of one sample without labels: HELP, TYPE and the sample. */
static void kpx_single(struct kpx_expo *e, enum kpx_metric m, uint64_t v)
{
	kpx_head(e, m);
	kpx_sample(e->out, m, v);
}

/* A sample with one label. */
static void kpx_sample1(FILE *out, enum kpx_metric m, const char *label,
			const char *value, uint64_t v)
{
	fprintf(out, "%s{%s=\"%s\"} %" PRIu64 "\n", kpx_metric_name(m), label, value, v);
}

void kpx_label_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n) {
		uint32_t cp;
		size_t len = kpc_utf8_next(p, n, &cp);

		if (cp == KPC_UTF8_INVALID)
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
		else if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fwrite(p, 1, len, out);
		p += len;
		n -= len;
	}
}

/* A per-format series' key, as the BPF maps have it. */
struct kpx_series_key {
	uint64_t format_id;
	uint64_t tags_id;
	uint32_t level;
	uint32_t class;
};

static struct kpx_series_key kpx_key_of(const struct kpc_format_count *f)
{
	return (struct kpx_series_key){ f->format_id, f->tags_id, f->level, f->class };
}

static int kpx_key_cmp(const struct kpx_series_key *x, const struct kpx_series_key *y)
{
	if (x->format_id != y->format_id)
		return x->format_id < y->format_id ? -1 : 1;
	if (x->tags_id != y->tags_id)
		return x->tags_id < y->tags_id ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->class != y->class)
		return x->class < y->class ? -1 : 1;
	return 0;
}

static int kpx_count_cmp(const void *a, const void *b)
{
	const struct kpc_format_count *x = a, *y = b;
	struct kpx_series_key kx = kpx_key_of(x), ky = kpx_key_of(y);

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return kpx_key_cmp(&kx, &ky);
}

/*
 * The newest record the store holds of one per-format series, for its
 * exemplar: the series' key, and which of the family's sources it counts
 * under.
 */
struct kpx_latest {
	uint32_t source;		/* enum kpc_bpf_source, or KPX_LATEST_REPLAY */
	struct kpx_series_key key;
	uint64_t pos;			/* in the store: the newest wins */
	uint64_t seq;
	uint64_t ts_real_ns;
};

/* A replay's records all count under source "replay", whatever made them. */
#define KPX_LATEST_REPLAY	KPC_BPF_NR_SOURCES

struct kpx_latest_set {
	struct kpx_latest *l;		/* by key, one per key */
	size_t n;
	uint32_t instance;		/* the store's: every record it holds is of it */
};

/* By source and key: for qsort() and bsearch(). */
static int kpx_latest_key_cmp(const void *a, const void *b)
{
	const struct kpx_latest *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return kpx_key_cmp(&x->key, &y->key);
}

/* By source and key, the newest first. */
static int kpx_latest_cmp(const void *a, const void *b)
{
	const struct kpx_latest *x = a, *y = b;
	int c = kpx_latest_key_cmp(x, y);

	if (c)
		return c;
	return x->pos == y->pos ? 0 : x->pos > y->pos ? -1 : 1;
}

/*
 * Every series' newest record among those the store holds, so that an
 * exemplar names a record /records can still give.  Sorting a copy of the
 * keys at each scrape costs little (with the default 10,000 records held
 * and 5,000 series, an OpenMetrics scrape took 10.6 ms where the text
 * format took 5.5, exemplars written included), and only OpenMetrics
 * scrapes pay it; a table kept up to date instead would cost ingest at
 * every record, for the scrapes' sake.
 * Returns 0 (set->n 0 when there is nothing), or -ENOMEM.
 */
static int kpx_latest_collect(struct kpx_store *s, struct kpx_latest_set *set)
{
	size_t i, j;

	memset(set, 0, sizeof(*set));
	pthread_mutex_lock(&s->lock);
	set->instance = s->instance;
	if (s->n)
		set->l = malloc(s->n * sizeof(*set->l));
	if (s->n && !set->l) {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++) {
		uint64_t pos = s->received - 1 - i;
		const struct kpc_record *r = kpx_store_at(s, pos);
		struct kpx_latest *l = &set->l[set->n];

		if (!r)
			continue;
		if (s->replay)
			l->source = KPX_LATEST_REPLAY;
		else if (r->source == KPRINT_SOURCE_KPRINT)
			l->source = KPC_BPF_KPRINT;
		else if (r->source == KPRINT_SOURCE_PRINTK)
			l->source = KPC_BPF_PRINTK;
		else
			continue;
		l->key.format_id = r->format_id;
		l->key.tags_id = kpx_tags_id(r->subsystem, r->module);
		l->key.level = r->level;
		l->key.class = r->class;
		l->pos = pos;
		l->seq = r->seq;
		l->ts_real_ns = r->ts_real_ns;
		set->n++;
	}
	pthread_mutex_unlock(&s->lock);
	if (!set->n)
		return 0;
	qsort(set->l, set->n, sizeof(*set->l), kpx_latest_cmp);
	/* The first of each key is its newest: keep it alone. */
	for (i = 1, j = 1; i < set->n; i++)
		if (kpx_latest_key_cmp(&set->l[i], &set->l[j - 1]))
			set->l[j++] = set->l[i];
	set->n = j;
	return 0;
}

static const struct kpx_latest *kpx_latest_find(const struct kpx_latest_set *set,
						uint32_t source,
						const struct kpc_format_count *f)
{
	struct kpx_latest want = { .source = source, .key = kpx_key_of(f) };

	if (!set || !set->n)
		return NULL;
	return bsearch(&want, set->l, set->n, sizeof(*set->l), kpx_latest_key_cmp);
}

/*
 * A per-format counter's exemplar in OpenMetrics: the newest record of the
 * series, by its seq and the module instance of the store (the INSTANCE
 * of /events ids), so that a graph's point leads to the record:
 * /records?format_id=F&after=SEQ-1&limit=1.  Its value is the one message
 * the record counted; its timestamp the record's own, so that a scrape
 * that finds no newer record repeats the exemplar Prometheus already has
 * (a duplicate, not stored again).  The labels take at most 46 of the 128
 * characters the spec allows.  Nothing when the store holds no record of
 * the series (overwritten, or a printk not bridged).
 */
static void kpx_exemplar(struct kpx_expo *e, uint32_t source, const struct kpc_format_count *f)
{
	const struct kpx_latest *l;

	if (e->format != KPX_EXPO_OPENMETRICS)
		return;
	l = kpx_latest_find(e->latest, source, f);
	if (!l)
		return;
	fprintf(e->out, " # {seq=\"%" PRIu64 "\",kprint_instance=\"%08" PRIx32 "\"} 1",
		l->seq, e->latest->instance);
	if (l->ts_real_ns)
		fprintf(e->out, " %" PRIu64 ".%09" PRIu64, l->ts_real_ns / 1000000000,
			l->ts_real_ns % 1000000000);
}

/*
 * Every series of the family has the same labels, printk's too (class
 * "none", empty tags), so that aggregations see one shape; the overflow
 * series has them all empty.
 */
static void kpx_formats_write(struct kpx_expo *e, uint32_t source, const char *name,
			      struct kpc_format_count *f, size_t n, unsigned int max_series)
{
	uint64_t rest = 0;
	size_t i;

	/*
	 * The biggest keep their own series: they are the ones alerted on.
	 * No formats may come as f NULL, which qsort() must not be given.
	 */
	if (n)
		qsort(f, n, sizeof(*f), kpx_count_cmp);
	for (i = 0; i < n; i++) {
		const char *level = kpc_level_name(f[i].level);
		const char *class = kpc_class_name(f[i].class);

		if (i >= max_series) {
			rest += f[i].count;
			continue;
		}
		fprintf(e->out, "%s{source=\"%s\",format_id=\"%016"
			PRIx64 "\",level=\"%s\",class=\"%s\",subsystem=\"",
			kpx_metric_name(KPX_M_FORMAT_MESSAGES), name, f[i].format_id,
			level ? level : "unknown", class ? class : "unknown");
		kpx_label_escape(e->out, f[i].subsystem);
		fputs("\",module=\"", e->out);
		kpx_label_escape(e->out, f[i].module);
		fputs("\",format=\"", e->out);
		kpx_label_escape(e->out, f[i].format);
		fprintf(e->out, "\"} %" PRIu64, f[i].count);
		kpx_exemplar(e, source, &f[i]);
		fputc('\n', e->out);
	}
	if (n > max_series)
		fprintf(e->out, "%s{source=\"%s\",format_id=\"\","
			"level=\"\",class=\"\",subsystem=\"\",module=\"\","
			"format=\"__overflow__\"} %" PRIu64 "\n",
			kpx_metric_name(KPX_M_FORMAT_MESSAGES), name, rest);
}

void kpx_metrics_formats(FILE *out, const char *source,
			 struct kpc_format_count *f, size_t n,
			 unsigned int max_series)
{
	struct kpx_expo e = { .out = out, .format = KPX_EXPO_TEXT };

	kpx_formats_write(&e, KPX_LATEST_REPLAY, source, f, n, max_series);
}

static void kpx_metrics_failures(FILE *out, const char *source,
				 const struct kprint_counter_failures *f)
{
	const char *name = kpx_metric_name(KPX_M_BPF_UPDATE_FAILURES);

	fprintf(out, "%s{source=\"%s\",reason=\"full\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->full);
	fprintf(out, "%s{source=\"%s\",reason=\"busy\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->busy);
	fprintf(out, "%s{source=\"%s\",reason=\"nomem\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->nomem);
	fprintf(out, "%s{source=\"%s\",reason=\"other\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->other);
}

static int kpx_ratelimit_cmp(const void *a, const void *b)
{
	const struct kpc_ratelimit_count *x = a, *y = b;

	return strcmp(x->func, y->func);
}

/*
 * One series per caller name: the states' addresses are kernel pointers,
 * not for a scraper, and one function may use several states.
 */
static void kpx_metrics_ratelimit(struct kpx_expo *e, struct kpx_metrics *m)
{
	struct kpc_ratelimit_count *r = NULL;
	size_t n = 0, i;
	uint64_t sum;
	int err;

	if (m->bpf) {
		err = kpc_bpf_ratelimits(m->bpf, &r, &n);
		if (err) {
			fprintf(stderr, "kprint_exporter: reading the ratelimit counters: %s\n",
				strerror(-err));
			n = 0;
		}
	}
	kpx_head(e, KPX_M_RATELIMIT_SUPPRESSED);
	if (n)
		qsort(r, n, sizeof(*r), kpx_ratelimit_cmp);
	for (i = 0; i < n; i++) {
		sum = r[i].suppressed;
		while (i + 1 < n && !strcmp(r[i].func, r[i + 1].func))
			sum += r[++i].suppressed;
		fprintf(e->out, "%s{function=\"", kpx_metric_name(KPX_M_RATELIMIT_SUPPRESSED));
		kpx_label_escape(e->out, r[i].func);
		fprintf(e->out, "\"} %" PRIu64 "\n", sum);
	}
	free(r);
}

static void kpx_metrics_bpf(struct kpx_expo *e, struct kpx_metrics *m)
{
	struct kprint_counter_totals t;
	struct kpc_format_count *f[KPC_BPF_NR_SOURCES] = { NULL };
	size_t n[KPC_BPF_NR_SOURCES] = { 0 };
	bool have_totals = false;
	int src, err;

	if (m->bpf) {
		for (src = 0; src < KPC_BPF_NR_SOURCES; src++) {
			err = kpc_bpf_read(m->bpf, src, &f[src], &n[src]);
			if (err) {
				fprintf(stderr, "kprint_exporter: reading the %s counters: %s\n",
					kpc_bpf_source_name(src), strerror(-err));
				f[src] = NULL;
				n[src] = 0;
			}
		}
		err = kpc_bpf_totals(m->bpf, &t);
		if (err)
			fprintf(stderr, "kprint_exporter: reading the BPF totals: %s\n",
				strerror(-err));
		have_totals = !err;
	}

	kpx_single(e, KPX_M_BPF_UP, m->bpf ? 1 : 0);
	kpx_head(e, KPX_M_BPF_ATTACHED);
	for (src = 0; m->bpf && src < KPC_BPF_NR_SOURCES; src++)
		kpx_sample1(e->out, KPX_M_BPF_ATTACHED, "source", kpc_bpf_source_name(src),
			    kpc_bpf_status(m->bpf, src)->attached ? 1 : 0);

	kpx_head(e, KPX_M_FORMAT_MESSAGES);
	for (src = 0; src < KPC_BPF_NR_SOURCES; src++)
		kpx_formats_write(e, src, kpc_bpf_source_name(src), f[src], n[src],
				  m->max_series);
	/* The same family and labels: dashboards work on a replay as they are. */
	if (m->store->replay)
		kpx_formats_write(e, KPX_LATEST_REPLAY, "replay", m->replay, m->nreplay,
				  m->max_series);

	/* Each family's samples right after its own HELP and TYPE. */
	kpx_head(e, KPX_M_BPF_MESSAGES);
	for (src = 0; have_totals && src < KPC_BPF_NR_SOURCES; src++)
		kpx_sample1(e->out, KPX_M_BPF_MESSAGES, "source", kpc_bpf_source_name(src),
			    kpc_bpf_seen(&t, src));
	kpx_head(e, KPX_M_BPF_OVERFLOW);
	for (src = 0; have_totals && src < KPC_BPF_NR_SOURCES; src++)
		kpx_sample1(e->out, KPX_M_BPF_OVERFLOW, "source", kpc_bpf_source_name(src),
			    kpc_bpf_not_counted(&t, src));
	kpx_head(e, KPX_M_BPF_UPDATE_FAILURES);
	if (have_totals) {
		kpx_metrics_failures(e->out, "kprint", &t.kprint_failed);
		kpx_metrics_failures(e->out, "printk", &t.printk_failed);
		kpx_metrics_failures(e->out, "ratelimit", &t.ratelimit_failed);
	}
	kpx_head(e, KPX_M_BPF_PRINTK_HOOK);
	if (have_totals) {
		kpx_sample1(e->out, KPX_M_BPF_PRINTK_HOOK, "hook", "plain", t.printk_plain);
		kpx_sample1(e->out, KPX_M_BPF_PRINTK_HOOK, "hook", "bridge", t.printk_bridged);
		kpx_sample1(e->out, KPX_M_BPF_PRINTK_HOOK, "hook", "echo", t.printk_echo);
	}
	kpx_head(e, KPX_M_BPF_HANDOFF_TORN);
	if (have_totals)
		kpx_sample(e->out, KPX_M_BPF_HANDOFF_TORN, t.handoff_torn);
	kpx_head(e, KPX_M_BPF_HANDOFF_SWITCHED);
	if (have_totals)
		kpx_sample(e->out, KPX_M_BPF_HANDOFF_SWITCHED, t.handoff_switched);
	kpx_head(e, KPX_M_RATELIMIT_CALLS);
	if (have_totals)
		kpx_sample(e->out, KPX_M_RATELIMIT_CALLS, t.ratelimit_calls);
	kpx_metrics_ratelimit(e, m);
	for (src = 0; src < KPC_BPF_NR_SOURCES; src++)
		free(f[src]);
}

/*
 * The printk bridge's counters, when the module sends them all: a
 * kprint.ko without the bridge has no such families, rather than zeros
 * that would read as "on, nothing lost".
 */
static void kpx_bridge_write(struct kpx_expo *e, const struct kpc_stats *st)
{
	if (!kpc_stats_has_bridge(st))
		return;
	kpx_single(e, KPX_M_BRIDGE_ENABLED, st->bridge ? 1 : 0);
	kpx_single(e, KPX_M_BRIDGE_RECORDS, st->bridged);
	kpx_single(e, KPX_M_BRIDGE_SKIPPED, st->bridge_skipped);
	kpx_head(e, KPX_M_BRIDGE_DROPPED);
	kpx_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "nmi", st->bridge_dropped_nmi);
	kpx_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "recursion",
		    st->bridge_dropped_recursion);
	kpx_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "scratch", st->bridge_dropped_scratch);
	kpx_sample1(e->out, KPX_M_BRIDGE_DROPPED, "reason", "missed", st->bridge_missed);
	kpx_single(e, KPX_M_BRIDGE_BACKLOG, st->bridge_backlog);
}

void kpx_metrics_bridge(FILE *out, const struct kpc_stats *st)
{
	struct kpx_expo e = { .out = out, .format = KPX_EXPO_TEXT };

	kpx_bridge_write(&e, st);
}

/*
 * The ratelimit hook's counters (kprint.ko's kretprobe on ___ratelimit(),
 * which feeds kprint_ratelimit_suppressed_total on kernels where BPF cannot
 * probe it), from the stats reply.  A table of their own, outside
 * kpx_metric_defs and its enum in kpx.h, which this change does not touch;
 * merging them there is a plain move.
 */
static const struct kpx_metric_def kpx_rl_hook_defs[] = {
	{ "kprint_ratelimit_hook_enabled", "gauge",
	  "Whether kprint.ko's kretprobe on ___ratelimit() is registered (1), so that "
	  "kprint_ratelimit_suppressed_total counts through kprint:kprint_trace_ratelimit, "
	  "or not (0: ratelimit=0, or the kernel refused the probe)." },
	{ "kprint_ratelimit_hook_queued_total", "counter",
	  "Calls ___ratelimit() refused that kprint.ko's kretprobe queued for "
	  "kprint_trace_ratelimit() since kprint.ko was loaded." },
	{ "kprint_ratelimit_hook_traced_total", "counter",
	  "Queued refused calls handed to kprint_trace_ratelimit() (where BPF counts them)." },
	{ "kprint_ratelimit_hook_lost_total", "counter",
	  "Calls ___ratelimit() refused that found their CPU's queue full: never counted by BPF." },
	{ "kprint_ratelimit_hook_missed_total", "counter",
	  "___ratelimit() calls the kretprobe missed (its nmissed): not seen at all." },
};

static void kpx_rl_hook(struct kpx_expo *e, unsigned int i, uint64_t v)
{
	const struct kpx_metric_def *d = &kpx_rl_hook_defs[i];

	kpx_expo_head(e, d);
	fprintf(e->out, "%s %" PRIu64 "\n", d->name, v);
}

/*
 * Only when the module sends them all: a kprint.ko without the hook has no
 * such families, rather than zeros that would read as "on, nothing lost".
 */
static void kpx_metrics_ratelimit_hook(struct kpx_expo *e, const struct kpc_stats *st)
{
	if (!kpc_stats_has_ratelimit(st))
		return;
	kpx_rl_hook(e, 0, st->ratelimit ? 1 : 0);
	kpx_rl_hook(e, 1, st->ratelimit_queued);
	kpx_rl_hook(e, 2, st->ratelimit_traced);
	kpx_rl_hook(e, 3, st->ratelimit_lost);
	kpx_rl_hook(e, 4, st->ratelimit_missed);
}

static void kpx_metrics_kernel(struct kpx_expo *e, struct kpx_metrics *m)
{
	struct kpc_stats st;
	int err = -ENOTCONN;

	if (m->ctl)
		err = kpc_stats_get(m->ctl, &st);
	if (err == -ENOENT && !kpc_sock_rebind(m->ctl))
		/*
		 * kprint.ko was reloaded: a new family id.  The socket is
		 * kept, not reopened, since the kernel checks CAP_SYSLOG
		 * against its opener and we run without it by now.
		 */
		err = kpc_stats_get(m->ctl, &st);
	if (err) {
		fprintf(stderr, "kprint_exporter: reading the module's counters: %s\n",
			strerror(-err));
	}
	kpx_single(e, KPX_M_KERNEL_UP, err ? 0 : 1);
	if (err)
		return;
	kpx_single(e, KPX_M_KERNEL_RECORDS, st.records);
	kpx_single(e, KPX_M_KERNEL_OVERWRITTEN, st.overwritten);
	kpx_bridge_write(e, &st);
	kpx_metrics_ratelimit_hook(e, &st);
}

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
	kpx_head(e, KPX_M_HTTP_REFUSED);
	for (int i = 0; i < KPX_NR_REFUSED; i++)
		kpx_sample1(e->out, KPX_M_HTTP_REFUSED, "reason", kpx_refusal_names[i],
			    h ? __atomic_load_n(&h->refused[i], __ATOMIC_RELAXED) : 0);
}

/* The /events families; all 0 where nothing serves streams. */
static void kpx_metrics_events(struct kpx_expo *e, struct kpx_events *ev)
{
	uint64_t streams = 0, refused = 0, sent = 0, lost[KPX_NR_LOST] = { 0 };

	if (ev && ev->ready) {
		pthread_mutex_lock(&ev->lock);
		streams = ev->nstreams;
		refused = ev->refused;
		pthread_mutex_unlock(&ev->lock);
		sent = __atomic_load_n(&ev->sent, __ATOMIC_RELAXED);
		for (int i = 0; i < KPX_NR_LOST; i++)
			lost[i] = __atomic_load_n(&ev->lost[i], __ATOMIC_RELAXED);
	}
	kpx_single(e, KPX_M_EVENT_STREAMS, streams);
	kpx_single(e, KPX_M_EVENT_STREAMS_REFUSED, refused);
	kpx_single(e, KPX_M_EVENTS_SENT, sent);
	kpx_head(e, KPX_M_EVENTS_LOST);
	for (int i = 0; i < KPX_NR_LOST; i++)
		kpx_sample1(e->out, KPX_M_EVENTS_LOST, "reason", kpx_lost_names[i], lost[i]);
}

/* One series per language; without --catalog, the family has none. */
static void kpx_metrics_catalogs(struct kpx_expo *e, struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set = kpx_catalogs_get(c);

	kpx_head(e, KPX_M_CATALOG_TRANSLATIONS);
	/* Languages are checked at load: no label escaping needed. */
	for (size_t i = 0; set && i < set->n; i++)
		kpx_sample1(e->out, KPX_M_CATALOG_TRANSLATIONS, "language", set->l[i].lang,
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

	kpx_single(e, KPX_M_INGEST_UP, up);
	kpx_single(e, KPX_M_MODULE_LOADED, loaded);
	kpx_single(e, KPX_M_MODULE_RELOADS, reloads);
	kpx_single(e, KPX_M_RECORDS_RECEIVED, received);
	kpx_head(e, KPX_M_RECORDS_LOST);
	for (int r = 0; r < KPC_LOST_REASONS; r++)
		kpx_sample1(e->out, KPX_M_RECORDS_LOST, "reason", kpc_lost_reason_name(r), lost[r]);
	kpx_single(e, KPX_M_RESYNCS, resyncs);
	kpx_single(e, KPX_M_RECORDS_MALFORMED, malformed);
	kpx_single(e, KPX_M_FORGED_DATAGRAMS, forged);
	kpx_metrics_events(e, m->events);
	kpx_metrics_refused(e, m->http);
	kpx_metrics_catalogs(e, m->catalogs);
	kpx_head(e, KPX_M_BUILD_INFO);
	kpx_sample1(e->out, KPX_M_BUILD_INFO, "version", KPRINT_VERSION, 1);
}

static double kpx_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One media range of an Accept header, "type/subtype;param=value;...". */
struct kpx_media_range {
	const char *type;
	size_t type_len;
	const char *version;		/* the version= parameter, or NULL */
	size_t version_len;
	double q;
};

static bool kpx_token_is(const char *s, size_t len, const char *want)
{
	return len == strlen(want) && !strncasecmp(s, want, len);
}

/*
 * RFC 9110's qvalue, "0" or "1" with at most three decimals ("0.75",
 * "1.000"), in thousandths so that no float parsing takes "0x1" or "1e0".
 */
static int kpx_qvalue_parse(const char *s, const char *end, double *q)
{
	unsigned int thousandths = 0, digits = 0;

	if (s == end || (*s != '0' && *s != '1'))
		return -EINVAL;
	thousandths = (*s++ - '0') * 1000;
	if (s < end && *s++ != '.')
		return -EINVAL;
	for (; s < end; s++, digits++) {
		if (*s < '0' || *s > '9' || digits == 3)
			return -EINVAL;
		thousandths += (*s - '0') * (digits == 0 ? 100 : digits == 1 ? 10 : 1);
	}
	if (thousandths > 1000)
		return -EINVAL;
	*q = thousandths / 1000.0;
	return 0;
}

/* [s, end) without the spaces and tabs around it. */
static void kpx_trim(const char **s, const char **end)
{
	while (*s < *end && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*end > *s && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
		(*end)--;
}

/* One range of [s, end); false for one that does not parse, which is then ignored. */
static bool kpx_media_range_parse(const char *s, const char *end, struct kpx_media_range *r)
{
	const char *semi = memchr(s, ';', end - s);
	const char *type_end = semi ? semi : end;
	const char *slash;

	r->version = NULL;
	r->q = 1.0;
	kpx_trim(&s, &type_end);
	slash = memchr(s, '/', type_end - s);
	if (!slash || slash == s || slash + 1 == type_end)
		return false;
	r->type = s;
	r->type_len = type_end - s;
	while (semi) {
		const char *p = semi + 1, *eq, *p_end;

		semi = memchr(p, ';', end - p);
		p_end = semi ? semi : end;
		kpx_trim(&p, &p_end);
		eq = memchr(p, '=', p_end - p);
		if (!eq)
			return false;
		if (kpx_token_is(p, eq - p, "q")) {
			if (kpx_qvalue_parse(eq + 1, p_end, &r->q))
				return false;
		} else if (kpx_token_is(p, eq - p, "version")) {
			r->version = eq + 1;
			r->version_len = p_end - eq - 1;
		}
	}
	return true;
}

/*
 * Which exposition an Accept header asks for: OpenMetrics when a range
 * naming it (any version we can answer with 1.0.0: Prometheus 2.42 sends
 * 1.0.0 and 0.0.1) has a higher q than every range the text format
 * matches (text/plain of version 0.0.4 or none, and the wildcards for any
 * text and any type); the text format otherwise.  The text format too for
 * no header and for ranges that do not parse, which are ignored: as with
 * client_golang, a scraper always gets metrics rather than a 406 or 400.
 */
enum kpx_expo_format kpx_metrics_negotiate(const char *accept)
{
	double q_om = 0, q_text = 0;
	const char *s = accept, *end;

	while (s && *s) {
		struct kpx_media_range r;

		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		if (kpx_media_range_parse(s, end, &r)) {
			bool any_version = !r.version;

			if (kpx_token_is(r.type, r.type_len, "application/openmetrics-text") &&
			    (any_version || kpx_token_is(r.version, r.version_len, "1.0.0") ||
			     kpx_token_is(r.version, r.version_len, "0.0.1")))
				q_om = r.q > q_om ? r.q : q_om;
			else if ((kpx_token_is(r.type, r.type_len, "text/plain") &&
				  (any_version || kpx_token_is(r.version, r.version_len, "0.0.4"))) ||
				 kpx_token_is(r.type, r.type_len, "text/*") ||
				 kpx_token_is(r.type, r.type_len, "*/*"))
				q_text = r.q > q_text ? r.q : q_text;
		}
		s = *end ? end + 1 : end;
	}
	return q_om > 0 && q_om > q_text ? KPX_EXPO_OPENMETRICS : KPX_EXPO_TEXT;
}

const char *kpx_metrics_content_type(enum kpx_expo_format format)
{
	return format == KPX_EXPO_OPENMETRICS ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8";
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
	kpx_journal_metrics(&e, m->journal);
	kpx_head(&e, KPX_M_SCRAPE_DURATION);
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

static int kpx_formats_add(struct json_object *arr, enum kpc_bpf_source src,
			   const struct kpc_format_count *f)
{
	struct json_object *obj = kpc_json_format_count(src, f);

	if (!obj)
		return -ENOMEM;
	return json_object_array_add(arr, obj) ? (json_object_put(obj), -ENOMEM) : 0;
}

/*
 * The lines of `kprint formats --json --top 0` (schema/formats.schema.json)
 * as one array: every format, then one summary per source.
 */
char *kpx_formats_json(struct kpx_metrics *m, int *status)
{
	struct json_object *arr = json_object_new_array();
	struct kprint_counter_totals t;
	char *out = NULL;
	int src, err = 0;

	if (!arr)
		return NULL;
	pthread_mutex_lock(&m->lock);
	if (!m->bpf) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "error", kpc_json_string(m->bpf_error[0] ?
			m->bpf_error : "the BPF counters are off (--no-bpf)"));
		*status = 503;
		out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
		goto unlock;
	}
	err = kpc_bpf_totals(m->bpf, &t);
	for (src = 0; !err && src < KPC_BPF_NR_SOURCES; src++) {
		const struct kpc_bpf_hook_status *hs = kpc_bpf_status(m->bpf, src);
		struct kpc_format_count *f;
		struct json_object *sum;
		size_t i, n;

		err = kpc_bpf_read(m->bpf, src, &f, &n);
		if (err)
			break;
		if (n)
			qsort(f, n, sizeof(*f), kpx_count_cmp);
		for (i = 0; !err && i < n; i++)
			err = kpx_formats_add(arr, src, &f[i]);
		free(f);
		sum = kpc_json_format_summary(src, &t, n, kpc_bpf_max_formats(m->bpf), hs);
		if (!sum || json_object_array_add(arr, sum)) {
			json_object_put(sum);
			err = -ENOMEM;
			break;
		}
	}
	if (err) {
		fprintf(stderr, "kprint_exporter: reading the BPF counters: %s\n",
			strerror(-err));
		*status = 500;
		out = strdup("{\"error\":\"reading the BPF counters failed\"}");
		goto unlock;
	}
	*status = 200;
	out = strdup(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
unlock:
	pthread_mutex_unlock(&m->lock);
	json_object_put(arr);
	return out;
}
