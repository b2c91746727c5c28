// SPDX-License-Identifier: GPL-2.0
/*
 * Two kernels' call-site catalogs compared: the ids in both (unchanged,
 * perhaps moved), and those of one only, paired by text where they stay
 * in the same module and function (kpc_sites_diff.h says how).
 *
 * The image read without kallsyms puts thousands of formats in one group
 * (module "vmlinux", no function), so a pair's similarity is bounded
 * before it is computed: the lengths, then the byte histograms (each edit
 * changes a histogram by at most one in each direction), then an edit
 * distance computed only in the band the threshold allows.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_sites_diff.h"

#define KPC_SITES_HIST	32	/* histogram bins: bytes folded modulo 32 */

static const char *const kpc_sites_changes[KPC_SITES_CHANGE_MAX] = {
	[KPC_SITES_ADDED] = "added",
	[KPC_SITES_REMOVED] = "removed",
	[KPC_SITES_CHANGED] = "changed",
	[KPC_SITES_MOVED] = "moved",
};

const char *kpc_sites_change_name(enum kpc_sites_change change)
{
	return change < KPC_SITES_CHANGE_MAX ? kpc_sites_changes[change] : NULL;
}

/* A function's name without the suffix of a compiler's clone or cold part. */
static size_t kpc_sites_fn_len(const char *fn)
{
	return strcspn(fn, ".");
}

