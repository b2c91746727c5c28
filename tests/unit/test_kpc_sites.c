// SPDX-License-Identifier: GPL-2.0
/*
 * The call-site catalog without a kernel: kpc_sites_strip() as the printk
 * bridge strips a format, entries added, sorted, merged and found, the
 * file written and read back with odd bytes in a format (the id of the raw
 * bytes kept), bad files refused with FILE:LINE: reason, the printk
 * index's lines in the form of Documentation/core-api/printk-index.rst, and
 * kpc_sites_build() joining an image, a module tree and an index.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kprint_fnv1a.h"
#include "kpc_sites_scan.h"
#include "test_kpc_tap.h"

static char tmpdir[] = "/tmp/test_kpc_sites.XXXXXX";

static void check_strip(const char *what, const char *s, size_t n, int want_level,
			const char *want)
{
	const char *fmt;
	size_t len;
	int level = kpc_sites_strip(s, n, &fmt, &len);

	tap_ok(level == want_level && len == strlen(want) && !memcmp(fmt, want, len),
	       "strip %s: level %d, \"%.*s\" (want %d, \"%s\")", what, level, (int)len, fmt,
	       want_level, want);
}

static void test_strip(void)
{
	static const char unterminated[] = { '\001', '3', 'a', 'b', '\n', 'X' };

	check_strip("one SOH pair", "\0016brd: module loaded\n", 21, 6, "brd: module loaded");
	check_strip("two pairs, the first level wins", "\0013\0016x\n", 6, 3, "x");
	check_strip("KERN_CONT then a level", "\001c\0014late\n", 9, 4, "late");
	check_strip("KERN_CONT alone", "\001cmore", 6, KPC_SITE_LEVEL_CONT, "more");
	/* KERN_DEFAULT is "" since 5.x: printk_get_level() takes no 'd'. */
	check_strip("SOH d is text", "\001dx", 3, KPC_SITE_LEVEL_NONE, "\001dx");
	check_strip("no pair", "plain %s\n", 9, KPC_SITE_LEVEL_NONE, "plain %s");
	check_strip("one trailing newline only", "\0015a\n\n", 5, 5, "a\n");
	check_strip("SOH without a level is text", "\001x\n", 3, KPC_SITE_LEVEL_NONE, "\001x");
	check_strip("not NUL-terminated", unterminated, 5, 3, "ab");
}

static struct kpc_site site(const char *fmt, const char *module, const char *function,
			    enum kpc_site_source src)
{
	return (struct kpc_site){
		.format_id = kprint_fnv1a64(fmt), .format = (char *)fmt, .level = 6,
		.module = (char *)module, .function = (char *)function,
		.kind = KPC_SITE_PRINTK, .source = src,
	};
}

static void test_add_sort_find(void)
{
	struct kpc_sites s = { 0 };
	struct kpc_site e;
	const struct kpc_site *f;
	bool sorted = true;
	size_t i, same = 0;

	e = site("module unloaded", "brd", "brd_exit", KPC_SITE_SRC_MODULE);
	kpc_sites_add(&s, &e);
	e = site("alpha", "vmlinux", NULL, KPC_SITE_SRC_IMAGE);
	kpc_sites_add(&s, &e);
	/* The same site twice: one kept, with the file and level of either. */
	e = site("module unloaded", "brd", "brd_exit", KPC_SITE_SRC_MODULE);
	e.level = KPC_SITE_LEVEL_NONE;
	e.file = "drivers/block/brd.c";
	e.line = 502;
	kpc_sites_add(&s, &e);
	/* From another function and from the index: entries of their own. */
	e = site("module unloaded", "brd", "brd_cleanup", KPC_SITE_SRC_MODULE);
	kpc_sites_add(&s, &e);
	e = site("module unloaded", "brd", "brd_exit", KPC_SITE_SRC_INDEX);
	kpc_sites_add(&s, &e);
	tap_ok(s.n == 5, "five entries added (%zu)", s.n);
	kpc_sites_add_found(&s, "zeta\0hidden", 11, 4, "m", NULL, KPC_SITE_PRINTK,
			    KPC_SITE_SRC_MODULE);
	tap_ok(s.n == 5, "a format with a NUL inside is refused");
	kpc_sites_sort(&s);
	tap_ok(s.n == 4, "sort merged the one duplicate (%zu left)", s.n);
	for (i = 1; i < s.n; i++)
		sorted &= s.v[i - 1].format_id <= s.v[i].format_id;
	tap_ok(sorted, "sorted by format_id");
	f = kpc_sites_find(&s, kprint_fnv1a64("module unloaded"));
	tap_ok(f && (f == s.v || f[-1].format_id != f->format_id),
	       "find gives the first entry of an id");
	for (i = 0; f && f + i < s.v + s.n && f[i].format_id == f->format_id; i++)
		same++;
	tap_ok(same == 3, "three entries share it (%zu)", same);
	for (i = 0; f && i < same; i++)
		if (f[i].source == KPC_SITE_SRC_MODULE && f[i].function &&
		    !strcmp(f[i].function, "brd_exit"))
			tap_ok(f[i].file && f[i].line == 502 && f[i].level == 6,
			       "the merged entry kept the file, line and level");
	tap_ok(!kpc_sites_find(&s, kprint_fnv1a64("never said")), "an unknown id is not found");
	kpc_sites_free(&s);
}

