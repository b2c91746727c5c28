/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 validation shared by the JSON and text renderers.  Records carry
 * whatever bytes the kernel was given, so neither renderer may assume
 * valid UTF-8.
 */
#ifndef KPC_UTF8_H
#define KPC_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Code point reported for an ill-formed sequence. */
#define KPC_UTF8_INVALID	0xFFFFFFFFu

/*
 * Decode the sequence at s (n bytes available).  Returns how many bytes it
 * takes (>= 1 when n >= 1) and stores its code point, or KPC_UTF8_INVALID
 * when those bytes are a maximal ill-formed subpart (Unicode 15, 3.9 "U+FFFD
 * substitution of maximal subparts", the same as Python's "replace").
 * Overlongs, surrogates and code points past U+10FFFF are ill-formed.
 */
size_t kpc_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/*
 * A malloc'd copy of s in which every ill-formed subpart is replaced by
 * U+FFFD; NULL when out of memory.
 */
char *kpc_utf8_sanitize(const char *s);

#endif /* KPC_UTF8_H */
