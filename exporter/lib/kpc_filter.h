/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which records a reader wants: by level, class, source, subsystem, device,
 * module and format id.
 */
#ifndef KPC_FILTER_H
#define KPC_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "kpc_record.h"

struct kpc_filter {
	uint32_t levels;	/* bit (1 << level) per wanted level; 0: all */
	uint32_t classes;	/* bit (1 << class) per wanted class; 0: all */
	uint32_t sources;	/* bit (1 << source) per wanted source; 0: all */
	const char *subsystem;	/* exact match; NULL: any */
	const char *device;	/* exact match ("" for none); NULL: any */
	const char *module;	/* exact match; NULL: any */
	unsigned int nr_format_ids;	/* 0: any format */
	uint64_t format_ids[KPRINT_FORMAT_IDS_MAX];	/* any of them */
};

/*
 * Add to *mask the levels of spec: a comma-separated list of "LEVEL"
 * (exactly that level) or "LEVEL+" (that level or more severe), e.g.
 * "err", "warn+", "debug,err+".  -EINVAL for an unknown level.
 */
int kpc_filter_parse_levels(const char *spec, uint32_t *mask);

/* Add to *mask the classes of a comma-separated list. -EINVAL. */
int kpc_filter_parse_classes(const char *spec, uint32_t *mask);

/* Add to *mask the sources (kprint, printk) of a comma-separated list. -EINVAL. */
int kpc_filter_parse_sources(const char *spec, uint32_t *mask);

/*
 * Add a format id, as kprint --json and /formats print it (16 hex digits,
 * an optional 0x before them).  -EINVAL for anything else, -E2BIG past
 * KPRINT_FORMAT_IDS_MAX ids (the most one kernel-side filter takes).
 */
int kpc_filter_add_format_id(struct kpc_filter *f, const char *hex);

bool kpc_filter_match(const struct kpc_filter *f, const struct kpc_record *rec);

#endif /* KPC_FILTER_H */
