// SPDX-License-Identifier: GPL-2.0
/*
 * The resync logic of kpc_tracker against a fake ring: every record is
 * delivered once and in order, duplicates after a resync are dropped, and
 * what the ring no longer has is reported lost, with the right range.
 */
#include <errno.h>
#include <inttypes.h>

#include "kpc.h"
#include "test_kpc_tap.h"

#define MAX_LOG	256

/* The ring holds [first, last]; first > last means empty. */
struct ring {
	uint64_t first, last;
	int fail;		/* dump returns this error when set */
	unsigned int malformed;	/* reported by each dump, without a seq */
	uint64_t bad_seq;	/* the one record of the ring that is malformed */
	unsigned int dumps;
	uint64_t dumped_from;
};

struct log {
	uint64_t delivered[MAX_LOG];
	unsigned int n;
	struct kpc_event events[16];
	unsigned int nevents;
	uint64_t stop_at;	/* deliver returns -ECANCELED at this seq */
};

static int ring_dump(void *dump_ctx, uint64_t from, kpc_record_fn fn,
		     void *fn_ctx, struct kpc_malformed *bad)
{
	struct ring *r = dump_ctx;
	struct kpc_record rec = { .format = "%d", .text = "x" };
	uint64_t seq;
	int err;

	r->dumps++;
	r->dumped_from = from;
	bad->count += r->malformed;
	if (r->fail)
		return r->fail;
	for (seq = from > r->first ? from : r->first; seq <= r->last; seq++) {
		rec.seq = seq;
		if (seq == r->bad_seq) {
			bad->count++;
			err = bad->seq_fn ? bad->seq_fn(seq, bad->ctx) : 0;
		} else {
			err = fn(&rec, fn_ctx);
		}
		if (err)
			return err;
	}
	return 0;
}

static int log_record(const struct kpc_record *rec, void *ctx)
{
	struct log *l = ctx;

	if (l->n < MAX_LOG)
		l->delivered[l->n++] = rec->seq;
	return l->stop_at && rec->seq == l->stop_at ? -ECANCELED : 0;
}

static int log_event(const struct kpc_event *ev, void *ctx)
{
	struct log *l = ctx;

	if (l->nevents < 16)
		l->events[l->nevents++] = *ev;
	return 0;
}

static void setup(struct kpc_tracker *t, struct ring *r, struct log *l)
{
	memset(t, 0, sizeof(*t));
	memset(l, 0, sizeof(*l));
	t->deliver = log_record;
	t->event = log_event;
	t->ctx = l;
	t->dump = ring_dump;
	t->dump_ctx = r;
}

static int notify(struct kpc_tracker *t, uint64_t seq)
{
	struct kpc_record rec = { .seq = seq, .format = "%d", .text = "x" };

	return kpc_tracker_record(t, &rec);
}

/* Delivered exactly [from, to], each once, in order. */
static int delivered_range(const struct log *l, uint64_t from, uint64_t to)
{
	unsigned int i;

	if (l->n != to - from + 1)
		return 0;
	for (i = 0; i < l->n; i++)
		if (l->delivered[i] != from + i)
			return 0;
	return 1;
}

static int event_is(const struct kpc_event *ev, enum kpc_event_kind kind,
		    uint64_t count, uint64_t first, uint64_t last)
{
	return ev->kind == kind && ev->count == count &&
	       ev->first_seq == first && ev->last_seq == last;
}

static void test_in_order(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 1, .last = 0 };
	struct log l;
	uint64_t seq;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	for (seq = 10; seq <= 14; seq++)
		notify(&t, seq);
	tap_ok(delivered_range(&l, 10, 14) && l.nevents == 0 && r.dumps == 0,
	       "in-order notifications are delivered without dumps or events");

	notify(&t, 12);
	notify(&t, 9);
	tap_ok(l.n == 5 && t.duplicates == 2,
	       "notifications older than the next expected seq are dropped");
}

static void test_gap_recovered(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 5, .last = 20 };
	struct log l;
	uint64_t seq;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	notify(&t, 10);
	notify(&t, 14);		/* 11..13 never notified */
	tap_ok(l.nevents == 1 && event_is(&l.events[0], KPC_EVENT_GAP, 3, 11, 13),
	       "a gap in notifications is reported with its range");
	tap_ok(r.dumps == 1 && r.dumped_from == 11,
	       "a gap resyncs by dumping from the first missing seq");
	tap_ok(delivered_range(&l, 10, 20),
	       "the dump delivers the missing records and what followed, in order");

	/* The notifications the dump already covered arrive late. */
	for (seq = 15; seq <= 20; seq++)
		notify(&t, seq);
	notify(&t, 21);
	tap_ok(delivered_range(&l, 10, 21) && t.duplicates == 7,
	       "notifications already delivered by the dump are dropped (incl. the one that showed the gap)");
	tap_ok(t.lost == 0 && l.nevents == 1, "a recovered gap loses nothing");
}

