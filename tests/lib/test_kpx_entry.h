/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's tests of journal entries (test_kpx_journal.c,
 * test_kpx_problems.c): a field of an entry kpx_journal_entry_build() or
 * the problem writer built, by name.
 */
#ifndef TEST_KPX_ENTRY_H
#define TEST_KPX_ENTRY_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kpx_journal.h"

/* The value of field name in e, NUL-terminated in a static buffer, or NULL. */
static const char *field(const struct kpx_journal_entry *e, const char *name)
{
	static char v[512];
	size_t n = strlen(name);

	for (unsigned int i = 0; i < e->n; i++) {
		const char *f = e->iov[i].iov_base;
		size_t len = e->iov[i].iov_len;

		if (len > n && !memcmp(f, name, n) && f[n] == '=') {
			snprintf(v, sizeof(v), "%.*s", (int)(len - n - 1), f + n + 1);
			return v;
		}
	}
	return NULL;
}

static bool field_is(const struct kpx_journal_entry *e, const char *name, const char *want)
{
	const char *v = field(e, name);

	if (v && !strcmp(v, want))
		return true;
	printf("# %s is %s, not %s\n", name, v ? v : "(none)", want);
	return false;
}

#endif /* TEST_KPX_ENTRY_H */
