/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node-problem-detector's rule files (--npd-rules), run on the kernel's
 * records as NPD's kernel monitor runs them on /dev/kmsg (libkpc's kpc_npd
 * matches), and what they found: counted beside the problem catalog's
 * problems, in its families (kpx_problems_metrics.c calls in here), and
 * with --npd-metrics in NPD's own problem_counter and problem_gauge.
 */
#ifndef KPX_NPD_H
#define KPX_NPD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "kpc.h"
#include "kpc_problems.h"

struct kpx_expo;

/* What one file's rules found, and the state NPD would hold for it. */
struct kpx_npd_file {
	struct kpc_npd *n;
	uint64_t *hits;			/* per rule: every match */
	uint64_t *events;		/* per rule: NPD's events (a permanent one: changes) */
	const char **cond_reason;	/* per condition: the rule's reason; NULL: False */
	uint64_t line_seq;		/* the record the newest message began with */
	uint64_t since_ns;		/* NPD's start time: older records are not its */
	unsigned int *reason_of;	/* per rule: its reason, in kpx_npd.reasons */
	bool *fired;			/* per rule: matched the newest message already */
};

struct kpx_npd {
	struct kpx_npd_file *f;
	unsigned int nfiles;
	/*
	 * Each file's reasons as problems (name, kind, condition, npd: the
	 * file's source), index their place here: a hit's rule, so that hits
	 * go to /problems, /events and the journal as the catalog's do.
	 */
	struct kpc_problem_rule *reasons;
	unsigned int nreasons;
	bool metrics;			/* --npd-metrics */
	bool failed;			/* a match failed once, said once */
	pthread_mutex_t lock;		/* the counts, against /metrics */
};

/*
 * Load each file: 0, or -errno with "FILE:LINE: reason" said.  live: the
 * records are the kernel's, and each file's "lookback" and "delay" say from
 * when on (the ring's and the printk backlog's older records are not NPD's);
 * a --replay's are taken whole.
 */
int kpx_npd_init(struct kpx_npd *x, const char *const *paths, unsigned int n, bool metrics,
		 bool live);
void kpx_npd_fini(struct kpx_npd *x);

/*
 * One record of the stream, in order (NULL x: no files): every match
 * counted, and the first max of them in hits (a rule's reason, no labels
 * or attribution); returns how many.
 */
unsigned int kpx_npd_record(struct kpx_npd *x, const struct kpc_record *rec,
			    struct kpc_problem_hit *hits, unsigned int max);

/* Within kprint_problem_total and kprint_problem_condition: the files' series. */
void kpx_npd_totals(struct kpx_expo *e, struct kpx_npd *x);
void kpx_npd_conditions(struct kpx_expo *e, struct kpx_npd *x);
/* --npd-metrics: problem_counter and problem_gauge, NPD's names, help and types. */
void kpx_npd_metrics(struct kpx_expo *e, struct kpx_npd *x);

#endif /* KPX_NPD_H */
