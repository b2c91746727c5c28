/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed /sites (or /formats?never=1) query, and its answer
 * (kpx_sites_query.c).
 */
#ifndef KPX_SITES_QUERY_H
#define KPX_SITES_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kpc_sites.h"
#include "kpx_sites.h"

#define KPX_SITES_LIMIT_DEFAULT	100
#define KPX_SITES_LIMIT_MAX	10000
/* level=none: the entries without a compiled-in level, a bit past the levels' */
#define KPX_SITES_LEVEL_NONE_BIT	(1u << 10)

struct kpx_sites_query {
	const char *module;		/* NULL: any */
	const char *function;		/* NULL: any */
	const char *q;			/* substring of the format; NULL: any */
	uint32_t levels;		/* bit per level (kpc_site_level_parse()), none; 0: any */
	uint32_t kinds;			/* bit per enum kpc_site_kind; 0: any */
	uint32_t sources;		/* bit per enum kpc_site_source; 0: any */
	int seen;			/* 0, 1; -1: either */
	bool has_format_id;
	uint64_t format_id;
	unsigned long limit, offset;
	bool summary;			/* the counts, not the entries */
	/* /formats: never=1 is asked for, and selects the entries never seen. */
	bool formats, never;
};

void kpx_sites_query_init(struct kpx_sites_query *q, bool formats);
/*
 * Apply one parameter (value as kpx_query_param() takes it).  0, or
 * -EINVAL with a message for the client in err.
 */
int kpx_sites_query_param(struct kpx_sites_query *q, const char *name, const char *value,
			  size_t value_len, char *err, size_t errlen);
/* After the parameters: what only the whole query can tell.  0 or -EINVAL, said. */
int kpx_sites_query_check(const struct kpx_sites_query *q, char *err, size_t errlen);
bool kpx_sites_match(const struct kpx_sites_query *q, const struct kpc_site *site, bool seen);

/*
 * The answer: the entries q selects as a JSON array (each the catalog
 * file's entry object with "seen", and "count" when seen), from offset,
 * limit of them; or, with summary, one object of the catalog's header
 * and the counts of what q selects.  malloc'd, NULL: no memory.
 */
char *kpx_sites_json(const struct kpc_sites *cat, const char *path, const struct kpx_seen *seen,
		     const struct kpx_sites_query *q);

#endif /* KPX_SITES_QUERY_H */
