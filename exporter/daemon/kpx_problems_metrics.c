// SPDX-License-Identifier: GPL-2.0
/*
 * The kprint_problem_* families of /metrics, from what kpx_problems.c
 * counted: a scrape writes the series the counts hold (a problem's label
 * sets, --problems.max-series of them at most, and the overflow), under
 * the counts' lock, and looks at no record.
 *
 *	kprint_problem_catalog_rules N
 *	kprint_problem_total{problem="NAME",LABEL="VALUE",...} N
 *		# {seq="N",kprint_instance="XXXXXXXX",ATTR="VALUE",...} 1 TS
 *	kprint_problem_condition{condition="COND",problem="NAME",LABEL="VALUE",...} 1
 *
 * The exemplar (OpenMetrics only) is the series' latest record, as the
 * per-format counters' are, and its attribution: who the problem concerns
 * (a task, a pid, a memory cgroup) is worth knowing and would make a label
 * per task, so it rides on the exemplar, pair after pair while the label
 * set stays within the 128 characters OpenMetrics allows.
 */
#include <inttypes.h>
#include <string.h>

#include "kpc.h"
#include "kpx_expo.h"
#include "kpx_problems.h"

/* OpenMetrics: an exemplar's label names and values, 128 code points in all. */
#define KPX_EXEMPLAR_MAX	128

/* Code points of s, as kpx_label_escape() writes them (one per bad byte). */
static size_t kpx_codepoints(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), cps = 0;

	while (n) {
		uint32_t cp;
		size_t len = kpc_utf8_next(p, n, &cp);

		p += len;
		n -= len;
		cps++;
	}
	return cps;
}

static void kpx_problem_exemplar(struct kpx_expo *e, const struct kpx_problem_series *s)
{
	const struct kpc_problem_hit *h = &s->hit;
	char seq[24];
	size_t used;

	if (e->format != KPX_EXPO_OPENMETRICS || !s->count)
		return;
	snprintf(seq, sizeof(seq), "%" PRIu64, s->seq);
	used = strlen("seq") + strlen(seq) + strlen("kprint_instance") + 8;
	fprintf(e->out, " # {seq=\"%s\",kprint_instance=\"%08" PRIx32 "\"", seq, s->instance);
	/* In the rule's order; a pair too long is left out, the next may fit. */
	for (unsigned int i = 0; i < h->nattrs; i++) {
		size_t len = strlen(h->attr_names[i]) + kpx_codepoints(h->attrs[i]);

		if (used + len > KPX_EXEMPLAR_MAX)
			continue;
		used += len;
		fprintf(e->out, ",%s=\"", h->attr_names[i]);
		kpx_label_escape(e->out, h->attrs[i]);
		fputc('"', e->out);
	}
	fputs("} 1", e->out);
	if (s->ts_real_ns)
		fprintf(e->out, " %" PRIu64 ".%09" PRIu64, s->ts_real_ns / 1000000000,
			s->ts_real_ns % 1000000000);
}

/* NAME{[condition="C",]problem="P",LABEL="V",...} */
static void kpx_problem_labels(FILE *out, enum kpx_metric m, const struct kpc_problem_rule *r,
			       const struct kpx_problem_series *s)
{
	fputs(kpx_metric_name(m), out);
	fputc('{', out);
	if (m == KPX_M_PROBLEM_CONDITION) {
		fputs("condition=\"", out);
		kpx_label_escape(out, r->condition ? r->condition : "");
		fputs("\",", out);
	}
	fputs("problem=\"", out);
	kpx_label_escape(out, r->name);
	fputc('"', out);
	for (unsigned int l = 0; s && l < r->nlabels; l++) {
		fprintf(out, ",%s=\"", r->labels[l]);
		kpx_label_escape(out, s->labels[l]);
		fputc('"', out);
	}
	fputc('}', out);
}

static void kpx_problem_counter(struct kpx_expo *e, const struct kpc_problem_rule *r,
				const struct kpx_problem_series *s)
{
	kpx_problem_labels(e->out, KPX_M_PROBLEM_TOTAL, r, s);
	fprintf(e->out, " %" PRIu64, s->count);
	kpx_problem_exemplar(e, s);
	fputc('\n', e->out);
}

/* Every series of one rule; a rule without labels has its one series from the start. */
static void kpx_problem_counters(struct kpx_expo *e, const struct kpc_problem_rule *r,
				 const struct kpx_problem_state *st)
{
	if (!r->nlabels && !st->nseries && !st->overflow) {
		kpx_problem_labels(e->out, KPX_M_PROBLEM_TOTAL, r, NULL);
		fputs(" 0\n", e->out);
		return;
	}
	for (unsigned int i = 0; i < st->nseries; i++)
		kpx_problem_counter(e, r, &st->series[i]);
	if (st->overflow)
		kpx_problem_counter(e, r, st->overflow);
}

static void kpx_problem_conditions(struct kpx_expo *e, const struct kpc_problem_rule *r,
				   const struct kpx_problem_state *st)
{
	if (r->kind != KPC_PROBLEM_CONDITION)
		return;
	for (unsigned int i = 0; i <= st->nseries; i++) {
		const struct kpx_problem_series *s = i < st->nseries ? &st->series[i] :
						     st->overflow;

		if (!s || !s->count)
			continue;
		kpx_problem_labels(e->out, KPX_M_PROBLEM_CONDITION, r, s);
		fputs(" 1\n", e->out);
	}
}

void kpx_problems_metrics(struct kpx_expo *e, struct kpx_problems *pr)
{
	unsigned int n = kpx_problems_rules(pr);
	struct kpx_npd *npd = pr ? pr->npd : NULL;

	kpx_expo_single(e, KPX_M_PROBLEM_CATALOG_RULES, n);
	kpx_expo_metric_head(e, KPX_M_PROBLEM_TOTAL);
	if (n)
		pthread_mutex_lock(&pr->lock);
	for (unsigned int i = 0; i < n; i++)
		kpx_problem_counters(e, kpc_problems_rule(pr->cat, i), &pr->state[i]);
	kpx_npd_totals(e, npd);
	kpx_expo_metric_head(e, KPX_M_PROBLEM_CONDITION);
	for (unsigned int i = 0; i < n; i++)
		kpx_problem_conditions(e, kpc_problems_rule(pr->cat, i), &pr->state[i]);
	kpx_npd_conditions(e, npd);
	if (n)
		pthread_mutex_unlock(&pr->lock);
	kpx_npd_metrics(e, npd);
}
