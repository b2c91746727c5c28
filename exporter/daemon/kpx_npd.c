// SPDX-License-Identifier: GPL-2.0
/*
 * node-problem-detector's rule files on the kernel's records.  NPD's kernel
 * monitor reads /dev/kmsg, whose messages are printk's records: so only
 * printk-source records are its log lines here.  A kprint record (a
 * kprint_*() call or an emit) is no /dev/kmsg line unless the kernel also
 * printk()s it, and then it comes again as a printk record; feeding both
 * would count it twice.  A pr_cont() fragment continues the newest message,
 * as /dev/kmsg shows the line whole: the rules are matched again on the
 * longer line, and a rule that matched the line already does not fire
 * twice for it.
 *
 * What NPD does on a match (log_monitor.go's generateStatus()): a temporary
 * rule makes an event, counted in problem_counter{reason}; a permanent rule
 * sets its condition True with its reason, and makes an event, counted,
 * only when the condition's status or reason changes; problem_gauge{type,
 * reason} is 1 for the condition's current reason, 0 for the others of its
 * rules.  kprint_problem_total counts every hit (a problem seen again is
 * seen again), by the rule's reason and the file's source.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kpx_expo.h"
#include "kpx_log.h"
#include "kpx_npd.h"

/* NPD's problemmetrics: names, help and types as its Prometheus exporter serves them. */
static const struct kpx_metric_def kpx_npd_counter = { "problem_counter", "counter",
	"Number of times a specific type of problem have occurred." };
static const struct kpx_metric_def kpx_npd_gauge = { "problem_gauge", "gauge",
	"Whether a specific type of problem is affecting the node or not." };

static int kpx_npd_file_init(struct kpx_npd_file *f, const char *path)
{
	char err[512];
	int ret = kpc_npd_load(path, &f->n, err, sizeof(err));

	if (ret) {
		kpx_log("%s\n", *err ? err : strerror(-ret));
		return ret;
	}
	f->hits = calloc(f->n->nrules + 1, sizeof(*f->hits));
	f->events = calloc(f->n->nrules + 1, sizeof(*f->events));
	f->fired = calloc(f->n->nrules + 1, sizeof(*f->fired));
	f->cond_reason = calloc(f->n->nconds + 1, sizeof(*f->cond_reason));
	f->reason_of = calloc(f->n->nrules + 1, sizeof(*f->reason_of));
	if (!f->hits || !f->events || !f->fired || !f->cond_reason || !f->reason_of) {
		kpx_log("no memory for %s\n", path);
		return -ENOMEM;
	}
	return 0;
}

/* f's reasons as problems, after those of the files before: the kind and condition its first rule's. */
static void kpx_npd_reasons_of(struct kpx_npd *x, struct kpx_npd_file *f)
{
	unsigned int first = x->nreasons;

	for (unsigned int i = 0; i < f->n->nrules; i++) {
		const struct kpc_npd_rule *r = &f->n->rules[i];
		struct kpc_problem_rule *p;
		unsigned int k = first;

		while (k < x->nreasons && strcmp(x->reasons[k].name, r->reason))
			k++;
		f->reason_of[i] = k;
		if (k < x->nreasons)
			continue;
		p = &x->reasons[x->nreasons++];
		*p = (struct kpc_problem_rule){
			.index = k,
			.npd = f->n->source,
			.name = r->reason,
			.kind = r->permanent ? KPC_PROBLEM_CONDITION : KPC_PROBLEM_EVENT,
			.condition = r->permanent ? r->condition : NULL,
			.summary = "",
		};
	}
}

/* Now on the clock of the records' ts_mono_ns (ktime_get_ns(), and printk's for the backlog). */
static uint64_t kpx_npd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int kpx_npd_init(struct kpx_npd *x, const char *const *paths, unsigned int n, bool metrics,
		 bool live)
{
	memset(x, 0, sizeof(*x));
	pthread_mutex_init(&x->lock, NULL);
	x->metrics = metrics;
	x->f = calloc(n + 1, sizeof(*x->f));
	if (!x->f)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		struct kpc_problem_rule *r;
		int ret = kpx_npd_file_init(&x->f[x->nfiles++], paths[i]);

		if (ret)
			return ret;
		r = realloc(x->reasons, (x->nreasons + x->f[i].n->nrules + 1) * sizeof(*r));
		if (!r)
			return -ENOMEM;
		x->reasons = r;
		kpx_npd_reasons_of(x, &x->f[i]);
		/* The source tells two files' series apart: one source, one file. */
		for (unsigned int j = 0; j < i; j++)
			if (!strcmp(x->f[j].n->source, x->f[i].n->source)) {
				kpx_log("%s:1: source \"%s\" is %s's already\n", paths[i],
					x->f[i].n->source, paths[j]);
				return -EINVAL;
			}
		if (live)
			x->f[i].since_ns = kpc_npd_start(x->f[i].n, kpx_npd_now_ns());
		kpx_log("running the %u node-problem-detector rules of %s on the messages since"
			" %.3f s after boot\n", x->f[i].n->nrules, paths[i],
			x->f[i].since_ns / 1e9);
	}
	return 0;
}

