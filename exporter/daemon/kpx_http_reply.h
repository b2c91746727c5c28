/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP answers every endpoint gives (kpx_http_reply.c).
 */
#ifndef KPX_HTTP_REPLY_H
#define KPX_HTTP_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <microhttpd.h>

#define KPX_CT_JSON	"application/json"
#define KPX_CT_TEXT	"text/plain; charset=utf-8"

/* Queue body (taken over when must_free) with status and content type. */
enum MHD_Result kpx_reply(struct MHD_Connection *c, unsigned int status,
			  const char *type, char *body, size_t len, bool must_free);
enum MHD_Result kpx_reply_const(struct MHD_Connection *c, unsigned int status,
				const char *type, const char *body);
/* {"error":msg,"parameter":param} (param may be NULL) with status. */
enum MHD_Result kpx_reply_error(struct MHD_Connection *c, unsigned int status,
				const char *msg, const char *param);
/* 401 with the challenge; the body JSON like every other error. */
enum MHD_Result kpx_reply_unauthorized(struct MHD_Connection *c);
/* A file of the page (or its palette), 304 when the client has etag. */
enum MHD_Result kpx_reply_page(struct MHD_Connection *c, const char *type,
			       const char *body, size_t len, bool must_free,
			       const char *etag);

#endif /* KPX_HTTP_REPLY_H */
