/* SPDX-License-Identifier: GPL-2.0 */
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
 * struct kprint_bridge_stats - the printk bridge's counters
 * @on: 1 while the hook is registered
 * @bridged: printk messages stored as records
 * @skipped: kprint's own printk calls, not taken again
 * @dropped_nmi: messages made in NMI, counted only
 * @dropped_recursion: messages made while the bridge was busy on the CPU
 * @dropped_scratch: messages for which no scratch record was free, or that
 *	the ring refused
 * @missed: messages the hook did not see although it was on (always 0 for
 *	the ftrace hook: every call reaches it; see kprint_bridge.c)
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
 * struct kprint_ratelimit_stats - the ratelimit hook's counters
 * @on: 1 while the kretprobe on ___ratelimit() is registered
 * @queued: refused calls queued for kprint_trace_ratelimit()
 * @lost: refused calls not queued: the CPU's queue was full
 * @traced: refused calls handed to kprint_trace_ratelimit()
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
 * @ring: counters kept by the ring under its lock
 * @dropped: records never stored
 * @mcast_sent: records multicast to at least one listener
 * @mcast_failed: records whose multicast failed
 * @bridge: the printk bridge's counters
 * @ratelimit: the ratelimit hook's counters
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
