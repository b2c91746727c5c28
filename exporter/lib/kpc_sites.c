// SPDX-License-Identifier: GPL-2.0
/*
 * The call-site catalog in memory: entries added, sorted, found, and the
 * names the file spells (kpc_sites.h).  The readers of the kernel image,
 * module files and the printk index add through kpc_sites_add_found().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprint_fnv1a.h"
#include "kpc_sites_scan.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const kpc_site_levels[] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
	[KPC_SITE_LEVEL_DEFAULT] = "default",
	[KPC_SITE_LEVEL_CONT] = "cont",
};

static const char *const kpc_site_kinds[KPC_SITE_KIND_MAX] = {
	[KPC_SITE_PRINTK] = "printk",
	[KPC_SITE_PRINTK_BARE] = "printk_bare",
	[KPC_SITE_DEV] = "dev",
	[KPC_SITE_NETDEV] = "netdev",
};

static const char *const kpc_site_sources[KPC_SITE_SRC_MAX] = {
	[KPC_SITE_SRC_IMAGE] = "image",
	[KPC_SITE_SRC_MODULE] = "module",
	[KPC_SITE_SRC_INDEX] = "printk_index",
};

const char *kpc_site_level_name(int level)
{
	if (level < 0 || level >= (int)ARRAY_SIZE(kpc_site_levels))
		return NULL;
	return kpc_site_levels[level];
}

int kpc_site_level_parse(const char *name)
{
	unsigned int i;

	if (!name)
		return KPC_SITE_LEVEL_NONE;
	for (i = 0; i < ARRAY_SIZE(kpc_site_levels); i++)
		if (kpc_site_levels[i] && !strcmp(name, kpc_site_levels[i]))
			return i;
	return -2;
}

const char *kpc_site_kind_name(enum kpc_site_kind kind)
{
	return kind < KPC_SITE_KIND_MAX ? kpc_site_kinds[kind] : NULL;
}

const char *kpc_site_source_name(enum kpc_site_source src)
{
	return src < KPC_SITE_SRC_MAX ? kpc_site_sources[src] : NULL;
}

/*
 * The printing functions of 6.1 to 6.12 that take a format.  dev_printk()
 * is a macro over _dev_printk() since 5.x; both names are listed so that
 * either kernel's symbol matches.
 */
static const struct kpc_sites_printer kpc_sites_printers[] = {
	{ "_printk",		0, KPC_SITE_PRINTK_BARE, KPC_SITE_LEVEL_NONE },
	{ "_dev_emerg",		1, KPC_SITE_DEV, 0 },
	{ "_dev_alert",		1, KPC_SITE_DEV, 1 },
	{ "_dev_crit",		1, KPC_SITE_DEV, 2 },
	{ "_dev_err",		1, KPC_SITE_DEV, 3 },
	{ "_dev_warn",		1, KPC_SITE_DEV, 4 },
	{ "_dev_notice",	1, KPC_SITE_DEV, 5 },
	{ "_dev_info",		1, KPC_SITE_DEV, 6 },
	{ "_dev_printk",	2, KPC_SITE_DEV, KPC_SITE_LEVEL_NONE },
	{ "dev_printk",		2, KPC_SITE_DEV, KPC_SITE_LEVEL_NONE },
	{ "netdev_emerg",	1, KPC_SITE_NETDEV, 0 },
	{ "netdev_alert",	1, KPC_SITE_NETDEV, 1 },
	{ "netdev_crit",	1, KPC_SITE_NETDEV, 2 },
	{ "netdev_err",		1, KPC_SITE_NETDEV, 3 },
	{ "netdev_warn",	1, KPC_SITE_NETDEV, 4 },
	{ "netdev_notice",	1, KPC_SITE_NETDEV, 5 },
	{ "netdev_info",	1, KPC_SITE_NETDEV, 6 },
	{ "netdev_printk",	2, KPC_SITE_NETDEV, KPC_SITE_LEVEL_NONE },
};

const struct kpc_sites_printer *kpc_sites_printer(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpc_sites_printers); i++)
		if (!strcmp(name, kpc_sites_printers[i].name))
			return &kpc_sites_printers[i];
	return NULL;
}

/* printk_get_level(): the character after a KERN_SOH that makes a pair. */
static int kpc_sites_soh_level(const char *s, size_t n)
{
	if (n < 2 || s[0] != '\001')
		return 0;
	if ((s[1] >= '0' && s[1] <= '7') || s[1] == 'c')
		return s[1];
	return 0;
}

