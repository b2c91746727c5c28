// SPDX-License-Identifier: GPL-2.0
/*
 * GET /events: the records as they come, as Server-Sent Events.
 *
 *	id: INSTANCE-SEQ	(kpx_store: the module instance, 8 hex digits,
 *				and the record's sequence number)
 *	data: {...}		(the record, schema/record.schema.json, written
 *				by kpx_record_write() as /records does, with
 *				text_translated for lang=)
 *
 * and right after a record that is a kernel problem (kpx_problems.h), one
 * more event per problem, without an id (a client resuming from the
 * record's id has had them):
 *
 *	event: problem
 *	data: HIT		(kpc_json_problem_hit(): problem, kind,
 *				condition, labels, attribution, record)
 *
 * A stream holds no records of its own: only its place in the store (a
 * position, kpx_store), the events it is writing and what its socket's
 * send buffer (fixed, KPX_EVENTS_SNDBUF) and libmicrohttpd's hold.  Records it has not
 * sent yet stay in the store, which is bounded already (--records), so a
 * client that reads slowly costs no memory and never makes ingest or
 * another stream wait; once the store has overwritten what it had not
 * taken, it gets a lost event and goes on from the oldest record the
 * store holds.  The same rule resumes a stream (Last-Event-ID, after=):
 * exactly the records after the id that the store holds, after a lost
 * event for those it no longer holds; an id of another instance (kprint.ko
 * reloaded since, or another exporter process) gets a lost event of reason
 * "reloaded" and then the current instance's records, never the current
 * instance's records taken as if they followed it.
 *
 *	event: lost
 *	id: INSTANCE-SEQ	(the last record skipped, when known)
 *	data: {"reason":"overwritten"|"reloaded","count":N,"first_seq":A,"last_seq":B}
 *				(count, first_seq and last_seq when known;
 *				count is of records of any kind: some may not
 *				have matched the stream's filters)
 *
 * libmicrohttpd (threaded) asks a stream for bytes when the socket can
 * take them.  With nothing to send, the stream suspends its connection
 * (a content reader that returned 0 without would be polled in a busy
 * loop) and ingest resumes it when records come; the watchdog's tick
 * resumes it for a keepalive comment after --web.events-keepalive idle
 * (15 s by default), and to end it when its client hung up (libmicrohttpd does not
 * watch a suspended connection; the tick polls the socket).
 *
 * GET /records?after=SEQ&wait=S rides on the same machinery: a request
 * whose answer has no records yet is held (kpx_events_hold()), its
 * connection suspended before any response, until ingest brings records
 * that match or the watchdog's tick finds S seconds gone; then
 * kpx_events_answer() gives what kpx_records_json() answers, sent as every
 * /records answer is.  It is a request, not a stream: --web.max-requests
 * bounds it, and it is let go when the request completes.
 *
 * Locks: the store's, then the streams' (ev->lock) inside it, never the
 * other way round: ingest wakes streams with the store locked, so that a
 * stream deciding to wait cannot miss a record added meanwhile.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <microhttpd.h>

#include "kpc.h"
#include "kpx_catalogs.h"
#include "kpx_events.h"
#include "kpx_query.h"
#include "kpx_store.h"

#define KPX_EVENTS_BLOCK	(16 * 1024)	/* what libmicrohttpd asks for at most */
#define KPX_EVENTS_SCAN		4096	/* records looked at per lock of the store */
/*
 * The kernel's send buffer of a stream's socket, fixed: left to grow, it
 * took megabytes of events for a client that read nothing (3000 records
 * in a guest), kernel memory per stream and the staler the events.
 */
#define KPX_EVENTS_SNDBUF	(64 * 1024)
/* s a stopping daemon gives its held /records answers to be taken. */
#define KPX_ANSWER_DRAIN_S	2