void kpx_npd_fini(struct kpx_npd *x)
{
	for (unsigned int i = 0; x->f && i < x->nfiles; i++) {
		kpc_npd_free(x->f[i].n);
		free(x->f[i].hits);
		free(x->f[i].events);
		free(x->f[i].fired);
		free(x->f[i].cond_reason);
		free(x->f[i].reason_of);
	}
	free(x->reasons);
	x->reasons = NULL;
	x->nreasons = 0;
	free(x->f);
	x->f = NULL;
	x->nfiles = 0;
	pthread_mutex_destroy(&x->lock);
}

/* NPD's generateStatus() for a hit of rule i.  Locked. */
static void kpx_npd_hit(struct kpx_npd_file *f, unsigned int i)
{
	const struct kpc_npd_rule *r = &f->n->rules[i];

	f->hits[i]++;
	if (!r->permanent) {
		f->events[i]++;
		return;
	}
	for (unsigned int c = 0; c < f->n->nconds; c++) {
		if (strcmp(f->n->conds[c].type, r->condition))
			continue;
		if (!f->cond_reason[c] || strcmp(f->cond_reason[c], r->reason))
			f->events[i]++;
		f->cond_reason[c] = r->reason;
		break;
	}
}

/* hits, max and n: kpx_npd_record()'s, this file's hits added. */
static void kpx_npd_file_record(struct kpx_npd *x, struct kpx_npd_file *f,
				const struct kpc_record *rec, struct kpc_problem_hit *hits,
				unsigned int max, unsigned int *n)
{
	const char *text = rec->text ? rec->text : "";
	size_t len = rec->text ? kpc_record_text_len(rec) : 0;
	bool cont = (rec->flags & KPRINT_RECORD_F_CONT) && f->n->current &&
		    rec->continues == f->line_seq;
	int ret = cont ? kpc_npd_append(f->n, text, len) : kpc_npd_push(f->n, text, len);

	if (!cont) {
		f->line_seq = rec->seq;
		memset(f->fired, 0, f->n->nrules * sizeof(*f->fired));
	}
	for (unsigned int i = 0; !ret && i < f->n->nrules; i++) {
		int m = f->fired[i] ? 0 : kpc_npd_match(f->n, i);

		if (m < 0)
			ret = m;
		if (m <= 0)
			continue;
		f->fired[i] = true;
		pthread_mutex_lock(&x->lock);
		kpx_npd_hit(f, i);
		pthread_mutex_unlock(&x->lock);
		if (*n < max) {
			memset(&hits[*n], 0, sizeof(hits[*n]));
			hits[(*n)++].rule = &x->reasons[f->reason_of[i]];
		}
	}
	if (ret && !x->failed) {
		x->failed = true;
		kpx_log("node-problem-detector rules of %s on record %" PRIu64 ": %s (said"
			" once)\n", f->n->path, rec->seq, ret == -E2BIG ?
			"a pattern went past PCRE2's match limits" : strerror(-ret));
	}
}

/*
 * NPD's kmsg watcher passes no empty message on, nor one stamped before its
 * start time (lookback and delay): the ring's older records, and the printk
 * backlog's, when the exporter starts.
 */
unsigned int kpx_npd_record(struct kpx_npd *x, const struct kpc_record *rec,
			    struct kpc_problem_hit *hits, unsigned int max)
{
	unsigned int n = 0;

	if (!x || rec->source != KPRINT_SOURCE_PRINTK)
		return 0;
	if (!rec->text || !kpc_record_text_len(rec))
		return 0;
	for (unsigned int i = 0; i < x->nfiles; i++)
		if (rec->ts_mono_ns >= x->f[i].since_ns)
			kpx_npd_file_record(x, &x->f[i], rec, hits, max, &n);
	return n;
}

/* The first rule of f with r's reason (and condition, for cond) is r: its series is written. */
static bool kpx_npd_first(const struct kpx_npd_file *f, unsigned int i, bool cond)
{
	const struct kpc_npd_rule *r = &f->n->rules[i];

	for (unsigned int j = 0; j < i; j++) {
		const struct kpc_npd_rule *q = &f->n->rules[j];

		if (!strcmp(q->reason, r->reason) &&
		    (!cond || (q->permanent && !strcmp(q->condition, r->condition))))
			return false;
	}
	return true;
}

static void kpx_npd_label(FILE *out, const char *name, const char *value, bool comma)
{
	fprintf(out, "%s%s=\"", comma ? "," : "", name);
	kpx_label_escape(out, value);
	fputc('"', out);
}

