// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF families of /metrics: the per-format series, with their
 * exemplars in OpenMetrics, the hooks' totals and the ratelimit callers;
 * and /formats, the same counts as JSON.
 *
 * Counts come from the pinned BPF maps at each scrape, so a restarted
 * exporter reports the same totals: nothing here accumulates what the
 * kernel already counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kpx_expo.h"
#include "kpx_metrics.h"
#include "kpx_metrics_formats.h"
#include "kpx_replay.h"
#include "kpx_store.h"

static struct kpx_series_key kpx_key_of(const struct kpc_format_count *f)
{
	return (struct kpx_series_key){ f->format_id, f->tags_id, f->level, f->class };
}

static int kpx_key_cmp(const struct kpx_series_key *x, const struct kpx_series_key *y)
{
	if (x->format_id != y->format_id)
		return x->format_id < y->format_id ? -1 : 1;
	if (x->tags_id != y->tags_id)
		return x->tags_id < y->tags_id ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->class != y->class)
		return x->class < y->class ? -1 : 1;
	return 0;
}

static int kpx_count_cmp(const void *a, const void *b)
{
	const struct kpc_format_count *x = a, *y = b;
	struct kpx_series_key kx = kpx_key_of(x), ky = kpx_key_of(y);

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return kpx_key_cmp(&kx, &ky);
}

/* By source and key: for qsort() and bsearch(). */
static int kpx_latest_key_cmp(const void *a, const void *b)
{
	const struct kpx_latest *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return kpx_key_cmp(&x->key, &y->key);
}

/* By source and key, the newest first. */
static int kpx_latest_cmp(const void *a, const void *b)
{
	const struct kpx_latest *x = a, *y = b;
	int c = kpx_latest_key_cmp(x, y);

	if (c)
		return c;
	return x->pos == y->pos ? 0 : x->pos > y->pos ? -1 : 1;
}

/*
 * Every series' newest record among those the store holds, so that an
 * exemplar names a record /records can still give.  Sorting a copy of the
 * keys at each scrape costs little (with the default 10,000 records held
 * and 5,000 series, an OpenMetrics scrape took 10.6 ms where the text
 * format took 5.5, exemplars written included), and only OpenMetrics
 * scrapes pay it; a table kept up to date instead would cost ingest at
 * every record, for the scrapes' sake.
 * Returns 0 (set->n 0 when there is nothing), or -ENOMEM.
 */
int kpx_latest_collect(struct kpx_store *s, struct kpx_latest_set *set)
{
	size_t i, j;

	memset(set, 0, sizeof(*set));
	pthread_mutex_lock(&s->lock);
	set->instance = s->instance;
	if (s->n)
		set->l = malloc(s->n * sizeof(*set->l));
	if (s->n && !set->l) {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++) {
		uint64_t pos = s->received - 1 - i;
		const struct kpc_record *r = kpx_store_at(s, pos);
		struct kpx_latest *l = &set->l[set->n];

		if (!r)
			continue;
		if (s->replay)
			l->source = KPX_LATEST_REPLAY;
		else if (r->source == KPRINT_SOURCE_KPRINT)
			l->source = KPC_BPF_KPRINT;
		else if (r->source == KPRINT_SOURCE_PRINTK)
			l->source = KPC_BPF_PRINTK;
		else
			continue;
		l->key.format_id = r->format_id;
		l->key.tags_id = kpx_tags_id(r->subsystem, r->module);
		l->key.level = r->level;
		l->key.class = r->class;
		l->pos = pos;
		l->seq = r->seq;
		l->ts_real_ns = r->ts_real_ns;
		set->n++;
	}
	pthread_mutex_unlock(&s->lock);
	if (!set->n)
		return 0;
	qsort(set->l, set->n, sizeof(*set->l), kpx_latest_cmp);
	/* The first of each key is its newest: keep it alone. */
	for (i = 1, j = 1; i < set->n; i++)
		if (kpx_latest_key_cmp(&set->l[i], &set->l[j - 1]))
			set->l[j++] = set->l[i];
	set->n = j;
	return 0;
}

