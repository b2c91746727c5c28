/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libkpc's decode tables.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
#ifndef KPC_GENL_H
#define KPC_GENL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/kprint.h>
#include <netlink/attr.h>

/*
 * Record attributes as X(attr, kind, multi, len, field): kind U32, U64 or
 * STRING; multi 1 for one that may repeat; len the exact payload length
 * of a scalar, the most of a string with its NUL; field the member of
 * struct kpc_record it fills, named after it (a repeated one X as Xs[],
 * with its count nXs).  PAD and numbers not listed may be anything.
 */
#define KPC_GENL_RECORD_ATTRS(X) \
	X(KPRINT_RECORD_A_SEQ, U64, 0, 8, seq) \
	X(KPRINT_RECORD_A_LEVEL, U32, 0, 4, level) \
	X(KPRINT_RECORD_A_CLASS, U32, 0, 4, class) \
	X(KPRINT_RECORD_A_TS_MONO_NS, U64, 0, 8, ts_mono_ns) \
	X(KPRINT_RECORD_A_TS_REAL_NS, U64, 0, 8, ts_real_ns) \
	X(KPRINT_RECORD_A_CPU, U32, 0, 4, cpu) \
	X(KPRINT_RECORD_A_PID, U32, 0, 4, pid) \
	X(KPRINT_RECORD_A_COMM, STRING, 0, 16, comm) \
	X(KPRINT_RECORD_A_FILE, STRING, 0, 64, file) \
	X(KPRINT_RECORD_A_LINE, U32, 0, 4, line) \
	X(KPRINT_RECORD_A_FUNCTION, STRING, 0, 64, function) \
	X(KPRINT_RECORD_A_SUBSYSTEM, STRING, 0, 64, subsystem) \
	X(KPRINT_RECORD_A_MODULE, STRING, 0, 64, module) \
	X(KPRINT_RECORD_A_FORMAT, STRING, 0, 256, format) \
	X(KPRINT_RECORD_A_FORMAT_ID, U64, 0, 8, format_id) \
	X(KPRINT_RECORD_A_ARG, STRING, 1, 256, args) \
	X(KPRINT_RECORD_A_TEXT, STRING, 0, 1024, text) \
	X(KPRINT_RECORD_A_BLOCK_ID, U64, 0, 8, block_id) \
	X(KPRINT_RECORD_A_FLAGS, U32, 0, 4, flags) \
	X(KPRINT_RECORD_A_SOURCE, U32, 0, 4, source) \
	X(KPRINT_RECORD_A_DEVICE, STRING, 0, 48, device) \
	X(KPRINT_RECORD_A_FACILITY, U32, 0, 4, facility) \
	X(KPRINT_RECORD_A_CONTINUES, U64, 0, 8, continues) \
	X(KPRINT_RECORD_A_PRINTK_SEQ, U64, 0, 8, printk_seq) \
	X(KPRINT_RECORD_A_FILTERED, U64, 0, 8, filtered)

struct kpc_record;
extern const struct kpc_record kpc_genl_record_empty;

