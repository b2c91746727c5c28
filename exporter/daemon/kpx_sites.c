// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's call-site catalog, DIR/KVER.jsonl (kpc_sites.h),
 * read at the start and again whenever the file changes: the package
 * builds it, for a kernel just installed too, perhaps after the exporter
 * started.  No thread watches it: a request or a scrape looks at the
 * file (stat(), at most every KPX_SITES_CHECK_S seconds) and reads it
 * again when its inode, size or mtime changed; the build renames a new
 * file into place, so a new inode says it.  The file is world-readable:
 * no privilege is kept for it.
 *
 * A missing file is no error (nothing built yet): /sites says how to
 * build one.  A corrupt one is said with FILE:LINE, counted, and served
 * as absent until it changes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kpx_log.h"
#include "kpx_metrics.h"
#include "kpx_sites.h"
#include "kpx_store.h"

static double kpx_sites_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void kpx_sites_cat_put(struct kpx_sites_cat *cat)
{
	if (cat && !__atomic_sub_fetch(&cat->refs, 1, __ATOMIC_ACQ_REL)) {
		kpc_sites_free(&cat->s);
		free(cat);
	}
}

struct kpx_sites_cat *kpx_sites_get(struct kpx_sites *s, char *why, size_t len)
{
	struct kpx_sites_cat *cat;

	if (!s || !s->ready) {
		snprintf(why, len, "no call-site catalog");
		return NULL;
	}
	pthread_mutex_lock(&s->lock);
	cat = s->cat;
	if (cat)
		__atomic_add_fetch(&cat->refs, 1, __ATOMIC_RELAXED);
	else if (s->error[0])
		snprintf(why, len, "the call-site catalog %s; build it again with kprint sites"
			 " build", s->error);
	else
		snprintf(why, len, "no call-site catalog for kernel %s at %s; build one with"
			 " kprint sites build", s->kernel, s->path);
	pthread_mutex_unlock(&s->lock);
	return cat;
}

/* The file as it is now replaces what was served: cat NULL for none. */
static void kpx_sites_swap(struct kpx_sites *s, struct kpx_sites_cat *cat, const char *error,
			   bool failed)
{
	struct kpx_sites_cat *old;

	pthread_mutex_lock(&s->lock);
	old = s->cat;
	s->cat = cat;
	snprintf(s->error, sizeof(s->error), "%s", error);
	if (failed)
		s->failures++;
	pthread_mutex_unlock(&s->lock);
	kpx_sites_cat_put(old);
}

static bool kpx_sites_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Read the file; a bad one is said and counted, and none is served. */
static void kpx_sites_load(struct kpx_sites *s)
{
	struct kpx_sites_cat *cat = calloc(1, sizeof(*cat));
	char err[sizeof(s->error)] = "";
	int ret;

	if (!cat) {
		kpx_log("call-site catalog %s: out of memory\n", s->path);
		kpx_sites_swap(s, NULL, "could not be read: out of memory", true);
		return;
	}
	ret = kpc_sites_load(s->path, &cat->s, err, sizeof(err));
	if (ret) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s: %s", s->path, strerror(-ret));
		kpx_log("call-site catalog %s; serving none until the file changes\n", err);
		free(cat);
		kpx_sites_swap(s, NULL, err, true);
		return;
	}
	cat->refs = 1;
	if (!cat->s.kernel || strcmp(cat->s.kernel, s->kernel))
		kpx_log("call-site catalog %s: built for kernel %s, this one runs %s\n", s->path,
			cat->s.kernel ? cat->s.kernel : "(none)", s->kernel);
	kpx_log("call-site catalog %s: %zu entries\n", s->path, cat->s.n);
	kpx_sites_swap(s, cat, "", false);
}

/* Look at the file, and read it when it is not the one read last. */
static void kpx_sites_look(struct kpx_sites *s, bool start)
{
	struct stat st;

	if (stat(s->path, &st)) {
		int err = errno;

		/* Said once, at the start or when it goes. */
		if (s->had_file || start) {
			s->had_file = false;
			if (err == ENOENT) {
				kpx_log("no call-site catalog %s for kernel %s (kprint sites"
					" build makes one)\n", s->path, s->kernel);
				kpx_sites_swap(s, NULL, "", false);
			} else {
				char why[sizeof(s->error)];

				snprintf(why, sizeof(why), "%s: %s", s->path, strerror(err));
				kpx_log("call-site catalog %s\n", why);
				kpx_sites_swap(s, NULL, why, true);
			}
		}
		return;
	}
	if (s->had_file && kpx_sites_same_file(&st, &s->st))
		return;
	s->had_file = true;
	s->st = st;
	kpx_sites_load(s);
}

