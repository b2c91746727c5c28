/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the printk bridge, which makes every printk() of the running
 * kernel a kprint record.  See the DOC: overview in kprint_bridge.c.
 */
#ifndef _KPRINT_BRIDGE_H
#define _KPRINT_BRIDGE_H

#include <linux/types.h>
#include <kprint_handoff.h>

struct kprint_bridge_stats;

int kprint_bridge_init(void);
void kprint_bridge_exit(void);
void kprint_bridge_get_stats(struct kprint_bridge_stats *st);

/* kprint_handoff.c: what the bridge and the echo hand the BPF printk counter */
int kprint_handoff_init(void);
void kprint_handoff_exit(void);
void kprint_handoff_announce(void);
void kprint_handoff_clear(void);
struct kprint_handoff_head *kprint_handoff_begin(const void *args,
						 const char *fmt);
void kprint_handoff_end(struct kprint_handoff_head *h, const char *tags,
			size_t tags_len);
struct kprint_handoff_head *kprint_handoff_echo(const void *args,
						const char *fmt);
void kprint_handoff_echo_end(struct kprint_handoff_head *h);
void kprint_trace_handoff(const struct kprint_handoff_block *blocks, u32 cpus);

#endif /* _KPRINT_BRIDGE_H */
