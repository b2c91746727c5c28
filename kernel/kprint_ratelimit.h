/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the ratelimit hook, which shows every call ___ratelimit() refuses
 * to tracers.  See the DOC: overview in kprint_ratelimit.c.
 */
#ifndef _KPRINT_RATELIMIT_H
#define _KPRINT_RATELIMIT_H

#include <linux/types.h>

struct ratelimit_state;
struct kprint_ratelimit_stats;

/*
 * The ratelimit hook is a kretprobe of the out-of-tree module; in a kernel
 * tree (CONFIG_KPRINT known to autoconf.h) it is not built and its
 * counters read 0.
 */
#if IS_ENABLED(CONFIG_KPRINT)
#include <linux/string.h>

#include "kprint_stats.h"

static inline void kprint_ratelimit_init(void)
{
}

static inline void kprint_ratelimit_exit(void)
{
}

static inline void
kprint_ratelimit_get_stats(struct kprint_ratelimit_stats *st)
{
	memset(st, 0, sizeof(*st));
}
#else
void kprint_ratelimit_init(void);
void kprint_ratelimit_exit(void);
void kprint_ratelimit_get_stats(struct kprint_ratelimit_stats *st);
void kprint_trace_ratelimit(const struct ratelimit_state *rs, const char *func);
#endif

#endif /* _KPRINT_RATELIMIT_H */
