/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Client certificates, basic auth and the TLS material's checks
 * (kpx_auth.c).
 */
#ifndef KPX_AUTH_H
#define KPX_AUTH_H

struct kpx_web;
struct MHD_Connection;

/* Load cert and key (and client CA) into GnuTLS as a check; FILE:LINE. */
int kpx_tls_check(const struct kpx_web *w, const char *path);
int kpx_auth_init(struct kpx_web *w);
void kpx_auth_fini(struct kpx_web *w);

enum kpx_auth_verdict {
	KPX_AUTH_OK,
	KPX_AUTH_DENIED,		/* 401 and WWW-Authenticate */
	KPX_AUTH_CLOSE,			/* client certificate refused: no answer */
	KPX_AUTH_ERROR,			/* out of memory: 500 */
};

/* May the request on c be served under w?  Thread-safe. */
enum kpx_auth_verdict kpx_auth_request(struct kpx_web *w, struct MHD_Connection *c);

#endif /* KPX_AUTH_H */
