// SPDX-License-Identifier: GPL-2.0
/*
 * Per-format message counters, kept in the kernel.
 *
 * Hooks and maps (docs/bpf-counters.md):
 *   kprint_formats   every kprint record, per format, level, class,
 *                    subsystem and module: a kprobe on kprint.ko's
 *                    kprint_trace_record(), which takes no module
 *                    reference, so the module can still be unloaded
 *   printk_formats   every printk message, once, at the entry of
 *                    vprintk_store(), through which every message printk
 *                    stores passes (printk, printk_deferred, dev_printk,
 *                    /dev/kmsg writes, NMI and recursive printk): under the key
 *                    kprint.ko's bridge handed over for it (the record's
 *                    format id, level, subsystem and module) when it
 *                    bridged it, else under the key computed here (no tags);
 *                    but kprint's own echo of a record, which counts as
 *                    that record in kprint_formats, only in a total
 *   ratelimit_suppressed  calls ___ratelimit() refused, per state and
 *                    caller name: by kprint.ko's kretprobe through a kprobe
 *                    on its kprint_trace_ratelimit() when it is loaded, else
 *                    by a kprobe and kretprobe on ___ratelimit() (it has no
 *                    fentry) where the kernel lets them in
 * Counting a known format costs a lookup and an atomic add; only a new
 * format inserts.  Every insert that fails is counted, by reason.
 *
 * One hook per printk message, whether kprint.ko is loaded or not: the
 * bridge runs no program, its hook on vprintk_store()'s entry writes a slot
 * that this program, right after it at the same entry, reads
 * (include/kprint_handoff.h), and
 * so does kprint's echo of a record right before its printk, so kprint.ko
 * loading, unloading or switching the bridge cannot make a message count
 * twice or not at all.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kprint_counter.h"
#include "kprint_fnv1a.h"
#include "kprint_handoff.h"

#define KERN_SOH_ASCII	'\001'
#define ENOMEM		12
#define EBUSY		16
#define EEXIST		17
#define E2BIG		7
#define LOGLEVEL_SCHED	-2
#define LOGLEVEL_DEFAULT -1

/* include/linux/preempt.h */
#define SOFTIRQ_OFFSET	0x00000100
#define HARDIRQ_MASK	0x000f0000
#define NMI_MASK	0x00f00000
#define KPRINT_CONTEXTS	4	/* task, softirq, hardirq, NMI */

#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

/* dev_printk()'s format in the core (drivers/base/core.c, __dev_printk). */
#define DEV_PRINTK_FMT	"%s %s: %pV"

char LICENSE[] SEC("license") = "GPL";

/*
 * x86's preempt count: the per-CPU __preempt_count until Linux 6.2 moved it
 * into struct pcpu_hot (6.1 has only the former, 6.12 only the latter).
 * One object loads on both: both are weak ksyms (the one the kernel's BTF
 * lacks resolves to NULL), and which to read is a CO-RE type-exists check,
 * a constant once libbpf has relocated it, so that the verifier drops the
 * other branch.  (Testing the ksyms' addresses instead lets clang merge the
 * two into pointer arithmetic, which the verifier refuses.)
 */
extern int __preempt_count __ksym __weak;
struct pcpu_hot___kprint {
	int preempt_count;
} __attribute__((preserve_access_index));
extern struct pcpu_hot___kprint pcpu_hot __ksym __weak;

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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPRINT_COUNTER_MAX_RATELIMITS);
	__type(key, struct kprint_ratelimit_key);
	__type(value, struct kprint_ratelimit_value);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ratelimit_suppressed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kprint_counter_totals);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} kprint_counter_totals SEC(".maps");

/* The part of a struct kprint_handoff_block the printk program copies. */
struct kprint_handoff_copy {
	__u64 begin;
	struct kprint_handoff_head head;
	__u64 end;
};

/*
 * Where kprint.ko's handoff slots are (kprint_trace_handoff()): pinned, so
 * that the programs of every loader read what any of them was told.
 */
struct kprint_handoff_where {
	__u64 blocks;		/* kernel address of the blocks, 0: none */
	__u64 cpus;		/* CPUs they have room for */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kprint_handoff_where);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} printk_handoff SEC(".maps");

/*
 * Too large for the BPF stack.  One per context: an interrupt or NMI may
 * run another of these programs while one is halfway through its copy.
 */
