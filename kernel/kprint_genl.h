/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The genetlink tables of kprint.ko.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
#ifndef _KPRINT_GENL_H
#define _KPRINT_GENL_H

#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/kprint.h>

/* Handlers, written by hand (kprint_netlink.c). */
int kprint_nl_record_get_start(struct netlink_callback *cb);
int kprint_nl_record_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int kprint_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int kprint_nl_emit_doit(struct sk_buff *skb, struct genl_info *info);
int kprint_nl_subscribe_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	KPRINT_NLGRP_RECORDS,
};

/* Nested policies, for handlers that parse a nest themselves. */
extern const struct nla_policy
kprint_nl_emit_record_policy[KPRINT_RECORD_A_MAX + 1];
extern const struct nla_policy
kprint_nl_filter_policy[KPRINT_FILTER_A_MAX + 1];

/* The family (kprint_netlink.c) registers these. */
extern const struct genl_ops kprint_nl_ops[4];
extern const struct genl_multicast_group kprint_nl_mcgrps[1];

/*
 * Size helpers: the most a nest can take in a message, from the types
 * and max-len checks of the spec (a repeated attribute counts its const
 * <name>s-max times), and the part of it that does not depend on
 * string lengths, for code that sizes a message from stored strings.
 */
static inline size_t kprint_record_nest_max_size(void)
{
	return nla_total_size(0) +				/* the nest */
	       nla_total_size_64bit(sizeof(u64)) +		/* seq */
	       nla_total_size(sizeof(u32)) +			/* level */
	       nla_total_size(sizeof(u32)) +			/* class */
	       nla_total_size_64bit(sizeof(u64)) +		/* ts_mono_ns */
	       nla_total_size_64bit(sizeof(u64)) +		/* ts_real_ns */
	       nla_total_size(sizeof(u32)) +			/* cpu */
	       nla_total_size(sizeof(u32)) +			/* pid */
	       nla_total_size(15 + 1) +				/* comm */
	       nla_total_size(63 + 1) +				/* file */
	       nla_total_size(sizeof(u32)) +			/* line */
	       nla_total_size(63 + 1) +				/* function */
	       nla_total_size(63 + 1) +				/* subsystem */
	       nla_total_size(63 + 1) +				/* module */
	       nla_total_size(255 + 1) +			/* format */
	       nla_total_size_64bit(sizeof(u64)) +		/* format_id */
	       KPRINT_ARGS_MAX * nla_total_size(255 + 1) +	/* arg */
	       nla_total_size(1023 + 1) +			/* text */
	       nla_total_size_64bit(sizeof(u64)) +		/* block_id */
	       nla_total_size(sizeof(u32)) +			/* flags */
	       nla_total_size(sizeof(u32)) +			/* source */
	       nla_total_size(47 + 1) +				/* device */
	       nla_total_size(sizeof(u32)) +			/* facility */
	       nla_total_size_64bit(sizeof(u64)) +		/* continues */
	       nla_total_size_64bit(sizeof(u64)) +		/* printk_seq */
	       nla_total_size_64bit(sizeof(u64));		/* filtered */
}

/* The nest and its single scalars, without strings and repeats. */
static inline size_t kprint_record_nest_scalars_size(void)
{
	return nla_total_size(0) +			/* the nest */
	       nla_total_size_64bit(sizeof(u64)) +	/* seq */
	       nla_total_size(sizeof(u32)) +		/* level */
	       nla_total_size(sizeof(u32)) +		/* class */
	       nla_total_size_64bit(sizeof(u64)) +	/* ts_mono_ns */
	       nla_total_size_64bit(sizeof(u64)) +	/* ts_real_ns */
	       nla_total_size(sizeof(u32)) +		/* cpu */
	       nla_total_size(sizeof(u32)) +		/* pid */
	       nla_total_size(sizeof(u32)) +		/* line */
	       nla_total_size_64bit(sizeof(u64)) +	/* format_id */
	       nla_total_size_64bit(sizeof(u64)) +	/* block_id */
	       nla_total_size(sizeof(u32)) +		/* flags */
	       nla_total_size(sizeof(u32)) +		/* source */
	       nla_total_size(sizeof(u32)) +		/* facility */
	       nla_total_size_64bit(sizeof(u64)) +	/* continues */
	       nla_total_size_64bit(sizeof(u64)) +	/* printk_seq */
	       nla_total_size_64bit(sizeof(u64));	/* filtered */
}

static inline size_t kprint_filter_nest_max_size(void)
{
	return nla_total_size(0) +					/* the nest */
	       nla_total_size(sizeof(u32)) +				/* level */
	       nla_total_size(sizeof(u32)) +				/* source */
	       nla_total_size(sizeof(u32)) +				/* class */
	       nla_total_size(63 + 1) +					/* module */
	       nla_total_size(63 + 1) +					/* subsystem */
	       KPRINT_FORMAT_IDS_MAX * nla_total_size(sizeof(u64));	/* format_id */
}

/* The nest and its single scalars, without strings and repeats. */
static inline size_t kprint_filter_nest_scalars_size(void)
{
	return nla_total_size(0) +		/* the nest */
	       nla_total_size(sizeof(u32)) +	/* level */
	       nla_total_size(sizeof(u32)) +	/* source */
	       nla_total_size(sizeof(u32));	/* class */
}

static inline size_t kprint_stats_nest_max_size(void)
{
	return nla_total_size(0) +			/* the nest */
	       nla_total_size_64bit(sizeof(u64)) +	/* records */
	       nla_total_size_64bit(sizeof(u64)) +	/* overwritten */
	       nla_total_size_64bit(sizeof(u64)) +	/* dropped */
	       nla_total_size_64bit(sizeof(u64)) +	/* truncated */
	       nla_total_size_64bit(sizeof(u64)) +	/* ring_bytes */
	       nla_total_size_64bit(sizeof(u64)) +	/* ring_records */
	       nla_total_size_64bit(sizeof(u64)) +	/* first_seq */
	       nla_total_size_64bit(sizeof(u64)) +	/* next_seq */
	       nla_total_size_64bit(sizeof(u64)) +	/* mcast_sent */
	       nla_total_size_64bit(sizeof(u64)) +	/* mcast_failed */
	       nla_total_size_64bit(sizeof(u64)) +	/* mcast_skipped */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridge */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridged */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridge_skipped */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridge_dropped_nmi */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridge_dropped_recursion */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridge_dropped_scratch */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridge_missed */
	       nla_total_size_64bit(sizeof(u64)) +	/* bridge_backlog */
	       nla_total_size_64bit(sizeof(u64)) +	/* ratelimit */
	       nla_total_size_64bit(sizeof(u64)) +	/* ratelimit_queued */
	       nla_total_size_64bit(sizeof(u64)) +	/* ratelimit_lost */
	       nla_total_size_64bit(sizeof(u64)) +	/* ratelimit_traced */
	       nla_total_size_64bit(sizeof(u64));	/* ratelimit_missed */
}

/* Payload of a KPRINT_CMD_STATS_GET reply. */
static inline size_t kprint_nl_stats_get_reply_size(void)
{
	return kprint_stats_nest_max_size();	/* stats */
}

/* Payload of a KPRINT_CMD_EMIT reply. */
static inline size_t kprint_nl_emit_reply_size(void)
{
	return nla_total_size_64bit(sizeof(u64));	/* seq */
}

/* Payload of a KPRINT_CMD_SUBSCRIBE reply. */
static inline size_t kprint_nl_subscribe_reply_size(void)
{
	return nla_total_size_64bit(sizeof(u64));	/* seq */
}

#endif /* _KPRINT_GENL_H */
