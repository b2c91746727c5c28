/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --catalog files that /records and /events translate with
 * (kpx_catalogs.c).
 */
#ifndef KPX_CATALOGS_H
#define KPX_CATALOGS_H

#include <pthread.h>
#include <stddef.h>

#include "kpc.h"

#define KPX_LANG_MAX		36	/* a lang= value, NUL included */

/*
 * The --catalog files, one per language, read whole and never changed: a
 * SIGHUP reads them again into a new set and swaps it in, and the old set
 * goes when its last user (a /records answer being written, a stream's
 * fill) puts it back.
 */
struct kpx_catalog_lang {
	char *path;
	const char *lang;		/* the catalog's Language: */
	struct kpc_catalog *cat;
};

struct kpx_catalog_set {
	unsigned int refs;		/* atomic */
	size_t n;
	struct kpx_catalog_lang l[];	/* by language, ascending */
};

struct kpx_catalogs {
	pthread_mutex_t lock;		/* set's pointer, taking a reference */
	struct kpx_catalog_set *set;	/* NULL: no --catalog */
	const char *const *paths;	/* as given, read again on SIGHUP */
	size_t npaths;
};

/*
 * Read paths[n] into a new set: each must name its language in the
 * header (Language:), one file per language.  0 with *out; -EINVAL after
 * saying "FILE:LINE: reason" on stderr, or another -errno, said too.
 */
int kpx_catalogs_load(const char *const *paths, size_t n, struct kpx_catalog_set **out);
/* Serve set (may be NULL: none), read from paths again by reload. */
void kpx_catalogs_init(struct kpx_catalogs *c, const char *const *paths, size_t n,
		       struct kpx_catalog_set *set);
/* SIGHUP: the files again; 0 once swapped in, else the old set stays. */
int kpx_catalogs_reload(struct kpx_catalogs *c);
void kpx_catalogs_fini(struct kpx_catalogs *c);
/* The set served now, with a reference (NULL: none, or c NULL); put it back. */
struct kpx_catalog_set *kpx_catalogs_get(struct kpx_catalogs *c);
void kpx_catalog_set_put(struct kpx_catalog_set *set);
/* The catalog of lang in set (either may be NULL), or NULL. */
const struct kpc_catalog *kpx_catalog_find(const struct kpx_catalog_set *set,
					   const char *lang);
/* GET /catalogs: [{"language":"de","translations":N},...] (malloc'd) or NULL. */
char *kpx_catalogs_json(struct kpx_catalogs *c);

#endif /* KPX_CATALOGS_H */
