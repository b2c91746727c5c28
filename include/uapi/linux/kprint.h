/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The UAPI.
 * Generated from schema/kprint.yaml by schema/gen.py: do not edit.
 * Change the spec and run `make generate`; tests/unit/generated-fresh.sh
 * fails while this file is stale.
 */
/*
 * kprint: structured kernel messages over generic netlink.
 *
 * This header is the contract between the kprint module and userspace.
 * It must compile on its own as C90 and as C++.
 *
 * Structured kernel messages. Every record carries its level, class, clocks,
 * origin (cpu, pid, comm, file, line, function, subsystem, module), its format
 * string and a stable format id, each argument rendered to its own string and
 * the fully formatted text, under a 64-bit sequence number. Records live in a
 * fixed-size ring that overwrites the oldest; the "records" multicast group
 * notifies subscribers of new records, and a dump re-reads the ring from any
 * sequence number, so a subscriber that lost notifications can resync.
 * Reading needs CAP_SYSLOG or CAP_SYS_ADMIN, joining the group CAP_SYS_ADMIN,
 * emitting CAP_NET_ADMIN.
 */
#ifndef _UAPI_LINUX_KPRINT_H
#define _UAPI_LINUX_KPRINT_H

#define KPRINT_GENL_NAME	"kprint"
#define KPRINT_GENL_VERSION	1
#define KPRINT_MCGRP_RECORDS	"records"

/* Same numbering as the syslog levels, so KERN_<LEVEL> maps one to one. */
enum kprint_level {
	KPRINT_LEVEL_EMERG,
	KPRINT_LEVEL_ALERT,
	KPRINT_LEVEL_CRIT,
	KPRINT_LEVEL_ERR,
	KPRINT_LEVEL_WARNING,
	KPRINT_LEVEL_NOTICE,
	KPRINT_LEVEL_INFO,
	KPRINT_LEVEL_DEBUG,

	/* private: */
	__KPRINT_LEVEL_CNT
};
#define KPRINT_LEVEL_MAX (__KPRINT_LEVEL_CNT - 1)

/* What a message is about, independent of how severe it is. */
enum kprint_class {
	KPRINT_CLASS_NONE,
	KPRINT_CLASS_DETECTED,		/* hardware detected */
	KPRINT_CLASS_REGISTERED,	/* driver or device (un)registered */
	KPRINT_CLASS_SETTING,		/* hardware setting changed */
	KPRINT_CLASS_COPYRIGHT,		/* authorship, licence */

	/* private: */
	__KPRINT_CLASS_CNT
};
#define KPRINT_CLASS_MAX (__KPRINT_CLASS_CNT - 1)

/* Where a record comes from. */
enum kprint_source {
	KPRINT_SOURCE_KPRINT,	/* a kprint_*() call, or an emit request */
	KPRINT_SOURCE_PRINTK,	/* a printk() of the running kernel, taken by the printk bridge */

	/* private: */
	__KPRINT_SOURCE_CNT
};
#define KPRINT_SOURCE_MAX (__KPRINT_SOURCE_CNT - 1)

/* Bits of KPRINT_RECORD_A_FLAGS. */
enum kprint_record_flags {
	KPRINT_RECORD_F_TRUNCATED = 1 << 0,	/* text, format or an arg was cut */
	KPRINT_RECORD_F_USER = 1 << 1,		/* injected with KPRINT_CMD_EMIT */
	/*
	 * taken at load from the messages printk stored before kprint was
	 * loaded: only level, facility, text and printk's own clocks are known
	 */
	KPRINT_RECORD_F_BACKLOG = 1 << 2,
	/*
	 * a pr_cont() fragment; KPRINT_RECORD_A_CONTINUES is the seq of the
	 * record whose line it continues
	 */
	KPRINT_RECORD_F_CONT = 1 << 3
};

/*
 * Size limits, in bytes including the terminating NUL.  Longer strings are
 * cut and the record gets KPRINT_RECORD_F_TRUNCATED; an emit request that
 * exceeds them is rejected instead.
 */
#define KPRINT_TEXT_MAX		1024	/* fully formatted text */
#define KPRINT_FORMAT_MAX	256
#define KPRINT_ARG_MAX		256	/* one rendered argument */
#define KPRINT_ARGS_MAX		16	/* arguments per record */
#define KPRINT_TAG_MAX		64	/* subsystem, module, function, file */
#define KPRINT_COMM_MAX		16
#define KPRINT_DEVICE_MAX	48	/* dev_printk()'s DEVICE, as struct dev_printk_info holds it */
#define KPRINT_FORMAT_IDS_MAX	16	/* format ids one subscription filter may name */

/*
 * The format id is the 64-bit FNV-1a hash of the format string's bytes
 * (without the NUL): offset basis 0xcbf29ce484222325, prime 0x100000001b3.
 * It is stable across boots, kernels and machines.
 */
