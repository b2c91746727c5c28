/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the module's shared state, the per-CPU scratch records and the
 * commit of finished records into the ring.
 */
#ifndef _KPRINT_CORE_H
#define _KPRINT_CORE_H

#include <linux/types.h>

#include "kprint_record.h"
#include "kprint_ring.h"
#include "kprint_stats.h"

extern struct kprint_ring kprint_ring;
extern bool kprint_running;
extern bool kprint_printk;

int kprint_core_init(u32 ring_size);
void kprint_core_start(void);
void kprint_core_stop(void);
void kprint_core_exit(void);

struct kprint_builder *kprint_scratch_get(unsigned long *flags);
void kprint_scratch_put(unsigned long flags);
u64 kprint_commit(struct kprint_rec *recs, unsigned int len);
void kprint_trace_record(const char *format, u64 format_id, u32 level,
			 u32 class, const char *tags, u64 tags_id);

void kprint_own_printk_begin(void);
void kprint_own_printk_end(void);
bool kprint_own_printk(void);

void kprint_count_dropped(unsigned int n);
void kprint_get_stats(struct kprint_stats *st);

#endif /* _KPRINT_CORE_H */
