// SPDX-License-Identifier: GPL-2.0
/*
 * kprint record ring.
 */

#include <linux/bug.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kprint_clock.h"
#include "kprint_ring.h"

/**
 * DOC: kprint ring overview
 *
 * Data Structure
 * --------------
 * The ring is one vmalloc'ed byte buffer whose size is a power of two.
 * Records (struct kprint_rec) are variable-length and stored back to back,
 * each padded to a multiple of 8 bytes.  Positions are logical: a 64-bit
 * byte count since the ring was set up ("lpos"), which never wraps in
 * practice; the offset in the buffer is lpos modulo the size.
 *
 * A record is never split across the end of the buffer.  When the next
 * record does not fit in the bytes left before the end, a pad record
 * (KPRINT_REC_PAD, only @len and @rflags valid) fills them and the record
 * starts at offset 0.  Because sizes and the buffer are multiples of 8, the
 * left-over space always has room for the 8-byte pad header.
 *
 * @tail is the lpos of the oldest record (or of a pad in front of it) and
 * @head the lpos where the next record goes; head - tail never exceeds the
 * size.  Records between them have the consecutive sequence numbers
 * first_seq .. next_seq - 1.
 *
 * Writing
 * -------
 * Every write happens under @lock with interrupts off: the writer assigns
 * the sequence number and the timestamps, evicts the oldest records until
 * the new one fits (counting them as overwritten) and copies the record in.
 * The timestamps (kprint_clock.c) are taken under the lock and never
 * below the previous record's, so they are non-decreasing in sequence
 * order.  Several records written by one call (a block) get
 * consecutive sequence numbers and nothing can come between them.
 *
 * Rendering happens before the lock is taken, so the lock is only held for
 * the copy; records are at most KPRINT_REC_MAX bytes.
 *
 * Reading
 * -------
 * A reader keeps a struct kprint_cursor: the sequence number and lpos of
 * the next record it wants.  Records never move, so the cursor stays valid
 * as long as the tail has not passed its lpos.  Readers walk under @lock; a
 * cursor that fell behind the tail is moved to the oldest record, and the
 * reader learns about the loss from the jump in sequence numbers.
 *
 * Readers copy what they need (into a netlink message) while holding the
 * lock, so they never see a record being overwritten.
 *
 * Notification cursor
 * -------------------
 * The multicast worker's cursor lives in the ring (@ntf) so that eviction
 * can tell whether a record it throws away was still waiting to be sent:
 * those are counted in @ntf_skipped.  Records stored while nobody listened
 * (KPRINT_REC_NO_NTF) are never sent, so they are neither waited for nor
 * counted, and the cursor simply follows the head past them.
 */

static inline struct kprint_rec *kprint_ring_at(const struct kprint_ring *ring,
						u64 lpos)
{
	return (struct kprint_rec *)(ring->buf + (lpos & (ring->size - 1)));
}

static inline u32 kprint_ring_room_to_end(const struct kprint_ring *ring,
					  u64 lpos)
{
	return ring->size - (lpos & (ring->size - 1));
}

static void kprint_ring_evict(struct kprint_ring *ring)
{
	struct kprint_rec *rec = kprint_ring_at(ring, ring->tail);

	if (!(rec->rflags & KPRINT_REC_PAD)) {
		if (rec->seq >= ring->ntf.seq &&
		    !(rec->rflags & KPRINT_REC_NO_NTF))
			ring->ntf_skipped++;
		ring->first_seq = rec->seq + 1;
		ring->nr_records--;
		ring->overwritten++;
	}
	ring->tail += rec->len;
}

static struct kprint_rec *kprint_ring_reserve(struct kprint_ring *ring,
					      u32 len)
{
	struct kprint_rec *rec;
	u32 pad = 0;

	if (kprint_ring_room_to_end(ring, ring->head) < len)
		pad = kprint_ring_room_to_end(ring, ring->head);

	while (ring->head + pad + len - ring->tail > ring->size) {
		/* Only reachable if a caller ignored the size limits. */
		if (WARN_ON_ONCE(ring->tail == ring->head))
			return NULL;
		kprint_ring_evict(ring);
	}

	if (pad) {
		rec = kprint_ring_at(ring, ring->head);
		rec->len = pad;
		rec->rflags = KPRINT_REC_PAD;
		ring->head += pad;
	}

	rec = kprint_ring_at(ring, ring->head);
	ring->head += len;
	return rec;
}

