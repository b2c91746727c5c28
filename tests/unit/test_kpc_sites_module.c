// SPDX-License-Identifier: GPL-2.0
/*
 * kpc_sites_scan_module(), the call-site catalog's reader of module files,
 * on the stock modules installed here: Debian's 6.1 (plain .ko) and 6.12
 * (.ko.xz).  Each expected site was read off `objdump -dr` of the module:
 * the string a relocation loads, the call that follows, the function the
 * code is in.  Its format_id is computed here from the text, with the one
 * FNV-1a of include/kprint_fnv1a.h.  Last, every module of 6.1 is read, the
 * entries counted per kind and the time said, then read again on two
 * threads at once.
 */
#include <ftw.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kprint_fnv1a.h"
#include "kpc_sites_scan.h"
#include "test_kpc_tap.h"

#define LEVEL_ERR	3
#define LEVEL_WARN	4
#define LEVEL_INFO	6
#define LEVEL_DEBUG	7

/* One call site as objdump shows it, in 6.1 and in 6.12. */
struct expected_site {
	const char *file;	/* under /lib/modules/KVER/kernel, without .ko */
	const char *module;
	const char *format;	/* as the bridge reports it */
	const char *function[2];	/* 6.1's, 6.12's; NULL: not looked for there */
	enum kpc_site_kind kind;
	int level;
	const char *what;
};

#define E1000E	"drivers/net/ethernet/intel/e1000e/e1000e"

/*
 * brd_exit() is module_exit()'s function, also named cleanup_module: %pS
 * names the local symbol, the first of the two.  6.1's compiler split
 * e1000e_pm_resume() and e1000_watchdog_task() into cold parts, where
 * their netdev_warn() and netdev_info() are; 6.12's kept the first whole.
 */
static const struct expected_site sites[] = {
	{ "drivers/block/brd", "brd", "brd: module unloaded", { "brd_exit", "brd_exit" },
	  KPC_SITE_PRINTK, LEVEL_INFO, "pr_info() with pr_fmt, tail-called from .exit.text" },
	{ E1000E, "e1000e", "Tx DMA map failed", { "e1000_xmit_frame", "e1000_xmit_frame" },
	  KPC_SITE_DEV, LEVEL_ERR, "dev_err() (_dev_err, format in rsi)" },
	{ E1000E, "e1000e", "NIC Link is Down", { "e1000e_close", "e1000e_close" },
	  KPC_SITE_NETDEV, LEVEL_INFO, "netdev_info()" },
	{ E1000E, "e1000e", "DPG_EXIT_DONE took %d msec. This is a firmware bug",
	  { "e1000e_pm_resume.cold", "e1000e_pm_resume" }, KPC_SITE_NETDEV, LEVEL_WARN,
	  "netdev_warn(), in 6.1 in a .cold part, named as %pS names it" },
	{ E1000E, "e1000e", "NIC Link is Down", { "e1000_watchdog_task.cold", NULL },
	  KPC_SITE_NETDEV, LEVEL_INFO,
	  "the same format from a second function is an entry of its own" },
	{ "net/bridge/bridge", "bridge", "%s: br_fill_info event %d port %s master %s",
	  { "br_fill_ifinfo", "br_fill_ifinfo" }, KPC_SITE_PRINTK, LEVEL_DEBUG,
	  "pr_debug() from its __dyndbg descriptor (__dynamic_pr_debug)" },
	{ E1000E, "e1000e", "PBA string buffer was null",
	  { "e1000_read_pba_string_generic", NULL }, KPC_SITE_NETDEV, LEVEL_DEBUG,
	  "netdev_dbg() from its __dyndbg descriptor (__dynamic_netdev_dbg)" },
};

/* The last directory /lib/modules/PATTERN of a kernel not PREEMPT_RT, or NULL. */
static char *module_dir(const char *pattern)
{
	char *dir = NULL;
	size_t i;
	glob_t g;

	if (glob(pattern, GLOB_ONLYDIR, NULL, &g))
		return NULL;
	for (i = g.gl_pathc; i-- && !dir;)
		if (!strstr(g.gl_pathv[i], "-rt-"))
			dir = strdup(g.gl_pathv[i]);
	globfree(&g);
	return dir;
}

/* DIR/kernel/FILE.ko, compressed or not. */
static char *module_file(const char *dir, const char *file)
{
	static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	char path[4096];
	unsigned int i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(path, sizeof(path), "%s/kernel/%s%s", dir, file, suffixes[i]);
		if (!access(path, R_OK))
			return strdup(path);
	}
	return NULL;
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Whether @s has an entry for the site, looked up by the id computed here. */
static bool has_site(const struct kpc_sites *s, const struct expected_site *e,
		     const char *function)
{
	uint64_t id = kprint_fnv1a64_mem(e->format, strlen(e->format));
	const struct kpc_site *v = kpc_sites_find(s, id);

	for (; v && v < s->v + s->n && v->format_id == id; v++)
		if (same(v->format, e->format) && same(v->module, e->module) &&
		    same(v->function, function) && v->kind == e->kind &&
		    v->level == e->level && v->source == KPC_SITE_SRC_MODULE)
			return true;
	return false;
}

