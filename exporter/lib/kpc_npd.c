// SPDX-License-Identifier: GPL-2.0
/*
 * node-problem-detector's rule files: the loader and the buffer matcher
 * (kpc_npd.h).  json-c keeps no line numbers, so the line of a rule's
 * pattern is found in the file's text: the Nth "pattern" key outside
 * strings is the Nth rule's.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_npd.h"

/* Enough for NPD's patterns on a ring of kernel lines; past them, no match. */
#define KPC_NPD_MATCH_LIMIT	1000000
#define KPC_NPD_DEPTH_LIMIT	10000
/* Go's regexp works on UTF-8, and a kernel line may have any byte. */
#define KPC_NPD_PCRE2	(PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NO_AUTO_CAPTURE | \
			 PCRE2_NEVER_BACKSLASH_C)

struct kpc_npd_load {
	const char *path, *text;
	size_t text_len;
	char *err;
	size_t errlen;
};

static unsigned int kpc_npd_line_at(const char *text, size_t off)
{
	unsigned int line = 1;

	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/* The line of the nth (from 0) key named key, outside strings; 0 if none. */
static unsigned int kpc_npd_key_line(const char *text, const char *key, unsigned int nth)
{
	size_t klen = strlen(key);
	unsigned int line = 1;
	bool in_str = false;

	for (const char *p = text; *p; p++) {
		if (*p == '\n')
			line++;
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
			continue;
		}
		if (*p != '"')
			continue;
		if (!strncmp(p + 1, key, klen) && p[klen + 1] == '"') {
			const char *q = p + klen + 2;

			while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')
				q++;
			if (*q == ':' && !nth--)
				return line;
		}
		in_str = true;
	}
	return 0;
}

static int kpc_npd_err(struct kpc_npd_load *l, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int kpc_npd_err(struct kpc_npd_load *l, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(l->err, l->errlen, "%s:%u: ", l->path, line ? line : 1);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < l->errlen)
		vsnprintf(l->err + n, l->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* o's member key as a string: its value, NULL if absent; -EINVAL in *ret if not a string. */
static const char *kpc_npd_str(struct kpc_npd_load *l, struct json_object *o, const char *key,
			       unsigned int line, int *ret)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		*ret = kpc_npd_err(l, line, "\"%s\" is not a string", key);
		return NULL;
	}
	return json_object_get_string(v);
}

static int kpc_npd_bad_re(struct kpc_npd_load *l, struct kpc_npd_rule *r, int code,
			  PCRE2_SIZE off)
{
	PCRE2_UCHAR msg[160];

	pcre2_get_error_message(code, msg, sizeof(msg));
	return kpc_npd_err(l, r->line, "pattern \"%s\" does not compile at offset %zu: %s",
			   r->pattern, (size_t)off, (const char *)msg);
}

static int kpc_npd_compile(struct kpc_npd_load *l, struct kpc_npd_rule *r)
{
	char why[160], *anchored;
	size_t plen = strlen(r->pattern);
	int code;
	PCRE2_SIZE off;

	if (kpc_npd_re2_check(r->pattern, why, sizeof(why)))
		return kpc_npd_err(l, r->line, "pattern \"%s\": %s", r->pattern, why);
	/* Alone first: an error is then the pattern's, not of the \z after it. */
	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, plen, KPC_NPD_PCRE2, &code, &off, NULL);
	if (!r->re)
		return kpc_npd_bad_re(l, r, code, off);
	pcre2_code_free(r->re);
	/* NPD's CompilePattern(): PATTERN + `\z`, unparenthesised, as NPD has it. */
	anchored = malloc(plen + 3);
	if (!anchored)
		return -ENOMEM;
	memcpy(anchored, r->pattern, plen);
	memcpy(anchored + plen, "\\z", 3);
	r->re = pcre2_compile((PCRE2_SPTR)anchored, plen + 2,
			      KPC_NPD_PCRE2, &code, &off, NULL);
	free(anchored);
	return r->re ? 0 : kpc_npd_bad_re(l, r, code, off);
}

static bool kpc_npd_has_cond(const struct kpc_npd *n, const char *type)
{
	for (unsigned int i = 0; i < n->nconds; i++)
		if (!strcmp(n->conds[i].type, type))
			return true;
	return false;
}

