/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layout of the pinned per-format counters, shared by the BPF program and
 * its userspace loader.  The maps carry BTF, so that
 *   bpftool map dump pinned /sys/fs/bpf/kprint/kprint_formats
 * prints every field by name, the format as text.
 */
#ifndef KPRINT_COUNTER_H
#define KPRINT_COUNTER_H

#define KPRINT_COUNTER_PIN_DIR		"/sys/fs/bpf/kprint"
#define KPRINT_COUNTER_FORMAT_LEN	256	/* == KPRINT_FORMAT_MAX */
#define KPRINT_COUNTER_TAG_LEN		64	/* == KPRINT_TAG_MAX */
#define KPRINT_COUNTER_MAX_FORMATS	4096	/* default entries per map */
#define KPRINT_COUNTER_DEFAULT_LEVEL	4	/* printk without a level prefix */

/*
 * Key of kprint_formats and printk_formats.  Every byte is a field (no
 * padding) because hash keys are compared bytewise.  The tags are part of
 * the key so that one format used by two modules or subsystems counts as
 * two entries; printk() has no tags and no class: both are 0 there.
 */
struct kprint_counter_key {
	__u64 format_id;	/* FNV-1a 64 of the format, as in records */
	__u64 tags_id;		/* FNV-1a 64 of "subsystem\0module\0" */
	__u32 level;		/* syslog level 0..7 */
	__u32 class;		/* enum kprint_class */
};

/*
 * Value: the count, and what the key's ids stand for, so that dumps are
 * readable.  The strings are copied once, when the entry is created.
 */
struct kprint_counter_value {
	__u64 count;
	char format[KPRINT_COUNTER_FORMAT_LEN];
	char subsystem[KPRINT_COUNTER_TAG_LEN];
	char module[KPRINT_COUNTER_TAG_LEN];
};

/* The single entry of kprint_counter_totals. */
struct kprint_counter_totals {
	__u64 kprint_records;	/* kprint records seen */
	__u64 kprint_overflow;	/* of which not counted per format: map full */
	__u64 printk_calls;	/* printk() calls seen */
	__u64 printk_overflow;	/* of which not counted per format: map full */
	__u64 printk_unreadable; /* of which the format could not be read */
};

#endif /* KPRINT_COUNTER_H */
