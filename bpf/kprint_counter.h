/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layout of the pinned per-format counters, shared by the BPF program and
 * its userspace loader.  The maps carry BTF, so that
 *   bpftool map dump pinned /sys/fs/bpf/kprint/kprint_formats
 * prints every field by name, the format as text (docs/bpf-counters.md).
 */
#ifndef KPRINT_COUNTER_H
#define KPRINT_COUNTER_H

#define KPRINT_COUNTER_PIN_DIR		"/sys/fs/bpf/kprint"
#define KPRINT_COUNTER_FORMAT_LEN	256	/* == KPRINT_FORMAT_MAX */
#define KPRINT_COUNTER_TAG_LEN		64	/* == KPRINT_TAG_MAX */
#define KPRINT_COUNTER_MAX_FORMATS	4096	/* default entries per map */
#define KPRINT_COUNTER_MAX_RATELIMITS	1024	/* ratelimit states counted */
#define KPRINT_COUNTER_DEFAULT_LEVEL	4	/* printk without a level prefix */

/*
 * Key of kprint_formats and printk_formats.  Every byte is a field (no
 * padding) because hash keys are compared bytewise.  The tags are part of
 * the key so that one format used by two modules or subsystems counts as
 * two entries.  printk() counted by the plain hook (kprint.ko not bridging)
 * has no tags and no class: both are 0 there; the bridge's entries carry
 * the tags of the record (subsystem, module).
 */
struct kprint_counter_key {
	__u64 format_id;	/* FNV-1a 64 of the raw format, as in records */
	__u64 tags_id;		/* FNV-1a 64 of "subsystem\0module\0" */
	__u32 level;		/* syslog level 0..7 */
	__u32 class;		/* enum kprint_class */
};

/*
 * Value: the count, and what the key's ids stand for, so that dumps are
 * readable.  The strings are copied once, when the entry is created.
 * format is escaped so that bpftool prints it as text: a newline as "\n",
 * a backslash and every other byte below 0x20 or from 0x7f as "\xNN"
 * (/dev/kmsg's escapes), cut at a whole escape when it does not fit; the
 * key's format_id is that of the raw, unescaped format.
 */
struct kprint_counter_value {
	__u64 count;
	char format[KPRINT_COUNTER_FORMAT_LEN];
	char subsystem[KPRINT_COUNTER_TAG_LEN];
	char module[KPRINT_COUNTER_TAG_LEN];
};

/*
 * Map updates that failed, by the reason the kernel gave: the message or
 * call was seen (it is in the totals) but not counted in its entry.
 */
struct kprint_counter_failures {
	__u64 full;		/* -E2BIG: the map holds max_entries */
	__u64 busy;		/* -EBUSY: the map's bucket lock was taken on this CPU */
	__u64 nomem;		/* -ENOMEM */
	__u64 other;		/* any other error */
};

/* The single entry of kprint_counter_totals. */
struct kprint_counter_totals {
	__u64 kprint_records;	/* kprint records seen */
	__u64 printk_plain;	/* printk messages counted under the plain key */
	__u64 printk_bridged;	/* printk messages counted under the bridge's key */
	/*
	 * kprint.ko's own echoes of its records: printk messages too, but
	 * counted as their records (kprint_formats), not in printk_formats.
	 */
	__u64 printk_echo;
	__u64 printk_unreadable; /* messages whose format could not be read */
	/*
	 * Slots of the bridge found but reused while being read (a task
	 * preempted in the return's program): counted plain.
	 */
	__u64 handoff_torn;
	/*
	 * Of printk_bridged, messages whose task was switched out between
	 * the bridge's hook and the return: their slot matched all but the
	 * switch count (docs/bpf-counters.md).
	 */
	__u64 handoff_switched;
	__u64 ratelimit_calls;	/* ___ratelimit() returns seen */
	__u64 ratelimit_suppressed; /* of which 0: the caller's message dropped */
	__u64 ratelimit_unmatched; /* of which without their arguments: uncounted */
	struct kprint_counter_failures kprint_failed;
	struct kprint_counter_failures printk_failed;
	struct kprint_counter_failures ratelimit_failed;
};

/*
 * Key of ratelimit_suppressed: one ratelimit state as used by one caller.
 * func is the name the caller passed to ___ratelimit() (its __func__ for
 * printk_ratelimited() and friends; "net_ratelimit" for net_ratelimit();
 * the writer's comm for /dev/kmsg).  state is the state's kernel address:
 * callers sharing a state (printk_ratelimit(), net_ratelimit()) share it.
 */
struct kprint_ratelimit_key {
	__u64 state;
	char func[KPRINT_COUNTER_TAG_LEN];
};

struct kprint_ratelimit_value {
	__u64 suppressed;	/* ___ratelimit() returned 0 */
	__u32 burst;		/* the state's burst and interval when first seen */
	__u32 interval_jiffies;
};

#endif /* KPRINT_COUNTER_H */
