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

#include <json-c/json.h>

#include "kpc.h"
#include "kpc_problems.h"

static const char *kpb_str(struct json_object *o, const char *key)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return strdup("");
	s = strdup(json_object_get_string(v));
	return s;
}

static uint64_t kpb_u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

/* The fields the matcher reads, from one line of `kprint dump --json`. */
static int kpb_record(const char *line, struct kpc_record *rec)
{
	struct json_object *o = json_tokener_parse(line), *args, *v;
	const char *source;

	if (!o || !json_object_is_type(o, json_type_object))
		return -EINVAL;
	if (!json_object_object_get_ex(o, "format", &v)) {
		json_object_put(o);
		return 0;		/* a lost line or a module line */
	}
	memset(rec, 0, sizeof(*rec));
	rec->seq = kpb_u64(o, "seq");
	rec->level = kpb_u64(o, "level_num");
	rec->pid = kpb_u64(o, "pid");
	rec->flags = kpb_u64(o, "flags");
	rec->continues = kpb_u64(o, "continues");
	rec->printk_seq = kpb_u64(o, "printk_seq");
	rec->comm = kpb_str(o, "comm");
	rec->file = kpb_str(o, "file");
	rec->function = kpb_str(o, "function");
	rec->subsystem = kpb_str(o, "subsystem");
	rec->module = kpb_str(o, "module");
	rec->device = kpb_str(o, "device");
	rec->format = kpb_str(o, "format");
	rec->format_id = kpc_format_id(rec->format);
	rec->text = kpb_str(o, "text");
	source = kpb_str(o, "source");
	rec->source = strcmp(source, "printk") ? KPRINT_SOURCE_KPRINT : KPRINT_SOURCE_PRINTK;
	free((void *)source);
	if (json_object_object_get_ex(o, "args", &args) &&
	    json_object_is_type(args, json_type_array)) {
		size_t n = json_object_array_length(args);

		for (size_t i = 0; i < n && i < KPRINT_ARGS_MAX; i++)
			rec->args[rec->nargs++] =
				strdup(json_object_get_string(json_object_array_get_idx(args, i)));
	}
	json_object_put(o);
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