static void test_round_trip(void)
{
	static const char *const odd[] = {
		"tab\there \"quoted\" back\\slash",
		"escape \x1b[1m and DEL \x7f",
		"caf\xc3\xa9 %s",
		"ill-formed \xff\xfe byte",
	};
	struct kpc_sites s = { 0 }, back;
	struct kpc_site e;
	char dir[512], path[600], err[512];
	struct stat st;
	size_t i;
	bool ok;
	DIR *d;
	struct dirent *de;
	unsigned int files = 0;

	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		e = site(odd[i], "m", i ? "f" : NULL, KPC_SITE_SRC_MODULE);
		e.level = i ? (int)i : KPC_SITE_LEVEL_NONE;
		e.kind = i % KPC_SITE_KIND_MAX;
		kpc_sites_add(&s, &e);
	}
	e = site("from the index", "vmlinux", "fn", KPC_SITE_SRC_INDEX);
	e.file = "kernel/x.c";
	e.line = 77;
	kpc_sites_add(&s, &e);
	kpc_sites_sort(&s);
	s.kernel = strdup("6.1.0-57-amd64");
	s.image = strdup("/boot/vmlinuz-6.1.0-57-amd64");
	s.built = strdup("2026-12-06T04:00:00Z");
	s.modules = 3;
	s.kallsyms = true;
	s.seconds = 1.25;
	snprintf(dir, sizeof(dir), "%s/new/dir", tmpdir);
	snprintf(path, sizeof(path), "%s/6.1.0-57-amd64.jsonl", dir);
	tap_ok(!kpc_sites_write(&s, path, err, sizeof(err)), "written, directories made (%s)",
	       err);
	tap_ok(!stat(path, &st) && (st.st_mode & 0777) == 0644, "the file is 0644");
	d = opendir(dir);
	while (d && (de = readdir(d)))
		files += de->d_name[0] != '.';
	if (d)
		closedir(d);
	tap_ok(files == 1, "no temporary file left beside it (%u files)", files);
	tap_ok(!kpc_sites_load(path, &back, err, sizeof(err)), "loaded back (%s)", err);
	tap_ok(back.n == s.n && !strcmp(back.kernel, s.kernel) && back.modules == 3 &&
	       back.kallsyms && !back.printk_index && !strcmp(back.image, s.image),
	       "the header came back");
	for (i = 0, ok = back.n == s.n; ok && i < s.n; i++) {
		const struct kpc_site *a = &s.v[i], *b = &back.v[i];
		bool clean = !strchr(a->format, '\xff');

		ok = a->format_id == b->format_id && a->level == b->level &&
		     a->kind == b->kind && a->source == b->source && !strcmp(a->module, b->module) &&
		     (a->function ? b->function && !strcmp(a->function, b->function) :
				    !b->function) &&
		     (clean ? !strcmp(a->format, b->format) : !!strstr(b->format, "\xef\xbf\xbd")) &&
		     (a->file ? b->file && !strcmp(a->file, b->file) && b->line == a->line :
				!b->file);
		if (!ok)
			printf("# entry %zu differs: \"%s\"\n", i, a->format);
	}
	tap_ok(ok, "every entry came back, the ill-formed byte as U+FFFD with its raw id");
	kpc_sites_free(&back);
	kpc_sites_free(&s);
}

#define HEAD "{\"kprint_sites\":1,\"kernel\":\"k\",\"entries\":%d}\n"
#define ENTRY(fmt, id) "{\"format_id\":\"" id "\",\"format\":\"" fmt "\",\"level\":\"info\"," \
	"\"module\":\"brd\",\"function\":null,\"kind\":\"printk\",\"source\":\"module\"}\n"
/* FNV-1a 64 of "a" and of "b". */
#define ID_A "af63dc4c8601ec8c"
#define ID_B "af63df4c8601f1a5"

