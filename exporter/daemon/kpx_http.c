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
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "kpx.h"

#define KPX_HTTP_THREADS	4
#define KPX_HTTP_TIMEOUT_S	10	/* inactivity */
#define KPX_HTTP_REQUEST_S	10	/* a request, from idle to complete */
#define KPX_HTTP_RESPONSE_S	60	/* a response, from start to taken */
#define KPX_HTTP_MEMORY		(64 * 1024)
#define KPX_HTTP_STREAM_STALL_S	60	/* an /events client taking nothing */

#define KPX_CT_JSON	"application/json"
#define KPX_CT_TEXT	"text/plain; charset=utf-8"
/*
 * The page's own answers: its script only from its own files (no inline
 * script, no other origin), nothing sniffed, nothing framed.
 */
#define KPX_PAGE_CSP	"default-src 'self'; script-src 'self'; style-src 'self'; " \
			"img-src 'self' data:; connect-src 'self'; object-src 'none'; " \
			"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/* Queue body (taken over when must_free) with status and content type. */
static enum MHD_Result kpx_reply(struct MHD_Connection *c, unsigned int status,
				 const char *type, char *body, size_t len,
				 bool must_free)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, must_free ?
					    MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (must_free)
			free(body);
		fprintf(stderr, "kprint_exporter: out of memory for a response\n");
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	/* Every 503 is for a while: a limit, or kprint.ko away. */
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, KPX_HTTP_RETRY_AFTER);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result kpx_reply_const(struct MHD_Connection *c, unsigned int status,
				       const char *type, const char *body)
{
	return kpx_reply(c, status, type, (char *)body, strlen(body), false);
}

static char *kpx_error_json(const char *msg, const char *param)
{
	struct json_object *o = json_object_new_object();
	char *body = NULL;

	if (o) {
		json_object_object_add(o, "error", kpc_json_string(msg));
		if (param)
			json_object_object_add(o, "parameter", kpc_json_string(param));
		body = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	return body;
}

static enum MHD_Result kpx_reply_error(struct MHD_Connection *c, unsigned int status,
				       const char *msg, const char *param)
{
	char *body = kpx_error_json(msg, param);

	if (!body)
		return MHD_NO;
	return kpx_reply(c, status, KPX_CT_JSON, body, strlen(body), true);
}

/* 401 with the challenge; the body JSON like every other error. */
static enum MHD_Result kpx_reply_unauthorized(struct MHD_Connection *c)
{
	char *body = kpx_error_json("unauthorized: basic auth with a user of the web config", NULL);
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!body)
		return MHD_NO;
	r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, KPX_CT_JSON);
	ret = MHD_queue_basic_auth_fail_response(c, "kprint_exporter", r);
	MHD_destroy_response(r);
	return ret;
}

struct kpx_args {
	struct kpx_query q;
	char err[160];
	char param[64];
	int bad;
};

static enum MHD_Result kpx_arg(void *cls, enum MHD_ValueKind kind, const char *key,
			       size_t key_size, const char *value, size_t value_size)
{
	struct kpx_args *a = cls;
	char tmp[16];

	(void)kind;
	(void)key_size;
	if (a->bad)
		return MHD_NO;
	/* '+' reaches us as ' ' when not sent as %2B: level=err+ means err+. */
	if (value && !strcmp(key, "level") && value_size < sizeof(tmp) &&
	    strlen(value) == value_size && value_size && value[value_size - 1] == ' ') {
		memcpy(tmp, value, value_size + 1);
		tmp[value_size - 1] = '+';
		value = tmp;
	}
	if (kpx_query_param(&a->q, key, value, value_size, a->err, sizeof(a->err))) {
		snprintf(a->param, sizeof(a->param), "%s", key);
		a->bad = 1;
		return MHD_NO;
	}
	return MHD_YES;
}

