// SPDX-License-Identifier: GPL-2.0
/*
 * The /records and /events query: its parameters, which records it
 * selects, and the /records answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpx_catalogs.h"
#include "kpx_query.h"
#include "kpx_store.h"

void kpx_query_init(struct kpx_query *q)
{
	memset(q, 0, sizeof(*q));
	q->limit = KPX_LIMIT_DEFAULT;
}

#define kpx_bad(...) ({ snprintf(err, errlen, __VA_ARGS__); -EINVAL; })

/*
 * lang=: a language some --catalog file names, or a 400 that says which
 * there are.  Checked against the set of now; a SIGHUP may take the
 * language away before the answer is written, and the records then carry
 * their text untranslated, as for a format the catalog does not have.
 */
static int kpx_query_lang(struct kpx_query *q, const char *value, char *err, size_t errlen)
{
	struct kpx_catalog_set *set = kpx_catalogs_get(q->catalogs);
	size_t len = 0;
	int ret = 0;

	if (kpx_catalog_find(set, value)) {
		q->lang = value;
		goto out;
	}
	if (!set || !set->n) {
		ret = kpx_bad("no catalogs are loaded (kprint_exporter --catalog FILE.po)");
		goto out;
	}
	/* The value is not echoed: the client knows what it sent. */
	len = snprintf(err, errlen, "no catalog for that language; loaded:");
	for (size_t i = 0; i < set->n && len < errlen; i++)
		len += snprintf(err + len, errlen - len, "%s %s", i ? "," : "", set->l[i].lang);
	ret = -EINVAL;
out:
	kpx_catalog_set_put(set);
	return ret;
}

/*
 * The parameters that are kpc_filter's: 0 or -EINVAL as kpx_query_param(),
 * or -ENOENT when name is none of them.
 */
static int kpx_query_filter(struct kpx_query *q, const char *name, const char *value,
			    size_t value_len, char *err, size_t errlen)
{
	if (!strcmp(name, "level")) {
		q->filter.levels = 0;
		if (!*value || kpc_filter_parse_levels(value, &q->filter.levels))
			return kpx_bad("level is LEVEL or LEVEL+ (emerg..debug), comma-separated");
		return 0;
	}
	if (!strcmp(name, "class")) {
		q->filter.classes = 0;
		if (!*value || kpc_filter_parse_classes(value, &q->filter.classes))
			return kpx_bad("class is none, detected, registered, setting or copyright");
		return 0;
	}
	/* Longer than the kernel would ever store: a mistake, not a filter. */
	if (!strcmp(name, "subsystem")) {
		if (value_len >= KPRINT_TAG_MAX)
			return kpx_bad("subsystem is at most %d bytes", KPRINT_TAG_MAX - 1);
		q->filter.subsystem = value;
		return 0;
	}
	if (!strcmp(name, "module")) {
		if (value_len >= KPRINT_TAG_MAX)
			return kpx_bad("module is at most %d bytes", KPRINT_TAG_MAX - 1);
		q->filter.module = value;
		return 0;
	}
	if (!strcmp(name, "source")) {
		q->filter.sources = 0;
		if (!*value || kpc_filter_parse_sources(value, &q->filter.sources))
			return kpx_bad("source is kprint or printk, comma-separated");
		return 0;
	}
	if (!strcmp(name, "device")) {
		/* "" selects the records of no device, as subsystem= does. */
		if (value_len >= KPRINT_DEVICE_MAX)
			return kpx_bad("device is at most %d bytes", KPRINT_DEVICE_MAX - 1);
		q->filter.device = value;
		return 0;
	}
	return -ENOENT;
}

int kpx_param_value(const char *value, size_t value_len, char *err, size_t errlen)
{
	if (!value)
		return kpx_bad("parameter needs a value");
	if (strlen(value) != value_len)
		return kpx_bad("value contains a NUL byte");
	return 0;
}

int kpx_param_format_id(const char *value, uint64_t *id, char *err, size_t errlen)
{
	if (strlen(value) != 16 || kpc_parse_u64(value, 16, UINT64_MAX, id))
		return kpx_bad("format_id is 16 hex digits");
	return 0;
}

