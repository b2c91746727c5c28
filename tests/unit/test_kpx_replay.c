// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_exporter's replay decoding (kpx_replay_parse), its per-format
 * counts (kpx_counts), and what /metrics and /records make of records
 * built in memory with every kind of byte the kernel might hand over:
 * the exposition and the JSON must be valid UTF-8 with their escapes
 * right, whatever the strings hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kpx_metrics.h"
#include "kpx_query.h"
#include "kpx_replay.h"
#include "kpx_store.h"
#include "test_kpc_tap.h"

static const char good[] =
	"{\"seq\":7,\"source\":\"kprint\",\"level\":\"err\",\"level_num\":3,\"facility\":0,"
	"\"class\":\"detected\","
	"\"ts_mono_ns\":1,\"ts_real_ns\":2,\"cpu\":3,\"pid\":4,\"comm\":\"c\","
	"\"file\":\"f.c\",\"line\":5,\"function\":\"fn\",\"subsystem\":\"sub\",\"device\":\"\","
	"\"module\":\"mod\",\"format\":\"hello %d\",\"format_id\":\"a794a6c6b7eed728\","
	"\"args\":[\"5\"],\"text\":\"hello 5\",\"block_id\":9,\"flags\":1,\"continues\":0}";

/* A bridged dev_err() fragment, as kprint monitor --json writes one. */
static const char good_printk[] =
	"{\"seq\":8,\"source\":\"printk\",\"level\":\"err\",\"level_num\":3,\"facility\":0,"
	"\"class\":\"none\",\"ts_mono_ns\":1,\"ts_real_ns\":2,\"cpu\":1,\"pid\":0,"
	"\"comm\":\"swapper/1\",\"file\":\"\",\"line\":0,"
	"\"function\":\"e1000_probe+0x1c/0x2a0\",\"subsystem\":\"pci\","
	"\"device\":\"+pci:0000:00:19.0\",\"module\":\"e1000e\",\"format\":\"link %s\","
	"\"format_id\":\"0000000000000001\",\"args\":[\"down\"],"
	"\"text\":\"e1000e 0000:00:19.0: link down\",\"block_id\":0,\"flags\":8,"
	"\"continues\":18446744073709551615}";

static int parse_n(const char *s, size_t len, struct kpx_replay_line *l)
{
	char err[160];

	return kpx_replay_parse(s, len, l, err, sizeof(err));
}

static int parse(const char *s, struct kpx_replay_line *l)
{
	return parse_n(s, strlen(s), l);
}

/* good with one member's value replaced: "key": value. */
static char *with(const char *key, const char *value)
{
	char pat[64], *out;
	const char *at, *end;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(good, pat);
	at += strlen(pat);
	end = at;
	if (*end == '[') {
		end = strchr(end, ']') + 1;
	} else if (*end == '"') {
		end = strchr(end + 1, '"') + 1;
	} else {
		while (*end != ',' && *end != '}')
			end++;
	}
	if (asprintf(&out, "%.*s%s%s", (int)(at - good), good, value, end) < 0)
		abort();
	return out;
}