static void test_gap_overwritten(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 15, .last = 20 };
	struct log l;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	notify(&t, 10);
	notify(&t, 17);
	tap_ok(l.nevents == 2 && l.events[1].kind == KPC_EVENT_LOST &&
	       event_is(&l.events[1], KPC_EVENT_LOST, 4, 11, 14) &&
	       l.events[1].reason == KPC_LOST_OVERWRITTEN &&
	       l.events[1].cause == KPC_CAUSE_GAP,
	       "records the ring overwrote are reported lost once: 4, seq 11..14, overwritten, after a gap");
	tap_ok(l.n == 7 && l.delivered[0] == 10 && l.delivered[1] == 15 &&
	       l.delivered[6] == 20, "delivery resumes at the ring's first record");
	tap_ok(t.lost == 4, "the tracker counts 4 lost");
}

static void test_overrun(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 1, .last = 30 };
	struct log l;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	notify(&t, 10);
	notify(&t, 11);
	kpc_tracker_overrun(&t);
	tap_ok(l.nevents == 1 && l.events[0].kind == KPC_EVENT_OVERRUN &&
	       r.dumps == 1 && r.dumped_from == 12,
	       "an overrun is reported and resyncs from the next expected seq");
	tap_ok(delivered_range(&l, 10, 30), "the overrun's resync delivers everything up to the ring's end");
	notify(&t, 25);
	notify(&t, 31);
	tap_ok(delivered_range(&l, 10, 31) && t.duplicates == 1,
	       "after an overrun, stale notifications are dropped and new ones delivered");
}

static void test_overrun_overwritten(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 100, .last = 110 };
	struct log l;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	kpc_tracker_overrun(&t);
	tap_ok(l.nevents == 2 && event_is(&l.events[1], KPC_EVENT_LOST, 90, 10, 99) &&
	       l.events[1].cause == KPC_CAUSE_OVERRUN,
	       "an overrun whose records the ring overwrote reports them lost (cause overrun)");
}

static void test_missing(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 10, .last = 12 };
	struct log l;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	notify(&t, 15);		/* the ring does not have 13, 14 (nor 15) */
	tap_ok(l.nevents == 2 && event_is(&l.events[1], KPC_EVENT_LOST, 2, 13, 14) &&
	       l.events[1].reason == KPC_LOST_MISSING,
	       "seqs neither notified nor in the ring are reported missing");
	tap_ok(l.n == 4 && l.delivered[2] == 12 && l.delivered[3] == 15 &&
	       r.dumps == 1, "the notification is delivered after them, with no second dump");
}

static void test_start(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 8, .last = 10 };
	struct log l;
	int err;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 5);
	err = kpc_tracker_resync(&t, KPC_CAUSE_START);
	tap_ok(!err && l.nevents == 1 && event_is(&l.events[0], KPC_EVENT_LOST, 3, 5, 7) &&
	       l.events[0].cause == KPC_CAUSE_START &&
	       l.events[0].reason == KPC_LOST_OVERWRITTEN && delivered_range(&l, 8, 10),
	       "a start older than the ring reports the difference lost, then dumps");

	setup(&t, &r, &l);
	err = kpc_tracker_resync(&t, KPC_CAUSE_START);
	tap_ok(!err && l.nevents == 0 && delivered_range(&l, 8, 10) &&
	       r.dumped_from == 0 && t.anchored && t.next == 11,
	       "without an anchor the ring's first record is the start, nothing lost");

	setup(&t, &r, &l);
	notify(&t, 42);
	tap_ok(l.n == 1 && l.delivered[0] == 42 && l.nevents == 0,
	       "without an anchor the first notification is the start");
}

static void test_stop_and_errors(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 1, .last = 50 };
	struct log l;
	int err;

	setup(&t, &r, &l);
	l.stop_at = 5;
	err = kpc_tracker_resync(&t, KPC_CAUSE_START);
	tap_ok(err == -ECANCELED && l.n == 5 && t.next == 6,
	       "a deliver callback's -ECANCELED stops the dump and comes back");

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 1);
	r.fail = -EIO;
	err = notify(&t, 9);
	tap_ok(err == -EIO && l.n == 0, "a failed resync dump is an error, nothing delivered");

	r.fail = 0;
	r.malformed = 2;
	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 50);
	err = kpc_tracker_overrun(&t);
	tap_ok(!err && l.nevents == 2 && l.events[1].kind == KPC_EVENT_MALFORMED &&
	       l.events[1].count == 2 && t.malformed == 2,
	       "malformed records seen by a dump are reported");
}

/* Lost events of a reason, and their total. */
static uint64_t lost_for(const struct log *l, enum kpc_lost_reason reason)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < l->nevents; i++)
		if (l->events[i].kind == KPC_EVENT_LOST && l->events[i].reason == reason)
			n += l->events[i].count;
	return n;
}