struct kprint_counter_scratch {
	char raw[KPRINT_COUNTER_FORMAT_LEN];
	struct kprint_counter_value value;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KPRINT_CONTEXTS);
	__type(key, __u32);
	__type(value, struct kprint_counter_scratch);
} kprint_counter_scratch SEC(".maps");

static __always_inline int preempt_count(void)
{
	struct pcpu_hot___kprint *hot;
	int *pc;

	if (bpf_core_type_exists(struct pcpu_hot___kprint)) {
		hot = bpf_this_cpu_ptr(&pcpu_hot);
		return hot ? hot->preempt_count : 0;
	}
	pc = bpf_this_cpu_ptr(&__preempt_count);
	return pc ? *pc : 0;
}

static __always_inline __u32 context_level(void)
{
	int pc = preempt_count();

	if (pc & NMI_MASK)
		return 3;
	if (pc & HARDIRQ_MASK)
		return 2;
	return pc & SOFTIRQ_OFFSET ? 1 : 0;
}

static __always_inline struct kprint_counter_totals *totals(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&kprint_counter_totals, &zero);
}

/* This context's scratch; @level is context_level(). */
static __always_inline struct kprint_counter_scratch *scratch_at(__u32 level)
{
	return bpf_map_lookup_elem(&kprint_counter_scratch, &level);
}

static __always_inline struct kprint_counter_scratch *scratch(void)
{
	return scratch_at(context_level());
}

