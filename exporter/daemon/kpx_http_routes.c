// SPDX-License-Identifier: GPL-2.0
/*
 * The request handler: a request is authenticated (every path, as
 * exporter-toolkit guards them all), counted in flight, then routed to
 * its endpoint: /metrics, /records, /formats, /events, /catalogs,
 * /sites, /problems, /healthz and the page.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "kpc.h"
#include "kpx_auth.h"
#include "kpx_catalogs.h"
#include "kpx_events.h"
#include "kpx_http.h"
#include "kpx_http_conns.h"
#include "kpx_http_reply.h"
#include "kpx_http_routes.h"
#include "kpx_metrics.h"
#include "kpx_page.h"
#include "kpx_problems.h"
#include "kpx_query.h"
#include "kpx_sites.h"
#include "kpx_sites_query.h"
#include "kpx_store.h"

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
	if (a->bad || kpx_query_check(&a->q, a->err, sizeof(a->err), a->param, sizeof(a->param)))
		return -EINVAL;
	id = events ? MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID") : NULL;
	if (id && *id && kpx_query_param(&a->q, "after", id, strlen(id), a->err, sizeof(a->err))) {
		snprintf(a->param, sizeof(a->param), "Last-Event-ID");
		return -EINVAL;
	}
	return 0;
}

/*
 * A held /records request (wait=), first or resumed: its answer once it
 * is due, as every /records answer is sent; until then nothing, the
 * connection suspended (kpx_events_answer()).
 */
static enum MHD_Result kpx_records_held(struct kpx_serving *sv, struct MHD_Connection *c,
					struct kpx_stream *st)
{
	struct kpx_http *h = sv->h;
	char *body;
	int ret;

	ret = kpx_events_answer(&h->events, st, &body);
	if (!ret)
		return MHD_YES;
	kpx_conn_deadline(h, c, KPX_HTTP_RESPONSE_S);
	if (ret < 0)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
	return kpx_reply(c, MHD_HTTP_OK, KPX_CT_JSON, body, strlen(body), true);
}

/* req_cls: the request's, which a held request's answer takes over. */
static enum MHD_Result kpx_records(struct kpx_serving *sv, struct MHD_Connection *c,
				   const char *method, void **req_cls)
{
	struct kpx_http *h = sv->h;
	struct kpx_args *a = calloc(1, sizeof(*a));
	struct kpx_records_scan scan;
	struct kpx_stream *st;
	enum MHD_Result ret;
	char *body;
	int err;

	if (!a)
		return MHD_NO;
	if (kpx_args_parse(h, c, a, false)) {
		ret = kpx_reply_error(c, MHD_HTTP_BAD_REQUEST, a->err, a->param);
		free(a);
		return ret;
	}
	/* The query's strings point into the connection: done before it goes. */
	body = kpx_records_json(h->store, &a->q, &scan);
	/* HEAD has no body to wait for. */
	if (body && !scan.n && a->q.wait_s && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		free(body);
		err = kpx_events_hold(&h->events, sv, c, &a->q, &st);
		free(a);
		if (err)
			return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					       "out of memory", NULL);
		/* Let go when the request completes: kpx_request_done(). */
		*req_cls = st;
		/*
		 * Held, it ends by itself on the watchdog's tick, which an
		 * endless deadline starts, as for a stream.
		 */
		kpx_conn_deadline(h, c, HUGE_VAL);
		return kpx_records_held(sv, c, st);
	}
	free(a);
	if (!body)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "out of memory", NULL);
	return kpx_reply(c, MHD_HTTP_OK, KPX_CT_JSON, body, strlen(body), true);
}

/* The query of /sites, or of /formats?never=1. */
struct kpx_sites_args {
	struct kpx_sites_query q;
	char err[160];
	char param[64];
	bool bad;
};

static enum MHD_Result kpx_sites_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				     size_t key_size, const char *value, size_t value_size)
{
	struct kpx_sites_args *a = cls;

	(void)kind;
	(void)key_size;
	if (kpx_sites_query_param(&a->q, key, value, value_size, a->err, sizeof(a->err))) {
		snprintf(a->param, sizeof(a->param), "%s", key);
		a->bad = true;
		return MHD_NO;
	}
	return MHD_YES;
}

/* The catalog's entries (kpx_sites_query.c), or 404 saying how to build one. */
static enum MHD_Result kpx_sites_reply(struct kpx_http *h, struct MHD_Connection *c,
				       bool formats)
{
	struct kpx_sites_args a = { .bad = false };
	struct kpx_sites_cat *cat;
	struct kpx_seen seen;
	char *body = NULL;
	char why[1536];

	kpx_sites_query_init(&a.q, formats);
	MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, kpx_sites_arg, &a);
	if (!a.bad && kpx_sites_query_check(&a.q, a.err, sizeof(a.err))) {
		snprintf(a.param, sizeof(a.param), "never");
		a.bad = true;
	}
	if (a.bad)
		return kpx_reply_error(c, MHD_HTTP_BAD_REQUEST, a.err, a.param);
	kpx_sites_refresh(h->sites);
	cat = kpx_sites_get(h->sites, why, sizeof(why));
	if (!cat)
		return kpx_reply_error(c, MHD_HTTP_NOT_FOUND, why, NULL);
	if (!kpx_seen_collect(h->metrics, &seen)) {
		body = kpx_sites_json(&cat->s, h->sites->path, &seen, &a.q);
		free(seen.v);
	}
	kpx_sites_cat_put(cat);
	if (!body)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
	return kpx_reply(c, MHD_HTTP_OK, KPX_CT_JSON, body, strlen(body), true);
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

