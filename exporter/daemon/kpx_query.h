/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed /records or /events query, and the /records answer
 * (kpx_query.c).
 */
#ifndef KPX_QUERY_H
#define KPX_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kpc.h"

#define KPX_LIMIT_DEFAULT	100
#define KPX_LIMIT_MAX		1000
#define KPX_WAIT_MAX		30	/* s, wait= at most */

struct kpx_catalogs;
struct kpx_store;

/*
 * A record as /records and /events write it: with cat, text_translated
 * (the text where cat does not translate it).  0, or -ENOMEM.
 */
int kpx_record_write(FILE *f, const struct kpc_record *rec, const struct kpc_catalog *cat);

/* A parsed /records query. */
struct kpx_query {
	struct kpc_filter filter;
	bool has_format_id;
	uint64_t format_id;
	const char *q;			/* substring of the format; NULL: any */
	bool has_after;
	uint64_t after;
	unsigned int limit;
	/*
	 * /records, wait=: seconds to hold an answer that has no records
	 * yet, for the first that match after after= (0: answer at once).
	 */
	unsigned int wait_s;
	/*
	 * /events: after is an event id (after_instance with after), and
	 * limit is no parameter.
	 */
	bool events;
	uint32_t after_instance;
	/*
	 * lang=: a language of catalogs (which the caller sets before the
	 * parameters), checked when given; records then carry
	 * text_translated.
	 */
	struct kpx_catalogs *catalogs;
	const char *lang;		/* NULL: no translation */
};

void kpx_query_init(struct kpx_query *q);
/*
 * Apply one query parameter.  value may be NULL ("?b" with no '=');
 * value_len is its length as sent, so that a %00 inside shows.  Returns
 * 0, or -EINVAL with a message for the client in err.
 */
int kpx_query_param(struct kpx_query *q, const char *name, const char *value,
		    size_t value_len, char *err, size_t errlen);
/*
 * What no single parameter can tell: 0 once they are all in, or -EINVAL
 * with a message (and the parameter's name in param) for the client.
 */
int kpx_query_check(const struct kpx_query *q, char *err, size_t errlen,
		    char *param, size_t paramlen);
bool kpx_query_match(const struct kpx_query *q, const struct kpc_record *rec);

/*
 * What every query of the exporter (/records, /events, /sites) checks
 * alike: a value given, without a NUL inside; format_id= as 16 hex
 * digits.  0, or -EINVAL with a message for the client in err.
 */
int kpx_param_value(const char *value, size_t value_len, char *err, size_t errlen);
int kpx_param_format_id(const char *value, uint64_t *id, char *err, size_t errlen);

/*
 * What an answer of kpx_records_json() looked at: its count of records,
 * and, when it went through every record held after q->after (without
 * reaching the limit, in a store in sequence order), the newest one's
 * seq: an answer that waits for more need not look at those again.
 */
struct kpx_records_scan {
	size_t n;
	bool to_end;
	uint64_t newest_seq;
};

/*
 * The records matching q as a JSON array, in sequence order: with after,
 * the first limit records past it (so paging by the last seq seen loses
 * and repeats nothing); without, the most recent limit.  NULL: no memory.
 * scan, when not NULL, is told what was looked at.
 */
char *kpx_records_json(struct kpx_store *s, const struct kpx_query *q,
		       struct kpx_records_scan *scan);

#endif /* KPX_QUERY_H */
