// SPDX-License-Identifier: GPL-2.0
/*
 * The --catalog files that /records and /events translate with: one per
 * language, read whole at the start and again on SIGHUP, and swapped in
 * as a set that its last user frees.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpx_catalogs.h"
#include "kpx_log.h"

static void kpx_catalog_set_free(struct kpx_catalog_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++) {
		kpc_catalog_free(set->l[i].cat);
		free(set->l[i].path);
	}
	free(set);
}

static int kpx_catalog_lang_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kpx_catalog_lang *)a)->lang,
		      ((const struct kpx_catalog_lang *)b)->lang);
}

/*
 * A language as lang= can name it: what a Language: header holds
 * ("de", "pt_BR", "sr@latin"), no more.
 */
static bool kpx_lang_valid(const char *lang)
{
	size_t n = strlen(lang);

	if (!n || n >= KPX_LANG_MAX)
		return false;
	return strspn(lang, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-@.") == n;
}

int kpx_catalogs_load(const char *const *paths, size_t n, struct kpx_catalog_set **out)
{
	struct kpx_catalog_set *set;
	struct kpc_catalog_error err;
	int ret = 0;

	set = calloc(1, sizeof(*set) + n * sizeof(set->l[0]));
	if (!set) {
		kpx_log("--catalog: out of memory\n");
		return -ENOMEM;
	}
	set->refs = 1;
	for (size_t i = 0; i < n; i++) {
		struct kpx_catalog_lang *l = &set->l[i];

		ret = kpc_catalog_load(paths[i], &l->cat, &err);
		if (ret) {
			kpx_log("--catalog %s\n", err.msg);
			goto fail;
		}
		set->n++;
		l->lang = kpc_catalog_language(l->cat);
		l->path = strdup(paths[i]);
		if (!l->path) {
			kpx_log("--catalog: out of memory\n");
			ret = -ENOMEM;
			goto fail;
		}
		/* Which language a file is for, the file says: no guessing from its name. */
		ret = -EINVAL;
		if (!*l->lang) {
			kpx_log("--catalog %s:%u: no Language: in the"
				" header; the exporter serves each catalog by its language\n",
				paths[i], kpc_catalog_header_line(l->cat) ?: 1);
			goto fail;
		}
		if (!kpx_lang_valid(l->lang)) {
			kpx_log("--catalog %s:%u: Language: is a code"
				" like de or pt_BR (letters, digits, _ - @ .), at most %d bytes\n",
				paths[i], kpc_catalog_header_line(l->cat), KPX_LANG_MAX - 1);
			goto fail;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(set->l[j].lang, l->lang))
				continue;
			kpx_log("--catalog %s:%u: language %s again,"
				" already from %s: one catalog per language\n", paths[i],
				kpc_catalog_header_line(l->cat), l->lang, set->l[j].path);
			goto fail;
		}
		ret = 0;
	}
	qsort(set->l, set->n, sizeof(set->l[0]), kpx_catalog_lang_cmp);
	*out = set;
	return 0;
fail:
	kpx_catalog_set_free(set);
	return ret;
}

void kpx_catalogs_init(struct kpx_catalogs *c, const char *const *paths, size_t n,
		       struct kpx_catalog_set *set)
{
	pthread_mutex_init(&c->lock, NULL);
	c->paths = paths;
	c->npaths = n;
	c->set = set;
}

struct kpx_catalog_set *kpx_catalogs_get(struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set;

	if (!c)
		return NULL;
	pthread_mutex_lock(&c->lock);
	set = c->set;
	if (set)
		__atomic_add_fetch(&set->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->lock);
	return set;
}

void kpx_catalog_set_put(struct kpx_catalog_set *set)
{
	if (set && !__atomic_sub_fetch(&set->refs, 1, __ATOMIC_ACQ_REL))
		kpx_catalog_set_free(set);
}

int kpx_catalogs_reload(struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set, *old;
	int ret;

	if (!c->npaths)
		return 0;
	ret = kpx_catalogs_load(c->paths, c->npaths, &set);
	if (ret)
		return ret;
	pthread_mutex_lock(&c->lock);
	old = c->set;
	c->set = set;
	pthread_mutex_unlock(&c->lock);
	kpx_catalog_set_put(old);
	return 0;
}

void kpx_catalogs_fini(struct kpx_catalogs *c)
{
	kpx_catalog_set_put(c->set);
	c->set = NULL;
	pthread_mutex_destroy(&c->lock);
}

const struct kpc_catalog *kpx_catalog_find(const struct kpx_catalog_set *set,
					   const char *lang)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (!strcmp(set->l[i].lang, lang))
			return set->l[i].cat;
	return NULL;
}

char *kpx_catalogs_json(struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set = kpx_catalogs_get(c);
	char *out = NULL;
	size_t size;
	int bad;
	FILE *f;

	f = open_memstream(&out, &size);
	if (!f) {
		kpx_catalog_set_put(set);
		return NULL;
	}
	/* Languages are checked at load: nothing in them needs escaping. */
	fputc('[', f);
	for (size_t i = 0; set && i < set->n; i++)
		fprintf(f, "%s{\"language\":\"%s\",\"translations\":%zu}", i ? "," : "",
			set->l[i].lang, kpc_catalog_stats(set->l[i].cat)->translated);
	fputc(']', f);
	kpx_catalog_set_put(set);
	bad = ferror(f);
	if (fclose(f) || bad) {
		free(out);
		return NULL;
	}
	return out;
}
