/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connections libmicrohttpd serves: their deadlines, kept by the
 * slow-client watchdog, and the requests in flight per client address
 * (kpx_http_conns.c).
 */
#ifndef KPX_HTTP_CONNS_H
#define KPX_HTTP_CONNS_H

#include <stdbool.h>
#include <microhttpd.h>

#define KPX_HTTP_TIMEOUT_S	10	/* libmicrohttpd's: a connection inactive */
#define KPX_HTTP_REQUEST_S	10	/* a request, from idle to complete */
#define KPX_HTTP_RESPONSE_S	60	/* a response, from start to taken */
#define KPX_HTTP_STREAM_STALL_S	60	/* an /events client taking nothing */

struct kpx_http;

/* The connection bookkeeping every daemon of h shares. */
void kpx_http_init_conns(struct kpx_http *h);
void kpx_http_fini_conns(struct kpx_http *h);
/* c is cut secs from now unless a new deadline comes first. */
void kpx_conn_deadline(struct kpx_http *h, struct MHD_Connection *c, double secs);
/*
 * Count c's request in its address's requests in flight until its answer
 * is sent; false past --web.max-requests.
 */
bool kpx_request_admit(struct kpx_http *h, struct MHD_Connection *c);
/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION and _COMPLETED, cls h. */
void kpx_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			   enum MHD_ConnectionNotificationCode toe);
void kpx_notify_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			  enum MHD_RequestTerminationCode toe);
/* The watchdog thread's body, arg h: until h->stopping. */
void *kpx_watchdog(void *arg);

#endif /* KPX_HTTP_CONNS_H */
