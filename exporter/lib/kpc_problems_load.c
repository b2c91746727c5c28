// SPDX-License-Identifier: GPL-2.0
/*
 * The problem catalog's loader: problems.yaml (kpc_problems.h) read with
 * libyaml into a node tree, whose marks give every error its line, as the
 * exporter's web config does (kpx_webconfig.c).
 *
 * A catalog is either loaded whole or refused with FILE:LINE: reason.
 * What the matcher will need is resolved here, once: each format parsed
 * and compiled (its inner one too), each name a label, an attribution or a
 * predicate uses tied to the argument, inner argument, record field or
 * context key it comes from, and the hash of format ids built, so that
 * matching a record never looks at a name again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "kpc_problems_int.h"
#include "kpc_problems_load.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Names the exporter puts beside a problem's labels and attribution. */
static const char *const kpc_pl_reserved[] = {
	"problem", "condition", "kind", "seq", "kprint_instance", "le", "quantile",
};

/* "OOMKilling", "ReadonlyFilesystem": NPD's names, and ours like them. */
static bool kpc_pl_ident_ok(const char *s)
{
	const char *p;

	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return p - s < 64;
}

static int kpc_pl_rule_names(struct kpc_pload *l, struct kpc_problem_rule *r,
			     const yaml_node_t *labels, const yaml_node_t *attrs)
{
	unsigned int i, j, k;
	int err = 0;

	if (labels)
		err = kpc_pl_names(l, "labels", labels, KPC_PROBLEM_LABELS_MAX, r->labels,
				   &r->nlabels, false);
	if (!err && attrs)
		err = kpc_pl_names(l, "attribution", attrs, KPC_PROBLEM_ATTRS_MAX, r->attrs,
				   &r->nattrs, false);
	if (err)
		return err;
	for (i = 0; i < r->nattrs; i++)
		for (j = 0; j < r->nlabels; j++)
			if (!strcmp(r->attrs[i], r->labels[j]))
				return kpc_pl_err(l, attrs, "attribution: '%s' is a label already",
						  r->attrs[i]);
	for (k = 0; k < ARRAY_SIZE(kpc_pl_reserved); k++) {
		for (i = 0; i < r->nlabels; i++)
			if (!strcmp(r->labels[i], kpc_pl_reserved[k]))
				return kpc_pl_err(l, labels, "labels: '%s' is the exporter's own",
						  r->labels[i]);
		for (i = 0; i < r->nattrs; i++)
			if (!strcmp(r->attrs[i], kpc_pl_reserved[k]))
				return kpc_pl_err(l, attrs, "attribution: '%s' is the exporter's"
						  " own", r->attrs[i]);
	}
	return 0;
}

/* The header fields of a problem: name, kind, ids and words. */
static int kpc_pl_rule_head(struct kpc_pload *l, const yaml_node_t *node,
			    struct kpc_problem_rule *r, const yaml_node_t **v)
{
	const char *kind = NULL;
	unsigned int i;
	int err;

