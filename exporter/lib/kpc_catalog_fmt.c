// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel printf formats for catalogs: the parser and the checker of
 * kpc_catalog_fmt.h.  The token rules are format_decode()'s of Linux 6.1,
 * as kernel/kprint_render.c's kprint_fmt_decode() has them: flags "-+ #0",
 * a width (digits or '*'), a precision ('.' then digits or '*'), the
 * lengths hh h l ll L z t, the conversions c s p d i o u x X %, and after
 * %p every alphanumeric.  Anything else (%n, %f, a lone % at the end) is
 * where vsprintf() stops: a record's args end there, and a catalog entry
 * with it is refused rather than half translated.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kpc_catalog_fmt.h"

enum kpc_fmt_kind {
	KPC_FMT_TOK_END,
	KPC_FMT_TOK_LITERAL,
	KPC_FMT_TOK_PERCENT,
	KPC_FMT_TOK_CONV,
	KPC_FMT_TOK_INVALID,
};

/* Arguments a positional number may name: three per conversion at most. */
#define KPC_FMT_ARG_MAX		(3 * KPC_FMT_CONV_MAX)

struct kpc_fmt_tok {
	enum kpc_fmt_kind kind;
	size_t len;			/* bytes of the string it covers */
	unsigned int pos;		/* "%N$": N; 0 when not numbered */
	bool star_w, star_p;
	unsigned int width_pos, prec_pos; /* "*N$": N */
	bool unnumbered_star;		/* a '*' without "N$" */
	char spec[KPC_FMT_SPEC_MAX];	/* canonical; "" when too long */
	const char *why;		/* KPC_FMT_TOK_INVALID: what is wrong */
};

