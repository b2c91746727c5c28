/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records as JSON text, in the shape of schema/record.schema.json, by the
 * one record writer; loss events, counters and per-format counts as json-c
 * objects.  Every string is made valid UTF-8 first (ill-formed bytes
 * become U+FFFD): json-c passes bytes through, and RFC 8259 text must be
 * UTF-8.
 */
#ifndef KPC_JSON_H
#define KPC_JSON_H

#include <stdio.h>
#include <json-c/json.h>

#include "kpc_bpf.h"
#include "kpc_ops.h"
#include "kpc_record.h"
#include "kpc_tracker.h"

/*
 * The record written straight to out as one JSON object, no newline:
 * every record kprint writes as JSON (kprint --json, /records, /events)
 * comes from here.  The text is byte for byte what json-c prints for the
 * same object (plain, no escaped slashes); the unit tests keep a json-c
 * oracle.  text_translated (kpc_catalog_translate(), or the text itself
 * when the catalog does not translate the record) is added as the last
 * member when not NULL, so that every other member stays where it is.
 */
void kpc_json_record_write_translated(FILE *out, const struct kpc_record *rec,
				      const char *text_translated);

static inline void kpc_json_record_write(FILE *out, const struct kpc_record *rec)
{
	kpc_json_record_write_translated(out, rec, NULL);
}

/*
 * The record as a JSON line (a newline after it), text_translated as
 * above (NULL: none).  0, or -EIO on a write error.
 */
int kpc_json_record_print_translated(FILE *out, const struct kpc_record *rec,
				     const char *text_translated);

static inline int kpc_json_record_print(FILE *out, const struct kpc_record *rec)
{
	return kpc_json_record_print_translated(out, rec, NULL);
}

/*
 * A KPC_EVENT_LOST event:
 * {"lost": N, "reason": "overwritten"|"missing",
 *  "cause": "start"|"gap"|"overrun", "first_seq": A, "last_seq": B}
 */
struct json_object *kpc_json_lost(const struct kpc_event *ev);

/* The counters the kernel sent, by kpc_stats_fields names. */
struct json_object *kpc_json_stats(const struct kpc_stats *st);

/*
 * Add key: val to obj, for building an object with ok = ok && ... chains;
 * false (and val released) when val is NULL or the add fails.
 */
bool kpc_json_add(struct json_object *obj, const char *key, struct json_object *val);

/* A json-c string holding s made valid UTF-8. */
struct json_object *kpc_json_string(const char *s);

/* obj on one line (no escaped slashes, no spaces) and a newline. */
int kpc_json_print(FILE *out, struct json_object *obj);

/*
 * The same, then obj released: for an object built just to be printed,
 * kpc_json_print_put(stdout, kpc_json_lost(ev)).  A NULL obj (the builder
 * ran out of memory) is -ENOMEM.
 */
int kpc_json_print_put(FILE *out, struct json_object *obj);

/*
 * One per-format count, as a line of schema/formats.schema.json: source,
 * format_id, level, level_num, class, subsystem, module, count, format.
 */
struct json_object *kpc_json_format_count(enum kpc_bpf_source src,
					  const struct kpc_format_count *f);

/*
 * A source's summary, the last line per source of the same schema:
 * source, total and overflow (from the BPF totals), formats, max_formats,
 * attached, and when not attached why (skipped).  NULL when out of memory.
 */
struct json_object *kpc_json_format_summary(enum kpc_bpf_source src,
					    const struct kprint_counter_totals *t,
					    size_t formats, unsigned int max_formats,
					    const struct kpc_bpf_hook_status *st);

#endif /* KPC_JSON_H */
