/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one integer parser of kprint's userspace: command-line options, the
 * exporter's flags, /records queries and replay files all take numbers
 * through it, so that all of them refuse the same things.
 */
#ifndef KPC_PARSE_H
#define KPC_PARSE_H

#include <stdint.h>

/*
 * kpc_parse_u64() - a whole unsigned number, nothing around it
 * @s:    NUL-terminated text
 * @base: 10, or 16 (digits 0-9, a-f and A-F)
 * @max:  the largest value taken
 * @out:  the value; left alone on error
 *
 * Digits only: no sign, no blank, no "0x", nothing after the last digit
 * (strtoull() would take " +1", "-1" as 2^64 - 1 and "0x1f" in base 16).
 *
 * Return: 0; -EINVAL for an empty @s, a non-digit or another base;
 * -ERANGE for a value above @max (or above 2^64 - 1).
 */
int kpc_parse_u64(const char *s, int base, uint64_t max, uint64_t *out);

/*
 * kpc_hex_digit() - the value of a hexadecimal digit
 * @c: 0-9, a-f or A-F
 *
 * Return: 0 to 15; -1 for any other character.
 */
int kpc_hex_digit(char c);

#endif /* KPC_PARSE_H */
