// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a text could be what a kernel printf format printed:
 * kpc_format_matches().  The problem matcher needs it for the message a
 * wrapper's %pV carries (ext4's, XFS's): the record has that message only
 * as one rendered argument, and the rule names its format.
 *
 * The format is parsed by kpc_fmt_parse() (kpc_catalog_fmt.c, vsprintf()'s
 * token rules), so that both agree on what a conversion is.  Each
 * conversion then matches the bytes its kind renders: digits of its base
 * for the integers (with the padding a width gives and the sign), one byte
 * for %c, anything for %s, and for %p the characters of its extension
 * where the extension has a fixed alphabet (hashed pointers, bitmaps,
 * addresses), anything where it has not (%pS symbols, %pV, %pd names).
 * Where several splits fit ("%s: %s"), the earliest end of each conversion
 * wins, as a reader would split it.  Matching backtracks, with the
 * (item, offset) pairs known to fail remembered, so that no text costs more
 * than items x length x length steps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_catalog_fmt.h"
#include "kpc_problems_int.h"

enum kpc_fm_class {
	KPC_FM_ANY,		/* %s, %pS, %pV, ...: any bytes, none too */
	KPC_FM_DEC,		/* %d %i: signed decimal */
	KPC_FM_UDEC,		/* %u */
	KPC_FM_HEX,		/* %x %X */
	KPC_FM_OCT,		/* %o */
	KPC_FM_CHAR,		/* %c: one byte */
	/* The %p kinds, from here on: a pointer they cannot read is "(...)". */
	KPC_FM_PTR,		/* %p %px %pK: hex digits, or "(null)"-like */
	KPC_FM_BITLIST,		/* %*pbl: "0-3,8" */
	KPC_FM_BITMAP,		/* %*pb: "ff,00000001" */
	KPC_FM_ERR,		/* %pe: "-ENOMEM" or "-12" */
	KPC_FM_IP4,		/* %pI4 %pi4 */
	KPC_FM_HEXSEP,		/* %pI6 %pM %pU: hex digits and : . - */
};

struct kpc_fm_item {
	bool conv;
	const char *lit;	/* a literal run, unescaped */
	size_t len;
	enum kpc_fm_class cls;
	bool pad_left;		/* a width: spaces before */
	bool pad_right;		/* '-' and a width: spaces after */
	bool alt;		/* '#': "0x" before hex digits */
	bool pv;		/* %pV */
};

struct kpc_fm {
	unsigned int nitems, nconv;
	size_t literal;
	struct kpc_fm_item item[2 * KPC_FMT_CONV_MAX + 1];
	char lit[];		/* the literal runs, unescaped */
};

/* The class of a %p extension ("" for a bare %p). */
static enum kpc_fm_class kpc_fm_pclass(const char *ext)
{
	if (!*ext || !strcmp(ext, "x") || !strcmp(ext, "K"))
		return KPC_FM_PTR;
	if (!strcmp(ext, "bl"))
		return KPC_FM_BITLIST;
	if (!strcmp(ext, "b"))
		return KPC_FM_BITMAP;
	if (!strcmp(ext, "e"))
		return KPC_FM_ERR;
	if (!strcmp(ext, "I4") || !strcmp(ext, "i4"))
		return KPC_FM_IP4;
	if (!strncmp(ext, "I6", 2) || !strncmp(ext, "i6", 2) || ext[0] == 'M' ||
	    ext[0] == 'm' || ext[0] == 'U')
		return KPC_FM_HEXSEP;
	return KPC_FM_ANY;
}

/* A canonical spec ("%-08.3lx", "%*pbl") as an item. */
static void kpc_fm_conv(const char *spec, struct kpc_fm_item *it)
{
	const char *p = spec + 1;
	bool left = false, width = false;

	it->conv = true;
	for (; *p && strchr("-+ #0", *p); p++) {
		left |= *p == '-';
		it->alt |= *p == '#';
	}
	while (*p == '*' || (*p >= '0' && *p <= '9')) {
		width = true;
		p++;
	}
	if (*p == '.')
		for (p++; *p == '*' || (*p >= '0' && *p <= '9'); p++)
			;
	while (*p && strchr("hlLzt", *p))
		p++;
	it->pad_left = width && !left;
	it->pad_right = width && left;
	switch (*p) {
	case 'd': case 'i':
		it->cls = KPC_FM_DEC;
		break;
	case 'u':
		it->cls = KPC_FM_UDEC;
		break;
	case 'x': case 'X':
		it->cls = KPC_FM_HEX;
		break;
	case 'o':
		it->cls = KPC_FM_OCT;
		break;
	case 'c':
		it->cls = KPC_FM_CHAR;
		break;
	case 'p':
		it->cls = kpc_fm_pclass(p + 1);
		it->pv = !strcmp(p, "pV");
		break;
	default:
		it->cls = KPC_FM_ANY;
		break;
	}
}

