// SPDX-License-Identifier: GPL-2.0
/*
 * The problem catalog loader, its second half: one entry of a problem's
 * "formats" (the format and its args, the inner format of its %pV, the
 * record fields it names, its predicates, where it is printed) and a
 * problem's "context" (the line printed before it, whose key=value pairs
 * attribute it).
 *
 * A format is written as a record has it: the bridge strips the leading
 * KERN_ level and one trailing newline from what printk was given, so a
 * rule whose format still has them could never match, and is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_problems_load.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *const kpc_pfield_names[KPC_PFIELD_COUNT] = {
	[KPC_PFIELD_DEVICE]	= "device",
	[KPC_PFIELD_COMM]	= "comm",
	[KPC_PFIELD_PID]	= "pid",
	[KPC_PFIELD_MODULE]	= "module",
	[KPC_PFIELD_SUBSYSTEM]	= "subsystem",
	[KPC_PFIELD_FUNCTION]	= "function",
};

/* A format as a record has it, compiled; *fm for the caller to free. */
static int kpc_pl_fmt_str(struct kpc_pload *l, const char *what, const yaml_node_t *v,
			  const char **s, struct kpc_fm **fm)
{
	char why[160];
	size_t len;
	int err;

	err = kpc_pl_str(l, what, v, s);
	if (err)
		return err;
	len = strlen(*s);
	if (len && (*s)[len - 1] == '\n')
		return kpc_pl_err(l, v, "%s: ends in a newline, which no record's format"
				  " has (the bridge strips it)", what);
	if ((*s)[0] == '\001')
		return kpc_pl_err(l, v, "%s: starts with a KERN_ level, which no record's"
				  " format has (the bridge strips it)", what);
	err = kpc_fm_compile(*s, fm, why, sizeof(why));
	if (err == -EINVAL)
		return kpc_pl_err(l, v, "%s: %s", what, why);
	return err;
}

/* A sequence naming each of n conversions ("-" for none). */
static int kpc_pl_conv_names(struct kpc_pload *l, const char *what, const yaml_node_t *v,
			     const yaml_node_t *at, unsigned int nconv, const char **names,
			     unsigned int *n)
{
	int err;

	*n = 0;
	if (!v) {
		if (!nconv)
			return 0;
		return kpc_pl_err(l, at, "%s: wanted, a name (or \"-\") for each of the %u"
				  " conversions", what, nconv);
	}
	err = kpc_pl_names(l, what, v, KPRINT_ARGS_MAX, names, n, true);
	if (!err && *n != nconv)
		err = kpc_pl_err(l, v, "%s: %u name%s for %u conversion%s", what, *n,
				 *n == 1 ? "" : "s", nconv, nconv == 1 ? "" : "s");
	return err;
}

/* format and args (v[0], v[1]); inner (v[2]) only to judge a bare format. */
static int kpc_pl_outer(struct kpc_pload *l, const yaml_node_t *node,
			const yaml_node_t **v, struct kpc_pfmt *f)
{
	struct kpc_fm *fm = NULL;
	unsigned int i, npv = 0;
	int err;

	err = kpc_pl_fmt_str(l, "format", v[0], &f->pub.format, &fm);
	if (err)
		return err;
	f->nconv = kpc_fm_nconv(fm);
	for (i = 0; i < f->nconv; i++) {
		if (kpc_fm_is_pv(fm, i) && !npv++)
			f->pv = i;
	}
	if (!kpc_fm_literal_len(fm) && !v[2])
		err = kpc_pl_err(l, v[0], "format: \"%s\" has no text of its own: any message"
				 " could be it (name the inner format of its %%pV)",
				 f->pub.format);
	kpc_fm_free(fm);
	if (!err && v[2] && npv != 1)
		err = kpc_pl_err(l, v[2], "inner: the format has %s %%pV", npv ? "more than one"
				 : "no");
	if (err)
		return err;
	f->pub.format_id = kpc_format_id(f->pub.format);
	return kpc_pl_conv_names(l, "args", v[1], node, f->nconv, f->args, &f->nconv);
}

/* inner and inner-args (v[2], v[3]). */
static int kpc_pl_inner(struct kpc_pload *l, const yaml_node_t *node,
			const yaml_node_t **v, struct kpc_pfmt *f)
{
	int err;

	if (!v[2]) {
		if (v[3])
			return kpc_pl_err(l, v[3], "inner-args: without an inner format");
		return 0;
	}
	err = kpc_pl_fmt_str(l, "inner", v[2], &f->pub.inner, &f->inner);
	if (err)
		return err;
	if (!kpc_fm_literal_len(f->inner))
		return kpc_pl_err(l, v[2], "inner: \"%s\" has no text of its own: any message"
				  " could be it", f->pub.inner);
	return kpc_pl_conv_names(l, "inner-args", v[3], node, kpc_fm_nconv(f->inner),
				 f->inner_args, &f->ninner);
}

