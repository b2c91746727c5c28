// SPDX-License-Identifier: GPL-2.0
/*
 * The listening sockets' accept loop, and the counts by client address.
 *
 * libmicrohttpd 0.9.75 refuses a connection past its limits by closing
 * it as soon as it is accepted.  By then the client has usually sent its
 * request, and closing a socket with unread data sends a reset: the
 * client sees "Connection reset by peer", not an answer.  Its limits
 * also count connections whose client has already closed, until a pool
 * thread gets round to cleaning them up, so a client that opens a new
 * connection per request is refused for connections it no longer has.
 *
 * So the exporter accepts by itself.  A connection within the limits is
 * handed to libmicrohttpd (MHD_add_connection()); one past them is
 * answered 503 with Retry-After and a JSON error at once, its writing
 * side shut, and what its client sends is read and dropped until the
 * client closes (at most KPX_LINGER_S): it gets an answer, never a reset.
 * Before refusing, the connections whose client has already closed are
 * not counted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* accept4(), POLLRDHUP */
#endif
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "kpx_accept.h"
#include "kpx_http.h"
#include "kpx_log.h"

#define KPX_LINGER_S		2.0	/* a refused client's time to close */
#define KPX_ACCEPT_BATCH	64	/* accepts per listener per wakeup */
#define KPX_ACCEPT_PAUSE_S	0.1	/* out of descriptors: try again after */

/* The whole 503 of a refused connection, made once. */
static char kpx_busy[KPX_NR_REFUSED][320];
static size_t kpx_busy_len[KPX_NR_REFUSED];