/*
 * Copy the literal run s[0..n) unescaped to *out as an item: each "%%"
 * (or "%5%", which vsprintf() prints as '%' too) becomes one '%'.
 */
static void kpc_fm_literal(struct kpc_fm *fm, const char *s, size_t n, char **out)
{
	struct kpc_fm_item *it;
	const char *end = s + n;
	char *start = *out;

	if (!n)
		return;
	while (s < end) {
		if (*s == '%') {
			const char *q = memchr(s + 1, '%', end - s - 1);

			*(*out)++ = '%';
			s = q ? q + 1 : end;
			continue;
		}
		*(*out)++ = *s++;
	}
	it = &fm->item[fm->nitems++];
	memset(it, 0, sizeof(*it));
	it->lit = start;
	it->len = *out - start;
	fm->literal += it->len;
}

int kpc_fm_compile(const char *format, struct kpc_fm **out, char *why, size_t size)
{
	struct kpc_fmt f;
	struct kpc_fm *fm;
	size_t at = 0;
	char *lit;
	unsigned int i;
	int err;

	*out = NULL;
	err = kpc_fmt_parse(format, false, &f, why, size);
	if (err)
		return err;
	fm = calloc(1, sizeof(*fm) + strlen(format) + 1);
	if (!fm)
		return -ENOMEM;
	lit = fm->lit;
	for (i = 0; i < f.n; i++) {
		kpc_fm_literal(fm, format + at, f.conv[i].off - at, &lit);
		kpc_fm_conv(f.conv[i].spec, &fm->item[fm->nitems++]);
		at = f.conv[i].off + f.conv[i].len;
	}
	kpc_fm_literal(fm, format + at, strlen(format + at), &lit);
	fm->nconv = f.n;
	*out = fm;
	return 0;
}

void kpc_fm_free(struct kpc_fm *fm)
{
	free(fm);
}

unsigned int kpc_fm_nconv(const struct kpc_fm *fm)
{
	return fm->nconv;
}

size_t kpc_fm_literal_len(const struct kpc_fm *fm)
{
	return fm->literal;
}

bool kpc_fm_is_pv(const struct kpc_fm *fm, unsigned int i)
{
	unsigned int k, c = 0;

	for (k = 0; k < fm->nitems; k++) {
		if (!fm->item[k].conv)
			continue;
		if (c++ == i)
			return fm->item[k].pv;
	}
	return false;
}

static bool kpc_fm_in(enum kpc_fm_class cls, unsigned char c)
{
	bool dec = c >= '0' && c <= '9';
	bool hex = dec || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');

	switch (cls) {
	case KPC_FM_DEC:
	case KPC_FM_UDEC:
		return dec;
	case KPC_FM_HEX:
	case KPC_FM_PTR:
		return hex;
	case KPC_FM_OCT:
		return c >= '0' && c <= '7';
	case KPC_FM_BITLIST:
		return dec || c == ',' || c == '-';
	case KPC_FM_BITMAP:
		return hex || c == ',';
	case KPC_FM_ERR:
		return dec || c == '-' || (c >= 'A' && c <= 'Z');
	case KPC_FM_IP4:
		return dec || c == '.';
	case KPC_FM_HEXSEP:
		return hex || c == ':' || c == '.' || c == '-';
	default:
		return true;
	}
}

static size_t kpc_fm_span(enum kpc_fm_class cls, const char *s, size_t at, size_t len)
{
	while (at < len && kpc_fm_in(cls, s[at]))
		at++;
	return at;
}

/*
 * The ends conversion it may have when it starts at pos: every end in
 * [*lo, *hi] renders it.  False when none does.
 */