static void print_entries_of(const struct kpc_sites *s, const char *format)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (same(s->v[i].format, format))
			printf("#   found: %s %s kind %d level %d\n", s->v[i].module,
			       s->v[i].function ? s->v[i].function : "(none)", s->v[i].kind,
			       s->v[i].level);
}

/* The sites of @sites in kernel @k (0: 6.1, 1: 6.12), its modules in @dir. */
static void test_sites(const char *kver, const char *dir, int k)
{
	size_t i;

	for (i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		const struct expected_site *e = &sites[i];
		struct kpc_sites s = { 0 };
		char err[512] = "";
		char *path;
		int ret;

		if (!e->function[k])
			continue;
		path = module_file(dir, e->file);
		if (!path) {
			tap_ok(0, "%s: %s is installed", kver, e->file);
			continue;
		}
		ret = kpc_sites_scan_module(path, &s, err, sizeof(err));
		tap_ok(!ret, "%s: %s is read (%s)", kver, path, ret ? err : "no error");
		kpc_sites_sort(&s);
		if (!tap_ok(has_site(&s, e, e->function[k]), "%s: %s: \"%s\" in %s, %s", kver,
			    e->module, e->format, e->function[k], e->what))
			print_entries_of(&s, e->format);
		kpc_sites_free(&s);
		free(path);
	}
}

/*
 * Strings that are not formats: brd's modinfo, the name it passes to
 * register_blkdev() and its function's name.
 */
static void test_not_formats(const char *kver, const char *dir)
{
	static const char *const not_formats[] = { "license=GPL", "ramdisk", "brd_exit" };
	char *path = module_file(dir, "drivers/block/brd");
	struct kpc_sites s = { 0 };
	char err[512];
	unsigned int i;
	size_t k;

	if (!path || kpc_sites_scan_module(path, &s, err, sizeof(err))) {
		tap_ok(0, "%s: brd is read", kver);
		free(path);
		return;
	}
	for (i = 0; i < sizeof(not_formats) / sizeof(not_formats[0]); i++) {
		bool found = false;

		for (k = 0; k < s.n; k++)
			found |= same(s.v[k].format, not_formats[i]);
		tap_ok(!found, "%s: brd's \"%s\" is not taken for a format", kver,
		       not_formats[i]);
	}
	for (k = 0; k < s.n && same(s.v[k].module, "brd"); k++)
		;
	tap_ok(s.n && k == s.n, "%s: brd's %zu entries are all of module brd", kver, s.n);
	kpc_sites_free(&s);
	free(path);
}

static void test_not_a_module(void)
{
	struct kpc_sites s = { 0 };
	char err[512] = "";
	int ret = kpc_sites_scan_module("/proc/self/exe", &s, err, sizeof(err));

	tap_ok(ret < 0 && strstr(err, "/proc/self/exe") && !s.n,
	       "a program (not a relocatable x86_64 ELF file) is refused, saying which: %s",
	       err);
	ret = kpc_sites_scan_module("/nonexistent/x.ko", &s, err, sizeof(err));
	tap_ok(ret < 0 && strstr(err, "/nonexistent/x.ko"),
	       "a missing file is an error that names it: %s", err);
}

/* Every module file of one kernel, as the catalog's build reads them. */
static struct {
	char **paths;
	size_t n, cap;
} files;

static int list_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F || !strstr(path, ".ko"))
		return 0;
	if (files.n == files.cap) {
		files.cap = files.cap ? files.cap * 2 : 1024;
		files.paths = realloc(files.paths, files.cap * sizeof(*files.paths));
		if (!files.paths)
			return -1;
	}
	files.paths[files.n] = strdup(path);
	return files.paths[files.n++] ? 0 : -1;
}

/* A share of the files, read into a catalog of its own, as a build's thread does. */
struct share {
	pthread_t thread;
	size_t first, step;
	struct kpc_sites sites;
	unsigned int failed;
};