void kpx_sites_init(struct kpx_sites *s, const char *dir)
{
	struct utsname u;

	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->check_lock, NULL);
	s->ready = true;
	snprintf(s->kernel, sizeof(s->kernel), "%s", uname(&u) ? "unknown" : u.release);
	if (!kpc_sites_path(dir, s->kernel, s->path, sizeof(s->path))) {
		s->path[0] = '\0';
		snprintf(s->error, sizeof(s->error), "directory: the path is too long");
		kpx_log("--sites.dir: the path is too long; serving no call-site catalog\n");
		return;
	}
	s->checked = kpx_sites_now();
	kpx_sites_look(s, true);
}

void kpx_sites_refresh(struct kpx_sites *s)
{
	double now = kpx_sites_now();

	if (!s || !s->ready || !s->path[0])
		return;
	/* Another thread looking now is as good; its answer comes soon. */
	if (pthread_mutex_trylock(&s->check_lock))
		return;
	if (now - s->checked >= KPX_SITES_CHECK_S) {
		s->checked = now;
		kpx_sites_look(s, false);
	}
	pthread_mutex_unlock(&s->check_lock);
}

void kpx_sites_fini(struct kpx_sites *s)
{
	if (!s->ready)
		return;
	kpx_sites_cat_put(s->cat);
	s->cat = NULL;
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->check_lock);
	s->ready = false;
}

/*
 * Formats counted under a source that the catalog has no entry for:
 * kprint's own API (its formats are no printk's), modules built out of
 * tree, a catalog of another build.
 */
static void kpx_sites_uncataloged(struct kpx_expo *e, const struct kpc_sites *cat,
				  struct kpx_metrics *m)
{
	uint64_t missing[KPX_SEEN_NR_SOURCES] = { 0 };
	bool counted[KPX_SEEN_NR_SOURCES] = { false };
	struct kpx_seen seen;

	kpx_expo_metric_head(e, KPX_M_FORMATS_UNCATALOGED);
	if (!cat || kpx_seen_collect(m, &seen))
		return;
	for (size_t i = 0; i < seen.n; i++) {
		counted[seen.v[i].source] = true;
		if (!kpc_sites_find(cat, seen.v[i].format_id))
			missing[seen.v[i].source]++;
	}
	/* Every BPF source once loaded, even at 0, so that an alert sees 0 and not none. */
	for (unsigned int src = 0; src < KPX_SEEN_NR_SOURCES; src++)
		if (counted[src] || (m->bpf && src < KPC_BPF_NR_SOURCES) ||
		    (src == KPX_SEEN_REPLAY && m->store->replay))
			kpx_expo_sample1(e->out, KPX_M_FORMATS_UNCATALOGED, "source",
					 kpx_seen_source_name(src), missing[src]);
	free(seen.v);
}

void kpx_sites_metrics(struct kpx_expo *e, struct kpx_sites *s, struct kpx_metrics *m)
{
	struct kpx_sites_cat *cat;
	uint64_t failures = 0;
	char why[8];

	kpx_sites_refresh(s);
	cat = kpx_sites_get(s, why, sizeof(why));
	if (s && s->ready) {
		pthread_mutex_lock(&s->lock);
		failures = s->failures;
		pthread_mutex_unlock(&s->lock);
	}
	kpx_expo_single(e, KPX_M_SITES_LOADED, cat ? 1 : 0);
	kpx_expo_metric_head(e, KPX_M_SITES_ENTRIES);
	if (cat) {
		fprintf(e->out, "%s{kernel=\"", kpx_metric_name(KPX_M_SITES_ENTRIES));
		kpx_label_escape(e->out, cat->s.kernel ? cat->s.kernel : "");
		fprintf(e->out, "\"} %zu\n", cat->s.n);
	}
	kpx_expo_single(e, KPX_M_SITES_LOAD_FAILURES, failures);
	kpx_sites_uncataloged(e, cat ? &cat->s : NULL, m);
	kpx_sites_cat_put(cat);
}