static const struct kpx_latest *kpx_latest_find(const struct kpx_latest_set *set,
						uint32_t source,
						const struct kpc_format_count *f)
{
	struct kpx_latest want = { .source = source, .key = kpx_key_of(f) };

	if (!set || !set->n)
		return NULL;
	return bsearch(&want, set->l, set->n, sizeof(*set->l), kpx_latest_key_cmp);
}

/*
 * A per-format counter's exemplar in OpenMetrics: the newest record of the
 * series, by its seq and the module instance of the store (the INSTANCE
 * of /events ids), so that a graph's point leads to the record:
 * /records?format_id=F&after=SEQ-1&limit=1.  Its value is the one message
 * the record counted; its timestamp the record's own, so that a scrape
 * that finds no newer record repeats the exemplar Prometheus already has
 * (a duplicate, not stored again).  The labels take at most 46 of the 128
 * characters the spec allows.  Nothing when the store holds no record of
 * the series (overwritten, or a printk not bridged).
 */
static void kpx_exemplar(struct kpx_expo *e, uint32_t source, const struct kpc_format_count *f)
{
	const struct kpx_latest *l;

	if (e->format != KPX_EXPO_OPENMETRICS)
		return;
	l = kpx_latest_find(e->latest, source, f);
	if (!l)
		return;
	fprintf(e->out, " # {seq=\"%" PRIu64 "\",kprint_instance=\"%08" PRIx32 "\"} 1",
		l->seq, e->latest->instance);
	if (l->ts_real_ns)
		fprintf(e->out, " %" PRIu64 ".%09" PRIu64, l->ts_real_ns / 1000000000,
			l->ts_real_ns % 1000000000);
}

/*
 * Every series of the family has the same labels, printk's too (class
 * "none", empty tags), so that aggregations see one shape; the overflow
 * series has them all empty.
 */
static void kpx_formats_write(struct kpx_expo *e, uint32_t source, const char *name,
			      struct kpc_format_count *f, size_t n, unsigned int max_series)
{
	uint64_t rest = 0;
	size_t i;

	/*
	 * The biggest keep their own series: they are the ones alerted on.
	 * No formats may come as f NULL, which qsort() must not be given.
	 */
	if (n)
		qsort(f, n, sizeof(*f), kpx_count_cmp);
	for (i = 0; i < n; i++) {
		const char *level = kpc_level_name(f[i].level);
		const char *class = kpc_class_name(f[i].class);

		if (i >= max_series) {
			rest += f[i].count;
			continue;
		}
		fprintf(e->out, "%s{source=\"%s\",format_id=\"%016"
			PRIx64 "\",level=\"%s\",class=\"%s\",subsystem=\"",
			kpx_metric_name(KPX_M_FORMAT_MESSAGES), name, f[i].format_id,
			level ? level : "unknown", class ? class : "unknown");
		kpx_label_escape(e->out, f[i].subsystem);
		fputs("\",module=\"", e->out);
		kpx_label_escape(e->out, f[i].module);
		fputs("\",format=\"", e->out);
		kpx_label_escape(e->out, f[i].format);
		fprintf(e->out, "\"} %" PRIu64, f[i].count);
		kpx_exemplar(e, source, &f[i]);
		fputc('\n', e->out);
	}
	if (n > max_series)
		fprintf(e->out, "%s{source=\"%s\",format_id=\"\","
			"level=\"\",class=\"\",subsystem=\"\",module=\"\","
			"format=\"__overflow__\"} %" PRIu64 "\n",
			kpx_metric_name(KPX_M_FORMAT_MESSAGES), name, rest);
}

void kpx_metrics_formats(FILE *out, const char *source,
			 struct kpc_format_count *f, size_t n,
			 unsigned int max_series)
{
	struct kpx_expo e = { .out = out, .format = KPX_EXPO_TEXT };

	kpx_formats_write(&e, KPX_LATEST_REPLAY, source, f, n, max_series);
}

