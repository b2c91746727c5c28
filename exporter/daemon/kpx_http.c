// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP side, on libmicrohttpd with an internal thread pool.  Limits
 * are explicit, since a loopback exporter still faces every local user:
 *
 *	64 connections in all, 16 from one address (all of loopback is one
 *	address: a local client cannot take every slot from Prometheus);
 *	64 KiB of memory per connection, which bounds the request line and
 *	headers (past it: 414 for the URI, 431 for headers);
 *	10 s of inactivity closes a connection: without a timeout, clients
 *	that send half a request and go idle hold their connections for ever
 *	and starve new ones (measured with libmicrohttpd 0.9.75);
 *	10 s for a whole request to arrive and 60 s for a response to be
 *	taken, enforced by a watchdog: libmicrohttpd's timeout restarts with
 *	every byte, so a client trickling a byte a second would never hit it.
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

#include "kpx.h"

#define KPX_HTTP_THREADS	4
#define KPX_HTTP_TIMEOUT_S	10	/* inactivity */
#define KPX_HTTP_REQUEST_S	10	/* a request, from idle to complete */
#define KPX_HTTP_RESPONSE_S	60	/* a response, from start to taken */
#define KPX_HTTP_CONNECTIONS	64
#define KPX_HTTP_PER_IP		16
#define KPX_HTTP_MEMORY		(64 * 1024)

#define KPX_CT_METRICS	"text/plain; version=0.0.4; charset=utf-8"
#define KPX_CT_JSON	"application/json"
#define KPX_CT_TEXT	"text/plain; charset=utf-8"
#define KPX_CT_HTML	"text/html; charset=utf-8"

static const char kpx_index[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	"<title>kprint exporter</title></head><body>\n"
	"<h1>kprint exporter " KPRINT_VERSION "</h1>\n<ul>\n"
	"<li><a href=\"/metrics\">/metrics</a>: Prometheus metrics</li>\n"
	"<li><a href=\"/records\">/records</a>: recent records as JSON "
	"(level, class, source, subsystem, device, module, format_id, q, after, limit)</li>\n"
	"<li><a href=\"/formats\">/formats</a>: messages per format (BPF) as JSON</li>\n"
	"<li><a href=\"/healthz\">/healthz</a></li>\n</ul>\n</body></html>\n";

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
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result kpx_reply_const(struct MHD_Connection *c, unsigned int status,
				       const char *type, const char *body)
{
	return kpx_reply(c, status, type, (char *)body, strlen(body), false);
}

static enum MHD_Result kpx_reply_error(struct MHD_Connection *c, unsigned int status,
				       const char *msg, const char *param)
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
	if (!body)
		return MHD_NO;
	return kpx_reply(c, status, KPX_CT_JSON, body, strlen(body), true);
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

static enum MHD_Result kpx_records(struct kpx_http *h, struct MHD_Connection *c)
{
	struct kpx_args *a = calloc(1, sizeof(*a));
	enum MHD_Result ret;
	char *body;

	if (!a)
		return MHD_NO;
	kpx_query_init(&a->q);
	MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, kpx_arg, a);
	if (a->bad) {
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
struct kpx_conn {
	struct kpx_conn *prev, *next;
	int fd;
	double deadline;		/* CLOCK_MONOTONIC, s */
	bool cut;
};

static double kpx_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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

static void kpx_notify_connection(void *cls, struct MHD_Connection *c,
				  void **socket_context,
				  enum MHD_ConnectionNotificationCode toe)
{
	struct kpx_http *h = cls;
	struct kpx_conn *k = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = ci ? calloc(1, sizeof(*k)) : NULL;
		/* Unwatched, it still has the inactivity timeout. */
		if (!k)
			return;
		k->fd = ci->connect_fd;
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
	if (h->nconns)
		h->nconns--;
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

/*
 * The limit of KPX_HTTP_CONNECTIONS for the whole exporter.  libmicrohttpd
 * splits its own connection limit evenly among the pool's threads, and
 * whichever thread wins an accept keeps the connection: with that alone a
 * client was refused while one thread was full and the others idle (a
 * second address turned away behind 16 keep-alive connections of the
 * first).  So each thread may hold all of them, and this callback, which
 * libmicrohttpd calls after its per-address limit and before the
 * connection starts, admits at most KPX_HTTP_CONNECTIONS in all; the
 * CLOSED notification gives the place back.
 */
static enum MHD_Result kpx_accept_policy(void *cls, const struct sockaddr *addr,
					 socklen_t addrlen)
{
	struct kpx_http *h = cls;
	enum MHD_Result admit = MHD_NO;

	(void)addr;
	(void)addrlen;
	pthread_mutex_lock(&h->conn_lock);
	if (h->nconns < KPX_HTTP_CONNECTIONS) {
		h->nconns++;
		admit = MHD_YES;
	}
	pthread_mutex_unlock(&h->conn_lock);
	return admit;
}

/* A response went out: the next request on the connection gets its time. */
static void kpx_notify_completed(void *cls, struct MHD_Connection *c,
				 void **req_cls, enum MHD_RequestTerminationCode toe)
{
	(void)req_cls;
	(void)toe;
	kpx_conn_deadline(cls, c, KPX_HTTP_REQUEST_S);
}

static void *kpx_watchdog(void *arg)
{
	struct kpx_http *h = arg;
	struct kpx_conn *k;
	struct timespec ts;
	double now;

	pthread_mutex_lock(&h->conn_lock);
	while (!h->stopping) {
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

static int kpx_req_marker;

static enum MHD_Result kpx_handler(void *cls, struct MHD_Connection *c,
				   const char *url, const char *method,
				   const char *version, const char *upload_data,
				   size_t *upload_data_size, void **req_cls)
{
	struct kpx_http *h = cls;
	const char *arg = NULL;
	int status;
	size_t len;
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

	if (strcmp(url, "/") && strcmp(url, "/metrics") && strcmp(url, "/records") &&
	    strcmp(url, "/formats") && strcmp(url, "/healthz"))
		return kpx_reply_error(c, MHD_HTTP_NOT_FOUND, "no such path", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return kpx_reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				       "only GET and HEAD", NULL);
	if (!strcmp(url, "/records"))
		return kpx_records(h, c);

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, kpx_no_arg, &arg);
	if (arg)
		return kpx_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "this path takes no parameters", arg);

	if (!strcmp(url, "/"))
		return kpx_reply_const(c, MHD_HTTP_OK, KPX_CT_HTML, kpx_index);
	if (!strcmp(url, "/healthz"))
		return kpx_healthz(h, c);
	if (!strcmp(url, "/metrics")) {
		body = kpx_metrics_render(h->metrics, &len);
		if (!body)
			return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					       "out of memory", NULL);
		return kpx_reply(c, MHD_HTTP_OK, KPX_CT_METRICS, body, len, true);
	}
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
	struct sockaddr_storage ss;
	socklen_t sslen;
	char host[INET6_ADDRSTRLEN];
	int fd, one = 1, err;
	uint16_t port;

	h->fd = -1;
	if (kpx_parse_listen(where, &ss, &sslen)) {
		fprintf(stderr, "kprint_exporter: --listen wants ADDR:PORT or [ADDR6]:PORT"
			" with a numeric address, not '%s'\n", where);
		return -EINVAL;
	}
	/* Non-blocking: the pool's threads all wait on it, one wins each accept. */
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
		snprintf(h->addr, sizeof(h->addr), "[%s]:%u", host, port);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		port = ntohs(sin->sin_port);
		snprintf(h->addr, sizeof(h->addr), "%s:%u", host, port);
	}
	h->fd = fd;
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

/* The options both kinds of daemon share, then up to two more and the end. */
static struct MHD_Daemon *kpx_http_daemon(struct kpx_http *h, unsigned int flags,
					  const struct MHD_OptionItem *more)
{
	struct MHD_OptionItem opts[] = {
		/* The logger first, so that option errors already go through it. */
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)kpx_http_log, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, KPX_HTTP_TIMEOUT_S, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, KPX_HTTP_CONNECTIONS * KPX_HTTP_THREADS, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, KPX_HTTP_PER_IP, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, KPX_HTTP_MEMORY, NULL },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)kpx_notify_connection, h },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)kpx_notify_completed, h },
		more[0], more[1],
		{ MHD_OPTION_END, 0, NULL },
	};

	h->conns = NULL;
	h->nconns = 0;
	h->stopping = false;
	pthread_mutex_init(&h->conn_lock, NULL);
	return MHD_start_daemon(flags, 0, kpx_accept_policy, h, kpx_handler, h,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

static void kpx_http_init_cond(struct kpx_http *h)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&h->conn_cond, &attr);
	pthread_condattr_destroy(&attr);
}

