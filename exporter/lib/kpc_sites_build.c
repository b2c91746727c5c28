// SPDX-License-Identifier: GPL-2.0
/*
 * Building one kernel's call-site catalog: its image, every module file
 * under its module directory, and the printk index when the kernel runs
 * and has one.
 *
 * The modules are most of the work (some 4,000 files, most of them
 * compressed), so they are read on o->jobs threads, the largest files
 * first so that no thread is left with a big one at the end; each thread
 * adds to a catalog of its own, and the catalogs are joined once all are
 * done, which needs no lock on the way.  The entries of the printk index
 * replace none of the others: an entry says where it came from, and the
 * same format from two sources is two entries.
 */
#include <errno.h>
#include <ftw.h>
#include <mntent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kpc_sites_scan.h"

#define KPC_SITES_DEBUGFS	"/sys/kernel/debug"
#define KPC_SITES_INDEX	"/printk/index"
#define KPC_SITES_KALLSYMS	"/proc/kallsyms"

struct kpc_sites_modfile {
	char *path;
	off_t size;
};

/* The module files, collected by nftw() (which has no context pointer). */
static __thread struct kpc_sites_modlist {
	struct kpc_sites_modfile *v;
	size_t n, cap;
	int err;
} *kpc_sites_walking;

static bool kpc_sites_is_module(const char *name)
{
	static const char *const ext[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t len = strlen(name), i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (len > e && !strcmp(name + len - e, ext[i]))
			return true;
	}
	return false;
}

static int kpc_sites_walk_one(const char *path, const struct stat *st, int type,
			      struct FTW *ftw)
{
	struct kpc_sites_modlist *l = kpc_sites_walking;

	/* FTW_PHYS: the build/ and source/ symlinks are FTW_SL, never entered. */
	if (type != FTW_F || !kpc_sites_is_module(path + ftw->base))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		struct kpc_sites_modfile *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].path = strdup(path);
	if (!l->v[l->n].path)
		goto nomem;
	l->v[l->n++].size = st->st_size;
	return 0;
nomem:
	l->err = -ENOMEM;
	return 1;
}

static int kpc_sites_modfile_cmp(const void *pa, const void *pb)
{
	const struct kpc_sites_modfile *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return strcmp(a->path, b->path);
}

