// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP answers: a body with its status and type, the JSON errors
 * every endpoint gives, 401 with its challenge, and the page's files
 * with their ETag and security headers.
 */
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>

#include "kpc.h"
#include "kpx_http.h"
#include "kpx_http_reply.h"
#include "kpx_log.h"

/*
 * The page's own answers: its script only from its own files (no inline
 * script, no other origin), nothing sniffed, nothing framed.
 */
#define KPX_PAGE_CSP	"default-src 'self'; script-src 'self'; style-src 'self'; " \
			"img-src 'self' data:; connect-src 'self'; object-src 'none'; " \
			"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/* Queue body (taken over when must_free) with status and content type. */
enum MHD_Result kpx_reply(struct MHD_Connection *c, unsigned int status,
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
		kpx_log("out of memory for a response\n");
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

enum MHD_Result kpx_reply_const(struct MHD_Connection *c, unsigned int status,
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

enum MHD_Result kpx_reply_error(struct MHD_Connection *c, unsigned int status,
				       const char *msg, const char *param)
{
	char *body = kpx_error_json(msg, param);

	if (!body)
		return MHD_NO;
	return kpx_reply(c, status, KPX_CT_JSON, body, strlen(body), true);
}

/* 401 with the challenge; the body JSON like every other error. */
enum MHD_Result kpx_reply_unauthorized(struct MHD_Connection *c)
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

/*
 * A file of the page, or its palette.  Cache-Control: no-cache with an
 * ETag: a browser asks again each time (an upgraded exporter serves a new
 * page at once) and gets a 304 without a body when nothing changed.
 */
enum MHD_Result kpx_reply_page(struct MHD_Connection *c, const char *type,
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

