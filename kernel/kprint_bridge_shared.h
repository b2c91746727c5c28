/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: what the printk bridge's files share, and nothing else of kprint
 * needs.  The bridge's own API is kprint_bridge.h.
 */
#ifndef _KPRINT_BRIDGE_SHARED_H
#define _KPRINT_BRIDGE_SHARED_H

#include <linux/atomic.h>
#include <linux/dev_printk.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "kprint_record.h"
#include "kprint_render.h"

/*
 * kernel/printk/printk.c of 6.1: a stored text is at most LOG_LINE_MAX - 1
 * bytes, KERN_ prefix and newline included (CONSOLE_LOG_MAX - PREFIX_MAX).
 */
#define KPRINT_BRIDGE_LINE_MAX		(1024 - 32)

/*
 * The pt_regs x86's ftrace_caller fills in: a member of struct ftrace_regs
 * until Linux 6.12 made that type opaque, behind arch_ftrace_regs().
 */
#ifdef arch_ftrace_regs
#define kprint_bridge_fregs_pt(fregs)	(&arch_ftrace_regs(fregs)->regs)
#else
#define kprint_bridge_fregs_pt(fregs)	(&(fregs)->regs)
#endif

/* What the bridge counts (kprint_bridge_stats.c). */
struct kprint_bridge_counts {
	atomic64_t skipped;
	atomic64_t dropped_nmi;
	atomic64_t dropped_recursion;
	atomic64_t dropped_scratch;
	atomic64_t backlog;
	/* Pairing messages with printk's commit (kprint_bridge_pending). */
	atomic64_t uncommitted;
	atomic64_t unread;
	atomic64_t order_late;
	atomic64_t order_overtook;
	atomic64_t order_moved;
	atomic64_t backlog_live;
};

extern struct kprint_bridge_counts kprint_bridge_count;

/*
 * The two counted for nearly every message, per CPU rather than shared:
 * a locked increment of a shared line is a good part of a printk's cost.
 * Never counted in NMI (those are dropped).
 */
struct kprint_bridge_hot {
	u64 bridged;
	u64 deferred;
};

DECLARE_PER_CPU(struct kprint_bridge_hot, kprint_bridge_hot);

struct kprint_bridge_hot kprint_bridge_hot_sum(void);

/* Call sites (kprint_bridge_caller.c) */

/* How far a lookup in the site or the format cache probes. */
#define KPRINT_BRIDGE_SITE_PROBES	8

/**
 * struct kprint_bridge_site - what sprint_symbol() says of a return address
 * @ip: the address; 0 for a free slot, claimed with cmpxchg()
 * @ready: the other fields are filled in (set with release)
 * @core: inside the printk core (or unknown): keep unwinding
 * @store: inside vprintk_store(), the hooked function
 * @direct: the instruction before @ip calls into the printk core directly:
 *	the function at @ip printed (kprint_bridge_calls_core())
 * @function: "symbol+off/size", as %pS prints it without the module
 * @module: the module, "vmlinux" for the core kernel
 * @function_len: strlen() of @function
 * @module_len: strlen() of @module
 * @tags_id: FNV-1a 64 of the tags of its messages without a subsystem:
 *	NUL, @module, NUL (kprint_rec_tags())
 */
struct kprint_bridge_site {
	unsigned long ip;
	bool ready;
	bool core;
	bool store;
	bool direct;
	char function[KPRINT_TAG_MAX];
	char module[KPRINT_TAG_MAX];
	u8 function_len;
	u8 module_len;
	u64 tags_id;
};

/* The tags id of a message without a subsystem: NUL, @module, NUL. */
static inline u64 kprint_bridge_tags_id(const char *module, size_t len)
{
	return kprint_fnv1a64_add(kprint_fnv1a64_mem("", 1), module, len + 1);
}

/**
 * struct kprint_bridge_owner - the module whose memory holds a format
 * @module: its name, "vmlinux" for the kernel image; empty if the format
 *	is in neither (a buffer): the caller then names the module
 * @module_len: strlen() of @module
 * @image: it is the kernel image's
 * @tags_id: as struct kprint_bridge_site's
 */
struct kprint_bridge_owner {
	char module[MODULE_NAME_LEN];
	u8 module_len;
	bool image;
	u64 tags_id;
};

/**
 * struct kprint_bridge_hint - a caller seen at a printk entry point
 * @ip: the caller's return address, 0 for none
 * @slot: where on the stack it is (the entry point's stack pointer)
 * @task: the task then current
 * @switches: its context switches then
 */