int kpx_query_param(struct kpx_query *q, const char *name, const char *value,
		    size_t value_len, char *err, size_t errlen)
{
	uint64_t v;
	int ret;

	ret = kpx_param_value(value, value_len, err, errlen);
	if (ret)
		return ret;
	ret = kpx_query_filter(q, name, value, value_len, err, errlen);
	if (ret != -ENOENT)
		return ret;
	if (!strcmp(name, "format_id")) {
		ret = kpx_param_format_id(value, &q->format_id, err, errlen);
		q->has_format_id = !ret;
		return ret;
	}
	if (!strcmp(name, "q")) {
		if (value_len >= KPRINT_FORMAT_MAX)
			return kpx_bad("q is at most %d bytes, like a format", KPRINT_FORMAT_MAX - 1);
		q->q = value;
		return 0;
	}
	if (!strcmp(name, "after") && q->events) {
		if (kpx_id_parse(value, &q->after_instance, &q->after))
			return kpx_bad("after is an event id, INSTANCE-SEQ as the id: lines have it");
		q->has_after = true;
		return 0;
	}
	if (!strcmp(name, "after")) {
		if (kpc_parse_u64(value, 10, UINT64_MAX, &v))
			return kpx_bad("after is a sequence number (decimal)");
		q->has_after = true;
		q->after = v;
		return 0;
	}
	if (!strcmp(name, "lang"))
		return kpx_query_lang(q, value, err, errlen);
	if (!strcmp(name, "wait") && q->events)
		return kpx_bad("a stream waits for records by itself; wait= is for /records");
	if (!strcmp(name, "wait")) {
		if (kpc_parse_u64(value, 10, KPX_WAIT_MAX, &v))
			return kpx_bad("wait is 0..%d seconds", KPX_WAIT_MAX);
		q->wait_s = v;
		return 0;
	}
	if (!strcmp(name, "limit") && q->events)
		return kpx_bad("a stream has no limit; /records has");
	if (!strcmp(name, "limit")) {
		if (kpc_parse_u64(value, 10, KPX_LIMIT_MAX, &v) || v < 1)
			return kpx_bad("limit is 1..%d", KPX_LIMIT_MAX);
		q->limit = v;
		return 0;
	}
	return kpx_bad("unknown parameter");
}

int kpx_query_check(const struct kpx_query *q, char *err, size_t errlen,
		    char *param, size_t paramlen)
{
	/* Without after= an answer has the newest records, or none will ever match. */
	if (q->wait_s && !q->has_after) {
		snprintf(param, paramlen, "wait");
		return kpx_bad("wait holds an answer for the records after a seq: give after=");
	}
	return 0;
}

bool kpx_query_match(const struct kpx_query *q, const struct kpc_record *rec)
{
	if (q->has_after && rec->seq <= q->after)
		return false;
	if (q->has_format_id && rec->format_id != q->format_id)
		return false;
	if (q->q && !strstr(rec->format, q->q))
		return false;
	return kpc_filter_match(&q->filter, rec);
}

/* What an answer of n records looked at.  Store locked. */
static void kpx_records_scanned(const struct kpx_store *s, const struct kpx_query *q,
				size_t n, struct kpx_records_scan *scan)
{
	scan->n = n;
	/* Short of the limit: every record after after= was looked at. */
	scan->to_end = q->has_after && n < q->limit && s->n && !s->descents;
	scan->newest_seq = scan->to_end ? s->seqs[(s->head + s->cap - 1) % s->cap] : 0;
}

char *kpx_records_json(struct kpx_store *s, const struct kpx_query *q,
		       struct kpx_records_scan *scan)
{
	const struct kpc_record **pick;
	struct kpx_catalog_set *set = NULL;
	const struct kpc_catalog *cat = NULL;
	size_t i, n = 0, oldest, size;
	char *out = NULL;
	int bad;
	FILE *f;

	pick = calloc(q->limit, sizeof(*pick));
	if (!pick)
		return NULL;
	f = open_memstream(&out, &size);
	if (!f) {
		free(pick);
		return NULL;
	}
	if (q->lang) {
		set = kpx_catalogs_get(q->catalogs);
		cat = kpx_catalog_find(set, q->lang);
	}

	pthread_mutex_lock(&s->lock);
	oldest = (s->head + s->cap - s->n) % s->cap;
	if (q->has_after) {
		/* The first limit past after, oldest first. */
		for (i = kpx_store_first_after(s, oldest, q->after);
		     i < s->n && n < q->limit; i++) {
			const struct kpc_record *r = s->ring[(oldest + i) % s->cap];

			if (kpx_query_match(q, r))
				pick[n++] = r;
		}
	} else {
		/* The most recent limit, collected newest first. */
		for (i = 0; i < s->n && n < q->limit; i++) {
			const struct kpc_record *r =
				s->ring[(s->head + s->cap - 1 - i) % s->cap];

			if (kpx_query_match(q, r))
				pick[n++] = r;
		}
		for (i = 0; i < n / 2; i++) {
			const struct kpc_record *t = pick[i];

			pick[i] = pick[n - 1 - i];
			pick[n - 1 - i] = t;
		}
	}
	/*
	 * Written under the lock, since the records may be freed once it
	 * drops; straight to text, as building a json-c object per record
	 * made a page cost several times a scrape.
	 */
	if (scan)
		kpx_records_scanned(s, q, n, scan);
	bad = 0;
	fputc('[', f);
	for (i = 0; i < n && !bad; i++) {
		if (i)
			fputc(',', f);
		bad = kpx_record_write(f, pick[i], cat);
	}
	fputc(']', f);
	pthread_mutex_unlock(&s->lock);
	kpx_catalog_set_put(set);
	free(pick);
	bad = bad || ferror(f);
	if (fclose(f) || bad) {
		free(out);
		return NULL;
	}
	return out;
}

int kpx_record_write(FILE *f, const struct kpc_record *rec, const struct kpc_catalog *cat)
{
	char *text = NULL;
	int ret;

	if (!cat) {
		kpc_json_record_write(f, rec);
		return 0;
	}
	ret = kpc_catalog_translate(cat, rec, &text);
	if (ret < 0)
		return ret;
	kpc_json_record_write_translated(f, rec, text ? text : rec->text);
	free(text);
	return 0;
}
