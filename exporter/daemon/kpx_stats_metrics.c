// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's families of the module's counters.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
#include <stddef.h>
#include <linux/kprint.h>

#include "kpc_genl.h"
#include "kpx_stats_metrics.h"

const struct kpx_stats_metric kpx_stats_metrics[] = {
	{
		.family = "kprint_kernel_records_total",
		.type = "counter",
		.help = "Records stored in the kernel ring since kprint.ko was loaded.",
		.sample = "kprint_kernel_records_total",
		.attr = KPRINT_STATS_A_RECORDS,
	},
	{
		.family = "kprint_kernel_overwritten_total",
		.type = "counter",
		.help = "Records the kernel ring overwrote since kprint.ko was loaded.",
		.sample = "kprint_kernel_overwritten_total",
		.attr = KPRINT_STATS_A_OVERWRITTEN,
	},
	{
		.family = "kprint_bridge_enabled",
		.type = "gauge",
		.help = "Whether kprint.ko's printk bridge is on (1: every printk() of "
			"the kernel becomes a record of source printk) or off (0: "
			"bridge=0, or switched off).",
		.sample = "kprint_bridge_enabled",
		.attr = KPRINT_STATS_A_BRIDGE,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
		.flag = true,
	},
	{
		.family = "kprint_bridge_records_total",
		.type = "counter",
		.help = "printk messages the bridge stored as records since kprint.ko "
			"was loaded (the backlog not included).",
		.sample = "kprint_bridge_records_total",
		.attr = KPRINT_STATS_A_BRIDGED,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
	},
	{
		.family = "kprint_bridge_skipped_total",
		.type = "counter",
		.help = "printk messages that were kprint's own echo of its records, not "
			"bridged again (never a loss).",
		.sample = "kprint_bridge_skipped_total",
		.attr = KPRINT_STATS_A_BRIDGE_SKIPPED,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
	},
	{
		.family = "kprint_bridge_dropped_total",
		.type = "counter",
		.help = "printk messages the bridge saw but did not store, by reason: "
			"nmi (made in NMI context, counted only), recursion (the bridge "
			"was busy on that CPU), scratch (no scratch record free), missed "
			"(the hook itself missed them).",
		.sample = "kprint_bridge_dropped_total{reason=\"nmi\"}",
		.attr = KPRINT_STATS_A_BRIDGE_DROPPED_NMI,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
	},
	{
		.sample = "kprint_bridge_dropped_total{reason=\"recursion\"}",
		.attr = KPRINT_STATS_A_BRIDGE_DROPPED_RECURSION,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
	},
	{
		.sample = "kprint_bridge_dropped_total{reason=\"scratch\"}",
		.attr = KPRINT_STATS_A_BRIDGE_DROPPED_SCRATCH,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
	},
	{
		.sample = "kprint_bridge_dropped_total{reason=\"missed\"}",
		.attr = KPRINT_STATS_A_BRIDGE_MISSED,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
	},
	{
		.family = "kprint_bridge_backlog_records_total",
		.type = "counter",
		.help = "Text-only records taken at load from what printk stored before "
			"kprint.ko was loaded.",
		.sample = "kprint_bridge_backlog_records_total",
		.attr = KPRINT_STATS_A_BRIDGE_BACKLOG,
		.line = "bridge",
		.needs = KPC_STATS_LINE_BRIDGE,
	},
	{
		.family = "kprint_ratelimit_hook_enabled",
		.type = "gauge",
		.help = "Whether kprint.ko's kretprobe on ___ratelimit() is registered "
			"(1), so that kprint_ratelimit_suppressed_total counts through "
			"kprint:kprint_trace_ratelimit, or not (0: ratelimit=0, or the "
			"kernel refused the probe).",
		.sample = "kprint_ratelimit_hook_enabled",
		.attr = KPRINT_STATS_A_RATELIMIT,
		.line = "ratelimit",
		.needs = KPC_STATS_LINE_RATELIMIT,
		.flag = true,
	},
	{
		.family = "kprint_ratelimit_hook_queued_total",
		.type = "counter",
		.help = "Calls ___ratelimit() refused that kprint.ko's kretprobe queued "
			"for kprint_trace_ratelimit() since kprint.ko was loaded.",
		.sample = "kprint_ratelimit_hook_queued_total",
		.attr = KPRINT_STATS_A_RATELIMIT_QUEUED,
		.line = "ratelimit",
		.needs = KPC_STATS_LINE_RATELIMIT,
	},
	{
		.family = "kprint_ratelimit_hook_traced_total",
		.type = "counter",
		.help = "Queued refused calls handed to kprint_trace_ratelimit() (where "
			"BPF counts them).",
		.sample = "kprint_ratelimit_hook_traced_total",
		.attr = KPRINT_STATS_A_RATELIMIT_TRACED,
		.line = "ratelimit",
		.needs = KPC_STATS_LINE_RATELIMIT,
	},
	{
		.family = "kprint_ratelimit_hook_lost_total",
		.type = "counter",
		.help = "Calls ___ratelimit() refused that found their CPU's queue full: "
			"never counted by BPF.",
		.sample = "kprint_ratelimit_hook_lost_total",
		.attr = KPRINT_STATS_A_RATELIMIT_LOST,
		.line = "ratelimit",
		.needs = KPC_STATS_LINE_RATELIMIT,
	},
	{
		.family = "kprint_ratelimit_hook_missed_total",
		.type = "counter",
		.help = "___ratelimit() calls the kretprobe missed (its nmissed): not "
			"seen at all.",
		.sample = "kprint_ratelimit_hook_missed_total",
		.attr = KPRINT_STATS_A_RATELIMIT_MISSED,
		.line = "ratelimit",
		.needs = KPC_STATS_LINE_RATELIMIT,
	},
};

const unsigned int kpx_stats_nmetrics =
	sizeof(kpx_stats_metrics) / sizeof(kpx_stats_metrics[0]);