/* record: {name: field}. */
static int kpc_pl_record(struct kpc_pload *l, const yaml_node_t *v, struct kpc_pfmt *f)
{
	yaml_node_pair_t *pr;
	unsigned int i;
	int err;

	if (!v)
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return kpc_pl_err(l, v, "record: wants a mapping of names to record fields");
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(l->doc, pr->key);
		const yaml_node_t *val = yaml_document_get_node(l->doc, pr->value);
		const char *name, *field;

		err = kpc_pl_str(l, "record", k, &name);
		if (!err)
			err = kpc_pl_str(l, "record", val, &field);
		if (err)
			return err;
		if (!kpc_pl_name_ok(name))
			return kpc_pl_err(l, k, "record: '%s' is not a name", name);
		for (i = 0; i < KPC_PFIELD_COUNT; i++)
			if (!strcmp(field, kpc_pfield_names[i]))
				break;
		if (i == KPC_PFIELD_COUNT)
			return kpc_pl_err(l, val, "record: '%s' is not a record field (device,"
					  " comm, pid, module, subsystem, function)", field);
		if (f->nfields == KPC_PROBLEM_FIELDS_MAX)
			return kpc_pl_err(l, k, "record: more than %u names",
					  KPC_PROBLEM_FIELDS_MAX);
		f->field_names[f->nfields] = name;
		f->fields[f->nfields++] = i;
	}
	return 0;
}

/* Where this format gets name from (the context last, labels only). */
static struct kpc_pbind kpc_pl_bind(const struct kpc_pfmt *f, const struct kpc_pctx *ctx,
				    const char *name)
{
	struct kpc_pbind b = { KPC_PBIND_NONE, 0 };
	unsigned int i;

	for (i = 0; i < f->nconv; i++)
		if (f->args[i] && !strcmp(f->args[i], name))
			return (struct kpc_pbind){ KPC_PBIND_ARG, i };
	for (i = 0; i < f->ninner; i++)
		if (f->inner_args[i] && !strcmp(f->inner_args[i], name))
			return (struct kpc_pbind){ KPC_PBIND_INNER, i };
	for (i = 0; i < f->nfields; i++)
		if (!strcmp(f->field_names[i], name))
			return (struct kpc_pbind){ KPC_PBIND_FIELD, f->fields[i] };
	for (i = 0; ctx && i < ctx->nkeys; i++)
		if (!strcmp(ctx->names[i], name))
			return (struct kpc_pbind){ KPC_PBIND_CONTEXT, i };
	return b;
}

/* No name bound twice among args, inner-args and record. */
static int kpc_pl_unique(struct kpc_pload *l, const yaml_node_t *node, const struct kpc_pfmt *f)
{
	const char *all[2 * KPRINT_ARGS_MAX + KPC_PROBLEM_FIELDS_MAX];
	unsigned int n = 0, i, j;

	for (i = 0; i < f->nconv; i++)
		if (f->args[i])
			all[n++] = f->args[i];
	for (i = 0; i < f->ninner; i++)
		if (f->inner_args[i])
			all[n++] = f->inner_args[i];
	for (i = 0; i < f->nfields; i++)
		all[n++] = f->field_names[i];
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(all[i], all[j]))
				return kpc_pl_err(l, node, "'%s' is bound twice in this format",
						  all[i]);
	return 0;
}

static const char *const kpc_pl_ops[] = {
	[KPC_PRED_EQUALS] = "equals", [KPC_PRED_PREFIX] = "prefix", [KPC_PRED_ONE_OF] = "one-of",
};

/* One predicate: name: {equals: V} | {prefix: V} | {one-of: [V, ...]}. */
static int kpc_pl_pred(struct kpc_pload *l, const yaml_node_t *k, const yaml_node_t *v,
		       struct kpc_pfmt *f)
{
	const yaml_node_t *ops[ARRAY_SIZE(kpc_pl_ops)];
	struct kpc_ppred *pr = &f->preds[f->npreds];
	const char *name;
	unsigned int i, n = 0;
	int err;

