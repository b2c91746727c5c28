/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the HTTP side share: the limits, the listeners, the
 * connections counted by client address, and struct kpx_http, which
 * holds them.  Only declarations: each file says what it does with them.
 *
 *	kpx_http_server	listening, the libmicrohttpd daemons, reload, stop
 *	kpx_http_routes	the request handler: authentication, routing
 *	kpx_http_reply	answers and errors
 *	kpx_http_conns	the slow-client watchdog, requests in flight
 *	kpx_accept	the accept loop, connections counted by address
 *	kpx_events	/events streams
 */
#ifndef KPX_HTTP_H
#define KPX_HTTP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "kpx_events.h"
#include "kpx_page.h"

#define KPX_LISTEN_MAX		16	/* --web.listen-address given this often */
#define KPX_TELEMETRY_DEFAULT	"/metrics"
/*
 * The HTTP side's limits (kpx_http_server.c says why, kprint_exporter(8)
 * too): connections in all and per client address, and requests in
 * flight per client address (--web.max-requests).  Past any of them, 503.
 */
#define KPX_HTTP_CONNECTIONS	256
#define KPX_HTTP_PER_IP		64
#define KPX_REQUESTS_DEFAULT	40	/* --web.max-requests, as node_exporter's */
#define KPX_REQUESTS_MAX	KPX_HTTP_PER_IP
#define KPX_HTTP_RETRY_AFTER	"1"	/* s, in every 503 of a limit */
#define KPX_STR_(x)		#x
#define KPX_STR(x)		KPX_STR_(x)	/* a number macro's digits */

struct kpx_catalogs;
struct kpx_metrics;
struct kpx_problems;
struct kpx_serving;
struct kpx_sites;
struct kpx_store;
struct kpx_web;
struct MHD_Daemon;

/* One --web.listen-address: its socket is the acceptor's (kpx_accept.c). */
struct kpx_listener {
	int fd;
	char addr[80];			/* where it listens, as ADDR:PORT */
};

/* A client address, as the limits count them. */
struct kpx_addr {
	sa_family_t family;
	uint8_t bytes[16];
};

/* What one client address holds (kpx_http.conn_lock). */
struct kpx_peer {
	struct kpx_addr addr;
	unsigned int conns;		/* admitted, not yet closed */
	unsigned int inflight;		/* requests not yet answered */
};

/* Why a connection or a request was refused: kprint_exporter_http_refused_total. */
enum kpx_refusal {
	KPX_REFUSED_CONNECTIONS,	/* KPX_HTTP_CONNECTIONS open in all */
	KPX_REFUSED_ADDRESS,		/* KPX_HTTP_PER_IP open from its address */
	KPX_REFUSED_REQUESTS,		/* --web.max-requests in flight from its address */
	KPX_NR_REFUSED
};
extern const char *const kpx_refusal_names[KPX_NR_REFUSED];

/*
 * A connection libmicrohttpd serves, watched by kpx_http_conns.c's watchdog
 * and counted against its address (its socket context).
 */
struct kpx_conn {
	struct kpx_conn *prev, *next;
	int fd;
	double deadline;		/* CLOCK_MONOTONIC, s */
	bool cut;
	bool inflight;			/* a request counted in its peer's inflight */
	struct kpx_addr addr;
};

#define KPX_LINGER_MAX	256		/* refused connections drained at once */

/* A refused connection, drained until its client closes (kpx_accept.c). */
struct kpx_linger {
	int fd;
	double until;			/* CLOCK_MONOTONIC, s */
};

struct kpx_http {
	struct kpx_metrics *metrics;
	struct kpx_store *store;
	/* The daemon every listener's connections go to (mhd_lock). */
	struct MHD_Daemon *mhd;
	pthread_mutex_t mhd_lock;
	bool mhd_tls;			/* it speaks TLS: a refusal cannot be a 503 */
	struct kpx_listener lst[KPX_LISTEN_MAX];
	unsigned int nlst;
	const char *telemetry_path;	/* NULL: /metrics */
	struct kpx_page page;		/* the / page; no assets: links only */
	struct kpx_catalogs *catalogs;	/* lang= and /catalogs; NULL: none */
	struct kpx_sites *sites;	/* /sites, /formats?never=1; NULL: none */
	struct kpx_problems *problems;	/* /problems; NULL: no catalog */
	/* The web config being served; NULL: open HTTP. */
	struct kpx_web *web;
	struct kpx_serving *serving;
	struct kpx_events events;
	/* The slow-client watchdog (kpx_http_conns.c). */
	pthread_mutex_t conn_lock;
	pthread_cond_t conn_cond;
	/* When the watchdog wakes next (CLOCK_MONOTONIC s; HUGE_VAL: when told). */
	double watch_until;
	struct kpx_conn *conns;
	unsigned int nconns;		/* admitted, not yet closed */
	struct kpx_peer peers[KPX_HTTP_CONNECTIONS];
	unsigned int npeers;
	unsigned int max_requests;	/* --web.max-requests; 0: the default */
	uint64_t refused[KPX_NR_REFUSED];
	bool watchdog, stopping;
	pthread_t watchdog_thread;
	/* The acceptor (kpx_accept.c): accepts, admits or refuses. */
	bool acceptor;
	pthread_t accept_thread;
	int accept_wake;		/* an eventfd that stops it */
	struct kpx_linger linger[KPX_LINGER_MAX];
	unsigned int nlinger;
};

#endif /* KPX_HTTP_H */