/* -1, 0, 1 as strcmp() on the names without suffix; no function first. */
static int kpc_sites_fn_cmp(const char *a, const char *b)
{
	size_t la, lb;
	int c;

	if (!a || !b)
		return !!a - !!b;
	la = kpc_sites_fn_len(a);
	lb = kpc_sites_fn_len(b);
	c = memcmp(a, b, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* The same place: one module, and one function where both know it. */
static bool kpc_sites_same_place(const struct kpc_site *a, const struct kpc_site *b)
{
	if (strcmp(a->module, b->module))
		return false;
	return !a->function || !b->function || !kpc_sites_fn_cmp(a->function, b->function);
}

static bool kpc_sites_place_in(const struct kpc_site *e, const struct kpc_site *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (kpc_sites_same_place(e, &v[i]))
			return true;
	return false;
}

/*
 * Moved: printed from none of the places it was.  A format that keeps one
 * of its places and gains or loses others (a "%s" of a hundred modules)
 * has not moved.
 */
static bool kpc_sites_moved(const struct kpc_site *a, size_t na, const struct kpc_site *b,
			    size_t nb)
{
	size_t i;

	for (i = 0; i < na; i++)
		if (kpc_sites_place_in(&a[i], b, nb))
			return false;
	return true;
}

/* One entry of an id that the other catalog lacks, with what bounds its similarity. */
struct kpc_sites_cand {
	const struct kpc_site *e;
	size_t id;			/* index in its side's ids */
	size_t len;
	uint16_t hist[KPC_SITES_HIST];
};

static void kpc_sites_cand_init(struct kpc_sites_cand *c, const struct kpc_site *e, size_t id)
{
	const unsigned char *p;

	memset(c, 0, sizeof(*c));
	c->e = e;
	c->id = id;
	for (p = (const unsigned char *)e->format; *p; p++)
		if (c->hist[*p % KPC_SITES_HIST] < UINT16_MAX)
			c->hist[*p % KPC_SITES_HIST]++;
	c->len = p - (const unsigned char *)e->format;
}

/*
 * The edit distance of @a and @b when at most @max, else max + 1.  Only
 * the band |i - j| <= max of the table is computed; a cell outside it is
 * taken as max + 1.  @row: 2 * (lb + 2) cells.
 */
static size_t kpc_sites_edit_distance(const char *a, size_t la, const char *b, size_t lb,
				      size_t max, size_t *row)
{
	size_t *prev = row, *cur = row + lb + 2, *t, i, j, lo, hi, best;

	if (la > lb + max || lb > la + max)
		return max + 1;
	for (j = 0; j <= lb && j <= max; j++)
		prev[j] = j;
	if (j <= lb)
		prev[j] = max + 1;
	for (i = 1; i <= la; i++) {
		lo = i > max ? i - max : 1;
		hi = i + max < lb ? i + max : lb;
		cur[lo - 1] = lo == 1 ? i : max + 1;
		best = cur[lo - 1];
		for (j = lo; j <= hi; j++) {
			size_t d = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (hi + 1 <= lb)
			cur[hi + 1] = max + 1;
		if (best > max)
			return max + 1;
		t = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] > max ? max + 1 : prev[lb];
}

/* Similarity of two candidates, or -1 below @min.  @row: 2 * (longest + 2) cells. */
static double kpc_sites_cand_sim(const struct kpc_sites_cand *a, const struct kpc_sites_cand *b,
				 double min, size_t *row)
{
	size_t longest = a->len > b->len ? a->len : b->len, max, more = 0, less = 0, d, i;

	if (!longest)
		return 1;
	max = (size_t)((1 - min) * longest + 1e-9);
	if (a->len > b->len + max || b->len > a->len + max)
		return -1;
	for (i = 0; i < KPC_SITES_HIST; i++) {
		if (a->hist[i] > b->hist[i])
			more += a->hist[i] - b->hist[i];
		else
			less += b->hist[i] - a->hist[i];
	}
	if (more > max || less > max)
		return -1;
	d = kpc_sites_edit_distance(a->e->format, a->len, b->e->format, b->len, max, row);
	return d > max ? -1 : 1 - (double)d / longest;
}

double kpc_sites_similarity(const char *a, const char *b, double min)
{
	struct kpc_site sa = { .format = (char *)a }, sb = { .format = (char *)b };
	struct kpc_sites_cand ca, cb;
	size_t *row;
	double sim;

	kpc_sites_cand_init(&ca, &sa, 0);
	kpc_sites_cand_init(&cb, &sb, 0);
	row = malloc(2 * (cb.len + 2) * sizeof(*row));
	if (!row)
		return -1;
	sim = kpc_sites_cand_sim(&ca, &cb, min, row);
	free(row);
	return sim;
}

/* The ids of one catalog that the other lacks, and their entries. */
struct kpc_sites_side {
	const struct kpc_site **ids;	/* each id's first entry */
	bool *matched;
	size_t nids;
	struct kpc_sites_cand *cand;
	size_t ncand;
};

static int kpc_sites_side_init(struct kpc_sites_side *side, const struct kpc_sites *s)
{
	memset(side, 0, sizeof(*side));
	side->ids = calloc(s->n + 1, sizeof(*side->ids));
	side->matched = calloc(s->n + 1, sizeof(*side->matched));
	side->cand = calloc(s->n + 1, sizeof(*side->cand));
	return side->ids && side->matched && side->cand ? 0 : -ENOMEM;
}

static void kpc_sites_side_free(struct kpc_sites_side *side)
{
	free(side->ids);
	free(side->matched);
	free(side->cand);
}

static void kpc_sites_side_add(struct kpc_sites_side *side, const struct kpc_site *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		kpc_sites_cand_init(&side->cand[side->ncand++], &v[i], side->nids);
	side->ids[side->nids++] = v;
}

static int kpc_sites_cand_cmp(const void *pa, const void *pb)
{
	const struct kpc_sites_cand *a = pa, *b = pb;
	int c = strcmp(a->e->module, b->e->module);

	if (!c)
		c = kpc_sites_fn_cmp(a->e->function, b->e->function);
	if (!c)
		c = (a->len > b->len) - (a->len < b->len);
	return c;
}

struct kpc_sites_pair {
	const struct kpc_sites_cand *old, *new;
	double sim;
};

struct kpc_sites_pairs {
	struct kpc_sites_pair *v;
	size_t n, cap;
};

static int kpc_sites_pair_add(struct kpc_sites_pairs *p, const struct kpc_sites_cand *o,
			      const struct kpc_sites_cand *n, double sim)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct kpc_sites_pair *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct kpc_sites_pair){ o, n, sim };
	return 0;
}

/* The most similar first; ties by the ids, so that the result is the same each run. */
static int kpc_sites_pair_cmp(const void *pa, const void *pb)
{
	const struct kpc_sites_pair *a = pa, *b = pb;
	uint64_t ao = a->old->e->format_id, bo = b->old->e->format_id;
	uint64_t an = a->new->e->format_id, bn = b->new->e->format_id;

	if (a->sim != b->sim)
		return a->sim > b->sim ? -1 : 1;
	if (ao != bo)
		return ao < bo ? -1 : 1;
	return (an > bn) - (an < bn);
}

/* The end of the run of candidates in @c's module, from @i. */
static size_t kpc_sites_module_end(const struct kpc_sites_cand *c, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && !strcmp(c[j].e->module, c[i].e->module))
		j++;
	return j;
}

