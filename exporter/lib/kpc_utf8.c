// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "kpc_utf8.h"

size_t kpc_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t need, i;
	uint32_t v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	/*
	 * The first byte fixes the length and narrows the range of the
	 * second byte; that is what rules out overlongs (E0 80..9F, F0
	 * 80..8F), surrogates (ED A0..BF) and > U+10FFFF (F4 90..BF).
	 */
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else {
		*cp = KPC_UTF8_INVALID;
		return 1;
	}

	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*cp = KPC_UTF8_INVALID;
			return i;
		}
		v = (v << 6) | (s[i] & 0x3F);
		lo = 0x80;
		hi = 0xBF;
	}
	*cp = v;
	return need + 1;
}

char *kpc_utf8_sanitize(const char *s)
{
	static const char replacement[] = "\xEF\xBF\xBD";
	const unsigned char *in = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	char *out;

	/* Worst case: every byte becomes a 3-byte U+FFFD. */
	out = malloc(3 * n + 1);
	if (!out)
		return NULL;

	while (i < n) {
		uint32_t cp;
		size_t len = kpc_utf8_next(in + i, n - i, &cp);

		if (cp == KPC_UTF8_INVALID) {
			memcpy(out + o, replacement, 3);
			o += 3;
		} else {
			memcpy(out + o, in + i, len);
			o += len;
		}
		i += len;
	}
	out[o] = '\0';
	return out;
}
