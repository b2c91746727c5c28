// SPDX-License-Identifier: GPL-2.0
/*
 * kprint problems --check-npd's samples (kpc_npdcheck.h): a format rendered
 * as printf would print it with the header's samples (an integer 1, 0 in
 * hex and octal, a pointer as 16 hex digits, a symbol, an address, a
 * string as the word given, %pV as the inner text), widths and flags kept,
 * "%%" a percent sign, the text cut to the buffer; then NPD's own rules of
 * tests/host/npd/kernel-monitor.json held against the kernel's formats as
 * 6.1 and 6.12 have them: the hung task's matches TaskHung with any name
 * and DockerHung only with the rule's word "docker", the OOM kill's
 * matches OOMKilling, and the NULL pointer's of 6.1 is not NPD's old
 * wording.  The expected texts are written out by hand from the printf
 * rules, not produced by the renderer.
 */
#include <stdio.h>
#include <string.h>

#include "kpc.h"
#include "test_kpc_tap.h"

static void render(const char *fmt, const char *word, const char *inner, const char *want)
{
	char buf[256];

	kpc_npdcheck_render(fmt, word, inner, buf, sizeof(buf));
	tap_ok(!strcmp(buf, want), "\"%s\" renders \"%s\" (%s)", fmt, want, buf);
}

static void test_render(void)
{
	char small[8];

	render("task %s:%d blocked for more than %ld seconds.", "x", NULL,
	       "task x:1 blocked for more than 1 seconds.");
	render("%s: %04lx [#%d]%s%s%s%s%s", "x", NULL, "x: 0000 [#1]xxxxx");
	render("address: %px", "x", NULL, "address: ffff888000000000");
	render("RIP: %pS", "x", NULL, "RIP: func+0x0/0x10");
	render("EXT4-fs (%s): %pV", "sda", "remount 1", "EXT4-fs (sda): remount 1");
	render("%pV", "w", NULL, "w");
	render("100%% of %u", "x", NULL, "100% of 1");
	render("[%5d|%-5d|%05x|%#o|%+d]", "x", NULL, "[    1|1    |00000|0|+1]");
	render("%*d and %.*s", "word", NULL, "1 and word");
	render("%c%c", "x", NULL, "xx");
	render("%pI4 %pM %pUb", "x", NULL,
	       "192.0.2.1 00:00:00:00:00:00 00000000-0000-0000-0000-000000000000");
	render("%pK!", "x", NULL, "ffff888000000000!");
	render("%lld %llu %zu %hhx", "x", NULL, "1 1 1 0");
	render("trailing %", "x", NULL, "trailing ");
	kpc_npdcheck_render("abcdefghij", "x", NULL, small, sizeof(small));
	tap_ok(!strcmp(small, "abcdefg"), "cut to the buffer, NUL kept (%s)", small);
}

static const struct kpc_npdcheck_rule *rule(const struct kpc_npdcheck_rules *r, const char *why)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].reason, why))
			return &r->v[i];
	tap_ok(0, "the fixture has a rule %s", why);
	return NULL;
}

static void formats(const struct kpc_npdcheck_rules *r, const char *why, const char *fmt,
		    int want)
{
	const struct kpc_npdcheck_rule *ru = rule(r, why);
	char buf[512];
	int got = ru ? kpc_npdcheck_matches_format(ru, fmt, NULL, buf, sizeof(buf)) : -1;

	tap_ok(got == want, "%s against \"%.*s\": %d (%d)", why, (int)strcspn(fmt, "\n"), fmt,
	       want, got);
}

static void test_rules(void)
{
	struct kpc_npdcheck_rules r = { 0 };
	char err[512] = "", path[4096];
	/* The fixture beside this file (make builds it by its absolute path). */
	const char *here = strstr(__FILE__, "tests/unit/");

	snprintf(path, sizeof(path), "%.*stests/host/npd/kernel-monitor.json",
		 here ? (int)(here - __FILE__) : 0, __FILE__);
	if (kpc_npdcheck_load(path, &r, err, sizeof(err))) {
		tap_ok(0, "NPD's kernel-monitor.json loads: %s", err);
		return;
	}
	formats(&r, "TaskHung", "INFO: task %s:%d blocked for more than %ld seconds.\n",
		KPC_NPD_MATCH);
	formats(&r, "DockerHung", "INFO: task %s:%d blocked for more than %ld seconds.\n",
		KPC_NPD_MATCH_WORD);
	formats(&r, "OOMKilling", "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB,"
		" file-rss:%lukB, shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd\n",
		KPC_NPD_MATCH);
	formats(&r, "KernelOops", "BUG: kernel NULL pointer dereference, address: %px\n", 0);
	formats(&r, "FilesystemIsReadOnly", "Remounting filesystem read-only", KPC_NPD_MATCH);
	formats(&r, "IOError", "Buffer I/O error on dev %pg, logical block %llu%s\n",
		KPC_NPD_MATCH);
	kpc_npdcheck_free(&r);
}

int main(void)
{
	test_render();
	test_rules();
	return tap_done();
}
