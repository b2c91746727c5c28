/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The web page at / (kpx_page.c): its files, compiled in from
 * daemon/web/ by daemon/web/embed.sh, and the per-level palette it is
 * drawn with.  kpx_http_routes.c routes to it, kpx_http_reply.c adds the
 * headers.
 */
#ifndef KPX_PAGE_H
#define KPX_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "kpc.h"

/* One file of daemon/web/, as embed.sh writes it. */
struct kpx_asset {
	const char *path;		/* "/" for index.html, else "/ui/NAME" */
	const char *type;		/* its Content-Type */
	const unsigned char *data;
	size_t len;
};

/*
 * The generated table (.output/exporter/daemon/kpx_web_assets.c), ended
 * by a NULL path.  Only kprint_exporter links it; kpx_main.c hands it
 * over, so the daemon's other users (the fuzzers) need no build product
 * and get the page of links instead.
 */
extern const struct kpx_asset kpx_web_assets[];

/* A file as served: the index with its placeholders filled in. */
struct kpx_page_file {
	const char *path;
	const char *type;
	const char *data;
	size_t len;
	char etag[24];			/* "\"" 16 hex digits "\"" */
};

#define KPX_PAGE_FILES	16

struct kpx_page {
	const struct kpx_asset *assets;	/* NULL: the page of links only */
	/* --web.level-color specs (kpc_color_parse()'s), NULL: the default. */
	const char *level_color[KPRINT_LEVEL_MAX + 1];
	struct kpx_page_file files[KPX_PAGE_FILES];
	unsigned int nfiles;
	char *index;			/* the index with placeholders filled */
};

/* "LEVEL=SPEC", --web.level-color, into level_color[LEVEL]; 0 or -EINVAL. */
int kpx_page_level_color(const char **level_color, const char *assignment);
/*
 * Build the files to serve; telemetry is the metrics' path, linked from
 * the page's footer.  Without assets, the index is the page of links.
 * 0 or -ENOMEM.
 */
int kpx_page_build(struct kpx_page *p, const char *telemetry);
void kpx_page_free(struct kpx_page *p);
/* The file served at url, or NULL. */
const struct kpx_page_file *kpx_page_file(const struct kpx_page *p, const char *url);
/* Whether url is (or is under) a path of the page's: not for metrics. */
bool kpx_page_path(const char *url);

/* Query parameters the page itself reads (kpx_page_param()). */
#define KPX_PAGE_PALETTE	"/ui/palette.css"

/*
 * The palette as CSS: the configured level colors, overridden by the
 * "LEVEL=SPEC" assignments in colors[0..n).  malloc'd, or NULL with the
 * reason in err (a bad assignment, -EINVAL) or -ENOMEM.
 */
char *kpx_page_palette(const struct kpx_page *p, const char *const *colors,
		       unsigned int n, char *err, size_t errlen, int *errp);
/*
 * Whether name is a parameter the page at / understands (its filters,
 * palette and language, read by its script); others are a 400 there.
 */
bool kpx_page_param(const char *name);
/* An ETag for body: FNV-1a 64, quoted. */
void kpx_page_etag(const void *body, size_t len, char etag[24]);

#endif /* KPX_PAGE_H */
