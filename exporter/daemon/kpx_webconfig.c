// SPDX-License-Identifier: GPL-2.0
/*
 * --web.config.file: exporter-toolkit's web configuration (YAML), so that
 * one file serves node_exporter and kprint_exporter alike.  Parsed with
 * libyaml into a node tree, whose marks give every error its line.
 *
 * Whatever the file says is either done or refused: a key exporter-toolkit
 * knows and we do not implement is an error, never ignored, because a
 * security setting silently dropped (client_allowed_sans, say) would look
 * in force and not be.  The certificate, key and client CA are read here
 * and loaded into GnuTLS as a check (kpx_tls_check()), so that a bad one
 * fails at start or at SIGHUP, not at the first handshake.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kpx_auth.h"
#include "kpx_log.h"
#include "kpx_webconfig.h"

#define KPX_PEM_MAX	(1 << 20)	/* a certificate chain, a key: far less */

struct kpx_wc {
	const char *path;
	yaml_document_t *doc;
	struct kpx_web *w;
};

/* "FILE:LINE: reason" (LINE of node n, 1-based), always -EINVAL. */
static int kpx_wc_err(struct kpx_wc *p, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	kpx_log("%s:%zu: ", p->path,
		n ? n->start_mark.line + 1 : 1);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

static bool kpx_wc_is_str(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE;
}

/* A scalar as a C string; NUL inside (a "\0" escape) makes it no string. */
static int kpx_wc_str(struct kpx_wc *p, const yaml_node_t *k, const yaml_node_t *v,
		      char **out)
{
	if (!kpx_wc_is_str(v) || strlen((char *)v->data.scalar.value) != v->data.scalar.length)
		return kpx_wc_err(p, v, "%s: wants a string", k->data.scalar.value);
	free(*out);
	*out = strdup((char *)v->data.scalar.value);
	return *out ? 0 : -ENOMEM;
}

/* A plain null ("key:" with nothing, ~, null): the default, as in Go. */
static bool kpx_wc_null(const yaml_node_t *v)
{
	const char *s = (const char *)v->data.scalar.value;

	return v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

/* Read a PEM file whole, NUL-terminated, for GnuTLS and libmicrohttpd. */
static int kpx_wc_read(struct kpx_wc *p, const yaml_node_t *v, const char *file,
		       char **out)
{
	FILE *f;
	char *buf;
	size_t n;

	/* Relative to the working directory, as exporter-toolkit has it. */
	f = fopen(file, "re");
	if (!f)
		return kpx_wc_err(p, v, "cannot read %s: %s", file, strerror(errno));
	buf = malloc(KPX_PEM_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, KPX_PEM_MAX + 1, f);
	if (ferror(f) || n > KPX_PEM_MAX) {
		fclose(f);
		free(buf);
		return kpx_wc_err(p, v, "cannot read %s: %s", file,
				  n > KPX_PEM_MAX ? "larger than 1 MiB" : "read error");
	}
	fclose(f);
	buf[n] = '\0';
	free(*out);
	*out = buf;
	return 0;
}

static const char *const kpx_client_auth_names[] = {
	[KPX_CLIENT_NONE]		= "NoClientCert",
	[KPX_CLIENT_REQUEST]		= "RequestClientCert",
	[KPX_CLIENT_REQUIRE_ANY]	= "RequireAnyClientCert",
	[KPX_CLIENT_VERIFY_IF_GIVEN]	= "VerifyClientCertIfGiven",
	[KPX_CLIENT_REQUIRE_VERIFY]	= "RequireAndVerifyClientCert",
};

const char *kpx_client_auth_name(enum kpx_client_auth a)
{
	return kpx_client_auth_names[a];
}

/* TLS10..TLS13 as GnuTLS names them; index 0 is TLS 1.0. */
static const char *const kpx_tls_names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
static const char *const kpx_tls_prio[] = { "VERS-TLS1.0", "VERS-TLS1.1", "VERS-TLS1.2",
					    "VERS-TLS1.3" };

static int kpx_wc_version(struct kpx_wc *p, const yaml_node_t *k, const yaml_node_t *v,
			  int *out)
{
	const char *s = (const char *)v->data.scalar.value;

	if (kpx_wc_is_str(v))
		for (int i = 0; i < 4; i++)
			if (!strcmp(s, kpx_tls_names[i])) {
				*out = i;
				return 0;
			}
	return kpx_wc_err(p, v, "%s: unknown TLS version '%s' (TLS10, TLS11, TLS12 or TLS13)",
			  k->data.scalar.value, kpx_wc_is_str(v) ? s : "not a string");
}

/* What exporter-toolkit knows and we refuse, with why. */
static const struct {
	const char *key, *why;
} kpx_wc_unsupported[] = {
	{ "cert", "inline PEM is not supported: use cert_file" },
	{ "key", "inline PEM is not supported: use key_file" },
	{ "client_ca", "inline PEM is not supported: use client_ca_file" },
	{ "client_allowed_sans", "not supported: client certificates are not matched by SAN" },
	{ "cipher_suites", "not supported: GnuTLS' NORMAL cipher suites are used" },
	{ "prefer_server_cipher_suites", "not supported" },
	{ "curve_preferences", "not supported: GnuTLS' NORMAL groups are used" },
};

static int kpx_wc_refuse(struct kpx_wc *p, const yaml_node_t *k)
{
	for (size_t i = 0; i < sizeof(kpx_wc_unsupported) / sizeof(kpx_wc_unsupported[0]); i++)
		if (!strcmp((char *)k->data.scalar.value, kpx_wc_unsupported[i].key))
			return kpx_wc_err(p, k, "tls_server_config: %s: %s",
					  kpx_wc_unsupported[i].key, kpx_wc_unsupported[i].why);
	return kpx_wc_err(p, k, "tls_server_config: unknown key '%s'", k->data.scalar.value);
}

/* Each key of a mapping as a scalar, duplicates refused (YAML says so). */
static int kpx_wc_keys(struct kpx_wc *p, const yaml_node_t *map, const char *what)
{
	yaml_node_pair_t *a, *b;

	for (a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top; a++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, a->key);

		if (!kpx_wc_is_str(k))
			return kpx_wc_err(p, k, "%s: a key must be a string", what);
		for (b = map->data.mapping.pairs.start; b < a; b++) {
			yaml_node_t *kb = yaml_document_get_node(p->doc, b->key);

			if (!strcmp((char *)k->data.scalar.value, (char *)kb->data.scalar.value))
				return kpx_wc_err(p, k, "%s: '%s' given twice", what,
						  k->data.scalar.value);
		}
	}
	return 0;
}

/* What tls_server_config says, and where (for FILE:LINE). */
struct kpx_wc_tls {
	const yaml_node_t *cert_at, *key_at, *ca_at, *auth_at;
	char *cert_file, *key_file, *ca_file, *auth;
	int min, max;			/* kpx_tls_names[] */
	bool set;			/* a value that is not empty */
};

static int kpx_wc_tls_keys(struct kpx_wc *p, const yaml_node_t *map, struct kpx_wc_tls *t)
{
	int err = kpx_wc_keys(p, map, "tls_server_config");
	yaml_node_pair_t *pr;

	for (pr = map->data.mapping.pairs.start; !err && pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *key = (const char *)k->data.scalar.value;

		if (!kpx_wc_null(v) && !(v->type == YAML_SCALAR_NODE && !v->data.scalar.length))
			t->set = true;
		if (!strcmp(key, "cert_file")) {
			t->cert_at = v;
			err = kpx_wc_str(p, k, v, &t->cert_file);
		} else if (!strcmp(key, "key_file")) {
			t->key_at = v;
			err = kpx_wc_str(p, k, v, &t->key_file);
		} else if (!strcmp(key, "client_ca_file")) {
			t->ca_at = v;
			err = kpx_wc_str(p, k, v, &t->ca_file);
		} else if (!strcmp(key, "client_auth_type")) {
			t->auth_at = v;
			err = kpx_wc_str(p, k, v, &t->auth);
		} else if (!strcmp(key, "min_version")) {
			err = kpx_wc_version(p, k, v, &t->min);
		} else if (!strcmp(key, "max_version")) {
			err = kpx_wc_version(p, k, v, &t->max);
		} else {
			err = kpx_wc_refuse(p, k);
		}
	}
	return err;
}

static int kpx_wc_client_auth(struct kpx_wc *p, const struct kpx_wc_tls *t)
{
	int i;

	p->w->client_auth = KPX_CLIENT_NONE;
	if (!t->auth || !*t->auth)
		return 0;
	for (i = 0; i < KPX_NR_CLIENT_AUTH; i++)
		if (!strcmp(t->auth, kpx_client_auth_names[i]))
			break;
	/* exporter-toolkit's old name, still accepted there. */
	if (i == KPX_NR_CLIENT_AUTH && !strcmp(t->auth, "RequireClientCert"))
		i = KPX_CLIENT_REQUIRE_ANY;
	if (i == KPX_NR_CLIENT_AUTH)
		return kpx_wc_err(p, t->auth_at, "client_auth_type: invalid ClientAuth '%s'"
				  " (NoClientCert, RequestClientCert, RequireAnyClientCert,"
				  " VerifyClientCertIfGiven or RequireAndVerifyClientCert)", t->auth);
	p->w->client_auth = i;
	return 0;
}

/* The settings that only make sense together, TLS being on. */
static int kpx_wc_tls_complete(struct kpx_wc *p, const struct kpx_wc_tls *t)
{
	enum kpx_client_auth auth = p->w->client_auth;

	if (!t->cert_file || !*t->cert_file)
		return kpx_wc_err(p, t->cert_at, "tls_server_config: missing cert_file");
	if (!t->key_file || !*t->key_file)
		return kpx_wc_err(p, t->key_at, "tls_server_config: missing key_file");
	if (t->ca_file && *t->ca_file && auth == KPX_CLIENT_NONE)
		return kpx_wc_err(p, t->ca_at, "client_ca_file: client CA's have been configured"
				  " without a Client Auth Policy (client_auth_type)");
	/*
	 * Go would verify against the system's roots without a client CA;
	 * a client certificate any public CA signed is no credential here.
	 */
	if ((!t->ca_file || !*t->ca_file) &&
	    (auth == KPX_CLIENT_VERIFY_IF_GIVEN || auth == KPX_CLIENT_REQUIRE_VERIFY))
		return kpx_wc_err(p, t->auth_at, "client_auth_type: %s needs client_ca_file",
				  kpx_client_auth_names[auth]);
	return 0;
}

/* The TLS material read, the versions made GnuTLS priorities, and checked. */
static int kpx_wc_tls_load(struct kpx_wc *p, const struct kpx_wc_tls *t)
{
	struct kpx_web *w = p->w;
	int err;

	err = kpx_wc_read(p, t->cert_at, t->cert_file, &w->cert_pem);
	if (!err)
		err = kpx_wc_read(p, t->key_at, t->key_file, &w->key_pem);
	if (!err && t->ca_file && *t->ca_file)
		err = kpx_wc_read(p, t->ca_at, t->ca_file, &w->ca_pem);
	if (err)
		return err;
	w->cert_at = t->cert_at->start_mark.line + 1;
	w->key_at = t->key_at->start_mark.line + 1;
	w->ca_at = t->ca_at->start_mark.line + 1;

	/* Only the versions asked for; the rest of GnuTLS' NORMAL as it is. */
	snprintf(w->priorities, sizeof(w->priorities), "NORMAL:-VERS-ALL");
	for (int i = t->min; i <= t->max; i++) {
		size_t l = strlen(w->priorities);

		snprintf(w->priorities + l, sizeof(w->priorities) - l, ":+%s", kpx_tls_prio[i]);
	}
	w->tls = true;
	return kpx_tls_check(w, p->path);
}

static int kpx_wc_tls(struct kpx_wc *p, const yaml_node_t *map)
{
	struct kpx_wc_tls t = { .cert_at = map, .key_at = map, .ca_at = map, .auth_at = map,
				.min = 2, .max = 3 };
	int err;

	if (kpx_wc_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return kpx_wc_err(p, map, "tls_server_config: wants a mapping");
	err = kpx_wc_tls_keys(p, map, &t);
	if (!err)
		err = kpx_wc_client_auth(p, &t);
	if (!err && t.min > t.max)
		err = kpx_wc_err(p, map, "tls_server_config: min_version %s is above max_version %s",
				 kpx_tls_names[t.min], kpx_tls_names[t.max]);
	/*
	 * Nothing set, or only empty values: no TLS (exporter-toolkit's
	 * errNoTLSConfig).  Anything set, a client_auth_type say, needs the
	 * certificate: serving plain HTTP then would drop the setting.
	 */
	if (!err && t.set)
		err = kpx_wc_tls_complete(p, &t);
	if (!err && t.set)
		err = kpx_wc_tls_load(p, &t);
	free(t.cert_file);
	free(t.key_file);
	free(t.ca_file);
	free(t.auth);
	return err;
}

/* bcrypt's modular crypt format: $2a$, $2b$ or $2y$, cost 04-31, 53 chars. */
static bool kpx_wc_bcrypt(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' ||
	    h[6] != '$')
		return false;
	cost = (h[4] - '0') * 10 + h[5] - '0';
	if (cost < 4 || cost > 31)
		return false;
	return strspn(h + 7, b64) == 53;
}

static int kpx_wc_users(struct kpx_wc *p, const yaml_node_t *map)
{
	struct kpx_web *w = p->w;
	yaml_node_pair_t *pr;
	size_t n;
	int err;

	if (kpx_wc_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return kpx_wc_err(p, map, "basic_auth_users: wants a mapping of user: bcrypt hash");
	err = kpx_wc_keys(p, map, "basic_auth_users");
	if (err)
		return err;
	n = map->data.mapping.pairs.top - map->data.mapping.pairs.start;
	/* One more: the slot a refused user's hash may be left in. */
	w->users = calloc(n + 1, sizeof(*w->users));
	if (!w->users)
		return -ENOMEM;
	for (pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		struct kpx_user *u = &w->users[w->nusers];

		/* Basic auth cannot carry a ':' in the user (RFC 7617). */
		if (!k->data.scalar.length || strchr((char *)k->data.scalar.value, ':') ||
		    strlen((char *)k->data.scalar.value) != k->data.scalar.length)
			return kpx_wc_err(p, k, "basic_auth_users: '%s' cannot be a user name"
					  " (empty, a ':' or a NUL)", k->data.scalar.value);
		err = kpx_wc_str(p, k, v, &u->hash);
		if (err)
			return err;
		if (!kpx_wc_bcrypt(u->hash))
			return kpx_wc_err(p, v, "basic_auth_users: %s: not a bcrypt hash"
					  " ($2a$, $2b$ or $2y$, cost 04-31, 60 characters)",
					  k->data.scalar.value);
		u->name = strdup((char *)k->data.scalar.value);
		if (!u->name)
			return -ENOMEM;
		w->nusers++;
	}
	return 0;
}

static int kpx_wc_http(struct kpx_wc *p, const yaml_node_t *map)
{
	yaml_node_pair_t *pr;
	int err;

	if (kpx_wc_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return kpx_wc_err(p, map, "http_server_config: wants a mapping");
	err = kpx_wc_keys(p, map, "http_server_config");
	for (pr = map->data.mapping.pairs.start; !err && pr < map->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *key = (const char *)k->data.scalar.value;
		const char *s = (const char *)v->data.scalar.value;

		if (!strcmp(key, "http2")) {
			/* Off is what we do anyway; on would be a promise not kept. */
			if (v->type == YAML_SCALAR_NODE && (!strcmp(s, "false") || !strcmp(s, "False")))
				continue;
			if (v->type == YAML_SCALAR_NODE && (!strcmp(s, "true") || !strcmp(s, "True")))
				return kpx_wc_err(p, v, "http_server_config: http2: true is not"
						  " supported (HTTP/1.1 only): say false");
			return kpx_wc_err(p, v, "http_server_config: http2: wants a boolean");
		}
		if (!strcmp(key, "headers"))
			return kpx_wc_err(p, k, "http_server_config: headers: not supported");
		return kpx_wc_err(p, k, "http_server_config: unknown key '%s'", key);
	}
	return err;
}

static int kpx_wc_top(struct kpx_wc *p)
{
	yaml_node_t *root = yaml_document_get_root_node(p->doc);
	yaml_node_pair_t *pr;
	int err;

	/* An empty file: plain HTTP and no users, as exporter-toolkit has it. */
	if (!root || kpx_wc_null(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return kpx_wc_err(p, root, "wants a mapping (tls_server_config, basic_auth_users,"
				  " http_server_config)");
	err = kpx_wc_keys(p, root, "the file");
	for (pr = root->data.mapping.pairs.start; !err && pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pr->value);
		const char *key = (const char *)k->data.scalar.value;

		if (!strcmp(key, "tls_server_config"))
			err = kpx_wc_tls(p, v);
		else if (!strcmp(key, "basic_auth_users"))
			err = kpx_wc_users(p, v);
		else if (!strcmp(key, "http_server_config"))
			err = kpx_wc_http(p, v);
		else if (!strcmp(key, "rate_limit"))
			err = kpx_wc_err(p, k, "rate_limit: not supported");
		else
			err = kpx_wc_err(p, k, "unknown key '%s'", key);
	}
	return err;
}

/* What libyaml could not parse, where its scanner stopped. */
static int kpx_wc_syntax(const char *path, const yaml_parser_t *parser)
{
	if (parser->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	kpx_log("%s:%zu: %s%s%s\n", path,
		parser->problem_mark.line + 1, parser->problem ? parser->problem : "YAML error",
		parser->context ? " " : "", parser->context ? parser->context : "");
	return -EINVAL;
}

int kpx_webconfig_load(const char *path, struct kpx_web **out)
{
	struct kpx_wc p = { .path = path };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *extra;
	FILE *f;
	int err;

	*out = NULL;
	f = fopen(path, "re");
	if (!f) {
		kpx_log("--web.config.file %s: %s\n", path, strerror(errno));
		return -EINVAL;
	}
	p.w = calloc(1, sizeof(*p.w));
	if (!p.w || !yaml_parser_initialize(&parser)) {
		fclose(f);
		free(p.w);
		return -ENOMEM;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		err = kpx_wc_syntax(path, &parser);
		goto out_parser;
	}
	p.doc = &doc;
	err = kpx_wc_top(&p);
	yaml_document_delete(&doc);
	/* A second document ("---") would be ignored by Go's decoder; refuse it. */
	if (!err) {
		if (!yaml_parser_load(&parser, &doc)) {
			err = kpx_wc_syntax(path, &parser);
		} else {
			extra = yaml_document_get_root_node(&doc);
			if (extra)
				err = kpx_wc_err(&p, extra, "a second YAML document");
			yaml_document_delete(&doc);
		}
	}
	if (!err && p.w->nusers)
		err = kpx_auth_init(p.w);
	if (!err) {
		p.w->path = strdup(path);
		err = p.w->path ? 0 : -ENOMEM;
	}
out_parser:
	yaml_parser_delete(&parser);
	fclose(f);
	if (err == -ENOMEM)
		kpx_log("%s: out of memory\n", path);
	if (err) {
		kpx_webconfig_free(p.w);
		return err;
	}
	*out = p.w;
	return 0;
}

void kpx_webconfig_free(struct kpx_web *w)
{
	if (!w)
		return;
	kpx_auth_fini(w);
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	/* users[nusers] may hold a hash whose user was then refused. */
	if (w->users)
		free(w->users[w->nusers].hash);
	free(w->users);
	free(w->cert_pem);
	if (w->key_pem)
		memset(w->key_pem, 0, strlen(w->key_pem));
	free(w->key_pem);
	free(w->ca_pem);
	free(w->path);
	free(w);
}
