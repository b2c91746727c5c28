/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request handler libmicrohttpd calls, with a struct kpx_serving as
 * its cls (kpx_http_routes.c).
 */
#ifndef KPX_HTTP_ROUTES_H
#define KPX_HTTP_ROUTES_H

#include <stddef.h>
#include <microhttpd.h>

struct kpx_http;

enum MHD_Result kpx_handler(void *cls, struct MHD_Connection *c, const char *url,
			    const char *method, const char *version, const char *upload_data,
			    size_t *upload_data_size, void **req_cls);
/*
 * A request completed (libmicrohttpd's MHD_OPTION_NOTIFY_COMPLETED): what
 * its handler kept in req_cls goes (a held /records answer's state).
 */
void kpx_request_done(void *req_cls);
/* Where the metrics are: --web.telemetry-path, else /metrics. */
const char *kpx_telemetry(const struct kpx_http *h);

#endif /* KPX_HTTP_ROUTES_H */
