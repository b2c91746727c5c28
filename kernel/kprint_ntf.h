/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the notification worker, which multicasts stored records to the
 * "records" group and sends filtered subscribers the records they want.
 */
#ifndef _KPRINT_NTF_H
#define _KPRINT_NTF_H

#include <linux/types.h>

struct genl_family;
struct kprint_nl_filter;
struct kprint_ring;
struct netlink_ext_ack;

int kprint_ntf_start(struct kprint_ring *ring,
		     const struct genl_family *family);
void kprint_ntf_enable(void);
void kprint_ntf_stop(void);
bool kprint_ntf_wanted(void);
void kprint_ntf_kick(void);
void kprint_ntf_get_stats(u64 *sent, u64 *failed);
int kprint_ntf_subscribe(u32 portid, const struct kprint_nl_filter *filter,
			 u64 *from, struct netlink_ext_ack *extack);

#endif /* _KPRINT_NTF_H */
