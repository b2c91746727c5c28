// SPDX-License-Identifier: GPL-2.0
/*
 * The problem matcher: which problems a record reports.
 *
 * A record costs one lookup of its format id in the catalog's hash
 * (kpc_problems_load.c built it); only a record whose format a rule or a
 * context names is looked at further.  For a rule's format: the format
 * itself (ids can collide), the argument count (a malformed record simply
 * does not match), the inner format against the rendered text of the %pV,
 * then the predicates; the labels and attribution are copied last.
 *
 * A level a caller passes as a "%s" argument (ext4's "%sEXT4-fs ...",
 * XFS's "%sXFS (%s): %pV", the segfault line's first "%s") renders as a
 * KERN_SOH pair, or as nothing: every argument's value is read without
 * its leading SOH pairs, so that a predicate or a label never sees them.
 *
 * Context lines: a rule may read key=value pairs from a line printed just
 * before its record (the OOM kill's "oom-kill:constraint=..." line,
 * which mem_cgroup_print_oom_context() and others finish with pr_cont()).
 * The bridge sends each pr_cont() fragment as a record of its own, flagged
 * KPRINT_RECORD_F_CONT, whose continues is the seq of the record that
 * began the line (kernel/kprint_bridge_cont.c), so the matcher keeps the
 * latest line of each context format and appends the fragments that
 * continue it, for as many records as the rules' "within" allows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_problems_int.h"

struct kpc_problem_matcher *kpc_problem_matcher_new(const struct kpc_problems *p)
{
	struct kpc_problem_matcher *m;

	if (!p)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (m)
		m->p = p;
	return m;
}

void kpc_problem_matcher_free(struct kpc_problem_matcher *m)
{
	free(m);
}

static void kpc_pm_append(struct kpc_pline *line, const struct kpc_record *rec)
{
	size_t len = rec->text ? kpc_record_text_len(rec) : 0;

	if (len > sizeof(line->text) - line->len)
		len = sizeof(line->text) - line->len;
	memcpy(line->text + line->len, rec->text, len);
	line->len += len;
}

/* A context format's line begins, or a fragment continues one. */
static void kpc_pm_context(struct kpc_problem_matcher *m, const struct kpc_record *rec,
			   const struct kpc_pentry *e)
{
	const struct kpc_problems *p = m->p;
	unsigned int i;

	if (e && e->slot >= 0 && !rec->continues) {
		struct kpc_pline *line = &m->lines[e->slot];

		line->valid = true;
		line->head_seq = rec->seq;
		line->head_n = m->n;
		line->len = 0;
		kpc_pm_append(line, rec);
		return;
	}
	if (!(rec->flags & KPRINT_RECORD_F_CONT) || !rec->continues)
		return;
	for (i = 0; i < p->nslots; i++) {
		struct kpc_pline *line = &m->lines[i];

		if (line->valid && line->head_seq == rec->continues &&
		    m->n - line->head_n <= p->slots[i].within)
			kpc_pm_append(line, rec);
	}
}

/* key's value in a line of key=value pairs ("a:k=v,k2=v2"). */
static bool kpc_pm_key(const struct kpc_pline *line, const char *key, const char **s,
		       size_t *len)
{
	size_t klen = strlen(key), at, end;

	for (at = 0; at + klen < line->len; at++) {
		char before = at ? line->text[at - 1] : ',';

		if ((before != ',' && before != ':' && before != ' ') ||
		    memcmp(line->text + at, key, klen) || line->text[at + klen] != '=')
			continue;
		at += klen + 1;
		for (end = at; end < line->len && line->text[end] != ',' &&
		     line->text[end] != '\n'; end++)
			;
		*s = line->text + at;
		*len = end - at;
		return true;
	}
	return false;
}

/* What one record offers a rule's names, for kpc_pm_value(). */
struct kpc_pm_rec {
	const struct kpc_problem_matcher *m;
	const struct kpc_record *rec;
	const struct kpc_pfmt *f;
	const char *spans[KPRINT_ARGS_MAX];	/* the inner format's conversions */
	size_t lens[KPRINT_ARGS_MAX];
	char pid[16];
};

static const char *kpc_pm_str(const char *s)
{
	return s ? s : "";
}

static bool kpc_pm_field(struct kpc_pm_rec *r, unsigned int field, const char **s, size_t *len)
{
	const struct kpc_record *rec = r->rec;

	switch (field) {
	case KPC_PFIELD_DEVICE:
		*s = kpc_pm_str(rec->device);
		break;
	case KPC_PFIELD_COMM:
		*s = kpc_pm_str(rec->comm);
		break;
	case KPC_PFIELD_PID:
		snprintf(r->pid, sizeof(r->pid), "%u", rec->pid);
		*s = r->pid;
		break;
	case KPC_PFIELD_MODULE:
		*s = kpc_pm_str(rec->module);
		break;
	case KPC_PFIELD_SUBSYSTEM:
		*s = kpc_pm_str(rec->subsystem);
		break;
	default:
		*s = kpc_pm_str(rec->function);
		break;
	}
	*len = strlen(*s);
	return true;
}

