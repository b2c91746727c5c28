/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fill table of kprint.ko's stats reply.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
/*
 * A table, not declarations: kprint_nl_fill.c alone includes it, so that
 * the fill and its table are one object and need no other.
 */
#ifndef _KPRINT_STATS_TABLE_H
#define _KPRINT_STATS_TABLE_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include <uapi/linux/kprint.h>

#include "kprint_stats.h"

/**
 * struct kprint_stats_entry - one counter of the KPRINT_A_STATS nest
 * @attr: its KPRINT_STATS_A_*
 * @offset: of its u64 in struct kprint_stats
 */
struct kprint_stats_entry {
	u16 attr;
	u16 offset;
};

/* Where each counter is kept; one that is not a u64 stops the build. */
#define KPRINT_STATS_ENTRY(attr, field)						\
	{ attr, offsetof(struct kprint_stats, field) +				\
		BUILD_BUG_ON_ZERO(sizeof_field(struct kprint_stats, field) != 8) }

/* Every counter, in attribute order: kprint_nl_stats_fill() sends them. */
static const struct kprint_stats_entry kprint_stats_entries[] = {
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RECORDS, ring.records),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_OVERWRITTEN, ring.overwritten),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_DROPPED, dropped),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_TRUNCATED, ring.truncated),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RING_BYTES, ring.size),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RING_RECORDS, ring.nr_records),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_FIRST_SEQ, ring.first_seq),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_NEXT_SEQ, ring.next_seq),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_MCAST_SENT, mcast_sent),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_MCAST_FAILED, mcast_failed),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_MCAST_SKIPPED, ring.ntf_skipped),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGE, bridge.on),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGED, bridge.bridged),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGE_SKIPPED, bridge.skipped),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGE_DROPPED_NMI, bridge.dropped_nmi),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGE_DROPPED_RECURSION, bridge.dropped_recursion),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGE_DROPPED_SCRATCH, bridge.dropped_scratch),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGE_MISSED, bridge.missed),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_BRIDGE_BACKLOG, bridge.backlog),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RATELIMIT, ratelimit.on),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RATELIMIT_QUEUED, ratelimit.queued),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RATELIMIT_LOST, ratelimit.lost),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RATELIMIT_TRACED, ratelimit.traced),
	KPRINT_STATS_ENTRY(KPRINT_STATS_A_RATELIMIT_MISSED, ratelimit.missed),
};

#undef KPRINT_STATS_ENTRY

#endif /* _KPRINT_STATS_TABLE_H */