#define KPRINT_FNV1A64_OFFSET	0xcbf29ce484222325ULL
#define KPRINT_FNV1A64_PRIME	0x100000001b3ULL

/* Top-level attributes of every kprint message. */
enum kprint_attr {
	KPRINT_A_PAD = 1,
	/*
	 * nest, enum kprint_record_attr; may repeat: One record; a notification
	 * or dump message may carry several.
	 */
	KPRINT_A_RECORD,
	/*
	 * u64: First sequence number a dump wants; older ones were overwritten.
	 */
	KPRINT_A_START_SEQ,
	KPRINT_A_STATS,	/* nest, enum kprint_stats_attr */
	KPRINT_A_SEQ,	/* u64 */
	/*
	 * nest, enum kprint_filter_attr: What a filtered subscriber
	 * (KPRINT_CMD_SUBSCRIBE) wants.
	 */
	KPRINT_A_FILTER,

	/* private: */
	__KPRINT_A_CNT
};
#define KPRINT_A_MAX (__KPRINT_A_CNT - 1)

/*
 * One record, nested in KPRINT_A_RECORD.  Strings are NUL-terminated and
 * at most max-len bytes before the NUL; arg repeats up to args-max times.
 */
enum kprint_record_attr {
	KPRINT_RECORD_A_PAD = 1,
	/* u64: Strictly increasing, never reused while the module is loaded. */
	KPRINT_RECORD_A_SEQ,
	KPRINT_RECORD_A_LEVEL,		/* u32, enum kprint_level */
	KPRINT_RECORD_A_CLASS,		/* u32, enum kprint_class */
	KPRINT_RECORD_A_TS_MONO_NS,	/* u64: CLOCK_MONOTONIC */
	KPRINT_RECORD_A_TS_REAL_NS,	/* u64: CLOCK_REALTIME */
	KPRINT_RECORD_A_CPU,		/* u32 */
	KPRINT_RECORD_A_PID,		/* u32: thread group id, 0 in irq context */
	KPRINT_RECORD_A_COMM,		/* string */
	/* string: empty when location is off, and for printk records */
	KPRINT_RECORD_A_FILE,
	KPRINT_RECORD_A_LINE,		/* u32: 0 when location is off, and for printk records */
	KPRINT_RECORD_A_FUNCTION,	/* string */
	KPRINT_RECORD_A_SUBSYSTEM,	/* string */
	KPRINT_RECORD_A_MODULE,		/* string */
	KPRINT_RECORD_A_FORMAT,		/* string */
	KPRINT_RECORD_A_FORMAT_ID,	/* u64: FNV-1a of the format */
	/*
	 * string; may repeat: One rendered argument, in argument order; a NUL
	 * inside ("%c" of 0) is data.
	 */
	KPRINT_RECORD_A_ARG,
	/* string: as printk would print it; a NUL inside ("%c" of 0) is data */
	KPRINT_RECORD_A_TEXT,
	/*
	 * u64: Shared by the records of one block; 0 (sent as absent) outside
	 * blocks.
	 */
	KPRINT_RECORD_A_BLOCK_ID,
	KPRINT_RECORD_A_FLAGS,		/* u32, enum kprint_record_flags */
	KPRINT_RECORD_A_SOURCE,		/* u32, enum kprint_source */
	KPRINT_RECORD_A_DEVICE,		/* string */
	/*
	 * u32: syslog facility, 0 (kernel; sent as absent) for all but
	 * /dev/kmsg writes
	 */
	KPRINT_RECORD_A_FACILITY,
	KPRINT_RECORD_A_CONTINUES,	/* u64 */
	KPRINT_RECORD_A_PRINTK_SEQ,	/* u64 */
	KPRINT_RECORD_A_FILTERED,	/* u64 */

	/* private: */
	__KPRINT_RECORD_A_CNT
};
#define KPRINT_RECORD_A_MAX (__KPRINT_RECORD_A_CNT - 1)

/*
 * A subscription filter, nested in KPRINT_A_FILTER.  A record is sent
 * when it matches every attribute present; format-id repeats, and a
 * record matches when its format id is any of them.
 */
enum kprint_filter_attr {
	/*
	 * u32, enum kprint_level: this level or more severe (numerically lower
	 * or equal)
	 */
	KPRINT_FILTER_A_LEVEL = 1,
	KPRINT_FILTER_A_SOURCE,		/* u32, enum kprint_source */
	KPRINT_FILTER_A_CLASS,		/* u32, enum kprint_class */
	KPRINT_FILTER_A_MODULE,		/* string: exactly this module (not empty) */
	KPRINT_FILTER_A_SUBSYSTEM,	/* string: exactly this subsystem (not empty) */
	/*
	 * u64; may repeat: one of these format ids, at most format-ids-max of
	 * them
	 */
	KPRINT_FILTER_A_FORMAT_ID,