static void kpc_sites_modlist_free(struct kpc_sites_modlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

/* The work the threads share: the next file to take, by an atomic index. */
struct kpc_sites_work {
	const struct kpc_sites_modlist *files;
	atomic_size_t next;
	atomic_uint read;
};

struct kpc_sites_worker {
	pthread_t thread;
	struct kpc_sites_work *work;
	struct kpc_sites own;
	int err;		/* only out of memory stops the build */
};

static void *kpc_sites_worker_run(void *arg)
{
	struct kpc_sites_worker *w = arg;
	struct kpc_sites_work *work = w->work;
	char err[512];
	size_t i;

	while ((i = atomic_fetch_add(&work->next, 1)) < work->files->n) {
		const char *path = work->files->v[i].path;
		int ret = kpc_sites_scan_module(path, &w->own, err, sizeof(err));

		if (ret == -ENOMEM) {
			w->err = ret;
			break;
		}
		if (ret) {
			fprintf(stderr, "kprint sites: %s: skipped: %s\n", path, err);
			continue;
		}
		atomic_fetch_add(&work->read, 1);
	}
	return NULL;
}

/* Moves every entry of @from to the end of @to; @from is left empty. */
static int kpc_sites_join(struct kpc_sites *to, struct kpc_sites *from)
{
	if (to->n + from->n > to->cap) {
		size_t cap = to->n + from->n;
		struct kpc_site *v = realloc(to->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		to->v = v;
		to->cap = cap;
	}
	if (from->n)
		memcpy(&to->v[to->n], from->v, from->n * sizeof(*from->v));
	to->n += from->n;
	from->n = 0;
	kpc_sites_free(from);
	return 0;
}

static int kpc_sites_scan_modules(const struct kpc_sites_modlist *files, unsigned int jobs,
				  struct kpc_sites *out, char *err, size_t errlen)
{
	struct kpc_sites_work work = { .files = files };
	struct kpc_sites_worker *w;
	unsigned int i, started;
	int ret = 0;

	if (jobs > files->n)
		jobs = files->n ? files->n : 1;
	w = calloc(jobs, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (started = 0; started < jobs; started++) {
		w[started].work = &work;
		if (pthread_create(&w[started].thread, NULL, kpc_sites_worker_run, &w[started]))
			break;
	}
	/* No thread at all: this one does the work. */
	if (!started) {
		w[0].work = &work;
		kpc_sites_worker_run(&w[0]);
	}
	for (i = 0; i < (started ? started : 1); i++) {
		if (started)
			pthread_join(w[i].thread, NULL);
		if (w[i].err)
			ret = w[i].err;
		if (!ret)
			ret = kpc_sites_join(out, &w[i].own);
		kpc_sites_free(&w[i].own);
	}
	free(w);
	out->modules = atomic_load(&work.read);
	if (ret)
		snprintf(err, errlen, "modules: %s", strerror(-ret));
	return ret;
}

static int kpc_sites_find_modules(const char *moddir, struct kpc_sites_modlist *l,
				  char *err, size_t errlen)
{
	int ret;

	kpc_sites_walking = l;
	ret = nftw(moddir, kpc_sites_walk_one, 32, FTW_PHYS);
	kpc_sites_walking = NULL;
	if (ret < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", moddir, strerror(errno));
		return ret;
	}
	if (l->err) {
		snprintf(err, errlen, "%s: %s", moddir, strerror(-l->err));
		return l->err;
	}
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), kpc_sites_modfile_cmp);
	return 0;
}

/*
 * /proc/kallsyms gives every address as 0 to a reader without
 * CAP_SYSLOG (kptr_restrict): then it names no function.
 */
static bool kpc_sites_kallsyms_usable(const char *path)
{
	FILE *f = fopen(path, "re");
	unsigned long long addr = 0;
	char line[512];
	int i;

	if (!f)
		return false;
	for (i = 0; i < 16 && !addr && fgets(line, sizeof(line), f); i++)
		addr = strtoull(line, NULL, 16);
	fclose(f);
	return addr != 0;
}

static bool kpc_sites_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static double kpc_sites_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *kpc_sites_utc_now(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return strdup(buf);
}

/* What the build reads, its defaults filled in ("" in o: none). */
struct kpc_sites_inputs {
	char image[4096], moddir[4096], index_dir[4096];
	const char *kallsyms, *index;
};

/*
 * The printk index of the running kernel, under debugfs wherever it is
 * mounted (/sys/kernel/debug as a rule); NULL when there is none.
 */
static const char *kpc_sites_find_index(char *buf, size_t len)
{
	const char *debugfs = KPC_SITES_DEBUGFS;
	FILE *mounts = setmntent("/proc/self/mounts", "re");
	struct mntent *m;

	while (mounts && (m = getmntent(mounts)))
		if (!strcmp(m->mnt_type, "debugfs")) {
			debugfs = m->mnt_dir;
			break;
		}
	if (snprintf(buf, len, "%s%s", debugfs, KPC_SITES_INDEX) >= (int)len)
		*buf = '\0';
	if (mounts)
		endmntent(mounts);
	return *buf && kpc_sites_is_dir(buf) ? buf : NULL;
}

static int kpc_sites_inputs(const struct kpc_sites_build_opts *o, const char *kernel,
			    bool running, struct kpc_sites_inputs *in)
{
	if (snprintf(in->image, sizeof(in->image), "%s%s", o->image ? "" : "/boot/vmlinuz-",
		     o->image ? o->image : kernel) >= (int)sizeof(in->image) ||
	    snprintf(in->moddir, sizeof(in->moddir), "%s%s", o->moddir ? "" : "/lib/modules/",
		     o->moddir ? o->moddir : kernel) >= (int)sizeof(in->moddir))
		return -ENAMETOOLONG;
	in->kallsyms = o->kallsyms;
	if (!in->kallsyms)
		in->kallsyms = running && kpc_sites_kallsyms_usable(KPC_SITES_KALLSYMS) ?
			       KPC_SITES_KALLSYMS : NULL;
	else if (!*in->kallsyms)
		in->kallsyms = NULL;
	in->index = o->index;
	if (!in->index)
		in->index = running ? kpc_sites_find_index(in->index_dir,
							   sizeof(in->index_dir)) : NULL;
	else if (!*in->index)
		in->index = NULL;
	return 0;
}

static unsigned int kpc_sites_jobs(unsigned int jobs)
{
	long cpus;

	if (jobs)
		return jobs;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus > 0 ? cpus : 1;
}

static int kpc_sites_build_into(const struct kpc_sites_build_opts *o,
				const struct kpc_sites_inputs *in, struct kpc_sites *out,
				char *err, size_t errlen)
{
	struct kpc_sites_modlist files = { 0 };
	int ret;

	ret = kpc_sites_scan_image(in->image, in->kallsyms, out, err, errlen);
	if (ret)
		return ret;
	out->image = strdup(in->image);
	out->kallsyms = in->kallsyms != NULL;
	if (!out->image)
		return -ENOMEM;
	ret = kpc_sites_find_modules(in->moddir, &files, err, errlen) ?:
	      kpc_sites_scan_modules(&files, kpc_sites_jobs(o->jobs), out, err, errlen);
	kpc_sites_modlist_free(&files);
	if (ret)
		return ret;
	if (in->index) {
		ret = kpc_sites_scan_index(in->index, out, err, errlen);
		if (ret)
			return ret;
		out->printk_index = true;
	}
	return 0;
}

int kpc_sites_build(const struct kpc_sites_build_opts *o, struct kpc_sites *out,
		    char *err, size_t errlen)
{
	struct kpc_sites_inputs in;
	double start = kpc_sites_now();
	struct utsname uts;
	const char *kernel;
	int ret;

	memset(out, 0, sizeof(*out));
	uname(&uts);
	kernel = o->kernel ? o->kernel : uts.release;
	ret = kpc_sites_inputs(o, kernel, !strcmp(kernel, uts.release), &in);
	if (ret) {
		snprintf(err, errlen, "%s: %s", kernel, strerror(-ret));
		return ret;
	}
	out->kernel = strdup(kernel);
	ret = out->kernel ? kpc_sites_build_into(o, &in, out, err, errlen) : -ENOMEM;
	if (!ret) {
		kpc_sites_sort(out);
		out->built = kpc_sites_utc_now();
		if (!out->built)
			ret = -ENOMEM;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", kernel, strerror(ENOMEM));
	if (ret) {
		kpc_sites_free(out);
		return ret;
	}
	out->seconds = kpc_sites_now() - start;
	return 0;
}
