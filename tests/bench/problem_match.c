// SPDX-License-Identifier: GPL-2.0
/*
 * kprint-problem-bench: kprint's side of benchmark B11 (tests/bench/npd.py).
 *
 * What kprint pays to recognise kernel problems: libkpc's catalog matcher
 * (kpc_problem_match(), the call the exporter makes for every record it
 * ingests) over records already decoded, as the exporter holds them.  The
 * records come from a file of `kprint dump --json` lines, read and kept in
 * memory first; then the matcher runs over them, pass after pass, until it
 * has seen COUNT records, and only that loop is timed, by this process's
 * own CPU time (getrusage()), which cannot go negative.
 *
 * In: the format lookup, the arguments' predicates, the context lines a
 * rule keeps (the OOM kill's memory cgroup), the label and attribution
 * values copied into each hit.  Out: decoding the records (B2's ingest),
 * the exporter's counting of hits into series and their JSON for /events
 * and /problems (the same for any matcher).
 *
 * usage: kprint-problem-bench CATALOG RECORDS.jsonl COUNT
 *
 * Prints one JSON object: {"records": N (matched, COUNT or a little more:
 * whole passes), "distinct": N (records in the file), "cpu_s": S (user and
 * system time of the loop), "hits": {"Problem": N, ...}}.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kpc.h"
#include "kpc_problems.h"
#include "kpx_replay.h"

/*
 * One line of the file as the exporter's --replay reads it (one reader of
 * the record JSON): 1 and the record copied into *rec (its strings stay in
 * the decoded copy, kept to the end), 0 for a lost or module line.
 */
static int kpb_record(const char *line, struct kpc_record *rec)
{
	struct kpx_replay_line out;
	char err[256];
	int ret = kpx_replay_parse(line, strlen(line), &out, err, sizeof(err));

	if (ret < 0)
		fprintf(stderr, "kprint-problem-bench: %s\n", ret == -EINVAL ? err : strerror(-ret));
	if (ret <= 0)
		return ret;
	*rec = *out.rec;
	return 1;
}

static int kpb_load(const char *path, struct kpc_record **out, size_t *n)
{
	struct kpc_record *recs = NULL;
	size_t cap = 0, len = 0;
	char *line = NULL;
	size_t linecap = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	while (getline(&line, &linecap, f) > 0) {
		if (len == cap) {
			cap = cap ? 2 * cap : 1024;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs) {
				ret = -ENOMEM;
				break;
			}
		}
		ret = kpb_record(line, &recs[len]);
		if (ret < 0)
			break;
		len += ret;
		ret = 0;
	}
	free(line);
	fclose(f);
	*out = recs;
	*n = len;
	return ret;
}

static double kpb_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/*
 * Match the n records, pass after pass, until want have been: the number
 * matched, or a negative errno.  Each pass continues the stream: seqs go
 * on rising by the span the file covers, and a continuation still names
 * its head, as in a live ring.
 */
static int64_t kpb_match(struct kpc_problem_matcher *m, struct kpc_record *recs, size_t n,
			 uint64_t span, uint64_t want, uint64_t *count)
{
	struct kpc_problem_hit hits[KPC_PROBLEM_HITS_MAX];
	uint64_t done = 0;

	for (uint64_t pass = 0; done < want; pass++) {
		uint64_t shift = pass ? span : 0;

		for (size_t i = 0; i < n; i++) {
			struct kpc_record *rec = &recs[i];
			int ret;

			rec->seq += shift;
			if (rec->continues)
				rec->continues += shift;
			ret = kpc_problem_match(m, rec, hits, KPC_PROBLEM_HITS_MAX);
			if (ret < 0) {
				fprintf(stderr, "kprint-problem-bench: record %" PRIu64 ": %s\n",
					rec->seq, strerror(-ret));
				return ret;
			}
			for (int h = 0; h < ret; h++)
				count[hits[h].rule->index]++;
		}
		done += n;
	}
	return done;
}

int main(int argc, char **argv)
{
	struct kpc_problem_matcher *m;
	struct kpc_problems *cat;
	struct kpc_record *recs = NULL;
	uint64_t want, *count;
	int64_t matched;
	double t0, t1;
	uint64_t span;
	size_t n = 0;
	char err[512];
	int ret;

	if (argc != 4 || kpc_parse_u64(argv[3], 10, UINT64_MAX, &want)) {
		fprintf(stderr, "usage: kprint-problem-bench CATALOG RECORDS.jsonl COUNT\n");
		return 2;
	}
	ret = kpc_problems_load(argv[1], &cat, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "kprint-problem-bench: %s\n", err);
		return 1;
	}
	ret = kpb_load(argv[2], &recs, &n);
	if (ret || !n) {
		fprintf(stderr, "kprint-problem-bench: %s: %s\n", argv[2],
			ret ? strerror(-ret) : "no records");
		return 1;
	}
	/* The seqs the file spans: what each pass moves them on by. */
	span = 1;
	for (size_t i = 0; i < n; i++)
		if (recs[i].seq - recs[0].seq + 1 > span)
			span = recs[i].seq - recs[0].seq + 1;
	count = calloc(kpc_problems_count(cat), sizeof(*count));
	m = kpc_problem_matcher_new(cat);
	if (!count || !m)
		return 1;

	t0 = kpb_cpu_s();
	matched = kpb_match(m, recs, n, span, want, count);
	t1 = kpb_cpu_s();
	if (matched < 0)
		return 1;

	printf("{\"records\": %" PRId64 ", \"distinct\": %zu, \"cpu_s\": %.6f, \"hits\": {",
	       matched, n, t1 - t0);
	for (unsigned int i = 0, first = 1; i < kpc_problems_count(cat); i++) {
		if (!count[i])
			continue;
		printf("%s\"%s\": %" PRIu64, first ? "" : ", ", kpc_problems_rule(cat, i)->name,
		       count[i]);
		first = 0;
	}
	printf("}}\n");
	kpc_problem_matcher_free(m);
	kpc_problems_free(cat);
	return 0;
}
