// SPDX-License-Identifier: GPL-2.0
/*
 * The call-site catalog's file (format: kpc_sites.h): its one writer and
 * its one reader.
 *
 * The writer replaces a catalog atomically, a temporary file in the same
 * directory synced and renamed over the old one, because the exporter may
 * load the catalog while a kernel's postinst hook rebuilds it.  Strings go
 * out as every other JSON of kprint does (kpc_json.c: valid UTF-8, an
 * ill-formed byte as U+FFFD), while format_id stays the hash of the raw
 * bytes, so a sanitized format never changes its id.
 *
 * The reader is strict, as the other file readers of kprint are: a bad
 * line is refused with FILE:LINE: reason.  A key it does not know in an
 * entry is passed over, so that a newer kprint may add one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprint_fnv1a.h"
#include "kpc_json.h"
#include "kpc_sites.h"

static struct json_object *kpc_sites_json_string_or_null(const char *s)
{
	return s ? kpc_json_string(s) : NULL;
}

/* kpc_json_add() refuses NULL: a JSON null is added with the plain call. */
static bool kpc_sites_json_add_nullable(struct json_object *obj, const char *key,
					 const char *s)
{
	if (!s)
		return !json_object_object_add(obj, key, NULL);
	return kpc_json_add(obj, key, kpc_json_string(s));
}

static struct json_object *kpc_sites_entry_json(const struct kpc_site *e)
{
	struct json_object *obj = json_object_new_object();
	char id[17];
	bool ok;

	if (!obj)
		return NULL;
	snprintf(id, sizeof(id), "%016" PRIx64, e->format_id);
	ok = kpc_json_add(obj, "format_id", json_object_new_string(id)) &&
	     kpc_json_add(obj, "format", kpc_json_string(e->format)) &&
	     kpc_sites_json_add_nullable(obj, "level", kpc_site_level_name(e->level)) &&
	     kpc_json_add(obj, "module", kpc_json_string(e->module)) &&
	     kpc_sites_json_add_nullable(obj, "function", e->function) &&
	     kpc_json_add(obj, "kind", json_object_new_string(kpc_site_kind_name(e->kind))) &&
	     kpc_json_add(obj, "source",
			  json_object_new_string(kpc_site_source_name(e->source)));
	if (ok && e->file)
		ok = kpc_json_add(obj, "file", kpc_sites_json_string_or_null(e->file)) &&
		     kpc_json_add(obj, "line", json_object_new_int64(e->line));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

int kpc_sites_write_entry(FILE *out, const struct kpc_site *e)
{
	return kpc_json_print_put(out, kpc_sites_entry_json(e));
}

static struct json_object *kpc_sites_header_json(const struct kpc_sites *s)
{
	struct json_object *obj = json_object_new_object();
	char seconds[32];
	bool ok;

	if (!obj)
		return NULL;
	/* json-c writes a double with 17 digits; a tenth of a second is enough. */
	snprintf(seconds, sizeof(seconds), "%.1f", s->seconds);
	ok = kpc_json_add(obj, "kprint_sites", json_object_new_int(KPC_SITES_VERSION)) &&
	     kpc_json_add(obj, "kernel", kpc_json_string(s->kernel ? s->kernel : "")) &&
	     kpc_sites_json_add_nullable(obj, "built", s->built) &&
	     kpc_sites_json_add_nullable(obj, "image", s->image) &&
	     kpc_json_add(obj, "modules", json_object_new_int64(s->modules)) &&
	     kpc_json_add(obj, "kallsyms", json_object_new_boolean(s->kallsyms)) &&
	     kpc_json_add(obj, "printk_index", json_object_new_boolean(s->printk_index)) &&
	     kpc_json_add(obj, "entries", json_object_new_int64(s->n)) &&
	     kpc_json_add(obj, "seconds", json_object_new_double_s(s->seconds, seconds));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

/* mkdir -p, each new directory 0755. */
static int kpc_sites_mkdirs(const char *dir)
{
	char *p, *buf = strdup(dir);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (p = buf + 1; !err; p++) {
		bool last = !*p;

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			err = -errno;
		if (last)
			break;
		*p = '/';
	}
	free(buf);
	return err;
}

static int kpc_sites_write_all(FILE *f, const struct kpc_sites *s)
{
	size_t i;
	int err = kpc_json_print_put(f, kpc_sites_header_json(s));

	for (i = 0; !err && i < s->n; i++)
		err = kpc_sites_write_entry(f, &s->v[i]);
	if (!err && fflush(f))
		err = -errno;
	if (!err && fsync(fileno(f)))
		err = -errno;
	return err;
}

/* The directory's entry for the new name reaches the disk too. */
static void kpc_sites_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int kpc_sites_write(const struct kpc_sites *s, const char *path, char *err, size_t errlen)
{
	char *dir = strdup(path), *slash, *tmp = NULL;
	FILE *f = NULL;
	int fd = -1, ret;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	ret = slash && *dir ? kpc_sites_mkdirs(dir) : 0;
	if (ret) {
		snprintf(err, errlen, "%s: %s", dir, strerror(-ret));
		goto out;
	}
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", fd < 0 ? tmp : path, strerror(errno));
		goto out;
	}
	fd = -1;
	ret = kpc_sites_write_all(f, s);
	if (fclose(f) && !ret)
		ret = -errno;
	f = NULL;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto out;
	}
	kpc_sites_sync_dir(slash && *dir ? dir : ".");
	free(tmp);
	tmp = NULL;
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (tmp && ret) {
		unlink(tmp);
		free(tmp);
	}
	free(dir);
	return ret;
}