static __always_inline void count_failure(struct kprint_counter_failures *f, long err)
{
	if (err == -E2BIG)
		__sync_fetch_and_add(&f->full, 1);
	else if (err == -EBUSY)
		__sync_fetch_and_add(&f->busy, 1);
	else if (err == -ENOMEM)
		__sync_fetch_and_add(&f->nomem, 1);
	else
		__sync_fetch_and_add(&f->other, 1);
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
 * Count the first message of a new format; @fresh holds the strings.  A
 * failed insert is counted in @failed: the message went uncounted.
 */
static __always_inline void count_new(void *map, struct kprint_counter_key *key,
				      struct kprint_counter_value *fresh,
				      struct kprint_counter_failures *failed)
{
	long err;

	fresh->count = 1;
	err = bpf_map_update_elem(map, key, fresh, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* Another CPU inserted it between our lookup and update. */
		if (count_known(map, key))
			return;
	}
	if (err)
		count_failure(failed, err);
}

static __always_inline char hex_digit(unsigned int d)
{
	return d < 10 ? '0' + d : 'a' + d - 10;
}

struct escape_state {
	__u32 out;		/* bytes of value.format written */
	__u32 level;		/* the scratch in use */
};

/*
 * One byte of scratch->raw into scratch->value.format, escaped (bpf_loop).
 * The masks are for the verifier (the loop runs KPRINT_COUNTER_FORMAT_LEN
 * times, a power of two): a bound checked on one register copy does not
 * carry to another.
 */
#define FORMAT_MASK	(KPRINT_COUNTER_FORMAT_LEN - 1)
_Static_assert((KPRINT_COUNTER_FORMAT_LEN & FORMAT_MASK) == 0, "a power of two");

static int escape_byte(__u32 i, void *data)
{
	struct escape_state *st = data;
	struct kprint_counter_scratch *s;
	__u32 o = st->out, level = st->level;
	char *out;
	unsigned char c;

	s = bpf_map_lookup_elem(&kprint_counter_scratch, &level);
	if (!s)
		return 1;
	c = s->raw[i & FORMAT_MASK];
	if (!c)
		return 1;
	out = s->value.format;
	if (c >= 0x20 && c < 0x7f && c != '\\') {
		if (o >= KPRINT_COUNTER_FORMAT_LEN - 1)
			return 1;
		out[o & FORMAT_MASK] = c;
		st->out = o + 1;
		return 0;
	}
	/* Whole escapes only, and room for the NUL. */
	if (o >= KPRINT_COUNTER_FORMAT_LEN - 4 - 1)
		return 1;
	out[o & FORMAT_MASK] = '\\';
	if (c == '\n') {
		out[(o + 1) & FORMAT_MASK] = 'n';
		st->out = o + 2;
		return 0;
	}
	out[(o + 1) & FORMAT_MASK] = 'x';
	out[(o + 2) & FORMAT_MASK] = hex_digit(c >> 4);
	out[(o + 3) & FORMAT_MASK] = hex_digit(c & 15);
	st->out = o + 4;
	return 0;
}

/* s->value.format = s->raw, escaped so that bpftool prints it as text. */
static __always_inline void escape_format(struct kprint_counter_scratch *s)
{
	struct escape_state st = { .level = context_level() };

	bpf_loop(KPRINT_COUNTER_FORMAT_LEN, escape_byte, &st, 0);
	if (st.out >= KPRINT_COUNTER_FORMAT_LEN)
		st.out = KPRINT_COUNTER_FORMAT_LEN - 1;
	s->value.format[st.out & FORMAT_MASK] = '\0';
}

/*
 * The tags of a new entry: @tags is the record's subsystem, then its module
 * right after its NUL; each fits its buffer (the kernel cuts tags to
 * KPRINT_TAG_MAX bytes with the NUL), so the first copy's length is exactly
 * where the module starts.
 */
static __always_inline void read_tags(struct kprint_counter_value *fresh, const char *tags)
{
	long len;

	len = bpf_probe_read_kernel_str(fresh->subsystem, sizeof(fresh->subsystem), tags);
	if (len <= 0) {
		fresh->subsystem[0] = '\0';
		fresh->module[0] = '\0';
		return;
	}
	if (bpf_probe_read_kernel_str(fresh->module, sizeof(fresh->module), tags + len) < 0)
		fresh->module[0] = '\0';
}

/* A format passed as it is (kprint records, the bridge's): copy, escape. */
static __always_inline void read_format_as_is(struct kprint_counter_scratch *s,
					      const char *format)
{
	if (bpf_probe_read_kernel_str(s->raw, sizeof(s->raw), format) < 0)
		s->raw[0] = '\0';
	escape_format(s);
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
	struct kprint_counter_scratch *s;

	if (!t)
		return 0;
	__sync_fetch_and_add(&t->kprint_records, 1);
	if (count_known(&kprint_formats, &key))
		return 0;
	s = scratch();
	if (!s)
		return 0;
	read_format_as_is(s, format);
	read_tags(&s->value, tags);
	count_new(&kprint_formats, &key, &s->value, &t->kprint_failed);
	return 0;
}

/*
 * kprint.ko tells where its handoff slots are when it makes and frees them,
 * and again whenever its bridge parameter is read (libkpc reads it after
 * attaching): a kprobe, which holds no module reference.
 */
SEC("kprobe/kprint_trace_handoff")
int BPF_KPROBE(printk_handoff_where, const void *blocks, __u32 cpus)
{
	struct kprint_handoff_where *w;
	__u32 zero = 0;

	w = bpf_map_lookup_elem(&printk_handoff, &zero);
	if (!w)
		return 0;
	/* The CPU count first: a reader checks it against the blocks. */
	WRITE_ONCE(w->cpus, blocks ? cpus : 0);
	WRITE_ONCE(w->blocks, (__u64)blocks);
	return 0;
}

/*
 * How far slot head @h is this call's: 0 not, 1 the call's task, arguments
 * and format pointers but the task was switched out since (likely ours, on
 * this CPU again; but an older message of the same call site, stack and
 * task also looks so), 2 that and the same switch count (certainly ours).
 */
static __always_inline int handoff_match(const struct kprint_handoff_head *h,
					 struct task_struct *task, __u64 switches,
					 const char *fmt, void *args)
{
	if (h->task != (__u64)task || h->args != (__u64)args || h->fmt != (__u64)fmt)
		return 0;
	return h->switches == switches ? 2 : 1;
}

/*
 * The slot kprint.ko's bridge, or its echo, wrote for this call, copied to
 * @h: its CPU's block at its context level @ctx holds the last message's,
 * which is this call's if the key matches (include/kprint_handoff.h).  Returns the
 * block's kernel address, or 0 if the slot is not this call's: no bridge,
 * the bridge did not see the message, or its task moved to another CPU in
 * between.
 */
static __always_inline __u64 handoff_find(struct kprint_handoff_copy *h,
					  struct kprint_counter_totals *t,
					  const char *fmt, void *args, __u32 ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct kprint_handoff_where *w;
	__u32 zero = 0, cpu;
	__u64 blk;
	int m;

	w = bpf_map_lookup_elem(&printk_handoff, &zero);
	if (!w)
		return 0;
	blk = READ_ONCE(w->blocks);
	cpu = bpf_get_smp_processor_id();
	if (!blk || cpu >= READ_ONCE(w->cpus))
		return 0;
	blk += ((__u64)cpu * KPRINT_HANDOFF_CONTEXTS + ctx) *
	       sizeof(struct kprint_handoff_block);
	if (bpf_probe_read_kernel(h, sizeof(*h), (void *)blk))
		return 0;
	m = handoff_match(&h->head, task, task->nvcsw + task->nivcsw, fmt, args);
	if (!m)
		return 0;
	if (h->begin != h->end) {
		/* A preempted copy: writers came in between. */
		__sync_fetch_and_add(&t->handoff_torn, 1);
		return 0;
	}
	if (m == 1)
		__sync_fetch_and_add(&t->handoff_switched, 1);
	return blk;
}

/*
 * A new entry of the bridge's key: its format and tags, from the slot @h
 * copied from the block at @blk.  False if the block was written again
 * meanwhile (a preempted reader): the tags may be another message's.
 */
static __always_inline bool read_handoff_strings(struct kprint_counter_scratch *s,
						 const struct kprint_handoff_copy *h, __u64 blk)
{
	__u32 len = h->head.format_len;
	__u64 end;

	if (len > KPRINT_COUNTER_FORMAT_LEN - 1)
		len = KPRINT_COUNTER_FORMAT_LEN - 1;
	if (bpf_probe_read_kernel(s->raw, len, (const void *)h->head.format))
		len = 0;
	s->raw[len & FORMAT_MASK] = '\0';
	escape_format(s);
	read_tags(&s->value, (const char *)blk + offsetof(struct kprint_handoff_block, tags));
	return !bpf_probe_read_kernel(&end, sizeof(end),
				      (const void *)blk + offsetof(struct kprint_handoff_block, end)) &&
	       end == h->end;
}

/*
 * The format a plain message counts under: for dev_printk() and friends,
 * whose format is always the core's "%s %s: %pV", the caller's own inside
 * the struct va_format, the third variadic argument.  Its only caller,
 * dev_printk_emit(level, dev, fmt, ...), starts its va_list after three
 * named arguments (gp_offset 24), so the three are in the register save
 * area, the va_format at offset 40, whether printk consumed the list
 * (gp_offset 48, as an fexit saw it) or not (24, at the entry).
 */
static __always_inline const char *effective_format(const char *fmt, void *args)
{
	static const char dev_fmt[] = DEV_PRINTK_FMT;
	char head[sizeof(dev_fmt)];
	struct __va_list_tag va;
	struct va_format *vaf;
	const char *inner;
	unsigned int i;

	if (bpf_probe_read_kernel(head, sizeof(head), fmt))
		return fmt;
	for (i = 0; i < sizeof(dev_fmt); i++)
		if (head[i] != dev_fmt[i])
			return fmt;
	if (bpf_probe_read_kernel(&va, sizeof(va), args) ||
	    (va.gp_offset != 24 && va.gp_offset != 48) ||
	    bpf_probe_read_kernel(&vaf, sizeof(vaf), va.reg_save_area + 40) || !vaf ||
	    bpf_probe_read_kernel(&inner, sizeof(inner), &vaf->fmt) || !inner)
		return fmt;
	return inner;
}

/*
 * Read @fmt without its KERN_ prefixes (the first level one sets *level)
 * and one trailing newline into s->raw; its length, or -1.
 */
static __always_inline long read_printk_format(struct kprint_counter_scratch *s,
					       const char *fmt, int *level)
{
	char pre[2];
	long len;
	int i;

	for (i = 0; i < 4; i++) {
		if (bpf_probe_read_kernel(pre, sizeof(pre), fmt) || pre[0] != KERN_SOH_ASCII)
			break;
		if (pre[1] >= '0' && pre[1] <= '7') {
			if (*level == LOGLEVEL_DEFAULT)
				*level = pre[1] - '0';
		} else if (pre[1] != 'c') {
			break;
		}
		fmt += 2;
	}
	len = bpf_probe_read_kernel_str(s->raw, sizeof(s->raw), fmt);
	if (len <= 0)
		return -1;
	/* len counts the NUL; the verifier must see the bound. */
	len--;
	if (len > KPRINT_COUNTER_FORMAT_LEN - 1)
		len = KPRINT_COUNTER_FORMAT_LEN - 1;
	if (len > 0 && s->raw[len - 1] == '\n') {
		len--;
		s->raw[len] = '\0';
	}
	return len;
}

/*
 * A message the bridge handed over (slot @h, of the block at @blk): under
 * its key.  The scratch only for a new entry's strings.
 */
static __always_inline void count_bridged(const struct kprint_handoff_copy *h,
					  struct kprint_counter_totals *t, __u64 blk,
					  __u32 ctx)
{
	struct kprint_counter_key key = {
		.format_id = h->head.format_id,
		.tags_id = h->head.tags_id,
		.level = h->head.level,
		.class = h->head.class,
	};
	struct kprint_counter_scratch *s;

	__sync_fetch_and_add(&t->printk_bridged, 1);
	if (count_known(&printk_formats, &key))
		return;
	s = scratch_at(ctx);
	if (!s || !read_handoff_strings(s, h, blk)) {
		__sync_fetch_and_add(&t->printk_failed.other, 1);
		return;
	}
	count_new(&printk_formats, &key, &s->value, &t->printk_failed);
}

/*
 * At vprintk_store()'s entry: ftrace runs the bridge's hook there first and
 * only then this program's trampoline (the direct call comes after every
 * ftrace_ops callback of the site), so the slot for this call is written
 * by then.  An fexit, which this was until 2026-12-07, costs a trampoline
 * that calls the function itself: 265 ns a call against 174 for an fentry
 * in the bench guest.
 */
SEC("fentry/vprintk_store")
int BPF_PROG(printk_count, int facility, int level, const struct dev_printk_info *dev_info,
	     const char *fmt, void *args)
{
	struct kprint_counter_totals *t = totals();
	struct kprint_counter_key key = {};
	struct kprint_counter_scratch *s;
	struct kprint_handoff_copy h;
	__u32 ctx_level = context_level();
	int lvl = level;
	__u64 blk;
	long len;

	if (!t)
		return 0;
	/* On the stack: the common case, a bridged message, needs no scratch. */
	blk = handoff_find(&h, t, fmt, args, ctx_level);
	if (blk && (h.head.flags & KPRINT_HANDOFF_F_BRIDGED)) {
		count_bridged(&h, t, blk, ctx_level);
		return 0;
	}
	/* kprint's own echo: counted as its record, in kprint_formats. */
	if (blk && (h.head.flags & KPRINT_HANDOFF_F_ECHO)) {
		__sync_fetch_and_add(&t->printk_echo, 1);
		return 0;
	}

	s = scratch_at(ctx_level);
	if (!s)
		return 0;

	__sync_fetch_and_add(&t->printk_plain, 1);
	/* vprintk_emit() turns printk_deferred()'s LOGLEVEL_SCHED into default. */
	if (lvl == LOGLEVEL_SCHED)
		lvl = LOGLEVEL_DEFAULT;
	len = read_printk_format(s, effective_format(fmt, args), &lvl);
	if (len < 0) {
		__sync_fetch_and_add(&t->printk_unreadable, 1);
		return 0;
	}
	/*
	 * No level: default_message_loglevel (console_printk[1]), which is
	 * CONFIG_MESSAGE_LOGLEVEL_DEFAULT unless changed at run time.  Not
	 * read from the kernel: an untyped ksym makes every load read all of
	 * /proc/kallsyms (seconds in an emulated guest).  The bridge hands
	 * over the level printk stored.
	 */
	if (lvl < 0 || lvl > 7)
		lvl = KPRINT_COUNTER_DEFAULT_LEVEL;
	key.level = lvl;
	key.format_id = kprint_fnv1a64_mem(s->raw, len);
	if (count_known(&printk_formats, &key))
		return 0;
	escape_format(s);
	/* The plain hook knows no tags. */
	s->value.subsystem[0] = '\0';
	s->value.module[0] = '\0';
	count_new(&printk_formats, &key, &s->value, &t->printk_failed);
	return 0;
}

/*
 * ___ratelimit(rs, func) returns 0 when the caller must drop its message
 * (over the burst, or the state's lock was contended).  lib/ratelimit.c is
 * not traceable by ftrace (no fentry, no fexit), so a kprobe at its entry
 * keeps the arguments, keyed by the stack pointer there (unique among the
 * calls in progress on all CPUs), and a kretprobe at its return, whose
 * stack pointer is that one plus the popped return address, finds them.
 */
struct kprint_ratelimit_call {
	__u64 state;
	__u64 func;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct kprint_ratelimit_call);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ratelimit_calls SEC(".maps");

SEC("kprobe/___ratelimit")
int BPF_KPROBE(ratelimit_enter, struct ratelimit_state *rs, const char *func)
{
	struct kprint_ratelimit_call call = { .state = (__u64)rs, .func = (__u64)func };
	__u64 sp = PT_REGS_SP(ctx);
	struct kprint_counter_totals *t;
	long err;

	err = bpf_map_update_elem(&ratelimit_calls, &sp, &call, BPF_ANY);
	if (err) {
		t = totals();
		if (t)
			count_failure(&t->ratelimit_failed, err);
	}
	return 0;
}

/*
 * Count one refused call of @rs by @func (the key's func read already).
 * A failed insert is counted in ratelimit_failed: the call went uncounted.
 */
static __always_inline void count_suppressed(struct kprint_counter_totals *t,
					     struct kprint_ratelimit_key *key,
					     const struct ratelimit_state *rs)
{
	struct kprint_ratelimit_value fresh = {}, *v;
	long err;

	__sync_fetch_and_add(&t->ratelimit_suppressed, 1);
	v = bpf_map_lookup_elem(&ratelimit_suppressed, key);
	if (v) {
		__sync_fetch_and_add(&v->suppressed, 1);
		return;
	}
	fresh.suppressed = 1;
	fresh.burst = BPF_CORE_READ(rs, burst);
	fresh.interval_jiffies = BPF_CORE_READ(rs, interval);
	err = bpf_map_update_elem(&ratelimit_suppressed, key, &fresh, BPF_NOEXIST);
	if (err == -EEXIST) {
		v = bpf_map_lookup_elem(&ratelimit_suppressed, key);
		if (v) {
			__sync_fetch_and_add(&v->suppressed, 1);
			return;
		}
	}
	if (err)
		count_failure(&t->ratelimit_failed, err);
}

SEC("kretprobe/___ratelimit")
int BPF_KRETPROBE(ratelimit_count, int ret)
{
	struct kprint_counter_totals *t = totals();
	struct kprint_ratelimit_key key = {};
	struct kprint_ratelimit_call *call;
	struct ratelimit_state *rs;
	__u64 sp = PT_REGS_SP(ctx) - 8;

	if (!t)
		return 0;
	call = bpf_map_lookup_elem(&ratelimit_calls, &sp);
	__sync_fetch_and_add(&t->ratelimit_calls, 1);
	if (!call) {
		/* The entry probe did not run for this call (or failed): counted. */
		__sync_fetch_and_add(&t->ratelimit_unmatched, 1);
		return 0;
	}
	rs = (struct ratelimit_state *)call->state;
	key.state = call->state;
	if (!ret && bpf_probe_read_kernel_str(key.func, sizeof(key.func),
					      (const char *)call->func) < 0)
		key.func[0] = '\0';
	bpf_map_delete_elem(&ratelimit_calls, &sp);
	if (!ret)
		count_suppressed(t, &key, rs);
	return 0;
}

/*
 * Where ___ratelimit() is not traceable (Debian's 6.1), kprint.ko's own
 * kretprobe on it hands each refused call, and only those, to its noipa
 * kprint_trace_ratelimit(rs, func), from an irq_work: the same key and
 * accounting as the direct hooks above, which libkpc then leaves off so
 * that no call counts twice.  ratelimit_calls does not move here: the
 * calls ___ratelimit() let through never reach this hook.
 */
SEC("kprobe/kprint_trace_ratelimit")
int BPF_KPROBE(ratelimit_count_kprint, const struct ratelimit_state *rs, const char *func)
{
	struct kprint_counter_totals *t = totals();
	struct kprint_ratelimit_key key = { .state = (__u64)rs };

	if (!t)
		return 0;
	if (bpf_probe_read_kernel_str(key.func, sizeof(key.func), func) < 0)
		key.func[0] = '\0';
	count_suppressed(t, &key, rs);
	return 0;
}
