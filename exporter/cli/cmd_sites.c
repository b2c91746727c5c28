// SPDX-License-Identifier: GPL-2.0
/*
 * kprint sites: the call-site catalog of a kernel, every printk format it
 * can print, read from its image and module files (kpc_sites.h).
 *
 *   kprint sites build   writes DIR/KVER.jsonl for one kernel, or --all
 *   kprint sites list    prints a catalog's entries, filtered
 *
 * "sites", not "catalog": kprint catalog writes systemd catalogs of the
 * PO translations, a different thing.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kprint.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char kprint_sites_usage[] =
"Usage: kprint sites build [--kernel KVER | --all] [--image FILE] [--moddir DIR]\n"
"                          [--kallsyms FILE | --no-kallsyms] [--dir DIR | --output FILE]\n"
"                          [--jobs N]\n"
"       kprint sites list [--kernel KVER] [--dir DIR | --file FILE] [--module M]\n"
"                         [--level L] [--kind K] [--json]\n"
"       kprint sites diff OLD NEW [--dir DIR] [--rules FILE] [--json]\n"
"The catalog of each kernel's printk call sites, DIR/KVER.jsonl (DIR: "
KPC_SITES_DIR ").\n"
"See kprint(1), SITES.\n";

enum {
	KPRINT_OPT_SITES_KERNEL = KPRINT_OPT_PRIVATE,
	KPRINT_OPT_SITES_ALL,
	KPRINT_OPT_SITES_IMAGE,
	KPRINT_OPT_SITES_MODDIR,
	KPRINT_OPT_SITES_KALLSYMS,
	KPRINT_OPT_SITES_NO_KALLSYMS,
	KPRINT_OPT_SITES_DIR,
	KPRINT_OPT_SITES_OUTPUT,
	KPRINT_OPT_SITES_JOBS,
	KPRINT_OPT_SITES_FILE,
	KPRINT_OPT_SITES_LEVEL,
	KPRINT_OPT_SITES_KIND,
};

static const struct option kprint_sites_build_options[] = {
	{ "kernel",		required_argument,	NULL, KPRINT_OPT_SITES_KERNEL },
	{ "all",		no_argument,		NULL, KPRINT_OPT_SITES_ALL },
	{ "image",		required_argument,	NULL, KPRINT_OPT_SITES_IMAGE },
	{ "moddir",		required_argument,	NULL, KPRINT_OPT_SITES_MODDIR },
	{ "kallsyms",		required_argument,	NULL, KPRINT_OPT_SITES_KALLSYMS },
	{ "no-kallsyms",	no_argument,		NULL, KPRINT_OPT_SITES_NO_KALLSYMS },
	{ "dir",		required_argument,	NULL, KPRINT_OPT_SITES_DIR },
	{ "output",		required_argument,	NULL, KPRINT_OPT_SITES_OUTPUT },
	{ "jobs",		required_argument,	NULL, KPRINT_OPT_SITES_JOBS },
	{ NULL, 0, NULL, 0 },
};

static const struct option kprint_sites_list_options[] = {
	{ "kernel",		required_argument,	NULL, KPRINT_OPT_SITES_KERNEL },
	{ "dir",		required_argument,	NULL, KPRINT_OPT_SITES_DIR },
	{ "file",		required_argument,	NULL, KPRINT_OPT_SITES_FILE },
	{ "level",		required_argument,	NULL, KPRINT_OPT_SITES_LEVEL },
	{ "kind",		required_argument,	NULL, KPRINT_OPT_SITES_KIND },
	{ NULL, 0, NULL, 0 },
};

/* The options of build and list together: each takes only its own. */
static struct {
	struct kpc_sites_build_opts build;
	bool all, no_kallsyms;
	const char *dir, *output, *file;
	uint32_t levels;	/* bit (level + 1) per wanted level; 0: all */
	int kind;		/* -1: any */
} kprint_sites_args = { .kind = -1 };

