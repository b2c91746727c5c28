// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel problems recognised by format: every record goes through libkpc's
 * matcher once, in the stream's order, in the thread that receives it
 * (ingest, or the replay's load), before the store owns it.  A record no
 * rule names costs the matcher one hash lookup and nothing here.  A hit is
 * counted per problem and per label set, up to --problems.max-series label
 * sets per problem; past it, in the series whose every label is
 * "overflow", so that label values the kernel chooses (a device name) can
 * never grow /metrics without bound.  Each series keeps its latest hit: its
 * attribution for the exemplar, and its JSON for /problems, written once
 * when it comes, so that neither a scrape nor /problems walks the store.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kpx_log.h"
#include "kpx_problems.h"

int kpx_problems_init(struct kpx_problems *pr, const char *path, bool given,
		      unsigned int max_series)
{
	char err[512];
	int ret;

	memset(pr, 0, sizeof(*pr));
	pr->max_series = max_series;
	pthread_mutex_init(&pr->lock, NULL);
	pr->ready = true;
	ret = kpc_problems_load(path, &pr->cat, err, sizeof(err));
	if (ret == -ENOENT && !given) {
		/* Not installed: the rest serves without, as for a missing call-site catalog. */
		kpx_log("no problem catalog at %s: no problems recognised (--problems.file)\n",
			path);
		pr->cat = NULL;
		return 0;
	}
	if (ret) {
		kpx_log("%s\n", *err ? err : strerror(-ret));
		pr->cat = NULL;
		return ret;
	}
	pr->state = calloc(kpc_problems_count(pr->cat) + 1, sizeof(*pr->state));
	pr->m = kpc_problem_matcher_new(pr->cat);
	if (!pr->state || !pr->m) {
		kpx_log("no memory for the problem catalog\n");
		return -ENOMEM;
	}
	return 0;
}

int kpx_problems_npd(struct kpx_problems *pr, struct kpx_npd *npd)
{
	pr->npd = npd;
	pr->npd_state = calloc(npd->nreasons + 1, sizeof(*pr->npd_state));
	return pr->npd_state ? 0 : -ENOMEM;
}

static void kpx_series_fini(struct kpx_problem_series *s)
{
	if (s)
		free(s->latest);
}

static void kpx_states_fini(struct kpx_problem_state *state, unsigned int n)
{
	for (unsigned int i = 0; state && i < n; i++) {
		struct kpx_problem_state *st = &state[i];

		for (unsigned int j = 0; j < st->nseries; j++)
			kpx_series_fini(&st->series[j]);
		free(st->series);
		kpx_series_fini(st->overflow);
		free(st->overflow);
	}
	free(state);
}

void kpx_problems_fini(struct kpx_problems *pr)
{
	if (!pr->ready)
		return;
	kpx_states_fini(pr->state, pr->cat ? kpc_problems_count(pr->cat) : 0);
	kpx_states_fini(pr->npd_state, pr->npd ? pr->npd->nreasons : 0);
	if (pr->m)
		kpc_problem_matcher_free(pr->m);
	if (pr->cat)
		kpc_problems_free(pr->cat);
	pthread_mutex_destroy(&pr->lock);
	pr->ready = false;
}

unsigned int kpx_problems_rules(const struct kpx_problems *pr)
{
	return pr && pr->cat ? kpc_problems_count(pr->cat) : 0;
}

/* The series of hit's label set: found, new, or the overflow.  Locked. */
static struct kpx_problem_series *kpx_series_of(struct kpx_problems *pr,
						struct kpx_problem_state *st,
						const struct kpc_problem_hit *hit)
{
	unsigned int nl = hit->rule->nlabels;
	struct kpx_problem_series *s;

	for (unsigned int i = 0; i < st->nseries; i++) {
		unsigned int l = 0;

		while (l < nl && !strcmp(st->series[i].labels[l], hit->labels[l]))
			l++;
		if (l == nl)
			return &st->series[i];
	}
	if (st->nseries < pr->max_series) {
		if (st->nseries == st->cap) {
			unsigned int cap = st->cap ? st->cap * 2 : 4;

			if (cap > pr->max_series)
				cap = pr->max_series;
			s = realloc(st->series, cap * sizeof(*s));
			if (!s)
				return NULL;
			st->series = s;
			st->cap = cap;
		}
		s = &st->series[st->nseries++];
		memset(s, 0, sizeof(*s));
		for (unsigned int l = 0; l < nl; l++)
			memcpy(s->labels[l], hit->labels[l], sizeof(s->labels[l]));
		return s;
	}
	if (!st->overflow) {
		st->overflow = calloc(1, sizeof(*st->overflow));
		if (!st->overflow)
			return NULL;
		for (unsigned int l = 0; l < nl; l++)
			strcpy(st->overflow->labels[l], KPX_PROBLEMS_OVERFLOW);
	}
	return st->overflow;
}

/* One hit counted; json (malloc'd) becomes its series' latest. */
static void kpx_problems_count(struct kpx_problems *pr, const struct kpc_problem_hit *hit,
			       const struct kpc_record *rec, uint32_t instance, char *json)
{
	struct kpx_problem_state *st = hit->rule->npd ? &pr->npd_state[hit->rule->index] :
					&pr->state[hit->rule->index];
	struct kpx_problem_series *s;
	uint64_t ns = rec->ts_real_ns;

	pthread_mutex_lock(&pr->lock);
	s = kpx_series_of(pr, st, hit);
	if (!st->count++)
		st->first_ns = ns;
	st->last_ns = ns;
	if (s) {
		if (!s->count++)
			s->first_ns = ns;
		s->last_ns = ns;
		s->seq = rec->seq;
		s->ts_real_ns = rec->ts_real_ns;
		s->instance = instance;
		s->hit = *hit;
		free(s->latest);
		s->latest = json;
		json = NULL;
	}
	pthread_mutex_unlock(&pr->lock);
	free(json);
}

/* A hit's JSON text, the engine's one writer of it; NULL: no memory. */
static char *kpx_hit_json(const struct kpc_problem_hit *hit, const struct kpc_record *rec)
{
	struct json_object *o = kpc_json_problem_hit(hit, rec);
	char *s = NULL;

	if (o) {
		s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	return s;
}

/* The hits' /events text: one "event: problem" each, right after the record's. */
static char *kpx_hits_events(char *const *json, unsigned int n)
{
	size_t size = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &size);

	if (!f)
		return NULL;
	for (unsigned int i = 0; i < n; i++)
		if (json[i])
			fprintf(f, "event: problem\ndata: %s\n\n", json[i]);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static void kpx_problems_say(struct kpx_problems *pr, const struct kpc_record *rec, int err)
{
	if (pr->failed)
		return;
	pr->failed = true;
	kpx_log("matching record %" PRIu64 " against the problem catalog failed: %s"
		" (said once)\n", rec->seq, strerror(-err));
}

struct kpx_hits *kpx_problems_record(struct kpx_problems *pr, const struct kpc_record *rec,
				     uint32_t instance)
{
	struct kpc_problem_hit hits[KPX_HITS_MAX];
	char *json[KPX_HITS_MAX] = { NULL };
	struct kpx_hits *h;
	int n = 0;

	if (!pr)
		return NULL;
	if (pr->m) {
		n = kpc_problem_match(pr->m, rec, hits, KPC_PROBLEM_HITS_MAX);
		if (n < 0) {
			kpx_problems_say(pr, rec, n);
			n = 0;
		}
	}
	/* NPD's rules after the catalog's, each file counting every match itself. */
	if (pr->npd_state)
		n += kpx_npd_record(pr->npd, rec, hits + n, KPX_HITS_MAX - n);
	if (!n)
		return NULL;
	h = calloc(1, sizeof(*h));
	for (int i = 0; i < n; i++)
		json[i] = kpx_hit_json(&hits[i], rec);
	if (h) {
		h->n = n;
		memcpy(h->hit, hits, n * sizeof(hits[0]));
		h->events = kpx_hits_events(json, n);
	}
	if (!h || !h->events)
		kpx_problems_say(pr, rec, -ENOMEM);
	/* Counted even when the rest ran out of memory: the counter is what alerts. */
	for (int i = 0; i < n; i++)
		kpx_problems_count(pr, &hits[i], rec, instance, json[i]);
	return h;
}

void kpx_hits_free(struct kpx_hits *h)
{
	if (h)
		free(h->events);
	free(h);
}

/* GET /problems. */

void kpx_problems_time(uint64_t ns, char *buf, size_t len)
{
	time_t sec = ns / 1000000000;
	struct tm tm;
	size_t n;

	gmtime_r(&sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%09" PRIu64 "Z", ns % 1000000000);
}

/* s as a JSON string (valid UTF-8, escaped by json-c). */
static void kpx_json_str(FILE *f, const char *s)
{
	struct json_object *o = s ? kpc_json_string(s) : NULL;

	fputs(o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE) : "null", f);
	json_object_put(o);
}

static void kpx_json_seen(FILE *f, uint64_t count, uint64_t first, uint64_t last)
{
	char t[40];

	fprintf(f, ",\"count\":%" PRIu64 ",\"first_seen\":", count);
	if (!count) {
		fputs("null,\"last_seen\":null", f);
		return;
	}
	kpx_problems_time(first, t, sizeof(t));
	fprintf(f, "\"%s\",\"last_seen\":", t);
	kpx_problems_time(last, t, sizeof(t));
	fprintf(f, "\"%s\"", t);
}

static void kpx_json_series(FILE *f, const struct kpc_problem_rule *r,
			    const struct kpx_problem_series *s)
{
	fputs("{\"labels\":{", f);
	for (unsigned int l = 0; l < r->nlabels; l++) {
		fputs(l ? "," : "", f);
		kpx_json_str(f, r->labels[l]);
		fputc(':', f);
		kpx_json_str(f, s->labels[l]);
	}
	fputc('}', f);
	kpx_json_seen(f, s->count, s->first_ns, s->last_ns);
	fprintf(f, ",\"latest\":%s}", s->latest ? s->latest : "null");
}

static void kpx_json_problem(FILE *f, const struct kpc_problem_rule *r,
			     const struct kpx_problem_state *st)
{
	fputs("{\"problem\":", f);
	kpx_json_str(f, r->name);
	if (r->npd) {
		fputs(",\"npd\":", f);
		kpx_json_str(f, r->npd);
	}
	fprintf(f, ",\"kind\":\"%s\",\"condition\":",
		r->kind == KPC_PROBLEM_CONDITION ? "condition" : "event");
	kpx_json_str(f, r->kind == KPC_PROBLEM_CONDITION ? r->condition : NULL);
	fputs(",\"summary\":", f);
	kpx_json_str(f, r->summary ? r->summary : "");
	kpx_json_seen(f, st->count, st->first_ns, st->last_ns);
	fputs(",\"series\":[", f);
	for (unsigned int i = 0; i < st->nseries; i++) {
		fputs(i ? "," : "", f);
		kpx_json_series(f, r, &st->series[i]);
	}
	if (st->overflow) {
		fputs(st->nseries ? "," : "", f);
		kpx_json_series(f, r, st->overflow);
	}
	fputs("]}", f);
}

char *kpx_problems_json(struct kpx_problems *pr, bool seen_only)
{
	unsigned int n = kpx_problems_rules(pr), written = 0;
	bool locked = pr && pr->ready;
	size_t size = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &size);

	if (!f)
		return NULL;
	fprintf(f, "{\"rules\":%u,\"problems\":[", n);
	if (locked)
		pthread_mutex_lock(&pr->lock);
	for (unsigned int i = 0; i < n; i++) {
		if (seen_only && !pr->state[i].count)
			continue;
		fputs(written++ ? "," : "", f);
		kpx_json_problem(f, kpc_problems_rule(pr->cat, i), &pr->state[i]);
	}
	for (unsigned int i = 0; pr && pr->npd_state && i < pr->npd->nreasons; i++) {
		if (seen_only && !pr->npd_state[i].count)
			continue;
		fputs(written++ ? "," : "", f);
		kpx_json_problem(f, &pr->npd->reasons[i], &pr->npd_state[i]);
	}
	if (locked)
		pthread_mutex_unlock(&pr->lock);
	fputs("]}", f);
	if (ferror(f) | fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}