static u64 kprint_ring_put(struct kprint_ring *ring,
			   const struct kprint_rec *src, u64 mono, u64 real)
{
	struct kprint_rec *rec;
	u64 seq;

	rec = kprint_ring_reserve(ring, src->len);
	if (!rec)
		return 0;

	seq = ring->next_seq++;
	kprint_copy(rec, src, src->len);
	rec->seq = seq;
	/* A backlog record keeps printk's clocks, set by the printk bridge. */
	if (!(rec->flags & KPRINT_RECORD_F_BACKLOG)) {
		rec->ts_mono = mono;
		rec->ts_real = real;
	}

	ring->nr_records++;
	ring->records++;
	if (rec->flags & KPRINT_RECORD_F_TRUNCATED)
		ring->truncated++;

	/* Nothing to send: let the multicast cursor follow the head. */
	if ((rec->rflags & KPRINT_REC_NO_NTF) && ring->ntf.seq == seq) {
		ring->ntf.seq = seq + 1;
		ring->ntf.lpos = ring->head;
	}
	return seq;
}

/* A cursor the tail has passed restarts at the oldest record. */
static void kprint_ring_fixup(const struct kprint_ring *ring,
			      struct kprint_cursor *cur)
{
	if (cur->lpos < ring->tail) {
		cur->seq = ring->first_seq;
		cur->lpos = ring->tail;
	}
}

/**
 * kprint_ring_init() - allocate and set up an empty ring
 * @ring: the ring
 * @size: buffer size in bytes, a power of two, at least 2 * KPRINT_REC_MAX
 *
 * The first record will get sequence number 1.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int kprint_ring_init(struct kprint_ring *ring, u32 size)
{
	if (WARN_ON(!is_power_of_2(size) || size < 2 * KPRINT_REC_MAX))
		return -EINVAL;

	memset(ring, 0, sizeof(*ring));
	ring->buf = vmalloc(size);
	if (!ring->buf)
		return -ENOMEM;

	raw_spin_lock_init(&ring->lock);
	ring->size = size;
	ring->first_seq = 1;
	ring->next_seq = 1;
	ring->ntf.seq = 1;
	return 0;
}

/**
 * kprint_ring_destroy() - free the ring's buffer
 * @ring: the ring, which nobody may use any more
 *
 * Context: Process context.
 */
void kprint_ring_destroy(struct kprint_ring *ring)
{
	vfree(ring->buf);
	ring->buf = NULL;
}

/**
 * kprint_ring_write() - store one record or a whole block
 * @ring: the ring
 * @recs: one or more serialized records, back to back
 * @len: total bytes at @recs
 *
 * Each record gets the next sequence number and the same timestamps;
 * @rflags, @block_id and everything else is copied as given.  Older
 * records are evicted as needed.  Each record must be at most
 * KPRINT_REC_MAX bytes and @len must be well below the ring size, or
 * the block would evict its own first lines.
 *
 * Context: Any context but NMI; takes the ring lock with interrupts off.
 * Return: the sequence number of the first record, or 0 if nothing was
 * stored.
 */
u64 kprint_ring_write(struct kprint_ring *ring, const struct kprint_rec *recs,
		      unsigned int len)
{
	const void *p = recs, *end = (const void *)recs + len;
	unsigned long flags;
	u64 mono, real, seq, first = 0;
	s64 real_offset;

	raw_spin_lock_irqsave(&ring->lock, flags);
	/* Carried forward from a CPU's anchor (kprint_clock.c): never back. */
	mono = max(kprint_clock_read(&real_offset), ring->last_mono);
	ring->last_mono = mono;
	real = mono + real_offset;
	while (p < end) {
		const struct kprint_rec *rec = p;

		seq = kprint_ring_put(ring, rec, mono, real);
		if (!seq)
			break;
		if (!first)
			first = seq;
		p += rec->len;
	}
	raw_spin_unlock_irqrestore(&ring->lock, flags);

	return first;
}

/*
 * Bounds how long a seek keeps interrupts off: a big ring full of small
 * records can hold hundreds of thousands of them.
 */
#define KPRINT_SEEK_BATCH	256