/*
 * Issue 26: a record that cannot be decoded was reported as overwritten,
 * though the ring had it.  It is lost as malformed, and only it.
 */
static void test_malformed_named(void)
{
	struct ring r = { .first = 1, .last = 10, .bad_seq = 5 };
	struct kpc_tracker t;
	struct log l;
	unsigned int i;
	int err, delivered_ok;

	/* From the ring: 1..4, 5 malformed, 6..10. */
	setup(&t, &r, &l);
	err = kpc_tracker_resync(&t, KPC_CAUSE_START);
	delivered_ok = l.n == 9;
	for (i = 0; i < l.n && delivered_ok; i++)
		delivered_ok = l.delivered[i] == (i < 4 ? i + 1 : i + 2);
	tap_ok(!err && delivered_ok && t.next == 11,
	       "a dump with a malformed record delivers the others, in order");
	tap_ok(lost_for(&l, KPC_LOST_MALFORMED) == 1 &&
	       lost_for(&l, KPC_LOST_OVERWRITTEN) == 0 && t.lost == 1 && t.malformed == 1,
	       "the malformed record of a dump is lost as malformed, not overwritten");
	tap_ok(!strcmp(kpc_lost_reason_name(KPC_LOST_MALFORMED), "malformed"),
	       "its reason is named \"malformed\"");

	/* From notifications: 4, 5 malformed, 6; the ring is not read. */
	setup(&t, &r, &l);
	r.dumps = 0;
	err = notify(&t, 4);
	err = err ? err : kpc_tracker_malformed_seq(5, &t);
	err = err ? err : kpc_tracker_malformed(&t, 1);
	err = err ? err : notify(&t, 6);
	tap_ok(!err && l.n == 2 && l.delivered[0] == 4 && l.delivered[1] == 6 &&
	       r.dumps == 0 && t.gaps == 0,
	       "a malformed notification is no gap: nothing re-read");
	tap_ok(lost_for(&l, KPC_LOST_MALFORMED) == 1 && t.lost == 1 &&
	       lost_for(&l, KPC_LOST_OVERWRITTEN) == 0 &&
	       event_is(&l.events[0], KPC_EVENT_LOST, 1, 5, 5),
	       "and is lost once, as malformed, with its seq");

	/* A malformed notification after missed ones: the ring has those (and the rest). */
	setup(&t, &r, &l);
	r.dumps = 0;
	err = notify(&t, 2);
	err = err ? err : kpc_tracker_malformed_seq(5, &t);
	err = err ? err : notify(&t, 6);
	tap_ok(!err && l.n == 8 && l.delivered[1] == 3 && l.delivered[2] == 4 &&
	       l.delivered[3] == 6 && r.dumps == 1 &&
	       lost_for(&l, KPC_LOST_MALFORMED) == 1 && t.lost == 1,
	       "records missed before a malformed one come from the ring; it is lost once");
}

static int notify_filtered(struct kpc_tracker *t, uint64_t seq, uint64_t filtered)
{
	struct kpc_record rec = {
		.seq = seq, .filtered = filtered, .format = "%d", .text = "x",
	};

	return kpc_tracker_record(t, &rec);
}

/* A kernel-filtered subscription: what the filter refused is no gap. */
static void test_filtered(void)
{
	struct kpc_tracker t;
	struct ring r = { .first = 1, .last = 40 };
	struct log l;

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	notify_filtered(&t, 10, 0);
	notify_filtered(&t, 15, 4);	/* 11..14 refused */
	notify_filtered(&t, 16, 0);
	/* The anchor was taken after the filter's start: 2..9 are older. */
	tap_ok(l.n == 3 && l.delivered[1] == 15 && l.delivered[2] == 16 &&
	       l.nevents == 0 && r.dumps == 0 && t.lost == 0,
	       "records the kernel's filter refused are no gap: no event, no dump");

	notify_filtered(&t, 25, 3);	/* 22..24 refused, 17..21 missing */
	tap_ok(l.nevents >= 1 && event_is(&l.events[0], KPC_EVENT_GAP, 8, 17, 24) &&
	       r.dumps == 1 && r.dumped_from == 17,
	       "a record missing before the refused run is a gap, resynced from the ring");

	setup(&t, &r, &l);
	kpc_tracker_anchor(&t, 10);
	notify_filtered(&t, 30, 25);	/* refused from 5, before our anchor */
	tap_ok(l.n == 1 && l.delivered[0] == 30 && l.nevents == 0,
	       "a refused run that began before the anchor is no gap either");
}

int main(void)
{
	test_in_order();
	test_gap_recovered();
	test_gap_overwritten();
	test_overrun();
	test_overrun_overwritten();
	test_missing();
	test_start();
	test_stop_and_errors();
	test_malformed_named();
	test_filtered();
	return tap_done();
}