struct kpx_stream {
	struct kpx_stream *prev, *next;
	struct kpx_events *ev;
	struct MHD_Connection *c;
	int fd;				/* its socket, watched while suspended */
	const struct kpx_serving *sv;
	struct kpx_query q;		/* its strings are strs' */
	char *strs[5];
	uint32_t instance;		/* of pos */
	uint64_t pos;			/* the next store position to look at */
	bool seen;			/* last_seq is the record before pos */
	uint64_t last_seq;
	/* A lost event found when the stream opened, to be sent first. */
	bool pending;
	enum kpx_lost pending_reason;
	bool pending_known;		/* first and last are known */
	uint64_t pending_first, pending_last;
	/* Formatted, not yet handed to libmicrohttpd. */
	char *out;
	size_t outlen, outoff;
	double last_sent;		/* CLOCK_MONOTONIC, s (ev->lock) */
	bool suspended, closing, keepalive;	/* ev->lock */
	/* A held /records answer (q.has_after, q.wait_s), not a stream. */
	bool answer;
	double give_up;			/* CLOCK_MONOTONIC, s: answer what there is */
};

static double kpx_events_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void kpx_id_write(FILE *f, uint32_t instance, uint64_t seq)
{
	fprintf(f, "id: %08" PRIx32 "-%" PRIu64 "\n", instance, seq);
}

/*
 * A lost event.  first..last when known (an id the stream resumed from or
 * the last record it saw, and the record before the next one held), else
 * only the reason, and an id only when its last record is known.
 */
static void kpx_lost_write(struct kpx_stream *st, FILE *f, enum kpx_lost why,
			   bool known, uint64_t first, uint64_t last)
{
	fputs("event: lost\n", f);
	if (known)
		kpx_id_write(f, st->instance, last);
	fprintf(f, "data: {\"reason\":\"%s\"", kpx_lost_names[why]);
	if (known)
		fprintf(f, ",\"count\":%" PRIu64 ",\"first_seq\":%" PRIu64
			",\"last_seq\":%" PRIu64, last - first + 1, first, last);
	fputs("}\n\n", f);
	__atomic_add_fetch(&st->ev->lost[why], 1, __ATOMIC_RELAXED);
}

/*
 * Where the stream stands against the store: records of an instance gone
 * or overwritten before it took them become a lost event (or two), and it
 * moves on to what the store holds.  Store locked.
 */
static void kpx_stream_catch_up(struct kpx_stream *st, FILE *f)
{
	const struct kpx_store *s = st->ev->store;
	uint64_t oldest = s->received - s->n;
	const struct kpc_record *first;

	if (st->instance != s->instance) {
		/* kprint.ko came back while the stream was behind. */
		if (st->pos < s->instance_start)
			kpx_lost_write(st, f, KPX_LOST_RELOADED, false, 0, 0);
		st->instance = s->instance;
		st->seen = false;
		if (st->pos < s->instance_start)
			st->pos = s->instance_start;
	}
	if (st->pos >= oldest)
		return;
	/* The seqs around the hole: the last one seen, the oldest held. */
	first = kpx_store_at(s, oldest);
	if (first && st->seen && first->seq > st->last_seq + 1)
		kpx_lost_write(st, f, KPX_LOST_OVERWRITTEN, true, st->last_seq + 1,
			       first->seq - 1);
	else
		kpx_lost_write(st, f, KPX_LOST_OVERWRITTEN, false, 0, 0);
	st->pos = oldest;
	st->seen = false;
}

/*
 * Format what the stream has to send into st->out: the pending lost event,
 * then matching records from its place, up to about max bytes.  Returns
 * 1 if the stream is level with the store (nothing left to look at), 0
 * if not, -ENOMEM.
 */
