/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: a filtered subscriber's filter (KPRINT_A_FILTER), parsed from
 * its subscribe request (kprint_netlink.c) and matched against stored
 * records.
 */
#ifndef _KPRINT_NL_FILTER_H
#define _KPRINT_NL_FILTER_H

#include <linux/types.h>

#include <uapi/linux/kprint.h>

#include "kprint_record.h"

/**
 * struct kprint_nl_filter - what one filtered subscriber wants
 * @level: records at this level or more severe (numerically lower or equal)
 * @source: enum kprint_source, or -1 for any
 * @class: enum kprint_class, or -1 for any
 * @module: exactly this module; "" for any
 * @subsystem: exactly this subsystem; "" for any
 * @nr_ids: how many of @ids are set; 0 for any format
 * @ids: the format ids, one of which a record must have
 */
struct kprint_nl_filter {
	u32 level;
	s32 source;
	s32 class;
	char module[KPRINT_TAG_MAX];
	char subsystem[KPRINT_TAG_MAX];
	unsigned int nr_ids;
	u64 ids[KPRINT_FORMAT_IDS_MAX];
};

bool kprint_nl_filter_match(const struct kprint_nl_filter *f,
			    const struct kprint_rec *rec);

#endif /* _KPRINT_NL_FILTER_H */
