/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel printf formats as a message catalog sees them: parsed the way
 * lib/vsprintf.c's format_decode() parses them (kernel/kprint_render.c
 * mirrors it, and so does this), plus the POSIX positional forms a
 * translation may use, and the checker that decides whether a msgstr may
 * stand for its msgid.
 *
 * Why our own checker and not msgfmt --check-format: gettext's c-format
 * knows glibc's printf, not the kernel's.  It reads "%pI4" as "%p" and a
 * literal "I4", so it accepts "%pI6" for it, and it counts "%*d" as two
 * ints, so it accepts "%d %d" for it.  A record holds one rendered string
 * per conversion ("%*d" included, already padded), and a translation can
 * only place those strings, not render them again: so here the identity of
 * a conversion is all of it, flags, width, precision, length, the
 * conversion and the %p extension (every alphanumeric after %p, as
 * vsprintf() takes them), and a msgstr must use exactly the msgid's.
 *
 * Positional numbers count C arguments, as in POSIX printf and gettext, so
 * that catalogs stay valid for msgfmt: msgid "%*d %s" takes arguments 1
 * (the width), 2 (the value) and 3, and a positional msgstr writes them
 * "%3$s %2$*1$d".  A '*' in a positional msgstr must name its argument
 * ("*1$"), which must be the msgid's width (or precision) argument of the
 * same value.
 */
#ifndef KPC_CATALOG_FMT_H
#define KPC_CATALOG_FMT_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/kprint.h>

/* Conversions per format: a record holds at most KPRINT_ARGS_MAX args. */
#define KPC_FMT_CONV_MAX	KPRINT_ARGS_MAX
/* A conversion in canonical form: "%-08.3lx", "%pISpc"; longer is refused. */
#define KPC_FMT_SPEC_MAX	48

struct kpc_fmt_conv {
	char spec[KPC_FMT_SPEC_MAX];	/* canonical, without positions */
	unsigned int arg;		/* C argument of the value, from 1 */
	unsigned int width_arg;		/* of a '*' width; 0: none */
	unsigned int prec_arg;		/* of a '*' precision; 0: none */
	size_t off, len;		/* where it is in the string */
};

struct kpc_fmt {
	struct kpc_fmt_conv conv[KPC_FMT_CONV_MAX];
	unsigned int n;			/* conversions (%% is none) */
	unsigned int nargs;		/* C arguments they take */
	bool positional;		/* every conversion numbered */
};

/*
 * Parse s.  positional: allow "%N$" (a msgstr; the kernel's vsprintf()
 * knows no positions, so a msgid never has them).  Returns 0, or -EINVAL
 * with why (a sentence naming the conversion) in why[size].
 */
int kpc_fmt_parse(const char *s, bool positional, struct kpc_fmt *f,
		  char *why, size_t size);

/*
 * Does str (a msgstr) take the same arguments with the same conversions
 * as id (its msgid): in the same order when not positional, each exactly
 * once in any order when positional?  ids and strs are the strings they
 * were parsed from, for the messages.  Fills map[i] with the index into
 * id->conv of str->conv[i] (the record argument it shows).  Returns 0, or
 * -EINVAL with why naming the conversion that differs.
 */
int kpc_fmt_check(const struct kpc_fmt *id, const char *ids,
		  const struct kpc_fmt *str, const char *strs,
		  unsigned char map[KPC_FMT_CONV_MAX], char *why, size_t size);

/*
 * Where the next conversion or %% of s starts, parsed as kpc_fmt_parse()
 * does (s already passed it): *len its length, *percent true for a %%.
 * NULL when there is none.  For rendering, which walks the msgstr again.
 */
const char *kpc_fmt_next(const char *s, size_t *len, bool *percent);

#endif /* KPC_CATALOG_FMT_H */
