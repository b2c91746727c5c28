/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subscriber thread: kpc_stream into the store (kpx_ingest.c).
 */
#ifndef KPX_INGEST_H
#define KPX_INGEST_H

#include <pthread.h>
#include <stdbool.h>

#include "kpc.h"

struct kpx_journal;
struct kpx_problems;
struct kpx_store;

struct kpx_ingest {
	struct kpx_store *store;
	int rcvbuf;
	int stop_fd;			/* eventfd: readable when asked to stop */
	pthread_t thread;
	bool running;			/* the thread was started */
	struct kpc_stream *st;
	/*
	 * --journal: what ingest receives, and of the ring's records read at
	 * the start those the journal does not have (kpx_journal_add_ring()).
	 */
	struct kpx_journal *journal;
	/* The problem catalog every record goes through, in order; NULL: none. */
	struct kpx_problems *problems;
};

/* Subscribe and read the ring (needs privileges); no thread yet. */
int kpx_ingest_open(struct kpx_ingest *in);
/* Start the subscriber thread, which needs none. */
int kpx_ingest_run(struct kpx_ingest *in);
/* Stop the thread (if it runs) and close the subscription. */
void kpx_ingest_stop(struct kpx_ingest *in);

#endif /* KPX_INGEST_H */
