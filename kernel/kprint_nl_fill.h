/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: records and statistics as netlink attributes, each a
 * kprint_nl_*_size() / kprint_nl_*_fill() pair.
 */
#ifndef _KPRINT_NL_FILL_H
#define _KPRINT_NL_FILL_H

#include <linux/skbuff.h>
#include <linux/types.h>

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

int kprint_nl_fill_init(void);
void kprint_nl_fill_exit(void);
int kprint_nl_fill_one(const struct kprint_rec *rec, void *arg);

size_t kprint_nl_stats_size(void);
int kprint_nl_stats_fill(struct sk_buff *skb, const struct kprint_stats *st);

#endif /* _KPRINT_NL_FILL_H */
