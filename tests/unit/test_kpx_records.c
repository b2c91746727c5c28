// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_exporter's pieces that need no kernel: the recent-records store
 * (wrapping, paging with after=, the most recent without it), /records
 * parameter checking, and the Prometheus label escaping, the labels of the
 * per-format series and their cap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kpx_metrics.h"
#include "kpx_query.h"
#include "kpx_store.h"
#include "test_kpc_tap.h"

static struct kpc_record *mk(uint64_t seq, unsigned int level, const char *fmt,
			     const char *subsystem)
{
	struct kpc_record r = {
		.seq = seq, .level = level, .class = KPRINT_CLASS_NONE,
		.comm = "t", .file = "", .function = "", .subsystem = subsystem,
		.module = "m", .format = fmt, .format_id = kpc_format_id(fmt),
		.text = fmt, .device = "",
	};

	return kpc_record_dup(&r);
}

/* The seqs of a /records answer, or -1 when it does not parse. */
static int seqs(char *json, uint64_t *out, int max)
{
	struct json_object *arr = json_tokener_parse(json);
	int i, n;

	free(json);
	if (!arr || !json_object_is_type(arr, json_type_array))
		return -1;
	n = json_object_array_length(arr);
	for (i = 0; i < n && i < max; i++) {
		struct json_object *seq;

		json_object_object_get_ex(json_object_array_get_idx(arr, i), "seq", &seq);
		out[i] = json_object_get_uint64(seq);
	}
	json_object_put(arr);
	return n;
}

static int param(struct kpx_query *q, const char *name, const char *value)
{
	char err[128];

	return kpx_query_param(q, name, value, value ? strlen(value) : 0, err, sizeof(err));
}

static void test_store(void)
{
	struct kpx_store s;
	struct kpx_query q;
	struct kpc_record *batch[120];
	uint64_t got[200], after = 0, next = 71;
	int i, n, pages = 0;
	bool ok = true;

	kpx_store_init(&s, 50);
	for (i = 0; i < 120; i++)
		batch[i] = mk(i + 1, i % 8, i % 2 ? "odd %d" : "even %d", "sub");
	kpx_store_add(&s, batch, 120);
	tap_ok(s.n == 50 && s.received == 120, "the store keeps the last 50 of 120");

	kpx_query_init(&q);
	n = seqs(kpx_records_json(&s, &q, NULL), got, 200);
	tap_ok(n == KPX_LIMIT_DEFAULT || (n == 50 && got[0] == 71 && got[49] == 120),
	       "without after: all 50 kept, oldest first (%d)", n);

	param(&q, "limit", "5");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 200);
	tap_ok(n == 5 && got[0] == 116 && got[4] == 120,
	       "without after, limit=5: the 5 most recent, oldest first");

	/* Page 7 at a time from before the oldest kept. */
	for (;;) {
		kpx_query_init(&q);
		param(&q, "limit", "7");
		q.has_after = true;
		q.after = after;
		n = seqs(kpx_records_json(&s, &q, NULL), got, 200);
		if (n <= 0 || ++pages > 20)
			break;
		for (i = 0; i < n; i++)
			ok &= got[i] == next++;
		after = got[n - 1];
	}
	tap_ok(ok && next == 121 && n == 0, "paging by after= loses and repeats nothing");

	kpx_query_init(&q);
	param(&q, "level", "err+");
	param(&q, "q", "odd");
	param(&q, "limit", "1000");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 200);
	ok = n > 0;
	for (i = 0; i < n; i++)
		ok &= (got[i] - 1) % 8 <= 3 && (got[i] - 1) % 2 == 1;
	tap_ok(ok && n == 12, "level=err+&q=odd: exactly the matching records (%d)", n);

	/* More than the store holds in one batch: the last cap stay. */
	for (i = 0; i < 120; i++)
		batch[i] = mk(1000 + i, 3, "again", "");
	kpx_store_add(&s, batch, 120);
	kpx_query_init(&q);
	param(&q, "limit", "1000");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 200);
	tap_ok(n == 50 && got[0] == 1070 && got[49] == 1119,
	       "a batch bigger than the store keeps its last records");
	kpx_store_fini(&s);
}

