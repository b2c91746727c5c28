// SPDX-License-Identifier: GPL-2.0
/*
 * libkpc's decode tables.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
#include <inttypes.h>

#include "kpc_genl.h"
#include "kpc_record.h"

/*
 * Fixed-size attributes get maxlen too: libnl only checks a minimum
 * length, and a u64 where a u32 belongs must not be read as its low half.
 */
struct nla_policy kpc_genl_kprint_policy[KPRINT_A_MAX + 1] = {
	[KPRINT_A_RECORD] = { .type = NLA_NESTED },
	[KPRINT_A_START_SEQ] = { .type = NLA_U64, .maxlen = 8 },
	[KPRINT_A_STATS] = { .type = NLA_NESTED },
	[KPRINT_A_SEQ] = { .type = NLA_U64, .maxlen = 8 },
	[KPRINT_A_FILTER] = { .type = NLA_NESTED },
};

/* A record before decoding: no attribute seen, every string "". */
const struct kpc_record kpc_genl_record_empty = {
	.comm = "",
	.file = "",
	.function = "",
	.subsystem = "",
	.module = "",
	.format = "",
	.text = "",
	.device = "",
};

#define KPC_STATS_FIELD(field, attr)						\
	static uint64_t kpc_stats_get_##field(const struct kpc_stats *st)	\
	{ return st->field; }