static int kpc_npd_rule(struct kpc_npd_load *l, struct kpc_npd *n, struct json_object *o,
			unsigned int i)
{
	struct kpc_npd_rule *r = &n->rules[i];
	const char *type;
	int ret = 0;

	r->line = kpc_npd_key_line(l->text, "pattern", i);
	if (!r->line)
		r->line = kpc_npd_key_line(l->text, "rules", 0);
	if (!json_object_is_type(o, json_type_object))
		return kpc_npd_err(l, r->line, "rule %u is not an object", i + 1);
	type = kpc_npd_str(l, o, "type", r->line, &ret);
	r->condition = kpc_npd_str(l, o, "condition", r->line, &ret);
	r->reason = kpc_npd_str(l, o, "reason", r->line, &ret);
	r->pattern = kpc_npd_str(l, o, "pattern", r->line, &ret);
	if (ret)
		return ret;
	if (!type || (strcmp(type, "temporary") && strcmp(type, "permanent")))
		return kpc_npd_err(l, r->line, "rule %u: \"type\" is neither temporary nor"
				   " permanent", i + 1);
	if (!r->reason || !*r->reason || !r->pattern)
		return kpc_npd_err(l, r->line, "rule %u: no reason or no pattern", i + 1);
	r->permanent = !strcmp(type, "permanent");
	if (!r->permanent)
		r->condition = NULL;
	else if (!r->condition || !kpc_npd_has_cond(n, r->condition))
		/* NPD would match it and change nothing: a rule that can never show. */
		return kpc_npd_err(l, r->line, "permanent rule %s: condition \"%s\" is not"
				   " among \"conditions\"", r->reason,
				   r->condition ? r->condition : "");
	return kpc_npd_compile(l, r);
}

static int kpc_npd_conds(struct kpc_npd_load *l, struct kpc_npd *n, struct json_object *a)
{
	unsigned int line = kpc_npd_key_line(l->text, "conditions", 0);
	int ret = 0;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return kpc_npd_err(l, line, "\"conditions\" is not an array");
	n->nconds = json_object_array_length(a);
	n->conds = calloc(n->nconds + 1, sizeof(*n->conds));
	if (!n->conds)
		return -ENOMEM;
	for (unsigned int i = 0; i < n->nconds; i++) {
		struct json_object *c = json_object_array_get_idx(a, i);
		struct kpc_npd_condition *cd = &n->conds[i];

		if (!json_object_is_type(c, json_type_object))
			return kpc_npd_err(l, line, "condition %u is not an object", i + 1);
		cd->type = kpc_npd_str(l, c, "type", line, &ret);
		cd->reason = kpc_npd_str(l, c, "reason", line, &ret);
		cd->message = kpc_npd_str(l, c, "message", line, &ret);
		if (ret)
			return ret;
		if (!cd->type || !*cd->type)
			return kpc_npd_err(l, line, "condition %u has no type", i + 1);
		if (!cd->reason)
			cd->reason = "";
	}
	return 0;
}

static int kpc_npd_top(struct kpc_npd_load *l, struct kpc_npd *n, struct json_object *root)
{
	struct json_object *v = NULL;
	int ret = 0;

	if (!json_object_is_type(root, json_type_object))
		return kpc_npd_err(l, 1, "not a JSON object");
	n->plugin = kpc_npd_str(l, root, "plugin", kpc_npd_key_line(l->text, "plugin", 0), &ret);
	n->log_path = kpc_npd_str(l, root, "logPath", 1, &ret);
	n->lookback = kpc_npd_str(l, root, "lookback", 1, &ret);
	n->delay = kpc_npd_str(l, root, "delay", 1, &ret);
	n->source = kpc_npd_str(l, root, "source", 1, &ret);
	if (ret)
		return ret;
	if (n->lookback && kpc_npd_duration(n->lookback, &n->lookback_ns))
		return kpc_npd_err(l, kpc_npd_key_line(l->text, "lookback", 0), "\"lookback\""
				   " \"%s\" is no Go duration (\"5m\", \"1h30m\", \"90s\")",
				   n->lookback);
	if (n->delay && kpc_npd_duration(n->delay, &n->delay_ns))
		return kpc_npd_err(l, kpc_npd_key_line(l->text, "delay", 0), "\"delay\" \"%s\""
				   " is no Go duration (\"5m\", \"1h30m\", \"90s\")", n->delay);
	/* Only the kernel's messages come here: a journald or filelog monitor cannot work. */
	if (n->plugin && strcmp(n->plugin, "kmsg"))
		return kpc_npd_err(l, kpc_npd_key_line(l->text, "plugin", 0), "plugin \"%s\":"
				   " only \"kmsg\" monitors read the kernel's messages",
				   n->plugin);
	if (!n->source)
		n->source = "kernel-monitor";
	n->buffer_size = KPC_NPD_BUFFER_DEFAULT;
	if (json_object_object_get_ex(root, "bufferSize", &v)) {
		int64_t b = json_object_get_int64(v);

		if (!json_object_is_type(v, json_type_int) || b < 0 || b > KPC_NPD_BUFFER_MAX)
			return kpc_npd_err(l, kpc_npd_key_line(l->text, "bufferSize", 0),
					   "\"bufferSize\" is not a number of 0 to %d",
					   KPC_NPD_BUFFER_MAX);
		if (b)
			n->buffer_size = b;
	}
	ret = kpc_npd_conds(l, n, json_object_object_get_ex(root, "conditions", &v) ? v : NULL);
	if (ret)
		return ret;
	if (!json_object_object_get_ex(root, "rules", &v) ||
	    !json_object_is_type(v, json_type_array))
		return kpc_npd_err(l, kpc_npd_key_line(l->text, "rules", 0),
				   "no \"rules\" array");
	n->nrules = json_object_array_length(v);
	n->rules = calloc(n->nrules + 1, sizeof(*n->rules));
	if (!n->rules)
		return -ENOMEM;
	for (unsigned int i = 0; i < n->nrules && !ret; i++)
		ret = kpc_npd_rule(l, n, json_object_array_get_idx(v, i), i);
	return ret;
}

