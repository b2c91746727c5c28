/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harnesses share: an assertion that libFuzzer sees as a crash,
 * and a UTF-8 checker written from the Unicode tables rather than from
 * kpc_utf8.c, so that an oracle does not trust the code it judges.
 */
#ifndef KPRINT_FUZZ_H
#define KPRINT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* abort() is a crash to libFuzzer: the input is saved as an artifact. */
#define fuzz_assert(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: oracle failed: %s: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

/*
 * Length of the well-formed sequence at s (Unicode 15, table 3-7), or 0
 * when none starts there.  Stores the code point in *cp.
 */
static inline size_t fuzz_utf8_seq(const unsigned char *s, size_t n,
				   unsigned int *cp)
{
	/* Per lead byte range: length, and the range of the second byte. */
	static const struct {
		unsigned char lead_lo, lead_hi, len, lo, hi;
	} rows[] = {
		{ 0x00, 0x7F, 1, 0, 0 },
		{ 0xC2, 0xDF, 2, 0x80, 0xBF },
		{ 0xE0, 0xE0, 3, 0xA0, 0xBF },
		{ 0xE1, 0xEC, 3, 0x80, 0xBF },
		{ 0xED, 0xED, 3, 0x80, 0x9F },
		{ 0xEE, 0xEF, 3, 0x80, 0xBF },
		{ 0xF0, 0xF0, 4, 0x90, 0xBF },
		{ 0xF1, 0xF3, 4, 0x80, 0xBF },
		{ 0xF4, 0xF4, 4, 0x80, 0x8F },
	};
	size_t r, i;

	if (!n)
		return 0;
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		if (s[0] < rows[r].lead_lo || s[0] > rows[r].lead_hi)
			continue;
		if (rows[r].len == 1) {
			*cp = s[0];
			return 1;
		}
		if (n < rows[r].len || s[1] < rows[r].lo || s[1] > rows[r].hi)
			return 0;
		for (i = 2; i < rows[r].len; i++)
			if (s[i] < 0x80 || s[i] > 0xBF)
				return 0;
		*cp = s[0] & (0xFF >> (rows[r].len + 1));
		for (i = 1; i < rows[r].len; i++)
			*cp = (*cp << 6) | (s[i] & 0x3F);
		return rows[r].len;
	}
	return 0;
}

static inline bool fuzz_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned int cp;
	size_t len;

	while (n) {
		len = fuzz_utf8_seq(p, n, &cp);
		if (!len)
			return false;
		p += len;
		n -= len;
	}
	return true;
}

#endif /* KPRINT_FUZZ_H */
