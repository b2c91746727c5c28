/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the handoff slots, through which the printk bridge and kprint's
 * own echo hand each printk message to the BPF printk counter.  The slots'
 * layout, shared with the BPF program, is <kprint_handoff.h> in the
 * repository's include/; this header is the module's API for them.
 */
#ifndef _KPRINT_HANDOFF_H
#define _KPRINT_HANDOFF_H

#include <linux/types.h>

struct kprint_handoff_block;
struct kprint_handoff_head;

/*
 * The slots serve the out-of-tree module's BPF printk counter, which pairs
 * them with its hook on vprintk_store().  In a kernel tree (CONFIG_KPRINT
 * known to autoconf.h) they are not built: the echo has nothing to mark.
 */
#if IS_ENABLED(CONFIG_KPRINT)
static inline int kprint_handoff_init(void)
{
	return 0;
}

static inline void kprint_handoff_exit(void)
{
}

static inline struct kprint_handoff_head *
kprint_handoff_echo(const void *args, const char *fmt)
{
	return NULL;
}

static inline void kprint_handoff_echo_end(struct kprint_handoff_head *h)
{
}
#else
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
#endif

#endif /* _KPRINT_HANDOFF_H */
