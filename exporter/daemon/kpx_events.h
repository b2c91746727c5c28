/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /events: records live as Server-Sent Events, and /records answers held
 * for wait= (kpx_events.c).
 */
#ifndef KPX_EVENTS_H
#define KPX_EVENTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct kpx_catalogs;
struct kpx_http;
struct kpx_query;
struct kpx_store;
struct kpx_stream;
struct kpx_web;
struct MHD_Connection;
struct MHD_Response;

#define KPX_STREAMS_DEFAULT	32	/* --web.max-streams */
#define KPX_STREAMS_MAX		64	/* all the connections of one address */
#define KPX_KEEPALIVE_DEFAULT_MS 15000	/* --web.events-keepalive */

/*
 * What each daemon serves with: the web config it was started under.  A
 * reload starts new daemons with a new one and stops the old daemons
 * before their config goes, so a request never sees a config freed.
 */
struct kpx_serving {
	struct kpx_http *h;
	struct kpx_web *web;		/* NULL: open HTTP */
	bool retired;			/* its daemons stop: no new streams (events lock) */
};

/* Why a stream skipped records: the reasons of a lost event. */
enum kpx_lost {
	KPX_LOST_OVERWRITTEN,		/* the store no longer holds them */
	KPX_LOST_RELOADED,		/* of another module instance */
	KPX_NR_LOST
};

/* Their names, in lost events and in kprint_exporter_events_lost_total. */
extern const char *const kpx_lost_names[KPX_NR_LOST];

/* The /events streams (kpx_events.c). */
struct kpx_events {
	pthread_mutex_t lock;
	struct kpx_store *store;
	struct kpx_stream *streams;	/* open ones */
	unsigned int nstreams;
	unsigned int nanswers;		/* /records answers held (wait=) */
	pthread_cond_t answered;	/* one of them was handed out */
	unsigned int max_streams;	/* --web.max-streams; 0: the default */
	unsigned int keepalive_ms;	/* --web.events-keepalive; 0: the default */
	struct kpx_catalogs *catalogs;	/* for lang=; NULL: none */
	unsigned int nsuspended;
	/*
	 * Threads run that wake a suspended stream (ingest, the watchdog's
	 * keepalives).  Without them (the fuzzer's daemon, driven by hand)
	 * a stream ends once it has sent what the store holds.
	 */
	bool live;
	bool ready;			/* the lock is initialised */
	uint64_t refused;		/* streams turned away: over the cap */
	uint64_t sent;			/* record events */
	uint64_t lost[KPX_NR_LOST];	/* lost events */
};

void kpx_events_init(struct kpx_events *ev, struct kpx_store *store, bool live);
/* Every stream ends (at once, suspended or not): before the daemons stop. */
void kpx_events_end(struct kpx_events *ev);
/* After they stopped. */
void kpx_events_fini(struct kpx_events *ev);
/*
 * A stream for connection c of serving sv, from the position q says
 * (after= or Last-Event-ID: q->has_after); its filters are copied.
 * 0 with *resp to queue; -EBUSY over the cap; -ENOMEM.
 */
int kpx_events_open(struct kpx_events *ev, struct kpx_serving *sv,
		    struct MHD_Connection *c, const struct kpx_query *q,
		    struct MHD_Response **resp);
/*
 * A /records request of connection c whose answer is to be held until
 * records after q->after match q, or q->wait_s seconds pass (to the
 * watchdog's next tick, half a second); its filters are copied.  0 with
 * *held, -ENOMEM.
 */
int kpx_events_hold(struct kpx_events *ev, struct kpx_serving *sv,
		    struct MHD_Connection *c, const struct kpx_query *q,
		    struct kpx_stream **held);
/*
 * 1 with *body (kpx_records_json()'s, to send and free) once the answer
 * is due; 0 with the connection suspended until it may be (called again
 * when libmicrohttpd calls the request's handler again); -ENOMEM.
 */
int kpx_events_answer(struct kpx_events *ev, struct kpx_stream *st, char **body);
/* The held request completed (answered or not): st goes. */
void kpx_events_answered(struct kpx_stream *st);
/* End the streams of sv, whose daemons are about to stop (SIGHUP). */
void kpx_events_retire(struct kpx_events *ev, struct kpx_serving *sv);
/*
 * Twice a second while a stream is open: keepalives for the streams idle
 * for long enough.  Returns whether one is open, i.e. wants the next tick.
 */
bool kpx_events_tick(struct kpx_events *ev);

#endif /* KPX_EVENTS_H */
