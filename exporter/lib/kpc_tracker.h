/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sequence tracking for a reader of the kprint ring: what to hand out, what
 * is a duplicate, where records went missing, and how to get them back.
 *
 * The ring is the source of truth.  Notifications are a fast path that may
 * skip records (the kernel could not send them, or our socket overran);
 * whenever that happens the tracker dumps the ring from the next sequence
 * number it expects.  What the dump no longer has was overwritten and is
 * reported lost, once; a record that arrived but could not be decoded is
 * reported lost as malformed, never as overwritten.  Notifications that arrive after the dump already
 * delivered them are dropped.  Records are delivered in sequence order,
 * each at most once.
 *
 * It knows nothing about sockets: the dump is a callback, so the decisions
 * can be tested against a fake ring, and kpc_stream and the exporter
 * daemon drive the same code.
 */
#ifndef KPC_TRACKER_H
#define KPC_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

#include "kpc_record.h"

enum kpc_event_kind {
	/* Notifications skipped [first_seq, last_seq]; resyncing from the ring. */
	KPC_EVENT_GAP,
	/* The socket overran: notifications were dropped; resyncing. */
	KPC_EVENT_OVERRUN,
	/* [first_seq, last_seq] (count records) are gone for good. */
	KPC_EVENT_LOST,
	/* count records could not be decoded and were skipped. */
	KPC_EVENT_MALFORMED,
	/*
	 * kprint.ko was unloaded (kpc_stream only).  first_seq: the next
	 * record we expected; everything before it was delivered or
	 * reported lost.
	 */
	KPC_EVENT_UNLOADED,
	/*
	 * kprint.ko is loaded again (kpc_stream only): its sequence numbers
	 * start afresh and records from first_seq on follow.
	 */
	KPC_EVENT_RELOADED,
};

enum kpc_lost_reason {
	/* The ring overwrote them before we could read them. */
	KPC_LOST_OVERWRITTEN,
	/* The kernel sent later records, but not these, and the ring lacks them. */
	KPC_LOST_MISSING,
	/* The kernel sent them, but they could not be decoded. */
	KPC_LOST_MALFORMED,
};

#define KPC_LOST_REASONS	(KPC_LOST_MALFORMED + 1)

/* What made the tracker read the ring. */
enum kpc_cause {
	KPC_CAUSE_START,	/* the reader asked for records from a given seq */
	KPC_CAUSE_GAP,
	KPC_CAUSE_OVERRUN,
	KPC_CAUSE_NOTIFY,	/* a notification's record (a malformed one) */
};

struct kpc_event {
	enum kpc_event_kind kind;
	uint64_t count;
	uint64_t first_seq;	/* GAP, LOST: the range, inclusive */
	uint64_t last_seq;
	enum kpc_lost_reason reason;	/* LOST */
	enum kpc_cause cause;		/* LOST */
};

typedef int (*kpc_event_fn)(const struct kpc_event *ev, void *ctx);

/* Read the ring from seq from, as kpc_dump() does. */
typedef int (*kpc_dump_fn)(void *dump_ctx, uint64_t from, kpc_record_fn fn,
			   void *fn_ctx, struct kpc_malformed *bad);

struct kpc_tracker {
	/* Set by the user before use. */
	kpc_record_fn deliver;		/* each record, once, in order */
	kpc_event_fn event;		/* may be NULL */
	void *ctx;			/* for deliver and event */
	kpc_dump_fn dump;
	void *dump_ctx;

	/* State: the next sequence number to deliver, once known. */
	uint64_t next;
	bool anchored;
	enum kpc_cause cause;		/* of the resync in progress */

	/* Counters, for the curious and for tests. */
	uint64_t delivered;
	uint64_t duplicates;
	uint64_t lost;
	uint64_t gaps;
	uint64_t overruns;
	uint64_t resyncs;
	uint64_t malformed;
};

/*
 * Forget the position (not the counters): the sequence numbers that follow
 * come from a new instance of the module.
 */
void kpc_tracker_reset(struct kpc_tracker *t);

/* Deliver from seq next on (e.g. the kernel's next_seq: "from now"). */
void kpc_tracker_anchor(struct kpc_tracker *t, uint64_t next);

/*
 * Read the ring from the next expected record (from its start when not
 * anchored yet: the first record anchors) and deliver what it has.
 */
int kpc_tracker_resync(struct kpc_tracker *t, enum kpc_cause cause);

/* A record from a notification. */
int kpc_tracker_record(struct kpc_tracker *t, const struct kpc_record *rec);

/* The socket overran: some notifications are gone, the ring has them. */
int kpc_tracker_overrun(struct kpc_tracker *t);

/* count records could not be decoded. */
int kpc_tracker_malformed(struct kpc_tracker *t, unsigned int count);

/*
 * A notification carried record seq, which could not be decoded (a
 * kpc_malformed seq_fn, ctx the tracker): it is reported lost, as
 * malformed, once, and not taken for a gap to read the ring for.
 */
int kpc_tracker_malformed_seq(uint64_t seq, void *tracker);

/* For messages and JSON. */
const char *kpc_lost_reason_name(enum kpc_lost_reason reason);
const char *kpc_cause_name(enum kpc_cause cause);

#endif /* KPC_TRACKER_H */
