// SPDX-License-Identifier: GPL-2.0
/*
 * The store of recent records and the /records query.  Ingest hands over
 * whole batches, so the lock is taken once per wake-up, not per record.
 * And the --catalog files that /records and /events translate with.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "kpx.h"

int kpx_store_init(struct kpx_store *s, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->ring = calloc(cap, sizeof(*s->ring));
	if (!s->ring)
		return -ENOMEM;
	s->cap = cap;
	/* Unpredictable is not needed, only unlikely to repeat: time and pid will do. */
	if (getrandom(&s->instance, sizeof(s->instance), GRND_NONBLOCK) != sizeof(s->instance))
		s->instance = (uint32_t)time(NULL) * 2654435761u ^ (uint32_t)getpid();
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void kpx_store_fini(struct kpx_store *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		kpc_record_free(s->ring[i]);
	free(s->ring);
	s->ring = NULL;
	pthread_mutex_destroy(&s->lock);
}

void kpx_store_add(struct kpx_store *s, struct kpc_record **recs, size_t n)
{
	struct kpc_record *old[64];
	size_t i, nold = 0;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < n; i++) {
		struct kpc_record *prev = s->ring[s->head];
		const struct kpc_record *newest = s->n ?
			s->ring[(s->head + s->cap - 1) % s->cap] : NULL;

		/*
		 * Live records come in sequence order; a replayed file need
		 * not.  Keep count of where the order breaks, so that queries
		 * know whether they may binary-search.
		 */
		if (s->n == s->cap && s->cap > 1 &&
		    prev->seq >= s->ring[(s->head + 1) % s->cap]->seq)
			s->descents--;
		if (newest && recs[i]->seq <= newest->seq)
			s->descents++;
		s->ring[s->head] = recs[i];
		s->head = (s->head + 1) % s->cap;
		if (s->n < s->cap)
			s->n++;
		s->received++;
		/* Free outside the lock when we can: readers wait less. */
		if (prev && nold < sizeof(old) / sizeof(old[0]))
			old[nold++] = prev;
		else
			kpc_record_free(prev);
	}
	if (n && s->notify)
		s->notify(s->notify_ctx);
	pthread_mutex_unlock(&s->lock);
	for (i = 0; i < nold; i++)
		kpc_record_free(old[i]);
}

void kpx_store_reload(struct kpx_store *s)
{
	struct kpc_record **old;
	size_t i, cap = s->cap;

	/* A fresh array to swap in, so the old records are freed unlocked. */
	old = calloc(cap, sizeof(*old));
	pthread_mutex_lock(&s->lock);
	if (old) {
		struct kpc_record **tmp = s->ring;

		s->ring = old;
		old = tmp;
	} else {
		for (i = 0; i < cap; i++) {
			kpc_record_free(s->ring[i]);
			s->ring[i] = NULL;
		}
	}
	s->head = 0;
	s->n = 0;
	s->descents = 0;
	s->reloads++;
	s->module_loaded = true;
	s->instance++;
	s->instance_start = s->received;
	if (s->notify)
		s->notify(s->notify_ctx);
	pthread_mutex_unlock(&s->lock);
	if (old) {
		for (i = 0; i < cap; i++)
			kpc_record_free(old[i]);
		free(old);
	}
}

const struct kpc_record *kpx_store_at(const struct kpx_store *s, uint64_t pos)
{
	uint64_t back = s->received - pos;	/* 1 for the newest */

	if (pos >= s->received || back > s->n)
		return NULL;
	return s->ring[(s->head + s->cap - back) % s->cap];
}

int kpx_id_parse(const char *s, uint32_t *instance, uint64_t *seq)
{
	char hex[9];
	uint64_t inst;

	if (strlen(s) < 10 || s[8] != '-')
		return -EINVAL;
	memcpy(hex, s, 8);
	hex[8] = '\0';
	if (kpc_parse_u64(hex, 16, UINT32_MAX, &inst) ||
	    kpc_parse_u64(s + 9, 10, UINT64_MAX, seq))
		return -EINVAL;
	*instance = inst;
	return 0;
}

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

int kpx_query_param(struct kpx_query *q, const char *name, const char *value,
		    size_t value_len, char *err, size_t errlen)
{
	uint64_t v;

	if (!value)
		return kpx_bad("parameter needs a value");
	if (strlen(value) != value_len)
		return kpx_bad("value contains a NUL byte");

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
	if (!strcmp(name, "format_id")) {
		if (strlen(value) != 16 || kpc_parse_u64(value, 16, UINT64_MAX, &v))
			return kpx_bad("format_id is 16 hex digits");
		q->has_format_id = true;
		q->format_id = v;
		return 0;
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

/*
 * Index (from the oldest) of the first record kept with a sequence number
 * above @after.  Live records are kept in sequence order, so a client
 * paging or resuming with after= costs a binary search, not a scan of
 * everything kept; out of order (a replayed file), every record is looked
 * at.  Called with the store locked.
 */
static size_t kpx_store_first_after(const struct kpx_store *s, size_t oldest,
				    uint64_t after)
{
	size_t lo = 0, hi = s->n;

	if (s->descents)
		return 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ring[(oldest + mid) % s->cap]->seq <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t kpx_store_pos_after(const struct kpx_store *s, uint64_t after)
{
	size_t oldest = (s->head + s->cap - s->n) % s->cap;

	return s->received - s->n + kpx_store_first_after(s, oldest, after);
}

char *kpx_records_json(struct kpx_store *s, const struct kpx_query *q)
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

static void kpx_catalog_set_free(struct kpx_catalog_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++) {
		kpc_catalog_free(set->l[i].cat);
		free(set->l[i].path);
	}
	free(set);
}

static int kpx_catalog_lang_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kpx_catalog_lang *)a)->lang,
		      ((const struct kpx_catalog_lang *)b)->lang);
}