static void check_load(const char *what, const char *text, int entries, const char *want)
{
	struct kpc_sites s;
	char path[512], err[512], expect[600];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/bad.jsonl", tmpdir);
	f = fopen(path, "w");
	fprintf(f, text, entries);
	fclose(f);
	ret = kpc_sites_load(path, &s, err, sizeof(err));
	if (!want) {
		tap_ok(!ret, "%s: accepted (%s)", what, ret ? err : "");
		if (!ret)
			kpc_sites_free(&s);
		return;
	}
	snprintf(expect, sizeof(expect), "%s:%s", path, want);
	tap_ok(ret == -EINVAL && !strncmp(err, expect, strlen(expect)),
	       "%s: refused with \"%s\" (%s)", what, want, ret ? err : "accepted");
}

static void test_refused(void)
{
	tap_ok(kprint_fnv1a64("b") == 0xaf63df4c8601f1a5ULL, "ID_B is the hash of \"b\"");
	check_load("a good file", HEAD ENTRY("a", ID_A) ENTRY("b", ID_B), 2, NULL);
	check_load("unknown keys", "{\"kprint_sites\":1,\"kernel\":\"k\",\"entries\":%d,"
		   "\"new\":[1]}\n{\"future\":true,\"format_id\":\"" ID_A "\",\"format\":\"a\","
		   "\"level\":null,\"module\":\"brd\",\"function\":\"f\",\"kind\":\"dev\","
		   "\"source\":\"module\"}\n", 1, NULL);
	check_load("another version", "{\"kprint_sites\":2,\"kernel\":\"k\",\"entries\":%d}\n",
		   0, "1: catalog version 2");
	check_load("not a catalog", "{\"records\":%d}\n", 0, "1: not a kprint sites catalog");
	check_load("bad JSON", HEAD ENTRY("a", ID_A) "{\"format_id\":\n", 2, "3: not JSON");
	check_load("text after the object", HEAD ENTRY("a", ID_A) "{} x\n", 2, "3: ");
	check_load("a missing key", HEAD "{\"format_id\":\"" ID_A "\",\"format\":\"a\","
		   "\"level\":\"info\",\"module\":\"brd\",\"function\":null,\"source\":\"module\"}\n",
		   1, "2: no \"kind\"");
	check_load("an unknown level", HEAD "{\"format_id\":\"" ID_A "\",\"format\":\"a\","
		   "\"level\":\"loud\",\"module\":\"brd\",\"function\":null,\"kind\":\"printk\","
		   "\"source\":\"module\"}\n", 1, "2: unknown level");
	check_load("a wrong format_id", HEAD ENTRY("a", ID_B), 1, "2: \"format_id\"");
	check_load("out of order", HEAD ENTRY("b", ID_B) ENTRY("a", ID_A), 2, "3: entries out");
	check_load("cut short", HEAD ENTRY("a", ID_A), 2, "2: 1 entries, the header says 2");
	check_load("an empty line", HEAD "\n" ENTRY("a", ID_A), 1, "2: an empty line");
	check_load("an empty file", "%.0d", 0, "1: an empty file");
}

static const char index_vmlinux[] =
	"# <level[,flags]> filename:line function \"format\"\n"
	"<5> block/blk-settings.c:661 disk_stack_limits \"%s: Warning: Device %s is misaligned\\n\"\n"
	"<6> drivers/acpi/osl.c:1410 acpi_no_auto_serialize_setup \"ACPI: OSL: auto-serialization disabled\\n\"\n"
	"<-1> kernel/panic.c:100 panic_print \"plain\"\n"
	"<c> kernel/x.c:5 f \" cont %d\\n\"\n"
	"<4,c> kernel/x.c:6 g \"warn cont\\n\"\n"
	"<3> lib/e.c:7 esc \"tab\\t \\\"q\\\" \\\\ caf\\303\\251 \\033[m\\n\"\n"
	"this is not an index line\n";

static const char index_brd[] =
	"# <level[,flags]> filename:line function \"format\"\n"
	"<6> drivers/block/brd.c:502 brd_exit \"brd: module unloaded\\n\"\n";

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static const struct kpc_site *index_entry(const struct kpc_sites *s, const char *fmt)
{
	const struct kpc_site *e = kpc_sites_find(s, kprint_fnv1a64(fmt));

	return e && !strcmp(e->format, fmt) ? e : NULL;
}