/* Every pair of one module's candidates near enough to be a change. */
static int kpc_sites_module_pairs(const struct kpc_sites_cand *o, size_t no,
				  const struct kpc_sites_cand *n, size_t nn,
				  struct kpc_sites_pairs *pairs, size_t *row)
{
	size_t i, j;
	double min, sim;
	int err;

	for (i = 0; i < no; i++) {
		for (j = 0; j < nn; j++) {
			if (o[i].e->function && n[j].e->function) {
				if (kpc_sites_fn_cmp(o[i].e->function, n[j].e->function))
					continue;
				min = KPC_SITES_SIM_FUNCTION;
			} else {
				min = KPC_SITES_SIM_MODULE;
			}
			sim = kpc_sites_cand_sim(&o[i], &n[j], min, row);
			if (sim < 0)
				continue;
			err = kpc_sites_pair_add(pairs, &o[i], &n[j], sim);
			if (err)
				return err;
		}
	}
	return 0;
}

static int kpc_sites_delta_add(struct kpc_sites_diff *d, enum kpc_sites_change change,
			       const struct kpc_site *old, const struct kpc_site *new, double sim)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		struct kpc_sites_delta *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = (struct kpc_sites_delta){ change, old, new, sim };
	d->count[change]++;
	return 0;
}

/* All pairs over the modules both sides have, sorted the most similar first. */
static int kpc_sites_all_pairs(struct kpc_sites_side *o, struct kpc_sites_side *n,
			       struct kpc_sites_pairs *pairs)
{
	size_t i = 0, j = 0, i1, j1, longest = 0, k, *row;
	int err = 0, c;

	qsort(o->cand, o->ncand, sizeof(*o->cand), kpc_sites_cand_cmp);
	qsort(n->cand, n->ncand, sizeof(*n->cand), kpc_sites_cand_cmp);
	for (k = 0; k < n->ncand; k++)
		if (n->cand[k].len > longest)
			longest = n->cand[k].len;
	row = malloc(2 * (longest + 2) * sizeof(*row));
	if (!row)
		return -ENOMEM;
	while (!err && i < o->ncand && j < n->ncand) {
		i1 = kpc_sites_module_end(o->cand, o->ncand, i);
		j1 = kpc_sites_module_end(n->cand, n->ncand, j);
		c = strcmp(o->cand[i].e->module, n->cand[j].e->module);
		if (!c)
			err = kpc_sites_module_pairs(&o->cand[i], i1 - i, &n->cand[j], j1 - j,
						     pairs, row);
		if (c <= 0)
			i = i1;
		if (c >= 0)
			j = j1;
	}
	free(row);
	if (!err)
		qsort(pairs->v, pairs->n, sizeof(*pairs->v), kpc_sites_pair_cmp);
	return err;
}

/* Changed: the pairs taken greedily, each id once; then removed and added. */
static int kpc_sites_match(struct kpc_sites_side *o, struct kpc_sites_side *n,
			   struct kpc_sites_diff *d)
{
	struct kpc_sites_pairs pairs = { 0 };
	size_t i;
	int err;

	err = kpc_sites_all_pairs(o, n, &pairs);
	for (i = 0; !err && i < pairs.n; i++) {
		const struct kpc_sites_pair *p = &pairs.v[i];

		if (o->matched[p->old->id] || n->matched[p->new->id])
			continue;
		o->matched[p->old->id] = n->matched[p->new->id] = true;
		err = kpc_sites_delta_add(d, KPC_SITES_CHANGED, p->old->e, p->new->e, p->sim);
	}
	free(pairs.v);
	for (i = 0; !err && i < o->nids; i++)
		if (!o->matched[i])
			err = kpc_sites_delta_add(d, KPC_SITES_REMOVED, o->ids[i], NULL, 0);
	for (i = 0; !err && i < n->nids; i++)
		if (!n->matched[i])
			err = kpc_sites_delta_add(d, KPC_SITES_ADDED, NULL, n->ids[i], 0);
	return err;
}

