// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP side, on libmicrohttpd with an internal thread pool, fed by
 * the exporter's own accept loop (kpx_accept.c says why).  Limits are
 * explicit, since a loopback exporter still faces every local user:
 *
 *	KPX_HTTP_CONNECTIONS (256) connections in all, KPX_HTTP_PER_IP (64)
 *	from one address (all of loopback is one address: a local client
 *	cannot take every place from Prometheus); past either, a new
 *	connection is answered 503 with Retry-After, never reset;
 *	--web.max-requests (40, as node_exporter's) requests in flight from
 *	one address, from the request's arrival until its answer is sent;
 *	past it, 503 with Retry-After on the same connection;
 *	64 KiB of memory per connection, which bounds the request line and
 *	headers (past it: 414 for the URI, 431 for headers);
 *	10 s of inactivity closes a connection: without a timeout, clients
 *	that send half a request and go idle hold their connections for ever
 *	and starve new ones (measured with libmicrohttpd 0.9.75);
 *	10 s for a whole request to arrive and 60 s for a response to be
 *	taken, enforced by a watchdog: libmicrohttpd's timeout restarts with
 *	every byte, so a client trickling a byte a second would never hit it.
 *
 * /events streams are exempt from the 60 s and the 10 s idle: a stream
 * has no end, and is idle for as long as no record comes.  They are
 * bounded on their own (--web.max-streams, 32 by default) within the
 * connection limits and apart from the requests in flight, and a stream
 * whose client takes nothing for KPX_HTTP_STREAM_STALL_S is closed (a
 * waiting stream sends a keepalive every 15 s, so only a client that
 * stopped reading gets there).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "kpx_accept.h"
#include "kpx_events.h"
#include "kpx_http.h"
#include "kpx_http_conns.h"
#include "kpx_http_routes.h"
#include "kpx_http_server.h"
#include "kpx_log.h"
#include "kpx_page.h"
#include "kpx_webconfig.h"

#define KPX_HTTP_THREADS	4
#define KPX_HTTP_MEMORY		(64 * 1024)

/*
 * A request completed: what its handler kept goes (a held /records
 * answer's state), then its place among the requests in flight.
 */
static void kpx_http_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			       enum MHD_RequestTerminationCode toe)
{
	kpx_request_done(*req_cls);
	*req_cls = NULL;
	kpx_notify_completed(cls, c, req_cls, toe);
}