static void kpx_metrics_failures(FILE *out, const char *source,
				 const struct kprint_counter_failures *f)
{
	const char *name = kpx_metric_name(KPX_M_BPF_UPDATE_FAILURES);

	fprintf(out, "%s{source=\"%s\",reason=\"full\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->full);
	fprintf(out, "%s{source=\"%s\",reason=\"busy\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->busy);
	fprintf(out, "%s{source=\"%s\",reason=\"nomem\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->nomem);
	fprintf(out, "%s{source=\"%s\",reason=\"other\"} %" PRIu64 "\n", name, source,
		(uint64_t)f->other);
}

static int kpx_ratelimit_cmp(const void *a, const void *b)
{
	const struct kpc_ratelimit_count *x = a, *y = b;

	return strcmp(x->func, y->func);
}

/*
 * One series per caller name: the states' addresses are kernel pointers,
 * not for a scraper, and one function may use several states.
 */
static void kpx_metrics_ratelimit(struct kpx_expo *e, struct kpx_metrics *m)
{
	struct kpc_ratelimit_count *r = NULL;
	size_t n = 0, i;
	uint64_t sum;
	int err;

	if (m->bpf) {
		err = kpc_bpf_ratelimits(m->bpf, &r, &n);
		if (err) {
			fprintf(stderr, "kprint_exporter: reading the ratelimit counters: %s\n",
				strerror(-err));
			n = 0;
		}
	}
	kpx_expo_metric_head(e, KPX_M_RATELIMIT_SUPPRESSED);
	if (n)
		qsort(r, n, sizeof(*r), kpx_ratelimit_cmp);
	for (i = 0; i < n; i++) {
		sum = r[i].suppressed;
		while (i + 1 < n && !strcmp(r[i].func, r[i + 1].func))
			sum += r[++i].suppressed;
		fprintf(e->out, "%s{function=\"", kpx_metric_name(KPX_M_RATELIMIT_SUPPRESSED));
		kpx_label_escape(e->out, r[i].func);
		fprintf(e->out, "\"} %" PRIu64 "\n", sum);
	}
	free(r);
}

void kpx_metrics_bpf(struct kpx_expo *e, struct kpx_metrics *m)
{
	struct kprint_counter_totals t;
	struct kpc_format_count *f[KPC_BPF_NR_SOURCES] = { NULL };
	size_t n[KPC_BPF_NR_SOURCES] = { 0 };
	bool have_totals = false;
	int src, err;

	if (m->bpf) {
		for (src = 0; src < KPC_BPF_NR_SOURCES; src++) {
			err = kpc_bpf_read(m->bpf, src, &f[src], &n[src]);
			if (err) {
				fprintf(stderr, "kprint_exporter: reading the %s counters: %s\n",
					kpc_bpf_source_name(src), strerror(-err));
				f[src] = NULL;
				n[src] = 0;
			}
		}
		err = kpc_bpf_totals(m->bpf, &t);
		if (err)
			fprintf(stderr, "kprint_exporter: reading the BPF totals: %s\n",
				strerror(-err));
		have_totals = !err;
	}

	kpx_expo_single(e, KPX_M_BPF_UP, m->bpf ? 1 : 0);
	kpx_expo_metric_head(e, KPX_M_BPF_ATTACHED);
	for (src = 0; m->bpf && src < KPC_BPF_NR_SOURCES; src++)
		kpx_expo_sample1(e->out, KPX_M_BPF_ATTACHED, "source", kpc_bpf_source_name(src),
				 kpc_bpf_status(m->bpf, src)->attached ? 1 : 0);

	kpx_expo_metric_head(e, KPX_M_FORMAT_MESSAGES);
	for (src = 0; src < KPC_BPF_NR_SOURCES; src++)
		kpx_formats_write(e, src, kpc_bpf_source_name(src), f[src], n[src],
				  m->max_series);
	/* The same family and labels: dashboards work on a replay as they are. */
	if (m->store->replay)
		kpx_formats_write(e, KPX_LATEST_REPLAY, "replay", m->replay, m->nreplay,
				  m->max_series);

	/* Each family's samples right after its own HELP and TYPE. */
	kpx_expo_metric_head(e, KPX_M_BPF_MESSAGES);
	for (src = 0; have_totals && src < KPC_BPF_NR_SOURCES; src++)
		kpx_expo_sample1(e->out, KPX_M_BPF_MESSAGES, "source", kpc_bpf_source_name(src),
				 kpc_bpf_seen(&t, src));
	kpx_expo_metric_head(e, KPX_M_BPF_OVERFLOW);
	for (src = 0; have_totals && src < KPC_BPF_NR_SOURCES; src++)
		kpx_expo_sample1(e->out, KPX_M_BPF_OVERFLOW, "source", kpc_bpf_source_name(src),
				 kpc_bpf_not_counted(&t, src));
	kpx_expo_metric_head(e, KPX_M_BPF_UPDATE_FAILURES);
	if (have_totals) {
		kpx_metrics_failures(e->out, "kprint", &t.kprint_failed);
		kpx_metrics_failures(e->out, "printk", &t.printk_failed);
		kpx_metrics_failures(e->out, "ratelimit", &t.ratelimit_failed);
	}
	kpx_expo_metric_head(e, KPX_M_BPF_PRINTK_HOOK);
	if (have_totals) {
		kpx_expo_sample1(e->out, KPX_M_BPF_PRINTK_HOOK, "hook", "plain", t.printk_plain);
		kpx_expo_sample1(e->out, KPX_M_BPF_PRINTK_HOOK, "hook", "bridge", t.printk_bridged);
		kpx_expo_sample1(e->out, KPX_M_BPF_PRINTK_HOOK, "hook", "echo", t.printk_echo);
	}
	kpx_expo_metric_head(e, KPX_M_BPF_HANDOFF_TORN);
	if (have_totals)
		kpx_expo_sample(e->out, KPX_M_BPF_HANDOFF_TORN, t.handoff_torn);
	kpx_expo_metric_head(e, KPX_M_BPF_HANDOFF_SWITCHED);
	if (have_totals)
		kpx_expo_sample(e->out, KPX_M_BPF_HANDOFF_SWITCHED, t.handoff_switched);
	kpx_expo_metric_head(e, KPX_M_RATELIMIT_CALLS);
	if (have_totals)
		kpx_expo_sample(e->out, KPX_M_RATELIMIT_CALLS, t.ratelimit_calls);
	kpx_metrics_ratelimit(e, m);
	for (src = 0; src < KPC_BPF_NR_SOURCES; src++)
		free(f[src]);
}

static int kpx_formats_add(struct json_object *arr, enum kpc_bpf_source src,
			   const struct kpc_format_count *f)
{
	struct json_object *obj = kpc_json_format_count(src, f);

	if (!obj)
		return -ENOMEM;
	return json_object_array_add(arr, obj) ? (json_object_put(obj), -ENOMEM) : 0;
}

/*
 * The lines of `kprint formats --json --top 0` (schema/formats.schema.json)
 * as one array: every format, then one summary per source.
 */
char *kpx_formats_json(struct kpx_metrics *m, int *status)
{
	struct json_object *arr = json_object_new_array();
	struct kprint_counter_totals t;
	char *out = NULL;
	int src, err = 0;

	if (!arr)
		return NULL;
	pthread_mutex_lock(&m->lock);
	if (!m->bpf) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "error", kpc_json_string(m->bpf_error[0] ?
			m->bpf_error : "the BPF counters are off (--no-bpf)"));
		*status = 503;
		out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
		goto unlock;
	}
	err = kpc_bpf_totals(m->bpf, &t);
	for (src = 0; !err && src < KPC_BPF_NR_SOURCES; src++) {
		const struct kpc_bpf_hook_status *hs = kpc_bpf_status(m->bpf, src);
		struct kpc_format_count *f;
		struct json_object *sum;
		size_t i, n;

		err = kpc_bpf_read(m->bpf, src, &f, &n);
		if (err)
			break;
		if (n)
			qsort(f, n, sizeof(*f), kpx_count_cmp);
		for (i = 0; !err && i < n; i++)
			err = kpx_formats_add(arr, src, &f[i]);
		free(f);
		sum = kpc_json_format_summary(src, &t, n, kpc_bpf_max_formats(m->bpf), hs);
		if (!sum || json_object_array_add(arr, sum)) {
			json_object_put(sum);
			err = -ENOMEM;
			break;
		}
	}
	if (err) {
		fprintf(stderr, "kprint_exporter: reading the BPF counters: %s\n",
			strerror(-err));
		*status = 500;
		out = strdup("{\"error\":\"reading the BPF counters failed\"}");
		goto unlock;
	}
	*status = 200;
	out = strdup(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
unlock:
	pthread_mutex_unlock(&m->lock);
	json_object_put(arr);
	return out;
}
