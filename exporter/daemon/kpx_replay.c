// SPDX-License-Identifier: GPL-2.0
/*
 * --replay FILE: the records of a saved `kprint dump --json` or `kprint
 * monitor --json` instead of a subscription, for an offline look at a dump
 * and for testing the HTTP side on a machine without kprint.ko.  Their
 * counts per format are served as source "replay".
 *
 * The structure is decoded strictly: a line that is not one JSON object,
 * or a record lacking a field of schema/record.schema.json or holding a
 * value of the wrong type or range, stops the exporter with FILE:LINE and
 * why (exit status 2).  Skipping it would serve counts that differ from the
 * file without anyone noticing, and the file is the user's, given at
 * startup, so it can be fixed; the live path skips and counts instead
 * because a stream cannot be stopped.  Members newer than this exporter
 * are ignored, as kpc_record_decode() ignores newer attributes; members
 * older ones did not write (source, device, facility, continues, from the
 * printk bridge on) are required all the same, as the schema has them.
 *
 * Bytes are taken as the kernel's are: raw bytes that are not UTF-8 inside
 * strings are kept and made U+FFFD when served, exactly as a live record's
 * would be.  A NUL (\u0000), which no kernel record can hold (C strings all
 * the way), becomes U+FFFD at once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kprint_fnv1a.h"
#include "kpc.h"
#include "kpx_log.h"
#include "kpx_problems.h"
#include "kpx_replay.h"
#include "kpx_store.h"

/* Far above the longest record kprint writes (~35 KiB all escaped). */
#define KPX_REPLAY_LINE_MAX	(1 << 20)
#define KPX_REPLAY_BATCH	256

/* Per-format counts: an open-addressing index over an array. */

/* As kprint.ko computes it for the BPF key: both NULs included. */
uint64_t kpx_tags_id(const char *subsystem, const char *module)
{
	uint64_t h = kprint_fnv1a64_mem(subsystem, strlen(subsystem) + 1);

	return kprint_fnv1a64_add(h, module, strlen(module) + 1);
}

