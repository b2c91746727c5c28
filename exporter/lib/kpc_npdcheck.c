// SPDX-License-Identifier: GPL-2.0
/*
 * node-problem-detector rule files against formats (kpc_npdcheck.h).
 *
 * The reader is this file's own and small: json-c for the document, the
 * file's text for each pattern's line (json-c keeps none), PCRE2 for the
 * patterns.  The exporter's NPD rule loader (kpc_npd*.c) reads the same
 * files to run them; the two could share one reader that gives each rule
 * with its line, this file keeping only the rendering and the check.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_npdcheck.h"

static char *kpc_npd_strdup(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return strdup(json_object_get_string(v));
}

/* The line of @pattern's JSON string in @text, searched from *@from on. */
static unsigned int kpc_npd_line(const char *text, const char **from, const char *pattern)
{
	struct json_object *s = json_object_new_string(pattern);
	const char *enc, *at;
	unsigned int line = 1;

	enc = json_object_to_json_string_ext(s, JSON_C_TO_STRING_NOSLASHESCAPE);
	at = strstr(*from, enc);
	if (!at)
		at = strstr(text, enc);
	if (at) {
		*from = at + 1;
		for (const char *p = text; p < at; p++)
			line += *p == '\n';
	}
	json_object_put(s);
	return at ? line : 0;
}

/* The words of the pattern's literal text, escapes undone: "umount.aufs". */
static void kpc_npd_words(struct kpc_npd_rule *r)
{
	const char *p = r->pattern;
	char w[64];
	size_t n = 0;

	for (;; p++) {
		bool esc = p[0] == '\\' && p[1] && ispunct((unsigned char)p[1]);
		char c = esc ? p[1] : *p;

		/* \w, \d, \S, \b are classes and anchors, not letters. */
		if (p[0] == '\\' && isalnum((unsigned char)p[1])) {
			p++;
			c = ' ';
		} else if (c && (isalnum((unsigned char)c) || c == '-' || c == '_' ||
			   (c == '.' && esc))) {
			if (n < sizeof(w) - 1)
				w[n++] = c;
			p += esc;
			continue;
		}
		if (n >= 2 && r->nwords < KPC_NPDCHECK_WORDS) {
			w[n] = '\0';
			r->words[r->nwords++] = strdup(w);
		}
		n = 0;
		if (!*p)
			break;
	}
}

static int kpc_npd_compile(struct kpc_npd_rule *r, const char *path, char *err, size_t errlen)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	uint32_t refs = 0;
	int code;

	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF,
			      &code, &off, NULL);
	if (!r->re) {
		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(err, errlen, "%s:%u: pattern \"%s\": %s at offset %zu", path, r->line,
			 r->pattern, (char *)msg, (size_t)off);
		return -EINVAL;
	}
	pcre2_pattern_info(r->re, PCRE2_INFO_BACKREFMAX, &refs);
	/*
	 * What PCRE2 takes and RE2 does not, so NPD would refuse the file.  The
	 * lookarounds by their text: PCRE2_INFO_MAXLOOKBEHIND counts \b too.
	 */
	if (refs || strstr(r->pattern, "(?=") || strstr(r->pattern, "(?!") ||
	    strstr(r->pattern, "(?<=") || strstr(r->pattern, "(?<!") || strstr(r->pattern, "(?>")) {
		snprintf(err, errlen, "%s:%u: pattern \"%s\": a backreference, lookaround or"
			 " atomic group, which Go's RE2 does not take", path, r->line, r->pattern);
		return -EINVAL;
	}
	pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
	r->md = pcre2_match_data_create_from_pattern(r->re, NULL);
	return r->md ? 0 : -ENOMEM;
}

static int kpc_npd_rule_read(struct kpc_npd_rule *r, struct json_object *o, const char *path,
			     const char *text, const char **from, char *err, size_t errlen)
{
	r->type = kpc_npd_strdup(o, "type");
	r->reason = kpc_npd_strdup(o, "reason");
	r->condition = kpc_npd_strdup(o, "condition");
	r->pattern = kpc_npd_strdup(o, "pattern");
	if (!r->reason || !r->pattern) {
		snprintf(err, errlen, "%s:%u: a rule without a %s", path,
			 r->pattern ? kpc_npd_line(text, from, r->pattern) : 0,
			 r->reason ? "pattern" : "reason");
		return -EINVAL;
	}
	r->line = kpc_npd_line(text, from, r->pattern);
	kpc_npd_words(r);
	return kpc_npd_compile(r, path, err, errlen);
}

static char *kpc_npd_slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		text = malloc(n + 1);
		if (text)
			len = fread(text, 1, n, f);
		if (text)
			text[len] = '\0';
	}
	if (!text)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	if (f)
		fclose(f);
	return text;
}

int kpc_npd_rules_load(const char *path, struct kpc_npd_rules *out, char *err, size_t errlen)
{
	struct json_object *doc, *rules;
	const char *from;
	char *text;
	int ret = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	text = kpc_npd_slurp(path, err, errlen);
	if (!text)
		return -EIO;
	doc = json_tokener_parse(text);
	if (!doc || !json_object_object_get_ex(doc, "rules", &rules) ||
	    !json_object_is_type(rules, json_type_array)) {
		snprintf(err, errlen, "%s:1: %s", path, doc ? "no \"rules\" array" : "not JSON");
		ret = -EINVAL;
		goto out;
	}
	out->v = calloc(json_object_array_length(rules) + 1, sizeof(*out->v));
	if (!out->v) {
		ret = -ENOMEM;
		goto out;
	}
	from = text;
	for (i = 0; !ret && i < json_object_array_length(rules); i++) {
		ret = kpc_npd_rule_read(&out->v[i], json_object_array_get_idx(rules, i), path,
					text, &from, err, errlen);
		out->n++;
	}
out:
	json_object_put(doc);
	free(text);
	if (ret)
		kpc_npd_rules_free(out);
	return ret;
}

void kpc_npd_rules_free(struct kpc_npd_rules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct kpc_npd_rule *x = &r->v[i];

		free(x->type);
		free(x->reason);
		free(x->condition);
		free(x->pattern);
		for (unsigned int w = 0; w < x->nwords; w++)
			free(x->words[w]);
		pcre2_match_data_free(x->md);
		pcre2_code_free(x->re);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

bool kpc_npd_rule_match(const struct kpc_npd_rule *rule, const char *text)
{
	return pcre2_match(rule->re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0,
			   rule->md, NULL) >= 0;
}