int kpc_sites_strip(const char *s, size_t n, const char **fmt, size_t *len)
{
	int level = KPC_SITE_LEVEL_NONE, c;

	while ((c = kpc_sites_soh_level(s, n))) {
		if (c == 'c') {
			if (level == KPC_SITE_LEVEL_NONE)
				level = KPC_SITE_LEVEL_CONT;
		} else if (level == KPC_SITE_LEVEL_NONE || level == KPC_SITE_LEVEL_CONT) {
			level = c - '0';
		}
		s += 2;
		n -= 2;
	}
	if (n && s[n - 1] == '\n')
		n--;
	*fmt = s;
	*len = n;
	return level;
}

static char *kpc_sites_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

int kpc_sites_add(struct kpc_sites *s, const struct kpc_site *site)
{
	struct kpc_site *e;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct kpc_site *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	e = &s->v[s->n];
	*e = *site;
	e->format = kpc_sites_strdup(site->format);
	e->module = kpc_sites_strdup(site->module);
	e->function = kpc_sites_strdup(site->function);
	e->file = kpc_sites_strdup(site->file);
	if (!e->format || !e->module || (site->function && !e->function) ||
	    (site->file && !e->file)) {
		free(e->format);
		free(e->module);
		free(e->function);
		free(e->file);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

int kpc_sites_add_found(struct kpc_sites *s, const char *fmt, size_t len, int level,
			const char *module, const char *function,
			enum kpc_site_kind kind, enum kpc_site_source src)
{
	struct kpc_site site = {
		.format_id = kprint_fnv1a64_mem(fmt, len),
		.level = level,
		.module = (char *)module,
		.function = (char *)function,
		.kind = kind,
		.source = src,
	};
	int err;

	/* A format with a NUL inside cannot reach printk past it. */
	if (memchr(fmt, '\0', len))
		return -EINVAL;
	site.format = strndup(fmt, len);
	if (!site.format)
		return -ENOMEM;
	err = kpc_sites_add(s, &site);
	free(site.format);
	return err;
}

static int kpc_sites_strcmp(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int kpc_sites_cmp(const void *pa, const void *pb)
{
	const struct kpc_site *a = pa, *b = pb;
	int c;

	if (a->format_id != b->format_id)
		return a->format_id < b->format_id ? -1 : 1;
	c = kpc_sites_strcmp(a->module, b->module);
	if (!c)
		c = kpc_sites_strcmp(a->function, b->function);
	if (!c)
		c = (int)a->kind - (int)b->kind;
	if (!c)
		c = (int)a->source - (int)b->source;
	return c;
}

static void kpc_site_free(struct kpc_site *e)
{
	free(e->format);
	free(e->module);
	free(e->function);
	free(e->file);
}

/*
 * Sorted by format_id, module, function, kind, source; one entry kept of
 * those equal in all five (the same format printed twice in a function),
 * the one with a file and a level if either has them.
 */
void kpc_sites_sort(struct kpc_sites *s)
{
	size_t i, out = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), kpc_sites_cmp);
	for (i = 1; i < s->n; i++) {
		struct kpc_site *keep = &s->v[out], *e = &s->v[i];

		if (kpc_sites_cmp(keep, e)) {
			s->v[++out] = *e;
			continue;
		}
		if (!keep->file && e->file) {
			keep->file = e->file;
			keep->line = e->line;
			e->file = NULL;
		}
		if (keep->level == KPC_SITE_LEVEL_NONE)
			keep->level = e->level;
		kpc_site_free(e);
	}
	s->n = out + 1;
}

const struct kpc_site *kpc_sites_find(const struct kpc_sites *s, uint64_t id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].format_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo].format_id == id ? &s->v[lo] : NULL;
}

void kpc_sites_free(struct kpc_sites *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		kpc_site_free(&s->v[i]);
	free(s->v);
	free(s->kernel);
	free(s->built);
	free(s->image);
	memset(s, 0, sizeof(*s));
}

const char *kpc_sites_path(const char *dir, const char *kernel, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s.jsonl", dir ? dir : KPC_SITES_DIR, kernel);

	return n < 0 || (size_t)n >= len ? NULL : buf;
}

void kpc_sites_module_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i + 1 < len && base[i] && base[i] != '.'; i++)
		buf[i] = base[i] == '-' ? '_' : base[i];
	if (len)
		buf[i] = '\0';
}
