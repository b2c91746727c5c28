// SPDX-License-Identifier: GPL-2.0
/*
 * The slow-client watchdog: every connection has a deadline, for its
 * request to arrive and then for its response to be taken; past it, the
 * watchdog shuts the socket down and libmicrohttpd closes the connection
 * as it would any broken one.  shutdown(), not close(): the descriptor
 * stays libmicrohttpd's.  A connection leaves the list (under the lock)
 * before libmicrohttpd closes its descriptor, so the watchdog never
 * touches a number that was reused for another connection.  The requests
 * in flight are counted here too, per client address (--web.max-requests).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <microhttpd.h>

#include "kpx_accept.h"
#include "kpx_events.h"
#include "kpx_http.h"
#include "kpx_http_conns.h"

/* The connection bookkeeping every daemon of h shares. */
void kpx_http_init_conns(struct kpx_http *h)
{
	pthread_condattr_t attr;

	h->conns = NULL;
	h->nconns = 0;
	h->npeers = 0;
	memset(h->refused, 0, sizeof(h->refused));
	h->stopping = false;
	h->acceptor = false;
	/* The watchdog sets it from the deadlines before it first waits. */
	h->watch_until = 0;
	pthread_mutex_init(&h->conn_lock, NULL);
	pthread_mutex_init(&h->mhd_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&h->conn_cond, &attr);
	pthread_condattr_destroy(&attr);
}

void kpx_http_fini_conns(struct kpx_http *h)
{
	pthread_cond_destroy(&h->conn_cond);
	pthread_mutex_destroy(&h->conn_lock);
	pthread_mutex_destroy(&h->mhd_lock);
}

/*
 * The watchdog sleeps until the first deadline it knows of: a sooner one
 * wakes it.  So does a stream (no deadline), whose keepalives its ticks
 * send.  Called with conn_lock held.
 */
static void kpx_watchdog_tell(struct kpx_http *h, const struct kpx_conn *k)
{
	if (k->deadline < h->watch_until || isinf(k->deadline))
		pthread_cond_signal(&h->conn_cond);
}

void kpx_conn_deadline(struct kpx_http *h, struct MHD_Connection *c,
			      double secs)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct kpx_conn *k = ci ? ci->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&h->conn_lock);
	k->deadline = kpx_mono() + secs;
	kpx_watchdog_tell(h, k);
	pthread_mutex_unlock(&h->conn_lock);
}

/* The connection's own context (NULL when it could not be made). */
static struct kpx_conn *kpx_conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Its request no longer in flight (conn_lock held). */
static void kpx_request_end(struct kpx_http *h, struct kpx_conn *k)
{
	struct kpx_peer *p;

	if (!k || !k->inflight)
		return;
	k->inflight = false;
	p = kpx_peer_get(h, &k->addr, false);
	if (p && p->inflight) {
		p->inflight--;
		kpx_peer_put(h, p);
	}
}

/*
 * Count c's request in its address's requests in flight until its answer
 * is sent (kpx_notify_completed()); false past --web.max-requests.  A
 * connection without a context is not counted.
 */
bool kpx_request_admit(struct kpx_http *h, struct MHD_Connection *c)
{
	unsigned int max = h->max_requests ? h->max_requests : KPX_REQUESTS_DEFAULT;
	struct kpx_conn *k = kpx_conn_of(c);
	struct kpx_peer *p;
	bool ok = true;

	if (!k || k->inflight)
		return true;
	pthread_mutex_lock(&h->conn_lock);
	p = kpx_peer_get(h, &k->addr, true);
	if (p && p->inflight >= max) {
		__atomic_fetch_add(&h->refused[KPX_REFUSED_REQUESTS], 1, __ATOMIC_RELAXED);
		kpx_peer_put(h, p);
		ok = false;
	} else if (p) {
		p->inflight++;
		k->inflight = true;
	}
	pthread_mutex_unlock(&h->conn_lock);
	return ok;
}