/* What the reader keeps while it reads: where it is, for messages. */
struct kpc_sites_reader {
	const char *path;
	unsigned long line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int kpc_sites_bad(struct kpc_sites_reader *r, const char *fmt, ...)
{
	int n = snprintf(r->err, r->errlen, "%s:%lu: ", r->path, r->line);
	va_list ap;

	if (n >= 0 && (size_t)n < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * A member that must be there: a string, or (nullable) a string or null.
 * *out NULL for null.
 */
static int kpc_sites_get_string(struct kpc_sites_reader *r, struct json_object *obj,
				const char *key, bool nullable, const char **out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		return kpc_sites_bad(r, "no \"%s\"", key);
	if (!v && nullable) {
		*out = NULL;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return kpc_sites_bad(r, "\"%s\" is not a string%s", key, nullable ? " or null" : "");
	*out = json_object_get_string(v);
	return 0;
}

static int kpc_sites_get_uint(struct kpc_sites_reader *r, struct json_object *obj,
			      const char *key, bool required, uint64_t max, uint64_t *out)
{
	struct json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(obj, key, &v))
		return required ? kpc_sites_bad(r, "no \"%s\"", key) : 0;
	if (!json_object_is_type(v, json_type_int))
		return kpc_sites_bad(r, "\"%s\" is not an integer", key);
	n = json_object_get_int64(v);
	if (n < 0 || (uint64_t)n > max)
		return kpc_sites_bad(r, "\"%s\" is out of range", key);
	*out = n;
	return 0;
}

static bool kpc_sites_get_bool(struct json_object *obj, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(obj, key, &v) &&
	       json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static int kpc_sites_header(struct kpc_sites_reader *r, struct json_object *obj,
			    struct kpc_sites *out, uint64_t *entries)
{
	const char *kernel, *built = NULL, *image = NULL;
	struct json_object *v;
	uint64_t version = 0, modules = 0;
	int err;

	if (!json_object_object_get_ex(obj, "kprint_sites", NULL))
		return kpc_sites_bad(r, "not a kprint sites catalog (no \"kprint_sites\")");
	err = kpc_sites_get_uint(r, obj, "kprint_sites", true, UINT32_MAX, &version);
	if (err)
		return err;
	if (version != KPC_SITES_VERSION)
		return kpc_sites_bad(r, "catalog version %" PRIu64 ", this kprint reads %d",
				     version, KPC_SITES_VERSION);
	err = kpc_sites_get_string(r, obj, "kernel", false, &kernel) ?:
	      kpc_sites_get_uint(r, obj, "entries", true, SIZE_MAX / 2, entries) ?:
	      kpc_sites_get_uint(r, obj, "modules", false, UINT32_MAX, &modules);
	if (err)
		return err;
	if (json_object_object_get_ex(obj, "built", &v) && json_object_is_type(v, json_type_string))
		built = json_object_get_string(v);
	if (json_object_object_get_ex(obj, "image", &v) && json_object_is_type(v, json_type_string))
		image = json_object_get_string(v);
	if (json_object_object_get_ex(obj, "seconds", &v) &&
	    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		out->seconds = json_object_get_double(v);
	out->kernel = strdup(kernel);
	out->built = built ? strdup(built) : NULL;
	out->image = image ? strdup(image) : NULL;
	out->modules = modules;
	out->kallsyms = kpc_sites_get_bool(obj, "kallsyms");
	out->printk_index = kpc_sites_get_bool(obj, "printk_index");
	if (!out->kernel || (built && !out->built) || (image && !out->image))
		return -ENOMEM;
	return 0;
}

/* A name of kpc_site_kind_name() or kpc_site_source_name(), as its number. */
static int kpc_sites_name_index(const char *name, const char *(*name_of)(unsigned int),
				unsigned int max)
{
	unsigned int i;

	for (i = 0; i < max; i++)
		if (!strcmp(name, name_of(i)))
			return i;
	return -1;
}

static const char *kpc_sites_kind_at(unsigned int i)
{
	return kpc_site_kind_name(i);
}

static const char *kpc_sites_source_at(unsigned int i)
{
	return kpc_site_source_name(i);
}

/* "\xef\xbf\xbd": what a sanitized byte became, after which the hash can differ. */
static bool kpc_sites_has_replacement(const char *s)
{
	return strstr(s, "\xef\xbf\xbd");
}

static int kpc_sites_entry_fields(struct kpc_sites_reader *r, struct json_object *obj,
				  struct kpc_site *e)
{
	const char *id, *level, *kind, *source, *file = NULL;
	uint64_t line = 0;
	char *end;
	int k, err;

	err = kpc_sites_get_string(r, obj, "format_id", false, &id) ?:
	      kpc_sites_get_string(r, obj, "format", false, (const char **)&e->format) ?:
	      kpc_sites_get_string(r, obj, "level", true, &level) ?:
	      kpc_sites_get_string(r, obj, "module", false, (const char **)&e->module) ?:
	      kpc_sites_get_string(r, obj, "function", true, (const char **)&e->function) ?:
	      kpc_sites_get_string(r, obj, "kind", false, &kind) ?:
	      kpc_sites_get_string(r, obj, "source", false, &source);
	if (err)
		return err;
	errno = 0;
	e->format_id = strtoull(id, &end, 16);
	if (strlen(id) != 16 || *end || errno)
		return kpc_sites_bad(r, "\"format_id\" is not 16 hex digits");
	if (e->format_id != kprint_fnv1a64(e->format) && !kpc_sites_has_replacement(e->format))
		return kpc_sites_bad(r, "\"format_id\" %s is not the FNV-1a 64 of \"format\"", id);
	e->level = kpc_site_level_parse(level);
	if (e->level == -2)
		return kpc_sites_bad(r, "unknown level \"%s\"", level);
	k = kpc_sites_name_index(kind, kpc_sites_kind_at, KPC_SITE_KIND_MAX);
	if (k < 0)
		return kpc_sites_bad(r, "unknown kind \"%s\"", kind);
	e->kind = k;
	k = kpc_sites_name_index(source, kpc_sites_source_at, KPC_SITE_SRC_MAX);
	if (k < 0)
		return kpc_sites_bad(r, "unknown source \"%s\"", source);
	e->source = k;
	if (json_object_object_get_ex(obj, "file", NULL)) {
		err = kpc_sites_get_string(r, obj, "file", true, &file) ?:
		      kpc_sites_get_uint(r, obj, "line", false, UINT32_MAX, &line);
		if (err)
			return err;
	}
	e->file = (char *)file;
	e->line = line;
	return 0;
}

/* kpc_sites_find() halves the sorted array: an entry out of order would hide others. */
static int kpc_sites_in_order(struct kpc_sites_reader *r, const struct kpc_sites *s,
			      const struct kpc_site *e)
{
	if (s->n && s->v[s->n - 1].format_id > e->format_id)
		return kpc_sites_bad(r, "entries out of order (by format_id, as written)");
	return 0;
}

/* One line: a JSON object, the whole line. */
static int kpc_sites_parse_line(struct kpc_sites_reader *r, struct json_tokener *tok,
				const char *line, size_t len, struct json_object **out)
{
	struct json_object *obj;
	enum json_tokener_error jerr;

	if (!len)
		return kpc_sites_bad(r, "an empty line");
	json_tokener_reset(tok);
	obj = json_tokener_parse_ex(tok, line, len);
	jerr = json_tokener_get_error(tok);
	if (!obj || jerr != json_tokener_success) {
		json_object_put(obj);
		return kpc_sites_bad(r, "not JSON: %s", jerr == json_tokener_continue ?
				     "the line ends inside a value" :
				     json_tokener_error_desc(jerr));
	}
	if (json_tokener_get_parse_end(tok) != len) {
		json_object_put(obj);
		return kpc_sites_bad(r, "text after the JSON object");
	}
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return kpc_sites_bad(r, "not a JSON object");
	}
	*out = obj;
	return 0;
}

static int kpc_sites_read_lines(struct kpc_sites_reader *r, FILE *f, struct kpc_sites *out)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj = NULL;
	uint64_t entries = 0;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	while (!err && (n = getline(&buf, &cap, f)) >= 0) {
		struct kpc_site e = { 0 };

		r->line++;
		if (n && buf[n - 1] == '\n')
			n--;
		err = kpc_sites_parse_line(r, tok, buf, n, &obj);
		if (err)
			break;
		if (r->line == 1)
			err = kpc_sites_header(r, obj, out, &entries);
		else
			err = kpc_sites_entry_fields(r, obj, &e) ?: kpc_sites_in_order(r, out, &e) ?:
			      kpc_sites_add(out, &e);
		json_object_put(obj);
	}
	if (!err && ferror(f))
		err = -errno ?: -EIO;
	if (!err && !r->line) {
		r->line = 1;
		err = kpc_sites_bad(r, "an empty file, not a kprint sites catalog");
	}
	if (!err && entries != out->n)
		err = kpc_sites_bad(r, "%zu entries, the header says %" PRIu64
				    " (a file cut short?)", out->n, entries);
	free(buf);
	json_tokener_free(tok);
	return err;
}

int kpc_sites_load(const char *path, struct kpc_sites *out, char *err, size_t errlen)
{
	struct kpc_sites_reader r = { .path = path, .err = err, .errlen = errlen };
	FILE *f = fopen(path, "re");
	int ret;

	memset(out, 0, sizeof(*out));
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = kpc_sites_read_lines(&r, f, out);
	fclose(f);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	if (ret)
		kpc_sites_free(out);
	return ret;
}
