/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF families of /metrics and /formats (kpx_metrics_formats.c). */
#ifndef KPX_METRICS_FORMATS_H
#define KPX_METRICS_FORMATS_H

#include <stdint.h>

#include "kpx_expo.h"
#include "kpx_metrics.h"

/* A per-format series' key, as the BPF maps have it. */
struct kpx_series_key {
	uint64_t format_id;
	uint64_t tags_id;
	uint32_t level;
	uint32_t class;
};

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

/*
 * Every series' newest record among those the store holds, for the
 * exemplars of an OpenMetrics scrape; set->l is malloc'd.
 * Returns 0 (set->n 0 when there is nothing), or -ENOMEM.
 */
int kpx_latest_collect(struct kpx_store *s, struct kpx_latest_set *set);
/* The BPF families, from the maps (zeros and no series with --no-bpf). */
void kpx_metrics_bpf(struct kpx_expo *e, struct kpx_metrics *m);

#endif /* KPX_METRICS_FORMATS_H */
