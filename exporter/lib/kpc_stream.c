// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <netlink/genl/genl.h>

#include "kpc_ops.h"
#include "kpc_stream.h"

/* Datagrams per kpc_stream_process() call. */
#define KPC_STREAM_BATCH	64

struct kpc_stream {
	struct kpc_sock *sub;		/* notifications, non-blocking */
	struct kpc_sock *ctl;		/* stats and resync dumps */
	struct kpc_tracker tracker;
	bool overrun;			/* ENOBUFS seen, resync once drained */
	bool gone;			/* the family is unregistered */
	bool replay;
	uint64_t from;
	const struct kpc_record_mem *mem;
};

static int kpc_stream_dump(void *dump_ctx, uint64_t from, kpc_record_fn fn,
			   void *fn_ctx, struct kpc_malformed *bad)
{
	struct kpc_stream *st = dump_ctx;

	return kpc_dump_into(st->ctl, from, fn, fn_ctx, bad, st->mem);
}

int kpc_stream_open(const struct kpc_stream_opts *opts, struct kpc_stream **out)
{
	struct kpc_sock_opts sub_opts = {
		.group = opts->filter ? NULL : KPRINT_MCGRP_RECORDS,
		.filter = opts->filter,
		.extack = opts->extack,
		.rcvbuf = opts->rcvbuf,
		.nonblock = true,
		.watch = true,
	};
	struct kpc_sock_opts ctl_opts = { 0 };
	struct kpc_stream *st;
	int err;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;

	st->tracker.deliver = opts->record;
	st->tracker.event = opts->event;
	st->tracker.ctx = opts->ctx;
	st->tracker.dump = kpc_stream_dump;
	st->tracker.dump_ctx = st;
	st->replay = opts->replay;
	st->from = opts->from;
	st->mem = opts->mem;

	/*
	 * Join first: everything from the moment we anchor on is then
	 * either queued on the socket or still in the ring.
	 */
	err = kpc_sock_open(&sub_opts, &st->sub);
	if (err)
		goto err_sub;

	err = kpc_sock_open(&ctl_opts, &st->ctl);
	if (err)
		goto err_ctl;

	*out = st;
	return 0;

err_ctl:
	kpc_sock_close(st->sub);
err_sub:
	free(st);
	return err;
}

int kpc_stream_start(struct kpc_stream *st)
{
	struct kpc_stats stats;
	int err;

	if (st->replay) {
		uint64_t origin;

		/* Asking for seqs that never existed loses nothing. */
		err = kpc_origin_get(st->ctl, &origin);
		if (err)
			return err;
		kpc_tracker_anchor(&st->tracker, st->from > origin ? st->from : origin);
		return kpc_tracker_resync(&st->tracker, KPC_CAUSE_START);
	}

	err = kpc_stats_get(st->ctl, &stats);
	if (err)
		return err;
	if (!(stats.present & (1u << KPRINT_STATS_A_NEXT_SEQ)))
		return -EPROTO;
	kpc_tracker_anchor(&st->tracker, stats.next_seq);
	return 0;
}

int kpc_stream_fd(const struct kpc_stream *st)
{
	return kpc_sock_fd(st->sub);
}

static int kpc_stream_record_cb(const struct kpc_record *rec, void *ctx)
{
	return kpc_tracker_record(ctx, rec);
}

static int kpc_stream_msg_cb(struct nlmsghdr *nlh, void *ctx)
{
	struct kpc_stream *st = ctx;
	struct kpc_malformed bad = {
		.seq_fn = kpc_tracker_malformed_seq, .ctx = &st->tracker,
	};
	struct genlmsghdr *gnlh;
	int n, err;

	if (!genlmsg_valid_hdr(nlh, 0))
		return kpc_tracker_malformed(&st->tracker, 1);
	gnlh = nlmsg_data(nlh);
	/* While gone, only an instance we do not follow can be talking. */
	if (gnlh->cmd != KPRINT_CMD_RECORD_NTF || st->gone)
		return 0;

	n = kpc_record_decode_msg_into(nlh, kpc_stream_record_cb, &st->tracker, &bad, st->mem);
	err = kpc_tracker_malformed(&st->tracker, bad.count);
	return n < 0 ? n : err;
}

