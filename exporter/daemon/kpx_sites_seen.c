// SPDX-License-Identifier: GPL-2.0
/*
 * Which formats the exporter's own counts know, for the catalog's "seen":
 * the BPF maps (every format counted since they were loaded, per source),
 * or a replay's counts; without either (--no-bpf, BPF unavailable), the
 * records the store holds, the only trace left of the formats that fired.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kpc.h"
#include "kpx_log.h"
#include "kpx_metrics.h"
#include "kpx_sites.h"
#include "kpx_store.h"

static const char *const kpx_seen_sources[KPX_SEEN_NR_SOURCES] = {
	[KPC_BPF_KPRINT] = "kprint",
	[KPC_BPF_PRINTK] = "printk",
	[KPX_SEEN_REPLAY] = "replay",
	[KPX_SEEN_RECORDS] = "records",
};

const char *kpx_seen_source_name(unsigned int source)
{
	return source < KPX_SEEN_NR_SOURCES ? kpx_seen_sources[source] : NULL;
}

static int kpx_seen_add(struct kpx_seen *out, size_t *cap, uint64_t id, uint64_t count,
			unsigned int source)
{
	if (out->n == *cap) {
		size_t grow = *cap ? *cap * 2 : 256;
		struct kpx_seen_format *v = realloc(out->v, grow * sizeof(*v));

		if (!v)
			return -ENOMEM;
		out->v = v;
		*cap = grow;
	}
	out->v[out->n++] = (struct kpx_seen_format){ id, count, source };
	return 0;
}

static int kpx_seen_cmp(const void *a, const void *b)
{
	const struct kpx_seen_format *x = a, *y = b;

	if (x->format_id != y->format_id)
		return x->format_id < y->format_id ? -1 : 1;
	return (int)x->source - (int)y->source;
}

/* The BPF maps' series, one per format, level, class and tags: summed below. */
static int kpx_seen_bpf(struct kpx_metrics *m, struct kpx_seen *out, size_t *cap)
{
	int err = 0;

	pthread_mutex_lock(&m->lock);
	for (int src = 0; m->bpf && !err && src < KPC_BPF_NR_SOURCES; src++) {
		struct kpc_format_count *f;
		size_t n;

		err = kpc_bpf_read(m->bpf, src, &f, &n);
		if (err) {
			kpx_log("reading the %s counters: %s\n", kpc_bpf_source_name(src),
				strerror(-err));
			err = 0;
			continue;
		}
		for (size_t i = 0; !err && i < n; i++)
			err = kpx_seen_add(out, cap, f[i].format_id, f[i].count, src);
		free(f);
	}
	pthread_mutex_unlock(&m->lock);
	return err;
}

static int kpx_seen_records(struct kpx_store *s, struct kpx_seen *out, size_t *cap)
{
	int err = 0;

	pthread_mutex_lock(&s->lock);
	for (uint64_t i = 0; !err && i < s->n; i++) {
		const struct kpc_record *r = kpx_store_at(s, s->received - 1 - i);

		if (r)
			err = kpx_seen_add(out, cap, r->format_id, 1, KPX_SEEN_RECORDS);
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

int kpx_seen_collect(struct kpx_metrics *m, struct kpx_seen *out)
{
	size_t cap = 0, j = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (m->bpf)
		err = kpx_seen_bpf(m, out, &cap);
	else if (m->store->replay)
		for (size_t i = 0; !err && i < m->nreplay; i++)
			err = kpx_seen_add(out, &cap, m->replay[i].format_id, m->replay[i].count,
					   KPX_SEEN_REPLAY);
	else
		err = kpx_seen_records(m->store, out, &cap);
	if (err) {
		free(out->v);
		memset(out, 0, sizeof(*out));
		return err;
	}
	if (!out->n)
		return 0;
	/* One item per format and source, its series summed. */
	qsort(out->v, out->n, sizeof(*out->v), kpx_seen_cmp);
	for (size_t i = 1; i < out->n; i++) {
		if (!kpx_seen_cmp(&out->v[i], &out->v[j]))
			out->v[j].count += out->v[i].count;
		else
			out->v[++j] = out->v[i];
	}
	out->n = j + 1;
	return 0;
}

bool kpx_seen_count(const struct kpx_seen *seen, uint64_t format_id, uint64_t *count)
{
	size_t lo = 0, hi = seen->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (seen->v[mid].format_id < format_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*count = 0;
	for (size_t i = lo; i < seen->n && seen->v[i].format_id == format_id; i++)
		*count += seen->v[i].count;
	return lo < seen->n && seen->v[lo].format_id == format_id;
}