static size_t kpx_counts_hash(uint64_t format_id, uint64_t tags_id,
			      uint32_t level, uint32_t class)
{
	uint64_t h = format_id ^ (tags_id * 0x9e3779b97f4a7c15ULL) ^
		     ((uint64_t)level << 32 | class);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

static int kpx_counts_grow(struct kpx_counts *c)
{
	size_t slots = c->index ? (c->mask + 1) * 2 : 1024, i;
	uint32_t *index;

	if (slots > (size_t)UINT32_MAX)
		return -ENOMEM;
	index = calloc(slots, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		const struct kpc_format_count *f = &c->f[i];
		size_t h = kpx_counts_hash(f->format_id, f->tags_id, f->level, f->class);

		while (index[h & (slots - 1)])
			h++;
		index[h & (slots - 1)] = i + 1;
	}
	free(c->index);
	c->index = index;
	c->mask = slots - 1;
	return 0;
}

/* Copy s into dst (size bytes), cut at a character boundary if too long. */
static void kpx_copy_cut(char *dst, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (len >= size) {
		len = size - 1;
		/* Back off continuation bytes: no half character in a label. */
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
}

int kpx_counts_add(struct kpx_counts *c, const struct kpc_record *rec)
{
	uint64_t tags_id = kpx_tags_id(rec->subsystem, rec->module);
	struct kpc_format_count *f;
	size_t h;
	int err;

	/* At most half full, so that probes stay short. */
	if (!c->index || (c->n + 1) * 2 > c->mask + 1) {
		err = kpx_counts_grow(c);
		if (err)
			return err;
	}
	h = kpx_counts_hash(rec->format_id, tags_id, rec->level, rec->class);
	for (;; h++) {
		uint32_t i = c->index[h & c->mask];

		if (!i)
			break;
		f = &c->f[i - 1];
		if (f->format_id == rec->format_id && f->tags_id == tags_id &&
		    f->level == rec->level && f->class == rec->class) {
			f->count++;
			return 0;
		}
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;

		f = realloc(c->f, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		c->f = f;
		c->cap = cap;
	}
	/* The same entry BPF would make: texts cut to the maps' sizes. */
	f = &c->f[c->n];
	memset(f, 0, sizeof(*f));
	f->format_id = rec->format_id;
	f->tags_id = tags_id;
	f->level = rec->level;
	f->class = rec->class;
	f->count = 1;
	kpx_copy_cut(f->format, sizeof(f->format), rec->format);
	kpx_copy_cut(f->subsystem, sizeof(f->subsystem), rec->subsystem);
	kpx_copy_cut(f->module, sizeof(f->module), rec->module);
	c->index[h & c->mask] = ++c->n;
	return 0;
}

void kpx_counts_fini(struct kpx_counts *c)
{
	free(c->f);
	free(c->index);
	memset(c, 0, sizeof(*c));
}

/* One line. */

#define kpx_bad(...) ({ snprintf(err, errlen, __VA_ARGS__); -EINVAL; })

/*
 * Names of one record that had a NUL, replaced; freed after the dup.  (The
 * text and the args carry a NUL with their lengths.)
 */
struct kpx_scratch {
	char *s[8 + KPRINT_ARGS_MAX];
	unsigned int n;
};

static void kpx_scratch_free(struct kpx_scratch *sc)
{
	while (sc->n)
		free(sc->s[--sc->n]);
}

/* v as a C string: as is, or a copy with each NUL made U+FFFD. */
static const char *kpx_cstring(struct json_object *v, struct kpx_scratch *sc)
{
	const char *s = json_object_get_string(v);
	size_t len = json_object_get_string_len(v), i, nul = 0;
	char *copy, *p;

	for (i = 0; i < len; i++)
		nul += !s[i];
	if (!nul)
		return s;
	if (sc->n == sizeof(sc->s) / sizeof(sc->s[0]))
		return NULL;
	copy = malloc(len + 2 * nul + 1);
	if (!copy)
		return NULL;
	for (i = 0, p = copy; i < len; i++) {
		if (s[i]) {
			*p++ = s[i];
		} else {
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
		}
	}
	*p = '\0';
	sc->s[sc->n++] = copy;
	return copy;
}

static const char *kpx_reason_name(unsigned int reason)
{
	return kpc_lost_reason_name(reason);
}

/* Only white space in len bytes (the line need not end in a NUL). */
static bool kpx_blank(const char *p, size_t len)
{
	while (len && (*p == ' ' || *p == '\t' || *p == '\r')) {
		p++;
		len--;
	}
	return !len;
}

/*
 * Whether every integer in the line fits in 64 bits.  json-c saturates
 * larger ones to 2^64 - 1 without a word (strtoull's ERANGE goes unseen),
 * so they are looked for in the text: outside strings, a run of digits
 * with no fraction or exponent.
 */
static bool kpx_integers_fit(const char *p, size_t len)
{
	const char *end = p + len, *start;

	while (p < end) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			p++;
			continue;
		}
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		start = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p < end && (*p == '.' || *p == 'e' || *p == 'E'))
			continue;	/* not an integer: refused as one later */
		while (p - start > 1 && *start == '0')
			start++;
		if (p - start > 20 ||
		    (p - start == 20 && memcmp(start, "18446744073709551615", 20) > 0))
			return false;
	}
	return true;
}