static void kpx_http_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("kprint_exporter: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* "ADDR:PORT" or "[ADDR6]:PORT", numeric only: no DNS at startup. */
static int kpx_parse_listen(const char *listen, struct sockaddr_storage *ss,
			    socklen_t *sslen)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	char host[128];
	const char *colon = strrchr(listen, ':');
	const char *h = listen;
	size_t hlen;
	int err;

	if (!colon || !colon[1])
		return -EINVAL;
	hlen = colon - listen;
	if (hlen && listen[0] == '[' && listen[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (!hlen || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	err = getaddrinfo(host, colon + 1, &hints, &ai);
	if (err)
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sslen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int kpx_http_listen(struct kpx_http *h, const char *where)
{
	struct kpx_listener *l = &h->lst[h->nlst];
	struct sockaddr_storage ss;
	socklen_t sslen;
	char host[INET6_ADDRSTRLEN];
	int fd, one = 1, err;
	uint16_t port;

	if (h->nlst == KPX_LISTEN_MAX) {
		kpx_log("at most %d --web.listen-address\n",
			KPX_LISTEN_MAX);
		return -EINVAL;
	}
	if (kpx_parse_listen(where, &ss, &sslen)) {
		kpx_log("--web.listen-address wants ADDR:PORT or"
			" [ADDR6]:PORT with a numeric address, not '%s'\n", where);
		return -EINVAL;
	}
	/* Non-blocking: the acceptor takes what is there, then polls again. */
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto err;
	/* A restarted exporter gets its port back despite TIME_WAIT, as with MHD's own. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto err_close;
	/* [::1] means ::1, not also 127.0.0.1 (and [::] not also 0.0.0.0). */
	if (ss.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		goto err_close;
	if (bind(fd, (struct sockaddr *)&ss, sslen) || listen(fd, SOMAXCONN))
		goto err_close;
	sslen = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sslen))
		goto err_close;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
		port = ntohs(sin6->sin6_port);
		snprintf(l->addr, sizeof(l->addr), "[%s]:%u", host, port);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		port = ntohs(sin->sin_port);
		snprintf(l->addr, sizeof(l->addr), "%s:%u", host, port);
	}
	l->fd = fd;
	h->nlst++;
	return 0;

err_close:
	err = -errno;
	close(fd);
	errno = -err;
err:
	err = -errno;
	kpx_log("cannot listen on %s: %s%s\n", where,
		strerror(errno), err == -EADDRNOTAVAIL ? " (not an address of this host)" : "");
	return err;
}

#define KPX_MHD_OPTS	16

/*
 * A daemon serving sv, with no listening socket: its connections come
 * from kpx_accept.c (or the fuzzer).  pool: with its own threads.
 */
static struct MHD_Daemon *kpx_http_daemon(struct kpx_serving *sv, unsigned int flags,
					  bool pool)
{
	struct kpx_http *h = sv->h;
	const struct kpx_web *w = sv->web;
	struct MHD_OptionItem opts[KPX_MHD_OPTS] = {
		/* The logger first, so that option errors already go through it. */
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)kpx_http_log, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, KPX_HTTP_TIMEOUT_S, NULL },
		/*
		 * The limits are kpx_accept.c's.  libmicrohttpd splits this one
		 * among its threads and still counts connections closed but not
		 * yet cleaned up: each thread may hold all of them, and more.
		 */
		{ MHD_OPTION_CONNECTION_LIMIT, 2 * KPX_HTTP_CONNECTIONS * KPX_HTTP_THREADS, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, KPX_HTTP_MEMORY, NULL },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)kpx_notify_connection, h },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)kpx_http_completed, h },
	};
	unsigned int n = 6;

	if (pool)
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE,
						     KPX_HTTP_THREADS, NULL };
	if (w && w->tls) {
		flags |= MHD_USE_TLS;
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, w->key_pem };
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, w->cert_pem };
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
						     (void *)w->priorities };
		/*
		 * libmicrohttpd asks for a client certificate only when it has
		 * a trust list.  Without client_ca_file (RequestClientCert,
		 * RequireAnyClientCert) the server's own certificate stands in:
		 * it only names a CA in the request, nothing is verified
		 * against it for those types (kpx_auth.c).
		 */
		if (w->client_auth != KPX_CLIENT_NONE)
			opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
							     w->ca_pem ? w->ca_pem : w->cert_pem };
	}
	opts[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return MHD_start_daemon(flags, 0, NULL, NULL, kpx_handler, sv,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

static struct kpx_serving *kpx_serving_new(struct kpx_http *h, struct kpx_web *web)
{
	struct kpx_serving *sv = calloc(1, sizeof(*sv));

	if (sv) {
		sv->h = h;
		sv->web = web;
	}
	return sv;
}

static int kpx_http_index(struct kpx_http *h)
{
	return kpx_page_build(&h->page, kpx_telemetry(h));
}

/*
 * MHD_USE_ITC: a connection added from the acceptor's thread wakes a pool
 * thread at once.  MHD_ALLOW_SUSPEND_RESUME: an /events stream waits
 * suspended.
 */
#define KPX_MHD_FLAGS	(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC | \
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET)

int kpx_http_start(struct kpx_http *h)
{
	unsigned int i;
	int err;

	kpx_http_init_conns(h);
	kpx_events_init(&h->events, h->store, true);
	err = kpx_http_index(h);
	if (err)
		goto err;
	h->serving = kpx_serving_new(h, h->web);
	if (!h->serving) {
		err = -ENOMEM;
		goto err;
	}
	h->mhd = kpx_http_daemon(h->serving, KPX_MHD_FLAGS, true);
	if (!h->mhd) {
		kpx_log("cannot serve HTTP%s\n",
			h->web && h->web->tls ? "S" : "");
		err = -ENOMEM;
		goto err;
	}
	h->mhd_tls = h->web && h->web->tls;
	err = -pthread_create(&h->watchdog_thread, NULL, kpx_watchdog, h);
	if (err) {
		kpx_log("no watchdog thread: %s\n", strerror(-err));
		goto err_stop;
	}
	h->watchdog = true;
	err = kpx_accept_start(h);
	if (err) {
		kpx_log("no accept thread: %s\n", strerror(-err));
		kpx_http_stop(h);
		return err;
	}
	return 0;

err_stop:
	kpx_events_end(&h->events);
	MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
err:
	kpx_events_end(&h->events);
	kpx_events_fini(&h->events);
	for (i = 0; i < h->nlst; i++)
		close(h->lst[i].fd);
	h->nlst = 0;
	free(h->serving);
	h->serving = NULL;
	kpx_page_free(&h->page);
	kpx_http_fini_conns(h);
	return err;
}

int kpx_http_reload(struct kpx_http *h, struct kpx_web *web, struct kpx_web **was)
{
	struct kpx_serving *sv, *old = h->serving;
	struct MHD_Daemon *nd, *od;

	sv = kpx_serving_new(h, web);
	if (!sv)
		return -ENOMEM;
	/*
	 * The new daemon first: if it does not start, the old one is
	 * untouched and keeps serving.  The listening sockets stay the
	 * acceptor's throughout, so no connection attempt is refused.
	 */
	nd = kpx_http_daemon(sv, KPX_MHD_FLAGS, true);
	if (!nd) {
		kpx_log("cannot serve %s: keeping the old web config\n",
			web->path);
		free(sv);
		return -ENOMEM;
	}
	pthread_mutex_lock(&h->mhd_lock);
	od = h->mhd;
	h->mhd = nd;
	h->mhd_tls = web->tls;
	pthread_mutex_unlock(&h->mhd_lock);
	/* Its streams end first: a daemon must not stop with one suspended. */
	kpx_events_retire(&h->events, old);
	MHD_stop_daemon(od);
	/* The old daemon is gone, and with it every use of the old config. */
	h->serving = sv;
	*was = h->web;
	h->web = web;
	free(old);
	return 0;
}

int kpx_http_start_nolisten(struct kpx_http *h)
{
	h->nlst = 0;
	kpx_http_init_conns(h);
	/* Nothing would wake a waiting stream: streams end once level. */
	kpx_events_init(&h->events, h->store, false);
	h->serving = kpx_serving_new(h, NULL);
	if (!h->serving || kpx_http_index(h))
		goto err;
	h->mhd = kpx_http_daemon(h->serving, MHD_USE_NO_LISTEN_SOCKET | MHD_ALLOW_SUSPEND_RESUME,
				 false);
	if (!h->mhd)
		goto err;
	return 0;
err:
	kpx_events_end(&h->events);
	kpx_events_fini(&h->events);
	kpx_page_free(&h->page);
	free(h->serving);
	h->serving = NULL;
	kpx_http_fini_conns(h);
	return -ENOMEM;
}

void kpx_http_stop(struct kpx_http *h)
{
	bool started = h->mhd || h->serving;

	/* No new connection first, then none served. */
	kpx_accept_stop(h);
	kpx_events_end(&h->events);
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
	for (unsigned int i = 0; i < h->nlst; i++)
		close(h->lst[i].fd);
	h->nlst = 0;
	if (!started)
		return;
	if (h->watchdog) {
		pthread_mutex_lock(&h->conn_lock);
		h->stopping = true;
		pthread_cond_signal(&h->conn_cond);
		pthread_mutex_unlock(&h->conn_lock);
		pthread_join(h->watchdog_thread, NULL);
		h->watchdog = false;
	}
	free(h->serving);
	h->serving = NULL;
	kpx_page_free(&h->page);
	kpx_events_fini(&h->events);
	kpx_http_fini_conns(h);
}
