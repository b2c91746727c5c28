// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

bool kpc_json_add(struct json_object *obj, const char *key, struct json_object *val)
{
	if (!val)
		return false;
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return false;
	}
	return true;
}

/*
 * Records are written straight to the stream, not built as json-c objects
 * first: /records pages hold thousands and kprint --json streams them, and
 * the direct writer is the fast path of both (make bench, B5).
 *
 * A string as json-c writes it with JSON_C_TO_STRING_NOSLASHESCAPE, after
 * kpc_utf8_sanitize(): each ill-formed subpart as U+FFFD, the two-letter
 * escapes, other control bytes as \u00xx, everything else as it is.  The
 * n bytes are all written: a NUL in a record's text or args is \u0000.
 */
static void kpc_json_write_mem(FILE *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	fputc_unlocked('"', out);
	while (n) {
		const unsigned char *run = p;
		uint32_t cp;
		size_t len;

		/* Plain printable ASCII goes out in one piece. */
		while (n && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
			p++;
			n--;
		}
		if (p != run)
			fwrite_unlocked(run, 1, p - run, out);
		if (!n)
			break;
		len = kpc_utf8_next(p, n, &cp);
		if (cp == KPC_UTF8_INVALID) {
			fwrite_unlocked("\xef\xbf\xbd", 1, 3, out);
		} else if (cp >= 0x20 && cp != '"' && cp != '\\') {
			fwrite_unlocked(p, 1, len, out);
		} else {
			const char *esc = NULL;

			switch (cp) {
			case '"': esc = "\\\""; break;
			case '\\': esc = "\\\\"; break;
			case '\b': esc = "\\b"; break;
			case '\f': esc = "\\f"; break;
			case '\n': esc = "\\n"; break;
			case '\r': esc = "\\r"; break;
			case '\t': esc = "\\t"; break;
			}
			if (esc) {
				fputs_unlocked(esc, out);
			} else {
				fputs_unlocked("\\u00", out);
				fputc_unlocked(hex[cp >> 4], out);
				fputc_unlocked(hex[cp & 15], out);
			}
		}
		p += len;
		n -= len;
	}
	fputc_unlocked('"', out);
}

static void kpc_json_write_string(FILE *out, const char *s)
{
	kpc_json_write_mem(out, s, strlen(s));
}

void kpc_json_record_write_translated(FILE *out, const struct kpc_record *rec,
				      const char *text_translated)
{
	unsigned int i;

	/* Level, class and source are in their enums: kpc_record_decode() checks. */
	fprintf(out, "{\"seq\":%" PRIu64 ",\"source\":\"%s\",\"level\":\"%s\",\"level_num\":%u,"
		"\"facility\":%" PRIu32 ",\"class\":\"%s\",\"ts_mono_ns\":%" PRIu64
		",\"ts_real_ns\":%" PRIu64 ",\"cpu\":%" PRIu32 ",\"pid\":%" PRIu32 ",\"comm\":",
		rec->seq, kpc_source_name(rec->source),
		kpc_level_name(rec->level), rec->level, (uint32_t)rec->facility,
		kpc_class_name(rec->class), rec->ts_mono_ns, rec->ts_real_ns,
		(uint32_t)rec->cpu, (uint32_t)rec->pid);
	kpc_json_write_string(out, rec->comm);
	fputs_unlocked(",\"file\":", out);
	kpc_json_write_string(out, rec->file);
	fprintf(out, ",\"line\":%" PRIu32 ",\"function\":", (uint32_t)rec->line);
	kpc_json_write_string(out, rec->function);
	fputs_unlocked(",\"subsystem\":", out);
	kpc_json_write_string(out, rec->subsystem);
	fputs_unlocked(",\"device\":", out);
	kpc_json_write_string(out, rec->device);
	fputs_unlocked(",\"module\":", out);
	kpc_json_write_string(out, rec->module);
	fputs_unlocked(",\"format\":", out);
	kpc_json_write_string(out, rec->format);
	fprintf(out, ",\"format_id\":\"%016" PRIx64 "\",\"args\":[", rec->format_id);
	for (i = 0; i < rec->nargs; i++) {
		if (i)
			fputc_unlocked(',', out);
		kpc_json_write_mem(out, rec->args[i], kpc_record_arg_len(rec, i));
	}
	fputs_unlocked("],\"text\":", out);
	kpc_json_write_mem(out, rec->text, kpc_record_text_len(rec));
	fprintf(out, ",\"block_id\":%" PRIu64 ",\"flags\":%" PRIu32
		",\"continues\":%" PRIu64,
		rec->block_id, (uint32_t)rec->flags, rec->continues);
	if (rec->source == KPRINT_SOURCE_PRINTK)
		fprintf(out, ",\"printk_seq\":%" PRIu64, rec->printk_seq);
	if (text_translated) {
		fputs_unlocked(",\"text_translated\":", out);
		/* Untranslated, it is the text, NULs and all. */
		if (text_translated == rec->text)
			kpc_json_write_mem(out, rec->text, kpc_record_text_len(rec));
		else
			kpc_json_write_string(out, text_translated);
	}
	fputc_unlocked('}', out);
}

