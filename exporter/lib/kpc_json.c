// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "kpc_json.h"
#include "kpc_utf8.h"

struct json_object *kpc_json_string(const char *s)
{
	struct json_object *obj;
	char *clean;

	clean = kpc_utf8_sanitize(s);
	if (!clean)
		return NULL;
	obj = json_object_new_string(clean);
	free(clean);
	return obj;
}

/* Add key: val to obj; false (and val released) when anything is NULL. */
static bool kpc_json_add(struct json_object *obj, const char *key,
			 struct json_object *val)
{
	if (!val)
		return false;
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return false;
	}
	return true;
}

struct json_object *kpc_json_record(const struct kpc_record *rec)
{
	struct json_object *obj, *args;
	char format_id[17];
	unsigned int i;
	bool ok = true;

	obj = json_object_new_object();
	if (!obj)
		return NULL;

	/* A string: JSON numbers are doubles to many readers, ids are 64-bit. */
	snprintf(format_id, sizeof(format_id), "%016" PRIx64, rec->format_id);

	ok = ok && kpc_json_add(obj, "seq", json_object_new_uint64(rec->seq));
	ok = ok && kpc_json_add(obj, "level",
				json_object_new_string(kpc_level_name(rec->level)));
	ok = ok && kpc_json_add(obj, "level_num", json_object_new_int(rec->level));
	ok = ok && kpc_json_add(obj, "class",
				json_object_new_string(kpc_class_name(rec->class)));
	ok = ok && kpc_json_add(obj, "ts_mono_ns",
				json_object_new_uint64(rec->ts_mono_ns));
	ok = ok && kpc_json_add(obj, "ts_real_ns",
				json_object_new_uint64(rec->ts_real_ns));
	ok = ok && kpc_json_add(obj, "cpu", json_object_new_int64(rec->cpu));
	ok = ok && kpc_json_add(obj, "pid", json_object_new_int64(rec->pid));
	ok = ok && kpc_json_add(obj, "comm", kpc_json_string(rec->comm));
	ok = ok && kpc_json_add(obj, "file", kpc_json_string(rec->file));
	ok = ok && kpc_json_add(obj, "line", json_object_new_int64(rec->line));
	ok = ok && kpc_json_add(obj, "function", kpc_json_string(rec->function));
	ok = ok && kpc_json_add(obj, "subsystem", kpc_json_string(rec->subsystem));
	ok = ok && kpc_json_add(obj, "module", kpc_json_string(rec->module));
	ok = ok && kpc_json_add(obj, "format", kpc_json_string(rec->format));
	ok = ok && kpc_json_add(obj, "format_id", json_object_new_string(format_id));
	if (ok) {
		args = json_object_new_array_ext(rec->nargs);
		ok = kpc_json_add(obj, "args", args);
		for (i = 0; ok && i < rec->nargs; i++) {
			struct json_object *arg = kpc_json_string(rec->args[i]);

			ok = arg && !json_object_array_add(args, arg);
			if (!ok)
				json_object_put(arg);
		}
	}
	ok = ok && kpc_json_add(obj, "text", kpc_json_string(rec->text));
	ok = ok && kpc_json_add(obj, "block_id",
				json_object_new_uint64(rec->block_id));
	ok = ok && kpc_json_add(obj, "flags", json_object_new_int64(rec->flags));

	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

struct json_object *kpc_json_lost(const struct kpc_event *ev)
{
	struct json_object *obj;
	bool ok = true;

	obj = json_object_new_object();
	if (!obj)
		return NULL;

	ok = ok && kpc_json_add(obj, "lost", json_object_new_uint64(ev->count));
	ok = ok && kpc_json_add(obj, "reason",
				json_object_new_string(kpc_lost_reason_name(ev->reason)));
	ok = ok && kpc_json_add(obj, "cause",
				json_object_new_string(kpc_cause_name(ev->cause)));
	ok = ok && kpc_json_add(obj, "first_seq",
				json_object_new_uint64(ev->first_seq));
	ok = ok && kpc_json_add(obj, "last_seq",
				json_object_new_uint64(ev->last_seq));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

struct json_object *kpc_json_stats(const struct kpc_stats *st)
{
	struct json_object *obj;
	unsigned int i;

	obj = json_object_new_object();
	if (!obj)
		return NULL;
	for (i = 0; i < kpc_stats_nfields; i++) {
		const struct kpc_stats_field *f = &kpc_stats_fields[i];

		if (!(st->present & (1u << f->attr)))
			continue;
		if (!kpc_json_add(obj, f->name, json_object_new_uint64(f->get(st)))) {
			json_object_put(obj);
			return NULL;
		}
	}
	return obj;
}

int kpc_json_print(FILE *out, struct json_object *obj)
{
	const char *s;

	s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		return -ENOMEM;
	fputs(s, out);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

struct json_object *kpc_json_format_count(enum kpc_bpf_source src,
					  const struct kpc_format_count *f)
{
	const char *level = kpc_level_name(f->level), *class = kpc_class_name(f->class);
	struct json_object *obj = json_object_new_object();
	bool ok = true;
	char id[17];

	if (!obj)
		return NULL;
	snprintf(id, sizeof(id), "%016" PRIx64, f->format_id);
	ok = ok && kpc_json_add(obj, "source",
				json_object_new_string(kpc_bpf_source_name(src)));
	ok = ok && kpc_json_add(obj, "format_id", json_object_new_string(id));
	/* The maps are the kernel's: a name it does not have is no crash. */
	ok = ok && kpc_json_add(obj, "level",
				json_object_new_string(level ? level : "unknown"));
	ok = ok && kpc_json_add(obj, "level_num", json_object_new_int64(f->level));
	ok = ok && kpc_json_add(obj, "class",
				json_object_new_string(class ? class : "unknown"));
	ok = ok && kpc_json_add(obj, "subsystem", kpc_json_string(f->subsystem));
	ok = ok && kpc_json_add(obj, "module", kpc_json_string(f->module));
	ok = ok && kpc_json_add(obj, "count", json_object_new_uint64(f->count));
	ok = ok && kpc_json_add(obj, "format", kpc_json_string(f->format));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}