/* Counters of KPRINT_A_STATS, one field per attribute of the stats set. */
struct kpc_stats {
	uint64_t records;	/* records stored since load */
	uint64_t overwritten;	/* records the ring overwrote */
	uint64_t dropped;	/* records never stored */
	uint64_t truncated;	/* records stored truncated */
	uint64_t ring_bytes;	/* ring capacity */
	uint64_t ring_records;	/* records held now */
	uint64_t first_seq;	/* oldest record held */
	uint64_t next_seq;	/* sequence the next record gets */
	uint64_t mcast_sent;	/* records multicast */
	uint64_t mcast_failed;	/* records whose multicast failed */
	uint64_t mcast_skipped;	/* overwritten before multicast */
	uint64_t bridge;	/* 1 while the printk bridge is on, 0 while it is off */
	uint64_t bridged;	/* printk messages stored as records */
	uint64_t bridge_skipped;	/* printk messages that were kprint's own echo, not bridged again */
	uint64_t bridge_dropped_nmi;	/* printk messages made in NMI, counted but not stored */
	uint64_t bridge_dropped_recursion;	/* printk messages made while the bridge was already busy on the CPU */
	uint64_t bridge_dropped_scratch;	/* printk messages for which no scratch record was free, or that the ring refused */
	uint64_t bridge_missed;	/* printk messages the hook did not see although it was on (the kprobe's nmissed; always 0 for the ftrace hook, which every call reaches) */
	uint64_t bridge_backlog;	/* backlog records taken at load from the printk ring */
	uint64_t ratelimit;	/* 1 while kprint's kretprobe on ___ratelimit() is registered, 0 while not */
	uint64_t ratelimit_queued;	/* calls ___ratelimit() refused, queued for kprint_trace_ratelimit() */
	uint64_t ratelimit_lost;	/* calls ___ratelimit() refused that found the CPU's queue full */
	uint64_t ratelimit_traced;	/* refused calls handed to kprint_trace_ratelimit() (queued, once drained) */
	uint64_t ratelimit_missed;	/* ___ratelimit() calls the kretprobe missed (its nmissed) */
	/* Bit (1 << KPRINT_STATS_A_*) for each counter the kernel sent. */
	uint32_t present;
};

/* For decoding, printing and JSON: the counters by name, in UAPI order. */
struct kpc_stats_field {
	const char *name;	/* "records", "overwritten", ... */
	int attr;		/* KPRINT_STATS_A_* */
	size_t offset;		/* of its uint64_t in struct kpc_stats */
	uint64_t (*get)(const struct kpc_stats *st);
};
extern const struct kpc_stats_field kpc_stats_fields[];
extern const unsigned int kpc_stats_nfields;

/* The field of a stats attribute, NULL for pad and numbers newer than us. */
const struct kpc_stats_field *kpc_stats_field_of(int attr);

static inline uint64_t kpc_stats_value(const struct kpc_stats *st,
				       const struct kpc_stats_field *f)
{
	return *(const uint64_t *)((const char *)st + f->offset);
}

/*
 * The lines of `kprint stats` that show several counters together; every
 * other counter has a line of its own.  A line is shown when the kernel
 * sent all its counters (members), as "-" otherwise.
 */
struct kpc_stats_line {
	const char *name;
	uint32_t members;	/* 1 << attr of each */
	void (*print)(FILE *out, const struct kpc_stats *st);	/* after the name */
};
#define KPC_STATS_LINE_BRIDGE	\
	((1u << KPRINT_STATS_A_BRIDGE) | \
	 (1u << KPRINT_STATS_A_BRIDGED) | \
	 (1u << KPRINT_STATS_A_BRIDGE_SKIPPED) | \
	 (1u << KPRINT_STATS_A_BRIDGE_DROPPED_NMI) | \
	 (1u << KPRINT_STATS_A_BRIDGE_DROPPED_RECURSION) | \
	 (1u << KPRINT_STATS_A_BRIDGE_DROPPED_SCRATCH) | \
	 (1u << KPRINT_STATS_A_BRIDGE_MISSED) | \
	 (1u << KPRINT_STATS_A_BRIDGE_BACKLOG))
#define KPC_STATS_LINE_RATELIMIT	\
	((1u << KPRINT_STATS_A_RATELIMIT) | \
	 (1u << KPRINT_STATS_A_RATELIMIT_QUEUED) | \
	 (1u << KPRINT_STATS_A_RATELIMIT_TRACED) | \
	 (1u << KPRINT_STATS_A_RATELIMIT_LOST) | \
	 (1u << KPRINT_STATS_A_RATELIMIT_MISSED))

extern const struct kpc_stats_line kpc_stats_lines[];
extern const unsigned int kpc_stats_nlines;

/* libnl's policy for the top level of every kprint message. */
extern struct nla_policy kpc_genl_kprint_policy[KPRINT_A_MAX + 1];

#endif /* KPC_GENL_H */
