/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus exposition of /metrics and the /formats answer
 * (kpx_metrics.c).
 */
#ifndef KPX_METRICS_H
#define KPX_METRICS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kpc.h"

struct kpx_catalogs;
struct kpx_events;
struct kpx_journal;
struct kpx_store;
struct kpx_http;

struct kpx_metrics {
	pthread_mutex_t lock;		/* scrapes one at a time */
	struct kpc_bpf *bpf;		/* NULL: BPF off or failed */
	char bpf_error[256];		/* why bpf is NULL, "" for --no-bpf */
	struct kpc_sock *ctl;		/* kpc_stats_get(); NULL: unavailable */
	unsigned int max_series;
	struct kpx_store *store;
	/* --replay: the file's records counted per format, source "replay". */
	struct kpc_format_count *replay;
	size_t nreplay;
	struct kpx_events *events;	/* NULL: no streams, their counts 0 */
	struct kpx_http *http;		/* NULL: no HTTP refusals counted */
	struct kpx_catalogs *catalogs;	/* NULL: no --catalog */
	struct kpx_journal *journal;	/* NULL: no --journal */
};

/*
 * Every metric /metrics serves, each named and explained once, in
 * kpx_metric_defs[]: the exposition writer prints HELP, TYPE and samples
 * from it, and anything else that names a metric (messages, help) takes
 * the name from there.
 */
enum kpx_metric {
	KPX_M_BPF_UP,
	KPX_M_BPF_ATTACHED,
	KPX_M_FORMAT_MESSAGES,
	KPX_M_BPF_MESSAGES,
	KPX_M_BPF_OVERFLOW,
	KPX_M_BPF_UPDATE_FAILURES,
	KPX_M_BPF_PRINTK_HOOK,
	KPX_M_BPF_HANDOFF_TORN,
	KPX_M_BPF_HANDOFF_SWITCHED,
	KPX_M_RATELIMIT_CALLS,
	KPX_M_RATELIMIT_SUPPRESSED,
	KPX_M_KERNEL_UP,
	KPX_M_KERNEL_RECORDS,
	KPX_M_KERNEL_OVERWRITTEN,
	KPX_M_BRIDGE_ENABLED,
	KPX_M_BRIDGE_RECORDS,
	KPX_M_BRIDGE_SKIPPED,
	KPX_M_BRIDGE_DROPPED,
	KPX_M_BRIDGE_BACKLOG,
	KPX_M_INGEST_UP,
	KPX_M_MODULE_LOADED,
	KPX_M_MODULE_RELOADS,
	KPX_M_RECORDS_RECEIVED,
	KPX_M_RECORDS_LOST,
	KPX_M_RESYNCS,
	KPX_M_RECORDS_MALFORMED,
	KPX_M_FORGED_DATAGRAMS,
	KPX_M_EVENT_STREAMS,
	KPX_M_EVENT_STREAMS_REFUSED,
	KPX_M_EVENTS_SENT,
	KPX_M_EVENTS_LOST,
	KPX_M_HTTP_REFUSED,
	KPX_M_CATALOG_TRANSLATIONS,
	KPX_M_BUILD_INFO,
	KPX_M_SCRAPE_DURATION,
	KPX_NR_METRICS
};

struct kpx_metric_def {
	const char *name;
	const char *type;		/* "counter" or "gauge" */
	const char *help;
};

extern const struct kpx_metric_def kpx_metric_defs[KPX_NR_METRICS];

static inline const char *kpx_metric_name(enum kpx_metric m)
{
	return kpx_metric_defs[m].name;
}

/* Write label value s escaped per the exposition format, valid UTF-8. */
void kpx_label_escape(FILE *out, const char *s);
/*
 * Write the per-format series of one source, at most max_series of them
 * (largest counts first) and the rest summed into format="__overflow__".
 * Sorts f.
 */
void kpx_metrics_formats(FILE *out, const char *source,
			 struct kpc_format_count *f, size_t n,
			 unsigned int max_series);
/*
 * The printk bridge's families (kprint_bridge_*) from the module's
 * counters; nothing when it did not send them all (no bridge in it).
 */
void kpx_metrics_bridge(FILE *out, const struct kpc_stats *st);
/* The whole /metrics page (malloc'd) or NULL. */
char *kpx_metrics_render(struct kpx_metrics *m, size_t *len);
/* The /formats JSON array (malloc'd) or NULL. */
char *kpx_formats_json(struct kpx_metrics *m, int *status);

/*
 * /metrics' two expositions (kpx_metrics.c), one writer: the Prometheus
 * text format 0.0.4, or OpenMetrics 1.0.0 (counter families named without
 * _total, exemplars on the per-format counters, "# EOF").  A family
 * written from outside kpx_metrics.c takes its HELP and TYPE from
 * kpx_expo_head() and writes its samples to out, in either format.
 */
enum kpx_expo_format {
	KPX_EXPO_TEXT,
	KPX_EXPO_OPENMETRICS,
};

struct kpx_latest_set;

struct kpx_expo {
	FILE *out;
	enum kpx_expo_format format;
	const struct kpx_latest_set *latest;	/* exemplars; NULL: none */
};

/* The exposition an Accept header (NULL: none) asks for; text by default. */
enum kpx_expo_format kpx_metrics_negotiate(const char *accept);
const char *kpx_metrics_content_type(enum kpx_expo_format format);
/* The whole /metrics page in format (malloc'd) or NULL. */
char *kpx_metrics_render_as(struct kpx_metrics *m, enum kpx_expo_format format, size_t *len);
void kpx_expo_head(struct kpx_expo *e, const struct kpx_metric_def *d);

#endif /* KPX_METRICS_H */
