// SPDX-License-Identifier: GPL-2.0
/*
 * A format turned into a text it can print, a sample for each conversion
 * (kpc_npdcheck.h says which and why).
 */
#include <stdio.h>
#include <string.h>

#include "kpc_npdcheck.h"

struct kpc_npd_out {
	char *buf;
	size_t len, n;
};

static void kpc_npd_put(struct kpc_npd_out *o, const char *s, size_t n)
{
	while (n-- && o->n + 1 < o->len)
		o->buf[o->n++] = *s++;
	o->buf[o->n] = '\0';
}

/* A %p's sample by its extension letters at @p (after the 'p'); returns them skipped. */
static const char *kpc_npd_pointer(struct kpc_npd_out *o, const char *p, const char *word,
				   const char *inner)
{
	const char *s = "ffff888000000000";

	switch (*p) {
	case 'S': case 's': case 'B': case 'F': case 'f':
		s = "func+0x0/0x10";
		break;
	case 'V':
		s = inner ? inner : word;
		break;
	case 'g': case 'D': case 'd':
		s = word;
		break;
	case 'I': case 'i':
		s = "192.0.2.1";
		break;
	case 'M': case 'm':
		s = "00:00:00:00:00:00";
		break;
	case 'U':
		s = "00000000-0000-0000-0000-000000000000";
		break;
	case 'b':
		s = "0";
		break;
	case 'x': case 'K':
		break;
	default:
		if (*p >= 'A' && *p <= 'Z')
			s = word;
		break;
	}
	kpc_npd_put(o, s, strlen(s));
	/* The kernel's extensions are letters and digits after %p. */
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
		p++;
	return p;
}

/* One integer conversion, as printf writes it with its flags and width. */
static void kpc_npd_int(struct kpc_npd_out *o, const char *spec, size_t n, char conv)
{
	char f[32], t[64];
	size_t k = 0;

	for (size_t i = 0; i < n && k < sizeof(f) - 4; i++)
		if (strchr("-+ #0123456789.", spec[i]))
			f[k++] = spec[i];
	f[k] = '\0';
	snprintf(t, sizeof(t), "%%%sll%c", f, conv);
	if (strchr("xXo", conv))
		snprintf(f, sizeof(f), t, 0ULL);
	else
		snprintf(f, sizeof(f), t, 1ULL);
	kpc_npd_put(o, f, strlen(f));
}

char *kpc_npdcheck_render(const char *fmt, const char *word, const char *inner,
			  char *buf, size_t len)
{
	struct kpc_npd_out o = { buf, len, 0 };
	const char *p = fmt, *spec;

	buf[0] = '\0';
	while (*p) {
		const char *pct = strchr(p, '%');

		if (!pct) {
			kpc_npd_put(&o, p, strlen(p));
			break;
		}
		kpc_npd_put(&o, p, pct - p);
		spec = p = pct + 1;
		/* Flags, width, precision ("*" is an argument of its own), length. */
		p += strspn(p, "-+ #0123456789.*");
		p += strspn(p, "hlLqjzt");
		switch (*p) {
		case '%':
			kpc_npd_put(&o, "%", 1);
			p++;
			break;
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			kpc_npd_int(&o, spec, p - spec, *p == 'i' ? 'd' : *p);
			p++;
			break;
		case 'c':
			kpc_npd_put(&o, "x", 1);
			p++;
			break;
		case 's':
			kpc_npd_put(&o, word, strlen(word));
			p++;
			break;
		case 'p':
			p = kpc_npd_pointer(&o, p + 1, word, inner);
			break;
		case '\0':
			break;
		default:
			p++;
			break;
		}
	}
	return buf;
}

int kpc_npdcheck_matches_format(const struct kpc_npdcheck_rule *rule, const char *fmt,
				const char *inner, char *buf, size_t len)
{
	bool conv = strchr(fmt, '%') || (inner && strchr(inner, '%'));
	char in[512];

	for (int w = -1; w < (int)rule->nwords; w++) {
		const char *word = w < 0 ? "x" : rule->words[w];

		if (inner)
			kpc_npdcheck_render(inner, word, NULL, in, sizeof(in));
		kpc_npdcheck_render(fmt, word, inner ? in : NULL, buf, len);
		if (kpc_npdcheck_match(rule, buf))
			return w < 0 ? KPC_NPD_MATCH : KPC_NPD_MATCH_WORD;
		if (!conv)
			break;	/* no conversion: the same text again */
	}
	return 0;
}