static int kpc_stream_event(struct kpc_stream *st, enum kpc_event_kind kind,
			    uint64_t seq)
{
	struct kpc_event ev = { .kind = kind, .first_seq = seq };

	return st->tracker.event ? st->tracker.event(&ev, st->tracker.ctx) : 0;
}

/* kprint.ko is gone: report it once; records resume when it is back. */
static int kpc_stream_gone(struct kpc_stream *st)
{
	if (st->gone)
		return 0;
	st->gone = true;
	st->overrun = false;
	return kpc_stream_event(st, KPC_EVENT_UNLOADED, st->tracker.next);
}

/*
 * kprint.ko is loaded again and st->sub already follows the new family:
 * talk to it on the control socket too and read its ring from the start,
 * since every record of the new instance is new to us.
 */
static int kpc_stream_back(struct kpc_stream *st)
{
	uint64_t origin;
	int err;

	err = kpc_stream_gone(st);
	if (err)
		return err;

	/*
	 * Point the control socket at the new family rather than open a
	 * new one: the kernel checks the right to read the ring against
	 * whoever opened the socket, and we may have dropped it since.
	 */
	err = kpc_sock_rebind(st->ctl);
	if (err)
		/* Gone again already: its "deleted" event is on its way. */
		return err == -ENOENT ? 0 : err;
	if (kpc_sock_family_id(st->ctl) != kpc_sock_family_id(st->sub))
		/*
		 * The instance we were told about came and went before we
		 * got here; the events of the one there now follow.
		 */
		return 0;

	err = kpc_origin_get(st->ctl, &origin);
	if (err)
		return err == -ENOENT ? 0 : err;
	st->gone = false;
	kpc_tracker_reset(&st->tracker);
	kpc_tracker_anchor(&st->tracker, origin);
	err = kpc_stream_event(st, KPC_EVENT_RELOADED, origin);
	if (err)
		return err;
	return kpc_tracker_resync(&st->tracker, KPC_CAUSE_START);
}

/*
 * A request found no family: it went away and maybe came back while
 * events telling so were lost (an overrun).  Look it up again.
 */
static int kpc_stream_lost_family(struct kpc_stream *st)
{
	int err;

	err = kpc_sock_rebind(st->sub);
	if (err == -ENOENT)
		return kpc_stream_gone(st);
	if (err)
		return err;
	return kpc_stream_back(st);
}

/*
 * The kernel reports an overrun once per congestion episode, and the
 * episode lasts until our queue is empty: notifications it drops in the
 * meantime raise no new ENOBUFS.  So on ENOBUFS we first drain the queue
 * (what is queued is older than what was dropped), and only then dump the
 * ring: the dump's end is taken after the episode is over, and any drop
 * after it is reported afresh.
 */
int kpc_stream_process(struct kpc_stream *st)
{
	int i, err;

	for (i = 0; i < KPC_STREAM_BATCH || st->overrun; i++) {
		err = kpc_sock_recv(st->sub, kpc_stream_msg_cb, st);
		switch (err) {
		case 0:
			continue;
		case -ENOBUFS:
			st->overrun = true;
			continue;
		case KPC_SOCK_GONE:
			err = kpc_stream_gone(st);
			break;
		case KPC_SOCK_BACK:
			err = kpc_stream_back(st);
			break;
		case -EAGAIN:
			if (!st->overrun)
				return 0;
			st->overrun = false;
			err = kpc_tracker_overrun(&st->tracker);
			if (!err)
				return 0;
			break;
		}
		/* A resync's dump found the family gone. */
		if (err == -ENOENT && !st->gone)
			err = kpc_stream_lost_family(st);
		if (err)
			return err;
	}
	return 0;
}

const struct kpc_tracker *kpc_stream_tracker(const struct kpc_stream *st)
{
	return &st->tracker;
}

uint64_t kpc_stream_foreign(const struct kpc_stream *st)
{
	return kpc_sock_foreign(st->sub) + kpc_sock_foreign(st->ctl);
}

int kpc_stream_rcvbuf(const struct kpc_stream *st)
{
	return kpc_sock_rcvbuf(st->sub);
}

void kpc_stream_close(struct kpc_stream *st)
{
	if (!st)
		return;
	kpc_sock_close(st->ctl);
	kpc_sock_close(st->sub);
	free(st);
}
