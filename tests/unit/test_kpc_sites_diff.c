// SPDX-License-Identifier: GPL-2.0
/*
 * kpc_sites_diff: two small catalogs made here, compared: added, removed,
 * changed (one to one, the threshold met and missed by one edit), moved
 * (and not moved for a compiler's clone suffix or an unknown function),
 * the image's entries without a function matched by module with the
 * stricter threshold; then the rules files of --rules: matchers and
 * alternations, the line of each id, a problem catalog's JSON lines, and
 * bad files refused with FILE:LINE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprint_fnv1a.h"
#include "kpc_catalog.h"
#include "kpc_sites_diff.h"
#include "test_kpc_tap.h"

static void add(struct kpc_sites *s, const char *format, const char *module,
		const char *function)
{
	struct kpc_site e = {
		.format_id = kprint_fnv1a64_mem(format, strlen(format)),
		.format = (char *)format,
		.level = 6,
		.module = (char *)module,
		.function = (char *)function,
		.kind = KPC_SITE_PRINTK,
		.source = function || strcmp(module, "vmlinux") ? KPC_SITE_SRC_MODULE :
			  KPC_SITE_SRC_IMAGE,
	};

	if (kpc_sites_add(s, &e))
		tap_ok(0, "kpc_sites_add(\"%s\")", format);
}

static uint64_t id_of(const char *format)
{
	return kprint_fnv1a64_mem(format, strlen(format));
}

/* The change that names @old_fmt (or, without one, @new_fmt), or NULL. */
static const struct kpc_sites_delta *find(const struct kpc_sites_diff *d, const char *old_fmt,
					  const char *new_fmt)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct kpc_sites_delta *x = &d->v[i];

		if (old_fmt && x->old && !strcmp(x->old->format, old_fmt))
			return x;
		if (!old_fmt && x->new && !strcmp(x->new->format, new_fmt))
			return x;
	}
	return NULL;
}

static bool is(const struct kpc_sites_delta *x, enum kpc_sites_change change,
	       const char *new_fmt)
{
	if (!x || x->change != change)
		return false;
	return !new_fmt || (x->new && !strcmp(x->new->format, new_fmt));
}

/*
 * OLD and NEW: one thing each of what a diff tells apart.  "ABCDEFGHIJ"
 * and the others are ten bytes, so that each substitution costs 0.1 of
 * similarity: 4 meet KPC_SITES_SIM_FUNCTION (0.6), 5 miss it.
 */
static void build(struct kpc_sites *old, struct kpc_sites *new)
{
	add(old, "driver loaded", "a", "a_init");
	add(new, "driver loaded", "a", "a_init");
	add(old, "moved format %d", "a", "a_probe");
	add(new, "moved format %d", "b", "b_probe");
	add(old, "kept a place %d", "a", "a_init");
	add(old, "kept a place %d", "b", "b_init");
	add(new, "kept a place %d", "a", "a_init");
	add(new, "kept a place %d", "c", "c_init");
	add(old, "cloned %d", "a", "a_reset.isra.0");
	add(new, "cloned %d", "a", "a_reset.constprop.0");
	add(old, "failed to map BAR %d", "a", "a_probe");
	add(new, "failed to map BAR %d: %pe", "a", "a_probe");
	/* one to one: two near texts of OLD, one of NEW; the nearer one takes it */
	add(old, "link up %u Mbps", "a", "a_link");
	add(old, "link up %d Mbps", "a", "a_link");
	add(new, "link up %d Mbps, %s", "a", "a_link");
	/* the threshold, met and missed */
	add(old, "ABCDEFGHIJ", "a", "a_met");
	add(new, "ABCDEFwxyz", "a", "a_met");
	add(old, "KLMNOPQRST", "a", "a_missed");
	add(new, "KLMNOvwxyz", "a", "a_missed");
	/* the same pair in another function: no change */
	add(old, "UVWXYZabcd", "a", "a_one");
	add(new, "UVWXYZabcD", "a", "a_other");
	/* the image without kallsyms on one side: module alone, 0.8 */
	add(old, "0123456789", "vmlinux", NULL);
	add(new, "0123456xyz", "vmlinux", "do_thing");
	add(old, "9876543210", "vmlinux", NULL);
	add(new, "98765432yz", "vmlinux", "do_other");
	add(old, "boot cpu %d", "vmlinux", NULL);
	add(new, "boot cpu %d", "vmlinux", "start_kernel");
	add(old, "gone message", "c", "c_exit");
	add(new, "brand new message", "c", "c_init");
	kpc_sites_sort(old);
	kpc_sites_sort(new);
}