static void test_parse(void)
{
	static const struct { const char *key, *value; } bad[] = {
		{ "seq", "-1" }, { "seq", "1.0" }, { "seq", "\"1\"" },
		{ "seq", "18446744073709551616" }, { "seq", "99999999999999999999999" },
		{ "cpu", "4294967296" }, { "level", "\"warning\"" }, { "level", "3" },
		{ "level_num", "4" }, { "class", "\"\"" }, { "format_id", "\"a794a6c6b7eed72\"" },
		{ "format_id", "\"A794A6C6B7EED728\"" }, { "format_id", "7" },
		{ "args", "[1]" }, { "args", "\"x\"" }, { "format", "null" },
		{ "source", "\"kernel\"" }, { "source", "0" }, { "source", "null" },
		{ "device", "\"+pci:0000:00:19.0\"" }, { "device", "7" },
		{ "facility", "-1" }, { "facility", "4294967296" },
		{ "continues", "-1" }, { "continues", "\"1\"" },
		{ "args", "[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"10\","
			  "\"11\",\"12\",\"13\",\"14\",\"15\",\"16\",\"17\"]" },
	};
	struct kpx_replay_line l;
	char raw[600], err[160];
	unsigned int i;
	int ret;

	ret = parse(good, &l);
	tap_ok(ret == 1 && l.rec && l.rec->seq == 7 && l.rec->level == 3 && l.rec->class == 1 &&
	       l.rec->cpu == 3 && l.rec->pid == 4 && l.rec->line == 5 && l.rec->block_id == 9 &&
	       l.rec->flags == 1 && l.rec->format_id == 0xa794a6c6b7eed728ULL &&
	       l.rec->nargs == 1 && !strcmp(l.rec->args[0], "5") &&
	       !strcmp(l.rec->subsystem, "sub") && !strcmp(l.rec->text, "hello 5") &&
	       l.rec->source == KPRINT_SOURCE_KPRINT && !strcmp(l.rec->device, "") &&
	       l.rec->facility == 0 && l.rec->continues == 0,
	       "a record line decodes to the record it says");
	kpc_record_free(l.rec);

	ret = parse(good_printk, &l);
	tap_ok(ret == 1 && l.rec && l.rec->source == KPRINT_SOURCE_PRINTK &&
	       !strcmp(l.rec->device, "+pci:0000:00:19.0") && !strcmp(l.rec->subsystem, "pci") &&
	       l.rec->flags == KPRINT_RECORD_F_CONT &&
	       l.rec->continues == 18446744073709551615ULL &&
	       !strcmp(l.rec->function, "e1000_probe+0x1c/0x2a0"),
	       "a printk record line decodes: source, device, the cont flag, continues");
	kpc_record_free(l.rec);

	/* A dump of a kprint before the bridge has no source: refused, by name. */
	{
		static const char *const members[] = { "source", "device", "facility", "continues" };

		for (i = 0; i < 4; i++) {
			char pat[64], *s = strdup(good), *at, *end;

			snprintf(pat, sizeof(pat), ",\"%s\":", members[i]);
			at = strstr(s, pat);
			end = at + 1;
			while (*end != ',' && *end != '}')
				end++;
			if (*end == '"')
				end++;
			memmove(at, end, strlen(end) + 1);
			err[0] = '\0';
			ret = kpx_replay_parse(s, strlen(s), &l, err, sizeof(err));
			snprintf(pat, sizeof(pat), "no \"%s\"", members[i]);
			tap_ok(ret == -EINVAL && !l.rec && !strcmp(err, pat),
			       "a record without %s is refused: '%s'", members[i], err);
			free(s);
		}
	}

	/* Not NUL-terminated where it ends: only len bytes count. */
	snprintf(raw, sizeof(raw), "%s}}}}", good);
	ret = parse_n(raw, strlen(good), &l);
	tap_ok(ret == 1, "only the given length is read");
	kpc_record_free(l.rec);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *s = with(bad[i].key, bad[i].value);

		err[0] = '\0';
		ret = kpx_replay_parse(s, strlen(s), &l, err, sizeof(err));
		tap_ok(ret == -EINVAL && !l.rec && err[0], "%s: %.40s is refused (%s)",
		       bad[i].key, bad[i].value, err);
		free(s);
	}

	ret = parse("{\"lost\":12,\"reason\":\"missing\",\"cause\":\"gap\",\"first_seq\":1,"
		    "\"last_seq\":12}", &l);
	tap_ok(ret == 0 && !l.rec && l.lost == 12 && l.reason == KPC_LOST_MISSING,
	       "a lost line: no record, 12 lost, missing");
	ret = parse("{\"module\":\"loaded\",\"first_seq\":1}", &l);
	tap_ok(ret == 0 && !l.rec && !l.lost, "a module line: nothing");
	ret = parse(" \t\r", &l);
	tap_ok(ret == 0 && !l.rec && !l.lost, "a blank line: nothing");

	/* Raw bytes inside strings are kept as they are, for the renderers. */
	{
		char *s = with("format", "\"\xff\xc3(\x80 \\u0000 %d\"");

		ret = parse(s, &l);
		tap_ok(ret == 1 && !strcmp(l.rec->format, "\xff\xc3(\x80 \xef\xbf\xbd %d"),
		       "raw invalid bytes are kept; \\u0000 becomes U+FFFD");
		kpc_record_free(l.rec);
		free(s);
	}
	/* A text's or an arg's NUL is the byte printk rendered (kprint(7)). */
	{
		char *s = with("text", "\"xxx\\u0000yyy\"");
		char *t = NULL;

		ret = parse(s, &l);
		tap_ok(ret == 1 && l.rec->text_len == 7 && !memcmp(l.rec->text, "xxx\0yyy", 8),
		       "a text's \\u0000 is kept as a NUL, with the bytes after it");
		if (ret == 1)
			kpc_record_free(l.rec);
		t = with("args", "[\"\\u0000\"]");
		ret = parse(t, &l);
		tap_ok(ret == 1 && l.rec->nargs == 1 && l.rec->arg_len[0] == 1 &&
		       l.rec->args[0][0] == '\0',
		       "an arg's \\u0000 is kept as a NUL");
		if (ret == 1)
			kpc_record_free(l.rec);
		free(s);
		free(t);
	}
}