struct kprint_bridge_hint {
	unsigned long ip;
	unsigned long slot;
	const struct task_struct *task;
	unsigned long switches;
};

/* One per CPU and interrupt context level (task, softirq, hardirq, NMI). */
DECLARE_PER_CPU(struct kprint_bridge_hint[4], kprint_bridge_hints);

/* Takes this context's hint: whatever the hook does, it is used up. */
static inline void kprint_bridge_hint_take(struct kprint_bridge_hint *hint)
{
	struct kprint_bridge_hint *h;

	h = &this_cpu_ptr(kprint_bridge_hints)[interrupt_context_level()];
	*hint = *h;
	h->ip = 0;
}

extern struct notifier_block kprint_bridge_module_nb;

int kprint_bridge_caller_alloc(void);
void kprint_bridge_caller_free(void);

void kprint_bridge_entry_hook(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs);
const struct kprint_bridge_site *
kprint_bridge_caller_named(const struct kprint_bridge_hint *hint,
			   struct pt_regs *regs, char *sym,
			   const struct kprint_bridge_owner *owner);

/* Formats and messages (kprint_bridge_format.c) */

#define KPRINT_BRIDGE_WRAP_MAX	4

/* A helper that wraps a caller's format in a struct va_format. */
struct kprint_bridge_wrapper {
	const char *fmt;
	const char *prefix;
	unsigned int nstr;
};

extern const struct kprint_bridge_wrapper kprint_bridge_wrappers[];

/**
 * struct kprint_bridge_msg - a message at vprintk_store()'s entry
 * @facility: syslog facility (0 but for /dev/kmsg writes)
 * @level: level as passed, LOGLEVEL_DEFAULT if the text's prefix decides
 * @dev_info: dev_printk()'s SUBSYSTEM and DEVICE, or NULL
 * @fmt: the format printk got
 * @args: its arguments
 * @wrap: index into kprint_bridge_wrappers, or -1
 * @wrap_str: the wrapper's string arguments
 * @wrap_fmt: the caller's format inside the wrapper, as the caller wrote it
 * @format: the format of the record: the caller's, KERN_ pairs stripped
 * @format_len: its length without the trailing newline
 * @format_id: FNV-1a 64 of those @format_len bytes
 * @format_args: the arguments of @format
 * @plan: @format's plan if the format cache has it, else NULL
 * @owner: the module whose memory holds @format ("vmlinux" for the kernel
 *	image), or NULL (a buffer): then the caller names the module
 * @caller: what the record names (module, function), once
 *	kprint_bridge_store() found it, else NULL
 */
struct kprint_bridge_msg {
	int facility;
	int level;
	const struct dev_printk_info *dev_info;
	const char *fmt;
	va_list *args;
	int wrap;
	const char *wrap_str[KPRINT_BRIDGE_WRAP_MAX];
	const char *wrap_fmt;
	const char *format;
	size_t format_len;
	u64 format_id;
	va_list *format_args;
	const struct kprint_render_plan *plan;
	const struct kprint_bridge_owner *owner;
	const struct kprint_bridge_site *caller;
};

int kprint_bridge_format_alloc(void);
void kprint_bridge_format_free(void);
void kprint_bridge_msg_init(struct kprint_bridge_msg *m, struct pt_regs *regs);
void kprint_bridge_plan(const char *format, size_t len,
			struct kprint_render_plan *plan);
void kprint_bridge_format_forget(unsigned long lo, unsigned long hi);

/* pr_cont() lines (kprint_bridge_cont.c) */

/**
 * struct kprint_bridge_line - the last line a printk caller began
 * @caller: printk's caller id
 * @open: the line had no newline yet, a KERN_CONT fragment continues it
 * @seq: the kprint seq of the record that began it
 */
struct kprint_bridge_line {
	u32 caller;
	bool open;
	u64 seq;
};

/* kernel/printk/printk.c's printk_caller_id(). */
static inline u32 kprint_bridge_caller_id(void)
{
	return in_task() ? task_pid_nr(current) :
			   0x80000000 + raw_smp_processor_id();
}

void kprint_bridge_last_close(void);
bool kprint_bridge_line_get(u32 caller, bool cont, bool open, u8 *level,
			    struct kprint_bridge_line *line);
void kprint_bridge_line_set(u32 caller, u64 seq, bool open, bool cont);

/* printk's commit and order (kprint_bridge_order.c) */

/*
 * What the hook reads of the registers: the arguments, the stack pointer,
 * and for the unwinder ip, sp and bp.  x86's ftrace_caller saves all of
 * them without FTRACE_OPS_FL_SAVE_REGS, whose trampoline saves every
 * register and the flags as well (ftrace_regs is a pt_regs there, with cs
 * 0, which the unwinder takes for kernel mode); elsewhere the hook asks
 * for the full set.
 */