int kpx_http_start(struct kpx_http *h)
{
	const struct MHD_OptionItem more[] = {
		{ MHD_OPTION_LISTEN_SOCKET, h->fd, NULL },
		{ MHD_OPTION_THREAD_POOL_SIZE, KPX_HTTP_THREADS, NULL },
	};
	int err;

	kpx_http_init_cond(h);
	h->mhd = kpx_http_daemon(h, MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, more);
	if (!h->mhd) {
		fprintf(stderr, "kprint_exporter: cannot serve HTTP on %s\n", h->addr);
		err = -ENOMEM;
		goto err;
	}
	/* From here on the listening socket is libmicrohttpd's to close. */
	h->fd = -1;
	err = -pthread_create(&h->watchdog_thread, NULL, kpx_watchdog, h);
	if (err) {
		fprintf(stderr, "kprint_exporter: no watchdog thread: %s\n", strerror(-err));
		goto err_stop;
	}
	h->watchdog = true;
	return 0;

err_stop:
	MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
err:
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	pthread_cond_destroy(&h->conn_cond);
	pthread_mutex_destroy(&h->conn_lock);
	return err;
}

int kpx_http_start_nolisten(struct kpx_http *h)
{
	const struct MHD_OptionItem more[] = {
		{ MHD_OPTION_END, 0, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

	h->fd = -1;
	kpx_http_init_cond(h);
	h->mhd = kpx_http_daemon(h, MHD_USE_NO_LISTEN_SOCKET, more);
	if (!h->mhd) {
		pthread_cond_destroy(&h->conn_cond);
		pthread_mutex_destroy(&h->conn_lock);
		return -ENOMEM;
	}
	return 0;
}

void kpx_http_stop(struct kpx_http *h)
{
	if (!h->mhd) {
		if (h->fd >= 0)
			close(h->fd);
		h->fd = -1;
		return;
	}
	MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
	if (h->watchdog) {
		pthread_mutex_lock(&h->conn_lock);
		h->stopping = true;
		pthread_cond_signal(&h->conn_cond);
		pthread_mutex_unlock(&h->conn_lock);
		pthread_join(h->watchdog_thread, NULL);
		h->watchdog = false;
	}
	pthread_cond_destroy(&h->conn_cond);
	pthread_mutex_destroy(&h->conn_lock);
}
