// SPDX-License-Identifier: GPL-2.0
/*
 * The store of recent records.  Ingest hands over whole batches, so the
 * lock is taken once per wake-up, not per record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "kpx_store.h"

int kpx_store_init(struct kpx_store *s, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->ring = calloc(cap, sizeof(*s->ring));
	s->problems = calloc(cap, sizeof(*s->problems));
	s->seqs = calloc(cap, sizeof(*s->seqs));
	s->rooms = calloc(cap, sizeof(*s->rooms));
	if (!s->ring || !s->problems || !s->seqs || !s->rooms) {
		free(s->ring);
		free(s->problems);
		free(s->seqs);
		free(s->rooms);
		return -ENOMEM;
	}
	s->cap = cap;
	/* Unpredictable is not needed, only unlikely to repeat: time and pid will do. */
	if (getrandom(&s->instance, sizeof(s->instance), GRND_NONBLOCK) != sizeof(s->instance))
		s->instance = (uint32_t)time(NULL) * 2654435761u ^ (uint32_t)getpid();
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void kpx_store_fini(struct kpx_store *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++) {
		kpc_record_free(s->ring[i]);
		free(s->problems[i]);
	}
	free(s->ring);
	free(s->problems);
	free(s->seqs);
	free(s->rooms);
	s->ring = NULL;
	s->problems = NULL;
	s->seqs = NULL;
	s->rooms = NULL;
	pthread_mutex_destroy(&s->lock);
}

void kpx_store_add(struct kpx_store *s, struct kpc_record **recs, size_t n)
{
	kpx_store_add_problems(s, recs, NULL, n);
}

/*
 * The records and their problem events into the ring, under one lock.  The
 * records they push out go to old, up to max of them; the rest are freed
 * here, under the lock (rare: callers leave room).  Returns how many old has.
 */
static size_t kpx_store_put(struct kpx_store *s, struct kpc_record **recs,
			    const uint32_t *rooms, char **problems, size_t n,
			    struct kpc_record **old, uint32_t *old_rooms, size_t max)
{
	size_t i, nold = 0;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < n; i++) {
		struct kpc_record *prev = s->ring[s->head];
		uint32_t prev_room = s->rooms[s->head];
		/* Wrapped by hand: a division per slot was most of the loop. */
		size_t next = s->head + 1 == s->cap ? 0 : s->head + 1;
		size_t newest = s->head ? s->head - 1 : s->cap - 1;

		/*
		 * Live records come in sequence order; a replayed file need
		 * not.  Keep count of where the order breaks, so that queries
		 * know whether they may binary-search.
		 */
		if (s->n == s->cap && s->cap > 1 && s->seqs[s->head] >= s->seqs[next])
			s->descents--;
		if (s->n && recs[i]->seq <= s->seqs[newest])
			s->descents++;
		s->ring[s->head] = recs[i];
		s->seqs[s->head] = recs[i]->seq;
		s->rooms[s->head] = rooms ? rooms[i] : 0;
		/* Most records are no problem: nothing to free. */
		if (s->problems[s->head])
			free(s->problems[s->head]);
		s->problems[s->head] = problems ? problems[i] : NULL;
		s->head = next;
		if (s->n < s->cap)
			s->n++;
		s->received++;
		if (prev && nold < max) {
			if (old_rooms)
				old_rooms[nold] = prev_room;
			old[nold++] = prev;
		} else {
			kpc_record_free(prev);
		}
	}
	if (n && s->notify)
		s->notify(s->notify_ctx);
	pthread_mutex_unlock(&s->lock);
	return nold;
}

void kpx_store_add_problems(struct kpx_store *s, struct kpc_record **recs, char **problems,
			    size_t n)
{
	struct kpc_record *old[64];
	size_t i, nold;

	/* Freed outside the lock when we can: readers wait less. */
	nold = kpx_store_put(s, recs, NULL, problems, n, old, NULL, sizeof(old) / sizeof(old[0]));
	for (i = 0; i < nold; i++)
		kpc_record_free(old[i]);
}

size_t kpx_store_add_recycle(struct kpx_store *s, struct kpc_record **recs,
			     const uint32_t *rooms, char **problems, size_t n,
			     struct kpc_record **old, uint32_t *old_rooms)
{
	return kpx_store_put(s, recs, rooms, problems, n, old, old_rooms, n);
}

void kpx_store_reload(struct kpx_store *s)
{
	struct kpc_record **old;
	size_t i, cap = s->cap;

	/* A fresh array to swap in, so the old records are freed unlocked. */
	old = calloc(cap, sizeof(*old));
	pthread_mutex_lock(&s->lock);
	if (old) {
		struct kpc_record **tmp = s->ring;

		s->ring = old;
		old = tmp;
	} else {
		for (i = 0; i < cap; i++) {
			kpc_record_free(s->ring[i]);
			s->ring[i] = NULL;
		}
	}
	for (i = 0; i < cap; i++) {
		free(s->problems[i]);
		s->problems[i] = NULL;
	}
	s->head = 0;
	s->n = 0;
	s->descents = 0;
	s->reloads++;
	s->module_loaded = true;
	s->instance++;
	s->instance_start = s->received;
	if (s->notify)
		s->notify(s->notify_ctx);
	pthread_mutex_unlock(&s->lock);
	if (old) {
		for (i = 0; i < cap; i++)
			kpc_record_free(old[i]);
		free(old);
	}
}

const struct kpc_record *kpx_store_at(const struct kpx_store *s, uint64_t pos)
{
	uint64_t back = s->received - pos;	/* 1 for the newest */

	if (pos >= s->received || back > s->n)
		return NULL;
	return s->ring[(s->head + s->cap - back) % s->cap];
}

const char *kpx_store_problems_at(const struct kpx_store *s, uint64_t pos)
{
	uint64_t back = s->received - pos;

	if (pos >= s->received || back > s->n)
		return NULL;
	return s->problems[(s->head + s->cap - back) % s->cap];
}

int kpx_id_parse(const char *s, uint32_t *instance, uint64_t *seq)
{
	char hex[9];
	uint64_t inst;

	if (strlen(s) < 10 || s[8] != '-')
		return -EINVAL;
	memcpy(hex, s, 8);
	hex[8] = '\0';
	if (kpc_parse_u64(hex, 16, UINT32_MAX, &inst) ||
	    kpc_parse_u64(s + 9, 10, UINT64_MAX, seq))
		return -EINVAL;
	*instance = inst;
	return 0;
}

/*
 * Index (from the oldest) of the first record kept with a sequence number
 * above @after.  Live records are kept in sequence order, so a client
 * paging or resuming with after= costs a binary search, not a scan of
 * everything kept; out of order (a replayed file), every record is looked
 * at.  Called with the store locked.
 */
size_t kpx_store_first_after(const struct kpx_store *s, size_t oldest, uint64_t after)
{
	size_t lo = 0, hi = s->n;

	if (s->descents)
		return 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->seqs[(oldest + mid) % s->cap] <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t kpx_store_pos_after(const struct kpx_store *s, uint64_t after)
{
	size_t oldest = (s->head + s->cap - s->n) % s->cap;

	return s->received - s->n + kpx_store_first_after(s, oldest, after);
}