double kpx_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool kpx_addr_of(const struct sockaddr *sa, struct kpx_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (sa && sa->sa_family == AF_INET) {
		a->family = AF_INET;
		memcpy(a->bytes, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return true;
	}
	if (sa && sa->sa_family == AF_INET6) {
		a->family = AF_INET6;
		memcpy(a->bytes, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return true;
	}
	return false;
}

struct kpx_peer *kpx_peer_get(struct kpx_http *h, const struct kpx_addr *a, bool create)
{
	struct kpx_peer *p;

	for (unsigned int i = 0; i < h->npeers; i++)
		if (!memcmp(&h->peers[i].addr, a, sizeof(*a)))
			return &h->peers[i];
	if (!create || h->npeers == KPX_HTTP_CONNECTIONS)
		return NULL;
	p = &h->peers[h->npeers++];
	memset(p, 0, sizeof(*p));
	p->addr = *a;
	return p;
}

void kpx_peer_put(struct kpx_http *h, struct kpx_peer *p)
{
	if (!p->conns && !p->inflight)
		*p = h->peers[--h->npeers];
}

/*
 * Connections from a (from anywhere when a is NULL) whose client has
 * closed or that the watchdog cut, but that libmicrohttpd has not yet
 * cleaned up (conn_lock held: their descriptors are still open).
 */
static unsigned int kpx_gone(struct kpx_http *h, const struct kpx_addr *a)
{
	struct pollfd pf[KPX_HTTP_CONNECTIONS];
	unsigned int n = 0, gone = 0;

	for (struct kpx_conn *k = h->conns; k && n < KPX_HTTP_CONNECTIONS; k = k->next)
		if (!a || !memcmp(&k->addr, a, sizeof(*a)))
			pf[n++] = (struct pollfd){ .fd = k->fd, .events = POLLRDHUP };
	if (n && poll(pf, n, 0) > 0)
		for (unsigned int i = 0; i < n; i++)
			if (pf[i].revents & (POLLRDHUP | POLLHUP | POLLERR))
				gone++;
	return gone;
}

/* -1 when a connection from a is admitted (and counted), else why not. */
static int kpx_admit(struct kpx_http *h, const struct kpx_addr *a)
{
	struct kpx_peer *p;
	int why = -1;

	pthread_mutex_lock(&h->conn_lock);
	p = kpx_peer_get(h, a, true);
	if (!p || (h->nconns >= KPX_HTTP_CONNECTIONS &&
		   h->nconns - kpx_gone(h, NULL) >= KPX_HTTP_CONNECTIONS))
		why = KPX_REFUSED_CONNECTIONS;
	else if (p->conns >= KPX_HTTP_PER_IP && p->conns - kpx_gone(h, a) >= KPX_HTTP_PER_IP)
		why = KPX_REFUSED_ADDRESS;
	if (why < 0) {
		h->nconns++;
		p->conns++;
	} else {
		__atomic_fetch_add(&h->refused[why], 1, __ATOMIC_RELAXED);
		if (p)
			kpx_peer_put(h, p);
	}
	pthread_mutex_unlock(&h->conn_lock);
	return why;
}

/* A connection libmicrohttpd did not take after all. */
static void kpx_unadmit(struct kpx_http *h, const struct kpx_addr *a)
{
	struct kpx_peer *p;

	pthread_mutex_lock(&h->conn_lock);
	h->nconns--;
	p = kpx_peer_get(h, a, false);
	if (p) {
		p->conns--;
		kpx_peer_put(h, p);
	}
	pthread_mutex_unlock(&h->conn_lock);
}

/*
 * The 503, then drain.  Over TLS no plain answer can be given before a
 * handshake: the connection only closes, cleanly.  Should more refused
 * clients than KPX_LINGER_MAX hold on at once, the next one is closed
 * without the drain (a reset, if it sent something).
 */
static void kpx_refuse(struct kpx_http *h, int fd, int why, bool tls)
{
	/* A client already gone fails the send: it is closed all the same. */
	if (!tls)
		send(fd, kpx_busy[why], kpx_busy_len[why], MSG_NOSIGNAL | MSG_DONTWAIT);
	shutdown(fd, SHUT_WR);
	if (h->nlinger == KPX_LINGER_MAX) {
		close(fd);
		return;
	}
	h->linger[h->nlinger++] = (struct kpx_linger){ .fd = fd, .until = kpx_mono() + KPX_LINGER_S };
}

/* Read and drop what a refused client sent; true once it can be closed. */
static bool kpx_drain(int fd)
{
	char buf[4096];
	ssize_t n;

	for (int i = 0; i < 16; i++) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return true;
		if (n < 0)
			return false;
	}
	return false;
}

/* Up to KPX_ACCEPT_BATCH connections of listener fd; -errno to pause. */
static int kpx_accept_some(struct kpx_http *h, int lfd)
{
	for (int i = 0; i < KPX_ACCEPT_BATCH; i++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct kpx_addr a;
		bool tls, added = true;
		int fd, why;

		fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		kpx_addr_of((struct sockaddr *)&ss, &a);
		why = kpx_admit(h, &a);
		pthread_mutex_lock(&h->mhd_lock);
		tls = h->mhd_tls;
		if (why < 0)
			added = MHD_add_connection(h->mhd, fd, (struct sockaddr *)&ss, sl) == MHD_YES;
		pthread_mutex_unlock(&h->mhd_lock);
		if (why >= 0) {
			kpx_refuse(h, fd, why, tls);
		} else if (!added) {
			/* libmicrohttpd closed it: out of memory. */
			kpx_log("http: a connection not served: %s\n",
				strerror(errno));
			kpx_unadmit(h, &a);
		}
	}
	return 0;
}

/* The refused connections that closed or had their time, closed. */
static void kpx_linger_run(struct kpx_http *h, const struct pollfd *pf, double now)
{
	/* Downwards, so that the last one, moved into a gap, was seen. */
	for (unsigned int i = h->nlinger; i-- > 0;) {
		struct kpx_linger *l = &h->linger[i];

		if ((pf[i].revents && kpx_drain(l->fd)) || now >= l->until) {
			close(l->fd);
			*l = h->linger[--h->nlinger];
		}
	}
}

static void *kpx_acceptor(void *arg)
{
	struct pollfd pf[1 + KPX_LISTEN_MAX + KPX_LINGER_MAX];
	struct kpx_http *h = arg;
	double pause_until = 0;
	bool paused = false;

	for (;;) {
		double now = kpx_mono(), next = HUGE_VAL;
		unsigned int n = 0, nl, i;
		int timeout, err;

		pf[n++] = (struct pollfd){ .fd = h->accept_wake, .events = POLLIN };
		nl = now >= pause_until ? h->nlst : 0;
		for (i = 0; i < nl; i++)
			pf[n++] = (struct pollfd){ .fd = h->lst[i].fd, .events = POLLIN };
		if (nl < h->nlst)
			next = pause_until;
		for (i = 0; i < h->nlinger; i++) {
			pf[n++] = (struct pollfd){ .fd = h->linger[i].fd, .events = POLLIN };
			if (h->linger[i].until < next)
				next = h->linger[i].until;
		}
		timeout = next == HUGE_VAL ? -1 : next <= now ? 0 : (int)((next - now) * 1000) + 1;
		if (poll(pf, n, timeout) < 0 && errno != EINTR) {
			kpx_log("http: poll: %s\n", strerror(errno));
			break;
		}
		if (pf[0].revents)
			break;		/* kpx_accept_stop() */
		kpx_linger_run(h, pf + 1 + nl, kpx_mono());
		for (i = 0; i < nl; i++) {
			if (!(pf[1 + i].revents & POLLIN))
				continue;
			err = kpx_accept_some(h, pf[1 + i].fd);
			if (!err)
				continue;
			/* Out of descriptors or memory: the kernel's queue holds them. */
			if (!paused)
				kpx_log("http: accept: %s; waiting\n",
					strerror(-err));
			paused = true;
			pause_until = kpx_mono() + KPX_ACCEPT_PAUSE_S;
		}
		if (nl == h->nlst && nl)
			paused = false;
	}
	while (h->nlinger)
		close(h->linger[--h->nlinger].fd);
	return NULL;
}

static void kpx_busy_init(void)
{
	static const char *const why[KPX_NR_REFUSED] = {
		[KPX_REFUSED_CONNECTIONS] = "too many connections: %d open in all",
		[KPX_REFUSED_ADDRESS] = "too many connections from this address: %d open",
		[KPX_REFUSED_REQUESTS] = "",
	};
	char body[160], msg[96];

	for (int i = 0; i < KPX_NR_REFUSED; i++) {
		if (!*why[i])
			continue;
		snprintf(msg, sizeof(msg), why[i], i == KPX_REFUSED_CONNECTIONS ?
			 KPX_HTTP_CONNECTIONS : KPX_HTTP_PER_IP);
		snprintf(body, sizeof(body), "{\"error\":\"%s\"}", msg);
		kpx_busy_len[i] = snprintf(kpx_busy[i], sizeof(kpx_busy[i]),
			"HTTP/1.1 503 Service Unavailable\r\n"
			"Content-Type: application/json\r\n"
			"Retry-After: " KPX_HTTP_RETRY_AFTER "\r\n"
			"Connection: close\r\n"
			"Content-Length: %zu\r\n\r\n%s", strlen(body), body);
	}
}

int kpx_accept_start(struct kpx_http *h)
{
	int err;

	kpx_busy_init();
	h->nlinger = 0;
	h->accept_wake = eventfd(0, EFD_CLOEXEC);
	if (h->accept_wake < 0)
		return -errno;
	err = -pthread_create(&h->accept_thread, NULL, kpx_acceptor, h);
	if (err) {
		close(h->accept_wake);
		return err;
	}
	h->acceptor = true;
	return 0;
}

void kpx_accept_stop(struct kpx_http *h)
{
	uint64_t one = 1;

	if (!h->acceptor)
		return;
	if (write(h->accept_wake, &one, sizeof(one)) != sizeof(one))
		kpx_log("http: cannot stop accepting: %s\n",
			strerror(errno));
	pthread_join(h->accept_thread, NULL);
	close(h->accept_wake);
	h->acceptor = false;
}
