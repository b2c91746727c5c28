// SPDX-License-Identifier: GPL-2.0
#include "kpc_tracker.h"

static int kpc_tracker_emit(struct kpc_tracker *t, const struct kpc_event *ev)
{
	return t->event ? t->event(ev, t->ctx) : 0;
}

void kpc_tracker_reset(struct kpc_tracker *t)
{
	t->next = 0;
	t->anchored = false;
}

void kpc_tracker_anchor(struct kpc_tracker *t, uint64_t next)
{
	t->next = next;
	t->anchored = true;
}

static int kpc_tracker_deliver(struct kpc_tracker *t, const struct kpc_record *rec)
{
	t->next = rec->seq + 1;
	t->delivered++;
	return t->deliver(rec, t->ctx);
}

/* Records [t->next, seq) will never be seen: say so, and move past them. */
static int kpc_tracker_lose(struct kpc_tracker *t, uint64_t seq,
			    enum kpc_lost_reason reason)
{
	struct kpc_event ev = {
		.kind = KPC_EVENT_LOST,
		.count = seq - t->next,
		.first_seq = t->next,
		.last_seq = seq - 1,
		.reason = reason,
		.cause = t->cause,
	};

	t->lost += ev.count;
	t->next = seq;
	return kpc_tracker_emit(t, &ev);
}

/*
 * Deliver @rec unless an earlier delivery already covered it; the records
 * between what we expected and @rec are lost, for @reason.
 */
static int kpc_tracker_accept(struct kpc_tracker *t, const struct kpc_record *rec,
			      enum kpc_lost_reason reason)
{
	int err;

	if (rec->seq < t->next) {
		t->duplicates++;
		return 0;
	}
	if (rec->seq > t->next) {
		err = kpc_tracker_lose(t, rec->seq, reason);
		if (err)
			return err;
	}
	return kpc_tracker_deliver(t, rec);
}

/* A record from the ring, during a resync. */
static int kpc_tracker_dump_cb(const struct kpc_record *rec, void *ctx)
{
	struct kpc_tracker *t = ctx;

	if (!t->anchored)
		kpc_tracker_anchor(t, rec->seq);
	/* The ring starts (or jumps) past what we wanted: overwritten. */
	return kpc_tracker_accept(t, rec, KPC_LOST_OVERWRITTEN);
}

/*
 * Record seq came but could not be decoded.  Records before it that the
 * reader never had are lost for @before; seq itself as malformed.
 */
static int kpc_tracker_accept_bad(struct kpc_tracker *t, uint64_t seq,
				  enum kpc_lost_reason before)
{
	int err;

	if (seq < t->next)
		return 0;	/* delivered, or already reported */
	if (seq > t->next) {
		err = kpc_tracker_lose(t, seq, before);
		if (err)
			return err;
	}
	return kpc_tracker_lose(t, seq + 1, KPC_LOST_MALFORMED);
}

/* A record of the ring that could not be decoded, during a resync. */
static int kpc_tracker_dump_bad(uint64_t seq, void *ctx)
{
	struct kpc_tracker *t = ctx;

	if (!t->anchored)
		kpc_tracker_anchor(t, seq);
	return kpc_tracker_accept_bad(t, seq, KPC_LOST_OVERWRITTEN);
}

int kpc_tracker_malformed(struct kpc_tracker *t, unsigned int count)
{
	struct kpc_event ev = {
		.kind = KPC_EVENT_MALFORMED,
		.count = count,
	};

	if (!count)
		return 0;
	t->malformed += count;
	return kpc_tracker_emit(t, &ev);
}

int kpc_tracker_resync(struct kpc_tracker *t, enum kpc_cause cause)
{
	struct kpc_malformed bad = { .seq_fn = kpc_tracker_dump_bad, .ctx = t };
	int err, err2;

	t->resyncs++;
	t->cause = cause;
	err = t->dump(t->dump_ctx, t->anchored ? t->next : 0,
		      kpc_tracker_dump_cb, t, &bad);
	err2 = kpc_tracker_malformed(t, bad.count);
	return err ? err : err2;
}

/* Notifications skipped [t->next, seq): say so and read the ring for them. */
static int kpc_tracker_gap(struct kpc_tracker *t, uint64_t seq)
{
	struct kpc_event gap = {
		.kind = KPC_EVENT_GAP,
		.count = seq - t->next,
		.first_seq = t->next,
		.last_seq = seq - 1,
	};
	int err;

	t->gaps++;
	err = kpc_tracker_emit(t, &gap);
	if (err)
		return err;
	return kpc_tracker_resync(t, KPC_CAUSE_GAP);
}

int kpc_tracker_record(struct kpc_tracker *t, const struct kpc_record *rec)
{
	int err;

	if (!t->anchored)
		kpc_tracker_anchor(t, rec->seq);
	if (rec->seq < t->next) {
		/* Already delivered by a resync (or older than our start). */
		t->duplicates++;
		return 0;
	}
	/*
	 * A kernel-filtered subscription's record says how many records
	 * right before it the filter refused: those were never for us, so
	 * they are no gap.  A record missing before them still is one.
	 */
	if (rec->seq > t->next && rec->filtered &&
	    rec->seq - rec->filtered <= t->next)
		t->next = rec->seq;
	if (rec->seq > t->next) {
		err = kpc_tracker_gap(t, rec->seq);
		if (err)
			return err;
		/*
		 * The dump normally delivered this record too.  If it is
		 * still ahead, the ring never had the records in between,
		 * and another dump would not find them either.
		 */
		return kpc_tracker_accept(t, rec, KPC_LOST_MISSING);
	}
	return kpc_tracker_deliver(t, rec);
}

int kpc_tracker_malformed_seq(uint64_t seq, void *tracker)
{
	struct kpc_tracker *t = tracker;
	int err;

	if (!t->anchored)
		kpc_tracker_anchor(t, seq);
	if (seq > t->next) {
		/* Records before it are missing: the ring may have them. */
		err = kpc_tracker_gap(t, seq);
		if (err)
			return err;
		/* The dump normally reported seq itself too. */
		return kpc_tracker_accept_bad(t, seq, KPC_LOST_MISSING);
	}
	/* No resync is in progress: the loss came in a notification. */
	t->cause = KPC_CAUSE_NOTIFY;
	return kpc_tracker_accept_bad(t, seq, KPC_LOST_MALFORMED);
}

int kpc_tracker_overrun(struct kpc_tracker *t)
{
	struct kpc_event ev = { .kind = KPC_EVENT_OVERRUN };
	int err;

	t->overruns++;
	err = kpc_tracker_emit(t, &ev);
	if (err)
		return err;
	/* Not anchored yet: there is no "missed" to recover. */
	if (!t->anchored)
		return 0;
	return kpc_tracker_resync(t, KPC_CAUSE_OVERRUN);
}

const char *kpc_lost_reason_name(enum kpc_lost_reason reason)
{
	switch (reason) {
	case KPC_LOST_OVERWRITTEN:	return "overwritten";
	case KPC_LOST_MISSING:		return "missing";
	case KPC_LOST_MALFORMED:	return "malformed";
	}
	return "unknown";
}

const char *kpc_cause_name(enum kpc_cause cause)
{
	switch (cause) {
	case KPC_CAUSE_START:		return "start";
	case KPC_CAUSE_GAP:		return "gap";
	case KPC_CAUSE_OVERRUN:		return "overrun";
	case KPC_CAUSE_NOTIFY:		return "notification";
	}
	return "unknown";
}