/*
 * The query of /records or /events into a->q (for /events, Last-Event-ID
 * too, which wins over after=: a browser reconnects with the URL it
 * started with).  0, or -EINVAL with a->err and a->param for the client.
 */
static int kpx_args_parse(struct kpx_http *h, struct MHD_Connection *c,
			  struct kpx_args *a, bool events)
{
	const char *id;

	kpx_query_init(&a->q);
	a->q.events = events;
	a->q.catalogs = h->catalogs;	/* lang= names one of them */
	MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, kpx_arg, a);
	if (a->bad)
		return -EINVAL;
	id = events ? MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID") : NULL;
	if (id && *id && kpx_query_param(&a->q, "after", id, strlen(id), a->err, sizeof(a->err))) {
		snprintf(a->param, sizeof(a->param), "Last-Event-ID");
		return -EINVAL;
	}
	return 0;
}

static enum MHD_Result kpx_records(struct kpx_http *h, struct MHD_Connection *c)
{
	struct kpx_args *a = calloc(1, sizeof(*a));
	enum MHD_Result ret;
	char *body;

	if (!a)
		return MHD_NO;
	if (kpx_args_parse(h, c, a, false)) {
		ret = kpx_reply_error(c, MHD_HTTP_BAD_REQUEST, a->err, a->param);
		free(a);
		return ret;
	}
	/* The query's strings point into the connection: done before it goes. */
	body = kpx_records_json(h->store, &a->q);
	free(a);
	if (!body)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "out of memory", NULL);
	return kpx_reply(c, MHD_HTTP_OK, KPX_CT_JSON, body, strlen(body), true);
}

/*
 * A file of the page, or its palette.  Cache-Control: no-cache with an
 * ETag: a browser asks again each time (an upgraded exporter serves a new
 * page at once) and gets a 304 without a body when nothing changed.
 */
static enum MHD_Result kpx_reply_page(struct MHD_Connection *c, const char *type,
				      const char *body, size_t len, bool must_free,
				      const char *etag)
{
	const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_IF_NONE_MATCH);
	bool same = inm && (!strcmp(inm, etag) || !strcmp(inm, "*"));
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(same ? 0 : len, (void *)body,
					    must_free ? MHD_RESPMEM_MUST_FREE :
					    MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (must_free)
			free((void *)body);
		return MHD_NO;
	}
	if (!same)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(r, "Content-Security-Policy", KPX_PAGE_CSP);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	ret = MHD_queue_response(c, same ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

#define KPX_PAGE_COLORS	(KPRINT_LEVEL_MAX + 1)

/* The page's query: only what its script reads; color= kept for the palette. */
struct kpx_page_args {
	const char *colors[KPX_PAGE_COLORS];
	unsigned int ncolors;
	const char *bad;		/* a parameter not the page's, or one too many */
	bool palette;			/* /ui/palette.css: color= only */
};

static enum MHD_Result kpx_page_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				    const char *value)
{
	struct kpx_page_args *a = cls;

	(void)kind;
	if (a->palette ? strcmp(key, "color") : !kpx_page_param(key)) {
		a->bad = key;
		return MHD_NO;
	}
	if (!strcmp(key, "color")) {
		if (!value || a->ncolors == KPX_PAGE_COLORS) {
			a->bad = key;
			return MHD_NO;
		}
		a->colors[a->ncolors++] = value;
	}
	return MHD_YES;
}