static struct json_object *kpx_member(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* A JSON integer 0..max; json-c keeps integers up to 2^64 - 1 exact. */
static int kpx_get_uint(struct json_object *o, const char *key, uint64_t max,
			uint64_t *out, char *err, size_t errlen)
{
	struct json_object *v = kpx_member(o, key);

	if (!v)
		return kpx_bad("no \"%s\"", key);
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return kpx_bad("\"%s\" is not an integer 0..%" PRIu64, key, max);
	*out = json_object_get_uint64(v);
	if (*out > max)
		return kpx_bad("\"%s\" is not an integer 0..%" PRIu64, key, max);
	return 0;
}

static int kpx_get_string(struct json_object *o, const char *key,
			  struct kpx_scratch *sc, const char **out,
			  char *err, size_t errlen)
{
	struct json_object *v = kpx_member(o, key);

	if (!v)
		return kpx_bad("no \"%s\"", key);
	if (!json_object_is_type(v, json_type_string))
		return kpx_bad("\"%s\" is not a string", key);
	*out = kpx_cstring(v, sc);
	return *out ? 0 : -ENOMEM;
}

/* A name of names[0..n-1], exactly as kprint writes it. */
static int kpx_get_name(struct json_object *o, const char *key,
			const char *(*name)(unsigned int), unsigned int n,
			uint32_t *out, char *err, size_t errlen)
{
	struct json_object *v = kpx_member(o, key);
	const char *s;
	unsigned int i;

	if (!v)
		return kpx_bad("no \"%s\"", key);
	if (json_object_is_type(v, json_type_string)) {
		s = json_object_get_string(v);
		for (i = 0; i < n; i++) {
			if (!strcmp(s, name(i))) {
				*out = i;
				return 0;
			}
		}
	}
	return kpx_bad("\"%s\" is not one of %s .. %s", key, name(0), name(n - 1));
}

static int kpx_get_format_id(struct json_object *o, uint64_t *out,
			     char *err, size_t errlen)
{
	struct json_object *v = kpx_member(o, "format_id");
	const char *s;

	if (!v)
		return kpx_bad("no \"format_id\"");
	s = json_object_get_string(v);
	/* Lowercase, as kprint writes it: kpc_parse_u64() takes both cases. */
	if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) != 16 ||
	    strspn(s, "0123456789abcdef") != 16 || kpc_parse_u64(s, 16, UINT64_MAX, out))
		return kpx_bad("\"format_id\" is not 16 lowercase hex digits");
	return 0;
}

/* The record's numbers and names, each checked against its range. */
static int kpx_replay_numbers(struct json_object *o, struct kpc_record *rec,
			      char *err, size_t errlen)
{
	uint64_t v[6];
	int ret;

	ret = kpx_get_uint(o, "seq", UINT64_MAX, &rec->seq, err, errlen);
	if (!ret)
		ret = kpx_get_name(o, "source", kpc_source_name,
				   KPRINT_SOURCE_MAX + 1, &rec->source, err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "facility", UINT32_MAX, &v[5], err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "continues", UINT64_MAX, &rec->continues, err, errlen);
	/* Only printk records have it, and only from exporters that know it. */
	if (!ret && json_object_object_get_ex(o, "printk_seq", NULL))
		ret = kpx_get_uint(o, "printk_seq", UINT64_MAX, &rec->printk_seq,
				   err, errlen);
	if (!ret)
		ret = kpx_get_name(o, "level", kpc_level_name,
				   KPRINT_LEVEL_MAX + 1, &rec->level, err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "level_num", KPRINT_LEVEL_MAX, &v[0], err, errlen);
	if (!ret && v[0] != rec->level)
		ret = kpx_bad("\"level_num\" %" PRIu64 " is not \"level\" %s", v[0],
			      kpc_level_name(rec->level));
	if (!ret)
		ret = kpx_get_name(o, "class", kpc_class_name,
				   KPRINT_CLASS_MAX + 1, &rec->class, err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "ts_mono_ns", UINT64_MAX, &rec->ts_mono_ns, err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "ts_real_ns", UINT64_MAX, &rec->ts_real_ns, err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "cpu", UINT32_MAX, &v[1], err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "pid", UINT32_MAX, &v[2], err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "line", UINT32_MAX, &v[3], err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "flags", UINT32_MAX, &v[4], err, errlen);
	if (!ret)
		ret = kpx_get_uint(o, "block_id", UINT64_MAX, &rec->block_id, err, errlen);
	if (!ret)
		ret = kpx_get_format_id(o, &rec->format_id, err, errlen);
	if (ret)
		return ret;
	rec->facility = v[5];
	rec->cpu = v[1];
	rec->pid = v[2];
	rec->line = v[3];
	rec->flags = v[4];
	return 0;
}