static int kpc_npd_ring(struct kpc_npd *n)
{
	n->msg = calloc(n->buffer_size, sizeof(*n->msg));
	n->len = calloc(n->buffer_size, sizeof(*n->len));
	n->md = pcre2_match_data_create(1, NULL);
	n->mctx = pcre2_match_context_create(NULL);
	if (!n->msg || !n->len || !n->md || !n->mctx)
		return -ENOMEM;
	pcre2_set_match_limit(n->mctx, KPC_NPD_MATCH_LIMIT);
	pcre2_set_depth_limit(n->mctx, KPC_NPD_DEPTH_LIMIT);
	return 0;
}

static char *kpc_npd_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		char *t;

		if (*len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			t = realloc(text, cap);
			if (!t)
				break;
			text = t;
		}
		size_t got = fread(text + *len, 1, cap - *len - 1, f);

		*len += got;
		if (!got) {
			text[*len] = '\0';
			fclose(f);
			return text;
		}
	}
	free(text);
	fclose(f);
	errno = ENOMEM;
	return NULL;
}

static int kpc_npd_parse(struct kpc_npd_load *l, struct kpc_npd *n)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;
	enum json_tokener_error jerr;

	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, l->text, l->text_len);
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success) {
		size_t off = json_tokener_get_parse_end(tok);

		json_object_put(root);
		json_tokener_free(tok);
		return kpc_npd_err(l, kpc_npd_line_at(l->text, off), "not JSON: %s",
				   jerr == json_tokener_continue ? "unexpected end of file" :
				   json_tokener_error_desc(jerr));
	}
	json_tokener_free(tok);
	n->json = root;
	return kpc_npd_top(l, n, root);
}

int kpc_npd_load(const char *path, struct kpc_npd **out, char *err, size_t errlen)
{
	struct kpc_npd_load l = { .path = path, .err = err, .errlen = errlen };
	struct kpc_npd *n;
	char *text;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	text = kpc_npd_read(path, &l.text_len);
	if (!text) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	l.text = text;
	n = calloc(1, sizeof(*n));
	ret = n ? 0 : -ENOMEM;
	if (n && !(n->path = strdup(path)))
		ret = -ENOMEM;
	if (!ret)
		ret = kpc_npd_parse(&l, n);
	if (!ret)
		ret = kpc_npd_ring(n);
	free(text);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		kpc_npd_free(n);
		return ret;
	}
	*out = n;
	return 0;
}

void kpc_npd_free(struct kpc_npd *n)
{
	if (!n)
		return;
	for (unsigned int i = 0; n->rules && i < n->nrules; i++)
		pcre2_code_free(n->rules[i].re);
	for (unsigned int i = 0; n->msg && i < n->buffer_size; i++)
		free(n->msg[i]);
	pcre2_match_data_free(n->md);
	pcre2_match_context_free(n->mctx);
	json_object_put(n->json);
	free(n->msg);
	free(n->len);
	free(n->joined);
	free(n->rules);
	free(n->conds);
	free(n->path);
	free(n);
}

/* A message as NPD's kmsg watcher passes it on: strings.TrimSpace(), ASCII. */
static const char *kpc_npd_trim(const char *m, size_t *len)
{
	size_t n = *len;

	while (n && isspace((unsigned char)*m)) {
		m++;
		n--;
	}
	while (n && isspace((unsigned char)m[n - 1]))
		n--;
	*len = n;
	return m;
}

