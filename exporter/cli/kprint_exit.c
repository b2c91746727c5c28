// SPDX-License-Identifier: GPL-2.0
/*
 * What a failed operation tells the user, and the exit status it makes:
 * kprint(1)'s EXIT STATUS, one mapping for every command.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kprint.h"

int kprint_fail(enum kprint_action action, const char *what, int err,
		const char *extack)
{
	static const char *const needs[] = {
		[KPRINT_ACT_SUBSCRIBE] = "subscribing to kprint records needs CAP_SYS_ADMIN (like reading the kernel log)",
		[KPRINT_ACT_READ] = "reading kprint records needs CAP_SYSLOG or CAP_SYS_ADMIN (like dmesg)",
		[KPRINT_ACT_EMIT] = "emitting kprint records needs CAP_NET_ADMIN",
		[KPRINT_ACT_COUNT] = "the BPF counters need CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON)",
	};

	switch (err) {
	case -ENOENT:
		fprintf(stderr, "kprint: the kprint module is not loaded (generic netlink family '%s' not found)\n",
			KPRINT_GENL_NAME);
		return KPRINT_EXIT_NOMODULE;
	case -EPERM:
	case -EACCES:
		fprintf(stderr, "kprint: %s: %s\n", needs[action], strerror(-err));
		return KPRINT_EXIT_PERM;
	case -EPROTO:
		fprintf(stderr, "kprint: %s: the kprint family does not look like the one kprint %s knows (no '%s' group or no next_seq counter)\n",
			what, KPRINT_VERSION, KPRINT_MCGRP_RECORDS);
		return KPRINT_EXIT_ERROR;
	}

	fprintf(stderr, "kprint: %s: %s", what, strerror(-err));
	if (extack && *extack) {
		/* The kernel's words, but a terminal's safety comes first. */
		fputs(": ", stderr);
		kpc_text_escape(stderr, extack, false);
	}
	fputc('\n', stderr);
	return KPRINT_EXIT_ERROR;
}