/* The args, strings that keep a NUL as the byte it is (kprint(7)). */
static int kpx_replay_args(struct json_object *o, struct kpc_record *rec,
			   char *err, size_t errlen)
{
	struct json_object *args = kpx_member(o, "args");

	if (!args || !json_object_is_type(args, json_type_array))
		return kpx_bad("\"args\" is not an array");
	if (json_object_array_length(args) > KPRINT_ARGS_MAX)
		return kpx_bad("more than %d \"args\"", KPRINT_ARGS_MAX);
	rec->nargs = json_object_array_length(args);
	for (unsigned int i = 0; i < rec->nargs; i++) {
		struct json_object *a = json_object_array_get_idx(args, i);

		if (!json_object_is_type(a, json_type_string))
			return kpx_bad("\"args\"[%u] is not a string", i);
		rec->args[i] = json_object_get_string(a);
		rec->arg_len[i] = json_object_get_string_len(a);
	}
	return 0;
}

static int kpx_replay_record(struct json_object *o, struct kpx_replay_line *out,
			     char *err, size_t errlen)
{
	static const struct { const char *key; size_t off; } strs[] = {
		{ "comm", offsetof(struct kpc_record, comm) },
		{ "file", offsetof(struct kpc_record, file) },
		{ "function", offsetof(struct kpc_record, function) },
		{ "subsystem", offsetof(struct kpc_record, subsystem) },
		{ "device", offsetof(struct kpc_record, device) },
		{ "module", offsetof(struct kpc_record, module) },
		{ "format", offsetof(struct kpc_record, format) },
		{ "text", offsetof(struct kpc_record, text) },
	};
	struct kpc_record rec = kpc_genl_record_empty;
	struct kpx_scratch sc = { .n = 0 };
	unsigned int i;
	int ret;

	ret = kpx_replay_numbers(o, &rec, err, errlen);
	for (i = 0; !ret && i < sizeof(strs) / sizeof(strs[0]); i++)
		ret = kpx_get_string(o, strs[i].key, &sc,
				     (const char **)((char *)&rec + strs[i].off), err, errlen);
	if (!ret && rec.source == KPRINT_SOURCE_KPRINT && *rec.device)
		ret = kpx_bad("\"device\" is set, but only printk records have one");
	if (ret)
		goto out;
	/* The text and the args keep a NUL as the byte it is (kprint(7)). */
	rec.text = json_object_get_string(kpx_member(o, "text"));
	rec.text_len = json_object_get_string_len(kpx_member(o, "text"));
	ret = kpx_replay_args(o, &rec, err, errlen);
	if (ret)
		goto out;
	out->rec = kpc_record_dup(&rec);
	ret = out->rec ? 1 : -ENOMEM;
out:
	kpx_scratch_free(&sc);
	return ret;
}

int kpx_replay_parse(const char *line, size_t len, struct kpx_replay_line *out,
		     char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o, *v;
	enum json_tokener_error jerr;
	uint32_t reason;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (kpx_blank(line, len))
		return 0;
	if (len > KPX_REPLAY_LINE_MAX)
		return kpx_bad("longer than %d bytes", KPX_REPLAY_LINE_MAX);
	if (memchr(line, '\0', len))
		return kpx_bad("a raw NUL byte (in a string, write it as \\u0000)");

	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	/* Strict: one object and nothing after it (but white space). */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, line, len);
	jerr = json_tokener_get_error(tok);
	if (!o || jerr != json_tokener_success) {
		ret = kpx_bad("not JSON: %s at byte %zu", jerr == json_tokener_continue ?
			      "unexpected end" : json_tokener_error_desc(jerr),
			      json_tokener_get_parse_end(tok) + 1);
		goto out;
	}
	if (!kpx_blank(line + json_tokener_get_parse_end(tok),
		       len - json_tokener_get_parse_end(tok))) {
		ret = kpx_bad("more than one JSON value");
		goto out;
	}
	if (!json_object_is_type(o, json_type_object)) {
		ret = kpx_bad("not a JSON object");
		goto out;
	}
	if (!kpx_integers_fit(line, len)) {
		ret = kpx_bad("an integer past 2^64 - 1");
		goto out;
	}

	if (kpx_member(o, "lost")) {
		/* A loss a monitor reported: counted, like the exporter's own. */
		ret = kpx_get_uint(o, "lost", UINT64_MAX, &out->lost, err, errlen);
		if (!ret)
			ret = kpx_get_name(o, "reason", kpx_reason_name,
					   KPC_LOST_REASONS, &reason, err, errlen);
		if (!ret)
			out->reason = reason;
		goto out;
	}
	if (kpx_member(o, "seq")) {
		ret = kpx_replay_record(o, out, err, errlen);
		goto out;
	}
	/* kprint.ko unloaded or loaded again: nothing to serve. */
	v = kpx_member(o, "module");
	if (v && json_object_is_type(v, json_type_string) &&
	    (!strcmp(json_object_get_string(v), "unloaded") ||
	     !strcmp(json_object_get_string(v), "loaded")))
		goto out;
	ret = kpx_bad("neither a record, a lost line nor a module line");
