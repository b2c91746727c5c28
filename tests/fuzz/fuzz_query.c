// SPDX-License-Identifier: GPL-2.0
/*
 * The /records query: kpx_query_init(), kpx_query_param() per parameter,
 * then kpx_query_match() and kpx_records_json() over a store of records.
 *
 * Input: a query string as libmicrohttpd hands it over after unescaping,
 * "name=value&name=value...".  A pair without '=' has a NULL value (as
 * "?b" does); a value may hold any byte, NUL included, and value_len
 * counts them all; a name ends at its first NUL, as a C string does.
 * Parameters are applied in order until the first error, as kpx_http_routes.c does.
 *
 * Oracle: kpx_query_param() returns 0 or -EINVAL; -EINVAL comes with a
 * non-empty message, NUL-terminated and whole in the daemon's 160-byte
 * buffer.  0 only for a known name with a value free of NULs, and the
 * value lands where kpx_query.h says: limit, after and format_id are exactly
 * the digits sent (nothing else: no sign, space or junk), string filters
 * point at the value, a level, class or source list selects something.  The
 * parsed query stays inside its limits (limit 1..KPX_LIMIT_MAX, strings
 * shorter than the kernel stores, level and class masks inside the
 * enums).  kpx_query_match() agrees with a reference written from kpx_query.h
 * for every record of the store, and kpx_records_json() returns strict
 * JSON holding exactly the records the documented paging picks: with
 * after=, the first limit matches past it; without, the last limit, in
 * sequence order.  No crash, UB or leak anywhere.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kpx_query.h"
#include "kpx_store.h"
#include "fuzz.h"

#define ERRLEN		160	/* struct kpx_args in kpx_http_routes.c */
#define NRECORDS	11
#define STORE_CAP	8	/* smaller, so that the store has wrapped */
#define MAX_PARAMS	64

static const char *const formats[] = {
	"kprint_test ipv4 %pI4", "kprint_test ipv6 %pI6c", "kprint_test mac %pM",
	"cheesy flash drive detected at %d", "eth0: MTU changed to %u",
	"usb %d-%d: device descriptor read/64, error %d", "%s", "",
};
static const char *const subsystems[] = { "", "kprint-test", "usb-storage" };
static const char *const modules[] = { "", "kprint_test", "user" };
static const char *const devices[] = { "+pci:0000:00:19.0", "b8:0" };

static struct kpx_store store;
static struct kpc_record *held[STORE_CAP];	/* the store's, oldest first */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct kpc_record rec, *copy[NRECORDS];
	unsigned int i;

	(void)argc;
	(void)argv;
	fuzz_assert(!kpx_store_init(&store, STORE_CAP), "store");
	for (i = 0; i < NRECORDS; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.seq = 100 + i * 3;	/* gaps, as after a loss */
		rec.level = i % (KPRINT_LEVEL_MAX + 1);
		rec.class = i % (KPRINT_CLASS_MAX + 1);
		rec.comm = "insmod";
		rec.file = "";
		rec.function = "";
		rec.subsystem = subsystems[i % 3];
		/* Every other one bridged from printk, half of those with a device. */
		rec.source = i % 2 ? KPRINT_SOURCE_PRINTK : KPRINT_SOURCE_KPRINT;
		rec.device = i % 2 && i % 4 != 1 ? devices[(i / 4) % 2] : "";
		rec.module = modules[(i / 3) % 3];
		rec.format = formats[i % 8];
		rec.format_id = kpc_format_id(rec.format);
		rec.text = "text";
		copy[i] = kpc_record_dup(&rec);
		fuzz_assert(copy[i], "dup");
	}
	/* Two batches, as ingest hands them over. */
	kpx_store_add(&store, copy, 5);
	kpx_store_add(&store, copy + 5, NRECORDS - 5);
	for (i = 0; i < STORE_CAP; i++)
		held[i] = copy[NRECORDS - STORE_CAP + i];
	return 0;
}

struct param {
	char *name;
	char *value;			/* NULL: no '=' */
	size_t value_len;
};

