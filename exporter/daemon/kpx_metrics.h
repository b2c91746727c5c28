/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus exposition of /metrics and the /formats answer: the page
 * (kpx_metrics.c), the BPF families and /formats (kpx_metrics_formats.c),
 * the module's counters (kpx_metrics_kernel.c), the Accept negotiation
 * (kpx_metrics_accept.c).
 */
#ifndef KPX_METRICS_H
#define KPX_METRICS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kpc.h"
#include "kpx_expo.h"

struct kpx_catalogs;
struct kpx_events;
struct kpx_journal;
struct kpx_problems;
struct kpx_sites;
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
	struct kpx_sites *sites;	/* the call-site catalog; NULL: none */
	struct kpx_problems *problems;	/* kprint_problem_*; NULL: no rules */
};

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

/* The exposition an Accept header (NULL: none) asks for; text by default. */
enum kpx_expo_format kpx_metrics_negotiate(const char *accept);
const char *kpx_metrics_content_type(enum kpx_expo_format format);
/* The whole /metrics page in format (malloc'd) or NULL. */
char *kpx_metrics_render_as(struct kpx_metrics *m, enum kpx_expo_format format, size_t *len);

#endif /* KPX_METRICS_H */
