/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live subscriber to the "records" group that never silently loses a
 * record: a kpc_tracker fed by notifications, resyncing through a second
 * socket that dumps the ring.
 *
 * Typical use, from a poll() loop (the CLI's monitor, the exporter):
 *
 *	kpc_stream_open(&opts, &st);	joins the group (CAP_SYS_ADMIN)
 *	kpc_stream_start(st);		where to start (CAP_SYSLOG)
 *	poll on kpc_stream_fd(st), then kpc_stream_process(st), repeat
 *	kpc_stream_close(st);
 *
 * Callbacks may return -ECANCELED to stop; it comes back from
 * kpc_stream_start()/kpc_stream_process() and the stream stays usable.
 *
 * The stream outlives the module: when kprint.ko is unloaded it reports
 * KPC_EVENT_UNLOADED (after every record the old instance stored), and
 * when it is loaded again KPC_EVENT_RELOADED, then the new instance's
 * records from its first one.  Re-joining the group needs CAP_SYS_ADMIN
 * then: effective, or permitted (libkpc raises it for that call alone, so
 * a daemon can drop it from its effective set after setup).
 */
#ifndef KPC_STREAM_H
#define KPC_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "kpc_tracker.h"

struct kpc_stream;
struct kpc_sub_filter;

struct kpc_stream_opts {
	int rcvbuf;		/* the subscription's receive buffer; 0: default */
	bool replay;		/* start at seq from (the ring first), not now */
	uint64_t from;
	kpc_record_fn record;	/* each record, once, in sequence order */
	/*
	 * Have records, notified or of the ring, decoded straight into
	 * memory the reader keeps (kpc_record_decode_msg_into()): record()
	 * returns KPC_RECORD_KEPT for each of those it keeps.  Used as long
	 * as the stream is open.  NULL: records come decoded as usual.
	 */
	const struct kpc_record_mem *mem;
	kpc_event_fn event;	/* gaps, overruns, losses; may be NULL */
	void *ctx;
	/*
	 * Have kprint.ko filter (kpc_sock.h): only matching records come,
	 * and those it refused are no gap.  A resync still reads the whole
	 * ring, so record() must apply its own filter too.  NULL: every
	 * record, through the "records" group.
	 */
	const struct kpc_sub_filter *filter;
	char *extack;		/* KPC_EXTACK_MAX bytes: why a filter was refused */
};

/*
 * Open both sockets and join the group: records from here on are queued.
 * -ENOENT: no kprint family; -EPERM/-EACCES: may not join.
 */
int kpc_stream_open(const struct kpc_stream_opts *opts, struct kpc_stream **out);

/*
 * Anchor the stream: at the kernel's next_seq (records already queued
 * older than that are dropped), or, with opts->replay, at opts->from,
 * delivering what the ring has from there.  Needs the right to read the
 * ring; -EPERM otherwise.
 */
int kpc_stream_start(struct kpc_stream *st);

int kpc_stream_fd(const struct kpc_stream *st);

/*
 * Handle what is pending on the socket (a bounded number of datagrams, so
 * a flood cannot starve the caller's loop), resyncing as needed.  Returns
 * 0 (also when nothing was pending) or -errno.
 */
int kpc_stream_process(struct kpc_stream *st);

const struct kpc_tracker *kpc_stream_tracker(const struct kpc_stream *st);
/* Datagrams dropped because they did not come from the kernel. */
uint64_t kpc_stream_foreign(const struct kpc_stream *st);
int kpc_stream_rcvbuf(const struct kpc_stream *st);

void kpc_stream_close(struct kpc_stream *st);

#endif /* KPC_STREAM_H */
