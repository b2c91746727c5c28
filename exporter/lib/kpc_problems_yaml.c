// SPDX-License-Identifier: GPL-2.0
/*
 * The problem catalog loader's YAML helpers: errors with FILE:LINE, the
 * strings it keeps, mappings with known keys, lists of names.  Apart from
 * kpc_problems_load.c (the file, the problems) and kpc_problems_format.c
 * (a problem's formats), which both use them, so that neither imports the
 * other back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_problems_load.h"

int kpc_pl_err(struct kpc_pload *l, const yaml_node_t *n, const char *fmt, ...)
{
	size_t at;
	va_list ap;

	snprintf(l->err, l->errlen, "%s:%zu: ", l->path, n ? n->start_mark.line + 1 : 1);
	at = strlen(l->err);
	va_start(ap, fmt);
	vsnprintf(l->err + at, l->errlen - at, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Keep ptr for kpc_problems_free(); NULL (ptr freed) when out of memory. */
void *kpc_pl_keep(struct kpc_pload *l, void *ptr)
{
	struct kpc_problems *p = l->p;

	if (!ptr)
		return NULL;
	if (p->nallocs == p->allocs_room) {
		size_t room = p->allocs_room ? 2 * p->allocs_room : 64;
		void **a = realloc(p->allocs, room * sizeof(*a));

		if (!a) {
			free(ptr);
			return NULL;
		}
		p->allocs = a;
		p->allocs_room = room;
	}
	p->allocs[p->nallocs++] = ptr;
	return ptr;
}

/* A scalar as a kept C string; NUL inside (a "\0" escape) is no string. */
int kpc_pl_str(struct kpc_pload *l, const char *what, const yaml_node_t *v, const char **out)
{
	char *s;

	if (v->type != YAML_SCALAR_NODE ||
	    strlen((char *)v->data.scalar.value) != v->data.scalar.length)
		return kpc_pl_err(l, v, "%s: wants a string", what);
	s = kpc_pl_keep(l, strdup((char *)v->data.scalar.value));
	if (!s)
		return -ENOMEM;
	*out = s;
	return 0;
}

/* "device", "task_memcg": what a label, an exemplar and a journal field take. */
bool kpc_pl_name_ok(const char *s)
{
	const char *p;

	if (!((*s >= 'a' && *s <= 'z') || *s == '_') || !strncmp(s, "__", 2))
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return p - s < 64;
}

/* Each key of a mapping a scalar from known, none twice. */
int kpc_pl_keys(struct kpc_pload *l, const yaml_node_t *map, const char *what,
		const char *const *known, size_t nknown, const yaml_node_t **vals)
{
	yaml_node_pair_t *a;
	size_t i;

	if (map->type != YAML_MAPPING_NODE)
		return kpc_pl_err(l, map, "%s: wants a mapping", what);
	memset(vals, 0, nknown * sizeof(*vals));
	for (a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top; a++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, a->key);
		const char *key;

		if (k->type != YAML_SCALAR_NODE)
			return kpc_pl_err(l, k, "%s: a key must be a string", what);
		key = (const char *)k->data.scalar.value;
		for (i = 0; i < nknown; i++)
			if (!strcmp(key, known[i]))
				break;
		if (i == nknown)
			return kpc_pl_err(l, k, "%s: unknown key '%s'", what, key);
		if (vals[i])
			return kpc_pl_err(l, k, "%s: '%s' given twice", what, key);
		vals[i] = yaml_document_get_node(l->doc, a->value);
	}
	return 0;
}

/*
 * A sequence of names (labels, attribution, args) into names[*n], at most
 * max; "-" stands for no name (NULL) where dash is true.
 */
int kpc_pl_names(struct kpc_pload *l, const char *what, const yaml_node_t *v,
		 unsigned int max, const char **names, unsigned int *n, bool dash)
{
	yaml_node_item_t *it;
	int err;

	*n = 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return kpc_pl_err(l, v, "%s: wants a list", what);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(l->doc, *it);
		const char *s;

		err = kpc_pl_str(l, what, e, &s);
		if (err)
			return err;
		if (*n == max)
			return kpc_pl_err(l, e, "%s: more than %u names", what, max);
		if (dash && !strcmp(s, "-")) {
			names[(*n)++] = NULL;
			continue;
		}
		if (!kpc_pl_name_ok(s))
			return kpc_pl_err(l, e, "%s: '%s' is not a name (lowercase letters,"
					  " digits and '_', not starting with a digit)", what, s);
		for (unsigned int i = 0; i < *n; i++)
			if (names[i] && !strcmp(names[i], s))
				return kpc_pl_err(l, e, "%s: '%s' given twice", what, s);
		names[(*n)++] = s;
	}
	return 0;
}
