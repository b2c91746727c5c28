// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the "kprint" generic netlink family's tables.
 *
 * Request policies, the operations table and the multicast groups; the
 * handlers they point to are in kprint_netlink.c, the family itself is
 * registered there too.
 */

#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/kprint.h>

#include "kprint_genl.h"

/* KPRINT_CMD_RECORD_GET - dump */
static const struct nla_policy kprint_nl_record_get_policy[KPRINT_A_MAX + 1] = {
	[KPRINT_A_START_SEQ]	= { .type = NLA_U64 },
};

/* KPRINT_CMD_STATS_GET - do: no attributes, strict validation rejects all */
static const struct nla_policy kprint_nl_stats_get_policy[KPRINT_A_MAX + 1] = {
};

#define KPRINT_NL_REJECT(msg) { .type = NLA_REJECT, .reject_message = msg }

/* Only what a caller may choose is accepted; each refusal says why. */
const struct nla_policy kprint_nl_emit_record_policy[KPRINT_RECORD_A_MAX + 1] = {
	[KPRINT_RECORD_A_PAD] =
		KPRINT_NL_REJECT("pad is not expected in an emit request"),
	[KPRINT_RECORD_A_SEQ] = KPRINT_NL_REJECT("seq is assigned by the kernel"),
	[KPRINT_RECORD_A_LEVEL] = NLA_POLICY_MAX(NLA_U32, KPRINT_LEVEL_MAX),
	[KPRINT_RECORD_A_CLASS] = NLA_POLICY_MAX(NLA_U32, KPRINT_CLASS_MAX),
	[KPRINT_RECORD_A_TS_MONO_NS] =
		KPRINT_NL_REJECT("timestamps are taken by the kernel"),
	[KPRINT_RECORD_A_TS_REAL_NS] =
		KPRINT_NL_REJECT("timestamps are taken by the kernel"),
	[KPRINT_RECORD_A_CPU] = KPRINT_NL_REJECT("cpu is recorded by the kernel"),
	[KPRINT_RECORD_A_PID] = KPRINT_NL_REJECT("pid is the caller's"),
	[KPRINT_RECORD_A_COMM] = KPRINT_NL_REJECT("comm is the caller's"),
	[KPRINT_RECORD_A_FILE] = KPRINT_NL_REJECT("file cannot be injected"),
	[KPRINT_RECORD_A_LINE] = KPRINT_NL_REJECT("line cannot be injected"),
	[KPRINT_RECORD_A_FUNCTION] =
		KPRINT_NL_REJECT("function cannot be injected"),
	[KPRINT_RECORD_A_SUBSYSTEM] = {
		.type = NLA_NUL_STRING,
		.len = KPRINT_TAG_MAX - 1,
	},
	[KPRINT_RECORD_A_MODULE] =
		KPRINT_NL_REJECT("module is always \"user\""),
	[KPRINT_RECORD_A_FORMAT] = {
		.type = NLA_NUL_STRING,
		.len = KPRINT_FORMAT_MAX - 1,
	},
	[KPRINT_RECORD_A_FORMAT_ID] =
		KPRINT_NL_REJECT("format id is computed by the kernel"),
	[KPRINT_RECORD_A_ARG] = {
		.type = NLA_NUL_STRING,
		.len = KPRINT_ARG_MAX - 1,
	},
	[KPRINT_RECORD_A_TEXT] =
		KPRINT_NL_REJECT("text is built from format and args"),
	[KPRINT_RECORD_A_BLOCK_ID] =
		KPRINT_NL_REJECT("blocks cannot be injected"),
	[KPRINT_RECORD_A_FLAGS] = KPRINT_NL_REJECT("flags are set by the kernel"),
};

/* KPRINT_CMD_EMIT - do */
static const struct nla_policy kprint_nl_emit_policy[KPRINT_A_MAX + 1] = {
	[KPRINT_A_RECORD]	= NLA_POLICY_NESTED(kprint_nl_emit_record_policy),
};

/* Ops table for kprint */
const struct genl_ops kprint_nl_ops[3] = {
	{
		.cmd		= KPRINT_CMD_RECORD_GET,
		.start		= kprint_nl_record_get_start,
		.dumpit		= kprint_nl_record_get_dumpit,
		.policy		= kprint_nl_record_get_policy,
		.maxattr	= ARRAY_SIZE(kprint_nl_record_get_policy) - 1,
	},
	{
		.cmd		= KPRINT_CMD_STATS_GET,
		.doit		= kprint_nl_stats_get_doit,
		.policy		= kprint_nl_stats_get_policy,
		.maxattr	= ARRAY_SIZE(kprint_nl_stats_get_policy) - 1,
	},
	{
		.cmd		= KPRINT_CMD_EMIT,
		.doit		= kprint_nl_emit_doit,
		.policy		= kprint_nl_emit_policy,
		.maxattr	= ARRAY_SIZE(kprint_nl_emit_policy) - 1,
		.flags		= GENL_ADMIN_PERM,
	},
};

/*
 * Joining needs CAP_SYS_ADMIN in the family's namespace, which is always the
 * initial one (netnsok is false).
 */
const struct genl_multicast_group kprint_nl_mcgrps[1] = {
	[KPRINT_NLGRP_RECORDS] = {
		.name	= KPRINT_MCGRP_RECORDS,
		.flags	= GENL_MCAST_CAP_SYS_ADMIN,
	},
};