static void *read_share(void *arg)
{
	struct share *sh = arg;
	char err[512];
	size_t i;

	for (i = sh->first; i < files.n; i += sh->step) {
		if (!kpc_sites_scan_module(files.paths[i], &sh->sites, err, sizeof(err)))
			continue;
		printf("# %s\n", err);
		sh->failed++;
	}
	return NULL;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void count_kinds(const char *kver, const struct kpc_sites *s, double seconds)
{
	size_t kinds[KPC_SITE_KIND_MAX] = { 0 }, no_function = 0, i;

	for (i = 0; i < s->n; i++) {
		kinds[s->v[i].kind]++;
		no_function += !s->v[i].function;
	}
	printf("# %s: %zu module files in %.2f s, one thread: %zu entries: printk %zu, "
	       "printk_bare %zu, dev %zu, netdev %zu (%zu without a function)\n",
	       kver, files.n, seconds, s->n, kinds[KPC_SITE_PRINTK],
	       kinds[KPC_SITE_PRINTK_BARE], kinds[KPC_SITE_DEV], kinds[KPC_SITE_NETDEV],
	       no_function);
	for (i = 0; i < KPC_SITE_KIND_MAX; i++)
		tap_ok(kinds[i] > 0, "%s: entries of kind %s found (%zu)", kver,
		       kpc_site_kind_name(i), kinds[i]);
}

/* Whether the entries of @a and @b are the same, both sorted. */
static bool same_entries(const struct kpc_sites *a, const struct kpc_sites *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->v[i].format_id != b->v[i].format_id || a->v[i].kind != b->v[i].kind ||
		    a->v[i].level != b->v[i].level || !same(a->v[i].module, b->v[i].module) ||
		    !!a->v[i].function != !!b->v[i].function ||
		    (a->v[i].function && !same(a->v[i].function, b->v[i].function)))
			return false;
	return true;
}

/* The entries of two threads' catalogs in one, sorted. */
static int merge(struct kpc_sites *out, const struct share *two)
{
	size_t i;
	int t;

	for (t = 0; t < 2; t++)
		for (i = 0; i < two[t].sites.n; i++)
			if (kpc_sites_add(out, &two[t].sites.v[i]))
				return -1;
	kpc_sites_sort(out);
	return 0;
}

/*
 * All files on one thread, then on two at once, each with its own
 * catalog: the two find what the one did, entry for entry.
 */
static void test_all_modules(const char *kver, const char *dir)
{
	struct share one = { .step = 1 }, two[2] = { { .first = 0, .step = 2 },
						    { .first = 1, .step = 2 } };
	struct kpc_sites merged = { 0 };
	struct timespec t0;
	double seconds;
	size_t raw;
	int i;

	if (nftw(dir, list_one, 32, FTW_PHYS) || files.n < 1000) {
		tap_ok(0, "%s: the module files are listed (%zu)", kver, files.n);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	read_share(&one);
	seconds = seconds_since(&t0);
	raw = one.sites.n;
	kpc_sites_sort(&one.sites);
	count_kinds(kver, &one.sites, seconds);
	tap_ok(!one.failed, "%s: all %zu module files read, %u failed", kver, files.n,
	       one.failed);
	tap_ok(seconds <= 30, "%s: the modules take %.2f s to read, 30 s at most", kver,
	       seconds);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 2; i++)
		pthread_create(&two[i].thread, NULL, read_share, &two[i]);
	for (i = 0; i < 2; i++)
		pthread_join(two[i].thread, NULL);
	seconds = seconds_since(&t0);
	tap_ok(two[0].sites.n + two[1].sites.n == raw && !two[0].failed && !two[1].failed,
	       "%s: two threads at once find the %zu entries one did (%zu + %zu, %.2f s)",
	       kver, raw, two[0].sites.n, two[1].sites.n, seconds);
	tap_ok(!merge(&merged, two) && same_entries(&merged, &one.sites),
	       "%s: and the same entries, once merged and sorted", kver);
	kpc_sites_free(&merged);
	kpc_sites_free(&one.sites);
	for (i = 0; i < 2; i++)
		kpc_sites_free(&two[i].sites);
}

int main(void)
{
	char *d61 = module_dir("/lib/modules/6.1.*-amd64");
	char *d612 = module_dir("/lib/modules/6.12.*-amd64");
	const char *k61 = d61 ? strrchr(d61, '/') + 1 : NULL;
	const char *k612 = d612 ? strrchr(d612, '/') + 1 : NULL;

	test_not_a_module();
	if (d61) {
		test_sites(k61, d61, 0);
		test_not_formats(k61, d61);
	} else {
		tap_skip("no /lib/modules/6.1.*-amd64: the 6.1 modules are not installed");
	}
	if (d612)
		test_sites(k612, d612, 1);
	else
		tap_skip("no /lib/modules/6.12.*-amd64: the 6.12 modules are not installed");
	if (d61)
		test_all_modules(k61, d61);
	while (files.n)
		free(files.paths[--files.n]);
	free(files.paths);
	free(d61);
	free(d612);
	return tap_done();
}
