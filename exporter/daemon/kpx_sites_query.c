// SPDX-License-Identifier: GPL-2.0
/*
 * The /sites query, in the style of /records': each parameter checked,
 * a bad one a 400 that says what it takes; and the answer, the catalog's
 * entries with whether the exporter's counts know each format.  Also
 * /formats?never=1: the same entries, those never seen.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc.h"
#include "kpx_query.h"
#include "kpx_sites_query.h"

#define kpx_bad(...) ({ snprintf(err, errlen, __VA_ARGS__); -EINVAL; })

void kpx_sites_query_init(struct kpx_sites_query *q, bool formats)
{
	memset(q, 0, sizeof(*q));
	q->seen = -1;
	q->limit = KPX_SITES_LIMIT_DEFAULT;
	q->formats = formats;
}

/*
 * One name of a level, "none", or LEVEL+ (that level and the more severe,
 * as /records takes it; a '+' sent unescaped arrives as ' ').
 */
static int kpx_sites_level_bits(const char *name, size_t len, uint32_t *bits)
{
	char word[16];
	bool plus = false;
	int level;

	if (len && (name[len - 1] == '+' || name[len - 1] == ' ')) {
		plus = true;
		len--;
	}
	if (!len || len >= sizeof(word))
		return -EINVAL;
	memcpy(word, name, len);
	word[len] = '\0';
	if (!plus && !strcmp(word, "none")) {
		*bits |= KPX_SITES_LEVEL_NONE_BIT;
		return 0;
	}
	level = kpc_site_level_parse(word);
	if (level < 0 || (plus && level > 7))
		return -EINVAL;
	*bits |= plus ? (2u << level) - 1 : 1u << level;
	return 0;
}