static bool known_name(const char *name)
{
	static const char *const names[] = {
		"level", "class", "source", "subsystem", "device", "module",
		"format_id", "q", "after", "limit", "wait",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static bool all_digits(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* An accepted parameter's value is where kpx_query.h says it goes. */
static void check_accepted(const struct kpx_query *q, const char *name,
			   const char *value)
{
	if (!strcmp(name, "limit"))
		fuzz_assert(all_digits(value, "0123456789") &&
			    q->limit == strtoull(value, NULL, 10),
			    "limit=%s gave %u", value, q->limit);
	else if (!strcmp(name, "wait"))
		fuzz_assert(all_digits(value, "0123456789") &&
			    q->wait_s == strtoull(value, NULL, 10) && q->wait_s <= KPX_WAIT_MAX,
			    "wait=%s gave %u", value, q->wait_s);
	else if (!strcmp(name, "after"))
		fuzz_assert(all_digits(value, "0123456789") && q->has_after &&
			    q->after == strtoull(value, NULL, 10),
			    "after=%s gave %llu", value,
			    (unsigned long long)q->after);
	else if (!strcmp(name, "format_id"))
		fuzz_assert(strlen(value) == 16 &&
			    all_digits(value, "0123456789abcdefABCDEF") &&
			    q->has_format_id &&
			    q->format_id == strtoull(value, NULL, 16),
			    "format_id=%s", value);
	else if (!strcmp(name, "subsystem"))
		fuzz_assert(q->filter.subsystem == value, "subsystem");
	else if (!strcmp(name, "module"))
		fuzz_assert(q->filter.module == value, "module");
	else if (!strcmp(name, "device"))
		fuzz_assert(q->filter.device == value, "device");
	else if (!strcmp(name, "source"))
		fuzz_assert(q->filter.sources, "source=%s selects nothing", value);
	else if (!strcmp(name, "q"))
		fuzz_assert(q->q == value, "q");
	else if (!strcmp(name, "level"))
		fuzz_assert(q->filter.levels, "level=%s selects nothing", value);
	else if (!strcmp(name, "class"))
		fuzz_assert(q->filter.classes, "class=%s selects nothing", value);
}

static void check_query(const struct kpx_query *q)
{
	fuzz_assert(q->limit >= 1 && q->limit <= KPX_LIMIT_MAX, "limit %u", q->limit);
	fuzz_assert(!(q->filter.levels >> (KPRINT_LEVEL_MAX + 1)),
		    "levels 0x%x", q->filter.levels);
	fuzz_assert(!(q->filter.classes >> (KPRINT_CLASS_MAX + 1)),
		    "classes 0x%x", q->filter.classes);
	fuzz_assert(!q->filter.subsystem || strlen(q->filter.subsystem) < KPRINT_TAG_MAX,
		    "subsystem too long");
	fuzz_assert(!q->filter.module || strlen(q->filter.module) < KPRINT_TAG_MAX,
		    "module too long");
	fuzz_assert(!(q->filter.sources >> (KPRINT_SOURCE_MAX + 1)),
		    "sources 0x%x", q->filter.sources);
	fuzz_assert(!q->filter.device || strlen(q->filter.device) < KPRINT_DEVICE_MAX,
		    "device too long");
	fuzz_assert(!q->q || strlen(q->q) < KPRINT_FORMAT_MAX, "q too long");
}

/* What kpx_query.h and kpc_filter.h say a query selects. */
static bool ref_match(const struct kpx_query *q, const struct kpc_record *r)
{
	if (q->has_after && r->seq <= q->after)
		return false;
	if (q->has_format_id && r->format_id != q->format_id)
		return false;
	if (q->q && !strstr(r->format, q->q))
		return false;
	if (q->filter.levels && !(q->filter.levels & (1u << r->level)))
		return false;
	if (q->filter.classes && !(q->filter.classes & (1u << r->class)))
		return false;
	if (q->filter.sources && !(q->filter.sources & (1u << r->source)))
		return false;
	if (q->filter.subsystem && strcmp(q->filter.subsystem, r->subsystem))
		return false;
	if (q->filter.device && strcmp(q->filter.device, r->device))
		return false;
	if (q->filter.module && strcmp(q->filter.module, r->module))
		return false;
	return true;
}

static void check_records(const struct kpx_query *q)
{
	uint64_t want[STORE_CAP];
	unsigned int nmatch = 0, first = 0, nwant, i;
	struct kpx_records_scan scan;
	struct json_object *arr, *seq;
	struct json_tokener *tok;
	char *json;

	for (i = 0; i < STORE_CAP; i++) {
		bool m = kpx_query_match(q, held[i]);

		fuzz_assert(m == ref_match(q, held[i]), "seq %llu: match says %d",
			    (unsigned long long)held[i]->seq, m);
		if (m)
			want[nmatch++] = held[i]->seq;
	}
	nwant = nmatch < q->limit ? nmatch : q->limit;
	if (!q->has_after)
		first = nmatch - nwant;

	json = kpx_records_json(&store, q, &scan);
	fuzz_assert(json, "kpx_records_json failed");
	/* A held answer skips what a scan to the end saw: all of it must be in. */
	fuzz_assert(scan.n == nwant, "the scan counts %zu records, want %u", scan.n, nwant);
	fuzz_assert(!scan.to_end || (q->has_after && nmatch == nwant &&
				     scan.newest_seq == held[STORE_CAP - 1]->seq),
		    "a scan to the end (newest %llu) left matches out: %u of %u",
		    (unsigned long long)scan.newest_seq, nwant, nmatch);
	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	arr = json_tokener_parse_ex(tok, json, strlen(json));
	fuzz_assert(arr && json_tokener_get_error(tok) == json_tokener_success &&
		    json_object_is_type(arr, json_type_array), "bad JSON: %s", json);
	fuzz_assert(json_object_array_length(arr) == nwant,
		    "%zu records, want %u: %s", json_object_array_length(arr),
		    nwant, json);
	for (i = 0; i < nwant; i++) {
		fuzz_assert(json_object_object_get_ex(json_object_array_get_idx(arr, i),
						      "seq", &seq) &&
			    json_object_get_uint64(seq) == want[first + i],
			    "record %u is not seq %llu: %s", i,
			    (unsigned long long)want[first + i], json);
	}
	json_object_put(arr);
	json_tokener_free(tok);
	free(json);
}

/* Split "a=b&c&d=e" into pairs; the strings are the query's to keep. */
static unsigned int split(const uint8_t *data, size_t size, struct param *p)
{
	unsigned int n = 0;
	size_t i = 0;

	while (i <= size && n < MAX_PARAMS) {
		const uint8_t *seg = data + i, *amp, *eq;
		size_t len, nlen;

		amp = memchr(seg, '&', size - i);
		len = amp ? (size_t)(amp - seg) : size - i;
		eq = memchr(seg, '=', len);
		nlen = eq ? (size_t)(eq - seg) : len;

		p[n].name = strndup((const char *)seg, nlen);
		p[n].value = NULL;
		p[n].value_len = 0;
		if (eq) {
			/* Exactly sized, so a read past value_len shows. */
			p[n].value_len = len - nlen - 1;
			p[n].value = malloc(p[n].value_len + 1);
			memcpy(p[n].value, eq + 1, p[n].value_len);
			p[n].value[p[n].value_len] = '\0';
		}
		n++;
		i += len + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct param p[MAX_PARAMS];
	struct kpx_query q;
	unsigned int n, i;
	char err[ERRLEN];
	int ret = 0;

	/* An empty query has no parameters, not one empty one. */
	n = size ? split(data, size, p) : 0;
	kpx_query_init(&q);
	check_query(&q);
	for (i = 0; i < n && !ret; i++) {
		memset(err, 0xAA, sizeof(err));
		ret = kpx_query_param(&q, p[i].name, p[i].value, p[i].value_len,
				      err, sizeof(err));
		fuzz_assert(ret == 0 || ret == -EINVAL, "returned %d", ret);
		if (ret) {
			const char *nul = memchr(err, 0, sizeof(err));

			fuzz_assert(nul && nul > err && (size_t)(nul - err) < sizeof(err) - 1,
				    "message empty, unterminated or cut");
			break;
		}
		/* Accepted: a known name with a value free of NULs. */
		fuzz_assert(known_name(p[i].name), "accepted '%s'", p[i].name);
		fuzz_assert(p[i].value && strlen(p[i].value) == p[i].value_len,
			    "accepted a missing value or one with a NUL");
		check_accepted(&q, p[i].name, p[i].value);
		check_query(&q);
	}
	if (!ret)
		check_records(&q);

	for (i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].value);
	}
	return 0;
}
