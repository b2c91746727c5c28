// SPDX-License-Identifier: GPL-2.0
/*
 * The genetlink tables of kprint.ko.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */

#include <net/genetlink.h>
#include <net/netlink.h>

#include <uapi/linux/kprint.h>

#include "kprint_genl.h"

/* Nest emit-record */
const struct nla_policy kprint_nl_emit_record_policy[KPRINT_RECORD_A_MAX + 1] = {
	[KPRINT_RECORD_A_PAD] = {
		.type = NLA_REJECT,
		.reject_message = "pad is not expected in an emit request",
	},
	[KPRINT_RECORD_A_SEQ] = {
		.type = NLA_REJECT,
		.reject_message = "seq is assigned by the kernel",
	},
	[KPRINT_RECORD_A_LEVEL] = NLA_POLICY_MAX(NLA_U32, KPRINT_LEVEL_MAX),
	[KPRINT_RECORD_A_CLASS] = NLA_POLICY_MAX(NLA_U32, KPRINT_CLASS_MAX),
	[KPRINT_RECORD_A_TS_MONO_NS] = {
		.type = NLA_REJECT,
		.reject_message = "timestamps are taken by the kernel",
	},
	[KPRINT_RECORD_A_TS_REAL_NS] = {
		.type = NLA_REJECT,
		.reject_message = "timestamps are taken by the kernel",
	},
	[KPRINT_RECORD_A_CPU] = {
		.type = NLA_REJECT,
		.reject_message = "cpu is recorded by the kernel",
	},
	[KPRINT_RECORD_A_PID] = {
		.type = NLA_REJECT,
		.reject_message = "pid is the caller's",
	},
	[KPRINT_RECORD_A_COMM] = {
		.type = NLA_REJECT,
		.reject_message = "comm is the caller's",
	},
	[KPRINT_RECORD_A_FILE] = {
		.type = NLA_REJECT,
		.reject_message = "file cannot be injected",
	},
	[KPRINT_RECORD_A_LINE] = {
		.type = NLA_REJECT,
		.reject_message = "line cannot be injected",
	},
	[KPRINT_RECORD_A_FUNCTION] = {
		.type = NLA_REJECT,
		.reject_message = "function cannot be injected",
	},
	[KPRINT_RECORD_A_SUBSYSTEM] = { .type = NLA_NUL_STRING, .len = 63, },
	[KPRINT_RECORD_A_MODULE] = {
		.type = NLA_REJECT,
		.reject_message = "module is always \"user\"",
	},
	[KPRINT_RECORD_A_FORMAT] = { .type = NLA_NUL_STRING, .len = 255, },
	[KPRINT_RECORD_A_FORMAT_ID] = {
		.type = NLA_REJECT,
		.reject_message = "format id is computed by the kernel",
	},
	[KPRINT_RECORD_A_ARG] = { .type = NLA_NUL_STRING, .len = 255, },
	[KPRINT_RECORD_A_TEXT] = {
		.type = NLA_REJECT,
		.reject_message = "text is built from format and args",
	},
	[KPRINT_RECORD_A_BLOCK_ID] = {
		.type = NLA_REJECT,
		.reject_message = "blocks cannot be injected",
	},
	[KPRINT_RECORD_A_FLAGS] = {
		.type = NLA_REJECT,
		.reject_message = "flags are set by the kernel",
	},
	[KPRINT_RECORD_A_SOURCE] = {
		.type = NLA_REJECT,
		.reject_message = "source is set by the kernel",
	},
	[KPRINT_RECORD_A_DEVICE] = {
		.type = NLA_REJECT,
		.reject_message = "device cannot be injected",
	},
	[KPRINT_RECORD_A_FACILITY] = {
		.type = NLA_REJECT,
		.reject_message = "facility cannot be injected",
	},
	[KPRINT_RECORD_A_CONTINUES] = {
		.type = NLA_REJECT,
		.reject_message = "continuations cannot be injected",
	},
	[KPRINT_RECORD_A_PRINTK_SEQ] = {
		.type = NLA_REJECT,
		.reject_message = "printk's seq is set by the kernel",
	},
	[KPRINT_RECORD_A_FILTERED] = {
		.type = NLA_REJECT,
		.reject_message = "filtered is set by the kernel",
	},
};

/* Nest filter */
const struct nla_policy kprint_nl_filter_policy[KPRINT_FILTER_A_MAX + 1] = {
	[KPRINT_FILTER_A_LEVEL] = NLA_POLICY_MAX(NLA_U32, KPRINT_LEVEL_MAX),
	[KPRINT_FILTER_A_SOURCE] = NLA_POLICY_MAX(NLA_U32, KPRINT_SOURCE_MAX),
	[KPRINT_FILTER_A_CLASS] = NLA_POLICY_MAX(NLA_U32, KPRINT_CLASS_MAX),
	[KPRINT_FILTER_A_MODULE] = { .type = NLA_NUL_STRING, .len = 63, },
	[KPRINT_FILTER_A_SUBSYSTEM] = { .type = NLA_NUL_STRING, .len = 63, },
	[KPRINT_FILTER_A_FORMAT_ID] = { .type = NLA_U64, },
};

/* KPRINT_CMD_RECORD_GET - dump */
static const struct nla_policy kprint_nl_record_get_policy[KPRINT_A_MAX + 1] = {
	[KPRINT_A_START_SEQ] = { .type = NLA_U64, },
};

/* KPRINT_CMD_STATS_GET - do */
static const struct nla_policy kprint_nl_stats_get_policy[KPRINT_A_MAX + 1] = {
};

/* KPRINT_CMD_EMIT - do */
static const struct nla_policy kprint_nl_emit_policy[KPRINT_A_MAX + 1] = {
	[KPRINT_A_RECORD] = NLA_POLICY_NESTED(kprint_nl_emit_record_policy),
};

/* KPRINT_CMD_SUBSCRIBE - do */
static const struct nla_policy kprint_nl_subscribe_policy[KPRINT_A_MAX + 1] = {
	[KPRINT_A_FILTER] = NLA_POLICY_NESTED(kprint_nl_filter_policy),
};

/* Ops table for kprint */
const struct genl_ops kprint_nl_ops[4] = {
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
	{
		.cmd		= KPRINT_CMD_SUBSCRIBE,
		.doit		= kprint_nl_subscribe_doit,
		.policy		= kprint_nl_subscribe_policy,
		.maxattr	= ARRAY_SIZE(kprint_nl_subscribe_policy) - 1,
	},
};

const struct genl_multicast_group kprint_nl_mcgrps[1] = {
	[KPRINT_NLGRP_RECORDS] = {
		.name	= KPRINT_MCGRP_RECORDS,
		.flags	= GENL_MCAST_CAP_SYS_ADMIN,
	},
};

