/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recent records, oldest overwritten first (kpx_store.c).  Ingest
 * hands over whole batches, so the lock is taken once per wake-up, not
 * per record.
 */
#ifndef KPX_STORE_H
#define KPX_STORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kpc.h"

/* The recent records, oldest overwritten first, and what ingest counted. */
struct kpx_store {
	pthread_mutex_t lock;
	struct kpc_record **ring;	/* cap slots, kpc_record_dup() copies */
	/*
	 * Beside each slot, the /events text of the problems its record is
	 * (kpx_problems.h), or NULL: most records are none, and a stream
	 * sends them right after the record's own event.
	 */
	char **problems;
	/*
	 * Beside each slot, its record's seq: the order checks and the
	 * binary search read these, not the records, which are scattered
	 * over the heap (ingest touched two cold records per record).
	 */
	uint64_t *seqs;
	/*
	 * Beside each slot, the bytes its record's memory holds, as ingest
	 * said when it added the record (0: not said), handed back with the
	 * record: asking malloc_usable_size() per record was 5% of ingest's
	 * time in the bench guest.
	 */
	uint32_t *rooms;
	size_t cap;
	size_t head;			/* the slot the next record goes to */
	size_t n;			/* records held, <= cap */
	size_t descents;		/* neighbours whose seq does not go up */

	uint64_t received;
	uint64_t lost[KPC_LOST_REASONS];	/* by enum kpc_lost_reason */
	uint64_t resyncs;		/* gaps and overruns recovered from */
	uint64_t malformed;
	uint64_t reloads;		/* times kprint.ko came back */
	uint64_t forged;		/* datagrams not from the kernel, dropped */
	bool ingest_up;			/* the subscription is alive */
	bool module_loaded;		/* the kprint family is registered */
	bool replay;			/* records from --replay: no kernel at all */

	/*
	 * Where a record is, for /events: the store numbers every record it
	 * takes (its position, 0 for the first, counted by received), and
	 * names the module instance they are of.  Sequence numbers restart
	 * when kprint.ko is loaded again; the instance does not: it is drawn
	 * at random when the store starts and goes up by one at each
	 * reload, so that an event id of another exporter process or of an
	 * earlier instance is never taken for one of this instance.
	 */
	uint32_t instance;
	uint64_t instance_start;	/* position of the instance's first record */
	/* Called under the lock when records came or the instance changed. */
	void (*notify)(void *ctx);
	void *notify_ctx;
};

int kpx_store_init(struct kpx_store *s, size_t cap);
void kpx_store_fini(struct kpx_store *s);
/* Take ownership of n records (kpc_record_dup() copies), under one lock. */
void kpx_store_add(struct kpx_store *s, struct kpc_record **recs, size_t n);
/* The same, with each record's problem events (taken over; NULL: none). */
void kpx_store_add_problems(struct kpx_store *s, struct kpc_record **recs, char **problems,
			    size_t n);
/*
 * The same, with the bytes each record's memory holds (rooms), handing
 * back the records the ring no longer keeps instead of freeing them, for
 * ingest to copy the next ones into: old and old_rooms have room for n;
 * returns how many it got, the caller's to reuse or kpc_record_free().
 */
size_t kpx_store_add_recycle(struct kpx_store *s, struct kpc_record **recs,
			     const uint32_t *rooms, char **problems, size_t n,
			     struct kpc_record **old, uint32_t *old_rooms);
/*
 * kprint.ko was loaded again: drop the old instance's records, whose
 * sequence numbers the new one reuses (paging by seq would mix them).
 */
void kpx_store_reload(struct kpx_store *s);
/*
 * The record at position pos, or NULL if the store no longer (or does
 * not yet) hold it.  Called with the store locked.
 */
const struct kpc_record *kpx_store_at(const struct kpx_store *s, uint64_t pos);
/* The problem events of the record at pos, or NULL.  Store locked. */
const char *kpx_store_problems_at(const struct kpx_store *s, uint64_t pos);
/* Position of the first record kept with a sequence number above after. */
uint64_t kpx_store_pos_after(const struct kpx_store *s, uint64_t after);

/* An event id: "INSTANCE-SEQ", the instance 8 hex digits (kpx_store). */
#define KPX_ID_MAX	32
int kpx_id_parse(const char *s, uint32_t *instance, uint64_t *seq);
/*
 * Index (from the oldest) of the first record kept with a sequence number
 * above after.  Called with the store locked.
 */
size_t kpx_store_first_after(const struct kpx_store *s, size_t oldest, uint64_t after);

#endif /* KPX_STORE_H */