static struct kpc_record mkrec(uint64_t seq, unsigned int level, const char *fmt,
			       const char *subsystem, const char *module)
{
	struct kpc_record r = {
		.seq = seq, .level = level, .class = KPRINT_CLASS_NONE, .comm = "c",
		.file = "", .function = "", .subsystem = subsystem, .module = module, .device = "",
		.format = fmt, .format_id = kpc_format_id(fmt), .text = fmt,
	};

	return r;
}

static void test_counts(void)
{
	struct kpx_counts c = { 0 };
	struct kpc_record r;
	char fmt[32];
	size_t i;
	bool ok = true;
	uint64_t sum = 0;

	r = mkrec(1, 3, "same", "s", "m");
	kpx_counts_add(&c, &r);
	kpx_counts_add(&c, &r);
	r = mkrec(2, 4, "same", "s", "m");		/* another level */
	kpx_counts_add(&c, &r);
	r = mkrec(3, 3, "same", "s", "m2");		/* another module */
	kpx_counts_add(&c, &r);
	r = mkrec(4, 3, "same", "sm", "");		/* the same bytes, tags differ */
	kpx_counts_add(&c, &r);
	tap_ok(c.n == 4 && c.f[0].count == 2 && c.f[1].count == 1,
	       "keyed by format, tags, level and class, like the BPF maps (%zu)", c.n);
	/* FNV-1a 64 of "s\0m\0", as kprint.ko computes tags_id. */
	tap_ok(c.f[0].tags_id == 0xebc4a2181dc93663ULL && c.f[0].tags_id != c.f[3].tags_id,
	       "tags_id is FNV-1a 64 of \"s\\0m\\0\"; \"sm\",\"\" has another");

	for (i = 0; i < 20000; i++) {
		snprintf(fmt, sizeof(fmt), "format %zu", i % 10000);
		r = mkrec(10 + i, 6, fmt, "", "m");
		ok &= !kpx_counts_add(&c, &r);
	}
	for (i = 0; i < c.n; i++)
		sum += c.f[i].count;
	tap_ok(ok && c.n == 4 + 10000 && sum == 5 + 20000,
	       "10000 formats seen twice: 10000 entries, every record counted");
	kpx_counts_fini(&c);
}

/* Valid UTF-8 throughout, by libkpc's own decoder. */
static bool utf8_valid(const char *s)
{
	size_t n = strlen(s);
	uint32_t cp;

	while (n) {
		size_t len = kpc_utf8_next((const unsigned char *)s, n, &cp);

		if (cp == KPC_UTF8_INVALID)
			return false;
		s += len;
		n -= len;
	}
	return true;
}

static const char *const nasty[] = {
	"back\\slash", "quote\"", "new\nline", "cr\r tab\t esc\x1b del\x7f",
	"lone \x80 cont", "never \xff\xfe", "cut \xc3(", "overlong \xc0\x80",
	"surrogate \xed\xa0\x80", "big \xf4\x90\x80\x80", "end \xe6\xbc",
	"valid \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
};

