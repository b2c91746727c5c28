/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web.config.file, exporter-toolkit's YAML (kpx_webconfig.c).
 */
#ifndef KPX_WEBCONFIG_H
#define KPX_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* client_auth_type, in exporter-toolkit's (and crypto/tls') order. */
enum kpx_client_auth {
	KPX_CLIENT_NONE,		/* NoClientCert */
	KPX_CLIENT_REQUEST,		/* RequestClientCert: asked, not checked */
	KPX_CLIENT_REQUIRE_ANY,		/* RequireAnyClientCert: any, unverified */
	KPX_CLIENT_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	KPX_CLIENT_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
	KPX_NR_CLIENT_AUTH
};

struct kpx_user {
	char *name;
	char *hash;			/* bcrypt: $2a$, $2b$ or $2y$ */
};

struct kpx_auth_cache;

/* A parsed --web.config.file; replaced whole on SIGHUP, never changed. */
struct kpx_web {
	char *path;
	bool tls;			/* tls_server_config with cert and key */
	char *cert_pem, *key_pem;	/* as read, NUL-terminated */
	char *ca_pem;			/* client_ca_file, or NULL */
	unsigned int cert_at, key_at, ca_at;	/* their lines, for errors */
	enum kpx_client_auth client_auth;
	char priorities[96];		/* GnuTLS': min_version..max_version */
	struct kpx_user *users;		/* basic_auth_users; none: no auth */
	size_t nusers;
	struct kpx_auth_cache *cache;	/* verified credentials (kpx_auth.c) */
};

/*
 * Read and check a web config: 0 with *out, or -EINVAL after saying
 * "FILE:LINE: reason" on stderr (-ENOMEM: out of memory, said too).
 */
int kpx_webconfig_load(const char *path, struct kpx_web **out);
void kpx_webconfig_free(struct kpx_web *w);
const char *kpx_client_auth_name(enum kpx_client_auth a);

#endif /* KPX_WEBCONFIG_H */