static void test_diff(void)
{
	struct kpc_sites old = { 0 }, new = { 0 };
	struct kpc_sites_diff d;
	const struct kpc_sites_delta *x;
	int ret;

	build(&old, &new);
	ret = kpc_sites_diff(&old, &new, &d);
	tap_ok(ret == 0, "kpc_sites_diff() (%d)", ret);
	tap_ok(d.unchanged == 5, "5 ids in both: unchanged (%zu)", d.unchanged);
	tap_ok(d.count[KPC_SITES_MOVED] == 1 && is(find(&d, "moved format %d", NULL),
						    KPC_SITES_MOVED, "moved format %d"),
	       "an id printed from another module is moved (%zu moved)",
	       d.count[KPC_SITES_MOVED]);
	tap_ok(!find(&d, "cloned %d", NULL) && !find(&d, "boot cpu %d", NULL),
	       "no move for a clone suffix (.isra.0, .constprop.0) or a function unknown on one side");
	tap_ok(!find(&d, "kept a place %d", NULL),
	       "no move for an id that keeps one of its places and changes another");
	x = find(&d, "failed to map BAR %d", NULL);
	tap_ok(is(x, KPC_SITES_CHANGED, "failed to map BAR %d: %pe") &&
	       !strcmp(kpc_sites_delta_module(x), "a") &&
	       !strcmp(kpc_sites_delta_function(x), "a_probe"),
	       "a text with \": %%pe\" added in its function is changed, with module and function");
	tap_ok(is(find(&d, "link up %d Mbps", NULL), KPC_SITES_CHANGED, "link up %d Mbps, %s") &&
	       is(find(&d, "link up %u Mbps", NULL), KPC_SITES_REMOVED, NULL),
	       "one to one: the nearer of two old texts is changed, the other removed");
	x = find(&d, "ABCDEFGHIJ", NULL);
	tap_ok(is(x, KPC_SITES_CHANGED, "ABCDEFwxyz") && x->similarity > 0.59 &&
	       x->similarity < 0.61, "similarity 0.6 (4 of 10 bytes) meets the threshold (%.3f)",
	       x ? x->similarity : -1);
	tap_ok(is(find(&d, "KLMNOPQRST", NULL), KPC_SITES_REMOVED, NULL) &&
	       is(find(&d, NULL, "KLMNOvwxyz"), KPC_SITES_ADDED, NULL),
	       "similarity 0.5 (5 of 10) misses it: removed and added");
	tap_ok(is(find(&d, "UVWXYZabcd", NULL), KPC_SITES_REMOVED, NULL),
	       "a near text in another function of the module is no change");
	x = find(&d, "9876543210", NULL);
	tap_ok(is(x, KPC_SITES_CHANGED, "98765432yz") &&
	       !strcmp(kpc_sites_delta_function(x), "do_other"),
	       "no function on one side: matched by module at 0.8, the function shown is NEW's");
	tap_ok(is(find(&d, "0123456789", NULL), KPC_SITES_REMOVED, NULL),
	       "no function on one side: 0.7 misses the stricter threshold");
	tap_ok(is(find(&d, "gone message", NULL), KPC_SITES_REMOVED, NULL) &&
	       is(find(&d, NULL, "brand new message"), KPC_SITES_ADDED, NULL),
	       "a text of OLD alone is removed, of NEW alone added");
	tap_ok(d.count[KPC_SITES_CHANGED] == 4 && d.count[KPC_SITES_REMOVED] == 5 &&
	       d.count[KPC_SITES_ADDED] == 4 && d.n == 14,
	       "counts: 4 changed, 5 removed, 4 added, 1 moved (%zu, %zu, %zu, %zu)",
	       d.count[KPC_SITES_CHANGED], d.count[KPC_SITES_REMOVED],
	       d.count[KPC_SITES_ADDED], d.count[KPC_SITES_MOVED]);
	tap_ok(d.n > 1 && strcmp(kpc_sites_delta_module(&d.v[0]), "a") == 0 &&
	       strcmp(kpc_sites_delta_module(&d.v[d.n - 1]), "vmlinux") == 0,
	       "changes are ordered by module");
	tap_ok(kpc_sites_diff_gone(&d, id_of("gone message")) &&
	       kpc_sites_diff_gone(&d, id_of("ABCDEFGHIJ")) &&
	       !kpc_sites_diff_gone(&d, id_of("driver loaded")) &&
	       !kpc_sites_diff_gone(&d, id_of("brand new message")),
	       "kpc_sites_diff_gone(): removed and changed ids only");
	kpc_sites_diff_free(&d);
	kpc_sites_free(&old);
	kpc_sites_free(&new);
}