	err = kpc_pl_str(l, "where", k, &name);
	if (!err)
		err = kpc_pl_keys(l, v, "where", kpc_pl_ops, ARRAY_SIZE(ops), ops);
	if (err)
		return err;
	pr->from = kpc_pl_bind(f, NULL, name);
	if (pr->from.kind == KPC_PBIND_NONE)
		return kpc_pl_err(l, k, "where: '%s' is not bound by this format", name);
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (ops[i]) {
			pr->op = i;
			n++;
		}
	if (n != 1)
		return kpc_pl_err(l, v, "where: '%s' wants one of equals, prefix, one-of", name);
	v = ops[pr->op];
	pr->values = kpc_pl_keep(l, calloc(KPRINT_ARGS_MAX, sizeof(*pr->values)));
	if (!pr->values)
		return -ENOMEM;
	if (pr->op != KPC_PRED_ONE_OF) {
		pr->nvalues = 1;
		err = kpc_pl_str(l, kpc_pl_ops[pr->op], v, &pr->values[0]);
	} else if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.start ==
		   v->data.sequence.items.top) {
		err = kpc_pl_err(l, v, "one-of: wants a list of one value or more");
	} else {
		yaml_node_item_t *it;

		for (it = v->data.sequence.items.start; !err && it < v->data.sequence.items.top;
		     it++) {
			if (pr->nvalues == KPRINT_ARGS_MAX)
				return kpc_pl_err(l, v, "one-of: more than %u values",
						  KPRINT_ARGS_MAX);
			err = kpc_pl_str(l, "one-of", yaml_document_get_node(l->doc, *it),
					 &pr->values[pr->nvalues++]);
		}
	}
	if (!err)
		f->npreds++;
	return err;
}

static int kpc_pl_where(struct kpc_pload *l, const yaml_node_t *v, struct kpc_pfmt *f)
{
	yaml_node_pair_t *pr;
	int err;

	if (!v)
		return 0;
	if (v->type != YAML_MAPPING_NODE)
		return kpc_pl_err(l, v, "where: wants a mapping of names to predicates");
	for (pr = v->data.mapping.pairs.start; pr < v->data.mapping.pairs.top; pr++) {
		if (f->npreds == KPC_PROBLEM_PREDS_MAX)
			return kpc_pl_err(l, v, "where: more than %u predicates",
					  KPC_PROBLEM_PREDS_MAX);
		err = kpc_pl_pred(l, yaml_document_get_node(l->doc, pr->key),
				  yaml_document_get_node(l->doc, pr->value), f);
		if (err)
			return err;
	}
	return 0;
}

/* kernels and source (v[6], v[7]). */
static int kpc_pl_where_printed(struct kpc_pload *l, const yaml_node_t *node,
				const yaml_node_t **v, struct kpc_pfmt *f)
{
	const char **kernels;
	yaml_node_item_t *it;
	int err;

	if (!v[7])
		return kpc_pl_err(l, node, "a format wants 'source' (\"file: function()\","
				  " where the kernel prints it)");
	err = kpc_pl_str(l, "source", v[7], &f->pub.source);
	if (err || !v[6])
		return err;
	if (v[6]->type != YAML_SEQUENCE_NODE)
		return kpc_pl_err(l, v[6], "kernels: wants a list");
	kernels = kpc_pl_keep(l, calloc(v[6]->data.sequence.items.top -
					v[6]->data.sequence.items.start + 1, sizeof(*kernels)));
	if (!kernels)
		return -ENOMEM;
	for (it = v[6]->data.sequence.items.start; it < v[6]->data.sequence.items.top; it++) {
		err = kpc_pl_str(l, "kernels", yaml_document_get_node(l->doc, *it),
				 &kernels[f->pub.nkernels]);
		if (err)
			return err;
		f->pub.nkernels++;
	}
	f->pub.kernels = kernels;
	return 0;
}

static const char *const kpc_pl_fmt_keys[] = {
	"format", "args", "inner", "inner-args", "record", "where", "kernels", "source",
};

int kpc_pl_format(struct kpc_pload *l, const yaml_node_t *node,
		  const struct kpc_problem_rule *r, const struct kpc_pctx *ctx,
		  struct kpc_pfmt *f)
{
	const yaml_node_t *v[ARRAY_SIZE(kpc_pl_fmt_keys)];
	unsigned int i;
	int err;

	f->pub.rule = r;
	f->pub.line = node->start_mark.line + 1;
	f->pv = -1;
	f->next = -1;
	f->ctx = ctx;
	err = kpc_pl_keys(l, node, "formats", kpc_pl_fmt_keys, ARRAY_SIZE(v), v);
	if (!err && !v[0])
		err = kpc_pl_err(l, node, "a format entry wants 'format'");
	if (!err)
		err = kpc_pl_outer(l, node, v, f);
	if (!err)
		err = kpc_pl_inner(l, node, v, f);
	if (!err)
		err = kpc_pl_record(l, v[4], f);
	if (!err)
		err = kpc_pl_unique(l, node, f);
	if (!err)
		err = kpc_pl_where(l, v[5], f);
	if (!err)
		err = kpc_pl_where_printed(l, node, v, f);
	if (err)
		return err;
	for (i = 0; i < r->nlabels; i++)
		f->label_from[i] = kpc_pl_bind(f, ctx, r->labels[i]);
	for (i = 0; i < r->nattrs; i++)
		f->attr_from[i] = kpc_pl_bind(f, ctx, r->attrs[i]);
	return 0;
}