/* "err", "warn+", "default,cont", "none": as bits (level + 1). */
static int kprint_sites_parse_levels(const char *spec, uint32_t *mask)
{
	char *copy = strdup(spec), *item, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item && !ret; item = strtok_r(NULL, ",", &save)) {
		size_t len = strlen(item);
		bool more = len && item[len - 1] == '+';
		int level;

		if (more)
			item[len - 1] = '\0';
		level = strcmp(item, "none") ? kpc_site_level_parse(item) : KPC_SITE_LEVEL_NONE;
		if (level == -2 || (more && (level < 0 || level > 7)))
			ret = -EINVAL;
		else if (more)
			*mask |= (1u << (level + 2)) - 2;	/* emerg .. level */
		else
			*mask |= 1u << (level + 1);
	}
	free(copy);
	return ret ? ret : *mask ? 0 : -EINVAL;
}

static int kprint_sites_parse_kind(const char *arg)
{
	int k;

	for (k = 0; k < KPC_SITE_KIND_MAX; k++)
		if (!strcmp(arg, kpc_site_kind_name(k)))
			return k;
	return -1;
}

static int kprint_sites_opt(struct kprint_opts *o, int opt, const char *arg)
{
	typeof(kprint_sites_args) *a = &kprint_sites_args;
	uint64_t jobs;

	(void)o;
	switch (opt) {
	case KPRINT_OPT_SITES_KERNEL:	a->build.kernel = arg; break;
	case KPRINT_OPT_SITES_ALL:	a->all = true; break;
	case KPRINT_OPT_SITES_IMAGE:	a->build.image = arg; break;
	case KPRINT_OPT_SITES_MODDIR:	a->build.moddir = arg; break;
	case KPRINT_OPT_SITES_KALLSYMS:	a->build.kallsyms = arg; break;
	case KPRINT_OPT_SITES_NO_KALLSYMS: a->no_kallsyms = true; break;
	case KPRINT_OPT_SITES_DIR:	a->dir = arg; break;
	case KPRINT_OPT_SITES_OUTPUT:	a->output = arg; break;
	case KPRINT_OPT_SITES_FILE:	a->file = arg; break;
	case KPRINT_OPT_SITES_JOBS:
		if (kpc_parse_u64(arg, 10, 1024, &jobs) || !jobs)
			return kprint_usage_error("--jobs wants 1 to 1024 threads, not '%s'", arg);
		a->build.jobs = jobs;
		break;
	case KPRINT_OPT_SITES_LEVEL:
		if (kprint_sites_parse_levels(arg, &a->levels))
			return kprint_usage_error("bad --level '%s' (emerg .. debug, default, cont,"
						  " none; err+ for err or more severe)", arg);
		break;
	case KPRINT_OPT_SITES_KIND:
		a->kind = kprint_sites_parse_kind(arg);
		if (a->kind < 0)
			return kprint_usage_error("bad --kind '%s' (printk, printk_bare, dev,"
						  " netdev)", arg);
		break;
	}
	return 0;
}