/* NPD's String(): every slot, the oldest first, empty ones too, joined with "\n". */
static int kpc_npd_join(struct kpc_npd *n)
{
	size_t need = n->buffer_size;

	for (unsigned int i = 0; i < n->buffer_size; i++)
		need += n->len[i];
	if (need > n->joined_cap) {
		char *j = realloc(n->joined, need);

		if (!j)
			return -ENOMEM;
		n->joined = j;
		n->joined_cap = need;
	}
	n->joined_len = 0;
	for (unsigned int k = 0; k < n->buffer_size; k++) {
		unsigned int i = (n->current + k) % n->buffer_size;

		size_t len = n->len[i];
		const char *m = len ? kpc_npd_trim(n->msg[i], &len) : NULL;

		if (k)
			n->joined[n->joined_len++] = '\n';
		if (len)
			memcpy(n->joined + n->joined_len, m, len);
		n->joined_len += len;
	}
	return 0;
}

int kpc_npd_push(struct kpc_npd *n, const char *msg, size_t len)
{
	unsigned int i = n->current % n->buffer_size;
	char *m = malloc(len + 1);

	if (!m)
		return -ENOMEM;
	memcpy(m, msg, len);
	m[len] = '\0';
	free(n->msg[i]);
	n->msg[i] = m;
	n->len[i] = len;
	n->current++;
	return kpc_npd_join(n);
}

int kpc_npd_append(struct kpc_npd *n, const char *more, size_t len)
{
	unsigned int i = (n->current + n->buffer_size - 1) % n->buffer_size;
	char *m;

	if (!n->current)
		return kpc_npd_push(n, more, len);
	m = realloc(n->msg[i], n->len[i] + len + 1);
	if (!m)
		return -ENOMEM;
	memcpy(m + n->len[i], more, len);
	m[n->len[i] + len] = '\0';
	n->msg[i] = m;
	n->len[i] += len;
	return kpc_npd_join(n);
}

int kpc_npd_match(struct kpc_npd *n, unsigned int i)
{
	int rc;

	if (i >= n->nrules || !n->joined)
		return 0;
	rc = pcre2_match(n->rules[i].re, (PCRE2_SPTR)n->joined, n->joined_len, 0, 0, n->md,
			 n->mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	return -E2BIG;
}

/* Go's units, "ms" before "m": the first that begins the rest is the unit. */
static const struct {
	const char *name;
	uint64_t ns;
} kpc_npd_units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "\u00b5s", 1000 }, { "\u03bcs", 1000 },
	{ "ms", 1000000 }, { "s", 1000000000ULL }, { "m", 60000000000ULL },
	{ "h", 3600000000000ULL },
};

/* One number and its unit of a duration: 0 and *s past it, or -EINVAL. */
static int kpc_npd_duration_part(const char **s, uint64_t *ns)
{
	const char *p = *s;
	uint64_t whole = 0, frac = 0, scale = 1;
	bool digits = false;
	unsigned int u;

	for (; isdigit((unsigned char)*p); p++, digits = true)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
			return -EINVAL;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, digits = true)
			if (scale < 1000000000000000000ULL) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	if (!digits)
		return -EINVAL;
	for (u = 0; u < sizeof(kpc_npd_units) / sizeof(kpc_npd_units[0]); u++) {
		size_t len = strlen(kpc_npd_units[u].name);

		if (!strncmp(p, kpc_npd_units[u].name, len))
			break;
	}
	if (u == sizeof(kpc_npd_units) / sizeof(kpc_npd_units[0]))
		return -EINVAL;		/* Go wants a unit on every number but "0" */
	if (__builtin_mul_overflow(whole, kpc_npd_units[u].ns, ns))
		return -EINVAL;
	*ns += (uint64_t)((long double)frac * kpc_npd_units[u].ns / scale);
	*s = p + strlen(kpc_npd_units[u].name);
	return 0;
}

int kpc_npd_duration(const char *s, uint64_t *ns)
{
	uint64_t total = 0, part;

	if (*s == '+')
		s++;
	else if (*s == '-')
		return strcmp(s, "-0") ? -EINVAL : (*ns = 0, 0);
	if (!strcmp(s, "0")) {
		*ns = 0;
		return 0;
	}
	if (!*s)
		return -EINVAL;
	while (*s) {
		if (kpc_npd_duration_part(&s, &part) ||
		    __builtin_add_overflow(total, part, &total))
			return -EINVAL;
	}
	*ns = total;
	return 0;
}

uint64_t kpc_npd_start(const struct kpc_npd *n, uint64_t now_ns)
{
	uint64_t back = n->lookback ? n->lookback_ns : 0;
	uint64_t since = now_ns > back ? now_ns - back : 0;

	return n->delay_ns > since ? n->delay_ns : since;
}