static enum MHD_Result kpx_page_serve(struct kpx_http *h, struct MHD_Connection *c,
				      const char *url)
{
	struct kpx_page_args a = { .palette = !strcmp(url, KPX_PAGE_PALETTE) };
	const struct kpx_page_file *f;
	char err[160], etag[24];
	size_t len;
	char *css;
	int e;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, kpx_page_arg, &a);
	if (a.bad)
		return kpx_reply_error(c, MHD_HTTP_BAD_REQUEST, a.palette ?
				       "the palette takes color=LEVEL=SPEC, once per level" :
				       "the page takes level, source, subsystem, module, format_id,"
				       " text, color (LEVEL=SPEC, once per level) and lang", a.bad);
	/* The page's own colors are checked here too, so that a bad link says why. */
	css = kpx_page_palette(&h->page, a.colors, a.ncolors, err, sizeof(err), &e);
	if (!css)
		return e == -EINVAL ? kpx_reply_error(c, MHD_HTTP_BAD_REQUEST, err, "color") :
			kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
	if (a.palette) {
		len = strlen(css);
		kpx_page_etag(css, len, etag);
		return kpx_reply_page(c, "text/css; charset=utf-8", css, len, true, etag);
	}
	free(css);
	f = kpx_page_file(&h->page, url);
	if (!f)
		return kpx_reply_error(c, MHD_HTTP_NOT_FOUND, "no such path", NULL);
	return kpx_reply_page(c, f->type, f->data, f->len, false, f->etag);
}

static void kpx_conn_deadline(struct kpx_http *h, struct MHD_Connection *c,
			      double secs);

/* A stream (kpx_events.c), or why not. */
static enum MHD_Result kpx_events(struct kpx_serving *sv, struct MHD_Connection *c)
{
	struct kpx_http *h = sv->h;
	struct kpx_args *a = calloc(1, sizeof(*a));
	struct MHD_Response *r;
	enum MHD_Result ret;
	char msg[96];
	int err;

	if (!a)
		return MHD_NO;
	if (kpx_args_parse(h, c, a, true)) {
		ret = kpx_reply_error(c, MHD_HTTP_BAD_REQUEST, a->err, a->param);
		free(a);
		return ret;
	}
	err = kpx_events_open(&h->events, sv, c, &a->q, &r);
	free(a);
	if (err == -EBUSY) {
		snprintf(msg, sizeof(msg), "too many event streams: %u (--web.max-streams)",
			 h->events.max_streams);
		return kpx_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, msg, NULL);
	}
	if (err)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
	/* No end to wait for, and idle as long as no record comes: see the top. */
	kpx_conn_deadline(h, c, HUGE_VAL);
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
				  (unsigned int)KPX_HTTP_STREAM_STALL_S);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* Endpoints that take parameters would silently ignore them otherwise. */
static enum MHD_Result kpx_no_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				  const char *value)
{
	(void)kind;
	(void)value;
	*(const char **)cls = key;
	return MHD_NO;
}

/*
 * 200 while records flow in; 503 with the reason otherwise, so a probe
 * tells "exporter up, kprint.ko unloaded" from "all is well".
 */
static enum MHD_Result kpx_healthz(struct kpx_http *h, struct MHD_Connection *c)
{
	bool up, loaded;

	/* A replay is served whole from the start: nothing can fail later. */
	if (h->store->replay)
		return kpx_reply_const(c, MHD_HTTP_OK, KPX_CT_TEXT, "ok: a replay\n");
	pthread_mutex_lock(&h->store->lock);
	up = h->store->ingest_up;
	loaded = h->store->module_loaded;
	pthread_mutex_unlock(&h->store->lock);
	if (!up)
		return kpx_reply_const(c, MHD_HTTP_SERVICE_UNAVAILABLE, KPX_CT_TEXT,
				       "the subscription to kprint records failed\n");
	if (!loaded)
		return kpx_reply_const(c, MHD_HTTP_SERVICE_UNAVAILABLE, KPX_CT_TEXT,
				       "kprint.ko is not loaded\n");
	return kpx_reply_const(c, MHD_HTTP_OK, KPX_CT_TEXT, "ok\n");
}

/*
 * The slow-client watchdog: every connection has a deadline, for its
 * request to arrive and then for its response to be taken; past it, the
 * watchdog shuts the socket down and libmicrohttpd closes the connection
 * as it would any broken one.  shutdown(), not close(): the descriptor
 * stays libmicrohttpd's.  A connection leaves the list (under the lock)
 * before libmicrohttpd closes its descriptor, so the watchdog never
 * touches a number that was reused for another connection.
 */
