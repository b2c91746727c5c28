// SPDX-License-Identifier: GPL-2.0
/*
 * What a request must show before it is served, per the web config: a
 * client certificate as client_auth_type asks (Go's crypto/tls semantics),
 * then basic auth against bcrypt hashes.
 *
 * libmicrohttpd does the handshake and only asks for a certificate: it
 * verifies nothing.  So the policy is applied here, on the GnuTLS session,
 * before each request is routed; a connection that fails it is closed with
 * no response, which is what a client of Go's server sees when the
 * handshake fails (no page, no status).
 *
 * A bcrypt check costs tens of milliseconds by design, and Prometheus sends
 * the same credentials on every scrape: credentials once verified are
 * cached, keyed by SHA-256 of "user\0password".  A wrong password hashes to
 * another key, so it never hits the cache and always costs a bcrypt check;
 * an unknown user costs one too (against a dummy), so that the time taken
 * does not tell which users exist.
 */
#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#include "kpc.h"
#include "kpx_auth.h"
#include "kpx_log.h"
#include "kpx_webconfig.h"

#define KPX_CRED_CACHE	64	/* credentials remembered per web config */

struct kpx_cred {
	unsigned char key[32];		/* SHA-256 of user \0 password */
	bool used;
};

struct kpx_auth_cache {
	pthread_mutex_t lock;
	struct kpx_cred cred[KPX_CRED_CACHE];
	unsigned int next;		/* the slot the next one goes to */
};

static int kpx_tls_err(const char *path, unsigned int line, const char *what,
		       const char *why)
{
	kpx_log("%s:%u: %s: %s\n", path, line, what, why);
	return -EINVAL;
}

int kpx_tls_check(const struct kpx_web *w, const char *path)
{
	gnutls_datum_t cert = { (unsigned char *)w->cert_pem, strlen(w->cert_pem) };
	gnutls_datum_t key = { (unsigned char *)w->key_pem, strlen(w->key_pem) };
	gnutls_certificate_credentials_t cred;
	gnutls_x509_crt_t *crts;
	gnutls_priority_t prio;
	unsigned int ncrts;
	int ret, err = 0;

	/* The certificate alone first, so that its own errors name its line. */
	ret = gnutls_x509_crt_list_import2(&crts, &ncrts, &cert, GNUTLS_X509_FMT_PEM, 0);
	if (ret < 0)
		return kpx_tls_err(path, w->cert_at, "cert_file", gnutls_strerror(ret));
	for (unsigned int i = 0; i < ncrts; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);

	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return -ENOMEM;
	ret = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
	if (ret < 0) {
		err = kpx_tls_err(path, w->key_at, "key_file", gnutls_strerror(ret));
		goto out;
	}
	if (w->ca_pem) {
		gnutls_datum_t ca = { (unsigned char *)w->ca_pem, strlen(w->ca_pem) };

		ret = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (ret <= 0) {
			err = kpx_tls_err(path, w->ca_at, "client_ca_file", ret < 0 ?
					  gnutls_strerror(ret) : "no certificate in it");
			goto out;
		}
	}
	ret = gnutls_priority_init(&prio, w->priorities, NULL);
	if (ret < 0) {
		err = kpx_tls_err(path, 1, "min_version/max_version", gnutls_strerror(ret));
		goto out;
	}
	gnutls_priority_deinit(prio);
out:
	gnutls_certificate_free_credentials(cred);
	return err;
}

int kpx_auth_init(struct kpx_web *w)
{
	w->cache = calloc(1, sizeof(*w->cache));
	if (!w->cache)
		return -ENOMEM;
	pthread_mutex_init(&w->cache->lock, NULL);
	return 0;
}

void kpx_auth_fini(struct kpx_web *w)
{
	if (!w->cache)
		return;
	pthread_mutex_destroy(&w->cache->lock);
	free(w->cache);
	w->cache = NULL;
}

/* Compared in full whatever differs, as a password check should be. */
static bool kpx_same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la && i < lb; i++)
		d |= a[i] ^ b[i];
	return !d;
}

