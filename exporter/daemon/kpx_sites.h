/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's call-site catalog (kprint sites build), as the
 * exporter serves it: loaded at the start and again when the file
 * changes (kpx_sites.c); which of its formats the exporter's own
 * per-format counts know (kpx_sites_seen.c); /sites and /formats?never=1
 * (kpx_sites_query.c).
 */
#ifndef KPX_SITES_H
#define KPX_SITES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kpc_sites.h"
#include "kpx_expo.h"

/* The file is looked at, on a request or a scrape, at most this often. */
#define KPX_SITES_CHECK_S	2

/* One catalog as read, shared by the answers being written; the last put frees it. */
struct kpx_sites_cat {
	unsigned int refs;		/* atomic */
	struct kpc_sites s;
};

struct kpx_sites {
	pthread_mutex_t lock;		/* cat, error, failures */
	pthread_mutex_t check_lock;	/* one look at the file at a time */
	char kernel[sizeof(((struct utsname *)0)->release)];
	char path[1024];		/* "": the path was too long, nothing served */
	struct kpx_sites_cat *cat;	/* NULL: absent */
	char error[1280];		/* why absent: "" for a missing file */
	uint64_t failures;		/* files that could not be loaded */
	/* The file as last looked at (check_lock), to tell when it changes. */
	bool had_file;
	struct stat st;
	double checked;			/* CLOCK_MONOTONIC, s; 0: never */
	bool ready;
};

/* The catalog of the running kernel in dir (NULL: KPC_SITES_DIR), read now. */
void kpx_sites_init(struct kpx_sites *s, const char *dir);
void kpx_sites_fini(struct kpx_sites *s);
/* Read the file again if it changed; looks at most every KPX_SITES_CHECK_S. */
void kpx_sites_refresh(struct kpx_sites *s);
/*
 * The catalog served now, with a reference (put it back), or NULL with
 * why in @why (a missing file, or file:line of a corrupt one).
 */
struct kpx_sites_cat *kpx_sites_get(struct kpx_sites *s, char *why, size_t len);
void kpx_sites_cat_put(struct kpx_sites_cat *cat);

/*
 * Which format ids the exporter's own counts know: the BPF maps' per
 * source; a replay's; without either, the records the store holds.
 * Sorted by format_id, then source; one item per (format_id, source).
 */
enum {
	KPX_SEEN_REPLAY = 2,		/* after the BPF sources (enum kpc_bpf_source) */
	KPX_SEEN_RECORDS,
	KPX_SEEN_NR_SOURCES
};

struct kpx_seen_format {
	uint64_t format_id;
	uint64_t count;
	unsigned int source;		/* KPC_BPF_*, KPX_SEEN_* */
};

struct kpx_seen {
	struct kpx_seen_format *v;	/* malloc'd */
	size_t n;
};

struct kpx_metrics;

/* 0, or -ENOMEM; out->n 0 when nothing is counted. */
int kpx_seen_collect(struct kpx_metrics *m, struct kpx_seen *out);
/* Whether format_id is counted, and its count summed over the sources. */
bool kpx_seen_count(const struct kpx_seen *seen, uint64_t format_id, uint64_t *count);
const char *kpx_seen_source_name(unsigned int source);

/* The catalog's families of /metrics (refreshes the catalog first). */
void kpx_sites_metrics(struct kpx_expo *e, struct kpx_sites *s, struct kpx_metrics *m);

#endif /* KPX_SITES_H */