/* The value of a name; false when this record (or its context) has none. */
static bool kpc_pm_value(struct kpc_pm_rec *r, const struct kpc_pbind *b, const char **s,
			 size_t *len)
{
	const struct kpc_problem_matcher *m = r->m;
	const struct kpc_pctx *ctx = r->f->ctx;
	const struct kpc_pline *line;

	switch (b->kind) {
	case KPC_PBIND_ARG:
		*s = r->rec->args[b->i];
		*len = *s ? kpc_record_arg_len(r->rec, b->i) : 0;
		if (!*s)
			*s = "";
		/* A level passed as "%s": KERN_SOH and its letter, or nothing. */
		while (*len && **s == '\001') {
			*s += *len >= 2 ? 2 : 1;
			*len -= *len >= 2 ? 2 : 1;
		}
		return true;
	case KPC_PBIND_INNER:
		*s = r->spans[b->i];
		*len = r->lens[b->i];
		return true;
	case KPC_PBIND_FIELD:
		return kpc_pm_field(r, b->i, s, len);
	case KPC_PBIND_CONTEXT:
		line = &m->lines[ctx->slot];
		if (!line->valid || line->head_n >= m->n || m->n - line->head_n > ctx->within)
			return false;
		return kpc_pm_key(line, ctx->keys[b->i], s, len);
	default:
		return false;
	}
}

static bool kpc_pm_pred(const struct kpc_ppred *pr, const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < pr->nvalues; i++) {
		size_t vlen = strlen(pr->values[i]);

		if (pr->op == KPC_PRED_PREFIX ? len >= vlen && !memcmp(s, pr->values[i], vlen) :
		    len == vlen && !memcmp(s, pr->values[i], vlen))
			return true;
	}
	return false;
}

/* A copy cut at its first NUL, and at KPC_PROBLEM_VALUE_MAX - 1 on a UTF-8 boundary. */
static void kpc_pm_copy(char *dst, const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);
	unsigned int back;

	if (nul)
		len = nul - s;
	if (len > KPC_PROBLEM_VALUE_MAX - 1) {
		len = KPC_PROBLEM_VALUE_MAX - 1;
		/* Not inside a sequence: at most three continuation bytes back. */
		for (back = 0; back < 3 && len && ((unsigned char)s[len] & 0xC0) == 0x80; back++)
			len--;
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Whether rec is f's problem; if so, its labels and attribution in hit. */
static bool kpc_pm_format(struct kpc_pm_rec *r, struct kpc_problem_hit *hit)
{
	const struct kpc_pfmt *f = r->f;
	const struct kpc_record *rec = r->rec;
	const struct kpc_problem_rule *rule = f->pub.rule;
	unsigned int i, n = KPRINT_ARGS_MAX;
	const char *s;
	size_t len;

	if (!rec->format || strcmp(rec->format, f->pub.format) || rec->nargs != f->nconv)
		return false;
	if (f->inner) {
		s = rec->args[f->pv];
		if (!s || !kpc_fm_match(f->inner, s, kpc_record_arg_len(rec, f->pv), r->spans,
					r->lens, &n))
			return false;
	}
	for (i = 0; i < f->npreds; i++)
		if (!kpc_pm_value(r, &f->preds[i].from, &s, &len) ||
		    !kpc_pm_pred(&f->preds[i], s, len))
			return false;

	memset(hit, 0, sizeof(*hit));
	hit->rule = rule;
	for (i = 0; i < rule->nlabels; i++)
		if (kpc_pm_value(r, &f->label_from[i], &s, &len))
			kpc_pm_copy(hit->labels[i], s, len);
	for (i = 0; i < rule->nattrs; i++) {
		if (!kpc_pm_value(r, &f->attr_from[i], &s, &len))
			continue;
		hit->attr_names[hit->nattrs] = rule->attrs[i];
		kpc_pm_copy(hit->attrs[hit->nattrs++], s, len);
	}
	return true;
}

int kpc_problem_match(struct kpc_problem_matcher *m, const struct kpc_record *rec,
		      struct kpc_problem_hit *hits, unsigned int max)
{
	const struct kpc_problems *p;
	const struct kpc_pentry *e;
	struct kpc_pm_rec r;
	unsigned int n = 0, i;
	int f;

	if (!m || !rec || (max && !hits))
		return -EINVAL;
	p = m->p;
	m->lookups++;
	e = kpc_problems_lookup(p, rec->format_id);
	kpc_pm_context(m, rec, e);

	r.m = m;
	r.rec = rec;
	for (f = e ? e->fmt : -1; f >= 0 && n < max; f = p->fmts[f].next) {
		r.f = &p->fmts[f];
		/* One hit per problem, by its first format that matches. */
		for (i = 0; i < n && hits[i].rule != r.f->pub.rule; i++)
			;
		if (i == n && kpc_pm_format(&r, &hits[n]))
			n++;
	}
	m->n++;
	return n;
}
