/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the "kprint" generic netlink family's tables: request policies,
 * operations and multicast groups, and the handlers the operations name.
 *
 * The tables are the part of the family that follows from its YNL spec
 * (schema/kprint.yaml); the handlers are written by hand in kprint_netlink.c.
 */
#ifndef _KPRINT_GENL_H
#define _KPRINT_GENL_H

#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/kprint.h>

/* Nested policies */
extern const struct nla_policy
kprint_nl_emit_record_policy[KPRINT_RECORD_A_MAX + 1];

/* Ops table for kprint */
extern const struct genl_ops kprint_nl_ops[3];

int kprint_nl_record_get_start(struct netlink_callback *cb);
int kprint_nl_record_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int kprint_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int kprint_nl_emit_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	KPRINT_NLGRP_RECORDS,
};

extern const struct genl_multicast_group kprint_nl_mcgrps[1];

#endif /* _KPRINT_GENL_H */