static void kpx_conn_deadline(struct kpx_http *h, struct MHD_Connection *c,
			      double secs)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct kpx_conn *k = ci ? ci->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&h->conn_lock);
	k->deadline = kpx_mono() + secs;
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
static bool kpx_request_admit(struct kpx_http *h, struct MHD_Connection *c)
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

static void kpx_notify_connection(void *cls, struct MHD_Connection *c,
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
static void kpx_notify_completed(void *cls, struct MHD_Connection *c,
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

static void *kpx_watchdog(void *arg)
{
	struct kpx_http *h = arg;
	struct kpx_conn *k;
	struct timespec ts;
	double now;

	pthread_mutex_lock(&h->conn_lock);
	while (!h->stopping) {
		/* The streams' keepalives ride along: no thread of their own. */
		pthread_mutex_unlock(&h->conn_lock);
		kpx_events_tick(&h->events);
		pthread_mutex_lock(&h->conn_lock);
		now = kpx_mono();
		for (k = h->conns; k; k = k->next) {
			if (!k->cut && now >= k->deadline) {
				shutdown(k->fd, SHUT_RDWR);
				k->cut = true;
			}
		}
		/* Twice a second is plenty next to deadlines of 10 s. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 500000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&h->conn_cond, &h->conn_lock, &ts);
	}
	pthread_mutex_unlock(&h->conn_lock);
	return NULL;
}

/*
 * /metrics in the exposition the Accept header asks for, with Vary: Accept
 * on either, so that a cache between us and a scraper keeps them apart.
 */
static enum MHD_Result kpx_metrics_reply(struct kpx_http *h, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	enum kpx_expo_format format = kpx_metrics_negotiate(accept);
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len;
	char *body;

	body = kpx_metrics_render_as(h->metrics, format, &len);
	if (!body)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				kpx_metrics_content_type(format));
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* 503 past --web.max-requests. */
static enum MHD_Result kpx_reply_busy(struct kpx_http *h, struct MHD_Connection *c)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "too many requests in flight from this address: %u"
		 " (--web.max-requests)", h->max_requests ? h->max_requests :
		 KPX_REQUESTS_DEFAULT);
	return kpx_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, msg, NULL);
}

static int kpx_req_marker;

static const char *kpx_telemetry(const struct kpx_http *h)
{
	return h->telemetry_path ? h->telemetry_path : KPX_TELEMETRY_DEFAULT;
}

static enum MHD_Result kpx_handler(void *cls, struct MHD_Connection *c,
				   const char *url, const char *method,
				   const char *version, const char *upload_data,
				   size_t *upload_data_size, void **req_cls)
{
	struct kpx_serving *sv = cls;
	struct kpx_http *h = sv->h;
	const char *arg = NULL;
	int status;
	char *body;

	(void)version;
	(void)upload_data;

	/*
	 * Answer only once the whole request is in: libmicrohttpd 0.9.75
	 * mishandles a response queued while a body is still coming.  No
	 * endpoint takes a body, so whatever comes is read and dropped.
	 */
	if (!*req_cls) {
		*req_cls = &kpx_req_marker;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	kpx_conn_deadline(h, c, KPX_HTTP_RESPONSE_S);

	/* Every path, /healthz too, as exporter-toolkit guards them all. */
	if (sv->web) {
		switch (kpx_auth_request(sv->web, c)) {
		case KPX_AUTH_OK:
			break;
		case KPX_AUTH_DENIED:
			return kpx_reply_unauthorized(c);
		case KPX_AUTH_CLOSE:
			return MHD_NO;
		default:
			return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					       "out of memory", NULL);
		}
	}

	/* A stream is in flight for as long as it lasts: --web.max-streams. */
	if (strcmp(url, "/events") && !kpx_request_admit(h, c))
		return kpx_reply_busy(h, c);

	if (!strcmp(url, kpx_telemetry(h)))
		url = "/metrics";
	else if (!strcmp(url, "/metrics"))
		url = "";	/* moved by --web.telemetry-path */
	if (!kpx_page_path(url) && strcmp(url, "/metrics") && strcmp(url, "/records") &&
	    strcmp(url, "/formats") && strcmp(url, "/healthz") && strcmp(url, "/events") &&
	    strcmp(url, "/catalogs"))
		return kpx_reply_error(c, MHD_HTTP_NOT_FOUND, "no such path", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return kpx_reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				       "only GET and HEAD", NULL);
	if (!strcmp(url, "/records"))
		return kpx_records(h, c);
	if (!strcmp(url, "/events"))
		return kpx_events(sv, c);
	if (kpx_page_path(url))
		return kpx_page_serve(h, c, url);

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, kpx_no_arg, &arg);
	if (arg)
		return kpx_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "this path takes no parameters", arg);

	if (!strcmp(url, "/healthz"))
		return kpx_healthz(h, c);
	if (!strcmp(url, "/catalogs")) {
		body = kpx_catalogs_json(h->catalogs);
		if (!body)
			return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					       "out of memory", NULL);
		return kpx_reply(c, MHD_HTTP_OK, KPX_CT_JSON, body, strlen(body), true);
	}
	if (!strcmp(url, "/metrics"))
		return kpx_metrics_reply(h, c);
	/* /formats */
	body = kpx_formats_json(h->metrics, &status);
	if (!body)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "out of memory", NULL);
	return kpx_reply(c, status, KPX_CT_JSON, body, strlen(body), true);
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
		fprintf(stderr, "kprint_exporter: at most %d --web.listen-address\n",
			KPX_LISTEN_MAX);
		return -EINVAL;
	}
	if (kpx_parse_listen(where, &ss, &sslen)) {
		fprintf(stderr, "kprint_exporter: --web.listen-address wants ADDR:PORT or"
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
	fprintf(stderr, "kprint_exporter: cannot listen on %s: %s%s\n", where,
		strerror(errno), err == -EADDRNOTAVAIL ? " (not an address of this host)" : "");
	return err;
}

/* The connection bookkeeping every daemon of h shares. */
static void kpx_http_init_conns(struct kpx_http *h)
{
	pthread_condattr_t attr;

	h->conns = NULL;
	h->nconns = 0;
	h->npeers = 0;
	memset(h->refused, 0, sizeof(h->refused));
	h->stopping = false;
	h->acceptor = false;
	pthread_mutex_init(&h->conn_lock, NULL);
	pthread_mutex_init(&h->mhd_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&h->conn_cond, &attr);
	pthread_condattr_destroy(&attr);
}

static void kpx_http_fini_conns(struct kpx_http *h)
{
	pthread_cond_destroy(&h->conn_cond);
	pthread_mutex_destroy(&h->conn_lock);
	pthread_mutex_destroy(&h->mhd_lock);
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
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)kpx_notify_completed, h },
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
		fprintf(stderr, "kprint_exporter: cannot serve HTTP%s\n",
			h->web && h->web->tls ? "S" : "");
		err = -ENOMEM;
		goto err;
	}
	h->mhd_tls = h->web && h->web->tls;
	err = -pthread_create(&h->watchdog_thread, NULL, kpx_watchdog, h);
	if (err) {
		fprintf(stderr, "kprint_exporter: no watchdog thread: %s\n", strerror(-err));
		goto err_stop;
	}
	h->watchdog = true;
	err = kpx_accept_start(h);
	if (err) {
		fprintf(stderr, "kprint_exporter: no accept thread: %s\n", strerror(-err));
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
		fprintf(stderr, "kprint_exporter: cannot serve %s: keeping the old web config\n",
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