static void test_params(void)
{
	static const struct { const char *name, *value; int ok; } cases[] = {
		{ "level", "err", 1 }, { "level", "err+", 1 }, { "level", "loud", 0 },
		{ "level", "", 0 }, { "level", NULL, 0 },
		{ "class", "detected", 1 }, { "class", "x", 0 },
		{ "subsystem", "usb", 1 }, { "module", "", 1 },
		{ "format_id", "0123456789abcdef", 1 }, { "format_id", "0123456789ABCDEF", 1 },
		{ "format_id", "0123", 0 }, { "format_id", "0123456789abcdeg", 0 },
		{ "format_id", "-123456789abcdef", 0 },
		{ "after", "0", 1 }, { "after", "18446744073709551615", 1 },
		{ "after", "18446744073709551616", 0 }, { "after", "-1", 0 },
		{ "after", "12x", 0 }, { "after", " 1", 0 }, { "after", "", 0 },
		{ "limit", "1", 1 }, { "limit", "1000", 1 }, { "limit", "0", 0 },
		{ "limit", "1001", 0 }, { "limit", "-5", 0 }, { "limit", "+5", 0 },
		{ "limit", "99999999999999999999", 0 },
		{ "q", "", 1 }, { "bogus", "1", 0 },
		{ "source", "printk", 1 }, { "source", "kprint", 1 },
		{ "source", "kprint,printk", 1 }, { "source", "", 0 }, { "source", "all", 0 },
		{ "source", "printk,", 0 }, { "source", "PRINTK", 0 }, { "source", NULL, 0 },
		{ "device", "+pci:0000:00:19.0", 1 }, { "device", "", 1 },
		{ "device", "b8:0", 1 },
		{ "device", "01234567890123456789012345678901234567890123456", 1 },
		{ "device", "012345678901234567890123456789012345678901234567", 0 },
	};
	struct kpx_query q;
	char err[128];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kpx_query_init(&q);
		err[0] = '\0';
		tap_ok((param(&q, cases[i].name, cases[i].value) == 0) == cases[i].ok,
		       "%s=%s is %s", cases[i].name,
		       cases[i].value ? cases[i].value : "(no value)",
		       cases[i].ok ? "accepted" : "rejected");
	}
	kpx_query_init(&q);
	tap_ok(kpx_query_param(&q, "level", "err\0x", 5, err, sizeof(err)) == -EINVAL &&
	       err[0], "a value with a NUL inside is rejected, with a reason");
}

static char *render(void (*fn)(FILE *, void *), void *arg)
{
	return tap_capture(f, fn(f, arg));
}

static void esc(FILE *f, void *arg)
{
	kpx_label_escape(f, arg);
}

static void cap3(FILE *f, void *arg)
{
	kpx_metrics_formats(f, "kprint", arg, 5, 3);
}

static void all_kprint(FILE *f, void *arg)
{
	kpx_metrics_formats(f, "kprint", arg, 4, 100);
}

static void one_printk(FILE *f, void *arg)
{
	kpx_metrics_formats(f, "printk", arg, 1, 100);
}

static struct kpc_format_count fc_of(uint64_t format_id, uint64_t tags_id, unsigned int level,
				     unsigned int class, const char *subsystem,
				     const char *module, const char *format, uint64_t count)
{
	struct kpc_format_count f = {
		.format_id = format_id, .tags_id = tags_id, .level = level,
		.class = class, .count = count,
	};

	snprintf(f.subsystem, sizeof(f.subsystem), "%s", subsystem);
	snprintf(f.module, sizeof(f.module), "%s", module);
	snprintf(f.format, sizeof(f.format), "%s", format);
	return f;
}

