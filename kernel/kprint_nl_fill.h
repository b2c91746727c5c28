/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: records and statistics as netlink attributes, each a
 * kprint_nl_*_size() / kprint_nl_*_fill() pair.
 */
#ifndef _KPRINT_NL_FILL_H
#define _KPRINT_NL_FILL_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "kprint_nl_filter.h"
#include "kprint_record.h"
#include "kprint_stats.h"

size_t kprint_nl_record_max(void);

/**
 * struct kprint_nl_fill - state of one pass over the ring into a message
 * @skb: message to fill, or NULL to only count (and so discard) records
 * @end_seq: stop before this sequence number
 * @n: records added (or counted)
 * @ntf: for the multicast: skip records stored while nobody listened
 * @full: stopped because the next record did not fit
 */
struct kprint_nl_fill {
	struct sk_buff *skb;
	u64 end_seq;
	unsigned int n;
	bool ntf;
	bool full;
};

/* The multicast group and every filtered subscriber. */
#define KPRINT_NL_SUBS_MAX	32
#define KPRINT_NL_TARGETS_MAX	(KPRINT_NL_SUBS_MAX + 1)

/**
 * struct kprint_nl_target - where one pass of the notification worker sends
 * @skb: the message being filled
 * @filter: a filtered subscriber's filter; NULL for the multicast group,
 *	    which gets every record
 * @from: a filtered subscriber gets no record older than this (its start)
 * @next: the seq after the last record a pass looked at for it
 * @filtered: records its filter refused since the last one it was sent,
 *	      all consecutive and right before @next
 * @n: records added to @skb
 */
struct kprint_nl_target {
	struct sk_buff *skb;
	const struct kprint_nl_filter *filter;
	u64 from;
	u64 next;
	u64 filtered;
	unsigned int n;
};

/**
 * struct kprint_nl_fanout - one pass over the ring into several messages
 * @t: the targets, @nr of them (at most KPRINT_NL_TARGETS_MAX)
 * @nr: how many
 * @n: records consumed from the ring
 * @full: stopped because the next record did not fit a target's message
 */
struct kprint_nl_fanout {
	struct kprint_nl_target **t;
	unsigned int nr;
	unsigned int n;
	bool full;
};

int kprint_nl_fanout_one(const struct kprint_rec *rec, void *arg);

int kprint_nl_fill_init(void);
void kprint_nl_fill_exit(void);
int kprint_nl_fill_one(const struct kprint_rec *rec, void *arg);

size_t kprint_nl_stats_size(void);
int kprint_nl_stats_fill(struct sk_buff *skb, const struct kprint_stats *st);

#endif /* _KPRINT_NL_FILL_H */
