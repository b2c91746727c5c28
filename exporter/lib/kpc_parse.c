// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>

#include "kpc_parse.h"

int kpc_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The value of digit c, or 16 (a digit of no base taken) for anything else. */
static unsigned int kpc_digit(char c)
{
	int d = kpc_hex_digit(c);

	return d < 0 ? 16 : d;
}

int kpc_parse_u64(const char *s, int base, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool too_big = false;

	if ((base != 10 && base != 16) || !*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d = kpc_digit(*s);

		if (d >= (unsigned int)base)
			return -EINVAL;
		/* Keep reading after an overflow: "99999999999999999999x" is not a number. */
		if (d > max || v > (max - d) / base)
			too_big = true;
		else
			v = v * base + d;
	}
	if (too_big)
		return -ERANGE;
	*out = v;
	return 0;
}