static bool kpc_fmt_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool kpc_fmt_alnum(char c)
{
	return kpc_fmt_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * "N$" at *p (N from 1): its value, *p moved past it; 0 and *p unchanged
 * when there is none.  Values past KPC_FMT_ARG_MAX come back as
 * KPC_FMT_ARG_MAX + 1, for the caller to refuse.
 */
static unsigned int kpc_fmt_position(const char **p)
{
	const char *q = *p;
	unsigned int v = 0;

	if (*q < '1' || *q > '9')
		return 0;
	while (kpc_fmt_digit(*q)) {
		if (v <= KPC_FMT_ARG_MAX)
			v = v * 10 + (*q - '0');
		q++;
	}
	if (*q != '$')
		return 0;
	*p = q + 1;
	return v > KPC_FMT_ARG_MAX ? KPC_FMT_ARG_MAX + 1 : v;
}

/* A '*' (width or precision) at *p, and its "N$" when positional. */
static bool kpc_fmt_star(const char **p, bool positional, unsigned int *pos,
			 struct kpc_fmt_tok *t)
{
	if (**p != '*')
		return false;
	(*p)++;
	*pos = positional ? kpc_fmt_position(p) : 0;
	if (!*pos)
		t->unnumbered_star = true;
	return true;
}

/* Append n bytes of s to the canonical spec; false when it is full. */
static bool kpc_fmt_put(char *spec, size_t *at, const char *s, size_t n)
{
	if (*at + n >= KPC_FMT_SPEC_MAX)
		return false;
	memcpy(spec + *at, s, n);
	*at += n;
	spec[*at] = '\0';
	return true;
}

/* One token of s: a literal run, a %%, a conversion or an invalid one. */
static void kpc_fmt_token(const char *s, bool positional, struct kpc_fmt_tok *t)
{
	static const char flag_chars[] = "-+ #0";
	const char *p = s, *w, *pr = NULL, *len_at, *conv;
	size_t at = 0, wlen = 0, prlen = 0, lenlen;
	unsigned int flags = 0, i;
	bool ok;

	memset(t, 0, sizeof(*t));
	if (!*p) {
		t->kind = KPC_FMT_TOK_END;
		return;
	}
	if (*p != '%') {
		while (*p && *p != '%')
			p++;
		t->kind = KPC_FMT_TOK_LITERAL;
		t->len = p - s;
		return;
	}

	p++;
	if (positional)
		t->pos = kpc_fmt_position(&p);
	for (;;) {
		const char *f = *p ? strchr(flag_chars, *p) : NULL;

		if (!f)
			break;
		flags |= 1u << (f - flag_chars);
		p++;
	}
	w = p;
	if (!kpc_fmt_star(&p, positional, &t->width_pos, t)) {
		while (kpc_fmt_digit(*p))
			p++;
		wlen = p - w;
	} else {
		t->star_w = true;
	}
	if (*p == '.') {
		pr = p++;
		if (kpc_fmt_star(&p, positional, &t->prec_pos, t)) {
			t->star_p = true;
		} else {
			while (kpc_fmt_digit(*p))
				p++;
			prlen = p - pr;
		}
	}
	len_at = p;
	if (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'z' || *p == 't') {
		char q = *p++;

		if (q == *p && (q == 'l' || q == 'h'))
			p++;
	}
	lenlen = p - len_at;

	conv = p;
	switch (*p) {
	case 'p':
		p++;
		while (kpc_fmt_alnum(*p))
			p++;
		break;
	case '%':
	case 'c': case 's': case 'o': case 'x': case 'X': case 'u': case 'd': case 'i':
		p++;
		break;
	case '\0':
		t->kind = KPC_FMT_TOK_INVALID;
		t->why = "a '%' without a conversion at the end";
		t->len = p - s;
		return;
	case '$':
		t->kind = KPC_FMT_TOK_INVALID;
		t->why = positional ? "a position must come first, right after '%', and be 1 or more" :
			 "the kernel's vsprintf() knows no positional arguments";
		t->len = p + 1 - s;
		return;
	default:
		t->kind = KPC_FMT_TOK_INVALID;
		t->why = *p == 'n' ? "%n is not a kernel conversion (vsprintf() stops at it)" :
			 "not a kernel conversion (vsprintf() stops at it; the kernel's are"
			 " d i u x X o c s p and %%)";
		t->len = p + 1 - s;
		return;
	}
	t->len = p - s;
	t->kind = *conv == '%' ? KPC_FMT_TOK_PERCENT : KPC_FMT_TOK_CONV;

	/* Canonical: '%', the flags in one order, width, precision, the rest. */
	ok = kpc_fmt_put(t->spec, &at, "%", 1);
	for (i = 0; ok && i < sizeof(flag_chars) - 1; i++)
		if (flags & (1u << i))
			ok = kpc_fmt_put(t->spec, &at, &flag_chars[i], 1);
	if (ok)
		ok = t->star_w ? kpc_fmt_put(t->spec, &at, "*", 1) : kpc_fmt_put(t->spec, &at, w, wlen);
	if (ok && pr)
		ok = t->star_p ? kpc_fmt_put(t->spec, &at, ".*", 2) : kpc_fmt_put(t->spec, &at, pr, prlen);
	if (ok)
		ok = kpc_fmt_put(t->spec, &at, len_at, lenlen);
	if (ok)
		ok = kpc_fmt_put(t->spec, &at, conv, p - conv);
	if (!ok) {
		t->kind = KPC_FMT_TOK_INVALID;
		t->why = "a conversion longer than any the kernel has";
	}
}

int kpc_fmt_parse(const char *s, bool positional, struct kpc_fmt *f,
		  char *why, size_t size)
{
	const char *p = s, *numbered = NULL, *plain = NULL;
	size_t numbered_len = 0, plain_len = 0;
	struct kpc_fmt_tok t;

	memset(f, 0, sizeof(*f));
	for (;; p += t.len) {
		struct kpc_fmt_conv *c;
		bool is_numbered;

		kpc_fmt_token(p, positional, &t);
		if (t.kind == KPC_FMT_TOK_END)
			break;
		if (t.kind == KPC_FMT_TOK_LITERAL)
			continue;
		if (t.kind == KPC_FMT_TOK_INVALID) {
			snprintf(why, size, "%.*s: %s", (int)t.len, p, t.why);
			return -EINVAL;
		}
		if (t.pos > KPC_FMT_ARG_MAX || t.width_pos > KPC_FMT_ARG_MAX ||
		    t.prec_pos > KPC_FMT_ARG_MAX) {
			snprintf(why, size, "%.*s: an argument number past %u", (int)t.len, p,
				 KPC_FMT_ARG_MAX);
			return -EINVAL;
		}
		if (t.kind == KPC_FMT_TOK_PERCENT) {
			/* vsprintf() eats a '*' of "%*%": an argument shown nowhere. */
			if (t.star_w || t.star_p) {
				snprintf(why, size, "%.*s: a '*' on %%%% takes an argument and"
					 " shows none", (int)t.len, p);
				return -EINVAL;
			}
			continue;
		}

		/* Numbered means all of it: "%1$*d" is as mixed as "%1$s %d". */
		if ((t.pos && t.unnumbered_star) || (!t.pos && (t.width_pos || t.prec_pos))) {
			snprintf(why, size, "%.*s: mixes positional and non-positional"
				 " arguments", (int)t.len, p);
			return -EINVAL;
		}
		is_numbered = t.pos;
		if (is_numbered && !numbered) {
			numbered = p;
			numbered_len = t.len;
		} else if (!is_numbered && !plain) {
			plain = p;
			plain_len = t.len;
		}
		if (numbered && plain) {
			snprintf(why, size, "mixes positional (%.*s) and non-positional (%.*s)"
				 " conversions", (int)numbered_len, numbered, (int)plain_len, plain);
			return -EINVAL;
		}
		if (f->n == KPC_FMT_CONV_MAX) {
			snprintf(why, size, "more than %u conversions: a record holds at most"
				 " %u arguments", KPC_FMT_CONV_MAX, KPRINT_ARGS_MAX);
			return -EINVAL;
		}

		c = &f->conv[f->n++];
		memcpy(c->spec, t.spec, sizeof(c->spec));
		c->off = p - s;
		c->len = t.len;
		if (is_numbered) {
			c->width_arg = t.width_pos;
			c->prec_arg = t.prec_pos;
			c->arg = t.pos;
		} else {
			/* In order, as C passes them: width, precision, value. */
			if (t.star_w)
				c->width_arg = ++f->nargs;
			if (t.star_p)
				c->prec_arg = ++f->nargs;
			c->arg = ++f->nargs;
		}
		if (c->arg > f->nargs)
			f->nargs = c->arg;
		if (c->width_arg > f->nargs)
			f->nargs = c->width_arg;
		if (c->prec_arg > f->nargs)
			f->nargs = c->prec_arg;
	}
	f->positional = numbered != NULL;
	return 0;
}

/* The conversion as written, for messages: "%2$*1$d", not "%*d". */
#define KPC_FMT_AS_WRITTEN(s, c)	(int)(c)->len, (s) + (c)->off

/* Which '*' argument of id's conversion i is arg, if any: "width", "precision". */
static const char *kpc_fmt_star_of(const struct kpc_fmt *id, unsigned int arg,
				   unsigned int *i)
{
	for (*i = 0; *i < id->n; (*i)++) {
		if (id->conv[*i].width_arg == arg)
			return "width";
		if (id->conv[*i].prec_arg == arg)
			return "precision";
	}
	return NULL;
}

static int kpc_fmt_check_ordered(const struct kpc_fmt *id, const char *ids,
				 const struct kpc_fmt *str, const char *strs,
				 unsigned char *map, char *why, size_t size)
{
	unsigned int i;

	for (i = 0; i < id->n || i < str->n; i++) {
		const struct kpc_fmt_conv *a = &id->conv[i], *b = &str->conv[i];

		if (i >= str->n) {
			snprintf(why, size, "msgstr lacks msgid's conversion %u, %.*s (the msgstr"
				 " has %u, the msgid %u)", i + 1, KPC_FMT_AS_WRITTEN(ids, a),
				 str->n, id->n);
			return -EINVAL;
		}
		if (i >= id->n) {
			snprintf(why, size, "msgstr's conversion %u, %.*s, is extra (the msgid"
				 " has %u)", i + 1, KPC_FMT_AS_WRITTEN(strs, b), id->n);
			return -EINVAL;
		}
		if (strcmp(a->spec, b->spec)) {
			snprintf(why, size, "msgstr's conversion %u is %.*s where the msgid's is"
				 " %.*s%s", i + 1, KPC_FMT_AS_WRITTEN(strs, b),
				 KPC_FMT_AS_WRITTEN(ids, a),
				 a->width_arg || a->prec_arg || b->width_arg || b->prec_arg ?
				 " (a '*' takes an argument of its own, rendered into the"
				 " value: it cannot move)" : "");
			return -EINVAL;
		}
		map[i] = i;
	}
	return 0;
}

static int kpc_fmt_check_numbered(const struct kpc_fmt *id, const char *ids,
				  const struct kpc_fmt *str, const char *strs,
				  unsigned char *map, char *why, size_t size)
{
	bool used[KPC_FMT_CONV_MAX] = { false };
	unsigned int i, j;

	for (j = 0; j < str->n; j++) {
		const struct kpc_fmt_conv *b = &str->conv[j], *a = NULL;
		const char *star;

		for (i = 0; i < id->n; i++)
			if (id->conv[i].arg == b->arg)
				a = &id->conv[i];
		if (!a) {
			star = kpc_fmt_star_of(id, b->arg, &i);
			if (star)
				snprintf(why, size, "msgstr's %.*s shows argument %u, which is the"
					 " '*' %s of the msgid's %.*s, not a value of its own",
					 KPC_FMT_AS_WRITTEN(strs, b), b->arg, star,
					 KPC_FMT_AS_WRITTEN(ids, &id->conv[i]));
			else
				snprintf(why, size, "msgstr's %.*s shows argument %u, which the"
					 " msgid does not have (it takes %u)",
					 KPC_FMT_AS_WRITTEN(strs, b), b->arg, id->nargs);
			return -EINVAL;
		}
		i = a - id->conv;
		if (strcmp(a->spec, b->spec)) {
			snprintf(why, size, "msgstr's %.*s is not the msgid's argument %u, %.*s",
				 KPC_FMT_AS_WRITTEN(strs, b), b->arg, KPC_FMT_AS_WRITTEN(ids, a));
			return -EINVAL;
		}
		if (a->width_arg != b->width_arg || a->prec_arg != b->prec_arg) {
			snprintf(why, size, "msgstr's %.*s takes its '*' from argument %u, the"
				 " msgid's %.*s from argument %u", KPC_FMT_AS_WRITTEN(strs, b),
				 a->width_arg != b->width_arg ? b->width_arg : b->prec_arg,
				 KPC_FMT_AS_WRITTEN(ids, a),
				 a->width_arg != b->width_arg ? a->width_arg : a->prec_arg);
			return -EINVAL;
		}
		if (used[i]) {
			snprintf(why, size, "msgstr shows argument %u twice (%.*s)", b->arg,
				 KPC_FMT_AS_WRITTEN(strs, b));
			return -EINVAL;
		}
		used[i] = true;
		map[j] = i;
	}
	for (i = 0; i < id->n; i++) {
		if (!used[i]) {
			snprintf(why, size, "msgstr lacks the msgid's argument %u, %.*s",
				 id->conv[i].arg, KPC_FMT_AS_WRITTEN(ids, &id->conv[i]));
			return -EINVAL;
		}
	}
	return 0;
}

int kpc_fmt_check(const struct kpc_fmt *id, const char *ids,
		  const struct kpc_fmt *str, const char *strs,
		  unsigned char map[KPC_FMT_CONV_MAX], char *why, size_t size)
{
	if (str->positional)
		return kpc_fmt_check_numbered(id, ids, str, strs, map, why, size);
	return kpc_fmt_check_ordered(id, ids, str, strs, map, why, size);
}

const char *kpc_fmt_next(const char *s, size_t *len, bool *percent)
{
	struct kpc_fmt_tok t;

	for (;; s += t.len) {
		kpc_fmt_token(s, true, &t);
		if (t.kind == KPC_FMT_TOK_END)
			return NULL;
		if (t.kind == KPC_FMT_TOK_LITERAL)
			continue;
		*len = t.len;
		*percent = t.kind == KPC_FMT_TOK_PERCENT;
		/* Parsed before: a conversion, a %%, never an invalid one. */
		return s;
	}
}
