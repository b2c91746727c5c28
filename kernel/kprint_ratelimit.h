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

void kprint_ratelimit_init(void);
void kprint_ratelimit_exit(void);
void kprint_ratelimit_get_stats(struct kprint_ratelimit_stats *st);
void kprint_trace_ratelimit(const struct ratelimit_state *rs, const char *func);

#endif /* _KPRINT_RATELIMIT_H */
