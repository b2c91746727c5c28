/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: registering the "kprint" generic netlink family.
 */
#ifndef _KPRINT_NETLINK_H
#define _KPRINT_NETLINK_H

int kprint_nl_init(void);
void kprint_nl_exit(void);

#endif /* _KPRINT_NETLINK_H */
