// SPDX-License-Identifier: GPL-2.0
/*
 * Per-format message counters, kept in the kernel.
 *
 * Two hooks feed two pinned hash maps of the same layout: every kprint
 * record, per format, level, class, subsystem and module (a kprobe on
 * kprint.ko's kprint_trace_record(), which takes no module reference, so
 * the module can still be unloaded while counting) and
 * every printk() of the running kernel (fentry on vprintk_emit(), through
 * which all of printk, printk_deferred and /dev/kmsg writes pass).  Counting
 * a known format costs a lookup and an atomic add; only a new format inserts,
 * and a full map turns the insert into an overflow count.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kprint_counter.h"
#include "kprint_fnv1a.h"

#define KERN_SOH_ASCII	'\001'
#define E2BIG		7
#define EEXIST		17

char LICENSE[] SEC("license") = "GPL";

struct kprint_counter_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPRINT_COUNTER_MAX_FORMATS);
	__type(key, struct kprint_counter_key);
	__type(value, struct kprint_counter_value);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
};

struct kprint_counter_map kprint_formats SEC(".maps");
struct kprint_counter_map printk_formats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kprint_counter_totals);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} kprint_counter_totals SEC(".maps");

/* A value is too large for the BPF stack next to everything else. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kprint_counter_value);
} kprint_counter_scratch SEC(".maps");

static __always_inline struct kprint_counter_totals *totals(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&kprint_counter_totals, &zero);
}

static __always_inline struct kprint_counter_value *scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&kprint_counter_scratch, &zero);
}

/* The common case: a known format, no string copy, no insert. */
static __always_inline bool count_known(void *map, struct kprint_counter_key *key)
{
	struct kprint_counter_value *value = bpf_map_lookup_elem(map, key);

	if (!value)
		return false;
	__sync_fetch_and_add(&value->count, 1);
	return true;
}

/*
 * Count the first message of a new format; @fresh holds the format text.
 * Return: 0, or -E2BIG when the map is full and the message went uncounted.
 */
static __always_inline int count_new(void *map, struct kprint_counter_key *key,
				     struct kprint_counter_value *fresh)
{
	int err;

	fresh->count = 1;
	err = bpf_map_update_elem(map, key, fresh, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* Another CPU inserted it between our lookup and update. */
		count_known(map, key);
		return 0;
	}
	return err == -E2BIG ? -E2BIG : 0;
}

/*
 * libbpf before 1.2 names only five kprobe arguments; kprint_trace_record()
 * has six, all in registers.
 */
#ifndef PT_REGS_PARM6
#if defined(bpf_target_x86)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(bpf_target_arm64)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->regs[5])
#else
#error "the sixth kprobe argument of this architecture is unknown: PT_REGS_PARM6"
#endif
#endif

/*
 * Copy a new entry's strings.  @tags is the record's subsystem, then its
 * module right after its NUL; each fits its buffer (the kernel cuts tags to
 * KPRINT_TAG_MAX bytes with the NUL), so the first copy's length is exactly
 * where the module starts.
 */
static __always_inline void read_strings(struct kprint_counter_value *fresh,
					 const char *format, const char *tags)
{
	long len;

	if (bpf_probe_read_kernel_str(fresh->format, sizeof(fresh->format), format) < 0)
		fresh->format[0] = '\0';
	len = bpf_probe_read_kernel_str(fresh->subsystem, sizeof(fresh->subsystem), tags);
	if (len <= 0) {
		fresh->subsystem[0] = '\0';
		fresh->module[0] = '\0';
		return;
	}
	if (bpf_probe_read_kernel_str(fresh->module, sizeof(fresh->module), tags + len) < 0)
		fresh->module[0] = '\0';
}

SEC("kprobe/kprint_trace_record")
int BPF_KPROBE(kprint_count_record, const char *format, __u64 format_id, __u32 level,
	       __u32 class, const char *tags)
{
	struct kprint_counter_key key = {
		.format_id = format_id,
		.tags_id = PT_REGS_PARM6(ctx),
		.level = level,
		.class = class,
	};
	struct kprint_counter_totals *t = totals();
	struct kprint_counter_value *fresh;

	if (!t)
		return 0;
	__sync_fetch_and_add(&t->kprint_records, 1);
	if (count_known(&kprint_formats, &key))
		return 0;
	fresh = scratch();
	if (!fresh)
		return 0;
	read_strings(fresh, format, tags);
	if (count_new(&kprint_formats, &key, fresh) == -E2BIG)
		__sync_fetch_and_add(&t->kprint_overflow, 1);
	return 0;
}

SEC("fentry/vprintk_emit")
int BPF_PROG(printk_count, int facility, int level,
	     const struct dev_printk_info *dev_info, const char *fmt)
{
	struct kprint_counter_totals *t = totals();
	struct kprint_counter_key key = {};
	struct kprint_counter_value *fresh;
	long len;

	if (!t)
		return 0;
	__sync_fetch_and_add(&t->printk_calls, 1);
	fresh = scratch();
	if (!fresh)
		return 0;

	/*
	 * printk() passes LOGLEVEL_DEFAULT and keeps the level in a KERN_SOH
	 * prefix of the format; /dev/kmsg passes the level it parsed.  The
	 * prefix is not part of the format a reader wants to see.
	 */
	len = bpf_probe_read_kernel_str(fresh->format, sizeof(fresh->format), fmt);
	if (len > 2 && fresh->format[0] == KERN_SOH_ASCII) {
		char c = fresh->format[1];

		if (c >= '0' && c <= '7') {
			if (level < 0)
				level = c - '0';
		} else if (c != 'c' && c != 'd') {
			c = 0;
		}
		if (c)
			len = bpf_probe_read_kernel_str(fresh->format,
							sizeof(fresh->format), fmt + 2);
	}
	if (len <= 0) {
		__sync_fetch_and_add(&t->printk_unreadable, 1);
		return 0;
	}
	key.level = level >= 0 && level <= 7 ? level : KPRINT_COUNTER_DEFAULT_LEVEL;
	/*
	 * The format id of records: the hash of the format without its NUL.
	 * len counts the NUL and the helper never returns more than the
	 * buffer, but the verifier must see that bound to let the loop end.
	 */
	if (len > (long)sizeof(fresh->format))
		len = sizeof(fresh->format);
	key.format_id = kprint_fnv1a64_mem(fresh->format, len - 1);
	/* printk() has no tags; the scratch may hold a kprint record's. */
	fresh->subsystem[0] = '\0';
	fresh->module[0] = '\0';
	if (!count_known(&printk_formats, &key) &&
	    count_new(&printk_formats, &key, fresh) == -E2BIG)
		__sync_fetch_and_add(&t->printk_overflow, 1);
	return 0;
}