/* bcrypt of password under setting (a whole hash) equals hash. */
static int kpx_bcrypt_matches(const char *password, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	int match;

	if (!cd)
		return -ENOMEM;
	out = crypt_rn(password, hash, cd, sizeof(*cd));
	match = out && kpx_same(out, hash);
	free(cd);
	return match;
}

static bool kpx_cache_has(struct kpx_auth_cache *ac, const unsigned char *key)
{
	bool hit = false;

	pthread_mutex_lock(&ac->lock);
	for (unsigned int i = 0; i < KPX_CRED_CACHE && !hit; i++)
		hit = ac->cred[i].used && !memcmp(ac->cred[i].key, key, 32);
	pthread_mutex_unlock(&ac->lock);
	return hit;
}

static void kpx_cache_put(struct kpx_auth_cache *ac, const unsigned char *key)
{
	pthread_mutex_lock(&ac->lock);
	memcpy(ac->cred[ac->next].key, key, 32);
	ac->cred[ac->next].used = true;
	ac->next = (ac->next + 1) % KPX_CRED_CACHE;
	pthread_mutex_unlock(&ac->lock);
}

static enum kpx_auth_verdict kpx_basic_auth(struct kpx_web *w, struct MHD_Connection *c)
{
	enum kpx_auth_verdict v = KPX_AUTH_DENIED;
	const struct kpx_user *u = NULL;
	unsigned char key[32];
	char *user, *pass = NULL, *buf;
	size_t ul, pl;
	int m;

	user = MHD_basic_auth_get_username_password(c, &pass);
	if (!user || !pass)
		goto out;
	for (size_t i = 0; i < w->nusers && !u; i++)
		if (!strcmp(w->users[i].name, user))
			u = &w->users[i];
	if (!u) {
		/* As long as a real check: an unknown user and a known one look alike. */
		kpx_bcrypt_matches(pass, w->users[0].hash);
		goto out;
	}
	ul = strlen(user);
	pl = strlen(pass);
	buf = malloc(ul + 1 + pl);
	if (!buf) {
		v = KPX_AUTH_ERROR;
		goto out;
	}
	memcpy(buf, user, ul + 1);
	memcpy(buf + ul + 1, pass, pl);
	m = gnutls_hash_fast(GNUTLS_DIG_SHA256, buf, ul + 1 + pl, key);
	memset(buf, 0, ul + 1 + pl);
	free(buf);
	if (m < 0) {
		v = KPX_AUTH_ERROR;
		goto out;
	}
	if (kpx_cache_has(w->cache, key)) {
		v = KPX_AUTH_OK;
		goto out;
	}
	m = kpx_bcrypt_matches(pass, u->hash);
	if (m < 0) {
		v = KPX_AUTH_ERROR;
	} else if (m) {
		kpx_cache_put(w->cache, key);
		v = KPX_AUTH_OK;
	}
out:
	if (pass) {
		memset(pass, 0, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return v;
}

/* The client certificate against client_auth_type, as crypto/tls would. */
static bool kpx_client_cert_ok(const struct kpx_web *w, struct MHD_Connection *c)
{
	/* A certificate for client authentication, if it names its purpose. */
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
	};
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t s;
	unsigned int n = 0, status = 0;

	if (w->client_auth == KPX_CLIENT_NONE || w->client_auth == KPX_CLIENT_REQUEST)
		return true;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	s = ci->tls_session;
	if (!gnutls_certificate_get_peers(s, &n))
		n = 0;
	if (!n)
		return w->client_auth == KPX_CLIENT_VERIFY_IF_GIVEN;
	if (w->client_auth == KPX_CLIENT_REQUIRE_ANY)
		return true;
	/* Against client_ca_file, the only trust libmicrohttpd was given. */
	return gnutls_certificate_verify_peers(s, &purpose, 1, &status) == 0 && !status;
}

enum kpx_auth_verdict kpx_auth_request(struct kpx_web *w, struct MHD_Connection *c)
{
	if (w->tls && !kpx_client_cert_ok(w, c))
		return KPX_AUTH_CLOSE;
	if (w->nusers)
		return kpx_basic_auth(w, c);
	return KPX_AUTH_OK;
}