static bool kpc_fm_ends(const struct kpc_fm_item *it, const char *s, size_t pos,
			size_t len, size_t *lo, size_t *hi)
{
	size_t p = pos, d;

	if (it->cls == KPC_FM_ANY) {
		*lo = pos;
		*hi = len;
		return true;
	}
	if (it->pad_left || it->cls == KPC_FM_DEC)
		while (p < len && s[p] == ' ')
			p++;
	if (it->cls == KPC_FM_CHAR) {
		/* A padded space is a space too: any of them may be the char. */
		*lo = pos + 1;
		*hi = p < len ? p + 1 : p;
		return *lo <= *hi && *lo <= len;
	}
	/* check_pointer()'s "(null)", "(efault)"; plain %p's "(____ptrval____)". */
	if (it->cls >= KPC_FM_PTR && p < len && s[p] == '(') {
		const char *q = memchr(s + p, ')', len - p);

		if (!q)
			return false;
		*lo = *hi = q + 1 - s;
		return true;
	}
	if (it->cls == KPC_FM_DEC && p < len && (s[p] == '-' || s[p] == '+'))
		p++;
	if (it->alt && it->cls == KPC_FM_HEX && p + 1 < len && s[p] == '0' &&
	    (s[p + 1] == 'x' || s[p + 1] == 'X'))
		p += 2;
	d = kpc_fm_span(it->cls, s, p, len);
	/* A bitmap may be empty (no bit set); every other kind has a digit. */
	if (d == p && it->cls != KPC_FM_BITLIST && it->cls != KPC_FM_BITMAP)
		return false;
	*lo = d == p ? p : p + 1;
	*hi = d;
	if (it->pad_right)
		while (*hi < len && s[*hi] == ' ')
			(*hi)++;
	return true;
}

struct kpc_fm_run {
	const struct kpc_fm *fm;
	const char *s;
	size_t len;
	unsigned char *failed;	/* bit (item * (len + 1) + pos): known to fail */
	const char **spans;
	size_t *lens;
	unsigned int room;
};

static bool kpc_fm_failed(struct kpc_fm_run *r, unsigned int k, size_t pos, bool set)
{
	size_t bit = (size_t)k * (r->len + 1) + pos;

	if (set)
		r->failed[bit / 8] |= 1u << (bit % 8);
	return r->failed[bit / 8] & (1u << (bit % 8));
}

/* Items k.. match s[pos..len); conv is the index of item k's conversion. */
static bool kpc_fm_from(struct kpc_fm_run *r, unsigned int k, unsigned int conv, size_t pos)
{
	const struct kpc_fm_item *it = &r->fm->item[k];
	const struct kpc_fm_item *next = k + 1 < r->fm->nitems ? it + 1 : NULL;
	size_t lo, hi, e;

	if (k == r->fm->nitems)
		return pos == r->len;
	if (kpc_fm_failed(r, k, pos, false))
		return false;
	if (!it->conv) {
		if (r->len - pos >= it->len && !memcmp(r->s + pos, it->lit, it->len) &&
		    kpc_fm_from(r, k + 1, conv, pos + it->len))
			return true;
		kpc_fm_failed(r, k, pos, true);
		return false;
	}
	if (kpc_fm_ends(it, r->s, pos, r->len, &lo, &hi)) {
		/* The last item must end the text; a literal next must start there. */
		if (!next)
			lo = hi == r->len ? hi : hi + 1;
		for (e = lo; e <= hi; e++) {
			if (next && !next->conv && (e == r->len || r->s[e] != next->lit[0]))
				continue;
			if (conv < r->room) {
				r->spans[conv] = r->s + pos;
				r->lens[conv] = e - pos;
			}
			if (kpc_fm_from(r, k + 1, conv + 1, e))
				return true;
		}
	}
	kpc_fm_failed(r, k, pos, true);
	return false;
}

bool kpc_fm_match(const struct kpc_fm *fm, const char *text, size_t text_len,
		  const char **spans, size_t *lens, unsigned int *n)
{
	struct kpc_fm_run r = {
		.fm = fm, .s = text, .len = text_len,
		.spans = spans, .lens = lens,
		.room = spans && lens && n ? *n : 0,
	};
	size_t bits = (size_t)(fm->nitems + 1) * (text_len + 1);
	bool ok;

	if (text_len > SIZE_MAX / 2 / (fm->nitems + 1))
		return false;
	r.failed = calloc(bits / 8 + 1, 1);
	if (!r.failed)
		return false;
	ok = kpc_fm_from(&r, 0, 0, 0);
	free(r.failed);
	if (ok && n)
		*n = fm->nconv;
	return ok;
}

bool kpc_format_matches(const char *format, const char *text, size_t text_len,
			const char **spans, size_t *lens, unsigned int *n)
{
	struct kpc_fm *fm;
	char why[128];
	bool ok;

	if (!format || (!text && text_len) || kpc_fm_compile(format, &fm, why, sizeof(why)))
		return false;
	ok = kpc_fm_match(fm, text ? text : "", text_len, spans, lens, n);
	kpc_fm_free(fm);
	return ok;
}
