// SPDX-License-Identifier: GPL-2.0
/*
 * The subscriber thread: kpc_stream delivers records in sequence order,
 * resyncing from the ring on gaps and overruns.  Records are decoded
 * straight into the batch's memory (the copies the store no longer
 * keeps, handed back) while kpc_stream_process() runs (which may dump
 * the ring and so take a while); the batch goes into the store under
 * one lock afterwards, or every KPX_INGEST_BATCH records, so HTTP
 * readers never wait for netlink.  Before that, every record goes
 * through the problem catalog's matcher, in order (kpx_problems.h): the
 * journal and the store get each record's problems with it.
 */
#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kpc.h"
#include "kpx_ingest.h"
#include "kpx_journal.h"
#include "kpx_log.h"
#include "kpx_npd.h"
#include "kpx_problems.h"
#include "kpx_store.h"

/* kpc_stream_process() calls per flush to the store, at most. */
#define KPX_INGEST_ROUNDS	16
/*
 * A fresh copy's size is rounded up to this, so that the copies the
 * store hands back fit most of the records that come next.
 */
#define KPX_INGEST_COPY_ROUND	256
/*
 * Records per flush to the store, at most, once the ring's records are
 * in.  A backlog of many datagrams (a flood, or an exporter just started)
 * otherwise made one batch of tens of thousands of records: each a fresh
 * allocation, since the store hands back the copies it drops only when it
 * takes the batch, and all of them kept as spares afterwards.  The first
 * flood after a start cost a page fault per five records, and the spares
 * held as much memory again as the store.
 */
#define KPX_INGEST_BATCH	512

struct kpx_batch {
	struct kpx_store *store;
	struct kpc_stream *st;		/* for its count of forged datagrams */
	struct kpx_journal *journal;	/* --journal, once started; or NULL */
	struct kpx_problems *problems;	/* the catalog's matcher; or NULL */
	struct kpc_record **recs;
	/*
	 * Beside each record and each spare: the bytes its memory holds, as
	 * kpx_batch_mem() knew when it gave that memory (0: not known, as for
	 * a record --replay added, whose copy the store may hand back too).
	 */
	uint32_t *rooms, *spare_rooms;
	/* Beside each record: its problems (NULL: none), and their /events text. */
	struct kpx_hits **hits;
	char **events;
	size_t n, cap;
	size_t matched;			/* records of recs already matched */
	/*
	 * Copies the store no longer keeps, for the next records to be
	 * copied into: in a steady flow, ingest allocates nothing per record.
	 * Room for cap, as recs.
	 */
	struct kpc_record **spare;
	size_t nspare;
	/*
	 * Where the stream decodes records (kpx_batch_into()), and the one
	 * it decoded last, which kpx_ingest_record() keeps as it is rather
	 * than copy it.
	 */
	struct kpc_record_mem mem;
	const struct kpc_record *fresh;
	uint32_t fresh_room;		/* the bytes of fresh's memory */
	uint32_t mem_room;		/* of what kpx_batch_mem() gave last */
	uint64_t lost[KPC_LOST_REASONS];
	uint64_t resyncs;
	uint64_t malformed;
	/*
	 * CLOCK_MONOTONIC of the last flush that stored records, and how
	 * many it had stored by then: logged at the end, so a benchmark
	 * learns when the exporter had the last record of a flood without
	 * asking it while the flood runs (tests/bench/guest.py, B2).
	 */
	uint64_t last_ns;
	uint64_t last_received;
	int err;			/* first -ENOMEM, reported once */
	bool live;			/* past the ring's records: KPX_INGEST_BATCH */
};