#if defined(CONFIG_X86) && defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
#define KPRINT_BRIDGE_OPS_FLAGS		0

static inline struct pt_regs *kprint_bridge_regs(struct ftrace_regs *fregs)
{
	return kprint_bridge_fregs_pt(fregs);
}
#else
#define KPRINT_BRIDGE_OPS_FLAGS		FTRACE_OPS_FL_SAVE_REGS

static inline struct pt_regs *kprint_bridge_regs(struct ftrace_regs *fregs)
{
	return ftrace_get_regs(fregs);
}
#endif

/**
 * struct kprint_bridge_pending - a message between the hook and printk
 * @state: KPRINT_BRIDGE_P_*; only its CPU fills a slot, any CPU may take
 *	a filled one (a task migrated before printk disabled interrupts)
 * @build: @buf holds a record to commit; false for a message that is not
 *	bridged but must be paired with printk's commit all the same
 * @open: the record leaves its caller's line open
 * @merged: the record continues its caller's open line
 * @caller_id: printk's caller id of the message
 * @stamp: the CPU's count of slots filled: the newest is the innermost
 * @task: the task then current
 * @sp: the stack pointer at vprintk_store()'s entry
 * @buf: the record, built at vprintk_store()'s entry
 */
struct kprint_bridge_pending {
	atomic_t state;
	bool build;
	bool open;
	bool merged;
	u32 caller_id;
	u64 stamp;
	const struct task_struct *task;
	unsigned long sp;
	u64 buf[KPRINT_REC_MAX / sizeof(u64)];
};

#define KPRINT_BRIDGE_P_FREE	0
#define KPRINT_BRIDGE_P_BUSY	1
#define KPRINT_BRIDGE_P_FILLED	2

/*
 * Slots per CPU and interrupt context: printk stores messages nested four
 * deep (PRINTK_MAX_RECURSION is 3) and refuses a fifth, whose slot stays
 * filled until the task's next printk or commit sees it.  NMI has none:
 * nothing is bridged there.
 */
#define KPRINT_BRIDGE_PENDING	5
#define KPRINT_BRIDGE_LEVELS	3

DECLARE_PER_CPU(bool, kprint_bridge_busy);

static inline void kprint_bridge_pending_fill(struct kprint_bridge_pending *p)
{
	atomic_set_release(&p->state, KPRINT_BRIDGE_P_FILLED);
}

/*
 * ftrace's ip is the fentry call, behind an ENDBR where the kernel has
 * IBT: where register_kprobe() puts a probe on the function's name, or a
 * few bytes from it, and far from any other function's.
 */
#define KPRINT_BRIDGE_IP_SLACK		16

/* printk's addresses the ops is filtered on (kprint_bridge_order.c). */
extern unsigned long kprint_bridge_store_ip;
extern unsigned long kprint_bridge_commit_ips[2];
extern unsigned long kprint_bridge_store_start, kprint_bridge_store_end;

static inline bool notrace kprint_bridge_ip_is(unsigned long ip,
					       unsigned long fn)
{
	return ip - fn + KPRINT_BRIDGE_IP_SLACK < 2 * KPRINT_BRIDGE_IP_SLACK;
}

static inline bool notrace kprint_bridge_is_store(unsigned long ip)
{
	return kprint_bridge_ip_is(ip, kprint_bridge_store_ip);
}

static inline bool notrace kprint_bridge_is_commit(unsigned long ip)
{
	return kprint_bridge_ip_is(ip, kprint_bridge_commit_ips[0]) ||
	       kprint_bridge_ip_is(ip, kprint_bridge_commit_ips[1]);
}

struct kprint_bridge_pending *kprint_bridge_pending_get(unsigned long sp);
int kprint_bridge_order_alloc(void);
void kprint_bridge_order_free(void);
void kprint_bridge_order_reset(void);
void kprint_bridge_turn_start(u64 seq);
void kprint_bridge_commit_hook(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs);

/* The load backlog (kprint_bridge_backlog.c) */

extern bool kprint_bridge_loading;
extern u64 kprint_bridge_load_end;

void kprint_bridge_load_note(u64 seq);
u64 kprint_bridge_backlog_end(void);
void kprint_bridge_backlog(u64 end);

/* The hook (kprint_bridge_hook.c) */

void kprint_bridge_dispatch(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs);

#endif /* _KPRINT_BRIDGE_SHARED_H */