static void test_similarity(void)
{
	double s = kpc_sites_similarity("ABCDEFGHIJ", "ABCDEFwxyz", 0);

	tap_ok(s > 0.59 && s < 0.61, "similarity of 4 substitutions in 10 bytes: %.3f", s);
	tap_ok(kpc_sites_similarity("ABCDEFGHIJ", "ABCDEFwxyz", 0.61) < 0,
	       "below the minimum: -1");
	s = kpc_sites_similarity("kitten", "sitting", 0);
	tap_ok(s > 0.57 && s < 0.58, "kitten/sitting: 3 edits of 7 (%.3f)", s);
	s = kpc_sites_similarity("abc", "", 0);
	tap_ok(s == 0, "against an empty text: 0 (%.3f)", s);
}

static void count_left(void *ctx, const char *format, const char *why)
{
	(void)format;
	(void)why;
	(*(int *)ctx)++;
}

/* kprint formats --pot --sites: one entry per format, its places and its id. */
static void test_pot(void)
{
	struct kpc_sites s = { 0 };
	char *buf = NULL, *p, want[256];
	size_t len = 0;
	int left = 0, ret, msgids = 0;
	FILE *f;

	add(&s, "link up %d Mbps", "e1000e", "e1000_watchdog");
	add(&s, "link up %d Mbps", "igb", "igb_watchdog_task");
	add(&s, "boot cpu %d", "vmlinux", NULL);
	add(&s, "bad %f", "a", "a_init");
	kpc_sites_sort(&s);
	f = open_memstream(&buf, &len);
	ret = kpc_catalog_pot_sites(f, &s, 1700000000, count_left, &left);
	fclose(f);
	for (p = buf; p && (p = strstr(p, "\nmsgid ")); p++)
		msgids++;
	tap_ok(ret == 0 && msgids == 3 && left == 1,
	       "a template of a catalog: the header and one msgid per format, the invalid one left"
	       " out (%d msgids, %d left out)", msgids, left);
	snprintf(want, sizeof(want), "#. kprint: level info, format_id %016llx, 2 call sites\n"
		 "#: e1000e:e1000_watchdog igb:igb_watchdog_task\n#, c-format\n"
		 "msgid \"link up %%d Mbps\"\n", (unsigned long long)id_of("link up %d Mbps"));
	tap_ok(buf && strstr(buf, want) &&
	       strstr(buf, "#: vmlinux\n#, c-format\nmsgid \"boot cpu %d\""),
	       "each entry: its level and format_id, its places as module:function");
	free(buf);
	kpc_sites_free(&s);
}

/* @text written to a file in @dir, its path in @path. */
static int write_file(const char *dir, const char *name, const char *text, char *path,
		      size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		tap_ok(0, "write %s", path);
		return -1;
	}
	return 0;
}

/* The refs of @r that name @rule, as "ID@LINE ID@LINE". */
static const char *refs_of(const struct kpc_sites_rules *r, const char *rule)
{
	static char buf[512];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].rule, rule))
			len += snprintf(buf + len, sizeof(buf) - len, "%s%016llx@%u",
					len ? " " : "", (unsigned long long)r->v[i].format_id,
					r->v[i].line);
	return buf;
}

