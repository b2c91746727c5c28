/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint record ring: the ring of serialized records (kprint_record.h).
 * See the DOC: overview in kprint_ring.c.
 */
#ifndef _KPRINT_RING_H
#define _KPRINT_RING_H

#include <linux/spinlock.h>
#include <linux/types.h>

#include "kprint_record.h"

/**
 * struct kprint_cursor - a reader's position in the ring
 * @seq: sequence number of the next record to read
 * @lpos: logical byte position of that record (or of a pad before it)
 *
 * Records never move, so @lpos stays valid for as long as the ring's tail
 * has not passed it; readers re-check that under the ring lock.
 */
struct kprint_cursor {
	u64 seq;
	u64 lpos;
};

/**
 * struct kprint_ring - the record ring
 * @lock: serialises writers, readers and the counters below
 * @buf: the byte buffer (vmalloc)
 * @size: bytes in @buf, a power of two
 * @head: logical position where the next record goes
 * @tail: logical position of the oldest record (or of a pad before it)
 * @first_seq: seq of the oldest record held (== @next_seq when empty)
 * @next_seq: seq the next record gets
 * @nr_records: records held now
 * @records: records stored since the ring was set up
 * @overwritten: records evicted to make room
 * @truncated: records stored with KPRINT_RECORD_F_TRUNCATED
 * @ntf: multicast cursor, owned by the notification worker
 * @ntf_skipped: records evicted before the worker could multicast them
 * @last_mono: the newest record's CLOCK_MONOTONIC stamp
 */
struct kprint_ring {
	raw_spinlock_t lock;
	char *buf;
	u32 size;
	u64 head;
	u64 tail;
	u64 first_seq;
	u64 next_seq;
	u64 nr_records;
	u64 records;
	u64 overwritten;
	u64 truncated;
	struct kprint_cursor ntf;
	u64 ntf_skipped;
	u64 last_mono;
};

/**
 * struct kprint_ring_stats - snapshot of the ring counters
 * @size: buffer size in bytes
 * @nr_records: records held
 * @first_seq: oldest record held
 * @next_seq: sequence number the next record gets
 * @records: records stored since setup
 * @overwritten: records evicted
 * @truncated: records stored truncated
 * @ntf_skipped: records evicted before they could be multicast
 */
struct kprint_ring_stats {
	u64 size;
	u64 nr_records;
	u64 first_seq;
	u64 next_seq;
	u64 records;
	u64 overwritten;
	u64 truncated;
	u64 ntf_skipped;
};

/*
 * Return values of a kprint_ring_read_fn: KPRINT_RING_NEXT consumes the
 * record and goes on, KPRINT_RING_STOP leaves it unread and ends the read.
 */
#define KPRINT_RING_NEXT	0
#define KPRINT_RING_STOP	1

typedef int (*kprint_ring_read_fn)(const struct kprint_rec *rec, void *arg);

int kprint_ring_init(struct kprint_ring *ring, u32 size);
void kprint_ring_destroy(struct kprint_ring *ring);
u64 kprint_ring_write(struct kprint_ring *ring, const struct kprint_rec *recs,
		      unsigned int len);
void kprint_ring_seek(struct kprint_ring *ring, struct kprint_cursor *cur,
		      u64 seq);
bool kprint_ring_read(struct kprint_ring *ring, struct kprint_cursor *cur,
		      kprint_ring_read_fn fn, void *arg);
void kprint_ring_ntf_catch_up(struct kprint_ring *ring);
void kprint_ring_get_stats(struct kprint_ring *ring,
			   struct kprint_ring_stats *st);

#endif /* _KPRINT_RING_H */