	if (!v[0] || !v[1] || !v[3] || !v[4] || !v[5] || !v[8])
		return kpc_pl_err(l, node, "a problem wants %s",
				  !v[0] ? "'problem' (its name)" : !v[1] ? "'kind'" :
				  !v[3] ? "'message-id'" : !v[4] ? "'summary'" :
				  !v[5] ? "'description'" : "'formats'");
	err = kpc_pl_str(l, "problem", v[0], &r->name);
	if (!err && !kpc_pl_ident_ok(r->name))
		return kpc_pl_err(l, v[0], "problem: '%s' is not a name (letters, digits, '_')",
				  r->name);
	for (i = 0; !err && i < r->index; i++)
		if (!strcmp(l->p->rules[i].name, r->name))
			return kpc_pl_err(l, v[0], "problem '%s' given twice", r->name);
	if (!err)
		err = kpc_pl_str(l, "kind", v[1], &kind);
	if (err)
		return err;
	if (!strcmp(kind, "event"))
		r->kind = KPC_PROBLEM_EVENT;
	else if (!strcmp(kind, "condition"))
		r->kind = KPC_PROBLEM_CONDITION;
	else
		return kpc_pl_err(l, v[1], "kind: '%s' is neither event nor condition", kind);
	if (r->kind == KPC_PROBLEM_CONDITION && !v[2])
		return kpc_pl_err(l, node, "a problem of kind condition wants 'condition'");
	if (r->kind == KPC_PROBLEM_EVENT && v[2])
		return kpc_pl_err(l, v[2], "condition: only a problem of kind condition has one");
	if (v[2]) {
		err = kpc_pl_str(l, "condition", v[2], &r->condition);
		if (!err && !kpc_pl_ident_ok(r->condition))
			return kpc_pl_err(l, v[2], "condition: '%s' is not a name", r->condition);
	}
	if (!err)
		err = kpc_pl_str(l, "message-id", v[3], &r->message_id);
	if (err)
		return err;
	if (strlen(r->message_id) != 32 ||
	    strspn(r->message_id, "0123456789abcdef") != 32)
		return kpc_pl_err(l, v[3], "message-id: wants 32 lowercase hex digits"
				  " (journalctl --new-id128), not '%s'", r->message_id);
	for (i = 0; i < r->index; i++)
		if (!strcmp(l->p->rules[i].message_id, r->message_id))
			return kpc_pl_err(l, v[3], "message-id: %s is problem %s's already",
					  r->message_id, l->p->rules[i].name);
	err = kpc_pl_str(l, "summary", v[4], &r->summary);
	if (!err)
		err = kpc_pl_str(l, "description", v[5], &r->description);
	return err;
}

/* Whether any format of rule r (or its context) gives name a value. */
static bool kpc_pl_bound(const struct kpc_problems *p, const struct kpc_problem_rule *r,
			 unsigned int first, bool label, unsigned int i)
{
	unsigned int f;

	for (f = first; f < p->nfmts; f++) {
		const struct kpc_pfmt *pf = &p->fmts[f];
		const struct kpc_pbind *b = label ? &pf->label_from[i] : &pf->attr_from[i];

		if (pf->pub.rule == r && b->kind != KPC_PBIND_NONE)
			return true;
	}
	return false;
}

static const char *const kpc_pl_rule_keys[] = {
	"problem", "kind", "condition", "message-id", "summary", "description",
	"labels", "attribution", "formats", "context",
};

static int kpc_pl_rule(struct kpc_pload *l, const yaml_node_t *node, unsigned int ri)
{
	struct kpc_problem_rule *r = &l->p->rules[ri];
	const yaml_node_t *v[ARRAY_SIZE(kpc_pl_rule_keys)];
	unsigned int first = l->p->nfmts, i;
	yaml_node_item_t *it;
	int err;

	r->index = ri;
	err = kpc_pl_keys(l, node, "problem", kpc_pl_rule_keys, ARRAY_SIZE(v), v);
	if (!err)
		err = kpc_pl_rule_head(l, node, r, v);
	if (!err)
		err = kpc_pl_rule_names(l, r, v[6], v[7]);
	if (!err && v[9])
		err = kpc_pl_context(l, v[9], r, &l->p->ctx[ri]);
	if (err)
		return err;
	if (v[8]->type != YAML_SEQUENCE_NODE || v[8]->data.sequence.items.start ==
	    v[8]->data.sequence.items.top)
		return kpc_pl_err(l, v[8], "formats: wants a list of one format or more");
	for (it = v[8]->data.sequence.items.start; it < v[8]->data.sequence.items.top; it++) {
		struct kpc_pfmt *f = &l->p->fmts[l->p->nfmts];

		err = kpc_pl_format(l, yaml_document_get_node(l->doc, *it), r, l->p->ctx[ri], f);
		if (err) {
			/* Not counted, so not freed with the catalog. */
			kpc_fm_free(f->inner);
			f->inner = NULL;
			return err;
		}
		l->p->nfmts++;
	}
	for (i = 0; i < r->nlabels; i++)
		if (!kpc_pl_bound(l->p, r, first, true, i))
			return kpc_pl_err(l, v[6], "labels: no format of %s binds '%s'",
					  r->name, r->labels[i]);
	for (i = 0; i < r->nattrs; i++)
		if (!kpc_pl_bound(l->p, r, first, false, i))
			return kpc_pl_err(l, v[7], "attribution: no format or context of %s"
					  " binds '%s'", r->name, r->attrs[i]);
	return 0;
}