static int kpx_batch_grow(struct kpx_batch *b)
{
	size_t cap = b->cap ? b->cap * 2 : 256;
	struct kpc_record **r;
	struct kpx_hits **h;
	uint32_t *u;
	char **e;

	r = realloc(b->recs, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	b->recs = r;
	u = realloc(b->rooms, cap * sizeof(*u));
	if (!u)
		return -ENOMEM;
	b->rooms = u;
	h = realloc(b->hits, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	b->hits = h;
	e = realloc(b->events, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	b->events = e;
	r = realloc(b->spare, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	b->spare = r;
	u = realloc(b->spare_rooms, cap * sizeof(*u));
	if (!u)
		return -ENOMEM;
	b->spare_rooms = u;
	b->cap = cap;
	return 0;
}

/*
 * Memory for a copy of size bytes: a spare one if it is big enough.  What
 * it holds is left in b->mem_room.
 */
static void *kpx_batch_mem(size_t size, void *ctx)
{
	struct kpx_batch *b = ctx;
	void *p;

	while (b->nspare) {
		struct kpc_record *sp = b->spare[--b->nspare];
		size_t room = b->spare_rooms[b->nspare];

		if (!room)
			room = malloc_usable_size(sp);
		if (room >= size) {
			b->mem_room = room <= UINT32_MAX ? room : 0;
			return sp;
		}
		kpc_record_free(sp);
	}
	size = (size + KPX_INGEST_COPY_ROUND - 1) / KPX_INGEST_COPY_ROUND * KPX_INGEST_COPY_ROUND;
	p = malloc(size);
	b->mem_room = p && size <= UINT32_MAX ? size : 0;
	return p;
}

/* Memory for the stream to decode a record into, to be kept. */
static void *kpx_batch_into(size_t size, void *ctx)
{
	struct kpx_batch *b = ctx;

	b->fresh = kpx_batch_mem(size, b);
	b->fresh_room = b->mem_room;
	return (void *)b->fresh;
}

/* A record decoded into kpx_batch_into()'s memory and not kept. */
static void kpx_batch_release(struct kpc_record *rec, void *ctx)
{
	struct kpx_batch *b = ctx;

	b->fresh = NULL;
	if (b->nspare < b->cap) {
		b->spare_rooms[b->nspare] = b->fresh_room;
		b->spare[b->nspare++] = rec;
	} else {
		kpc_record_free(rec);
	}
}

static void kpx_batch_flush(struct kpx_batch *b);

/*
 * A record the stream decoded into our memory is kept as it is.  Any
 * other is copied: one it had no memory for, or a notified one whose
 * delivery waited for a resync (whose records took the memory since).
 */
static int kpx_ingest_record(const struct kpc_record *rec, void *ctx)
{
	struct kpx_batch *b = ctx;
	struct kpc_record *copy;
	int kept = 0;

	if (b->n == b->cap && kpx_batch_grow(b))
		goto nomem;
	if (rec == b->fresh) {
		/* Ours: kpx_batch_into() gave the memory. */
		copy = (struct kpc_record *)rec;
		b->fresh = NULL;
		b->rooms[b->n] = b->fresh_room;
		kept = KPC_RECORD_KEPT;
	} else {
		copy = kpc_record_copy_with(rec, kpx_batch_mem, b);
		if (!copy)
			goto nomem;
		b->rooms[b->n] = b->mem_room;
	}
	b->recs[b->n++] = copy;
	if (b->live && b->n >= KPX_INGEST_BATCH)
		kpx_batch_flush(b);
	return kept;
nomem:
	/* Received but not kept: say so, and go on with the stream. */
	if (!b->err)
		kpx_log("out of memory: record %" PRIu64
			" not kept\n", rec->seq);
	b->err = -ENOMEM;
	return 0;
}

/* Whether records go through a problem catalog or NPD rules at all. */
static bool kpx_batch_matching(const struct kpx_batch *b)
{
	const struct kpx_problems *pr = b->problems;

	return pr && (pr->m || (pr->npd && pr->npd->nfiles));
}

/*
 * Every record of the batch through the problem catalog, in order, once:
 * this thread is the matcher's only one, and the store does not own the
 * records yet.  The instance is the store's, which only this thread
 * changes (kpx_store_reload()).  Without a catalog or rules, no record
 * is any problem, and none is looked at.
 */
static void kpx_batch_match(struct kpx_batch *b)
{
	if (!kpx_batch_matching(b)) {
		/* hits and events are not read: the callers pass NULL for them. */
		b->matched = b->n;
		return;
	}
	for (; b->matched < b->n; b->matched++) {
		struct kpx_hits *h = kpx_problems_record(b->problems, b->recs[b->matched],
							 b->store->instance);

		b->hits[b->matched] = h;
		b->events[b->matched] = h ? h->events : NULL;
		if (h)
			h->events = NULL;	/* the store's, once added */
	}
}

/*
 * The spares beyond what the store may hand back this time, freed: a
 * burst that grew the batch leaves no more than one batch of them.
 */
static void kpx_batch_trim(struct kpx_batch *b)
{
	while (b->nspare > b->cap - b->n)
		kpc_record_free(b->spare[--b->nspare]);
}

/* Hand the batch to the store: one lock for everything one wake-up got. */
static void kpx_batch_flush(struct kpx_batch *b)
{
	struct kpx_store *s = b->store;
	bool hits = kpx_batch_matching(b);

	kpx_batch_match(b);
	/* Copied first: the store owns the records once it has them. */
	kpx_journal_add_hits(b->journal, b->recs, hits ? b->hits : NULL, b->n);
	kpx_batch_trim(b);
	b->nspare += kpx_store_add_recycle(s, b->recs, b->rooms, hits ? b->events : NULL, b->n,
					   b->spare + b->nspare, b->spare_rooms + b->nspare);
	for (size_t i = 0; hits && i < b->n; i++)
		kpx_hits_free(b->hits[i]);
	b->matched = 0;
	pthread_mutex_lock(&s->lock);
	for (int r = 0; r < KPC_LOST_REASONS; r++)
		s->lost[r] += b->lost[r];
	s->resyncs += b->resyncs;
	s->malformed += b->malformed;
	/*
	 * Datagrams from other processes, which libkpc dropped: a record
	 * unicast to our port by anyone but the kernel is never shown.
	 */
	if (b->st)
		s->forged = kpc_stream_foreign(b->st);
	if (s->received != b->last_received) {
		struct timespec ts;

		/* One clock read per wake-up, not per record. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		b->last_ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		b->last_received = s->received;
	}
	pthread_mutex_unlock(&s->lock);
	b->n = 0;
	memset(b->lost, 0, sizeof(b->lost));
	b->resyncs = b->malformed = 0;
}

static int kpx_ingest_event(const struct kpc_event *ev, void *ctx)
{
	struct kpx_batch *b = ctx;

	switch (ev->kind) {
	case KPC_EVENT_GAP:
		b->resyncs++;
		kpx_log("gap of %" PRIu64 " records (%" PRIu64
			"..%" PRIu64 "), re-reading the ring\n",
			ev->count, ev->first_seq, ev->last_seq);
		break;
	case KPC_EVENT_OVERRUN:
		b->resyncs++;
		kpx_log("socket overrun, re-reading the ring"
			" (consider --rcvbuf)\n");
		break;
	case KPC_EVENT_LOST:
		if (ev->reason < KPC_LOST_REASONS)
			b->lost[ev->reason] += ev->count;
		kpx_log("lost %" PRIu64 " records (%" PRIu64
			"..%" PRIu64 "): %s (%s)\n", ev->count, ev->first_seq,
			ev->last_seq, kpc_lost_reason_name(ev->reason),
			kpc_cause_name(ev->cause));
		break;
	case KPC_EVENT_MALFORMED:
		b->malformed += ev->count;
		kpx_log("%" PRIu64 " malformed records skipped\n",
			ev->count);
		break;
	case KPC_EVENT_UNLOADED:
		kpx_log("kprint.ko was unloaded after record %"
			PRIu64 "; waiting for it (kprint_module_loaded 0)\n",
			ev->first_seq - 1);
		kpx_batch_flush(b);
		pthread_mutex_lock(&b->store->lock);
		b->store->module_loaded = false;
		pthread_mutex_unlock(&b->store->lock);
		break;
	case KPC_EVENT_RELOADED:
		/* Everything of the old instance goes first, then away. */
		kpx_log("kprint.ko is loaded again; following"
			" it from seq %" PRIu64 ", /records starts afresh\n",
			ev->first_seq);
		kpx_batch_flush(b);
		kpx_store_reload(b->store);
		break;
	}
	return 0;
}

static void *kpx_ingest_main(void *arg)
{
	struct kpx_ingest *in = arg;
	struct kpx_batch *b = kpc_stream_tracker(in->st)->ctx;
	struct pollfd pfd[2] = {
		{ .fd = kpc_stream_fd(in->st), .events = POLLIN },
		{ .fd = in->stop_fd, .events = POLLIN },
	};
	unsigned int rounds;
	int err = 0;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (pfd[1].revents)
			break;
		/*
		 * kpc_stream_process() handles a bounded batch so as not to
		 * starve a shared loop; this thread has nothing else to do,
		 * so go on until the socket is empty, then flush once.  A
		 * flood that never lets the socket empty still gets flushed
		 * every KPX_INGEST_ROUNDS batches, so /records keeps up and
		 * the batch stays bounded.
		 */
		rounds = 0;
		do {
			err = kpc_stream_process(in->st);
			if (err)
				break;
			pfd[0].revents = 0;
		} while (++rounds < KPX_INGEST_ROUNDS &&
			 poll(pfd, 1, 0) > 0 && (pfd[0].revents & POLLIN));
		kpx_batch_flush(b);
		if (err)
			break;
	}
	if (err)
		kpx_log("the subscription failed: %s;"
			" /records no longer updates\n", strerror(-err));
	pthread_mutex_lock(&in->store->lock);
	in->store->ingest_up = false;
	pthread_mutex_unlock(&in->store->lock);
	return NULL;
}

int kpx_ingest_open(struct kpx_ingest *in)
{
	struct kpx_batch *b;
	struct kpc_stream_opts opts = {
		.rcvbuf = in->rcvbuf,
		.replay = true,
		.record = kpx_ingest_record,
		.event = kpx_ingest_event,
	};
	struct kpc_sock *ctl;
	struct kpc_stats stats;
	int err;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	opts.ctx = b;
	b->mem = (struct kpc_record_mem){
		.alloc = kpx_batch_into, .release = kpx_batch_release, .ctx = b,
	};
	opts.mem = &b->mem;
	b->store = in->store;
	b->problems = in->problems;

	/*
	 * Start with what the ring holds now, so /records is useful at once;
	 * records overwritten before we started are not ours to report lost.
	 */
	err = kpc_sock_open(&(struct kpc_sock_opts){ 0 }, &ctl);
	if (err)
		goto err_free;
	err = kpc_stats_get(ctl, &stats);
	kpc_sock_close(ctl);
	if (err)
		goto err_free;
	opts.from = stats.first_seq;

	err = kpc_stream_open(&opts, &in->st);
	if (err)
		goto err_free;
	b->st = in->st;
	err = kpc_stream_start(in->st);
	if (err)
		goto err_close;
	/* From the ring: only what an earlier run did not write already. */
	kpx_batch_match(b);
	kpx_journal_add_ring(in->journal, b->recs, kpx_batch_matching(b) ? b->hits : NULL, b->n);
	kpx_batch_flush(b);
	b->journal = in->journal;
	b->live = true;
	if (kpc_stream_rcvbuf(in->st) < in->rcvbuf)
		kpx_log("asked for a %d-byte receive buffer,"
			" got %d\n", in->rcvbuf, kpc_stream_rcvbuf(in->st));

	in->store->ingest_up = true;
	in->store->module_loaded = true;
	return 0;

err_close:
	kpc_stream_close(in->st);
	in->st = NULL;
err_free:
	free(b);
	return err;
}

int kpx_ingest_run(struct kpx_ingest *in)
{
	int err = -pthread_create(&in->thread, NULL, kpx_ingest_main, in);

	in->running = !err;
	return err;
}

void kpx_ingest_stop(struct kpx_ingest *in)
{
	struct kpx_batch *b;
	uint64_t one = 1;

	if (!in->st)
		return;
	if (in->running) {
		if (write(in->stop_fd, &one, sizeof(one)) != sizeof(one))
			kpx_log("stopping ingest: %s\n",
				strerror(errno));
		pthread_join(in->thread, NULL);
		in->running = false;
	}
	b = kpc_stream_tracker(in->st)->ctx;
	kpx_log("received %" PRIu64 " records, the last stored at %" PRIu64
		" ns (CLOCK_MONOTONIC)\n", b->last_received, b->last_ns);
	kpc_stream_close(in->st);
	in->st = NULL;
	while (b->nspare)
		kpc_record_free(b->spare[--b->nspare]);
	free(b->recs);
	free(b->hits);
	free(b->events);
	free(b->spare);
	free(b->rooms);
	free(b->spare_rooms);
	free(b);
}