/* Its place given back to its address, and to all (kpx_accept.c took it). */
static void kpx_conn_closed(struct kpx_http *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct kpx_addr a;
	struct kpx_peer *p;

	if (h->nconns)
		h->nconns--;
	kpx_addr_of(ci ? ci->client_addr : NULL, &a);
	p = kpx_peer_get(h, &a, false);
	if (p && p->conns) {
		p->conns--;
		kpx_peer_put(h, p);
	}
}

void kpx_notify_connection(void *cls, struct MHD_Connection *c,
				  void **socket_context,
				  enum MHD_ConnectionNotificationCode toe)
{
	struct kpx_http *h = cls;
	struct kpx_conn *k = *socket_context;
	const union MHD_ConnectionInfo *ci, *ca;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		ca = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		k = ci ? calloc(1, sizeof(*k)) : NULL;
		/* Unwatched, it still has the inactivity timeout. */
		if (!k)
			return;
		k->fd = ci->connect_fd;
		kpx_addr_of(ca ? ca->client_addr : NULL, &k->addr);
		pthread_mutex_lock(&h->conn_lock);
		k->deadline = kpx_mono() + KPX_HTTP_REQUEST_S;
		kpx_watchdog_tell(h, k);
		k->next = h->conns;
		if (h->conns)
			h->conns->prev = k;
		h->conns = k;
		pthread_mutex_unlock(&h->conn_lock);
		*socket_context = k;
		return;
	}
	if (toe != MHD_CONNECTION_NOTIFY_CLOSED)
		return;
	pthread_mutex_lock(&h->conn_lock);
	kpx_request_end(h, k);
	kpx_conn_closed(h, c);
	if (k) {
		if (k->prev)
			k->prev->next = k->next;
		else
			h->conns = k->next;
		if (k->next)
			k->next->prev = k->prev;
	}
	pthread_mutex_unlock(&h->conn_lock);
	free(k);
	*socket_context = NULL;
}

/* A response went out: the next request on the connection gets its time. */
void kpx_notify_completed(void *cls, struct MHD_Connection *c,
				 void **req_cls, enum MHD_RequestTerminationCode toe)
{
	struct kpx_http *h = cls;

	(void)req_cls;
	(void)toe;
	pthread_mutex_lock(&h->conn_lock);
	kpx_request_end(h, kpx_conn_of(c));
	pthread_mutex_unlock(&h->conn_lock);
	kpx_conn_deadline(h, c, KPX_HTTP_REQUEST_S);
}

/*
 * While an event stream is open the watchdog ticks twice a second: its
 * keepalives, and the check for a client gone, ride on the ticks.  Twice
 * a second is plenty next to deadlines of 10 s.  Otherwise it sleeps until
 * the first deadline, or until told of one: an idle exporter does not
 * wake at all.
 */
#define KPX_WATCHDOG_TICK_S	0.5

/* Cut the connections past their deadline; the first deadline to come. */
static double kpx_watchdog_cut(struct kpx_http *h, double now, double next)
{
	struct kpx_conn *k;

	for (k = h->conns; k; k = k->next) {
		if (k->cut)
			continue;
		if (now >= k->deadline) {
			shutdown(k->fd, SHUT_RDWR);
			k->cut = true;
		} else if (k->deadline < next) {
			next = k->deadline;
		}
	}
	return next;
}

void *kpx_watchdog(void *arg)
{
	struct kpx_http *h = arg;
	struct timespec ts;
	double now, next;
	bool streams;

	pthread_mutex_lock(&h->conn_lock);
	while (!h->stopping) {
		/* The streams' keepalives ride along: no thread of their own. */
		pthread_mutex_unlock(&h->conn_lock);
		streams = kpx_events_tick(&h->events);
		pthread_mutex_lock(&h->conn_lock);
		now = kpx_mono();
		next = kpx_watchdog_cut(h, now, streams ? now + KPX_WATCHDOG_TICK_S : HUGE_VAL);
		h->watch_until = next;
		if (h->stopping)
			break;
		if (isinf(next)) {
			pthread_cond_wait(&h->conn_cond, &h->conn_lock);
			continue;
		}
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&h->conn_cond, &h->conn_lock, &ts);
	}
	pthread_mutex_unlock(&h->conn_lock);
	return NULL;
}
