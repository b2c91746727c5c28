// SPDX-License-Identifier: GPL-2.0
/*
 * What RE2 (Go's regexp) has and PCRE2 has beyond it.  NPD compiles its
 * patterns with Go's regexp, which refuses these constructs, so no NPD rule
 * file that works has them; PCRE2 would run them, and a rule would then mean
 * something NPD never matched.  A pattern with one is refused instead.
 */
#include <stdio.h>
#include <string.h>

#include "kpc_npd.h"

/* Escapes PCRE2 has and Go's regexp refuses (backreferences, \K, \R...). */
static const char kpc_npd_bad_escapes[] = "gkKRXhHVNZGCE";

static int kpc_npd_bad(char *err, size_t errlen, const char *what, size_t at)
{
	snprintf(err, errlen, "%s at offset %zu: RE2 (NPD's Go regexp) has none", what, at);
	return -1;
}

/* The group opener at p ("(?" already seen); 0 if RE2 has it. */
static int kpc_npd_group(const char *p, size_t at, char *err, size_t errlen)
{
	if (p[0] == '=' || p[0] == '!' || (p[0] == '<' && (p[1] == '=' || p[1] == '!')))
		return kpc_npd_bad(err, errlen, "lookaround", at);
	if (p[0] == '>')
		return kpc_npd_bad(err, errlen, "an atomic group", at);
	if (p[0] == 'R' || p[0] == '&' || (p[0] >= '0' && p[0] <= '9') || p[0] == '+' ||
	    (p[0] == 'P' && (p[1] == '=' || p[1] == '>')))
		return kpc_npd_bad(err, errlen, "a recursion or named backreference", at);
	if (p[0] == 'C' || p[0] == '|' || p[0] == '(' || p[0] == '#')
		return kpc_npd_bad(err, errlen, "a PCRE-only group", at);
	return 0;
}

int kpc_npd_re2_check(const char *pattern, char *err, size_t errlen)
{
	const char *p = pattern;
	bool in_class = false, quant = false;

	for (; *p; p++) {
		size_t at = p - pattern;

		if (*p == '\\') {
			if (!p[1])
				break;
			if (p[1] == 'Q') {	/* literal up to \E: RE2 has it too */
				const char *e = strstr(p + 2, "\\E");

				if (!e)
					break;
				p = e + 1;
				quant = false;
				continue;
			}
			if (!in_class && ((p[1] >= '1' && p[1] <= '9' && !(p[2] >= '0' && p[2] <= '7'))
					  || strchr(kpc_npd_bad_escapes, p[1])))
				return kpc_npd_bad(err, errlen, p[1] >= '1' && p[1] <= '9' ?
						   "a backreference" : "a PCRE-only escape", at);
			p++;
			quant = false;
			continue;
		}
		if (in_class) {
			if (*p == ']')
				in_class = false;
			continue;
		}
		if (*p == '[') {
			in_class = true;
			quant = false;
			/* A ']' or '^]' right after '[' is a member. */
			if (p[1] == '^')
				p++;
			if (p[1] == ']')
				p++;
			continue;
		}
		if (*p == '(' && p[1] == '*')
			return kpc_npd_bad(err, errlen, "a backtracking verb", at);
		if (*p == '(' && p[1] == '?' && kpc_npd_group(p + 2, at, err, errlen))
			return -1;
		if (*p == '+' && quant)
			return kpc_npd_bad(err, errlen, "a possessive quantifier", at);
		quant = *p == '*' || *p == '+' || *p == '?' || *p == '}';
		if (*p == '?' && p > pattern && (p[-1] == '*' || p[-1] == '+' || p[-1] == '?' ||
						 p[-1] == '}'))
			quant = false;	/* lazy: a '+' after it is a quantifier of nothing */
	}
	return 0;
}
