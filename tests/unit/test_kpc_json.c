// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output: strings are made valid UTF-8 (compared with what Python's
 * "replace" decoding gives), the record writer writes byte for byte what
 * json-c would (a json-c oracle), every line parses back with json-c, and the
 * lines validate against schema/record.schema.json with python3-jsonschema
 * (tests/lib/validate_json.py), which must also reject broken ones; the
 * same for per-format counts and schema/formats.schema.json.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "kpc.h"
#include "test_kpc_tap.h"

#define FFFD	"\xef\xbf\xbd"

static void check_sanitize(const char *in, const char *want, const char *what)
{
	char *got = kpc_utf8_sanitize(in);

	tap_ok(got && !strcmp(got, want), "UTF-8 sanitizing: %s", what);
	free(got);
}

static void test_sanitize(void)
{
	check_sanitize("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80",
		       "valid UTF-8 is unchanged");
	check_sanitize("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", "U+10FFFF is valid");
	/* The expected strings are Python's bytes.decode("utf-8", "replace"). */
	check_sanitize("a\xff\xc3(\xe2\x82\xed\xa0\x80\xf4\x90\x80\x80\xf0\x9f\x98",
		       "a" FFFD FFFD "(" FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD,
		       "maximal subparts become one U+FFFD each, like Python");
	check_sanitize("\xc0\xaf", FFFD FFFD, "an overlong is two U+FFFD");
	check_sanitize("\xe0\x80\x80", FFFD FFFD FFFD, "a 3-byte overlong is three U+FFFD");
	check_sanitize("\xe2\x82", FFFD, "a truncated sequence at the end is one U+FFFD");
	check_sanitize("ok\x80\xbf" "end", "ok" FFFD FFFD "end", "stray continuation bytes");
	check_sanitize("\xf8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD, "5-byte forms are not UTF-8");
}

/* Every byte from 0x01 to 0xff, then some more trouble. */
static char nasty[300];
static char all_high[129];

static void make_nasty(void)
{
	int i, n = 0;

	for (i = 1; i < 256; i++)
		nasty[n++] = (char)i;
	memcpy(nasty + n, "\"q\\b\n\033[31m", 11);
	for (i = 0; i < 128; i++)
		all_high[i] = (char)(0x80 + i);
}

static struct kpc_record nasty_record(uint64_t seq, unsigned int level,
				      unsigned int class)
{
	static const char *args[3];
	struct kpc_record rec = {
		.seq = seq, .level = level, .class = class,
		.ts_mono_ns = 12345678901ULL, .ts_real_ns = 1700000000123456789ULL,
		.cpu = 3, .pid = 4294967295u, .comm = "\"quote\"",
		.file = "dir\\file.c", .line = 42, .function = "f\n",
		.subsystem = "sub\033[2J", .module = all_high,
		.format = "%s %s %s", .format_id = 0xfedcba9876543210ULL,
		.text = nasty, .block_id = 18446744073709551615ULL,
		.flags = KPRINT_RECORD_F_TRUNCATED | KPRINT_RECORD_F_USER,
		.source = KPRINT_SOURCE_KPRINT, .device = "",
		.facility = 4294967295u, .continues = 18446744073709551615ULL,
	};

	args[0] = "\xff\xfe";
	args[1] = "";
	args[2] = "tab\there";
	memcpy(rec.args, args, sizeof(args));
	rec.nargs = 3;
	return rec;
}

/* A bridged dev_err() fragment: source printk, a device, the cont flag. */
static struct kpc_record printk_record(uint64_t seq)
{
	struct kpc_record rec = nasty_record(seq, KPRINT_LEVEL_ERR, KPRINT_CLASS_NONE);

	rec.source = KPRINT_SOURCE_PRINTK;
	rec.file = "";
	rec.line = 0;
	rec.function = "e1000_probe+0x1c/0x2a0";
	rec.subsystem = "pci";
	rec.device = "+pci:0000:00:19.0";
	rec.module = "e1000e";
	rec.facility = 0;
	rec.flags = KPRINT_RECORD_F_CONT;
	rec.continues = seq - 1;
	return rec;
}

/*
 * The oracle: the record built as a json-c object, key by key, as libkpc
 * once printed it.  kpc_json_record_write() must write the same bytes.
 */
static struct json_object *oracle_record(const struct kpc_record *rec)
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
	ok = ok && kpc_json_add(obj, "source",
				json_object_new_string(kpc_source_name(rec->source)));
	ok = ok && kpc_json_add(obj, "level",
				json_object_new_string(kpc_level_name(rec->level)));
	ok = ok && kpc_json_add(obj, "level_num", json_object_new_int(rec->level));
	ok = ok && kpc_json_add(obj, "facility", json_object_new_int64(rec->facility));
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
	ok = ok && kpc_json_add(obj, "device", kpc_json_string(rec->device));
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
	ok = ok && kpc_json_add(obj, "continues",
				json_object_new_uint64(rec->continues));
	if (ok && rec->source == KPRINT_SOURCE_PRINTK)
		ok = kpc_json_add(obj, "printk_seq",
				  json_object_new_uint64(rec->printk_seq));

	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

/* The line kpc_json_print() writes for obj; caller frees. */
static char *print_line(struct json_object *obj)
{
	return tap_capture(f, kpc_json_print(f, obj));
}

/* The line kpc_json_record_print() writes for rec; caller frees. */
static char *record_print_line(const struct kpc_record *rec)
{
	int err;
	char *buf = tap_capture(f, err = kpc_json_record_print(f, rec));

	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static void test_record(void)
{
	struct kpc_record rec = nasty_record(18446744073709551615ULL,
					     KPRINT_LEVEL_WARNING, KPRINT_CLASS_SETTING);
	struct json_object *back, *v;
	char *line, *clean;
	const char *s;
	size_t i;
	int raw_ctl = 0;

	line = record_print_line(&rec);
	tap_ok(line != NULL, "a record with nasty strings becomes a JSON line");
	for (i = 0; line[i] && line[i] != '\n'; i++)
		raw_ctl |= (unsigned char)line[i] < 0x20;
	tap_ok(!raw_ctl && line[i] == '\n' && line[i + 1] == '\0',
	       "the JSON line has no raw control bytes and ends in one newline");

	back = json_tokener_parse(line);
	tap_ok(back && json_object_object_length(back) == 24,
	       "the line parses back with json-c, with 24 keys");

	tap_ok(json_object_object_get_ex(back, "seq", &v) &&
	       json_object_get_uint64(v) == 18446744073709551615ULL,
	       "seq keeps all 64 bits");
	tap_ok((s = get_str(back, "format_id")) && !strcmp(s, "fedcba9876543210"),
	       "format_id is 16 hex digits");
	tap_ok((s = get_str(back, "level")) && !strcmp(s, "warn") &&
	       json_object_object_get_ex(back, "level_num", &v) &&
	       json_object_get_int(v) == KPRINT_LEVEL_WARNING,
	       "level is a name, level_num its number");
	tap_ok((s = get_str(back, "class")) && !strcmp(s, "setting"), "class is a name");
	tap_ok((s = get_str(back, "comm")) && !strcmp(s, "\"quote\"") &&
	       (s = get_str(back, "file")) && !strcmp(s, "dir\\file.c") &&
	       (s = get_str(back, "function")) && !strcmp(s, "f\n"),
	       "quotes, backslashes and newlines round-trip");

	clean = kpc_utf8_sanitize(nasty);
	tap_ok((s = get_str(back, "text")) && !strcmp(s, clean),
	       "bytes 0x01..0xff come back as their UTF-8-sanitized string");
	free(clean);
	clean = kpc_utf8_sanitize(all_high);
	tap_ok((s = get_str(back, "module")) && !strcmp(s, clean) &&
	       !strncmp(s, FFFD FFFD, 6), "lone bytes 0x80..0xff become U+FFFD");
	free(clean);

	tap_ok(json_object_object_get_ex(back, "args", &v) &&
	       json_object_array_length(v) == 3 &&
	       !strcmp(json_object_get_string(json_object_array_get_idx(v, 0)), FFFD FFFD) &&
	       !strcmp(json_object_get_string(json_object_array_get_idx(v, 1)), "") &&
	       !strcmp(json_object_get_string(json_object_array_get_idx(v, 2)), "tab\there"),
	       "args are an array of sanitized strings, in order");
	tap_ok((s = get_str(back, "source")) && !strcmp(s, "kprint") &&
	       (s = get_str(back, "device")) && !strcmp(s, "") &&
	       json_object_object_get_ex(back, "facility", &v) &&
	       json_object_get_int64(v) == 4294967295LL &&
	       json_object_object_get_ex(back, "continues", &v) &&
	       json_object_get_uint64(v) == 18446744073709551615ULL,
	       "source by name, device, facility (u32) and continues (u64)");
	tap_ok(json_object_object_get_ex(back, "pid", &v) &&
	       json_object_get_int64(v) == 4294967295LL &&
	       json_object_object_get_ex(back, "flags", &v) && json_object_get_int(v) == 3,
	       "u32 fields are unsigned");

	json_object_put(back);
	free(line);
}

static void test_lost_and_stats(void)
{
	struct kpc_event ev = {
		.kind = KPC_EVENT_LOST, .count = 4, .first_seq = 11, .last_seq = 14,
		.reason = KPC_LOST_OVERWRITTEN, .cause = KPC_CAUSE_OVERRUN,
	};
	struct kpc_stats st = { .records = 5, .next_seq = 9 };
	struct json_object *obj;
	char *line;

	obj = kpc_json_lost(&ev);
	line = print_line(obj);
	tap_ok(!strcmp(line, "{\"lost\":4,\"reason\":\"overwritten\",\"cause\":\"overrun\",\"first_seq\":11,\"last_seq\":14}\n"),
	       "lost event line");
	free(line);
	json_object_put(obj);

	st.present = (1u << KPRINT_STATS_A_RECORDS) | (1u << KPRINT_STATS_A_NEXT_SEQ);
	obj = kpc_json_stats(&st);
	line = print_line(obj);
	tap_ok(!strcmp(line, "{\"records\":5,\"next_seq\":9}\n"),
	       "stats JSON has the counters the kernel sent, by name");
	free(line);
	json_object_put(obj);

	test_stats_bridge(&st);
	obj = kpc_json_stats(&st);
	line = print_line(obj);
	tap_ok(!strcmp(line, "{\"records\":5,\"next_seq\":9,\"bridge\":1,\"bridged\":812,"
		       "\"bridge_skipped\":3,\"bridge_dropped_nmi\":1,"
		       "\"bridge_dropped_recursion\":2,\"bridge_dropped_scratch\":4,"
		       "\"bridge_missed\":5,\"bridge_backlog\":554}\n"),
	       "stats JSON has the printk bridge's counters, by name");
	free(line);
	json_object_put(obj);
}

/* Run the validator on lines; its exit status. */
static int validate(const char *validator, const char *schema,
		    const char *const *lines, unsigned int n, bool quiet)
{
	char path[] = "/tmp/test_kpc_json.XXXXXX", cmd[4096];
	unsigned int i;
	int fd, status;
	FILE *f;

	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	for (i = 0; i < n; i++)
		fputs(lines[i], f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 '%s' --schema '%s' < '%s'%s",
		 validator, schema, path, quiet ? " 2>/dev/null" : "");
	status = system(cmd);
	unlink(path);
	return status;
}

static char *record_line(uint64_t seq, unsigned int level, unsigned int class)
{
	struct kpc_record rec = nasty_record(seq, level, class);

	return record_print_line(&rec);
}

/* Swap the first occurrence of from in line for to. */
static char *spoil(const char *line, const char *from, const char *to)
{
	const char *at = strstr(line, from);
	char *out = malloc(strlen(line) + strlen(to) + 1);

	if (!at) {
		strcpy(out, line);
		return out;
	}
	memcpy(out, line, at - line);
	strcpy(out + (at - line), to);
	strcat(out, at + strlen(from));
	return out;
}

static void test_schema(void)
{
	const char *validator = getenv("KPC_VALIDATE"), *schema = getenv("KPC_SCHEMA");
	char *lines[KPRINT_LEVEL_MAX + 6], *template, *printk, *bad;
	struct kpc_record prec;
	struct kpc_event ev = {
		.kind = KPC_EVENT_LOST, .count = 1, .first_seq = 0, .last_seq = 0,
		.reason = KPC_LOST_MISSING, .cause = KPC_CAUSE_GAP,
	};
	struct json_object *obj;
	unsigned int i, n = 0;
	static const struct {
		const char *from, *to, *what;
	} spoils[] = {
		{ "\"seq\":18446744073709551615,", "", "a record without seq" },
		{ "{\"seq\"", "{\"extra\":1,\"seq\"", "a record with an extra property" },
		{ "\"format_id\":\"fedcba9876543210\"", "\"format_id\":18364758544493064720", "a numeric format_id" },
		{ "\"level\":\"warn\"", "\"level\":\"warning\"", "level \"warning\" (the name is \"warn\")" },
		{ "\"args\":[", "\"args\":[1,", "a non-string arg" },
		{ "\"seq\":18446744073709551615", "\"seq\":-1", "a negative seq" },
		{ "\"line\":42", "\"line\":4294967296", "a line past u32" },
		{ "\"level_num\":4", "\"level_num\":8", "level_num 8" },
		{ "\"class\":\"setting\"", "\"class\":\"hardware\"", "an unknown class" },
		{ "\"lost\":1,", "\"lost\":0,", "a lost event of 0 records" },
		{ "\"reason\":\"missing\"", "\"reason\":\"eaten\"", "an unknown lost reason" },
		{ "\"source\":\"kprint\",", "", "a record without source" },
		{ "\"source\":\"kprint\"", "\"source\":\"kernel\"", "an unknown source" },
		{ "\"source\":\"kprint\"", "\"source\":0", "a numeric source" },
		{ "\"device\":\"\"", "\"device\":\"+pci:0000:00:19.0\"", "a kprint record with a device" },
		{ "\"device\":\"\",", "", "a record without device" },
		{ "\"facility\":4294967295,", "", "a record without facility" },
		{ "\"facility\":4294967295", "\"facility\":4294967296", "a facility past u32" },
		{ ",\"continues\":18446744073709551615", "", "a record without continues" },
		{ "\"continues\":18446744073709551615", "\"continues\":-1", "a negative continues" },
	};
	/* Spoiled from the printk record's line. */
	static const struct {
		const char *from, *to, *what;
	} printk_spoils[] = {
		{ "\"device\":\"+pci:0000:00:19.0\"",
		  "\"device\":\"+pci:0000:00:19.0-and-then-some-more-bytes-past-47\"",
		  "a device longer than 47" },
		{ "\"device\":\"+pci:0000:00:19.0\"", "\"device\":null", "a null device" },
		{ "\"source\":\"printk\"", "\"source\":\"PRINTK\"", "source PRINTK" },
	};

	if (!validator || !schema || access(validator, R_OK) || access(schema, R_OK)) {
		tap_skip("schema validation (KPC_VALIDATE/KPC_SCHEMA not set: run through make test)");
		return;
	}

	for (i = 0; i <= KPRINT_LEVEL_MAX; i++)
		lines[n++] = record_line(i == 0 ? 18446744073709551615ULL : i, i,
					 i % (KPRINT_CLASS_MAX + 1));
	/* The spoiled lines start from this one. */
	template = record_line(18446744073709551615ULL, KPRINT_LEVEL_WARNING,
			       KPRINT_CLASS_SETTING);
	lines[n++] = template;
	prec = printk_record(5);
	printk = record_print_line(&prec);
	lines[n++] = printk;
	prec.source = KPRINT_SOURCE_PRINTK;
	prec.flags = KPRINT_RECORD_F_BACKLOG;
	prec.continues = 0;
	prec.device = "";
	prec.subsystem = "";
	prec.module = "";
	prec.function = "";
	prec.format = "";
	prec.nargs = 0;
	prec.format_id = kpc_format_id("");
	lines[n++] = record_print_line(&prec);
	obj = kpc_json_lost(&ev);
	lines[n++] = print_line(obj);
	json_object_put(obj);

	tap_ok(validate(validator, schema, (const char *const *)lines, n, false) == 0,
	       "records of every level and class, printk ones (a device, a fragment, a backlog "
	       "line) and a lost event validate against the schema");

	for (i = 0; i < sizeof(spoils) / sizeof(spoils[0]); i++) {
		const char *src = strstr(spoils[i].from, "lost") || strstr(spoils[i].from, "reason") ?
				  lines[n - 1] : template;

		if (!strstr(src, spoils[i].from)) {
			tap_ok(0, "schema rejects %s (test bug: pattern not found)", spoils[i].what);
			continue;
		}
		bad = spoil(src, spoils[i].from, spoils[i].to);
		tap_ok(validate(validator, schema, (const char *const *)&bad, 1, true) != 0,
		       "the schema rejects %s", spoils[i].what);
		free(bad);
	}
	for (i = 0; i < sizeof(printk_spoils) / sizeof(printk_spoils[0]); i++) {
		if (!strstr(printk, printk_spoils[i].from)) {
			tap_ok(0, "schema rejects %s (test bug: pattern not found)",
			       printk_spoils[i].what);
			continue;
		}
		bad = spoil(printk, printk_spoils[i].from, printk_spoils[i].to);
		tap_ok(validate(validator, schema, (const char *const *)&bad, 1, true) != 0,
		       "the schema rejects %s", printk_spoils[i].what);
		free(bad);
	}
	bad = "{\"seq\":1,\"seq\":2}\n";
	tap_ok(validate(validator, schema, (const char *const *)&bad, 1, true) != 0,
	       "the validator rejects duplicate keys");
	bad = "{\"lost\":1,\"reason\":\"missing\",\"cause\":\"gap\",\"first_seq\":0,\"last_seq\":0,\"text\":\"\xff\"}\n";
	tap_ok(validate(validator, schema, (const char *const *)&bad, 1, true) != 0,
	       "the validator rejects invalid UTF-8");

	for (i = 0; i < n; i++)
		free(lines[i]);
}

static struct kpc_format_count format_count(unsigned int class, const char *subsystem,
					    const char *module)
{
	struct kpc_format_count f = {
		.format_id = 0xfedcba9876543210ULL, .tags_id = 7, .level = KPRINT_LEVEL_ERR,
		.class = class, .count = 18446744073709551615ULL,
	};

	snprintf(f.subsystem, sizeof(f.subsystem), "%s", subsystem);
	snprintf(f.module, sizeof(f.module), "%s", module);
	snprintf(f.format, sizeof(f.format), "%s", "reset %d\n");
	return f;
}

static char *format_line(enum kpc_bpf_source src, const struct kpc_format_count *f)
{
	struct json_object *obj = kpc_json_format_count(src, f);
	char *line = obj ? print_line(obj) : NULL;

	json_object_put(obj);
	return line;
}

/* schema/formats.schema.json, next to KPC_SCHEMA; NULL if not there. */
static char *formats_schema(void)
{
	const char *schema = getenv("KPC_SCHEMA"), *slash;
	char *path;

	if (!schema || !(slash = strrchr(schema, '/')))
		return NULL;
	if (asprintf(&path, "%.*s/formats.schema.json", (int)(slash - schema), schema) < 0)
		return NULL;
	if (access(path, R_OK)) {
		free(path);
		return NULL;
	}
	return path;
}

static void test_format_count(void)
{
	const char *validator = getenv("KPC_VALIDATE");
	struct kpc_format_count f;
	char *lines[3], *schema, *bad;
	unsigned int i;
	static const struct {
		unsigned int line;
		const char *from, *to, *what;
	} spoils[] = {
		{ 0, "\"class\":\"detected\",", "", "a count without class" },
		{ 0, "\"subsystem\":\"usb-storage\",", "", "a count without subsystem" },
		{ 0, "\"module\":\"kprint_demo\",", "", "a count without module" },
		{ 0, "\"class\":\"detected\"", "\"class\":\"hardware\"", "an unknown class" },
		{ 0, "\"class\":\"detected\"", "\"class\":1", "a numeric class" },
		{ 1, "\"class\":\"none\"", "\"class\":\"detected\"", "a printk count with a class" },
	};

	f = format_count(KPRINT_CLASS_DETECTED, "usb-storage", "kprint_demo");
	lines[0] = format_line(KPC_BPF_KPRINT, &f);
	tap_ok(lines[0] && !strcmp(lines[0], "{\"source\":\"kprint\",\"format_id\":\"fedcba9876543210\","
				   "\"level\":\"err\",\"level_num\":3,\"class\":\"detected\","
				   "\"subsystem\":\"usb-storage\",\"module\":\"kprint_demo\","
				   "\"count\":18446744073709551615,\"format\":\"reset %d\\n\"}\n"),
	       "a per-format count has its class by name, subsystem and module");
	f = format_count(KPRINT_CLASS_NONE, "", "");
	lines[1] = format_line(KPC_BPF_PRINTK, &f);
	tap_ok(lines[1] && strstr(lines[1], "\"class\":\"none\",\"subsystem\":\"\",\"module\":\"\","),
	       "a printk count: class none, empty subsystem and module");
	f = format_count(KPRINT_CLASS_COPYRIGHT, "sub\033[2J", "\xff\"q");
	lines[2] = format_line(KPC_BPF_KPRINT, &f);
	tap_ok(lines[2] && strstr(lines[2], "\"class\":\"copyright\",\"subsystem\":\"sub\\u001b[2J\","
				  "\"module\":\"" FFFD "\\\"q\""),
	       "tags are escaped and made valid UTF-8 like record strings");

	schema = formats_schema();
	if (!validator || !schema || access(validator, R_OK)) {
		tap_skip("formats schema validation (KPC_VALIDATE/KPC_SCHEMA not set: run through make test)");
	} else {
		tap_ok(validate(validator, schema, (const char *const *)lines, 3, false) == 0,
		       "per-format counts validate against schema/formats.schema.json");
		for (i = 0; i < sizeof(spoils) / sizeof(spoils[0]); i++) {
			if (!strstr(lines[spoils[i].line], spoils[i].from)) {
				tap_ok(0, "formats schema rejects %s (test bug: pattern not found)",
				       spoils[i].what);
				continue;
			}
			bad = spoil(lines[spoils[i].line], spoils[i].from, spoils[i].to);
			tap_ok(validate(validator, schema, (const char *const *)&bad, 1, true) != 0,
			       "the formats schema rejects %s", spoils[i].what);
			free(bad);
		}
	}
	free(schema);
	for (i = 0; i < 3; i++)
		free(lines[i]);
}

/* The line kpc_json_print_put() writes for obj, which it releases. */
static char *print_put_line(struct json_object *obj)
{
	int err;
	char *buf = tap_capture(f, err = kpc_json_print_put(f, obj));

	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A source's summary line: every key, and why when not attached. */
static void test_format_summary(void)
{
	struct kprint_counter_totals t = {
		.kprint_records = 7, .kprint_failed = { .full = 1 },
		.printk_plain = 18446744073709551608ULL, .printk_bridged = 1,
		.printk_failed = { .busy = 2, .nomem = 3, .other = 4 }, .printk_unreadable = 5,
		.printk_echo = 6, .handoff_torn = 8, .handoff_switched = 9,
	};
	struct kpc_bpf_hook_status up = { .attached = true };
	struct kpc_bpf_hook_status down = { .attached = false, .why = "no \xff fentry" };
	char *line;

	line = print_put_line(kpc_json_format_summary(KPC_BPF_KPRINT, &t, 3, 4096, &up));
	tap_ok(line && !strcmp(line, "{\"source\":\"kprint\",\"total\":7,\"overflow\":1,"
			       "\"failed\":{\"full\":1,\"busy\":0,\"nomem\":0,\"other\":0},"
			       "\"formats\":3,\"max_formats\":4096,\"attached\":true}\n"),
	       "a source's summary: totals of its hook, formats, max_formats, attached");
	free(line);
	line = print_put_line(kpc_json_format_summary(KPC_BPF_PRINTK, &t, 0, 10, &down));
	tap_ok(line && !strcmp(line, "{\"source\":\"printk\",\"total\":18446744073709551615,"
			       "\"overflow\":14,\"failed\":{\"full\":0,\"busy\":2,\"nomem\":3,"
			       "\"other\":4},\"plain\":18446744073709551608,\"bridged\":1,"
			       "\"echo\":6,\"unreadable\":5,\"handoff_torn\":8,\"handoff_switched\":9,"
			       "\"formats\":0,\"max_formats\":10,"
			       "\"attached\":false,\"skipped\":\"no " FFFD " fentry\"}\n"),
	       "a detached source's summary says why, made valid UTF-8");
	free(line);
	tap_ok(kpc_json_print_put(stdout, NULL) == -ENOMEM,
	       "kpc_json_print_put() of a failed build is -ENOMEM");
}

/* kpc_json_record_write() against json-c, byte for byte. */
static void check_write(const struct kpc_record *rec, const char *what)
{
	struct json_object *obj = oracle_record(rec);
	const char *want = obj ? json_object_to_json_string_ext(obj,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	kpc_json_record_write(f, rec);
	fclose(f);
	tap_ok(want && got && !strcmp(want, got),
	       "kpc_json_record_write() writes what json-c writes: %s", what);
	if (want && got && strcmp(want, got)) {
		size_t i = 0;

		while (want[i] == got[i])
			i++;
		printf("# first difference at byte %zu: json-c '%.20s', ours '%.20s'\n",
		       i, want + i, got + i);
	}
	free(got);
	json_object_put(obj);
}

static void test_record_write(void)
{
	static const char *const weird[] = {
		"", "/", "\x7f\x7e", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "\xe2\x82", "a\x01\x1f" " b", "\\\"\b\f\n\r\t",
	};
	struct kpc_record rec = nasty_record(18446744073709551615ULL,
					     KPRINT_LEVEL_WARNING, KPRINT_CLASS_SETTING);
	unsigned int i;

	check_write(&rec, "every byte 0x01..0xff, quotes, escapes, 64-bit maxima");
	for (i = 0; i < sizeof(weird) / sizeof(weird[0]); i++) {
		rec.text = weird[i];
		rec.args[1] = weird[i];
		check_write(&rec, "a text and an argument of the weird strings");
	}
	rec.nargs = 0;
	rec.seq = 0;
	rec.level = KPRINT_LEVEL_EMERG;
	rec.class = KPRINT_CLASS_NONE;
	rec.facility = 0;
	rec.continues = 0;
	check_write(&rec, "no arguments, zeros");
	rec = printk_record(77);
	check_write(&rec, "a printk record with a device and the cont flag");
	for (i = 0; i < sizeof(weird) / sizeof(weird[0]); i++) {
		rec.device = weird[i];
		check_write(&rec, "a device of the weird strings");
	}
}

/*
 * printk("xxx%cyyy", '\0'): the text and the arg hold a NUL, which the JSON
 * carries as \u0000 and a JSON reader gets back as the byte (issue 26).
 */
static void test_record_inner_nul(void)
{
	struct kpc_record rec = nasty_record(9, KPRINT_LEVEL_INFO, KPRINT_CLASS_NONE);
	struct json_object *obj = NULL, *v, *a;
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	rec.format = "xxx%cyyy";
	rec.text = "xxx\0yyy";
	rec.text_len = 7;
	rec.nargs = 1;
	rec.args[0] = "";
	rec.arg_len[0] = 1;
	kpc_json_record_write_translated(f, &rec, rec.text);
	fclose(f);
	tap_ok(got && strstr(got, ",\"args\":[\"\\u0000\"],\"text\":\"xxx\\u0000yyy\",") &&
	       strstr(got, ",\"text_translated\":\"xxx\\u0000yyy\"}"),
	       "a NUL in the text and an arg is written as \\u0000, the bytes after it too");
	if (got)
		obj = json_tokener_parse(got);
	tap_ok(obj && json_object_object_get_ex(obj, "text", &v) &&
	       json_object_get_string_len(v) == 7 && !memcmp(json_object_get_string(v), "xxx\0yyy", 8) &&
	       json_object_object_get_ex(obj, "args", &a) &&
	       json_object_get_string_len(json_object_array_get_idx(a, 0)) == 1,
	       "json-c reads the NUL back as the byte it was");
	json_object_put(obj);
	free(got);
}

/* A full disk is an error, not a line silently lost. */
static void test_record_print_error(void)
{
	struct kpc_record rec = nasty_record(1, KPRINT_LEVEL_ERR, KPRINT_CLASS_NONE);
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		tap_skip("kpc_json_record_print() on a full device (no /dev/full)");
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	tap_ok(kpc_json_record_print(f, &rec) == -EIO,
	       "kpc_json_record_print() on a full device says -EIO");
	fclose(f);
}

int main(void)
{
	make_nasty();
	test_sanitize();
	test_record();
	test_record_write();
	test_record_inner_nul();
	test_record_print_error();
	test_lost_and_stats();
	test_schema();
	test_format_count();
	test_format_summary();
	return tap_done();
}