/* The hash of format ids; an entry for each rule format and context slot. */
static int kpc_pl_hash(struct kpc_problems *p)
{
	unsigned int buckets = 16, i;

	while (buckets < 2 * (p->nfmts + p->nslots))
		buckets *= 2;
	p->hash = calloc(buckets, sizeof(*p->hash));
	if (!p->hash)
		return -ENOMEM;
	p->hash_mask = buckets - 1;
	for (i = 0; i < p->nfmts + p->nslots; i++) {
		uint64_t id = i < p->nfmts ? p->fmts[i].pub.format_id :
			      p->slots[i - p->nfmts].format_id;
		struct kpc_pentry *e = &p->hash[id & p->hash_mask];

		while (e->used && e->id != id)
			e = &p->hash[(e - p->hash + 1) & p->hash_mask];
		if (!e->used) {
			e->used = true;
			e->id = id;
			e->fmt = -1;
			e->slot = -1;
		}
		if (i >= p->nfmts) {
			e->slot = i - p->nfmts;
		} else if (e->fmt < 0) {
			e->fmt = i;
		} else {
			/* Appended, so that hits come in the catalog's order. */
			int f = e->fmt;

			while (p->fmts[f].next >= 0)
				f = p->fmts[f].next;
			p->fmts[f].next = i;
		}
	}
	return 0;
}

const struct kpc_pentry *kpc_problems_lookup(const struct kpc_problems *p, uint64_t id)
{
	const struct kpc_pentry *e = &p->hash[id & p->hash_mask];

	while (e->used) {
		if (e->id == id)
			return e;
		e = &p->hash[(e - p->hash + 1) & p->hash_mask];
	}
	return NULL;
}

/* Formats in all problems, for allocating them at once. */
static unsigned int kpc_pl_count_formats(struct kpc_pload *l, const yaml_node_t *seq)
{
	static const char *const key = "formats";
	unsigned int n = 0;
	yaml_node_item_t *it;
	yaml_node_pair_t *pr;

	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		yaml_node_t *m = yaml_document_get_node(l->doc, *it);

		if (m->type != YAML_MAPPING_NODE)
			continue;
		for (pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
			yaml_node_t *v = yaml_document_get_node(l->doc, pr->value);

			if (k->type == YAML_SCALAR_NODE && v->type == YAML_SEQUENCE_NODE &&
			    !strcmp((char *)k->data.scalar.value, key))
				n += v->data.sequence.items.top - v->data.sequence.items.start;
		}
	}
	return n;
}

static const char *const kpc_pl_root_keys[] = { "kprint-problems", "problems" };

static int kpc_pl_root(struct kpc_pload *l, const yaml_node_t *root)
{
	const yaml_node_t *v[ARRAY_SIZE(kpc_pl_root_keys)];
	struct kpc_problems *p = l->p;
	const char *version;
	yaml_node_item_t *it;
	unsigned int n, i;
	int err;

	err = kpc_pl_keys(l, root, "the catalog", kpc_pl_root_keys, ARRAY_SIZE(v), v);
	if (err)
		return err;
	if (!v[0] || !v[1])
		return kpc_pl_err(l, root, "the catalog wants '%s'",
				  !v[0] ? "kprint-problems: 1" : "problems");
	err = kpc_pl_str(l, "kprint-problems", v[0], &version);
	if (err)
		return err;
	if (strcmp(version, "1"))
		return kpc_pl_err(l, v[0], "kprint-problems: version '%s' is not 1, the one"
				  " this kprint reads", version);
	if (v[1]->type != YAML_SEQUENCE_NODE)
		return kpc_pl_err(l, v[1], "problems: wants a list");
	n = v[1]->data.sequence.items.top - v[1]->data.sequence.items.start;
	p->rules = calloc(n ? n : 1, sizeof(*p->rules));
	p->ctx = calloc(n ? n : 1, sizeof(*p->ctx));
	i = kpc_pl_count_formats(l, v[1]);
	p->fmts = calloc(i ? i : 1, sizeof(*p->fmts));
	if (!p->rules || !p->ctx || !p->fmts)
		return -ENOMEM;
	for (i = 0, it = v[1]->data.sequence.items.start; i < n; i++, it++) {
		err = kpc_pl_rule(l, yaml_document_get_node(l->doc, *it), i);
		if (err)
			return err;
		p->nrules++;
	}
	return kpc_pl_hash(p);
}