	/* private: */
	__KPRINT_FILTER_A_CNT
};
#define KPRINT_FILTER_A_MAX (__KPRINT_FILTER_A_CNT - 1)

/* Counters, nested in KPRINT_A_STATS. */
enum kprint_stats_attr {
	KPRINT_STATS_A_PAD = 1,
	KPRINT_STATS_A_RECORDS,		/* u64: records stored since load */
	KPRINT_STATS_A_OVERWRITTEN,	/* u64: records the ring overwrote */
	KPRINT_STATS_A_DROPPED,		/* u64: records never stored */
	KPRINT_STATS_A_TRUNCATED,	/* u64: records stored truncated */
	KPRINT_STATS_A_RING_BYTES,	/* u64: ring capacity */
	KPRINT_STATS_A_RING_RECORDS,	/* u64: records held now */
	KPRINT_STATS_A_FIRST_SEQ,	/* u64: oldest record held */
	KPRINT_STATS_A_NEXT_SEQ,	/* u64: sequence the next record gets */
	KPRINT_STATS_A_MCAST_SENT,	/* u64: records multicast */
	KPRINT_STATS_A_MCAST_FAILED,	/* u64: records whose multicast failed */
	KPRINT_STATS_A_MCAST_SKIPPED,	/* u64: overwritten before multicast */
	/* u64: 1 while the printk bridge is on, 0 while it is off */
	KPRINT_STATS_A_BRIDGE,
	KPRINT_STATS_A_BRIDGED,		/* u64: printk messages stored as records */
	/*
	 * u64: printk messages that were kprint's own echo, not bridged again
	 */
	KPRINT_STATS_A_BRIDGE_SKIPPED,
	/* u64: printk messages made in NMI, counted but not stored */
	KPRINT_STATS_A_BRIDGE_DROPPED_NMI,
	/*
	 * u64: printk messages made while the bridge was already busy on the
	 * CPU
	 */
	KPRINT_STATS_A_BRIDGE_DROPPED_RECURSION,
	/*
	 * u64: printk messages for which no scratch record was free, or that
	 * the ring refused
	 */
	KPRINT_STATS_A_BRIDGE_DROPPED_SCRATCH,
	/*
	 * u64: printk messages the hook did not see although it was on (the
	 * kprobe's nmissed; always 0 for the ftrace hook, which every call
	 * reaches)
	 */
	KPRINT_STATS_A_BRIDGE_MISSED,
	/* u64: backlog records taken at load from the printk ring */
	KPRINT_STATS_A_BRIDGE_BACKLOG,
	/*
	 * u64: 1 while kprint's kretprobe on ___ratelimit() is registered, 0
	 * while not
	 */
	KPRINT_STATS_A_RATELIMIT,
	/*
	 * u64: calls ___ratelimit() refused, queued for
	 * kprint_trace_ratelimit()
	 */
	KPRINT_STATS_A_RATELIMIT_QUEUED,
	/* u64: calls ___ratelimit() refused that found the CPU's queue full */
	KPRINT_STATS_A_RATELIMIT_LOST,
	/*
	 * u64: refused calls handed to kprint_trace_ratelimit() (queued, once
	 * drained)
	 */
	KPRINT_STATS_A_RATELIMIT_TRACED,
	/* u64: ___ratelimit() calls the kretprobe missed (its nmissed) */
	KPRINT_STATS_A_RATELIMIT_MISSED,

	/* private: */
	__KPRINT_STATS_A_CNT
};
#define KPRINT_STATS_A_MAX (__KPRINT_STATS_A_CNT - 1)

enum kprint_cmd {
	/* Dump the ring from start-seq (from the oldest record without it) */
	KPRINT_CMD_RECORD_GET = 1,
	KPRINT_CMD_STATS_GET,	/* Get the module's counters */
	/*
	 * Inject a record (level, class, subsystem, format, args); admin only
	 */
	KPRINT_CMD_EMIT,
	KPRINT_CMD_RECORD_NTF,	/* New records, as they are made; multicast on "records" */
	/*
	 * Subscribe this socket to the records its filter matches, instead of
	 * joining "records"; sent as record-ntf, by unicast.  Again: a new
	 * filter.  Closing the socket ends it.  Needs CAP_SYS_ADMIN, as the
	 * group does
	 */
	KPRINT_CMD_SUBSCRIBE,

	/* private: */
	__KPRINT_CMD_CNT
};
#define KPRINT_CMD_MAX (__KPRINT_CMD_CNT - 1)

#endif /* _UAPI_LINUX_KPRINT_H */