/* The label names of every sample line of s, in order, as one string each. */
static int same_label_names(const char *s, const char *want)
{
	const char *line = s;
	int n = 0;

	while (*line) {
		const char *end = strchr(line, '\n'), *p = strchr(line, '{');
		char names[256] = "";
		size_t len = 0;

		if (!end || !p || p > end)
			return -1;
		/* Label values are quoted and may hold escaped quotes. */
		for (p++; *p != '}'; p++) {
			const char *eq = strchr(p, '=');

			if (!eq || eq[1] != '"' || len + (eq - p) + 2 > sizeof(names))
				return -1;
			len += snprintf(names + len, sizeof(names) - len, "%.*s,", (int)(eq - p), p);
			for (p = eq + 2; *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p[1] == ',')
				p++;
		}
		if (strcmp(names, want))
			return -1;
		n++;
		line = end + 1;
	}
	return n;
}

static void test_metrics(void)
{
	struct kpc_format_count fc[5];
	char *s;
	int i;

	s = render(esc, "a\"b\\c\nd \xff\xc3\xa9 \xe2\x82");
	tap_ok(!strcmp(s, "a\\\"b\\\\c\\nd \xef\xbf\xbd\xc3\xa9 \xef\xbf\xbd"),
	       "label values: quote, backslash, newline escaped; invalid UTF-8 replaced");
	free(s);

	memset(fc, 0, sizeof(fc));
	for (i = 0; i < 5; i++) {
		fc[i].format_id = i;
		fc[i].level = 3;
		fc[i].count = 10 * (i + 1);
		snprintf(fc[i].format, sizeof(fc[i].format), "f%d", i);
	}
	s = render(cap3, fc);
	tap_ok(strstr(s, "format=\"f4\"} 50\n") && strstr(s, "format=\"f2\"} 30\n") &&
	       !strstr(s, "format=\"f1\"") &&
	       strstr(s, "format=\"__overflow__\"} 30\n"),
	       "--max-series 3: the 3 biggest, the other 2 summed as __overflow__");
	free(s);
}

static void test_metrics_labels(void)
{
	static const char names[] = "source,format_id,level,class,subsystem,module,format,";
	struct kpc_format_count fc[5];
	char *s;

	/* One format from two modules, and a third subsystem at another class. */
	fc[0] = fc_of(0x2a, 1, KPRINT_LEVEL_INFO, KPRINT_CLASS_NONE, "kprint-test",
		      "kprint_test", "same %d", 5);
	fc[1] = fc_of(0x2a, 2, KPRINT_LEVEL_INFO, KPRINT_CLASS_NONE, "", "user", "same %d", 3);
	fc[2] = fc_of(0x2a, 3, KPRINT_LEVEL_INFO, KPRINT_CLASS_DETECTED, "usb-storage",
		      "kprint_demo", "same %d", 2);
	fc[3] = fc_of(0x2b, 4, KPRINT_LEVEL_ERR, KPRINT_CLASS_COPYRIGHT, "q\"b\\n\nx",
		      "m\xff", "other", 1);
	s = render(all_kprint, fc);
	tap_ok(strstr(s, "kprint_format_messages_total{source=\"kprint\",format_id=\"000000000000002a\","
		      "level=\"info\",class=\"none\",subsystem=\"kprint-test\",module=\"kprint_test\","
		      "format=\"same %d\"} 5\n") &&
	       strstr(s, "kprint_format_messages_total{source=\"kprint\",format_id=\"000000000000002a\","
		      "level=\"info\",class=\"none\",subsystem=\"\",module=\"user\","
		      "format=\"same %d\"} 3\n"),
	       "one format from two modules: two series, each with its module, subsystem and count");
	tap_ok(strstr(s, "level=\"info\",class=\"detected\",subsystem=\"usb-storage\","
		      "module=\"kprint_demo\",format=\"same %d\"} 2\n") != NULL,
	       "class is a label, by name");
	tap_ok(strstr(s, "level=\"err\",class=\"copyright\",subsystem=\"q\\\"b\\\\n\\nx\","
		      "module=\"m\xef\xbf\xbd\",format=\"other\"} 1\n") != NULL,
	       "subsystem and module are escaped like format; invalid UTF-8 replaced");
	tap_ok(same_label_names(s, names) == 4,
	       "every kprint series has the labels %.*s in this order", (int)sizeof(names) - 2, names);
	free(s);

	fc[0] = fc_of(0x2c, 0, KPRINT_LEVEL_WARNING, KPRINT_CLASS_NONE, "", "", "%s\n", 9);
	s = render(one_printk, fc);
	tap_ok(!strcmp(s, "kprint_format_messages_total{source=\"printk\",format_id=\"000000000000002c\","
		       "level=\"warn\",class=\"none\",subsystem=\"\",module=\"\",format=\"%s\\n\"} 9\n"),
	       "printk series: class none, empty subsystem and module, the same label names");
	free(s);

	for (int i = 0; i < 5; i++)
		fc[i] = fc_of(i, 100 + i, KPRINT_LEVEL_ERR, KPRINT_CLASS_SETTING, "sub", "mod",
			      "f", 10 * (i + 1));
	s = render(cap3, fc);
	tap_ok(strstr(s, "kprint_format_messages_total{source=\"kprint\",format_id=\"\",level=\"\","
		      "class=\"\",subsystem=\"\",module=\"\",format=\"__overflow__\"} 30\n") &&
	       same_label_names(s, names) == 4,
	       "the overflow series has every label, empty but the format");
	free(s);
}