static int kpc_pl_parse(struct kpc_pload *l, FILE *f)
{
	yaml_parser_t parser;
	yaml_node_t *root;
	int err;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, l->doc)) {
		snprintf(l->err, l->errlen, "%s:%zu: %s%s%s", l->path,
			 parser.problem_mark.line + 1,
			 parser.context ? parser.context : "",
			 parser.context ? ": " : "",
			 parser.problem ? parser.problem : "not YAML");
		err = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
		yaml_parser_delete(&parser);
		return err;
	}
	yaml_parser_delete(&parser);
	root = yaml_document_get_root_node(l->doc);
	if (!root)
		err = kpc_pl_err(l, NULL, "empty: no catalog");
	else
		err = kpc_pl_root(l, root);
	yaml_document_delete(l->doc);
	return err;
}

int kpc_problems_load(const char *path, struct kpc_problems **out, char *err, size_t errlen)
{
	yaml_document_t doc;
	struct kpc_pload l = { .path = path, .doc = &doc, .err = err, .errlen = errlen };
	FILE *f;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	l.p = calloc(1, sizeof(*l.p));
	if (!l.p)
		return -ENOMEM;
	l.p->path = strdup(path);
	f = fopen(path, "re");
	if (!f || !l.p->path) {
		ret = f ? -ENOMEM : -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		if (f)
			fclose(f);
		kpc_problems_free(l.p);
		return ret;
	}
	ret = kpc_pl_parse(&l, f);
	fclose(f);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		kpc_problems_free(l.p);
		return ret;
	}
	*out = l.p;
	return 0;
}

void kpc_problems_free(struct kpc_problems *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nfmts; i++)
		kpc_fm_free(p->fmts[i].inner);
	for (i = 0; i < p->nallocs; i++)
		free(p->allocs[i]);
	free(p->allocs);
	free(p->hash);
	free(p->fmts);
	free(p->ctx);
	free(p->rules);
	free(p->path);
	free(p);
}

unsigned int kpc_problems_count(const struct kpc_problems *p)
{
	return p->nrules;
}

const struct kpc_problem_rule *kpc_problems_rule(const struct kpc_problems *p, unsigned int i)
{
	return i < p->nrules ? &p->rules[i] : NULL;
}

const struct kpc_problem_rule *kpc_problems_find(const struct kpc_problems *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->nrules; i++)
		if (!strcmp(p->rules[i].name, name))
			return &p->rules[i];
	return NULL;
}

unsigned int kpc_problems_nformats(const struct kpc_problems *p)
{
	return p->nfmts;
}

const struct kpc_problem_format *kpc_problems_format(const struct kpc_problems *p,
						     unsigned int i)
{
	return i < p->nfmts ? &p->fmts[i].pub : NULL;
}

const char *kpc_problems_default_path(char *buf, size_t len)
{
	char exe[4096];
	ssize_t n;
	char *slash;
	int i;

	if (!access(KPC_PROBLEMS_FILE, F_OK))
		return KPC_PROBLEMS_FILE;
	/* .output/bin/kprint or .output/exporter/kprint: two levels below the tree. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (i = 0; i < 3; i++) {
		slash = strrchr(exe, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
	}
	if ((size_t)snprintf(buf, len, "%s/problems/problems.yaml", exe) >= len ||
	    access(buf, F_OK))
		return NULL;
	return buf;
}
