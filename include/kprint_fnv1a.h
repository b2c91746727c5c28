/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * FNV-1a 64, the one hash of kprint: a record's format id is the hash of
 * its format string, a BPF counter's tags id that of "subsystem\0module\0".
 *
 * One copy for every side: kprint.ko, the BPF counters, libkpc and the
 * exporter compute ids that must agree bit for bit, so they share this
 * header instead of each writing the loop.  It needs nothing but the
 * compiler (no libc, no kernel header, no vmlinux.h type): the constants
 * come from the UAPI header, included by its path relative to this file so
 * that it resolves the same in a kernel, a BPF and a userspace build.
 */
#ifndef KPRINT_FNV1A_H
#define KPRINT_FNV1A_H

#include "uapi/linux/kprint.h"

/* One byte more of a running hash. */
static inline unsigned long long kprint_fnv1a64_byte(unsigned long long hash,
						     unsigned char c)
{
	return (hash ^ c) * KPRINT_FNV1A64_PRIME;
}

/*
 * A running hash continued over @len bytes at @p, NULs and all: chained
 * calls hash the concatenation (as the tags id does).  A BPF caller passes
 * a @len it has bounded, so that the verifier sees the loop end.
 */
static inline unsigned long long kprint_fnv1a64_add(unsigned long long hash,
						    const void *p, unsigned long len)
{
	const unsigned char *b = (const unsigned char *)p;
	unsigned long i;

	for (i = 0; i < len; i++)
		hash = kprint_fnv1a64_byte(hash, b[i]);
	return hash;
}

/* FNV-1a 64 of @len bytes at @p. */
static inline unsigned long long kprint_fnv1a64_mem(const void *p, unsigned long len)
{
	return kprint_fnv1a64_add(KPRINT_FNV1A64_OFFSET, p, len);
}

/* The format id of the NUL-terminated format @s (the NUL not hashed). */
static inline unsigned long long kprint_fnv1a64(const char *s)
{
	unsigned long long hash = KPRINT_FNV1A64_OFFSET;

	while (*s)
		hash = kprint_fnv1a64_byte(hash, (unsigned char)*s++);
	return hash;
}

#endif /* KPRINT_FNV1A_H */