out:
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
}

/* The whole file. */

static void kpx_replay_flush(struct kpx_store *s, struct kpx_problems *pr,
			     struct kpc_record **batch, size_t *n,
			     const uint64_t lost[KPC_LOST_REASONS])
{
	char *events[KPX_REPLAY_BATCH] = { NULL };

	/* Through the problem catalog in the file's order, as ingest does live. */
	for (size_t i = 0; i < *n; i++) {
		struct kpx_hits *h = kpx_problems_record(pr, batch[i], s->instance);

		if (h) {
			events[i] = h->events;
			h->events = NULL;
			kpx_hits_free(h);
		}
	}
	kpx_store_add_problems(s, batch, events, *n);
	*n = 0;
	pthread_mutex_lock(&s->lock);
	for (int r = 0; r < KPC_LOST_REASONS; r++)
		s->lost[r] += lost[r];
	pthread_mutex_unlock(&s->lock);
}

int kpx_replay_load(const char *path, struct kpx_store *s, struct kpx_problems *pr,
		    struct kpc_format_count **counts, size_t *n)
{
	struct kpc_record *batch[KPX_REPLAY_BATCH];
	struct kpx_counts c = { 0 };
	uint64_t lost[KPC_LOST_REASONS] = { 0 }, lineno = 0;
	struct kpx_replay_line l;
	bool is_stdin = !strcmp(path, "-");
	size_t nbatch = 0, size = 0;
	char *line = NULL, err[160];
	ssize_t len;
	FILE *in;
	int ret = 0;

	in = is_stdin ? stdin : fopen(path, "re");
	if (!in) {
		ret = -errno;
		kpx_log("--replay %s: %s\n", path, strerror(errno));
		return ret;
	}
	while ((len = getline(&line, &size, in)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			len--;
		ret = kpx_replay_parse(line, len, &l, err, sizeof(err));
		if (ret < 0)
			break;
		if (!l.rec) {
			lost[l.reason] += l.lost;
			continue;
		}
		ret = kpx_counts_add(&c, l.rec);
		if (ret) {
			kpc_record_free(l.rec);
			break;
		}
		batch[nbatch++] = l.rec;
		if (nbatch == KPX_REPLAY_BATCH) {
			kpx_replay_flush(s, pr, batch, &nbatch, lost);
			memset(lost, 0, sizeof(lost));
		}
	}
	if (ret == -EINVAL)
		kpx_log("%s:%" PRIu64 ": %s\n",
			is_stdin ? "<stdin>" : path, lineno, err);
	else if (ret == -ENOMEM)
		kpx_log("%s:%" PRIu64 ": out of memory\n",
			is_stdin ? "<stdin>" : path, lineno);
	else if (ferror(in)) {
		ret = -EIO;
		kpx_log("reading %s failed\n", path);
	}
	if (ret < 0) {
		while (nbatch)
			kpc_record_free(batch[--nbatch]);
		kpx_counts_fini(&c);
	} else {
		ret = 0;
		kpx_replay_flush(s, pr, batch, &nbatch, lost);
		*counts = c.f;
		*n = c.n;
		free(c.index);
	}
	free(line);
	if (!is_stdin)
		fclose(in);
	return ret;
}