static int kpx_stream_fill(struct kpx_stream *st, size_t max)
{
	struct kpx_store *s = st->ev->store;
	unsigned int scanned = 0;
	struct kpx_catalog_set *set = NULL;
	const struct kpc_catalog *cat = NULL;
	uint64_t sent = 0;
	size_t size = 0;
	bool level;
	int err = 0;
	FILE *f;

	free(st->out);
	st->out = NULL;
	st->outlen = st->outoff = 0;
	f = open_memstream(&st->out, &size);
	if (!f)
		return -ENOMEM;
	if (st->pending) {
		kpx_lost_write(st, f, st->pending_reason, st->pending_known,
			       st->pending_first, st->pending_last);
		st->pending = false;
	}
	/* The catalogs of now: a SIGHUP's new ones apply from the next fill. */
	if (st->q.lang) {
		set = kpx_catalogs_get(st->ev->catalogs);
		cat = kpx_catalog_find(set, st->q.lang);
	}
	pthread_mutex_lock(&s->lock);
	kpx_stream_catch_up(st, f);
	/* Written under the lock: the records may be freed once it drops. */
	while (!err && st->pos < s->received && scanned++ < KPX_EVENTS_SCAN &&
	       (size_t)ftello(f) < max) {
		const char *problems = kpx_store_problems_at(s, st->pos);
		const struct kpc_record *r = kpx_store_at(s, st->pos++);

		st->seen = true;
		st->last_seq = r->seq;
		if (!kpx_query_match(&st->q, r))
			continue;
		kpx_id_write(f, st->instance, r->seq);
		fputs("data: ", f);
		err = kpx_record_write(f, r, cat);
		fputs("\n\n", f);
		/* Its problems right after it, in the same write: never apart. */
		if (problems)
			fputs(problems, f);
		sent++;
	}
	level = st->pos == s->received;
	pthread_mutex_unlock(&s->lock);
	kpx_catalog_set_put(set);
	__atomic_add_fetch(&st->ev->sent, sent, __ATOMIC_RELAXED);
	if (fclose(f) || !st->out || err) {
		free(st->out);
		st->out = NULL;
		return -ENOMEM;
	}
	st->outlen = size;
	return level;
}

/* Hand over what is formatted; 0 when there is nothing. */
static ssize_t kpx_stream_take(struct kpx_stream *st, char *buf, size_t max)
{
	size_t n = st->outlen - st->outoff;

	if (n > max)
		n = max;
	memcpy(buf, st->out + st->outoff, n);
	st->outoff += n;
	return n;
}

