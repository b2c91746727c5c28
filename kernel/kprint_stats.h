/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters of kprint.ko's stats reply.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
/*
 * kprint: the counters KPRINT_CMD_STATS_GET reports, as one struct, so that
 * who collects them (kprint_core.c) and who serializes them
 * (kprint_nl_fill.c) need not know each other.
 */
#ifndef _KPRINT_STATS_H
#define _KPRINT_STATS_H

#include <linux/types.h>

#include "kprint_ring.h"

/**
 * struct kprint_bridge_stats - the counters kept in kprint_stats.bridge
 * @on: 1 while the printk bridge is on, 0 while it is off
 * @bridged: printk messages stored as records
 * @skipped: printk messages that were kprint's own echo, not bridged again
 * @dropped_nmi: printk messages made in NMI, counted but not stored
 * @dropped_recursion: printk messages made while the bridge was already busy
 *	on the CPU
 * @dropped_scratch: printk messages for which no scratch record was free, or
 *	that the ring refused
 * @missed: printk messages the hook did not see although it was on (the
 *	kprobe's nmissed; always 0 for the ftrace hook, which every call reaches)
 * @backlog: backlog records taken at load from the printk ring
 */
struct kprint_bridge_stats {
	u64 on;
	u64 bridged;
	u64 skipped;
	u64 dropped_nmi;
	u64 dropped_recursion;
	u64 dropped_scratch;
	u64 missed;
	u64 backlog;
};

/**
 * struct kprint_ratelimit_stats - the counters kept in kprint_stats.ratelimit
 * @on: 1 while kprint's kretprobe on ___ratelimit() is registered, 0 while
 *	not
 * @queued: calls ___ratelimit() refused, queued for kprint_trace_ratelimit()
 * @lost: calls ___ratelimit() refused that found the CPU's queue full
 * @traced: refused calls handed to kprint_trace_ratelimit() (queued, once
 *	drained)
 * @missed: ___ratelimit() calls the kretprobe missed (its nmissed)
 */
struct kprint_ratelimit_stats {
	u64 on;
	u64 queued;
	u64 lost;
	u64 traced;
	u64 missed;
};

/**
 * struct kprint_stats - every counter reported by KPRINT_CMD_STATS_GET
 * @ring: counters kept by the ring under its lock (struct kprint_ring_stats)
 * @dropped: records never stored
 * @mcast_sent: records multicast
 * @mcast_failed: records whose multicast failed
 * @bridge: struct kprint_bridge_stats
 * @ratelimit: struct kprint_ratelimit_stats
 */
struct kprint_stats {
	struct kprint_ring_stats ring;
	u64 dropped;
	u64 mcast_sent;
	u64 mcast_failed;
	struct kprint_bridge_stats bridge;
	struct kprint_ratelimit_stats ratelimit;
};

#endif /* _KPRINT_STATS_H */