/* Build one kernel's catalog and write it; 0 or KPRINT_EXIT_ERROR. */
static int kprint_sites_build_one(const char *kernel)
{
	struct kpc_sites_build_opts bo = kprint_sites_args.build;
	size_t by_source[KPC_SITE_SRC_MAX] = { 0 }, i;
	struct kpc_sites s;
	char err[1024], buf[4096];
	const char *path = kprint_sites_args.output;

	bo.kernel = kernel;
	if (kprint_sites_args.no_kallsyms)
		bo.kallsyms = "";
	if (!path)
		path = kpc_sites_path(kprint_sites_args.dir, kernel, buf, sizeof(buf));
	if (!path) {
		fprintf(stderr, "kprint sites: %s: the catalog's path is too long\n", kernel);
		return KPRINT_EXIT_ERROR;
	}
	if (kpc_sites_build(&bo, &s, err, sizeof(err))) {
		fprintf(stderr, "kprint sites: %s: %s\n", kernel, err);
		return KPRINT_EXIT_ERROR;
	}
	if (kpc_sites_write(&s, path, err, sizeof(err))) {
		fprintf(stderr, "kprint sites: %s: %s\n", kernel, err);
		kpc_sites_free(&s);
		return KPRINT_EXIT_ERROR;
	}
	for (i = 0; i < s.n; i++)
		by_source[s.v[i].source]++;
	printf("kprint sites: %s: %zu entries (image %zu, modules %zu, index %zu),"
	       " %u module files, %.1f s -> %s\n", s.kernel, s.n,
	       by_source[KPC_SITE_SRC_IMAGE], by_source[KPC_SITE_SRC_MODULE],
	       by_source[KPC_SITE_SRC_INDEX], s.modules, s.seconds, path);
	fflush(stdout);
	kpc_sites_free(&s);
	return KPRINT_EXIT_OK;
}

/* The running kernel's image first: its catalog is the one served. */
static int kprint_sites_running_first(const struct dirent **a, const struct dirent **b)
{
	static const char prefix[] = "vmlinuz-";
	const char *running = kprint_sites_running() ?: "";
	bool ra = !strncmp((*a)->d_name, prefix, strlen(prefix)) &&
		  !strcmp((*a)->d_name + strlen(prefix), running);
	bool rb = !strncmp((*b)->d_name, prefix, strlen(prefix)) &&
		  !strcmp((*b)->d_name + strlen(prefix), running);

	if (ra != rb)
		return ra ? -1 : 1;
	return alphasort(a, b);
}

/*
 * --all: each release with both /boot/vmlinuz-KVER and /lib/modules/KVER,
 * the running one first.
 */
static int kprint_sites_build_all(void)
{
	static const char prefix[] = "vmlinuz-";
	struct dirent **names;
	char moddir[4096];
	struct stat st;
	int n, i, ret = KPRINT_EXIT_OK, built = 0;

	n = scandir("/boot", &names, NULL, kprint_sites_running_first);
	if (n < 0) {
		fprintf(stderr, "kprint sites: /boot: %s\n", strerror(errno));
		return KPRINT_EXIT_ERROR;
	}
	for (i = 0; i < n; i++) {
		const char *kernel = names[i]->d_name + strlen(prefix);

		if (!strncmp(names[i]->d_name, prefix, strlen(prefix)) && *kernel &&
		    snprintf(moddir, sizeof(moddir), "/lib/modules/%s", kernel) < (int)sizeof(moddir) &&
		    !stat(moddir, &st) && S_ISDIR(st.st_mode)) {
			if (kprint_sites_build_one(kernel))
				ret = KPRINT_EXIT_ERROR;
			built++;
		}
		free(names[i]);
	}
	free(names);
	if (!built) {
		fputs("kprint sites: no kernel with both /boot/vmlinuz-KVER and"
		      " /lib/modules/KVER\n", stderr);
		ret = KPRINT_EXIT_ERROR;
	}
	return ret;
}

static int kprint_sites_build(struct kprint_opts *o, int argc, char **argv)
{
	typeof(kprint_sites_args) *a = &kprint_sites_args;
	int ret = kprint_parse_options_only(o, argc, argv, "sites build",
					    kprint_sites_build_options, kprint_sites_opt);

	if (ret >= 0)
		return ret;
	if (a->all && (a->build.kernel || a->build.image || a->build.moddir || a->output))
		return kprint_usage_error("sites build: --all takes no --kernel, --image,"
					  " --moddir or --output%s", "");
	if (a->build.kallsyms && a->no_kallsyms)
		return kprint_usage_error("sites build: --kallsyms or --no-kallsyms%s", "");
	if (a->dir && a->output)
		return kprint_usage_error("sites build: --dir or --output%s", "");
	if (o->json)
		return kprint_usage_error("sites build takes no --json%s", "");
	if (a->all)
		return kprint_sites_build_all();
	if (!a->build.kernel)
		a->build.kernel = kprint_sites_running();
	return kprint_sites_build_one(a->build.kernel);
}