static ssize_t kpx_events_read(void *cls, uint64_t at, char *buf, size_t max)
{
	static const char keepalive[] = ": keepalive\n\n";
	struct kpx_stream *st = cls;
	struct kpx_events *ev = st->ev;
	struct kpx_store *s = ev->store;
	ssize_t n;
	int level;

	(void)at;
	for (;;) {
		if (st->outoff < st->outlen) {
			n = kpx_stream_take(st, buf, max);
			break;
		}
		level = kpx_stream_fill(st, max);
		if (level < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (st->outlen)
			continue;
		if (!level)
			continue;	/* a scan that matched nothing: go on */
		/*
		 * Level with the store: wait for more, unless records came
		 * since the fill, which the store's lock tells for sure.
		 */
		pthread_mutex_lock(&s->lock);
		if (st->pos != s->received || st->instance != s->instance) {
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		pthread_mutex_lock(&ev->lock);
		if (st->closing || !ev->live) {
			n = MHD_CONTENT_READER_END_OF_STREAM;
		} else if (st->keepalive && max >= sizeof(keepalive) - 1) {
			memcpy(buf, keepalive, sizeof(keepalive) - 1);
			n = sizeof(keepalive) - 1;
		} else {
			/* Resumed by kpx_events_wake() or kpx_events_tick(). */
			st->suspended = true;
			ev->nsuspended++;
			MHD_suspend_connection(st->c);
			n = 0;
		}
		if (n > 0) {
			st->keepalive = false;
			st->last_sent = kpx_events_now();
		}
		pthread_mutex_unlock(&ev->lock);
		pthread_mutex_unlock(&s->lock);
		return n;
	}
	pthread_mutex_lock(&ev->lock);
	st->keepalive = false;
	st->last_sent = kpx_events_now();
	pthread_mutex_unlock(&ev->lock);
	return n;
}

/* ev->lock held. */
static void kpx_stream_resume(struct kpx_events *ev, struct kpx_stream *st)
{
	if (!st->suspended)
		return;
	st->suspended = false;
	ev->nsuspended--;
	MHD_resume_connection(st->c);
}

/* The store's notify: records came, or the instance changed.  Store locked. */
static void kpx_events_wake(void *ctx)
{
	struct kpx_events *ev = ctx;

	pthread_mutex_lock(&ev->lock);
	if (ev->nsuspended)
		for (struct kpx_stream *st = ev->streams; st; st = st->next)
			kpx_stream_resume(ev, st);
	pthread_mutex_unlock(&ev->lock);
}

/*
 * Whether the client of a suspended stream hung up.  libmicrohttpd does
 * not watch a suspended connection, and a stream's place under the cap
 * should not wait for the next keepalive to come free.
 */
static bool kpx_stream_gone(const struct kpx_stream *st)
{
	struct pollfd p = { .fd = st->fd, .events = POLLRDHUP };

	return st->fd >= 0 && poll(&p, 1, 0) > 0 &&
	       (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

bool kpx_events_tick(struct kpx_events *ev)
{
	double now = kpx_events_now();
	bool open;

	pthread_mutex_lock(&ev->lock);
	for (struct kpx_stream *st = ev->streams; st; st = st->next) {
		if (!st->suspended)
			continue;
		if (kpx_stream_gone(st))
			st->closing = true;
		else if (st->answer ? now >= st->give_up :
			 now - st->last_sent >= ev->keepalive_ms / 1000.0)
			st->keepalive = true;	/* an answer's: its wait is over */
		else
			continue;
		kpx_stream_resume(ev, st);
	}
	open = ev->streams != NULL;
	pthread_mutex_unlock(&ev->lock);
	return open;
}

/* What kpx_stream_new() made, once unlinked (or before it is linked in). */
static void kpx_stream_drop(struct kpx_stream *st)
{
	for (size_t i = 0; i < sizeof(st->strs) / sizeof(st->strs[0]); i++)
		free(st->strs[i]);
	free(st);
}

/* The response is done with: the connection closed, or the stream ended. */
static void kpx_events_free(void *cls)
{
	struct kpx_stream *st = cls;
	struct kpx_events *ev = st->ev;

	pthread_mutex_lock(&ev->lock);
	if (st->prev)
		st->prev->next = st->next;
	else
		ev->streams = st->next;
	if (st->next)
		st->next->prev = st->prev;
	if (st->answer) {
		ev->nanswers--;
		pthread_cond_broadcast(&ev->answered);
	} else {
		ev->nstreams--;
	}
	pthread_mutex_unlock(&ev->lock);
	free(st->out);
	kpx_stream_drop(st);
}

/* The query's strings point into the connection: the stream outlives that. */
static int kpx_stream_query(struct kpx_stream *st, const struct kpx_query *q)
{
	const char **strs[] = { &st->q.filter.subsystem, &st->q.filter.module,
				&st->q.filter.device, &st->q.q, &st->q.lang };

	st->q = *q;
	/* The place is the stream's own, not the query's seq filter. */
	st->q.has_after = false;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (!*strs[i])
			continue;
		st->strs[i] = strdup(*strs[i]);
		if (!st->strs[i])
			return -ENOMEM;
		*strs[i] = st->strs[i];
	}
	return 0;
}

/*
 * Where a stream starts: after the id it resumes from, or with the next
 * record that comes.  Store locked.
 */
static void kpx_stream_place(struct kpx_stream *st, const struct kpx_query *q)
{
	const struct kpx_store *s = st->ev->store;
	uint64_t oldest = s->received - s->n;
	const struct kpc_record *first = kpx_store_at(s, oldest);

	st->instance = s->instance;
	st->pos = s->received;
	if (!q->has_after)
		return;
	st->seen = true;
	st->last_seq = q->after;
	if (q->after_instance != s->instance) {
		/* Whatever came after it, the store holds none of it but the current instance's. */
		st->pending = true;
		st->pending_reason = KPX_LOST_RELOADED;
		st->pos = oldest > s->instance_start ? oldest : s->instance_start;
		st->seen = false;
		return;
	}
	st->pos = kpx_store_pos_after(s, q->after);
	if (s->descents) {
		/* Out of order (a replayed file): right after that very record, if held. */
		st->pos = oldest;
		for (uint64_t p = s->received; p-- > oldest;)
			if (kpx_store_at(s, p)->seq == q->after) {
				st->pos = p + 1;
				return;
			}
		st->pending = true;
		st->pending_reason = KPX_LOST_OVERWRITTEN;
		st->seen = false;
		return;
	}
	/*
	 * Records between the id and the oldest held are gone.  An id past
	 * the newest is no loss: nothing is known after it.
	 */
	if (st->pos == oldest && first && first->seq > q->after + 1) {
		st->pending = true;
		st->pending_reason = KPX_LOST_OVERWRITTEN;
		st->pending_known = true;
		st->pending_first = q->after + 1;
		st->pending_last = first->seq - 1;
	}
}

/* A stream, or a held answer, for connection c: NULL without memory. */
static struct kpx_stream *kpx_stream_new(struct kpx_events *ev, struct kpx_serving *sv,
					 struct MHD_Connection *c, const struct kpx_query *q)
{
	struct kpx_stream *st = calloc(1, sizeof(*st));
	const union MHD_ConnectionInfo *ci;

	if (!st)
		return NULL;
	st->ev = ev;
	st->c = c;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	st->fd = ci ? ci->connect_fd : -1;
	st->sv = sv;
	if (kpx_stream_query(st, q)) {
		kpx_stream_drop(st);
		return NULL;
	}
	return st;
}

/* Into the list the wakes and ticks go over.  ev->lock held. */
static void kpx_stream_link(struct kpx_events *ev, struct kpx_stream *st)
{
	st->next = ev->streams;
	if (ev->streams)
		ev->streams->prev = st;
	ev->streams = st;
	/* Its daemon stops: it ends at once rather than wait. */
	st->closing = st->sv->retired;
	st->last_sent = kpx_events_now();
}

int kpx_events_open(struct kpx_events *ev, struct kpx_serving *sv,
		    struct MHD_Connection *c, const struct kpx_query *q,
		    struct MHD_Response **resp)
{
	struct kpx_stream *st = kpx_stream_new(ev, sv, c, q);
	struct MHD_Response *r;

	if (!st)
		return -ENOMEM;
	if (st->fd >= 0)
		setsockopt(st->fd, SOL_SOCKET, SO_SNDBUF, &(int){ KPX_EVENTS_SNDBUF }, sizeof(int));
	pthread_mutex_lock(&ev->store->lock);
	kpx_stream_place(st, q);
	pthread_mutex_unlock(&ev->store->lock);

	pthread_mutex_lock(&ev->lock);
	if (ev->nstreams >= ev->max_streams) {
		ev->refused++;
		pthread_mutex_unlock(&ev->lock);
		kpx_stream_drop(st);
		return -EBUSY;
	}
	ev->nstreams++;
	kpx_stream_link(ev, st);
	pthread_mutex_unlock(&ev->lock);

	/* From here on kpx_events_free() undoes all of it. */
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, KPX_EVENTS_BLOCK,
					      kpx_events_read, st, kpx_events_free);
	if (!r) {
		kpx_events_free(st);
		return -ENOMEM;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream; charset=utf-8");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	/* A buffering proxy (nginx) would hold the events back. */
	MHD_add_response_header(r, "X-Accel-Buffering", "no");
	*resp = r;
	return 0;
}

int kpx_events_hold(struct kpx_events *ev, struct kpx_serving *sv,
		    struct MHD_Connection *c, const struct kpx_query *q,
		    struct kpx_stream **held)
{
	struct kpx_stream *st = kpx_stream_new(ev, sv, c, q);

	if (!st)
		return -ENOMEM;
	/* Its place is after= itself, which kpx_records_json() reads. */
	st->answer = true;
	st->q.has_after = true;
	st->q.after = q->after;
	st->give_up = kpx_events_now() + q->wait_s;
	pthread_mutex_lock(&ev->lock);
	ev->nanswers++;
	kpx_stream_link(ev, st);
	pthread_mutex_unlock(&ev->lock);
	*held = st;
	return 0;
}

/*
 * Once records match, or once it gives up (the wait over, the daemon
 * stopping), what /records answers then; until then the connection is
 * suspended.  Each look starts after the newest record the last one
 * saw: those did not match and never will.
 */
int kpx_events_answer(struct kpx_events *ev, struct kpx_stream *st, char **body)
{
	struct kpx_store *s = ev->store;
	struct kpx_records_scan scan;
	uint64_t received;
	bool give_up, held;

	for (;;) {
		pthread_mutex_lock(&ev->lock);
		give_up = st->closing || !ev->live || st->keepalive ||
			  kpx_events_now() >= st->give_up;
		pthread_mutex_unlock(&ev->lock);
		pthread_mutex_lock(&s->lock);
		received = s->received;
		pthread_mutex_unlock(&s->lock);
		*body = kpx_records_json(s, &st->q, &scan);
		if (!*body)
			return -ENOMEM;
		if (scan.n || give_up)
			return 1;
		free(*body);
		*body = NULL;
		if (scan.to_end && scan.newest_seq > st->q.after)
			st->q.after = scan.newest_seq;
		/* Records that came since the look would find no one to wake. */
		pthread_mutex_lock(&s->lock);
		if (s->received != received) {
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		pthread_mutex_lock(&ev->lock);
		if (!st->closing && ev->live && !st->keepalive) {
			/* Resumed by kpx_events_wake() or kpx_events_tick(). */
			st->suspended = true;
			ev->nsuspended++;
			MHD_suspend_connection(st->c);
		}
		held = st->suspended;
		pthread_mutex_unlock(&ev->lock);
		pthread_mutex_unlock(&s->lock);
		if (held)
			return 0;
	}
}

void kpx_events_answered(struct kpx_stream *st)
{
	kpx_events_free(st);
}

/* Whether an answer of sv (NULL: of any) is still held.  ev->lock held. */
static bool kpx_events_holding(const struct kpx_events *ev, const struct kpx_serving *sv)
{
	for (const struct kpx_stream *st = ev->streams; st; st = st->next)
		if (st->answer && (!sv || st->sv == sv))
			return true;
	return false;
}

void kpx_events_retire(struct kpx_events *ev, struct kpx_serving *sv)
{
	struct timespec until;

	if (!ev->ready)
		return;
	pthread_mutex_lock(&ev->lock);
	if (sv)
		sv->retired = true;
	for (struct kpx_stream *st = ev->streams; st; st = st->next) {
		if (sv && st->sv != sv)
			continue;
		st->closing = true;
		kpx_stream_resume(ev, st);
	}
	/*
	 * A held answer is a request: it is given (what there is), and sent,
	 * before its daemon stops, which would cut it off, unless its client
	 * does not take it within KPX_ANSWER_DRAIN_S.
	 */
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += KPX_ANSWER_DRAIN_S;
	while (kpx_events_holding(ev, sv) &&
	       pthread_cond_timedwait(&ev->answered, &ev->lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&ev->lock);
}

void kpx_events_init(struct kpx_events *ev, struct kpx_store *store, bool live)
{
	unsigned int max = ev->max_streams ? ev->max_streams : KPX_STREAMS_DEFAULT;
	unsigned int keepalive = ev->keepalive_ms ? ev->keepalive_ms : KPX_KEEPALIVE_DEFAULT_MS;
	struct kpx_catalogs *catalogs = ev->catalogs;
	pthread_condattr_t attr;

	/* What main set before the start stays. */
	memset(ev, 0, sizeof(*ev));
	ev->max_streams = max;
	ev->keepalive_ms = keepalive;
	ev->catalogs = catalogs;
	ev->store = store;
	ev->live = live;
	pthread_mutex_init(&ev->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ev->answered, &attr);
	pthread_condattr_destroy(&attr);
	ev->ready = true;
	pthread_mutex_lock(&store->lock);
	store->notify = kpx_events_wake;
	store->notify_ctx = ev;
	pthread_mutex_unlock(&store->lock);
}

void kpx_events_end(struct kpx_events *ev)
{
	if (!ev->ready)
		return;
	pthread_mutex_lock(&ev->store->lock);
	ev->store->notify = NULL;
	ev->store->notify_ctx = NULL;
	pthread_mutex_unlock(&ev->store->lock);
	/*
	 * libmicrohttpd must not stop with a connection suspended: every
	 * stream ends, and one that starts from now on ends once level.
	 */
	pthread_mutex_lock(&ev->lock);
	ev->live = false;
	pthread_mutex_unlock(&ev->lock);
	kpx_events_retire(ev, NULL);
}

void kpx_events_fini(struct kpx_events *ev)
{
	if (!ev->ready)
		return;
	pthread_cond_destroy(&ev->answered);
	pthread_mutex_destroy(&ev->lock);
	ev->ready = false;
}