void kpx_npd_totals(struct kpx_expo *e, struct kpx_npd *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->lock);
	for (unsigned int k = 0; k < x->nfiles; k++) {
		const struct kpx_npd_file *f = &x->f[k];

		for (unsigned int i = 0; i < f->n->nrules; i++) {
			uint64_t sum = 0;

			if (!kpx_npd_first(f, i, false))
				continue;
			for (unsigned int j = i; j < f->n->nrules; j++)
				if (!strcmp(f->n->rules[j].reason, f->n->rules[i].reason))
					sum += f->hits[j];
			fprintf(e->out, "%s{", kpx_metric_name(KPX_M_PROBLEM_TOTAL));
			kpx_npd_label(e->out, "npd", f->n->source, false);
			kpx_npd_label(e->out, "problem", f->n->rules[i].reason, true);
			fprintf(e->out, "} %" PRIu64 "\n", sum);
		}
	}
	pthread_mutex_unlock(&x->lock);
}

void kpx_npd_conditions(struct kpx_expo *e, struct kpx_npd *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->lock);
	for (unsigned int k = 0; k < x->nfiles; k++) {
		const struct kpx_npd_file *f = &x->f[k];

		for (unsigned int c = 0; c < f->n->nconds; c++) {
			if (!f->cond_reason[c])
				continue;
			fprintf(e->out, "%s{", kpx_metric_name(KPX_M_PROBLEM_CONDITION));
			kpx_npd_label(e->out, "condition", f->n->conds[c].type, false);
			kpx_npd_label(e->out, "npd", f->n->source, true);
			kpx_npd_label(e->out, "problem", f->cond_reason[c], true);
			fputs("} 1\n", e->out);
		}
	}
	pthread_mutex_unlock(&x->lock);
}

/* Whether (file k, rule i) is the first of every file's rules with its reason. */
static bool kpx_npd_first_all(const struct kpx_npd *x, unsigned int k, unsigned int i,
			      bool cond)
{
	const struct kpc_npd_rule *r = &x->f[k].n->rules[i];

	for (unsigned int l = 0; l < k; l++)
		for (unsigned int j = 0; j < x->f[l].n->nrules; j++) {
			const struct kpc_npd_rule *q = &x->f[l].n->rules[j];

			if (!strcmp(q->reason, r->reason) && (!cond || (q->permanent &&
			    !strcmp(q->condition, r->condition))))
				return false;
		}
	return kpx_npd_first(&x->f[k], i, cond);
}

/* NPD's one global counter per reason: every file's rules of that reason. */
static uint64_t kpx_npd_events(const struct kpx_npd *x, const char *reason)
{
	uint64_t sum = 0;

	for (unsigned int k = 0; k < x->nfiles; k++)
		for (unsigned int j = 0; j < x->f[k].n->nrules; j++)
			if (!strcmp(x->f[k].n->rules[j].reason, reason))
				sum += x->f[k].events[j];
	return sum;
}

/* 1 while a file's condition type holds reason. */
static int kpx_npd_gauge_value(const struct kpx_npd *x, const char *type, const char *reason)
{
	for (unsigned int k = 0; k < x->nfiles; k++)
		for (unsigned int c = 0; c < x->f[k].n->nconds; c++)
			if (x->f[k].cond_reason[c] && !strcmp(x->f[k].n->conds[c].type, type) &&
			    !strcmp(x->f[k].cond_reason[c], reason))
				return 1;
	return 0;
}

void kpx_npd_metrics(struct kpx_expo *e, struct kpx_npd *x)
{
	bool om = e->format == KPX_EXPO_OPENMETRICS;

	if (!x || !x->metrics)
		return;
	pthread_mutex_lock(&x->lock);
	kpx_expo_head(e, &kpx_npd_counter);
	for (unsigned int k = 0; k < x->nfiles; k++)
		for (unsigned int i = 0; i < x->f[k].n->nrules; i++) {
			const char *reason = x->f[k].n->rules[i].reason;

			if (!kpx_npd_first_all(x, k, i, false))
				continue;
			/* OpenMetrics: a counter's samples are NAME_total. */
			fprintf(e->out, "%s%s{", kpx_npd_counter.name, om ? "_total" : "");
			kpx_npd_label(e->out, "reason", reason, false);
			fprintf(e->out, "} %" PRIu64 "\n", kpx_npd_events(x, reason));
		}
	kpx_expo_head(e, &kpx_npd_gauge);
	for (unsigned int k = 0; k < x->nfiles; k++)
		for (unsigned int i = 0; i < x->f[k].n->nrules; i++) {
			const struct kpc_npd_rule *r = &x->f[k].n->rules[i];

			if (!r->permanent || !kpx_npd_first_all(x, k, i, true))
				continue;
			fprintf(e->out, "%s{", kpx_npd_gauge.name);
			kpx_npd_label(e->out, "reason", r->reason, false);
			kpx_npd_label(e->out, "type", r->condition, true);
			fprintf(e->out, "} %d\n", kpx_npd_gauge_value(x, r->condition, r->reason));
		}
	pthread_mutex_unlock(&x->lock);
}
