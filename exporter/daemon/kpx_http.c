// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP side, on libmicrohttpd with an internal thread pool.  Limits
 * are explicit: without a connection timeout, clients that send half a
 * request and go idle hold their connections for ever and starve new
 * ones (measured with libmicrohttpd 0.9.75).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "kpx.h"

#define KPX_HTTP_THREADS	4
#define KPX_HTTP_TIMEOUT_S	10
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
	"(level, class, subsystem, module, format_id, q, after, limit)</li>\n"
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
	(void)upload_data_size;
	(void)req_cls;

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

int kpx_http_start(struct kpx_http *h, const char *listen)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	uint16_t port;

	if (kpx_parse_listen(listen, &ss, &sslen)) {
		fprintf(stderr, "kprint_exporter: --listen wants ADDR:PORT or [ADDR6]:PORT"
			" with a numeric address, not '%s'\n", listen);
		return -EINVAL;
	}
	if (ss.ss_family == AF_INET6) {
		flags |= MHD_USE_IPv6;
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	/* The logger first, so that option errors already go through it. */
	h->mhd = MHD_start_daemon(flags, port, NULL, NULL, kpx_handler, h,
				  MHD_OPTION_EXTERNAL_LOGGER, kpx_http_log, NULL,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)KPX_HTTP_THREADS,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)KPX_HTTP_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)KPX_HTTP_CONNECTIONS,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)KPX_HTTP_PER_IP,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)KPX_HTTP_MEMORY,
				  MHD_OPTION_END);
	if (!h->mhd) {
		fprintf(stderr, "kprint_exporter: cannot listen on %s (in use, or not"
			" an address of this host?)\n", listen);
		return -EADDRNOTAVAIL;
	}
	return 0;
}

void kpx_http_stop(struct kpx_http *h)
{
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	h->mhd = NULL;
}