const char *kpc_sites_delta_module(const struct kpc_sites_delta *d)
{
	return d->new ? d->new->module : d->old->module;
}

const char *kpc_sites_delta_function(const struct kpc_sites_delta *d)
{
	if (d->new && d->new->function)
		return d->new->function;
	return d->old ? d->old->function : NULL;
}

static int kpc_sites_delta_cmp(const void *pa, const void *pb)
{
	const struct kpc_sites_delta *a = pa, *b = pb;
	const struct kpc_site *sa = a->old ? a->old : a->new, *sb = b->old ? b->old : b->new;
	const char *fa = kpc_sites_delta_function(a), *fb = kpc_sites_delta_function(b);
	int c = strcmp(kpc_sites_delta_module(a), kpc_sites_delta_module(b));

	if (!c)
		c = fa && fb ? strcmp(fa, fb) : !!fa - !!fb;
	if (!c)
		c = (int)a->change - (int)b->change;
	if (!c)
		c = strcmp(sa->format, sb->format);
	return c;
}

/* The run of entries with the id of s->v[i]. */
static size_t kpc_sites_id_end(const struct kpc_sites *s, size_t i)
{
	size_t j = i + 1;

	while (j < s->n && s->v[j].format_id == s->v[i].format_id)
		j++;
	return j;
}

/* The walk over both catalogs by id: unchanged and moved, and each side's own ids. */
static int kpc_sites_walk(const struct kpc_sites *old, const struct kpc_sites *new,
			  struct kpc_sites_side *o, struct kpc_sites_side *n,
			  struct kpc_sites_diff *d)
{
	size_t i = 0, j = 0, i1, j1;
	int err = 0;

	while (!err && (i < old->n || j < new->n)) {
		i1 = i < old->n ? kpc_sites_id_end(old, i) : i;
		j1 = j < new->n ? kpc_sites_id_end(new, j) : j;
		if (j == new->n || (i < old->n && old->v[i].format_id < new->v[j].format_id)) {
			kpc_sites_side_add(o, &old->v[i], i1 - i);
			i = i1;
		} else if (i == old->n || new->v[j].format_id < old->v[i].format_id) {
			kpc_sites_side_add(n, &new->v[j], j1 - j);
			j = j1;
		} else {
			d->unchanged++;
			if (kpc_sites_moved(&old->v[i], i1 - i, &new->v[j], j1 - j))
				err = kpc_sites_delta_add(d, KPC_SITES_MOVED, &old->v[i],
							  &new->v[j], 1);
			i = i1;
			j = j1;
		}
	}
	return err;
}

int kpc_sites_diff(const struct kpc_sites *old, const struct kpc_sites *new,
		   struct kpc_sites_diff *out)
{
	struct kpc_sites_side o = { 0 }, n = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	err = kpc_sites_side_init(&o, old);
	if (!err)
		err = kpc_sites_side_init(&n, new);
	if (!err)
		err = kpc_sites_walk(old, new, &o, &n, out);
	if (!err)
		err = kpc_sites_match(&o, &n, out);
	kpc_sites_side_free(&o);
	kpc_sites_side_free(&n);
	if (err) {
		kpc_sites_diff_free(out);
		return err;
	}
	qsort(out->v, out->n, sizeof(*out->v), kpc_sites_delta_cmp);
	return 0;
}

void kpc_sites_diff_free(struct kpc_sites_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

const struct kpc_sites_delta *kpc_sites_diff_gone(const struct kpc_sites_diff *d, uint64_t id)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if ((d->v[i].change == KPC_SITES_REMOVED || d->v[i].change == KPC_SITES_CHANGED) &&
		    d->v[i].old->format_id == id)
			return &d->v[i];
	return NULL;
}