#define NNASTY (sizeof(nasty) / sizeof(nasty[0]))

static void test_render(void)
{
	struct kpc_format_count f[NNASTY];
	struct kpc_record *recs[NNASTY];
	struct kpx_store s;
	struct kpx_query q;
	char *buf = NULL, *json, high[129];
	size_t len, i;
	FILE *out;
	bool ok;

	/* Every byte 0x80-0xff, for good measure. */
	for (i = 0; i < 128; i++)
		high[i] = (char)(0x80 + i);
	high[128] = '\0';

	memset(f, 0, sizeof(f));
	for (i = 0; i < NNASTY; i++) {
		struct kpc_record r = mkrec(i + 1, i % 8, nasty[i], nasty[(i + 1) % NNASTY],
					    i ? nasty[(i + 2) % NNASTY] : high);

		r.args[0] = nasty[(i + 3) % NNASTY];
		r.args[1] = high;
		r.nargs = 2;
		r.comm = nasty[(i + 4) % NNASTY];
		recs[i] = kpc_record_dup(&r);
		f[i].format_id = r.format_id;
		f[i].level = r.level;
		f[i].count = i + 1;
		snprintf(f[i].format, sizeof(f[i].format), "%s", nasty[i]);
		snprintf(f[i].subsystem, sizeof(f[i].subsystem), "%s", nasty[(i + 1) % NNASTY]);
		snprintf(f[i].module, sizeof(f[i].module), "%s", nasty[(i + 2) % NNASTY]);
	}

	out = open_memstream(&buf, &len);
	kpx_metrics_formats(out, "replay", f, NNASTY, 100);
	fclose(out);
	tap_ok(utf8_valid(buf), "per-format series of nasty strings are valid UTF-8");
	tap_ok(strstr(buf, "format=\"back\\\\slash\"") && strstr(buf, "format=\"quote\\\"\"") &&
	       strstr(buf, "format=\"new\\nline\"") &&
	       strstr(buf, "format=\"never \xef\xbf\xbd\xef\xbf\xbd\"") &&
	       strstr(buf, "format=\"valid \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""),
	       "label values escape \\, \" and newline, and make ill-formed bytes U+FFFD");
	ok = true;
	for (i = 0; i < len; i++)
		ok &= buf[i] != '\n' || i + 1 == len ||
		      !strncmp(buf + i + 1, "kprint_format_messages_total{", 29);
	tap_ok(ok, "no string breaks a sample line");
	free(buf);

	kpx_store_init(&s, 100);
	kpx_store_add(&s, recs, NNASTY);
	kpx_query_init(&q);
	json = kpx_records_json(&s, &q, NULL);
	tap_ok(json && utf8_valid(json), "/records of nasty records is valid UTF-8");
	ok = json != NULL;
	for (i = 0; ok && json[i]; i++)
		ok = (unsigned char)json[i] >= 0x20;
	tap_ok(ok, "/records has no raw control bytes (they are escaped)");
	tap_ok(json && strstr(json, "\"format\":\"back\\\\slash\"") &&
	       strstr(json, "\"format\":\"new\\nline\"") &&
	       strstr(json, "\"format\":\"lone \xef\xbf\xbd cont\""),
	       "JSON escapes \\ and newline, and makes ill-formed bytes U+FFFD");
	if (json && getenv("KPC_VALIDATE") && getenv("KPC_SCHEMA")) {
		char cmd[512];
		FILE *p;

		/* Every record against schema/record.schema.json. */
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; "
			 "[print(json.dumps(r)) for r in json.loads(sys.stdin.buffer.read()"
			 ".decode(\"utf-8\",\"strict\"))]' | python3 %s --schema %s >/dev/null",
			 getenv("KPC_VALIDATE"), getenv("KPC_SCHEMA"));
		p = popen(cmd, "w");
		if (p) {
			fputs(json, p);
			tap_ok(pclose(p) == 0, "/records is strict UTF-8 JSON and every record "
			       "matches schema/record.schema.json");
		}
	}
	free(json);
	kpx_store_fini(&s);
}

int main(void)
{
	test_parse();
	test_counts();
	test_render();
	return tap_done();
}
