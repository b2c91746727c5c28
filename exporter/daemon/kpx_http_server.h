/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP side's life: listening sockets, the libmicrohttpd daemons that
 * serve them, a new web config on SIGHUP, and the stop
 * (kpx_http_server.c).
 */
#ifndef KPX_HTTP_SERVER_H
#define KPX_HTTP_SERVER_H

struct kpx_http;
struct kpx_web;

/*
 * Add a listening socket for "ADDR:PORT" or "[ADDR6]:PORT" (numeric; port
 * 0 picks a free one, h->lst[].addr says which).  Separate from starting,
 * so that it happens before privileges are dropped.
 */
int kpx_http_listen(struct kpx_http *h, const char *listen);
/* Serve every listener under h->web with libmicrohttpd's threads. */
int kpx_http_start(struct kpx_http *h);
/*
 * Serve under web from now on, on the same sockets: new daemons take them
 * over before the old ones let go, so no connection attempt is refused.
 * 0: web is h's, and *was the old config, no longer used, for the caller
 * to free; else nothing changed.
 */
int kpx_http_reload(struct kpx_http *h, struct kpx_web *web, struct kpx_web **was);
/*
 * The same handler and limits with no listening socket and no threads, for
 * the fuzzer: connections come from MHD_add_connection() and are driven
 * by MHD_run() in the caller's thread.
 */
int kpx_http_start_nolisten(struct kpx_http *h);
void kpx_http_stop(struct kpx_http *h);

#endif /* KPX_HTTP_SERVER_H */