int kpc_json_record_print_translated(FILE *out, const struct kpc_record *rec,
				     const char *text_translated)
{
	kpc_json_record_write_translated(out, rec, text_translated);
	fputc_unlocked('\n', out);
	return ferror(out) ? -EIO : 0;
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

int kpc_json_print_put(FILE *out, struct json_object *obj)
{
	int err;

	if (!obj)
		return -ENOMEM;
	err = kpc_json_print(out, obj);
	json_object_put(obj);
	return err;
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

/* Map updates that failed, by reason (struct kprint_counter_failures). */
static struct json_object *kpc_json_failures(const struct kprint_counter_failures *f)
{
	struct json_object *obj = json_object_new_object();
	bool ok = obj;

	ok = ok && kpc_json_add(obj, "full", json_object_new_uint64(f->full));
	ok = ok && kpc_json_add(obj, "busy", json_object_new_uint64(f->busy));
	ok = ok && kpc_json_add(obj, "nomem", json_object_new_uint64(f->nomem));
	ok = ok && kpc_json_add(obj, "other", json_object_new_uint64(f->other));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

struct json_object *kpc_json_format_summary(enum kpc_bpf_source src,
					    const struct kprint_counter_totals *t,
					    size_t formats, unsigned int max_formats,
					    const struct kpc_bpf_hook_status *st)
{
	bool printk = src == KPC_BPF_PRINTK;
	struct json_object *obj = json_object_new_object();
	bool ok = true;

	if (!obj)
		return NULL;
	ok = ok && kpc_json_add(obj, "source",
				json_object_new_string(kpc_bpf_source_name(src)));
	ok = ok && kpc_json_add(obj, "total", json_object_new_uint64(kpc_bpf_seen(t, src)));
	ok = ok && kpc_json_add(obj, "overflow",
				json_object_new_uint64(kpc_bpf_not_counted(t, src)));
	ok = ok && kpc_json_add(obj, "failed", kpc_json_failures(kpc_bpf_failures(t, src)));
	if (printk) {
		ok = ok && kpc_json_add(obj, "plain", json_object_new_uint64(t->printk_plain));
		ok = ok && kpc_json_add(obj, "bridged", json_object_new_uint64(t->printk_bridged));
		ok = ok && kpc_json_add(obj, "echo", json_object_new_uint64(t->printk_echo));
		ok = ok && kpc_json_add(obj, "unreadable",
					json_object_new_uint64(t->printk_unreadable));
		ok = ok && kpc_json_add(obj, "handoff_torn",
					json_object_new_uint64(t->handoff_torn));
		ok = ok && kpc_json_add(obj, "handoff_switched",
					json_object_new_uint64(t->handoff_switched));
	}
	ok = ok && kpc_json_add(obj, "formats", json_object_new_uint64(formats));
	ok = ok && kpc_json_add(obj, "max_formats", json_object_new_uint64(max_formats));
	ok = ok && kpc_json_add(obj, "attached", json_object_new_boolean(st->attached));
	if (!st->attached)
		ok = ok && kpc_json_add(obj, "skipped", kpc_json_string(st->why));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}