/**
 * kprint_ring_seek() - position a cursor at a sequence number
 * @ring: the ring
 * @cur: the cursor to set
 * @seq: wanted sequence number
 *
 * Sets @cur to the first record whose sequence number is >= @seq, or to
 * the oldest record if @seq was already overwritten, or to the head if
 * @seq is not written yet.
 *
 * Context: Process context; takes the ring lock repeatedly.
 */
void kprint_ring_seek(struct kprint_ring *ring, struct kprint_cursor *cur,
		      u64 seq)
{
	unsigned long flags;
	unsigned int n;
	bool done;

	raw_spin_lock_irqsave(&ring->lock, flags);
	if (seq >= ring->next_seq) {
		cur->seq = ring->next_seq;
		cur->lpos = ring->head;
		raw_spin_unlock_irqrestore(&ring->lock, flags);
		return;
	}
	cur->seq = ring->first_seq;
	cur->lpos = ring->tail;

	for (;;) {
		kprint_ring_fixup(ring, cur);
		for (n = 0; n < KPRINT_SEEK_BATCH; n++) {
			const struct kprint_rec *rec;

			if (cur->seq >= seq || cur->lpos == ring->head)
				break;
			rec = kprint_ring_at(ring, cur->lpos);
			cur->lpos += rec->len;
			if (!(rec->rflags & KPRINT_REC_PAD))
				cur->seq = rec->seq + 1;
		}
		done = cur->seq >= seq || cur->lpos == ring->head;
		raw_spin_unlock_irqrestore(&ring->lock, flags);
		if (done)
			return;
		cond_resched();
		raw_spin_lock_irqsave(&ring->lock, flags);
	}
}

/**
 * kprint_ring_read() - hand records to a callback, oldest first
 * @ring: the ring
 * @cur: where to start; advanced past every record @fn consumed
 * @fn: called for each record with the ring lock held; returns
 *	KPRINT_RING_NEXT to consume the record or KPRINT_RING_STOP to leave
 *	it for the next read
 * @arg: passed to @fn
 *
 * A cursor the tail has passed first jumps to the oldest record.  @fn runs
 * with interrupts off and must not sleep or take locks that an emitter
 * could hold.
 *
 * Context: Any context but NMI.
 * Return: true if the cursor reached the head, false if @fn stopped.
 */
bool kprint_ring_read(struct kprint_ring *ring, struct kprint_cursor *cur,
		      kprint_ring_read_fn fn, void *arg)
{
	unsigned long flags;
	bool all = true;

	raw_spin_lock_irqsave(&ring->lock, flags);
	kprint_ring_fixup(ring, cur);
	while (cur->lpos != ring->head) {
		const struct kprint_rec *rec = kprint_ring_at(ring, cur->lpos);

		if (!(rec->rflags & KPRINT_REC_PAD)) {
			if (fn(rec, arg) == KPRINT_RING_STOP) {
				all = false;
				break;
			}
			cur->seq = rec->seq + 1;
		}
		cur->lpos += rec->len;
	}
	raw_spin_unlock_irqrestore(&ring->lock, flags);

	return all;
}

/**
 * kprint_ring_ntf_catch_up() - skip the multicast cursor to the head
 * @ring: the ring
 *
 * For when nobody listens: what is in the ring now will never be sent, and
 * must not be counted as skipped when it is overwritten later.
 *
 * Context: Any context but NMI.
 */
void kprint_ring_ntf_catch_up(struct kprint_ring *ring)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ring->lock, flags);
	ring->ntf.seq = ring->next_seq;
	ring->ntf.lpos = ring->head;
	raw_spin_unlock_irqrestore(&ring->lock, flags);
}

/**
 * kprint_ring_get_stats() - consistent snapshot of the ring counters
 * @ring: the ring
 * @st: filled in
 *
 * Context: Any context but NMI.
 */
void kprint_ring_get_stats(struct kprint_ring *ring,
			   struct kprint_ring_stats *st)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ring->lock, flags);
	st->size = ring->size;
	st->nr_records = ring->nr_records;
	st->first_seq = ring->first_seq;
	st->next_seq = ring->next_seq;
	st->records = ring->records;
	st->overwritten = ring->overwritten;
	st->truncated = ring->truncated;
	st->ntf_skipped = ring->ntf_skipped;
	raw_spin_unlock_irqrestore(&ring->lock, flags);
}