/* keys: [key, ...] (each its own name) or {name: key, ...}. */
static int kpc_pl_ctx_keys(struct kpc_pload *l, const yaml_node_t *v, struct kpc_pctx *c)
{
	unsigned int i;
	int err = 0;

	if (v->type == YAML_SEQUENCE_NODE) {
		err = kpc_pl_names(l, "keys", v, KPC_PROBLEM_KEYS_MAX, c->names, &c->nkeys,
				   false);
		memcpy(c->keys, c->names, sizeof(c->keys));
	} else if (v->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *pr;

		for (pr = v->data.mapping.pairs.start; !err && pr < v->data.mapping.pairs.top;
		     pr++) {
			if (c->nkeys == KPC_PROBLEM_KEYS_MAX)
				return kpc_pl_err(l, v, "keys: more than %u", KPC_PROBLEM_KEYS_MAX);
			err = kpc_pl_str(l, "keys", yaml_document_get_node(l->doc, pr->key),
					 &c->names[c->nkeys]);
			if (!err)
				err = kpc_pl_str(l, "keys", yaml_document_get_node(l->doc,
						 pr->value), &c->keys[c->nkeys]);
			if (!err && !kpc_pl_name_ok(c->names[c->nkeys]))
				err = kpc_pl_err(l, v, "keys: '%s' is not a name",
						 c->names[c->nkeys]);
			c->nkeys++;
		}
	} else {
		return kpc_pl_err(l, v, "keys: wants a list of keys, or a mapping of names to keys");
	}
	for (i = 0; !err && i < c->nkeys; i++)
		if (!c->keys[i][0] || strpbrk(c->keys[i], "=, "))
			err = kpc_pl_err(l, v, "keys: '%s' is not a key of key=value pairs",
					 c->keys[i]);
	if (!err && !c->nkeys)
		err = kpc_pl_err(l, v, "keys: wants one key or more");
	return err;
}

static int kpc_pl_ctx_within(struct kpc_pload *l, const yaml_node_t *v, struct kpc_pctx *c)
{
	const char *s;
	char *end;
	unsigned long n;
	int err;

	c->within = 64;
	if (!v)
		return 0;
	err = kpc_pl_str(l, "within", v, &s);
	if (err)
		return err;
	n = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || n < 1 || n > KPC_PROBLEM_WITHIN_MAX)
		return kpc_pl_err(l, v, "within: wants a number of records from 1 to %u, not '%s'",
				  KPC_PROBLEM_WITHIN_MAX, s);
	c->within = n;
	return 0;
}

static const char *const kpc_pl_ctx_keys_known[] = { "format", "keys", "within" };

int kpc_pl_context(struct kpc_pload *l, const yaml_node_t *node,
		   const struct kpc_problem_rule *r, struct kpc_pctx **out)
{
	const yaml_node_t *v[ARRAY_SIZE(kpc_pl_ctx_keys_known)];
	struct kpc_problems *p = l->p;
	struct kpc_fm *fm = NULL;
	struct kpc_pctx *c;
	const char *format;
	unsigned int i;
	int err;

	(void)r;
	c = kpc_pl_keep(l, calloc(1, sizeof(*c)));
	if (!c)
		return -ENOMEM;
	err = kpc_pl_keys(l, node, "context", kpc_pl_ctx_keys_known, ARRAY_SIZE(v), v);
	if (!err && (!v[0] || !v[1]))
		err = kpc_pl_err(l, node, "context: wants '%s'", !v[0] ? "format" : "keys");
	if (!err)
		err = kpc_pl_fmt_str(l, "context: format", v[0], &format, &fm);
	if (!err && !kpc_fm_literal_len(fm))
		err = kpc_pl_err(l, v[0], "context: format \"%s\" has no text of its own", format);
	kpc_fm_free(fm);
	if (!err)
		err = kpc_pl_ctx_keys(l, v[1], c);
	if (!err)
		err = kpc_pl_ctx_within(l, v[2], c);
	if (err)
		return err;
	for (i = 0; i < p->nslots; i++)
		if (!strcmp(p->slots[i].format, format))
			break;
	if (i == p->nslots) {
		if (p->nslots == KPC_PROBLEM_SLOTS_MAX)
			return kpc_pl_err(l, v[0], "context: more than %u context formats in"
					  " the catalog", KPC_PROBLEM_SLOTS_MAX);
		p->slots[i].format = format;
		p->slots[i].format_id = kpc_format_id(format);
		p->nslots++;
	}
	if (p->slots[i].within < c->within)
		p->slots[i].within = c->within;
	c->slot = i;
	*out = c;
	return 0;
}