#define KPC_STATS_ENTRY(field, attr) \
	{ #field, attr, offsetof(struct kpc_stats, field), kpc_stats_get_##field }

KPC_STATS_FIELD(records, KPRINT_STATS_A_RECORDS)
KPC_STATS_FIELD(overwritten, KPRINT_STATS_A_OVERWRITTEN)
KPC_STATS_FIELD(dropped, KPRINT_STATS_A_DROPPED)
KPC_STATS_FIELD(truncated, KPRINT_STATS_A_TRUNCATED)
KPC_STATS_FIELD(ring_bytes, KPRINT_STATS_A_RING_BYTES)
KPC_STATS_FIELD(ring_records, KPRINT_STATS_A_RING_RECORDS)
KPC_STATS_FIELD(first_seq, KPRINT_STATS_A_FIRST_SEQ)
KPC_STATS_FIELD(next_seq, KPRINT_STATS_A_NEXT_SEQ)
KPC_STATS_FIELD(mcast_sent, KPRINT_STATS_A_MCAST_SENT)
KPC_STATS_FIELD(mcast_failed, KPRINT_STATS_A_MCAST_FAILED)
KPC_STATS_FIELD(mcast_skipped, KPRINT_STATS_A_MCAST_SKIPPED)
KPC_STATS_FIELD(bridge, KPRINT_STATS_A_BRIDGE)
KPC_STATS_FIELD(bridged, KPRINT_STATS_A_BRIDGED)
KPC_STATS_FIELD(bridge_skipped, KPRINT_STATS_A_BRIDGE_SKIPPED)
KPC_STATS_FIELD(bridge_dropped_nmi, KPRINT_STATS_A_BRIDGE_DROPPED_NMI)
KPC_STATS_FIELD(bridge_dropped_recursion, KPRINT_STATS_A_BRIDGE_DROPPED_RECURSION)
KPC_STATS_FIELD(bridge_dropped_scratch, KPRINT_STATS_A_BRIDGE_DROPPED_SCRATCH)
KPC_STATS_FIELD(bridge_missed, KPRINT_STATS_A_BRIDGE_MISSED)
KPC_STATS_FIELD(bridge_backlog, KPRINT_STATS_A_BRIDGE_BACKLOG)
KPC_STATS_FIELD(ratelimit, KPRINT_STATS_A_RATELIMIT)
KPC_STATS_FIELD(ratelimit_queued, KPRINT_STATS_A_RATELIMIT_QUEUED)
KPC_STATS_FIELD(ratelimit_lost, KPRINT_STATS_A_RATELIMIT_LOST)
KPC_STATS_FIELD(ratelimit_traced, KPRINT_STATS_A_RATELIMIT_TRACED)
KPC_STATS_FIELD(ratelimit_missed, KPRINT_STATS_A_RATELIMIT_MISSED)

const struct kpc_stats_field kpc_stats_fields[] = {
	KPC_STATS_ENTRY(records, KPRINT_STATS_A_RECORDS),
	KPC_STATS_ENTRY(overwritten, KPRINT_STATS_A_OVERWRITTEN),
	KPC_STATS_ENTRY(dropped, KPRINT_STATS_A_DROPPED),
	KPC_STATS_ENTRY(truncated, KPRINT_STATS_A_TRUNCATED),
	KPC_STATS_ENTRY(ring_bytes, KPRINT_STATS_A_RING_BYTES),
	KPC_STATS_ENTRY(ring_records, KPRINT_STATS_A_RING_RECORDS),
	KPC_STATS_ENTRY(first_seq, KPRINT_STATS_A_FIRST_SEQ),
	KPC_STATS_ENTRY(next_seq, KPRINT_STATS_A_NEXT_SEQ),
	KPC_STATS_ENTRY(mcast_sent, KPRINT_STATS_A_MCAST_SENT),
	KPC_STATS_ENTRY(mcast_failed, KPRINT_STATS_A_MCAST_FAILED),
	KPC_STATS_ENTRY(mcast_skipped, KPRINT_STATS_A_MCAST_SKIPPED),
	KPC_STATS_ENTRY(bridge, KPRINT_STATS_A_BRIDGE),
	KPC_STATS_ENTRY(bridged, KPRINT_STATS_A_BRIDGED),
	KPC_STATS_ENTRY(bridge_skipped, KPRINT_STATS_A_BRIDGE_SKIPPED),
	KPC_STATS_ENTRY(bridge_dropped_nmi, KPRINT_STATS_A_BRIDGE_DROPPED_NMI),
	KPC_STATS_ENTRY(bridge_dropped_recursion, KPRINT_STATS_A_BRIDGE_DROPPED_RECURSION),
	KPC_STATS_ENTRY(bridge_dropped_scratch, KPRINT_STATS_A_BRIDGE_DROPPED_SCRATCH),
	KPC_STATS_ENTRY(bridge_missed, KPRINT_STATS_A_BRIDGE_MISSED),
	KPC_STATS_ENTRY(bridge_backlog, KPRINT_STATS_A_BRIDGE_BACKLOG),
	KPC_STATS_ENTRY(ratelimit, KPRINT_STATS_A_RATELIMIT),
	KPC_STATS_ENTRY(ratelimit_queued, KPRINT_STATS_A_RATELIMIT_QUEUED),
	KPC_STATS_ENTRY(ratelimit_lost, KPRINT_STATS_A_RATELIMIT_LOST),
	KPC_STATS_ENTRY(ratelimit_traced, KPRINT_STATS_A_RATELIMIT_TRACED),
	KPC_STATS_ENTRY(ratelimit_missed, KPRINT_STATS_A_RATELIMIT_MISSED),
};

const unsigned int kpc_stats_nfields =
	sizeof(kpc_stats_fields) / sizeof(kpc_stats_fields[0]);

const struct kpc_stats_field *kpc_stats_field_of(int attr)
{
	unsigned int i;

	for (i = 0; i < kpc_stats_nfields; i++)
		if (kpc_stats_fields[i].attr == attr)
			return &kpc_stats_fields[i];
	return NULL;
}

static void kpc_stats_line_bridge(FILE *out, const struct kpc_stats *st)
{
	fprintf(out, "%s, bridged %" PRIu64 ", skipped %" PRIu64 ", dropped %" PRIu64
		" (nmi %" PRIu64 ", recursion %" PRIu64 ", scratch %" PRIu64 ", "
		"missed %" PRIu64 "), backlog %" PRIu64 "\n",
		st->bridge ? "on" : "off",
		st->bridged,
		st->bridge_skipped,
		st->bridge_dropped_nmi +
		st->bridge_dropped_recursion +
		st->bridge_dropped_scratch +
		st->bridge_missed,
		st->bridge_dropped_nmi,
		st->bridge_dropped_recursion,
		st->bridge_dropped_scratch,
		st->bridge_missed,
		st->bridge_backlog);
}

static void kpc_stats_line_ratelimit(FILE *out, const struct kpc_stats *st)
{
	fprintf(out, "%s, queued %" PRIu64 ", traced %" PRIu64 ", lost %" PRIu64 " "
		"(queue full), missed %" PRIu64 " (kretprobe)\n",
		st->ratelimit ? "on" : "off",
		st->ratelimit_queued,
		st->ratelimit_traced,
		st->ratelimit_lost,
		st->ratelimit_missed);
}

const struct kpc_stats_line kpc_stats_lines[] = {
	{ "bridge", KPC_STATS_LINE_BRIDGE, kpc_stats_line_bridge },
	{ "ratelimit", KPC_STATS_LINE_RATELIMIT, kpc_stats_line_ratelimit },
};

const unsigned int kpc_stats_nlines =
	sizeof(kpc_stats_lines) / sizeof(kpc_stats_lines[0]);
