// SPDX-License-Identifier: GPL-2.0
/*
 * kpc_parse_u64(), the integer parser of every number kprint's userspace
 * takes: what it accepts, what it refuses and why (-EINVAL or -ERANGE),
 * the bounds, and a comparison with strtoull() on many random strings.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_parse.h"
#include "test_kpc_tap.h"

#define SENTINEL	0x5a5a5a5a5a5a5a5aULL

static const struct {
	const char *s;
	int base;
	uint64_t max;
	int ret;
	uint64_t value;
} cases[] = {
	{ "0", 10, UINT64_MAX, 0, 0 },
	{ "42", 10, UINT64_MAX, 0, 42 },
	{ "0007", 10, UINT64_MAX, 0, 7 },
	{ "000000000000000000000000000001", 10, UINT64_MAX, 0, 1 },
	{ "18446744073709551615", 10, UINT64_MAX, 0, UINT64_MAX },
	{ "18446744073709551616", 10, UINT64_MAX, -ERANGE, 0 },
	{ "99999999999999999999", 10, UINT64_MAX, -ERANGE, 0 },
	{ "ffffffffffffffff", 16, UINT64_MAX, 0, UINT64_MAX },
	{ "10000000000000000", 16, UINT64_MAX, -ERANGE, 0 },
	{ "0123456789abcdef", 16, UINT64_MAX, 0, 0x0123456789abcdefULL },
	{ "FEDCBA9876543210", 16, UINT64_MAX, 0, 0xfedcba9876543210ULL },
	{ "255", 10, 255, 0, 255 },
	{ "256", 10, 255, -ERANGE, 0 },
	{ "ff", 16, 0xff, 0, 0xff },
	{ "100", 16, 0xff, -ERANGE, 0 },
	{ "1", 10, 0, -ERANGE, 0 },
	{ "0", 10, 0, 0, 0 },
	{ "", 10, UINT64_MAX, -EINVAL, 0 },
	{ "", 16, UINT64_MAX, -EINVAL, 0 },
	{ "-1", 10, UINT64_MAX, -EINVAL, 0 },
	{ "+1", 10, UINT64_MAX, -EINVAL, 0 },
	{ " 1", 10, UINT64_MAX, -EINVAL, 0 },
	{ "1 ", 10, UINT64_MAX, -EINVAL, 0 },
	{ "1\t", 10, UINT64_MAX, -EINVAL, 0 },
	{ "0x10", 10, UINT64_MAX, -EINVAL, 0 },
	{ "0x10", 16, UINT64_MAX, -EINVAL, 0 },
	{ "1a", 10, UINT64_MAX, -EINVAL, 0 },
	{ "1g", 16, UINT64_MAX, -EINVAL, 0 },
	{ "1.5", 10, UINT64_MAX, -EINVAL, 0 },
	{ "1e3", 10, UINT64_MAX, -EINVAL, 0 },
	/* Too big and garbage: garbage wins, it is no number at all. */
	{ "99999999999999999999x", 10, UINT64_MAX, -EINVAL, 0 },
	{ "7", 8, UINT64_MAX, -EINVAL, 0 },
	{ "7", 0, UINT64_MAX, -EINVAL, 0 },
};

static void test_cases(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = SENTINEL;
		int ret = kpc_parse_u64(cases[i].s, cases[i].base, cases[i].max, &v);

		tap_ok(ret == cases[i].ret &&
		       v == (cases[i].ret ? SENTINEL : cases[i].value),
		       "\"%s\" in base %d, max %llu: %d, %llu (got %d, %llu)",
		       cases[i].s, cases[i].base, (unsigned long long)cases[i].max,
		       cases[i].ret, (unsigned long long)cases[i].value, ret,
		       (unsigned long long)v);
	}
}

/* What the parser must do, said with strtoull(): the oracle. */
static int oracle(const char *s, int base, uint64_t max, uint64_t *out)
{
	const char *digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
	unsigned long long v;
	char *end;

	if (!*s || strspn(s, digits) != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static void test_random(void)
{
	static const char alphabet[] = "0123456789abcdefABCDEFx+- \n.";
	unsigned int i, j, mismatch = 0, accepted = 0, ranged = 0;
	static const uint64_t maxes[] = { UINT64_MAX, 1000, 0xffffffff, 0 };

	srand(10);
	for (i = 0; i < 20000; i++) {
		char s[32];
		unsigned int len = rand() % 24;
		int base = rand() % 2 ? 10 : 16;
		uint64_t max = maxes[rand() % 4], a = SENTINEL, b = SENTINEL;
		int ra, rb;

		/* Mostly digits, so that many are numbers and some overflow. */
		for (j = 0; j < len; j++)
			s[j] = rand() % 4 ? alphabet[rand() % 10] :
					    alphabet[rand() % (sizeof(alphabet) - 1)];
		s[len] = '\0';
		ra = kpc_parse_u64(s, base, max, &a);
		rb = oracle(s, base, max, &b);
		if (ra != rb || a != b) {
			if (!mismatch)
				printf("# first mismatch: \"%s\" base %d max %llu: %d %llu,"
				       " strtoull says %d %llu\n", s, base,
				       (unsigned long long)max, ra, (unsigned long long)a,
				       rb, (unsigned long long)b);
			mismatch++;
		}
		accepted += !ra;
		ranged += ra == -ERANGE;
	}
	tap_ok(!mismatch && accepted > 1000 && ranged > 1000,
	       "20000 random strings: parsed as strtoull() on digits-only text would"
	       " (%u accepted, %u out of range, %u mismatches)", accepted, ranged, mismatch);
}

int main(void)
{
	test_cases();
	test_random();
	return tap_done();
}