/* source= and device= over a store of kprint and bridged records. */
static void test_source_device(void)
{
	static const char *const devices[] = { "", "+pci:0000:00:19.0", "b8:0" };
	struct kpc_record *batch[12];
	struct kpx_store s;
	struct kpx_query q;
	uint64_t got[16];
	char err[128];
	int i, n;
	bool ok;

	kpx_store_init(&s, 16);
	for (i = 0; i < 12; i++) {
		struct kpc_record r = {
			.seq = i + 1, .level = KPRINT_LEVEL_INFO, .comm = "t", .file = "",
			.function = "", .subsystem = "", .module = "vmlinux", .format = "f",
			.format_id = kpc_format_id("f"), .text = "f",
			/* Every third a kprint record, the others bridged. */
			.source = i % 3 ? KPRINT_SOURCE_PRINTK : KPRINT_SOURCE_KPRINT,
			.device = i % 3 ? devices[i % 2 + 1] : "",
		};

		batch[i] = kpc_record_dup(&r);
	}
	kpx_store_add(&s, batch, 12);

	kpx_query_init(&q);
	param(&q, "source", "printk");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	ok = n == 8;
	for (i = 0; ok && i < n; i++)
		ok = (got[i] - 1) % 3 != 0;
	tap_ok(ok, "source=printk: the 8 bridged records (%d)", n);

	kpx_query_init(&q);
	param(&q, "source", "kprint");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	tap_ok(n == 4 && got[0] == 1 && got[1] == 4 && got[2] == 7 && got[3] == 10,
	       "source=kprint: the 4 kprint records (%d)", n);

	kpx_query_init(&q);
	param(&q, "source", "kprint,printk");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	tap_ok(n == 12, "source=kprint,printk: all 12 (%d)", n);

	kpx_query_init(&q);
	param(&q, "device", "b8:0");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	ok = n == 4;
	for (i = 0; ok && i < n; i++)
		ok = (got[i] - 1) % 3 && (got[i] - 1) % 2 == 1;
	tap_ok(ok, "device=b8:0: exactly that device's 4 records (%d)", n);

	kpx_query_init(&q);
	param(&q, "device", "");
	param(&q, "source", "printk");
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	tap_ok(n == 0, "device=&source=printk: every bridged record here has a device (%d)", n);

	kpx_query_init(&q);
	tap_ok(kpx_query_param(&q, "source", "kernel", 6, err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, "source is kprint or printk, comma-separated"),
	       "source=kernel is refused with its reason (%s)", err);
	tap_ok(kpx_query_param(&q, "device", "012345678901234567890123456789012345678901234567",
			       48, err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, "device is at most 47 bytes"),
	       "a device of 48 bytes is refused with its reason (%s)", err);
	kpx_store_fini(&s);
}

