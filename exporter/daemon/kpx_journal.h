/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --journal: records into the systemd journal (kpx_journal.c).
 */
#ifndef KPX_JOURNAL_H
#define KPX_JOURNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "kpc.h"

struct kpx_expo;
struct kpx_hits;
struct kpc_problem_hit;

/* A record queued, and the problems it is (a copy; NULL: none). */
struct kpx_journal_item {
	struct kpc_record *rec;
	struct kpx_hits *hits;
};

/*
 * --journal (kpx_journal.c): ingest hands every batch to kpx_journal_add(),
 * which copies the records into a bounded queue and never blocks on
 * journald; one writer thread sends them with sd_journal_sendv().
 */
#define KPX_JOURNAL_IDENTIFIER	"kprint"	/* SYSLOG_IDENTIFIER */
#define KPX_JOURNAL_FIELDS_MAX	(40 + KPRINT_ARGS_MAX)

/* Why a record --journal received did not reach journald. */
enum kpx_journal_lost {
	KPX_JOURNAL_LOST_QUEUE_FULL,
	KPX_JOURNAL_LOST_NOMEM,
	KPX_JOURNAL_LOST_SEND_FAILED,
	KPX_JOURNAL_LOST_STOPPED,
	KPX_JOURNAL_NR_LOST
};

extern const char *const kpx_journal_lost_names[KPX_JOURNAL_NR_LOST];

struct kpx_journal {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* records queued, or stop */
	struct kpx_journal_item *q;	/* cap slots: kpc_record_dup() copies, their hits' */
	size_t cap, head, n;
	size_t writing;			/* taken off the queue, being sent */
	size_t high_water;
	const char *ns;			/* $LOG_NAMESPACE; NULL: the system journal */
	bool ready, running, stop;
	unsigned int drain_ms;		/* a stop's wait for journald (5 s) */
	pthread_t thread;
	uint64_t queued, written;
	uint64_t lost[KPX_JOURNAL_NR_LOST];
	uint64_t send_ns;		/* time in sd_journal_sendv() */
	/* Where the journal left off (kpx_journal_resume()). */
	bool resume_known;		/* asked the journal, and it answered */
	bool resume_found;		/* an entry of ours, its record's: */
	uint64_t resume_seq, resume_mono_ns, resume_real_ns;
	size_t resumed;			/* records the ring had that it had not */
};

/* One record's journal fields, "NAME=value" each (reused, grown as needed). */
struct kpx_journal_entry {
	struct iovec iov[KPX_JOURNAL_FIELDS_MAX];
	size_t off[KPX_JOURNAL_FIELDS_MAX];
	unsigned int n;
	char *buf;
	size_t len, cap;
};

int kpx_journal_init(struct kpx_journal *j, size_t cap);
int kpx_journal_start(struct kpx_journal *j);
/* Copy n records into the queue; what does not fit is counted lost.  j may be NULL. */
void kpx_journal_add(struct kpx_journal *j, struct kpc_record *const *recs, size_t n);
/*
 * The same, with the problems each record is (hits[i] NULL: none; hits
 * NULL: no record is one): each hit one more entry after its record's.
 */
void kpx_journal_add_hits(struct kpx_journal *j, struct kpc_record *const *recs,
			  struct kpx_hits *const *hits, size_t n);
/*
 * Read where the journal left off: the last entry with
 * SYSLOG_IDENTIFIER=kprint, in j's namespace (needs the right to read it:
 * call it before privileges are dropped).  0, or -errno: then
 * kpx_journal_add_ring() writes nothing of the ring.
 */
int kpx_journal_resume(struct kpx_journal *j);
/*
 * The records the ring held at the start (in seq order): those the journal
 * does not have yet, by kpx_journal_resume()'s answer, into the queue.
 */
void kpx_journal_add_ring(struct kpx_journal *j, struct kpc_record *const *recs,
			  struct kpx_hits *const *hits, size_t n);
/*
 * Stop the writer after it emptied the queue (drain_ms at most; a send
 * journald still does not take a second later is cancelled), and free it.
 */
void kpx_journal_stop(struct kpx_journal *j);
/* The fields of rec into e (docs/journal.md); 0, -ENOMEM or -E2BIG. */
int kpx_journal_entry_build(struct kpx_journal_entry *e, const struct kpc_record *rec);
/*
 * A problem's entry: MESSAGE_ID the rule's, MESSAGE "NAME: text", the
 * record's priority, KPRINT_PROBLEM, KPRINT_PROBLEM_KIND, the labels and
 * attribution as KPRINT_PROBLEM_<NAME>, and the record's KPRINT_SEQ and
 * clocks (which say where the journal left off).  0, -ENOMEM or -E2BIG.
 */
int kpx_journal_problem_build(struct kpx_journal_entry *e, const struct kpc_record *rec,
			      const struct kpc_problem_hit *hit);
void kpx_journal_entry_fini(struct kpx_journal_entry *e);
/* The kprint_exporter_journal_* families (j NULL: --journal is off). */
void kpx_journal_metrics(struct kpx_expo *e, struct kpx_journal *j);

#endif /* KPX_JOURNAL_H */
