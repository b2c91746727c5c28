/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the printk bridge, which makes every printk() of the running
 * kernel a kprint record.  See the DOC: overview in kprint_bridge.c.
 */
#ifndef _KPRINT_BRIDGE_H
#define _KPRINT_BRIDGE_H

#include <linux/types.h>

struct kprint_bridge_stats;

int kprint_bridge_init(void);
void kprint_bridge_exit(void);
void kprint_bridge_get_stats(struct kprint_bridge_stats *st);

#endif /* _KPRINT_BRIDGE_H */
