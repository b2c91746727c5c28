/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the printk bridge, which makes every printk() of the running
 * kernel a kprint record.  See the DOC: overview in kprint_bridge.c.
 */
#ifndef _KPRINT_BRIDGE_H
#define _KPRINT_BRIDGE_H

#include <linux/types.h>

struct kprint_bridge_stats;

/*
 * Only the out-of-tree module hooks printk with ftrace; autoconf.h knows
 * CONFIG_KPRINT only in a kernel tree, where printk hands each message
 * over itself (kprint_printk.c, CONFIG_KPRINT_PRINTK) and the bridge's
 * files are not built.
 */
#if IS_ENABLED(CONFIG_KPRINT)
static inline int kprint_bridge_init(void)
{
	return 0;
}

static inline void kprint_bridge_exit(void)
{
}
#else
int kprint_bridge_init(void);
void kprint_bridge_exit(void);
#endif
void kprint_bridge_get_stats(struct kprint_bridge_stats *st);

#endif /* _KPRINT_BRIDGE_H */
