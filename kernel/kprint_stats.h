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
 * struct kprint_stats - every counter reported by KPRINT_CMD_STATS_GET
 * @ring: counters kept by the ring under its lock
 * @dropped: records never stored
 * @mcast_sent: records multicast to at least one listener
 * @mcast_failed: records whose multicast failed
 */
struct kprint_stats {
	struct kprint_ring_stats ring;
	u64 dropped;
	u64 mcast_sent;
	u64 mcast_failed;
};

#endif /* _KPRINT_STATS_H */
