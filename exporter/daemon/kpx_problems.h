/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel problems recognised by format (--problems.file): the catalog the
 * exporter runs with, what it counted, and how that is served
 * (kpx_problems.c: counting and /problems; kpx_problems_metrics.c: the
 * kprint_problem_* families).
 */
#ifndef KPX_PROBLEMS_H
#define KPX_PROBLEMS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "kpc.h"
#include "kpc_problems.h"
#include "kpx_npd.h"

struct kpx_expo;

/* --problems.file's default is libkpc's KPC_PROBLEMS_FILE, what the package installs. */
#define KPX_PROBLEMS_SERIES	32	/* --problems.max-series */
#define KPX_PROBLEMS_OVERFLOW	"overflow"	/* every label of the overflow series */

/*
 * One label set of a problem: its count, when it was first and last seen
 * (the records' own wall clock, ns since the epoch), and its latest hit:
 * the attribution for the exemplar and the HIT JSON for /problems.
 */
struct kpx_problem_series {
	char labels[KPC_PROBLEM_LABELS_MAX][KPC_PROBLEM_VALUE_MAX];
	uint64_t count, first_ns, last_ns;
	uint64_t seq, ts_real_ns;	/* the latest record's */
	uint32_t instance;		/* of the store when it came (kpx_store) */
	struct kpc_problem_hit hit;	/* the latest */
	char *latest;			/* its HIT JSON, malloc'd */
};

/* What one rule of the catalog counted. */
struct kpx_problem_state {
	uint64_t count, first_ns, last_ns;
	struct kpx_problem_series *series;	/* nseries of max_series at most */
	unsigned int nseries, cap;
	struct kpx_problem_series *overflow;	/* past max_series; NULL: none yet */
};

struct kpx_problems {
	struct kpc_problems *cat;	/* NULL: no catalog */
	struct kpc_problem_matcher *m;	/* one stream's: ingest's, or the replay's */
	unsigned int max_series;
	pthread_mutex_t lock;		/* the counts, against /metrics and /problems */
	struct kpx_problem_state *state;	/* one per rule */
	bool ready;			/* the lock is initialised */
	bool failed;			/* a match failed once, said once */
	struct kpx_npd *npd;		/* --npd-rules, counted beside; NULL: none */
	struct kpx_problem_state *npd_state;	/* one per reason of npd's files */
};

/* Hits one record can be: the catalog's, then as many of NPD's files'. */
#define KPX_HITS_MAX		(2 * KPC_PROBLEM_HITS_MAX)

/*
 * The problems a record is, for the streams that come after ingest: the
 * hits (the journal's entries) and their /events text, "event: problem"
 * and "data: HIT" each.
 */
struct kpx_hits {
	unsigned int n;
	struct kpc_problem_hit hit[KPX_HITS_MAX];
	char *events;			/* malloc'd; NULL once the store took it */
};

/*
 * Load the catalog of path.  given: the user named it (--problems.file),
 * and a file that does not load is refused (-errno, "FILE:LINE: reason"
 * said); the default path missing is no catalog, said once, and 0.
 */
int kpx_problems_init(struct kpx_problems *pr, const char *path, bool given,
		      unsigned int max_series);
void kpx_problems_fini(struct kpx_problems *pr);
unsigned int kpx_problems_rules(const struct kpx_problems *pr);
/* node-problem-detector's files (kpx_npd_init()'d) run beside: 0 or -ENOMEM. */
int kpx_problems_npd(struct kpx_problems *pr, struct kpx_npd *npd);

/*
 * One record of the stream, in order (every record goes through, problem
 * or not: a rule's context is the records before): what it is, counted;
 * NULL for none (or no memory, said once).  instance: the store's, for
 * the exemplar.  Free with kpx_hits_free().
 */
struct kpx_hits *kpx_problems_record(struct kpx_problems *pr, const struct kpc_record *rec,
				     uint32_t instance);
void kpx_hits_free(struct kpx_hits *h);

/*
 * GET /problems: every rule, or only those seen (seen=1), then each reason
 * of the --npd-rules files ("npd": its source); malloc'd, or NULL.
 */
char *kpx_problems_json(struct kpx_problems *pr, bool seen_only);
/* RFC 3339 UTC with nanoseconds, into buf (32 bytes at least). */
void kpx_problems_time(uint64_t ns, char *buf, size_t len);

/* kprint_problem_catalog_rules, kprint_problem_total, kprint_problem_condition. */
void kpx_problems_metrics(struct kpx_expo *e, struct kpx_problems *pr);

#endif /* KPX_PROBLEMS_H */
