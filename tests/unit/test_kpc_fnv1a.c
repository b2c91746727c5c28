// SPDX-License-Identifier: GPL-2.0
/*
 * include/kprint_fnv1a.h, the FNV-1a 64 every side of kprint hashes with:
 * the published test vectors, strings against byte ranges, chaining (the
 * tags id), bytes >= 0x80, and that the header builds with no libc and no
 * system header at all, as a kernel or BPF build includes it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprint_fnv1a.h"
#include "test_kpc_tap.h"

/* The FNV reference vectors (www.isthe.com/chongo/tech/comp/fnv). */
static const struct {
	const char *s;
	uint64_t hash;
} vectors[] = {
	{ "", 0xcbf29ce484222325ULL },
	{ "a", 0xaf63dc4c8601ec8cULL },
	{ "foobar", 0x85944171f73967e8ULL },
};

static void test_vectors(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const char *s = vectors[i].s;

		tap_ok(kprint_fnv1a64(s) == vectors[i].hash,
		       "FNV-1a 64 of \"%s\" is %016llx", s,
		       (unsigned long long)vectors[i].hash);
		tap_ok(kprint_fnv1a64_mem(s, strlen(s)) == vectors[i].hash,
		       "the same over its %zu bytes", strlen(s));
	}
	tap_ok(kprint_fnv1a64_byte(KPRINT_FNV1A64_OFFSET, 'a') == 0xaf63dc4c8601ec8cULL,
	       "one byte step from the offset basis is the hash of that byte");
}

static void test_chaining(void)
{
	/* What kprint.ko hashes for a BPF key's tags id: both NULs in. */
	static const char tags[] = "usb-storage\0usb_storage";
	uint64_t whole = kprint_fnv1a64_mem(tags, sizeof(tags));
	uint64_t chained = kprint_fnv1a64_add(kprint_fnv1a64_mem("usb-storage", 12),
					      "usb_storage", 12);

	tap_ok(whole == chained, "chained calls hash the concatenation");
	tap_ok(kprint_fnv1a64_mem("sm", 2) != kprint_fnv1a64_mem("s\0m", 3),
	       "the NUL between the tags is hashed");
	tap_ok(kprint_fnv1a64_add(whole, "", 0) == whole, "adding no bytes changes nothing");
	tap_ok(kprint_fnv1a64_mem("foobar", 3) == kprint_fnv1a64("foo"),
	       "a byte range stops at its length, not at a NUL or past it");
}

static void test_high_bytes(void)
{
	/* A signed char would sign-extend 0xff into the xor. */
	const char s[] = "\xff\x80";
	uint64_t h = KPRINT_FNV1A64_OFFSET;

	h = (h ^ 0xff) * KPRINT_FNV1A64_PRIME;
	h = (h ^ 0x80) * KPRINT_FNV1A64_PRIME;
	tap_ok(kprint_fnv1a64(s) == h && kprint_fnv1a64_mem(s, 2) == h,
	       "bytes >= 0x80 are hashed as unsigned");
}

/* The header's directory, from this file's path (the Makefile passes it absolute). */
static void include_dir(char *buf, size_t size)
{
	const char *slash = strrchr(__FILE__, '/');
	int n = slash ? (int)(slash - __FILE__) : 1;

	snprintf(buf, size, "%.*s/../../include", n, slash ? __FILE__ : ".");
}

static void test_freestanding(void)
{
	static const char probe[] =
		"#include \"kprint_fnv1a.h\"\n"
		"unsigned long long probe(const char *s, unsigned long n)\n"
		"{ return kprint_fnv1a64(s) ^ kprint_fnv1a64_mem(s, n); }\n";
	const char *cc = getenv("CC");
	char dir[4096], cmd[8192];
	FILE *p;
	int status;

	include_dir(dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd),
		 "%s -std=gnu11 -ffreestanding -nostdinc -Wall -Wextra -Werror "
		 "-fsyntax-only -I'%s' -x c - 2>&1", cc && *cc ? cc : "cc", dir);
	p = popen(cmd, "w");
	if (!p) {
		tap_ok(0, "the header builds with no libc and no system header (popen failed)");
		return;
	}
	fputs(probe, p);
	status = pclose(p);
	tap_ok(status == 0, "the header builds with no libc and no system header");
}

int main(void)
{
	test_vectors();
	test_chaining();
	test_high_bytes();
	test_freestanding();
	return tap_done();
}