/* A comma-separated list of names: a bit each, by parse; 0 or -EINVAL. */
static int kpx_sites_list(const char *value, uint32_t *bits,
			  int (*parse)(const char *name, size_t len, uint32_t *bits))
{
	*bits = 0;
	for (const char *p = value;; ) {
		size_t len = strcspn(p, ",");

		if (parse(p, len, bits))
			return -EINVAL;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int kpx_sites_kind_bits(const char *name, size_t len, uint32_t *bits)
{
	for (int k = 0; k < KPC_SITE_KIND_MAX; k++) {
		const char *n = kpc_site_kind_name(k);

		if (strlen(n) == len && !strncmp(n, name, len)) {
			*bits |= 1u << k;
			return 0;
		}
	}
	return -EINVAL;
}

static int kpx_sites_source_bits(const char *name, size_t len, uint32_t *bits)
{
	for (int src = 0; src < KPC_SITE_SRC_MAX; src++) {
		const char *n = kpc_site_source_name(src);

		if (strlen(n) == len && !strncmp(n, name, len)) {
			*bits |= 1u << src;
			return 0;
		}
	}
	return -EINVAL;
}

/* The parameters that select entries: 0, -EINVAL, or -ENOENT for another name. */
static int kpx_sites_query_filter(struct kpx_sites_query *q, const char *name,
				  const char *value, size_t value_len, char *err, size_t errlen)
{
	int ret;

	if (!strcmp(name, "module") || !strcmp(name, "function")) {
		if (!value_len || value_len >= KPRINT_FORMAT_MAX)
			return kpx_bad("%s is 1..%d bytes", name, KPRINT_FORMAT_MAX - 1);
		if (!strcmp(name, "module"))
			q->module = value;
		else
			q->function = value;
		return 0;
	}
	if (!strcmp(name, "q")) {
		if (value_len >= KPRINT_FORMAT_MAX)
			return kpx_bad("q is at most %d bytes, like a format", KPRINT_FORMAT_MAX - 1);
		q->q = value;
		return 0;
	}
	if (!strcmp(name, "level")) {
		if (kpx_sites_list(value, &q->levels, kpx_sites_level_bits))
			return kpx_bad("level is LEVEL or LEVEL+ (emerg..debug), default, cont or"
				       " none, comma-separated");
		return 0;
	}
	if (!strcmp(name, "kind")) {
		if (kpx_sites_list(value, &q->kinds, kpx_sites_kind_bits))
			return kpx_bad("kind is printk, printk_bare, dev or netdev, comma-separated");
		return 0;
	}
	if (!strcmp(name, "source")) {
		if (kpx_sites_list(value, &q->sources, kpx_sites_source_bits))
			return kpx_bad("source is image, module or printk_index, comma-separated");
		return 0;
	}
	if (!strcmp(name, "format_id")) {
		ret = kpx_param_format_id(value, &q->format_id, err, errlen);
		q->has_format_id = !ret;
		return ret;
	}
	return -ENOENT;
}

int kpx_sites_query_param(struct kpx_sites_query *q, const char *name, const char *value,
			  size_t value_len, char *err, size_t errlen)
{
	uint64_t v;
	int ret;

	ret = kpx_param_value(value, value_len, err, errlen);
	if (ret)
		return ret;
	ret = kpx_sites_query_filter(q, name, value, value_len, err, errlen);
	if (ret != -ENOENT)
		return ret;
	if (!strcmp(name, "limit")) {
		if (kpc_parse_u64(value, 10, KPX_SITES_LIMIT_MAX, &v) || v < 1)
			return kpx_bad("limit is 1..%d", KPX_SITES_LIMIT_MAX);
		q->limit = v;
		return 0;
	}
	if (!strcmp(name, "offset")) {
		if (kpc_parse_u64(value, 10, UINT32_MAX, &v))
			return kpx_bad("offset is a number of entries (decimal)");
		q->offset = v;
		return 0;
	}
	if (q->formats && !strcmp(name, "never")) {
		if (strcmp(value, "1"))
			return kpx_bad("never is 1: the catalog's formats never seen");
		q->never = true;
		return 0;
	}
	if (q->formats)
		return kpx_bad("unknown parameter; /formats takes never=1 and, with it, the"
			       " filters of /sites but seen and summary");
	if (!strcmp(name, "seen") || !strcmp(name, "summary")) {
		if (strcmp(value, "0") && strcmp(value, "1"))
			return kpx_bad("%s is 0 or 1", name);
		if (!strcmp(name, "seen"))
			q->seen = value[0] - '0';
		else
			q->summary = value[0] == '1';
		return 0;
	}
	return kpx_bad("unknown parameter");
}

int kpx_sites_query_check(const struct kpx_sites_query *q, char *err, size_t errlen)
{
	if (q->formats && !q->never)
		return kpx_bad("/formats takes never=1 (and the filters of /sites with it)"
			       " or no parameter");
	return 0;
}

bool kpx_sites_match(const struct kpx_sites_query *q, const struct kpc_site *site, bool seen)
{
	uint32_t level_bit = site->level < 0 ? KPX_SITES_LEVEL_NONE_BIT : 1u << site->level;

	if (q->seen >= 0 && seen != (q->seen == 1))
		return false;
	if (q->never && seen)
		return false;
	if (q->has_format_id && site->format_id != q->format_id)
		return false;
	if (q->levels && !(q->levels & level_bit))
		return false;
	if (q->kinds && !(q->kinds & (1u << site->kind)))
		return false;
	if (q->sources && !(q->sources & (1u << site->source)))
		return false;
	if (q->module && strcmp(site->module, q->module))
		return false;
	if (q->function && (!site->function || strcmp(site->function, q->function)))
		return false;
	return !q->q || strstr(site->format, q->q);
}

static struct json_object *kpx_json_string_or_null(const char *s)
{
	return s ? kpc_json_string(s) : NULL;
}

/*
 * An entry as the catalog file has it, written by the file's own writer
 * (kpc_sites_write_entry()), with seen and, when seen, count added last.
 */
static int kpx_site_write(FILE *f, const struct kpc_site *site, bool seen, uint64_t count)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	int err;

	if (!m)
		return -ENOMEM;
	err = kpc_sites_write_entry(m, site);
	if (fclose(m) && !err)
		err = -ENOMEM;
	/* "{...}\n": the object's members are kept, its end written again. */
	if (!err && (len < 2 || line[len - 2] != '}'))
		err = -EIO;
	if (!err) {
		fwrite(line, 1, len - 2, f);
		fprintf(f, ",\"seen\":%s", seen ? "true" : "false");
		if (seen)
			fprintf(f, ",\"count\":%" PRIu64, count);
		fputc('}', f);
	}
	free(line);
	return err;
}

/* The header's fields and the counts of what q selects. */
static struct json_object *kpx_sites_summary(const struct kpc_sites *cat, const char *path,
					     size_t entries, size_t seen)
{
	struct json_object *o = json_object_new_object();
	bool ok;

	if (!o)
		return NULL;
	ok = !json_object_object_add(o, "kernel", kpx_json_string_or_null(cat->kernel)) &&
	     !json_object_object_add(o, "built", kpx_json_string_or_null(cat->built)) &&
	     !json_object_object_add(o, "image", kpx_json_string_or_null(cat->image)) &&
	     kpc_json_add(o, "modules", json_object_new_int64(cat->modules)) &&
	     kpc_json_add(o, "kallsyms", json_object_new_boolean(cat->kallsyms)) &&
	     kpc_json_add(o, "printk_index", json_object_new_boolean(cat->printk_index)) &&
	     kpc_json_add(o, "path", kpc_json_string(path)) &&
	     kpc_json_add(o, "entries", json_object_new_int64(entries)) &&
	     kpc_json_add(o, "seen", json_object_new_int64(seen)) &&
	     kpc_json_add(o, "never_seen", json_object_new_int64(entries - seen));
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The summary object of what q selects (matched entries, nseen of them seen). */
static int kpx_sites_summary_write(FILE *f, const struct kpc_sites *cat, const char *path,
				   size_t matched, size_t nseen)
{
	struct json_object *o = kpx_sites_summary(cat, path, matched, nseen);

	if (!o)
		return -ENOMEM;
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE), f);
	json_object_put(o);
	return 0;
}

char *kpx_sites_json(const struct kpc_sites *cat, const char *path, const struct kpx_seen *seen,
		     const struct kpx_sites_query *q)
{
	size_t matched = 0, nseen = 0, written = 0, size;
	char *out = NULL;
	int err = 0;
	FILE *f;

	f = open_memstream(&out, &size);
	if (!f)
		return NULL;
	if (!q->summary)
		fputc('[', f);
	for (size_t i = 0; !err && i < cat->n; i++) {
		const struct kpc_site *site = &cat->v[i];
		uint64_t count;
		bool is_seen = kpx_seen_count(seen, site->format_id, &count);

		if (!kpx_sites_match(q, site, is_seen))
			continue;
		nseen += is_seen;
		matched++;
		if (q->summary || matched <= q->offset || written == q->limit)
			continue;
		if (written++)
			fputc(',', f);
		err = kpx_site_write(f, site, is_seen, count);
	}
	if (q->summary)
		err = kpx_sites_summary_write(f, cat, path, matched, nseen);
	else
		fputc(']', f);
	err = err || ferror(f);
	if (fclose(f) || err) {
		free(out);
		return NULL;
	}
	return out;
}