/* after= binary-searches records in order and scans those that are not. */
static void test_store_order(void)
{
	static const uint64_t replayed[] = { 5, 3, 9, 1, 7 };
	struct kpx_store s;
	struct kpx_query q;
	struct kpc_record *batch[5];
	uint64_t got[16];
	int i, n;

	kpx_store_init(&s, 4);
	for (i = 0; i < 5; i++)
		batch[i] = mk(replayed[i], 3, "r", "");
	kpx_store_add(&s, batch, 5);
	kpx_query_init(&q);
	q.has_after = true;
	q.after = 4;
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	tap_ok(s.descents == 1 && n == 2 && got[0] == 9 && got[1] == 7,
	       "out of order (3 9 1 7 kept): after=4 is 9 then 7 (%d found)", n);

	/* Evicting the disorder makes the store ordered again. */
	for (i = 0; i < 4; i++)
		batch[i] = mk(10 + i, 3, "r", "");
	kpx_store_add(&s, batch, 4);
	q.after = 11;
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	tap_ok(s.descents == 0 && n == 2 && got[0] == 12 && got[1] == 13,
	       "in order again (10..13): after=11 is 12 and 13 (%d found)", n);
	q.after = 0;
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	tap_ok(n == 4 && got[0] == 10, "after=0 is all four, from 10");
	q.after = 13;
	n = seqs(kpx_records_json(&s, &q, NULL), got, 16);
	tap_ok(n == 0, "after= the newest is nothing");
	kpx_store_fini(&s);
}

/*
 * Ingest copies the next records into those the store no longer keeps
 * (issue 31): the store hands back exactly the ones it pushed out.
 */
static void test_store_recycle(void)
{
	struct kpc_record *batch[6], *old[6];
	uint32_t rooms[6], old_rooms[6];
	struct kpx_store s;
	size_t nold;
	int i;

	kpx_store_init(&s, 4);
	for (i = 0; i < 3; i++) {
		batch[i] = mk(i + 1, 3, "r", "");
		rooms[i] = 1000 + i;
	}
	nold = kpx_store_add_recycle(&s, batch, rooms, NULL, 3, old, old_rooms);
	tap_ok(nold == 0 && s.n == 3, "nothing pushed out while there is room");
	for (i = 0; i < 3; i++) {
		batch[i] = mk(i + 4, 3, "r", "");
		rooms[i] = 2000 + i;
	}
	nold = kpx_store_add_recycle(&s, batch, rooms, NULL, 3, old, old_rooms);
	tap_ok(nold == 2 && old[0]->seq == 1 && old[1]->seq == 2 && s.n == 4 &&
	       s.received == 6 && kpx_store_at(&s, 2)->seq == 3,
	       "the two oldest come back, in order, and the store keeps 3..6 (%zu back)", nold);
	tap_ok(nold == 2 && old_rooms[0] == 1000 && old_rooms[1] == 1001,
	       "each comes back with the room it was added with (%u, %u)",
	       old_rooms[0], old_rooms[1]);
	for (i = 0; i < (int)nold; i++)
		kpc_record_free(old[i]);
	/* Added without rooms (--replay's way): they come back unknown, 0. */
	for (i = 0; i < 2; i++)
		batch[i] = mk(i + 7, 3, "r", "");
	kpx_store_add(&s, batch, 2);
	for (i = 0; i < 2; i++)
		batch[i] = mk(i + 9, 3, "r", "");
	nold = kpx_store_add_recycle(&s, batch, rooms, NULL, 2, old, old_rooms);
	tap_ok(nold == 2 && old[0]->seq == 5 && old_rooms[0] == 2001 && old[1]->seq == 6 &&
	       old_rooms[1] == 2002, "records added with rooms keep them past other adds");
	for (i = 0; i < (int)nold; i++)
		kpc_record_free(old[i]);
	for (i = 0; i < 2; i++)
		batch[i] = mk(i + 11, 3, "r", "");
	nold = kpx_store_add_recycle(&s, batch, rooms, NULL, 2, old, old_rooms);
	tap_ok(nold == 2 && old[0]->seq == 7 && old_rooms[0] == 0 && old_rooms[1] == 0,
	       "records added without rooms come back with 0, not known");
	for (i = 0; i < (int)nold; i++)
		kpc_record_free(old[i]);
	kpx_store_fini(&s);
}

int main(void)
{
	test_store();
	test_store_order();
	test_store_recycle();
	test_params();
	test_source_device();
	test_metrics();
	test_metrics_labels();
	return tap_done();
}