static void test_index(void)
{
	struct kpc_sites s = { 0 };
	const struct kpc_site *e;
	char dir[512], err[512];
	int ret;

	snprintf(dir, sizeof(dir), "%s/index", tmpdir);
	mkdir(dir, 0755);
	write_file(dir, "vmlinux", index_vmlinux);
	write_file(dir, "brd", index_brd);
	ret = kpc_sites_scan_index(dir, &s, err, sizeof(err));
	tap_ok(!ret, "the index read (%s)", ret ? err : "");
	kpc_sites_sort(&s);
	tap_ok(s.n == 7, "seven entries, the bad line passed over (%zu)", s.n);
	e = index_entry(&s, "brd: module unloaded");
	tap_ok(e && e->level == 6 && !strcmp(e->module, "brd") && e->function &&
	       !strcmp(e->function, "brd_exit") && e->file &&
	       !strcmp(e->file, "drivers/block/brd.c") && e->line == 502 &&
	       e->source == KPC_SITE_SRC_INDEX && e->kind == KPC_SITE_PRINTK,
	       "brd's entry: level, module, function, file:line, source");
	e = index_entry(&s, "%s: Warning: Device %s is misaligned");
	tap_ok(e && e->level == 5 && !strcmp(e->module, "vmlinux") && e->line == 661,
	       "a vmlinux entry, its newline stripped");
	e = index_entry(&s, "plain");
	tap_ok(e && e->level == KPC_SITE_LEVEL_NONE, "<-1> is no level compiled in");
	e = index_entry(&s, " cont %d");
	tap_ok(e && e->level == KPC_SITE_LEVEL_CONT, "<c> is KERN_CONT");
	e = index_entry(&s, "warn cont");
	tap_ok(e && e->level == 4, "<4,c> is level 4");
	e = index_entry(&s, "tab\t \"q\" \\ caf\xc3\xa9 \033[m");
	tap_ok(e && e->level == 3, "C escapes and octal bytes unescaped");
	ret = kpc_sites_scan_index("/nonexistent/printk/index", &s, err, sizeof(err));
	tap_ok(ret == -ENOENT && strstr(err, "/nonexistent"), "a missing index says so (%s)", err);
	kpc_sites_free(&s);
}

/*
 * kpc_sites_build() over a real image (when installed), a module tree of
 * one file that is no module and a build/ symlink to a real tree, and an
 * index: the bad file skipped and not counted, the symlink not followed,
 * the index's entries beside the image's, all sorted.
 */
static void test_build(void)
{
	static const char image[] = "/boot/vmlinuz-6.1.0-57-amd64";
	struct kpc_sites_build_opts o = {
		.kernel = "6.1.0-57-amd64", .image = image, .kallsyms = "", .jobs = 2,
	};
	char moddir[512], index[512], link[600], err[512];
	struct kpc_sites s;
	size_t i, by_source[KPC_SITE_SRC_MAX] = { 0 };
	bool sorted = true;
	int ret;

	if (access(image, R_OK) || access("/lib/modules/6.1.0-57-amd64", R_OK)) {
		tap_skip("kpc_sites_build(): %s is not installed", image);
		return;
	}
	snprintf(moddir, sizeof(moddir), "%s/modules", tmpdir);
	snprintf(index, sizeof(index), "%s/index", tmpdir);
	snprintf(link, sizeof(link), "%s/build", moddir);
	mkdir(moddir, 0755);
	write_file(moddir, "broken.ko", "not an ELF file\n");
	tap_ok(!symlink("/lib/modules/6.1.0-57-amd64", link), "a build/ symlink to a real tree");
	o.moddir = moddir;
	o.index = index;
	ret = kpc_sites_build(&o, &s, err, sizeof(err));
	tap_ok(!ret, "built (%s)", ret ? err : "");
	if (ret)
		return;
	for (i = 0; i < s.n; i++) {
		by_source[s.v[i].source]++;
		if (i)
			sorted &= s.v[i - 1].format_id <= s.v[i].format_id;
	}
	tap_ok(!s.modules && !by_source[KPC_SITE_SRC_MODULE],
	       "the broken module is not counted, the symlink not followed (%u, %zu)",
	       s.modules, by_source[KPC_SITE_SRC_MODULE]);
	tap_ok(by_source[KPC_SITE_SRC_IMAGE] > 1000 && by_source[KPC_SITE_SRC_INDEX] == 7,
	       "the image's entries and the index's 7 beside them (%zu, %zu)",
	       by_source[KPC_SITE_SRC_IMAGE], by_source[KPC_SITE_SRC_INDEX]);
	tap_ok(sorted && s.printk_index && !s.kallsyms && s.built && s.image &&
	       !strcmp(s.kernel, "6.1.0-57-amd64"), "sorted, and the header fields set");
	kpc_sites_free(&s);
}

int main(void)
{
	char cmd[600];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_strip();
	test_add_sort_find();
	test_round_trip();
	test_refused();
	test_index();
	test_build();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_failures ? 1 : 0;
}