/*
 * A language as lang= can name it: what a Language: header holds
 * ("de", "pt_BR", "sr@latin"), no more.
 */
static bool kpx_lang_valid(const char *lang)
{
	size_t n = strlen(lang);

	if (!n || n >= KPX_LANG_MAX)
		return false;
	return strspn(lang, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-@.") == n;
}

int kpx_catalogs_load(const char *const *paths, size_t n, struct kpx_catalog_set **out)
{
	struct kpx_catalog_set *set;
	struct kpc_catalog_error err;
	int ret = 0;

	set = calloc(1, sizeof(*set) + n * sizeof(set->l[0]));
	if (!set) {
		fprintf(stderr, "kprint_exporter: --catalog: out of memory\n");
		return -ENOMEM;
	}
	set->refs = 1;
	for (size_t i = 0; i < n; i++) {
		struct kpx_catalog_lang *l = &set->l[i];

		ret = kpc_catalog_load(paths[i], &l->cat, &err);
		if (ret) {
			fprintf(stderr, "kprint_exporter: --catalog %s\n", err.msg);
			goto fail;
		}
		set->n++;
		l->lang = kpc_catalog_language(l->cat);
		l->path = strdup(paths[i]);
		if (!l->path) {
			fprintf(stderr, "kprint_exporter: --catalog: out of memory\n");
			ret = -ENOMEM;
			goto fail;
		}
		/* Which language a file is for, the file says: no guessing from its name. */
		ret = -EINVAL;
		if (!*l->lang) {
			fprintf(stderr, "kprint_exporter: --catalog %s:%u: no Language: in the"
				" header; the exporter serves each catalog by its language\n",
				paths[i], kpc_catalog_header_line(l->cat) ?: 1);
			goto fail;
		}
		if (!kpx_lang_valid(l->lang)) {
			fprintf(stderr, "kprint_exporter: --catalog %s:%u: Language: is a code"
				" like de or pt_BR (letters, digits, _ - @ .), at most %d bytes\n",
				paths[i], kpc_catalog_header_line(l->cat), KPX_LANG_MAX - 1);
			goto fail;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(set->l[j].lang, l->lang))
				continue;
			fprintf(stderr, "kprint_exporter: --catalog %s:%u: language %s again,"
				" already from %s: one catalog per language\n", paths[i],
				kpc_catalog_header_line(l->cat), l->lang, set->l[j].path);
			goto fail;
		}
		ret = 0;
	}
	qsort(set->l, set->n, sizeof(set->l[0]), kpx_catalog_lang_cmp);
	*out = set;
	return 0;
fail:
	kpx_catalog_set_free(set);
	return ret;
}

void kpx_catalogs_init(struct kpx_catalogs *c, const char *const *paths, size_t n,
		       struct kpx_catalog_set *set)
{
	pthread_mutex_init(&c->lock, NULL);
	c->paths = paths;
	c->npaths = n;
	c->set = set;
}

struct kpx_catalog_set *kpx_catalogs_get(struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set;

	if (!c)
		return NULL;
	pthread_mutex_lock(&c->lock);
	set = c->set;
	if (set)
		__atomic_add_fetch(&set->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->lock);
	return set;
}

void kpx_catalog_set_put(struct kpx_catalog_set *set)
{
	if (set && !__atomic_sub_fetch(&set->refs, 1, __ATOMIC_ACQ_REL))
		kpx_catalog_set_free(set);
}

int kpx_catalogs_reload(struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set, *old;
	int ret;

	if (!c->npaths)
		return 0;
	ret = kpx_catalogs_load(c->paths, c->npaths, &set);
	if (ret)
		return ret;
	pthread_mutex_lock(&c->lock);
	old = c->set;
	c->set = set;
	pthread_mutex_unlock(&c->lock);
	kpx_catalog_set_put(old);
	return 0;
}

void kpx_catalogs_fini(struct kpx_catalogs *c)
{
	kpx_catalog_set_put(c->set);
	c->set = NULL;
	pthread_mutex_destroy(&c->lock);
}

const struct kpc_catalog *kpx_catalog_find(const struct kpx_catalog_set *set,
					   const char *lang)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (!strcmp(set->l[i].lang, lang))
			return set->l[i].cat;
	return NULL;
}

char *kpx_catalogs_json(struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set = kpx_catalogs_get(c);
	char *out = NULL;
	size_t size;
	int bad;
	FILE *f;

	f = open_memstream(&out, &size);
	if (!f) {
		kpx_catalog_set_put(set);
		return NULL;
	}
	/* Languages are checked at load: nothing in them needs escaping. */
	fputc('[', f);
	for (size_t i = 0; set && i < set->n; i++)
		fprintf(f, "%s{\"language\":\"%s\",\"translations\":%zu}", i ? "," : "",
			set->l[i].lang, kpc_catalog_stats(set->l[i].cat)->translated);
	fputc(']', f);
	kpx_catalog_set_put(set);
	bad = ferror(f);
	if (fclose(f) || bad) {
		free(out);
		return NULL;
	}
	return out;
}