static bool kprint_sites_wanted(const struct kprint_opts *o, const struct kpc_site *e)
{
	const typeof(kprint_sites_args) *a = &kprint_sites_args;

	if (o->filter.module && strcmp(o->filter.module, e->module))
		return false;
	if (a->levels && !(a->levels & (1u << (e->level + 1))))
		return false;
	return a->kind < 0 || (int)e->kind == a->kind;
}

/* FORMAT_ID LEVEL MODULE FUNCTION "FORMAT"; "-" for no level, no function. */
static void kprint_sites_print_text(const struct kprint_opts *o, const struct kpc_site *e)
{
	const char *level = kpc_site_level_name(e->level);

	printf("%016" PRIx64 " %s %s %s \"", e->format_id, level ? level : "-", e->module,
	       e->function ? e->function : "-");
	kpc_text_escape(stdout, e->format, o->text.utf8);
	fputs("\"\n", stdout);
}

static int kprint_sites_list(struct kprint_opts *o, int argc, char **argv)
{
	typeof(kprint_sites_args) *a = &kprint_sites_args;
	static char outbuf[1 << 16];
	struct kpc_sites s;
	char err[1024], buf[4096];
	const char *path;
	size_t i;
	int ret = kprint_parse_options_only(o, argc, argv, "sites list",
					    kprint_sites_list_options, kprint_sites_opt);

	if (ret >= 0)
		return ret;
	ret = 0;
	if (a->file && (a->dir || a->build.kernel))
		return kprint_usage_error("sites list: --file, or --kernel and --dir%s", "");
	path = a->file;
	if (!path)
		path = kpc_sites_path(a->dir, a->build.kernel ? a->build.kernel :
				      kprint_sites_running(), buf, sizeof(buf));
	if (!path)
		return kprint_usage_error("sites list: the catalog's path is too long%s", "");
	if (kpc_sites_load(path, &s, err, sizeof(err))) {
		fprintf(stderr, "kprint sites: %s\n", err);
		return KPRINT_EXIT_ERROR;
	}
	/* 40,000 lines: one write a buffer, not one a line when piped. */
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	for (i = 0; i < s.n && !ret; i++) {
		if (!kprint_sites_wanted(o, &s.v[i]))
			continue;
		if (o->json)
			ret = kpc_sites_write_entry(stdout, &s.v[i]);
		else
			kprint_sites_print_text(o, &s.v[i]);
	}
	if (fflush(stdout) || ret) {
		fprintf(stderr, "kprint sites: standard output: %s\n", strerror(errno ?: EIO));
		ret = KPRINT_EXIT_ERROR;
	}
	kpc_sites_free(&s);
	return ret;
}

struct kprint_sites_command {
	const char *name;
	int (*run)(struct kprint_opts *o, int argc, char **argv);
};

static const struct kprint_sites_command kprint_sites_commands[] = {
	{ "build",	kprint_sites_build },
	{ "list",	kprint_sites_list },
	{ "diff",	kprint_cmd_sites_diff },
};

int kprint_cmd_sites(struct kprint_opts *o, int argc, char **argv)
{
	unsigned int i;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(kprint_sites_usage, stdout);
		return KPRINT_EXIT_OK;
	}
	if (argc < 2) {
		fputs(kprint_sites_usage, stderr);
		return KPRINT_EXIT_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(kprint_sites_commands); i++)
		if (!strcmp(argv[1], kprint_sites_commands[i].name))
			return kprint_sites_commands[i].run(o, argc - 1, argv + 1);
	return kprint_usage_error("sites: unknown command '%s' (build, list, diff)", argv[1]);
}