/* The query of /problems: seen=0 or 1, nothing else. */
struct kpx_problems_args {
	bool seen;
	const char *bad;		/* the parameter refused */
	const char *why;
};

static enum MHD_Result kpx_problems_arg(void *cls, enum MHD_ValueKind kind, const char *key,
					const char *value)
{
	struct kpx_problems_args *a = cls;

	(void)kind;
	if (strcmp(key, "seen")) {
		a->why = "/problems takes seen=1 (only the problems seen) or seen=0";
	} else if (value && (!strcmp(value, "1") || !strcmp(value, "0"))) {
		a->seen = value[0] == '1';
		return MHD_YES;
	} else {
		a->why = "seen is 1 (only the problems seen) or 0";
	}
	a->bad = key;
	return MHD_NO;
}

/* Every problem of the catalog (or those seen), their counts and latest hits. */
static enum MHD_Result kpx_problems_reply(struct kpx_http *h, struct MHD_Connection *c)
{
	struct kpx_problems_args a = { .seen = false };
	char *body;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, kpx_problems_arg, &a);
	if (a.bad)
		return kpx_reply_error(c, MHD_HTTP_BAD_REQUEST, a.why, a.bad);
	body = kpx_problems_json(h->problems, a.seen);
	if (!body)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
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

const char *kpx_telemetry(const struct kpx_http *h)
{
	return h->telemetry_path ? h->telemetry_path : KPX_TELEMETRY_DEFAULT;
}

/* Every path, /healthz too, as exporter-toolkit guards them all. */
static enum MHD_Result kpx_authenticate(struct kpx_serving *sv, struct MHD_Connection *c,
					bool *served)
{
	*served = true;
	switch (sv->web ? kpx_auth_request(sv->web, c) : KPX_AUTH_OK) {
	case KPX_AUTH_OK:
		*served = false;
		return MHD_YES;
	case KPX_AUTH_DENIED:
		return kpx_reply_unauthorized(c);
	case KPX_AUTH_CLOSE:
		return MHD_NO;
	default:
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
	}
}

/* The endpoints that take no parameters, url one of them. */
static enum MHD_Result kpx_route_plain(struct kpx_http *h, struct MHD_Connection *c,
				       const char *url)
{
	const char *arg = NULL;
	int status = MHD_HTTP_OK;
	char *body;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, kpx_no_arg, &arg);
	if (arg)
		return kpx_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "this path takes no parameters", arg);
	if (!strcmp(url, "/healthz"))
		return kpx_healthz(h, c);
	if (!strcmp(url, "/metrics"))
		return kpx_metrics_reply(h, c);
	if (!strcmp(url, "/catalogs"))
		body = kpx_catalogs_json(h->catalogs);
	else	/* /formats */
		body = kpx_formats_json(h->metrics, &status);
	if (!body)
		return kpx_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "out of memory", NULL);
	return kpx_reply(c, status, KPX_CT_JSON, body, strlen(body), true);
}

/* A whole request, authenticated and admitted: to its endpoint. */
static enum MHD_Result kpx_route(struct kpx_serving *sv, struct MHD_Connection *c,
				 const char *url, const char *method, void **req_cls)
{
	struct kpx_http *h = sv->h;

	if (!strcmp(url, kpx_telemetry(h)))
		url = "/metrics";
	else if (!strcmp(url, "/metrics"))
		url = "";	/* moved by --web.telemetry-path */
	if (!kpx_page_path(url) && strcmp(url, "/metrics") && strcmp(url, "/records") &&
	    strcmp(url, "/formats") && strcmp(url, "/healthz") && strcmp(url, "/events") &&
	    strcmp(url, "/catalogs") && strcmp(url, "/sites") && strcmp(url, "/problems"))
		return kpx_reply_error(c, MHD_HTTP_NOT_FOUND, "no such path", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return kpx_reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				       "only GET and HEAD", NULL);
	if (!strcmp(url, "/records"))
		return kpx_records(sv, c, method, req_cls);
	if (!strcmp(url, "/events"))
		return kpx_events(sv, c);
	if (!strcmp(url, "/problems"))
		return kpx_problems_reply(h, c);
	/* /formats with a query is the catalog's formats never seen. */
	if (!strcmp(url, "/sites") || (!strcmp(url, "/formats") &&
	    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) > 0))
		return kpx_sites_reply(h, c, strcmp(url, "/sites"));
	if (kpx_page_path(url))
		return kpx_page_serve(h, c, url);
	return kpx_route_plain(h, c, url);
}

enum MHD_Result kpx_handler(void *cls, struct MHD_Connection *c,
			    const char *url, const char *method,
			    const char *version, const char *upload_data,
			    size_t *upload_data_size, void **req_cls)
{
	struct kpx_serving *sv = cls;
	struct kpx_http *h = sv->h;
	enum MHD_Result ret;
	bool served;

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
	/* A held /records request, resumed: authenticated and admitted already. */
	if (*req_cls != &kpx_req_marker)
		return kpx_records_held(sv, c, *req_cls);
	kpx_conn_deadline(h, c, KPX_HTTP_RESPONSE_S);
	ret = kpx_authenticate(sv, c, &served);
	if (served)
		return ret;
	/* A stream is in flight for as long as it lasts: --web.max-streams. */
	if (strcmp(url, "/events") && !kpx_request_admit(h, c))
		return kpx_reply_busy(h, c);
	return kpx_route(sv, c, url, method, req_cls);
}

void kpx_request_done(void *req_cls)
{
	if (req_cls && req_cls != &kpx_req_marker)
		kpx_events_answered(req_cls);
}
