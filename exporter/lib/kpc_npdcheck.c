// SPDX-License-Identifier: GPL-2.0
/*
 * node-problem-detector rule files against formats (kpc_npdcheck.h).
 *
 * The file is read by the exporter's loader, kpc_npd_load(), which
 * refuses what NPD's RE2 would and gives each rule its line; here each
 * pattern is compiled again without NPD's end anchor, to be searched in
 * one rendered line, and the words of its literal text are kept for the
 * samples of string conversions.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_npd.h"
#include "kpc_npdcheck.h"

/* The words of the pattern's literal text, escapes undone: "umount.aufs". */
static void kpc_npd_words(struct kpc_npdcheck_rule *r)
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

/* The pattern alone, searched anywhere in a rendered line. */
static int kpc_npdcheck_compile(struct kpc_npdcheck_rule *r, const char *path, char *err,
				size_t errlen)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	int code;

	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF,
			      &code, &off, NULL);
	if (!r->re) {
		/* kpc_npd_load() compiled it already: only memory can fail here. */
		pcre2_get_error_message(code, msg, sizeof(msg));
		snprintf(err, errlen, "%s:%u: pattern \"%s\": %s at offset %zu", path, r->line,
			 r->pattern, (char *)msg, (size_t)off);
		return -EINVAL;
	}
	pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
	r->md = pcre2_match_data_create_from_pattern(r->re, NULL);
	return r->md ? 0 : -ENOMEM;
}

int kpc_npdcheck_load(const char *path, struct kpc_npdcheck_rules *out, char *err,
		      size_t errlen)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = kpc_npd_load(path, &out->npd, err, errlen);
	if (ret)
		return ret;
	out->v = calloc(out->npd->nrules + 1, sizeof(*out->v));
	if (!out->v) {
		kpc_npdcheck_free(out);
		return -ENOMEM;
	}
	for (unsigned int i = 0; !ret && i < out->npd->nrules; i++) {
		const struct kpc_npd_rule *n = &out->npd->rules[i];
		struct kpc_npdcheck_rule *r = &out->v[out->n++];

		r->type = n->permanent ? "permanent" : "temporary";
		r->reason = n->reason;
		r->condition = n->condition;
		r->pattern = n->pattern;
		r->line = n->line;
		kpc_npd_words(r);
		ret = kpc_npdcheck_compile(r, path, err, errlen);
	}
	if (ret)
		kpc_npdcheck_free(out);
	return ret;
}

void kpc_npdcheck_free(struct kpc_npdcheck_rules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct kpc_npdcheck_rule *x = &r->v[i];

		for (unsigned int w = 0; w < x->nwords; w++)
			free(x->words[w]);
		pcre2_match_data_free(x->md);
		pcre2_code_free(x->re);
	}
	free(r->v);
	kpc_npd_free(r->npd);
	memset(r, 0, sizeof(*r));
}

bool kpc_npdcheck_match(const struct kpc_npdcheck_rule *rule, const char *text)
{
	return pcre2_match(rule->re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0,
			   rule->md, NULL) >= 0;
}
