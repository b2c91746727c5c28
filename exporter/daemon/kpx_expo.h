/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exposition helpers (kpx_expo.c), and the metric table they write
 * from (kpx_metric_defs.c): what writes a family of /metrics, wherever
 * the family is counted (kpx_metrics*.c, kpx_journal.c).
 */
#ifndef KPX_EXPO_H
#define KPX_EXPO_H

#include <stdint.h>
#include <stdio.h>

/*
 * /metrics' two expositions, one writer: the Prometheus text format
 * 0.0.4, or OpenMetrics 1.0.0 (counter families named without _total,
 * exemplars on the per-format counters, "# EOF").  Every family takes its
 * HELP and TYPE from kpx_expo_head() and writes its samples to out, in
 * either format.
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

/*
 * Every metric /metrics serves, each named and explained once, in
 * kpx_metric_defs[]: the exposition writer prints HELP, TYPE and samples
 * from it, and anything else that names a metric (messages, help) takes
 * the name from there.  The module's counters are the spec's
 * (kpx_stats_metrics[], generated), and --journal's kpx_journal.c's.
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
	KPX_M_RECORDS_WAITING,
	KPX_M_EVENTS_SENT,
	KPX_M_EVENTS_LOST,
	KPX_M_HTTP_REFUSED,
	KPX_M_CATALOG_TRANSLATIONS,
	KPX_M_SITES_LOADED,
	KPX_M_SITES_ENTRIES,
	KPX_M_SITES_LOAD_FAILURES,
	KPX_M_FORMATS_UNCATALOGED,
	KPX_M_PROBLEM_CATALOG_RULES,
	KPX_M_PROBLEM_TOTAL,
	KPX_M_PROBLEM_CONDITION,
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

/* A family's HELP and TYPE, in the exposition of e. */
void kpx_expo_head(struct kpx_expo *e, const struct kpx_metric_def *d);
/* The HELP and TYPE of a family of kpx_metric_defs[]. */
void kpx_expo_metric_head(struct kpx_expo *e, enum kpx_metric m);
/* A sample of m without labels. */
void kpx_expo_sample(FILE *out, enum kpx_metric m, uint64_t v);
/* A family of one sample without labels: HELP, TYPE and the sample. */
void kpx_expo_single(struct kpx_expo *e, enum kpx_metric m, uint64_t v);
/* A sample of m with one label, whose value needs no escaping. */
void kpx_expo_sample1(FILE *out, enum kpx_metric m, const char *label,
		      const char *value, uint64_t v);
/* Write label value s escaped per the exposition format, valid UTF-8. */
void kpx_label_escape(FILE *out, const char *s);

#endif /* KPX_EXPO_H */