static void test_rules(const char *dir)
{
	static const char yaml[] =
		"groups:\n"
		"  - name: kernel\n"
		"    rules:\n"
		"      - alert: DiskGone\n"
		"        expr: rate(kprint_format_messages_total{format_id=\"0123456789abcdef\"}[5m]) > 0\n"
		"      - record: pair:rate5m\n"
		"        expr: |\n"
		"          sum by (format_id) (\n"
		"            rate(kprint_format_messages_total{format_id=~\"^(1111111111111111|2222222222222222)$\"}[5m])\n"
		"            or rate(kprint_format_messages_total{format_id=\"5555555555555555\"}[5m]))\n"
		"      - alert: NotLiteral\n"
		"        expr: kprint_format_messages_total{format_id=~\"4ae6.*\", format_id!=\"3333333333333333\"} > 0\n"
		"  - name: empty\n";
	static const char tab[] = "groups:\n  - name: t\n    rules:\n\t- alert: X\n";
	static const char noexpr[] = "groups:\n  - name: t\n    rules:\n      - alert: X\n        for: 5m\n";
	static const char jsonl[] = "{\"id\":\"disk-gone\",\"format_id\":\"0123456789abcdef\"}\n\n"
				    "{\"format_id\":\"4444444444444444\"}\n";
	static const char badjson[] = "{\"format_id\":\"0123456789abcdef\"}\n{\"format_id\":\"12\"}\n";
	struct kpc_sites_rules r;
	char path[512], err[512];
	int ret;

	if (write_file(dir, "rules.yml", yaml, path, sizeof(path)))
		return;
	ret = kpc_sites_rules_load(path, &r, err, sizeof(err));
	tap_ok(ret == 0, "a rules file is read (%s)", ret ? err : "ok");
	if (!ret) {
		tap_ok(!strcmp(refs_of(&r, "DiskGone"), "0123456789abcdef@5") &&
		       !strcmp(r.v[0].kind, "alert"),
		       "format_id=\"ID\" of an alert, on its line (%s)", refs_of(&r, "DiskGone"));
		tap_ok(!strcmp(refs_of(&r, "pair:rate5m"),
			       "1111111111111111@9 2222222222222222@9 5555555555555555@10"),
		       "format_id=~\"^(A|B)$\" of a record, each on its line (%s)",
		       refs_of(&r, "pair:rate5m"));
		tap_ok(r.n == 4 && r.not_literal == 1,
		       "a regex that is no literal id is counted, != is no reference (%zu refs, %zu)",
		       r.n, r.not_literal);
		kpc_sites_rules_free(&r);
	}

	write_file(dir, "tab.yml", tab, path, sizeof(path));
	ret = kpc_sites_rules_load(path, &r, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "tab.yml:4: "), "bad YAML refused with FILE:LINE (%s)",
	       err);
	write_file(dir, "noexpr.yml", noexpr, path, sizeof(path));
	ret = kpc_sites_rules_load(path, &r, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "noexpr.yml:4: alert X: expr wants a string"),
	       "a rule without expr refused (%s)", err);
	write_file(dir, "problems.jsonl", jsonl, path, sizeof(path));
	ret = kpc_sites_rules_load(path, &r, err, sizeof(err));
	tap_ok(ret == 0 && r.n == 2 && !strcmp(refs_of(&r, "disk-gone"), "0123456789abcdef@1") &&
	       !strcmp(refs_of(&r, "line 3"), "4444444444444444@3") && !strcmp(r.v[0].kind, "problem"),
	       "a problem catalog's JSON lines: format_id, its id or its line (%s)",
	       ret ? err : "ok");
	if (!ret)
		kpc_sites_rules_free(&r);
	write_file(dir, "bad.jsonl", badjson, path, sizeof(path));
	ret = kpc_sites_rules_load(path, &r, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, "bad.jsonl:2: format_id wants 16 hex digits"),
	       "a problem catalog's bad line refused with FILE:LINE (%s)", err);
	ret = kpc_sites_rules_load("/nonexistent/rules.yml", &r, err, sizeof(err));
	tap_ok(ret == -ENOENT && strstr(err, "/nonexistent/rules.yml: "),
	       "a missing file says so (%s)", err);
}

int main(void)
{
	char dir[] = "/tmp/test_kpc_sites_diff.XXXXXX", cmd[600];

	test_similarity();
	test_diff();
	test_pot();
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp");
		return tap_done();
	}
	test_rules(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_ok(0, "remove %s", dir);
	return tap_done();
}
