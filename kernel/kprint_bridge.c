// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge.
 *
 * Every message printk stores becomes a kprint record of source printk,
 * taken from an ftrace hook on vprintk_store(); at load, what printk stored
 * before becomes backlog records.
 */

/**
 * DOC: printk bridge
 *
 * **Hook point.**  On Linux 6.1 every message that reaches the printk ring
 * goes through vprintk_store(facility, level, dev_info, fmt, args): the
 * ordinary path (vprintk_emit()), printk_deferred(), /dev/kmsg writes, and
 * NMI and recursive printk, which older 6.1.y releases send from
 * printk_safe.c's vprintk() to vprintk_store() directly and newer ones
 * through vprintk_deferred() and vprintk_emit().  An ftrace_ops filtered on
 * that one function (ftrace_set_filter() by name: neither its address nor
 * kallsyms_lookup_name() is exported) sees all of them, before printk
 * renders the text.  An ftrace_ops rather than a kprobe: while a kprobe's
 * handler runs, every other kprobe hit on that CPU (a tracer's, the BPF
 * counters' on kprint.ko) is missed.  The ops reads the arguments from the
 * registers ftrace saved (on x86 without FTRACE_OPS_FL_SAVE_REGS: see
 * kprint_bridge_regs()), and has not FTRACE_OPS_FL_RECURSION (which on 6.1
 * asks ftrace to guard it, and a message ftrace's guard turns away would
 * be lost without a count): the hook guards against recursion itself, per
 * CPU, and counts what it turns away.
 *
 * **Per message**, with interrupts off and the CPU's scratch record
 * (kprint_core.c): the format as the call site compiled it (leading
 * KERN_SOH pairs and one trailing newline stripped; for dev_printk() and
 * netdev_printk(), whose format reaching printk is a fixed "%s %s: %pV",
 * the caller's own format inside the struct va_format); each argument
 * rendered by kprint_render() from a va_copy() of printk's va_list; the
 * text as printk stores it (its KERN_ prefix parsed and stripped the way
 * printk_parse_prefix() does, cut at printk's LOG_LINE_MAX, one newline
 * dropped), and the level and KERN_CONT flag from that prefix, the way 6.1
 * takes them from the rendered text; SUBSYSTEM and DEVICE from struct
 * dev_printk_info; module and function of the first caller outside the
 * printk core: on x86 the return address the hook's ftrace_ops saw at the
 * printk entry point the caller called (_printk(), _dev_info(), ...),
 * left as a hint that the hook checks (see kprint_bridge_hinted()), or
 * without a valid hint the exported unwinder, started from the registers
 * ftrace saved and stopped at the caller (elsewhere stack_trace_save());
 * sprint_symbol() cached per return address (__module_address() is not
 * exported).  But a function that ends in a tail call to printk leaves
 * its own caller's return address: the caller names the function only if
 * the instruction before its return address calls into the printk core,
 * and the module only if the format is not in another module's memory
 * (see kprint_bridge_named()).  The format's length, id and module are
 * cached per format pointer when it is read-only (a string literal).  The
 * record is committed like every kprint record, but not echoed back to
 * printk, and handed to the BPF printk counter (kprint_handoff.c), once
 * per message seen, stored or not.
 *
 * **pr_cont().**  A fragment (KERN_CONT) is a record of its own, flagged
 * KPRINT_RECORD_F_CONT, whose @continues is the seq of the record that
 * began the line of the same printk caller (task pid, or 0x80000000 + CPU
 * outside task context) if that line is still open (it had no newline).
 * Otherwise printk makes it a line of its own, and so does the bridge.
 * printk merges a fragment into its record only while no other caller's
 * record came in between and the line stays within LOG_LINE_MAX; the
 * bridge links it to its caller's line even when printk did not, so that
 * a reader can rebuild each caller's line.  Whether printk merged it, the
 * record's @printk_seq says (that of the line's record, or its own), and
 * its level is the one printk stored: both are read from printk's record,
 * not guessed (the BPF counter still gets the level the hook expects at
 * entry).
 *
 * **printk's seq and order.**  printk gives a record its seq when it
 * reserves the record's slot, after the hook ran, and commits it after
 * rendering the text.  So the hook builds the record at vprintk_store()'s
 * entry, as above, and keeps it in a slot of its CPU and interrupt
 * context (kprint_bridge_pending); the same ftrace_ops on prb_commit() and
 * prb_final_commit(), called by vprintk_store() with interrupts off, takes
 * the newest slot of the current task in that context (on another CPU if
 * the task moved before printk disabled interrupts), reads printk's seq
 * and level from the struct prb_reserved_entry it is given, and commits
 * the record then: kprint's record carries @printk_seq, /dev/kmsg's seq.
 * It commits only once printk's previous seq was committed: kprint's
 * order is printk's.  A fragment printk appended to a record carries that
 * record's seq and may come after later records.  A message printk never
 * commits (its recursion limit, a failed reservation) leaves its slot
 * filled until a later printk or commit of its task finds it below its own
 * frame; then it is freed and counted (bridge_order: uncommitted).  The wait for a
 * turn has a bound (KPRINT_BRIDGE_TURN_NS, counted as late); it is not
 * taken in NMI, inside the hook, or by a printk nested in another printk
 * on the same CPU, whose turn the outer one holds.
 *
 * **What is not bridged.**  kprint's own printk calls (the echo of its
 * records, NMI echoes) are marked per CPU and counted as skipped.  In NMI
 * no record can be stored: the message is counted (dropped-nmi) and handed
 * to the BPF counter with its format, level and subsystem.  A printk
 * from inside the bridge is counted as dropped-recursion, one that finds
 * no scratch record or no room as dropped-scratch.
 *
 * **Safety.**  printk_deferred() runs with scheduler locks held: nothing
 * here wakes anybody; kprint_commit() only raises an irq_work.  Switching
 * the bridge off, at run time or on unload, unregisters the ops, which
 * waits until no CPU is inside the hook; only then is anything freed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/dev_printk.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#include <kprint_handoff.h>

#include "kprint_bridge.h"
#include "kprint_core.h"
#include "kprint_handoff.h"
#include "kprint_render.h"
#include "kprint_stats.h"

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

/* Return addresses looked at, from the hook outwards. */
#define KPRINT_BRIDGE_STACK_DEPTH	16

/* Call sites whose symbol is cached, and how far a lookup probes. */
#define KPRINT_BRIDGE_SITES_BITS	10
#define KPRINT_BRIDGE_SITES		(1U << KPRINT_BRIDGE_SITES_BITS)
#define KPRINT_BRIDGE_SITE_PROBES	8

/* printk callers whose open line (pr_cont) is remembered. */
#define KPRINT_BRIDGE_LINES_BITS	8
#define KPRINT_BRIDGE_LINES		(1U << KPRINT_BRIDGE_LINES_BITS)

static struct {
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
	atomic64_t backlog_live;
} kprint_bridge_count;

/*
 * The two counted for nearly every message, per CPU rather than shared:
 * a locked increment of a shared line is a good part of a printk's cost.
 * Never counted in NMI (those are dropped).
 */
struct kprint_bridge_hot {
	u64 bridged;
	u64 deferred;
};

static DEFINE_PER_CPU(struct kprint_bridge_hot, kprint_bridge_hot);

static struct kprint_bridge_hot kprint_bridge_hot_sum(void)
{
	struct kprint_bridge_hot sum = {}, *c;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&kprint_bridge_hot, cpu);
		sum.bridged += READ_ONCE(c->bridged);
		sum.deferred += READ_ONCE(c->deferred);
	}
	return sum;
}

/*
 * How many bridged records keep their arguments as values, rendered when
 * read (kprint_bridge_defer()): for tests and the curious, not the wire.
 */
static int kprint_bridge_deferred_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", kprint_bridge_hot_sum().deferred);
}

static const struct kernel_param_ops kprint_bridge_deferred_ops = {
	.get = kprint_bridge_deferred_get,
};

module_param_cb(bridge_deferred, &kprint_bridge_deferred_ops, NULL, 0444);
MODULE_PARM_DESC(bridge_deferred,
		 "Bridged records whose arguments are rendered when read (read-only)");

/*
 * How the bridge met printk's commits, for tests and the curious:
 * messages printk never committed, commits whose seq could not be read,
 * records committed after a wait for their turn timed out (possibly out
 * of printk's order), records of a printk nested in another one committed
 * ahead of it, records of the backlog taken live instead.
 */
static int kprint_bridge_order_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "uncommitted %lld unread %lld late %lld overtook %lld live %lld\n",
			  atomic64_read(&kprint_bridge_count.uncommitted),
			  atomic64_read(&kprint_bridge_count.unread),
			  atomic64_read(&kprint_bridge_count.order_late),
			  atomic64_read(&kprint_bridge_count.order_overtook),
			  atomic64_read(&kprint_bridge_count.backlog_live));
}

static const struct kernel_param_ops kprint_bridge_order_ops = {
	.get = kprint_bridge_order_get,
};

module_param_cb(bridge_order, &kprint_bridge_order_ops, NULL, 0444);
MODULE_PARM_DESC(bridge_order,
		 "Pairing of bridged messages with printk's commits (read-only)");


/* Module parameter "bridge" */

static DEFINE_MUTEX(kprint_bridge_mutex);
static bool kprint_bridge_on = true;	/* the parameter, and the state */
static bool kprint_bridge_ready;	/* between init and exit */
static bool kprint_bridge_registered;

static int kprint_bridge_register(void);
static void kprint_bridge_unregister(void);

static int kprint_bridge_param_set(const char *val,
				   const struct kernel_param *kp)
{
	bool on;
	int err;

	err = kstrtobool(val, &on);
	if (err)
		return err;

	mutex_lock(&kprint_bridge_mutex);
	if (kprint_bridge_ready && on != kprint_bridge_registered) {
		if (on)
			err = kprint_bridge_register();
		else
			kprint_bridge_unregister();
	}
	if (!err)
		WRITE_ONCE(kprint_bridge_on, on);
	mutex_unlock(&kprint_bridge_mutex);
	return err;
}

/*
 * Reading the parameter also tells a BPF counter attached since kprint.ko
 * loaded where the bridge's handoff slots are (kprint_handoff.c).
 */
static int kprint_bridge_param_get(char *buf, const struct kernel_param *kp)
{
	mutex_lock(&kprint_bridge_mutex);
	if (kprint_bridge_ready)
		kprint_handoff_announce();
	mutex_unlock(&kprint_bridge_mutex);
	return param_get_bool(buf, kp);
}

static const struct kernel_param_ops kprint_bridge_param_ops = {
	.set = kprint_bridge_param_set,
	.get = kprint_bridge_param_get,
};

module_param_cb(bridge, &kprint_bridge_param_ops, &kprint_bridge_on, 0644);
MODULE_PARM_DESC(bridge,
		 "Make every printk() a kprint record (default Y; writable at run time)");

static bool kprint_bridge_take_backlog = true;
module_param_named(backlog, kprint_bridge_take_backlog, bool, 0444);
MODULE_PARM_DESC(backlog,
		 "At load, with the bridge on, make what printk stored before records (default Y)");

/* Call sites: module and function of a return address, cached */

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

static struct kprint_bridge_site *kprint_bridge_sites;

/*
 * Functions of the printk core and of the helpers that only pass a
 * caller's message on: the "caller" of a message is the first function
 * on the stack that is none of these.
 */
static const char *const kprint_bridge_core_fns[] = {
	"vprintk_store", "vprintk_emit", "vprintk_default", "vprintk_deferred",
	"vprintk", "_printk", "_printk_deferred", "printk_emit",
	"devkmsg_emit",
	"dev_vprintk_emit", "dev_printk_emit", "__dev_printk", "_dev_printk",
	"_dev_emerg", "_dev_alert", "_dev_crit", "_dev_err", "_dev_warn",
	"_dev_notice", "_dev_info", "dev_err_probe",
	"__netdev_printk", "netdev_printk", "netdev_emerg", "netdev_alert",
	"netdev_crit", "netdev_err", "netdev_warn", "netdev_notice",
	"netdev_info",
	"print_hex_dump", "__warn_printk",
};

/* kernel/bpf/trampoline.c names its trampolines so, in kallsyms. */
#define KPRINT_BRIDGE_BPF_TRAMPOLINE	"bpf_trampoline_"

static bool kprint_bridge_is_core(const char *name, size_t len,
				  const char *module)
{
	const char *dot;
	unsigned int i;

	/* The hook itself, and whatever kprint.ko frame leads to it. */
	if (module && !strcmp(module, KBUILD_MODNAME) &&
	    !strncmp(name, "kprint_bridge", strlen("kprint_bridge")))
		return true;
	if (module)
		return false;
	/*
	 * A BPF fentry/fexit program on a printk function (kprint's own
	 * counter on vprintk_emit()) runs it from its trampoline, which is
	 * then a frame between the function and its caller.
	 */
	if (len > strlen(KPRINT_BRIDGE_BPF_TRAMPOLINE) &&
	    !memcmp(name, KPRINT_BRIDGE_BPF_TRAMPOLINE,
		    strlen(KPRINT_BRIDGE_BPF_TRAMPOLINE)))
		return true;
	/* GCC's clones: devkmsg_emit.constprop.0 is devkmsg_emit. */
	dot = memchr(name, '.', len);
	if (dot)
		len = dot - name;
	for (i = 0; i < ARRAY_SIZE(kprint_bridge_core_fns); i++)
		if (strlen(kprint_bridge_core_fns[i]) == len &&
		    !memcmp(kprint_bridge_core_fns[i], name, len))
			return true;
	return false;
}

/* The tags id of a message without a subsystem: NUL, @module, NUL. */
static u64 kprint_bridge_tags_id(const char *module, size_t len)
{
	return kprint_fnv1a64_add(kprint_fnv1a64_mem("", 1), module, len + 1);
}

/*
 * Does the instruction before return address @ip call a function of the
 * printk core (a direct call, "e8 rel32", to one of kprint_bridge_core_fns)?
 * If not, the function at @ip did not print: it called one that ended in a
 * tail call to printk, or printk through a pointer.  A function called
 * through its call-depth thunk (__pfx_ padding, 6.2+) counts as itself.
 * Uses @sym (KSYM_SYMBOL_LEN bytes).
 */
static bool kprint_bridge_calls_core(unsigned long ip, char *sym)
{
#ifdef CONFIG_X86
	const char *name = sym, *plus;
	u8 insn[5];
	s32 rel;

	if (copy_from_kernel_nofault(insn, (void *)(ip - sizeof(insn)),
				     sizeof(insn)) || insn[0] != 0xe8)
		return false;
	memcpy(&rel, insn + 1, sizeof(rel));
	sprint_symbol(sym, ip + rel);
	plus = strchr(sym, '+');
	if (!plus || strstr(sym, " ["))
		return false;
	if (!strncmp(name, "__pfx_", strlen("__pfx_")))
		name += strlen("__pfx_");
	return plus > name && kprint_bridge_is_core(name, plus - name, NULL);
#else
	return true;
#endif
}

/* Fills @site from sprint_symbol(), using @sym (KSYM_SYMBOL_LEN bytes). */
static void kprint_bridge_resolve(unsigned long ip, char *sym,
				  struct kprint_bridge_site *site)
{
	char *module = NULL, *plus, *end;

	/* "name+0xoff/0xsize [module]", or "0x..." with no symbol. */
	sprint_symbol(sym, ip);
	end = strstr(sym, " [");
	if (end) {
		*end = '\0';
		module = end + 2;
		end = strchr(module, ']');
		if (end)
			*end = '\0';
	}
	plus = strchr(sym, '+');
	site->core = !plus || kprint_bridge_is_core(sym, plus - sym, module);
	site->store = !module && plus &&
		      !strncmp(sym, "vprintk_store+", strlen("vprintk_store+"));
	strscpy(site->function, sym, sizeof(site->function));
	strscpy(site->module, module ?: "vmlinux", sizeof(site->module));
	site->function_len = strlen(site->function);
	site->module_len = strlen(site->module);
	site->tags_id = kprint_bridge_tags_id(site->module, site->module_len);
	/* Last: it reuses @sym. */
	site->direct = !site->core && kprint_bridge_calls_core(ip, sym);
}

/*
 * The cached description of @ip, resolved and cached on first sight; if
 * the cache has no slot for it, resolved into @tmp.  Lock-free: a slot is
 * claimed with cmpxchg() and published with release; a slot being filled
 * by another CPU is not waited for.
 */
static const struct kprint_bridge_site *
kprint_bridge_site(unsigned long ip, char *sym, struct kprint_bridge_site *tmp)
{
	unsigned int h = hash_long(ip, KPRINT_BRIDGE_SITES_BITS), i;
	struct kprint_bridge_site *s;
	unsigned long cur;

	for (i = 0; i < KPRINT_BRIDGE_SITE_PROBES; i++) {
		s = &kprint_bridge_sites[(h + i) & (KPRINT_BRIDGE_SITES - 1)];
		cur = READ_ONCE(s->ip);
		if (cur == ip) {
			if (smp_load_acquire(&s->ready))
				return s;
			break;
		}
		if (!cur && cmpxchg(&s->ip, 0, ip) == 0) {
			kprint_bridge_resolve(ip, sym, s);
			smp_store_release(&s->ready, true);
			return s;
		}
	}
	kprint_bridge_resolve(ip, sym, tmp);
	return tmp;
}

/* The cached description of @ip, or NULL: never resolves. */
static const struct kprint_bridge_site *kprint_bridge_site_cached(unsigned long ip)
{
	unsigned int h = hash_long(ip, KPRINT_BRIDGE_SITES_BITS), i;
	struct kprint_bridge_site *s;

	for (i = 0; i < KPRINT_BRIDGE_SITE_PROBES; i++) {
		s = &kprint_bridge_sites[(h + i) & (KPRINT_BRIDGE_SITES - 1)];
		if (READ_ONCE(s->ip) == ip)
			return smp_load_acquire(&s->ready) ? s : NULL;
	}
	return NULL;
}

/*
 * The module a format belongs to.  A format is a string literal in the
 * rodata of the code that printed it, so where it lies says whose message
 * it is even when the return address does not: a function that ends in a
 * tail call to printk (brd_exit() does: "jmp _printk") leaves its
 * caller's return address, in another module or in the kernel.
 * __module_address() is not exported: the bridge walks the module list
 * itself, as that function does, only for a format in the module area and
 * only once per format pointer the format cache keeps.  The kernel image
 * is told by its address range alone.
 */

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

/* Where modules live: their text, rodata and data (x86-64's layout). */
static bool kprint_bridge_in_module_area(unsigned long addr)
{
#ifdef CONFIG_X86_64
	return addr >= MODULES_VADDR && addr < MODULES_END;
#else
	return false;
#endif
}

/* The kernel image's mapping, just below the modules'. */
static bool kprint_bridge_in_image(unsigned long addr)
{
#ifdef CONFIG_X86_64
	return addr >= __START_KERNEL_map && addr < MODULES_VADDR;
#else
	return false;
#endif
}

static void kprint_bridge_owner_set(struct kprint_bridge_owner *o,
				    const char *name, bool image)
{
	strscpy(o->module, name, sizeof(o->module));
	o->module_len = strlen(o->module);
	o->image = image;
	o->tags_id = kprint_bridge_tags_id(o->module, o->module_len);
}

/*
 * Fills @o with the module whose memory holds @addr ("vmlinux" for the
 * kernel image), or leaves it empty.
 * The list has no exported head: it is walked round from kprint.ko's own
 * entry, and the head is the one entry outside the module area.  Needs
 * preemption off (RCU-sched, as __module_address()): a module is freed
 * only after a grace period once off the list.
 */
static void kprint_bridge_owner_find(unsigned long addr,
				     struct kprint_bridge_owner *o)
{
	struct list_head *pos = &THIS_MODULE->list;
	const struct module *mod;

	o->module_len = 0;
	o->module[0] = '\0';
	if (kprint_bridge_in_image(addr))
		kprint_bridge_owner_set(o, "vmlinux", true);
	if (!kprint_bridge_in_module_area(addr))
		return;
	do {
		if (kprint_bridge_in_module_area((unsigned long)pos)) {
			mod = list_entry(pos, struct module, list);
			if (READ_ONCE(mod->state) != MODULE_STATE_UNFORMED &&
			    within_module(addr, mod)) {
				kprint_bridge_owner_set(o, mod->name, false);
				return;
			}
		}
		pos = rcu_dereference_sched(list_next_rcu(pos));
	} while (pos != &THIS_MODULE->list);
}

/*
 * Formats: the stripped format, its length and its id, per format pointer.
 * Measuring and hashing the format byte by byte on every message was a
 * good part of the bridge's cost; kprint_*() sites keep theirs in the
 * site.  Only a format in read-only memory (a string literal in the
 * rodata of vmlinux or of a module) is cached, since its bytes cannot
 * change under the same pointer; a format in a buffer is measured every
 * time.  A module's entries are forgotten with its sites.
 */
#define KPRINT_BRIDGE_FORMATS_BITS	10
#define KPRINT_BRIDGE_FORMATS		(1U << KPRINT_BRIDGE_FORMATS_BITS)

/**
 * struct kprint_bridge_format - what is known of a format printk was given
 * @key: the pointer printk (or the %pV of a dev_printk()) was given; 0 for
 *	a free slot, claimed with cmpxchg()
 * @ready: the other fields are filled in (set with release)
 * @skip: bytes of leading KERN_SOH pairs (printk_skip_headers())
 * @len: bytes of the format after them, without one trailing newline
 * @id: FNV-1a 64 of those @len bytes
 * @plan: its conversions (kprint_render_plan()); deferrable only if the
 *	format also ends its line and is stored whole
 * @wrap: which of kprint_bridge_wrappers it is, or -1: no message whose
 *	format the cache knows is compared with them again
 * @owner: the module whose rodata holds it, or the kernel image
 */
struct kprint_bridge_format {
	unsigned long key;
	bool ready;
	s8 wrap;
	u16 skip;
	u16 len;
	u64 id;
	struct kprint_render_plan plan;
	struct kprint_bridge_owner owner;
};

static struct kprint_bridge_format *kprint_bridge_formats;

/*
 * The plan of @format (KERN_ pairs stripped, @len bytes without one
 * trailing newline), deferrable only if the format also ends its line and
 * is stored whole: the deferred text is the stored format's, rendered, and
 * a printk text drops one trailing newline.
 */
static void kprint_bridge_plan(const char *format, size_t len,
			       struct kprint_render_plan *plan)
{
	kprint_render_plan(format, plan);
	if (len >= KPRINT_FORMAT_MAX || format[len] != '\n' || format[len + 1])
		plan->deferrable = false;
}

/* Is [start, start + size) mapped read-only, every page of it? */
static bool kprint_bridge_read_only(unsigned long start, size_t size)
{
#ifdef CONFIG_X86
	unsigned long addr;
	unsigned int level;
	pte_t *pte;

	for (addr = start & PAGE_MASK; addr < start + size; addr += PAGE_SIZE) {
		pte = lookup_address(addr, &level);
		if (!pte || !pte_present(*pte) || pte_write(*pte))
			return false;
	}
	return true;
#else
	return false;
#endif
}

static const struct kprint_bridge_format *
kprint_bridge_format_cached(unsigned long key)
{
	unsigned int h = hash_long(key, KPRINT_BRIDGE_FORMATS_BITS), i;
	struct kprint_bridge_format *f;

	for (i = 0; i < KPRINT_BRIDGE_SITE_PROBES; i++) {
		f = &kprint_bridge_formats[(h + i) & (KPRINT_BRIDGE_FORMATS - 1)];
		if (READ_ONCE(f->key) == key)
			return smp_load_acquire(&f->ready) ? f : NULL;
	}
	return NULL;
}

static int kprint_bridge_wrap_index(const char *fmt);

/* Remembers a format of @size bytes (its NUL included) at @key. */
static void kprint_bridge_format_add(unsigned long key, size_t size,
				     size_t skip, size_t len, u64 id,
				     const struct kprint_bridge_owner *owner)
{
	unsigned int h = hash_long(key, KPRINT_BRIDGE_FORMATS_BITS), i;
	struct kprint_bridge_format *f;

	if (size > U16_MAX || !kprint_bridge_read_only(key, size))
		return;
	for (i = 0; i < KPRINT_BRIDGE_SITE_PROBES; i++) {
		f = &kprint_bridge_formats[(h + i) & (KPRINT_BRIDGE_FORMATS - 1)];
		if (READ_ONCE(f->key) == key)
			return;
		if (!READ_ONCE(f->key) && cmpxchg(&f->key, 0, key) == 0) {
			f->wrap = kprint_bridge_wrap_index((const char *)key);
			f->skip = skip;
			f->len = len;
			f->id = id;
			f->owner = *owner;
			kprint_bridge_plan((const char *)key + skip, len,
					   &f->plan);
			smp_store_release(&f->ready, true);
			return;
		}
	}
}

/*
 * Forget the sites inside [start, start + size): that memory is about to
 * be freed and may hold another module's code next.  Nothing can run
 * there any more, so no CPU looks these slots up meanwhile.
 */
static void kprint_bridge_forget(const void *start, unsigned int size)
{
	unsigned long lo = (unsigned long)start, hi = lo + size;
	struct kprint_bridge_site *s;
	unsigned int i;

	if (!start)
		return;
	for (i = 0; i < KPRINT_BRIDGE_FORMATS; i++) {
		struct kprint_bridge_format *f = &kprint_bridge_formats[i];

		if (READ_ONCE(f->key) >= lo && READ_ONCE(f->key) < hi &&
		    smp_load_acquire(&f->ready)) {
			WRITE_ONCE(f->ready, false);
			smp_store_release(&f->key, 0);
		}
	}
	for (i = 0; i < KPRINT_BRIDGE_SITES; i++) {
		s = &kprint_bridge_sites[i];
		if (READ_ONCE(s->ip) >= lo && READ_ONCE(s->ip) < hi &&
		    smp_load_acquire(&s->ready)) {
			WRITE_ONCE(s->ready, false);
			smp_store_release(&s->ip, 0);
		}
	}
}

static void kprint_bridge_forget_module(const struct module *mod, bool core)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	/*
	 * Linux 6.4 replaced the init and core layouts by one region per
	 * memory type (mod->mem[]): a site is in text, a cached format in
	 * rodata, so every region goes (the init ones alone once live).
	 * The macro declares its own @type.
	 */
	for_each_mod_mem_type(type)
		if (core || mod_mem_type_is_init(type))
			kprint_bridge_forget(mod->mem[type].base,
					     mod->mem[type].size);
#else
	kprint_bridge_forget(mod->init_layout.base, mod->init_layout.size);
	if (core)
		kprint_bridge_forget(mod->core_layout.base,
				     mod->core_layout.size);
#endif
}

static int kprint_bridge_module_event(struct notifier_block *nb,
				      unsigned long event, void *data)
{
	struct module *mod = data;

	/* Init sections go once the module is live, everything on unload. */
	if (event == MODULE_STATE_LIVE || event == MODULE_STATE_GOING)
		kprint_bridge_forget_module(mod, event == MODULE_STATE_GOING);
	return NOTIFY_DONE;
}

static struct notifier_block kprint_bridge_module_nb = {
	.notifier_call = kprint_bridge_module_event,
};

#ifdef CONFIG_X86
/*
 * x86 exports its unwinder: starting from the registers ftrace saved at
 * vprintk_store()'s entry skips the hook and the trampoline, and the walk
 * stops at the caller, a few frames out, instead of always unwinding
 * KPRINT_BRIDGE_STACK_DEPTH frames (most of the bridge's cost).
 */
static noinline const struct kprint_bridge_site *
kprint_bridge_caller_regs(struct pt_regs *regs, char *sym,
			  struct kprint_bridge_site *tmp)
{
	const struct kprint_bridge_site *site;
	struct unwind_state state;
	unsigned long addr;
	unsigned int i = 0;

	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && i < KPRINT_BRIDGE_STACK_DEPTH;
	     unwind_next_frame(&state), i++) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		site = kprint_bridge_site(addr, sym, tmp);
		if (!site->core)
			return site;
	}
	return NULL;
}
#endif

/*
 * The caller without unwinding.  The hook's ftrace_ops, also on the
 * functions that callers call to print (_printk(), _dev_info(), ...), sees
 * the caller's return address as its parent_ip and leaves it as a hint for
 * the vprintk_store() that follows in the same context; the hook takes the
 * hint (every run consumes it) and unwinds only without a valid one.  A
 * hint is valid only for the same task, at the same interrupt context
 * level, with no context switch since it was left (so neither preemption
 * nor migration can hand it to another message), and only while its
 * return address still sits where it was found, a little above the
 * hook's stack pointer.  A parent that is itself printk core (the entry
 * points call each other: _dev_info() -> dev_printk_emit()) keeps the
 * outer hint; a parent the site cache does not know yet clears it, so
 * that the unwinder resolves and caches it for the next time.  A tail call
 * to an entry point hands it the caller's own parent, which is also what
 * the unwinder finds.
 */
static const struct {
	const char *name;
	const void *addr;
} kprint_bridge_entry_fns[] = {
	{ "_printk", _printk },
	/* Not exported: looked up by name. */
	{ "_printk_deferred", NULL },
	{ "_dev_printk", _dev_printk },
	{ "dev_printk_emit", dev_printk_emit },
	{ "_dev_emerg", _dev_emerg },
	{ "_dev_alert", _dev_alert },
	{ "_dev_crit", _dev_crit },
	{ "_dev_err", _dev_err },
	{ "_dev_warn", _dev_warn },
	{ "_dev_notice", _dev_notice },
	{ "_dev_info", _dev_info },
	{ "dev_err_probe", dev_err_probe },
	{ "netdev_printk", netdev_printk },
	{ "netdev_emerg", netdev_emerg },
	{ "netdev_alert", netdev_alert },
	{ "netdev_crit", netdev_crit },
	{ "netdev_err", netdev_err },
	{ "netdev_warn", netdev_warn },
	{ "netdev_notice", netdev_notice },
	{ "netdev_info", netdev_info },
	{ "print_hex_dump", print_hex_dump },
	{ "__warn_printk", __warn_printk },
};

/*
 * From an entry point's stack pointer to vprintk_store()'s: a few printk
 * frames (_dev_info() -> ... -> vprintk_emit() is the deepest, well under
 * this).
 */
#define KPRINT_BRIDGE_HINT_REACH	2048

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
static DEFINE_PER_CPU(struct kprint_bridge_hint[4], kprint_bridge_hints);

static unsigned long kprint_bridge_switches(const struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

static void notrace kprint_bridge_entry_hook(unsigned long ip,
					     unsigned long parent_ip,
					     struct ftrace_ops *op,
					     struct ftrace_regs *fregs)
{
#if defined(CONFIG_X86) && defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
	const struct kprint_bridge_site *site;
	struct kprint_bridge_hint *h;
	unsigned long sp, val;

	preempt_disable_notrace();
	h = &this_cpu_ptr(kprint_bridge_hints)[interrupt_context_level()];
	site = kprint_bridge_site_cached(parent_ip);
	/*
	 * x86's ftrace_caller saves the stack pointer with the arguments,
	 * without FTRACE_OPS_FL_SAVE_REGS; at entry it points at the return
	 * address.  Checked, not assumed: a hint is left only if it does.
	 */
	sp = kernel_stack_pointer(kprint_bridge_fregs_pt(fregs));
	if (!site) {
		h->ip = 0;
	} else if (!site->core && !get_kernel_nofault(val, (unsigned long *)sp) &&
		   val == parent_ip) {
		h->slot = sp;
		h->task = current;
		h->switches = kprint_bridge_switches(current);
		h->ip = parent_ip;
	}
	preempt_enable_notrace();
#endif
}

/* Takes this context's hint: whatever the hook does, it is used up. */
static void kprint_bridge_hint_take(struct kprint_bridge_hint *hint)
{
	struct kprint_bridge_hint *h;

	h = &this_cpu_ptr(kprint_bridge_hints)[interrupt_context_level()];
	*hint = *h;
	h->ip = 0;
}

/* The caller the hint names, if it is valid for this message, or NULL. */
static const struct kprint_bridge_site *
kprint_bridge_hinted(const struct kprint_bridge_hint *h, struct pt_regs *regs,
		     char *sym, struct kprint_bridge_site *tmp)
{
	const struct kprint_bridge_site *site;
	unsigned long val;

	if (!h->ip || h->task != current ||
	    h->switches != kprint_bridge_switches(current))
		return NULL;
	if (h->slot <= regs->sp || h->slot - regs->sp > KPRINT_BRIDGE_HINT_REACH)
		return NULL;
	if (get_kernel_nofault(val, (unsigned long *)h->slot) || val != h->ip)
		return NULL;
	site = kprint_bridge_site(h->ip, sym, tmp);
	return site->core ? NULL : site;
}

/*
 * Entry points filtered in beside vprintk_store(), on the hook's own
 * ftrace_ops: one ops, so that turning the bridge off (and unloading) waits
 * for one RCU-tasks grace period, not one per ops.  The callback tells
 * vprintk_store() from the entry points by the traced address.
 */
static unsigned int kprint_bridge_entries;
static unsigned long kprint_bridge_store_ip;

/*
 * ftrace's ip is the fentry call, behind an ENDBR where the kernel has
 * IBT: where register_kprobe() puts a probe on the function's name, or a
 * few bytes from it, and far from any other function's.
 */
#define KPRINT_BRIDGE_IP_SLACK		16

static bool notrace kprint_bridge_ip_is(unsigned long ip, unsigned long fn)
{
	return ip - fn + KPRINT_BRIDGE_IP_SLACK < 2 * KPRINT_BRIDGE_IP_SLACK;
}

static bool notrace kprint_bridge_is_store(unsigned long ip)
{
	return kprint_bridge_ip_is(ip, kprint_bridge_store_ip);
}

/* Where printk commits a record: prb_commit(), prb_final_commit(). */
static unsigned long kprint_bridge_commit_ips[2];

/*
 * vprintk_store()'s code, [start, end): only its own calls commit the
 * message.  prb_reserve_in_last() commits the record it reopened when the
 * fragment does not fit (LOG_LINE_MAX) and prb_reserve() a record without
 * text when its text does not; the message is then reserved again.
 */
static unsigned long kprint_bridge_store_start, kprint_bridge_store_end;

static void kprint_bridge_store_range(void)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned long off, size;
	char *plus;

	sprint_symbol(sym, kprint_bridge_store_ip);
	plus = strrchr(sym, '+');
	if (plus && sscanf(plus, "+%lx/%lx", &off, &size) == 2 &&
	    off <= kprint_bridge_store_ip) {
		kprint_bridge_store_start = kprint_bridge_store_ip - off;
		kprint_bridge_store_end = kprint_bridge_store_start + size;
	}
}

static bool kprint_bridge_from_store(unsigned long parent_ip)
{
	return !kprint_bridge_store_end ||
	       (parent_ip >= kprint_bridge_store_start &&
		parent_ip < kprint_bridge_store_end);
}

static bool notrace kprint_bridge_is_commit(unsigned long ip)
{
	return kprint_bridge_ip_is(ip, kprint_bridge_commit_ips[0]) ||
	       kprint_bridge_ip_is(ip, kprint_bridge_commit_ips[1]);
}

/*
 * vprintk_store() is not exported and Debian's 6.1 does not export
 * kallsyms_lookup_name(): a kprobe registered disabled resolves a name
 * without arming anything.
 */
static unsigned long kprint_bridge_lookup(const char *name)
{
	unsigned long addr = 0;
#ifdef CONFIG_KPROBES
	struct kprobe kp = {
		.symbol_name	= name,
		.flags		= KPROBE_FLAG_DISABLED,
	};

	if (!register_kprobe(&kp)) {
		addr = (unsigned long)kp.addr;
		unregister_kprobe(&kp);
	}
#endif
	return addr;
}

/* The first caller outside the printk core, or NULL. */
/*
 * The last resort, a saved stack trace.  Its own function because the
 * kernel zeroes every local at function entry (CONFIG_INIT_STACK_ALL_ZERO,
 * Debian's default): the hinted path must not pay for @entries.
 */
static noinline const struct kprint_bridge_site *
kprint_bridge_caller_saved(char *sym, struct kprint_bridge_site *tmp)
{
	unsigned long entries[KPRINT_BRIDGE_STACK_DEPTH];
	const struct kprint_bridge_site *site;
	bool outside = false;
	unsigned int i, n;

	/*
	 * The hook, ftrace's trampoline and whatever else ftrace put in
	 * between come before vprintk_store(); after it, the printk core.
	 */
	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++) {
		site = kprint_bridge_site(entries[i], sym, tmp);
		if (site->store)
			outside = true;
		else if (outside && !site->core)
			return site;
	}
	return NULL;
}

static const struct kprint_bridge_site *
kprint_bridge_caller(const struct kprint_bridge_hint *hint,
		     struct pt_regs *regs, char *sym,
		     struct kprint_bridge_site *tmp)
{
	const struct kprint_bridge_site *site;

	site = kprint_bridge_hinted(hint, regs, sym, tmp);
	if (site)
		return site;

#ifdef CONFIG_X86
	site = kprint_bridge_caller_regs(regs, sym, tmp);
	if (site)
		return site;
#endif
	return kprint_bridge_caller_saved(sym, tmp);
}

/* pr_cont(): the open line of each printk caller */

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

static struct kprint_bridge_line kprint_bridge_lines[KPRINT_BRIDGE_LINES];
static DEFINE_RAW_SPINLOCK(kprint_bridge_lines_lock);

/*
 * The newest record of printk's ring as far as the bridge knows: the
 * caller id and level of the last message it saw, and whether a fragment
 * of that caller may still be appended to it (printk has not finalized
 * it).  Packed in one word so that paths which cannot take the lock (NMI)
 * may close it with one store.
 */
#define KPRINT_BRIDGE_LAST_OPEN		BIT_ULL(63)
#define KPRINT_BRIDGE_LAST_LEVEL(w)	((u8)((w) >> 32) & 7)
#define KPRINT_BRIDGE_LAST_CALLER(w)	((u32)(w))
static u64 kprint_bridge_last;

/* A message the bridge does not build ends the newest record's line. */
static void kprint_bridge_last_close(void)
{
	WRITE_ONCE(kprint_bridge_last, 0);
}

/* kernel/printk/printk.c's printk_caller_id(). */
static u32 kprint_bridge_caller_id(void)
{
	return in_task() ? task_pid_nr(current) :
			   0x80000000 + raw_smp_processor_id();
}

static struct kprint_bridge_line *kprint_bridge_line(u32 caller)
{
	return &kprint_bridge_lines[hash_32(caller, KPRINT_BRIDGE_LINES_BITS)];
}

/**
 * kprint_bridge_line_get() - the line a message of @caller continues
 * @caller: printk's caller id of the message
 * @cont: the message is a KERN_CONT fragment
 * @open: it does not end its line (no newline, no dev_info)
 * @level: in: its own level as printk stores a record of its own; out: the
 *	level printk stores it with
 * @line: the open line @caller continues
 *
 * Decides like vprintk_store() whether printk appends the message to the
 * newest record of its ring, and makes the message the newest record.  A
 * message that neither continues nor leaves a line open closes @caller's
 * line here, so that only the others need kprint_bridge_line_set().
 * Return: true if @line is the open line of @caller that @cont continues.
 */
static bool kprint_bridge_line_get(u32 caller, bool cont, bool open,
				   u8 *level, struct kprint_bridge_line *line)
{
	struct kprint_bridge_line *l = kprint_bridge_line(caller);
	bool has_line = false;
	u64 last;

	/*
	 * Most messages are whole lines of a caller with no line open: they
	 * only become the newest record, one store, as a message the bridge
	 * does not build does (kprint_bridge_last_close()).  Only the caller
	 * itself opens its line, so that it is not open cannot change under
	 * it.
	 */
	if (!cont && !open &&
	    (READ_ONCE(l->caller) != caller || !READ_ONCE(l->open))) {
		WRITE_ONCE(kprint_bridge_last, (u64)*level << 32 | caller);
		return false;
	}

	raw_spin_lock(&kprint_bridge_lines_lock);
	if (cont) {
		*line = *l;
		has_line = line->open && line->caller == caller;
	} else if (!open && l->caller == caller) {
		l->open = false;
	}
	last = READ_ONCE(kprint_bridge_last);
	if (cont && (last & KPRINT_BRIDGE_LAST_OPEN) &&
	    KPRINT_BRIDGE_LAST_CALLER(last) == caller)
		/* Appended: printk keeps its record's level. */
		*level = KPRINT_BRIDGE_LAST_LEVEL(last);
	WRITE_ONCE(kprint_bridge_last,
		   (open ? KPRINT_BRIDGE_LAST_OPEN : 0) |
		   (u64)*level << 32 | caller);
	raw_spin_unlock(&kprint_bridge_lines_lock);
	return has_line;
}

static void kprint_bridge_line_set(u32 caller, u64 seq, bool open, bool cont)
{
	struct kprint_bridge_line *line;

	raw_spin_lock(&kprint_bridge_lines_lock);
	line = kprint_bridge_line(caller);
	if (cont) {
		/* A fragment keeps the line's first record. */
		if (line->caller == caller)
			line->open = open;
	} else {
		line->caller = caller;
		line->open = open;
		line->seq = seq;
	}
	raw_spin_unlock(&kprint_bridge_lines_lock);
}

/* One printk message, as the hook finds it */

/*
 * Formats of the helpers that wrap a caller's format in a struct
 * va_format: the text starts with @prefix rendered from @nstr string
 * arguments, then the %pV.
 */
static const struct {
	const char *fmt;
	const char *prefix;
	unsigned int nstr;
} kprint_bridge_wrappers[] = {
	/* drivers/base/core.c, __dev_printk() */
	{ "%s %s: %pV", "%s %s: ", 2 },
	/* net/core/dev.c, __netdev_printk() */
	{ "%s %s %s%s: %pV", "%s %s %s%s: ", 4 },
	{ "%s%s%s: %pV", "%s%s%s: ", 3 },
	{ "%s(NULL net_device): %pV", "%s(NULL net_device): ", 1 },
};

#define KPRINT_BRIDGE_WRAP_MAX	4

/* Which of kprint_bridge_wrappers @fmt is, or -1. */
static int kprint_bridge_wrap_index(const char *fmt)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprint_bridge_wrappers); i++)
		if (!strcmp(fmt, kprint_bridge_wrappers[i].fmt))
			return i;
	return -1;
}

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

/*
 * The owner of a format the cache does not have, per CPU and interrupt
 * context level: kprint_bridge_msg_init() runs before the hook knows it is
 * not nested (in NMI too).
 */
static DEFINE_PER_CPU(struct kprint_bridge_owner[4], kprint_bridge_owner_tmp);

static void kprint_bridge_msg_init(struct kprint_bridge_msg *m,
				   struct pt_regs *regs)
{
	const struct kprint_bridge_format *f;
	struct kprint_bridge_owner *owner;
	struct va_format *vaf = NULL;
	unsigned long key;
	unsigned int j;
	size_t size;
	va_list ap;
	int wrap;

	m->facility = regs_get_kernel_argument(regs, 0);
	m->level = regs_get_kernel_argument(regs, 1);
	m->dev_info = (void *)regs_get_kernel_argument(regs, 2);
	m->fmt = (const char *)regs_get_kernel_argument(regs, 3);
	m->args = (va_list *)regs_get_kernel_argument(regs, 4);
	m->wrap = -1;
	m->format = m->fmt;
	m->format_args = m->args;
	m->plan = NULL;
	m->caller = NULL;

	f = kprint_bridge_format_cached((unsigned long)m->fmt);
	wrap = f ? f->wrap : kprint_bridge_wrap_index(m->fmt);
	if (wrap >= 0) {
		va_copy(ap, *m->args);
		for (j = 0; j < kprint_bridge_wrappers[wrap].nstr; j++)
			m->wrap_str[j] = va_arg(ap, const char *);
		vaf = va_arg(ap, struct va_format *);
		va_end(ap);
		if (vaf && vaf->fmt && vaf->va) {
			m->wrap = wrap;
			m->wrap_fmt = vaf->fmt;
			m->format = vaf->fmt;
			m->format_args = vaf->va;
			f = kprint_bridge_format_cached((unsigned long)m->format);
		}
	}

	key = (unsigned long)m->format;
	if (f) {
		m->format += f->skip;
		m->format_len = f->len;
		m->format_id = f->id;
		m->plan = &f->plan;
		m->owner = f->owner.module_len ? &f->owner : NULL;
		return;
	}
	owner = &this_cpu_ptr(kprint_bridge_owner_tmp)[interrupt_context_level()];
	kprint_bridge_owner_find(key, owner);
	m->owner = owner->module_len ? owner : NULL;
	m->format = printk_skip_headers(m->format);
	size = strlen(m->format);
	m->format_len = size;
	if (m->format_len && m->format[m->format_len - 1] == '\n')
		m->format_len--;
	m->format_id = kprint_fnv1a64_mem(m->format, m->format_len);
	kprint_bridge_format_add(key, m->format + size + 1 - (const char *)key,
				 m->format - (const char *)key, m->format_len,
				 m->format_id, owner);
}

/*
 * vprintk_store() takes the level and KERN_CONT from the first 7 bytes of
 * the rendered text (its prefix_buf[8]), and printk_sprint() strips every
 * KERN_SOH pair at the start (printk_parse_prefix()).
 */
#define KPRINT_BRIDGE_PREFIX_SEEN	7

/*
 * The KERN_SOH pairs at the start of @text: those within the first
 * KPRINT_BRIDGE_PREFIX_SEEN bytes set @cont, and the first level one
 * @level if it is still LOGLEVEL_DEFAULT.  Returns the bytes they take.
 */
static size_t kprint_bridge_parse_prefix(const char *text, size_t len,
					 int *level, bool *cont)
{
	size_t n = 0;
	int c;

	while (len - n >= 2 && (c = printk_get_level(text + n))) {
		bool seen = n + 2 <= KPRINT_BRIDGE_PREFIX_SEEN;

		if (seen && c == 'c')
			*cont = true;
		else if (seen && *level == LOGLEVEL_DEFAULT)
			*level = c - '0';
		n += 2;
	}
	return n;
}

static u8 kprint_bridge_final_level(int level)
{
	if (level == LOGLEVEL_DEFAULT)
		level = default_message_loglevel;
	return level & 7;
}

/*
 * The slot of a message the bridge saw (kprint_handoff.c): it counts under
 * @m's format, the level printk stores and @tags (subsystem, NUL, module,
 * NUL; @tags_len bytes).
 */
static void kprint_bridge_handoff(const struct kprint_bridge_msg *m, u32 level,
				  const char *tags, size_t tags_len)
{
	struct kprint_handoff_head *h = kprint_handoff_begin(m->args, m->fmt);

	if (!h)
		return;
	h->format_id = m->format_id;
	/* The call site hashed its tags once, for messages without SUBSYSTEM. */
	if (m->caller && !tags[0])
		h->tags_id = m->caller->tags_id;
	else
		h->tags_id = kprint_fnv1a64_mem(tags, tags_len);
	h->level = level;
	h->class = KPRINT_CLASS_NONE;
	h->flags = KPRINT_HANDOFF_F_BRIDGED;
	h->format_len = m->format_len;
	h->format = (unsigned long)m->format;
	kprint_handoff_end(h, tags, tags_len);
}

/*
 * A message dropped (NMI, recursion, no scratch) is still counted, under
 * what can be known without a record: its subsystem but no module, and
 * the level printk stores.
 */
static void kprint_bridge_handoff_dropped(const struct kprint_bridge_msg *m)
{
	char tags[PRINTK_INFO_SUBSYSTEM_LEN + 2];
	ssize_t tlen = 0;
	int level = m->level;
	bool cont = false;
	char prefix[8];
	va_list ap;

	if (m->dev_info)
		tlen = strscpy(tags, m->dev_info->subsystem,
			       PRINTK_INFO_SUBSYSTEM_LEN);
	if (tlen < 0)
		tlen = PRINTK_INFO_SUBSYSTEM_LEN - 1;
	tags[tlen] = '\0';
	tags[tlen + 1] = '\0';

	/* The level, as vprintk_store() finds it: from the text's start. */
	if (!m->facility) {
		va_copy(ap, *m->args);
		vsnprintf(prefix, sizeof(prefix), m->fmt, ap);
		va_end(ap);
		kprint_bridge_parse_prefix(prefix, strlen(prefix), &level,
					   &cont);
	}
	kprint_bridge_handoff(m, kprint_bridge_final_level(level), tags,
			      tlen + 2);
}

/* The text, as printk would store it, into @b's text. */
static void kprint_bridge_render(struct kprint_builder *b,
				 const struct kprint_bridge_msg *m)
{
	const char *const *s = m->wrap_str;
	size_t room;
	char *tail;
	int n = 0;

	if (m->wrap >= 0) {
		const char *prefix = kprint_bridge_wrappers[m->wrap].prefix;

		tail = kprint_rec_text_tail(b, &room);
		switch (kprint_bridge_wrappers[m->wrap].nstr) {
		case 1:
			n = snprintf(tail, room, prefix, s[0]);
			break;
		case 2:
			n = snprintf(tail, room, prefix, s[0], s[1]);
			break;
		case 3:
			n = snprintf(tail, room, prefix, s[0], s[1], s[2]);
			break;
		case 4:
			n = snprintf(tail, room, prefix, s[0], s[1], s[2],
				     s[3]);
			break;
		}
		kprint_rec_text_advance(b, n);
		/* The caller's format, KERN_ pairs and all, as %pV prints it. */
		kprint_render(b, m->wrap_fmt, *m->format_args);
	} else {
		kprint_render(b, m->fmt, *m->args);
	}
}

/*
 * Where a call site the cache has no room for is described, for the one
 * message that needs it.  Per CPU, not on the stack, because the kernel
 * zeroes every local at function entry (CONFIG_INIT_STACK_ALL_ZERO): this
 * one is 140 bytes, for every message, to serve almost none.  The hook
 * owns it while its CPU is busy (kprint_bridge_busy, interrupts off).
 */
static DEFINE_PER_CPU(struct kprint_bridge_site, kprint_bridge_site_tmp);

/* Where a module without a function is named; owned as the one above. */
static DEFINE_PER_CPU(struct kprint_bridge_site, kprint_bridge_named_tmp);

/*
 * What the record of @m names.  The caller, if it called into the printk
 * core itself (@direct), and the format is the kernel image's (a core
 * helper's own format, print_hex_dump()'s: its caller is named), or in no
 * module's memory, or in the caller's module.  Otherwise whoever holds the
 * format, without a function: a format in a module other than the
 * caller's, or a caller that did not call printk (the function at its
 * return address called one that ended in a tail call to printk, as
 * brd_exit() does).  A format nobody holds (a buffer) then leaves the
 * caller's module.
 */
static const struct kprint_bridge_site *
kprint_bridge_named(const struct kprint_bridge_msg *m,
		    const struct kprint_bridge_site *caller)
{
	const struct kprint_bridge_owner *o = m->owner;
	struct kprint_bridge_site *named;

	if (caller && caller->direct &&
	    (!o || o->image || (caller->tags_id == o->tags_id &&
				caller->module_len == o->module_len &&
				!memcmp(caller->module, o->module,
					o->module_len))))
		return caller;
	if (!o && !caller)
		return NULL;
	named = this_cpu_ptr(&kprint_bridge_named_tmp);
	named->function[0] = '\0';
	named->function_len = 0;
	if (!o) {
		memcpy(named->module, caller->module, caller->module_len + 1);
		named->module_len = caller->module_len;
		named->tags_id = caller->tags_id;
	} else {
		memcpy(named->module, o->module, o->module_len + 1);
		named->module_len = o->module_len;
		named->tags_id = o->tags_id;
	}
	return named;
}

/*
 * Stores the arguments of @m as values, for rendering when the record is
 * read (kprint_render_planned(), KPRINT_REC_DEFERRED), where the text
 * then made is surely the one printk stores: a plain message of facility
 * 0 (no dev_printk() prefix, no /dev/kmsg write) whose format, stored
 * whole, ends its line, and whose level prefix is the format's own.
 * @level and @cont are set from that prefix, as printk sets them from the
 * text's.  Not with the selfcheck on, which compares the stored text.
 */
static bool kprint_bridge_defer(struct kprint_builder *b,
				const struct kprint_bridge_msg *m,
				int *level, bool *cont)
{
	size_t skip = m->format - m->fmt;
	struct kprint_render_plan uncached;
	const struct kprint_render_plan *plan = m->plan;

	if (m->wrap >= 0 || m->facility || kprint_selfcheck_enabled())
		return false;
	if (!plan) {
		kprint_bridge_plan(m->format, m->format_len, &uncached);
		plan = &uncached;
	}
	if (!plan->deferrable ||
	    kprint_render_planned(b, plan, *m->args,
				  KPRINT_BRIDGE_LINE_MAX - 1 - skip))
		return false;
	kprint_bridge_parse_prefix(m->fmt, skip, level, cont);
	return true;
}

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

static struct pt_regs *kprint_bridge_regs(struct ftrace_regs *fregs)
{
	return kprint_bridge_fregs_pt(fregs);
}
#else
#define KPRINT_BRIDGE_OPS_FLAGS		FTRACE_OPS_FL_SAVE_REGS

static struct pt_regs *kprint_bridge_regs(struct ftrace_regs *fregs)
{
	return ftrace_get_regs(fregs);
}
#endif

/* From vprintk_store()'s entry to printk's commit */

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

static struct kprint_bridge_pending *kprint_bridge_pend;
static DEFINE_PER_CPU(u64, kprint_bridge_stamp);

/* Fewer slots only make the full table's path testable. */
static unsigned int kprint_bridge_slots = KPRINT_BRIDGE_PENDING;
module_param_named(bridge_slots, kprint_bridge_slots, uint, 0444);
MODULE_PARM_DESC(bridge_slots,
		 "Messages kept per CPU and context until printk commits them (1-5, default 5; fewer for tests)");

static struct kprint_bridge_pending *kprint_bridge_pend_set(int cpu, int lvl)
{
	return &kprint_bridge_pend[(cpu * KPRINT_BRIDGE_LEVELS + lvl) *
				   KPRINT_BRIDGE_PENDING];
}

/*
 * Frees current's filled slots of @set whose vprintk_store() frame lay
 * below @sp: that frame returned without printk committing its message
 * (its recursion limit, a failed reservation).
 */
static void kprint_bridge_pending_stale(struct kprint_bridge_pending *set,
					unsigned long sp)
{
	unsigned int i;

	for (i = 0; i < KPRINT_BRIDGE_PENDING; i++)
		if (atomic_read(&set[i].state) == KPRINT_BRIDGE_P_FILLED &&
		    set[i].task == current && set[i].sp < sp &&
		    atomic_cmpxchg(&set[i].state, KPRINT_BRIDGE_P_FILLED,
				   KPRINT_BRIDGE_P_FREE) == KPRINT_BRIDGE_P_FILLED)
			atomic64_inc(&kprint_bridge_count.uncommitted);
}

/*
 * A slot of this CPU and context to fill, BUSY, or NULL; @sp is the stack
 * pointer at vprintk_store()'s entry.  When every slot is filled (tasks
 * preempted between the hook and printk's commit), the oldest is taken
 * back: its message cannot be bridged any more and is counted as
 * dropped-scratch.
 */
static struct kprint_bridge_pending *kprint_bridge_pending_get(unsigned long sp)
{
	unsigned int i, slots = clamp(kprint_bridge_slots, 1U,
				      (unsigned int)KPRINT_BRIDGE_PENDING);
	struct kprint_bridge_pending *set, *p = NULL;

	if (in_nmi())
		return NULL;
	set = kprint_bridge_pend_set(smp_processor_id(),
				     interrupt_context_level());
	kprint_bridge_pending_stale(set, sp + 1);
	for (i = 0; i < slots; i++)
		if (atomic_cmpxchg(&set[i].state, KPRINT_BRIDGE_P_FREE,
				   KPRINT_BRIDGE_P_BUSY) == KPRINT_BRIDGE_P_FREE) {
			p = &set[i];
			goto found;
		}
	for (i = 0; i < slots; i++)
		if (atomic_read(&set[i].state) == KPRINT_BRIDGE_P_FILLED &&
		    (!p || set[i].stamp < p->stamp))
			p = &set[i];
	if (!p || atomic_cmpxchg(&p->state, KPRINT_BRIDGE_P_FILLED,
				 KPRINT_BRIDGE_P_BUSY) != KPRINT_BRIDGE_P_FILLED)
		return NULL;
	atomic64_inc(&kprint_bridge_count.dropped_scratch);
found:
	p->build = false;
	p->task = current;
	p->sp = sp;
	p->stamp = this_cpu_inc_return(kprint_bridge_stamp);
	return p;
}

static void kprint_bridge_pending_fill(struct kprint_bridge_pending *p)
{
	atomic_set_release(&p->state, KPRINT_BRIDGE_P_FILLED);
}

/* A message that is not bridged still pairs with printk's commit. */
static void kprint_bridge_pending_mark(unsigned long sp)
{
	struct kprint_bridge_pending *p = kprint_bridge_pending_get(sp);

	if (p)
		kprint_bridge_pending_fill(p);
}

/* Takes @p if it is current's filled slot. */
static bool kprint_bridge_pending_claim(struct kprint_bridge_pending *p)
{
	if (atomic_cmpxchg(&p->state, KPRINT_BRIDGE_P_FILLED,
			   KPRINT_BRIDGE_P_BUSY) != KPRINT_BRIDGE_P_FILLED)
		return false;
	if (p->task == current)
		return true;
	/* Refilled by its CPU for another task since it was looked at. */
	kprint_bridge_pending_fill(p);
	return false;
}

/*
 * A task preempted between the hook and printk's disabling interrupts
 * may commit on another CPU: its slot is found there.
 */
static struct kprint_bridge_pending *kprint_bridge_pending_find(unsigned long sp)
{
	struct kprint_bridge_pending *set;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		set = kprint_bridge_pend_set(cpu, 0);
		for (i = 0; i < KPRINT_BRIDGE_PENDING; i++)
			if (atomic_read(&set[i].state) == KPRINT_BRIDGE_P_FILLED &&
			    READ_ONCE(set[i].task) == current &&
			    set[i].sp >= sp &&
			    kprint_bridge_pending_claim(&set[i]))
				return &set[i];
	}
	return NULL;
}

/*
 * The message printk commits now, from the frame whose prb_commit() call
 * has stack pointer @sp: the newest slot of current in this context made
 * at or above @sp.  Slots made below it are messages printk refused from
 * inside this one (freed and counted as uncommitted).  @nested: another
 * slot above is pending too, the message printk prints from inside its own
 * printk (its reservation is held meanwhile).
 */
static struct kprint_bridge_pending *kprint_bridge_pending_take(unsigned long sp,
								 bool *nested)
{
	struct kprint_bridge_pending *set, *p = NULL;
	int lvl = interrupt_context_level();
	unsigned int i, n = 0;

	set = kprint_bridge_pend_set(smp_processor_id(), lvl);
	kprint_bridge_pending_stale(set, sp);
	for (i = 0; i < KPRINT_BRIDGE_PENDING; i++)
		if (atomic_read_acquire(&set[i].state) ==
			    KPRINT_BRIDGE_P_FILLED &&
		    set[i].task == current) {
			n++;
			if (!p || set[i].stamp > p->stamp)
				p = &set[i];
		}
	*nested = n > 1;
	if (p)
		return kprint_bridge_pending_claim(p) ? p : NULL;
	return lvl ? NULL : kprint_bridge_pending_find(sp);
}

/*
 * What printk's commit tells: kernel/printk/printk_ringbuffer.h's
 * structures, the same in 6.1 and 6.12, as far as the hook follows them
 * from the struct prb_reserved_entry that prb_commit() and
 * prb_final_commit() take to the record's struct printk_info.  Not in
 * include/: mirrored, and every read checked (kprint_bridge_prb_read()).
 */
struct kprint_prb_info {
	u64 seq;
	u64 ts_nsec;
	u16 text_len;
	u8 facility;
	u8 flags:5;
	u8 level:3;
	u32 caller_id;
	struct dev_printk_info dev_info;
};

/* struct prb_desc_ring, the first member of struct printk_ringbuffer. */
struct kprint_prb_desc_ring {
	unsigned int count_bits;
	void *descs;
	struct kprint_prb_info *infos;
};

struct kprint_prb_entry {
	struct kprint_prb_desc_ring *rb;
	unsigned long irqflags;
	unsigned long id;
	unsigned int text_space;
};

/* printk's ring once a read through it held (kprint_bridge_prb_read()). */
static struct kprint_prb_desc_ring *kprint_bridge_prb_ring;
static unsigned long kprint_bridge_prb_mask;
static struct kprint_prb_info *kprint_bridge_prb_infos;

/*
 * The first read through a ring: without faulting, and the ring is kept
 * (for plain reads, a good part of the cost otherwise) only if the
 * record's seq is at its descriptor's index (printk gives the record of
 * descriptor i the seqs i, i + count, ...) and its caller id is the
 * committer's: a layout that is not the mirrored one fails these.
 */
static noinline bool kprint_bridge_prb_learn(struct kprint_prb_desc_ring *ring,
					     unsigned long id)
{
	struct kprint_prb_info *infos, *info;
	unsigned long mask;
	unsigned int bits;
	u32 caller;
	u64 seq;

	if (!ring || get_kernel_nofault(bits, &ring->count_bits) ||
	    bits >= BITS_PER_LONG || get_kernel_nofault(infos, &ring->infos))
		return false;
	mask = (1UL << bits) - 1;
	info = &infos[id & mask];
	if (get_kernel_nofault(seq, &info->seq) ||
	    get_kernel_nofault(caller, &info->caller_id) ||
	    (seq ^ id) & mask || caller != kprint_bridge_caller_id())
		return false;
	WRITE_ONCE(kprint_bridge_prb_mask, mask);
	WRITE_ONCE(kprint_bridge_prb_infos, infos);
	smp_store_release(&kprint_bridge_prb_ring, ring);
	return true;
}

/*
 * printk's seq and level of the record @e commits, false if they cannot
 * be read.  @e is printk's own, on its stack; the ring it names is read
 * plainly once it is known, and every record checked as on the first
 * read.
 */
static bool kprint_bridge_prb_read(const struct kprint_prb_entry *e,
				   u64 *seq, u8 *level)
{
	struct kprint_prb_desc_ring *ring = e->rb;
	const struct kprint_prb_info *info;
	unsigned long id = e->id;

	if (unlikely(ring != smp_load_acquire(&kprint_bridge_prb_ring)) &&
	    !kprint_bridge_prb_learn(ring, id))
		return false;
	info = &READ_ONCE(kprint_bridge_prb_infos)[id & kprint_bridge_prb_mask];
	*seq = READ_ONCE(info->seq);
	if (unlikely((*seq ^ id) & kprint_bridge_prb_mask)) {
		*seq = 0;
		return false;
	}
	/*
	 * The seq alone still passes the turn on: prb_reserve() commits a
	 * record it found no room for before vprintk_store() set its caller.
	 */
	if (unlikely(info->caller_id != kprint_bridge_caller_id()))
		return false;
	*level = info->level;
	return true;
}

/*
 * Order.  printk gives a record its seq when it reserves its slot and
 * commits it after rendering its text: two CPUs may commit in the other
 * order.  The hook commits a record into kprint's ring only once every
 * earlier seq of printk is committed, so kprint's order is printk's.
 *
 * @kprint_bridge_next is the lowest seq not known committed (0 while not
 * known: the bridge just came on).  A commit marks its own seq done in
 * @kprint_bridge_done and moves @kprint_bridge_next over the run of done
 * seqs that follows.  It never jumps over a seq still being written: an
 * NMI's commit, or one nested in another printk on the same CPU, must not
 * let later records of other CPUs overtake the one it interrupted.  Every
 * seq printk reserves is committed (prb_reserve() commits even the record
 * it could not give room), so the run always closes.
 *
 * The wait runs with interrupts off, as printk's writer it waits for has
 * them, and at most KPRINT_BRIDGE_TURN_NS (then counted as late); never
 * in NMI, inside its own hook, or for a message printed while printing
 * another on this CPU: the one it interrupted cannot commit before it.
 * That nested record is committed at once, ahead of its turn, and counted
 * (overtook).
 */
#define KPRINT_BRIDGE_TURN_NS	(20 * NSEC_PER_MSEC)
/* Seqs in flight at once: a few per CPU and context, with room to spare. */
#define KPRINT_BRIDGE_TURNS	1024

static u64 kprint_bridge_next;
static u64 kprint_bridge_done[KPRINT_BRIDGE_TURNS];

/* Moves the turn over every done seq from @next on. */
static u64 kprint_bridge_turn_advance(u64 next)
{
	u64 prev;

	while (next &&
	       smp_load_acquire(&kprint_bridge_done[next % KPRINT_BRIDGE_TURNS]) ==
		       next + 1) {
		prev = cmpxchg64(&kprint_bridge_next, next, next + 1);
		next = prev == next ? next + 1 : prev;
	}
	return next;
}

/* Is @seq's turn here: is every earlier seq of printk committed? */
static bool kprint_bridge_turn_here(u64 seq)
{
	u64 next = kprint_bridge_turn_advance(READ_ONCE(kprint_bridge_next));

	return !next || next >= seq;
}

/*
 * The turn starts at @seq: when the bridge comes on, at the first commit
 * it sees (or the backlog's end), and past a gap wider than the table
 * holds, which only a seq never committed could leave.
 */
static void kprint_bridge_turn_start(u64 seq)
{
	u64 old = READ_ONCE(kprint_bridge_next), prev;

	while (old < seq) {
		prev = cmpxchg64(&kprint_bridge_next, old, seq);
		if (prev == old)
			break;
		old = prev;
	}
}

static void kprint_bridge_turn_wait(u64 seq)
{
	u64 deadline;

	if (kprint_bridge_turn_here(seq))
		return;
	/*
	 * Not local_clock(): with an unstable TSC it stops a tick past the
	 * last tick with interrupts off, as they are here, and the wait
	 * would never end.  The clocksource itself moves on.
	 */
	deadline = ktime_get_mono_fast_ns() + KPRINT_BRIDGE_TURN_NS;
	while (!kprint_bridge_turn_here(seq)) {
		if (ktime_get_mono_fast_ns() > deadline) {
			/* The seqs before are not waited for again. */
			atomic64_inc(&kprint_bridge_count.order_late);
			kprint_bridge_turn_start(seq);
			return;
		}
		cpu_relax();
	}
}

/* printk's @seq is committed. */
static void kprint_bridge_turn_pass(u64 seq)
{
	u64 next = READ_ONCE(kprint_bridge_next);

	if (!next) {
		kprint_bridge_turn_start(seq + 1);
		return;
	}
	if (seq < next)
		return;
	if (seq - next >= KPRINT_BRIDGE_TURNS) {
		atomic64_inc(&kprint_bridge_count.order_late);
		kprint_bridge_turn_start(seq + 1);
		return;
	}
	smp_store_release(&kprint_bridge_done[seq % KPRINT_BRIDGE_TURNS],
			  seq + 1);
	kprint_bridge_turn_advance(next);
}

/*
 * Load.  Records printk committed while the backlog is being taken, with
 * a seq below where the backlog ends, are taken live and not again.
 */
#define KPRINT_BRIDGE_LOAD_SEQS		64

static bool kprint_bridge_loading;
static u64 kprint_bridge_load_end;
static atomic_t kprint_bridge_load_n;
static u64 kprint_bridge_load_seqs[KPRINT_BRIDGE_LOAD_SEQS];

static void kprint_bridge_load_note(u64 seq)
{
	int i;

	if (likely(!READ_ONCE(kprint_bridge_loading)) ||
	    seq >= READ_ONCE(kprint_bridge_load_end))
		return;
	i = atomic_inc_return(&kprint_bridge_load_n) - 1;
	if (i < KPRINT_BRIDGE_LOAD_SEQS)
		WRITE_ONCE(kprint_bridge_load_seqs[i], seq);
}

static bool kprint_bridge_load_live(u64 seq)
{
	int i, n = min(atomic_read(&kprint_bridge_load_n),
		       KPRINT_BRIDGE_LOAD_SEQS);

	for (i = 0; i < n; i++)
		if (READ_ONCE(kprint_bridge_load_seqs[i]) == seq)
			return true;
	return false;
}

/* Commits @p's record with what printk stored: its seq and level. */
static void kprint_bridge_commit_pending(struct kprint_bridge_pending *p,
					 bool known, u64 pseq, u8 level)
{
	struct kprint_rec *rec = (struct kprint_rec *)p->buf;
	u64 seq;

	if (known) {
		rec->printk_seq = pseq;
		rec->level = level;
	}
	seq = kprint_commit(rec, rec->len);
	if (!seq) {
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
		return;
	}
	this_cpu_inc(kprint_bridge_hot.bridged);
	if (p->open || p->merged)
		kprint_bridge_line_set(p->caller_id, seq, p->open, p->merged);
}

static DEFINE_PER_CPU(bool, kprint_bridge_busy);

/* On prb_commit() and prb_final_commit(): printk stores a message. */
static void notrace kprint_bridge_commit_hook(unsigned long ip,
					      unsigned long parent_ip,
					      struct ftrace_ops *op,
					      struct ftrace_regs *fregs)
{
	struct pt_regs *regs = kprint_bridge_regs(fregs);
	struct kprint_bridge_pending *p = NULL;
	bool nested = false, known, busy;
	unsigned long flags;
	u64 pseq = 0;
	u8 level = 0;

	if (unlikely(!regs))
		return;
	preempt_disable_notrace();
	local_irq_save(flags);
	known = kprint_bridge_prb_read((void *)regs_get_kernel_argument(regs, 0),
				       &pseq, &level);
	if (unlikely(!known))
		atomic64_inc(&kprint_bridge_count.unread);
	else
		kprint_bridge_load_note(pseq);
	busy = this_cpu_read(kprint_bridge_busy);
	if (!in_nmi() && kprint_bridge_from_store(parent_ip))
		p = kprint_bridge_pending_take(kernel_stack_pointer(regs),
						   &nested);
	if (known && !in_nmi() && !busy) {
		if (!nested)
			kprint_bridge_turn_wait(pseq);
		else if (p && p->build && !kprint_bridge_turn_here(pseq))
			atomic64_inc(&kprint_bridge_count.order_overtook);
	}
	if (p) {
		if (p->build && !busy) {
			this_cpu_write(kprint_bridge_busy, true);
			kprint_bridge_commit_pending(p, known, pseq, level);
			this_cpu_write(kprint_bridge_busy, false);
		}
		atomic_set_release(&p->state, KPRINT_BRIDGE_P_FREE);
	}
	if (pseq)
		kprint_bridge_turn_pass(pseq);
	local_irq_restore(flags);
	preempt_enable_notrace();
}

/*
 * Builds the record of @m in @b, whose record is @p's, finding @m's
 * caller, for printk's commit of the message (kprint_bridge_commit_hook()).
 */
static void kprint_bridge_store(struct kprint_builder *b,
				struct kprint_bridge_msg *m,
				const struct kprint_bridge_hint *hint,
				struct pt_regs *regs,
				struct kprint_bridge_pending *p)
{
	const struct kprint_bridge_site *caller;
	struct kprint_bridge_line line;
	struct kprint_rec *rec = b->rec;
	int level = m->level;
	bool cont = false, newline, open, merged = false;
	size_t skip = 0;
	u32 caller_id;

	BUILD_BUG_ON(KSYM_SYMBOL_LEN > KPRINT_TEXT_MAX);
	caller = kprint_bridge_caller(hint, regs, b->checkbuf,
				      this_cpu_ptr(&kprint_bridge_site_tmp));
	caller = kprint_bridge_named(m, caller);
	m->caller = caller;

	kprint_rec_begin(b, 0, KPRINT_CLASS_NONE, 0);
	rec->source = KPRINT_SOURCE_PRINTK;
	rec->facility = m->facility;
	rec->format_id = m->format_id;
	kprint_rec_put_str(b, KPRINT_STR_FILE, "");
	kprint_rec_put_strn(b, KPRINT_STR_FUNCTION,
			    caller ? caller->function : "",
			    caller ? caller->function_len : 0);
	kprint_rec_put_str(b, KPRINT_STR_SUBSYSTEM,
			   m->dev_info ? m->dev_info->subsystem : "");
	kprint_rec_put_strn(b, KPRINT_STR_MODULE, caller ? caller->module : "",
			    caller ? caller->module_len : 0);
	kprint_rec_put_str(b, KPRINT_STR_DEVICE,
			   m->dev_info ? m->dev_info->device : "");
	kprint_rec_put_strn(b, KPRINT_STR_FORMAT, m->format,
			    min_t(size_t, m->format_len, KPRINT_FORMAT_MAX));

	if (kprint_bridge_defer(b, m, &level, &cont)) {
		this_cpu_inc(kprint_bridge_hot.deferred);
		rec->rflags |= KPRINT_REC_DEFERRED;
		newline = true;
		goto sealed;
	}

	kprint_bridge_render(b, m);

	/* printk keeps LOG_LINE_MAX - 1 bytes, its prefix included. */
	if (b->text_len > KPRINT_BRIDGE_LINE_MAX - 1) {
		b->text_len = KPRINT_BRIDGE_LINE_MAX - 1;
		rec->flags |= KPRINT_RECORD_F_TRUNCATED;
	}
	/* Only a message of facility 0 has its prefix parsed (not /dev/kmsg's). */
	if (!m->facility) {
		skip = kprint_bridge_parse_prefix(b->text, b->text_len, &level,
						  &cont);
		b->text_start = skip;
	}
	newline = b->text_len > skip && b->text[b->text_len - 1] == '\n';
sealed:
	kprint_rec_end(b);

	caller_id = kprint_bridge_caller_id();
	/* dev_printk() always ends its line (LOG_NEWLINE). */
	open = !newline && !m->dev_info;
	rec->level = kprint_bridge_final_level(level);
	if (kprint_bridge_line_get(caller_id, cont, open, &rec->level, &line)) {
		merged = true;
		rec->flags |= KPRINT_RECORD_F_CONT;
		rec->continues = line.seq;
	}

	if (unlikely(kprint_selfcheck_enabled())) {
		va_list ap;

		va_copy(ap, *m->args);
		kprint_selfcheck_text(b, m->fmt, ap,
				      KPRINT_BRIDGE_LINE_MAX - 1, skip);
		va_end(ap);
	}

	p->caller_id = caller_id;
	p->open = open;
	p->merged = merged;
	p->build = true;
}

static void notrace kprint_bridge_hook(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct pt_regs *regs = kprint_bridge_regs(fregs);
	struct kprint_bridge_hint hint;
	/* Set before use; not worth zeroing on every printk (120 bytes). */
	struct kprint_bridge_msg m __uninitialized;
	struct kprint_bridge_pending *p;
	struct kprint_builder *b;
	struct kprint_rec *rec;
	unsigned long flags, sflags;
	unsigned int tags_len;
	const char *tags;

	if (unlikely(!regs))
		return;
	/* ftrace calls us as is: the per-CPU state needs the CPU kept. */
	preempt_disable_notrace();
	/* printk(NULL) is vsnprintf()'s to complain about, not ours. */
	if (unlikely(!regs_get_kernel_argument(regs, 3))) {
		if (!in_nmi())
			kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		goto out_preempt;
	}
	kprint_bridge_hint_take(&hint);
	if (kprint_own_printk()) {
		atomic64_inc(&kprint_bridge_count.skipped);
		kprint_bridge_last_close();
		/* Its slot is the echo's own (kprint_handoff_echo()). */
		kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		goto out_preempt;
	}

	kprint_bridge_msg_init(&m, regs);
	if (unlikely(in_nmi())) {
		atomic64_inc(&kprint_bridge_count.dropped_nmi);
		kprint_bridge_last_close();
		kprint_bridge_handoff_dropped(&m);
		goto out_preempt;
	}

	local_irq_save(flags);
	if (unlikely(this_cpu_read(kprint_bridge_busy))) {
		atomic64_inc(&kprint_bridge_count.dropped_recursion);
		kprint_bridge_last_close();
		kprint_bridge_handoff_dropped(&m);
		kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		goto out;
	}
	this_cpu_write(kprint_bridge_busy, true);

	b = kprint_scratch_get(&sflags);
	p = b ? kprint_bridge_pending_get(kernel_stack_pointer(regs)) :
		 NULL;
	if (unlikely(!p)) {
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
		kprint_bridge_last_close();
		kprint_bridge_handoff_dropped(&m);
		if (b)
			kprint_scratch_put(sflags);
		else
			kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		goto out_idle;
	}
	/* Built in the slot itself: no copy. */
	rec = b->rec;
	b->rec = (struct kprint_rec *)p->buf;
	kprint_bridge_store(b, &m, &hint, regs, p);
	tags = kprint_rec_tags(b->rec, &tags_len);
	kprint_bridge_handoff(&m, b->rec->level, tags, tags_len);
	b->rec = rec;
	kprint_bridge_pending_fill(p);
	kprint_scratch_put(sflags);
out_idle:
	this_cpu_write(kprint_bridge_busy, false);
out:
	local_irq_restore(flags);
out_preempt:
	preempt_enable_notrace();
}

static void notrace kprint_bridge_dispatch(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct ftrace_regs *fregs)
{
	if (kprint_bridge_is_store(ip))
		kprint_bridge_hook(ip, parent_ip, op, fregs);
	else if (kprint_bridge_is_commit(ip))
		kprint_bridge_commit_hook(ip, parent_ip, op, fregs);
	else
		kprint_bridge_entry_hook(ip, parent_ip, op, fregs);
}

static struct ftrace_ops kprint_bridge_ops = {
	.func	= kprint_bridge_dispatch,
	.flags	= KPRINT_BRIDGE_OPS_FLAGS,
};

static int kprint_bridge_register(void)
{
	int err;

	lockdep_assert_held(&kprint_bridge_mutex);
	/*
	 * Which record is next in printk's order is learnt anew; a message
	 * the hook kept when it went off was never paired (no CPU is in the
	 * hook now).
	 */
	WRITE_ONCE(kprint_bridge_next, 0);
	memset(kprint_bridge_pend, 0, array3_size(nr_cpu_ids,
						  KPRINT_BRIDGE_LEVELS *
						  KPRINT_BRIDGE_PENDING,
						  sizeof(*kprint_bridge_pend)));
	err = register_ftrace_function(&kprint_bridge_ops);
	if (!err)
		WRITE_ONCE(kprint_bridge_registered, true);
	return err;
}

/* Returns once no CPU is inside the hook any more. */
static void kprint_bridge_unregister(void)
{
	lockdep_assert_held(&kprint_bridge_mutex);
	unregister_ftrace_function(&kprint_bridge_ops);
	WRITE_ONCE(kprint_bridge_registered, false);
	kprint_handoff_clear();
}

/* Backlog: what printk stored before kprint was loaded */

/*
 * One line of kmsg_dump_get_line(syslog = true): "<pri>[ssss.uuuuuu] text",
 * the timestamp only with printk.time on, every further line of a
 * multi-line text behind the same prefix again.
 */
static void kprint_bridge_backlog_line(char *line, size_t len, u64 *ts,
				       u64 pseq)
{
	struct kprint_builder *b;
	unsigned long flags, pri = 0, sec, usec;
	size_t prefix, i, n;
	char *p = line, *end = line + len;
	u64 mono;

	if (len && end[-1] == '\n')
		end--;
	*end = '\0';
	if (*p != '<')
		return;
	pri = simple_strtoul(p + 1, &p, 10);
	if (*p != '>')
		return;
	p++;
	*ts = 0;
	if (*p == '[' && sscanf(p, "[%lu.%lu]", &sec, &usec) == 2) {
		p = strchr(p, ']') + 1;
		if (*p == ' ')
			p++;
		*ts = (u64)sec * NSEC_PER_SEC + (u64)usec * NSEC_PER_USEC;
	}
	prefix = p - line;

	/* Put the lines of a multi-line text back together. */
	for (i = n = 0; p + i < end; ) {
		line[n++] = p[i];
		if (p[i] == '\n' && p + i + 1 + prefix <= end)
			i += 1 + prefix;
		else
			i++;
	}

	b = kprint_scratch_get(&flags);
	if (!b) {
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
		return;
	}
	kprint_rec_begin(b, pri & 7, KPRINT_CLASS_NONE,
			 KPRINT_RECORD_F_BACKLOG);
	b->rec->source = KPRINT_SOURCE_PRINTK;
	b->rec->facility = (pri >> 3) & 0xff;
	b->rec->format_id = kprint_fnv1a64("");
	b->rec->printk_seq = pseq;
	/* Nobody made this now: the loading task is not its author. */
	b->rec->pid = 0;
	memset(b->rec->comm, 0, sizeof(b->rec->comm));
	mono = *ts ?: ktime_get_ns();
	b->rec->ts_mono = mono;
	b->rec->ts_real = ktime_to_ns(ktime_mono_to_real(ns_to_ktime(mono)));
	kprint_rec_put_str(b, KPRINT_STR_FILE, "");
	kprint_rec_put_str(b, KPRINT_STR_FUNCTION, "");
	kprint_rec_put_str(b, KPRINT_STR_SUBSYSTEM, "");
	kprint_rec_put_str(b, KPRINT_STR_MODULE, "");
	kprint_rec_put_str(b, KPRINT_STR_DEVICE, "");
	kprint_rec_put_str(b, KPRINT_STR_FORMAT, "");
	kprint_rec_append_text(b, line, n);
	kprint_rec_end(b);
	if (kprint_commit(b->rec, b->rec->len))
		atomic64_inc(&kprint_bridge_count.backlog);
	else
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
	kprint_scratch_put(flags);
}

/* printk's next seq: where its ring ends now. */
static u64 kprint_bridge_backlog_end(void)
{
	struct kmsg_dump_iter iter;

	kmsg_dump_rewind(&iter);
	return iter.next_seq;
}

/**
 * kprint_bridge_backlog() - take printk's ring up to @end as backlog records
 * @end: printk's next seq, read once the hook was registered
 *
 * Every record printk reserves after the registration is taken live, at
 * its commit; so is one reserved before and committed after.  What
 * printk committed before is here, below @end, where the hook's commits
 * are noted (kprint_bridge_load_note()) so as not to take them twice.
 */
static void kprint_bridge_backlog(u64 end)
{
	/* A record's text plus a prefix per line: more is cut by printk. */
	const size_t size = 2 * KPRINT_TEXT_MAX;
	struct kmsg_dump_iter iter;
	size_t len;
	char *line;
	u64 ts;

	line = kmalloc(size, GFP_KERNEL);
	if (!line)
		return;
	kmsg_dump_rewind(&iter);
	while (iter.cur_seq < end &&
	       kmsg_dump_get_line(&iter, true, line, size - 1, &len)) {
		/* cur_seq is now past the line just read. */
		if (iter.cur_seq > end)
			break;
		if (kprint_bridge_load_live(iter.cur_seq - 1))
			atomic64_inc(&kprint_bridge_count.backlog_live);
		else
			kprint_bridge_backlog_line(line, len, &ts,
						   iter.cur_seq - 1);
		cond_resched();
	}
	kfree(line);
}

/**
 * kprint_bridge_get_stats() - the bridge's counters
 * @st: filled in
 *
 * Context: Any context.
 */
void kprint_bridge_get_stats(struct kprint_bridge_stats *st)
{
	st->on = READ_ONCE(kprint_bridge_registered);
	st->bridged = kprint_bridge_hot_sum().bridged;
	st->skipped = atomic64_read(&kprint_bridge_count.skipped);
	st->dropped_nmi = atomic64_read(&kprint_bridge_count.dropped_nmi);
	st->dropped_recursion =
		atomic64_read(&kprint_bridge_count.dropped_recursion);
	st->dropped_scratch =
		atomic64_read(&kprint_bridge_count.dropped_scratch);
	/* Every vprintk_store() call reaches an ftrace_ops callback. */
	st->missed = 0;
	st->backlog = atomic64_read(&kprint_bridge_count.backlog);
}

/**
 * kprint_bridge_init() - set the hook up, turn it on, take the backlog
 *
 * Context: Process context (module init), once kprint runs.
 * Return: 0 or a negative errno.
 */
int kprint_bridge_init(void)
{
	static const char target[] = "vprintk_store";
	static const char *const commits[] = { "prb_commit", "prb_final_commit" };
	u64 backlog_end = 0;
	unsigned int i;
	int err;

	kprint_bridge_sites = vzalloc(KPRINT_BRIDGE_SITES *
				      sizeof(*kprint_bridge_sites));
	if (!kprint_bridge_sites)
		return -ENOMEM;
	kprint_bridge_formats = vzalloc(KPRINT_BRIDGE_FORMATS *
					sizeof(*kprint_bridge_formats));
	if (!kprint_bridge_formats) {
		err = -ENOMEM;
		goto err_free;
	}
	kprint_bridge_pend = vzalloc(array3_size(nr_cpu_ids, KPRINT_BRIDGE_LEVELS *
						 KPRINT_BRIDGE_PENDING,
						 sizeof(*kprint_bridge_pend)));
	if (!kprint_bridge_pend) {
		err = -ENOMEM;
		goto err_free;
	}

	/*
	 * By address: ftrace_set_filter() by name matches every traced
	 * function of the kernel against the name (one kallsyms lookup
	 * each), over a second per name in the guest, at every load.
	 * vprintk_store() and printk's two commits are needed; the entry
	 * points this kernel does not have (or trace) are left out.
	 */
	kprint_bridge_store_ip = kprint_bridge_lookup(target);
	for (i = 0; i < ARRAY_SIZE(kprint_bridge_commit_ips); i++)
		kprint_bridge_commit_ips[i] = kprint_bridge_lookup(commits[i]);
	err = -ENOENT;
	if (!kprint_bridge_store_ip || !kprint_bridge_commit_ips[0] ||
	    !kprint_bridge_commit_ips[1])
		goto err_free;
	kprint_bridge_store_range();
	err = ftrace_set_filter_ip(&kprint_bridge_ops, kprint_bridge_store_ip,
				   0, 1);
	for (i = 0; !err && i < ARRAY_SIZE(kprint_bridge_commit_ips); i++)
		err = ftrace_set_filter_ip(&kprint_bridge_ops,
					   kprint_bridge_commit_ips[i], 0, 0);
	if (err)
		goto err_filter;
#if defined(CONFIG_X86) && defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
	for (i = 0; i < ARRAY_SIZE(kprint_bridge_entry_fns); i++) {
		unsigned long addr;

		addr = (unsigned long)kprint_bridge_entry_fns[i].addr;
		if (!addr)
			addr = kprint_bridge_lookup(kprint_bridge_entry_fns[i].name);
		if (addr && !ftrace_set_filter_ip(&kprint_bridge_ops, addr, 0, 0))
			kprint_bridge_entries++;
	}
#endif

	err = register_module_notifier(&kprint_bridge_module_nb);
	if (err)
		goto err_filter;

	mutex_lock(&kprint_bridge_mutex);
	kprint_bridge_ready = true;
	if (kprint_bridge_on) {
		/* Live records below the backlog's end are noted from now on. */
		WRITE_ONCE(kprint_bridge_load_end, U64_MAX);
		WRITE_ONCE(kprint_bridge_loading, kprint_bridge_take_backlog);
		err = kprint_bridge_register();
		if (err) {
			WRITE_ONCE(kprint_bridge_loading, false);
			kprint_bridge_ready = false;
			mutex_unlock(&kprint_bridge_mutex);
			goto err_notifier;
		}
		/*
		 * Every record printk reserves from now on is taken live.  A
		 * line some caller left open (no newline yet) cannot be read
		 * until printk finalizes it, so the backlog would stop short
		 * of it and its later pieces would come live without its
		 * beginning.  printk finalizes the newest record when it
		 * reserves the next one: this line, bridged live itself, makes
		 * printk store the open line as it is, its later pieces as
		 * records of their own, as /dev/kmsg then shows them.
		 */
		if (kprint_bridge_take_backlog)
			pr_info("printk bridge on, earlier messages as backlog\n");
		backlog_end = kprint_bridge_backlog_end();
		WRITE_ONCE(kprint_bridge_load_end, backlog_end);
		if (backlog_end)
			kprint_bridge_turn_start(backlog_end);
	}
	mutex_unlock(&kprint_bridge_mutex);

	if (READ_ONCE(kprint_bridge_loading))
		kprint_bridge_backlog(backlog_end);
	WRITE_ONCE(kprint_bridge_loading, false);
	return 0;

err_notifier:
	unregister_module_notifier(&kprint_bridge_module_nb);
err_filter:
	ftrace_free_filter(&kprint_bridge_ops);
err_free:
	vfree(kprint_bridge_pend);
	kprint_bridge_pend = NULL;
	vfree(kprint_bridge_formats);
	kprint_bridge_formats = NULL;
	vfree(kprint_bridge_sites);
	kprint_bridge_sites = NULL;
	return err;
}

/**
 * kprint_bridge_exit() - turn the hook off for good and free its state
 *
 * Context: Process context (module exit), before the core stops.  On
 * return no CPU runs the hook and none will.
 */
void kprint_bridge_exit(void)
{
	mutex_lock(&kprint_bridge_mutex);
	kprint_bridge_ready = false;
	if (kprint_bridge_registered)
		kprint_bridge_unregister();
	mutex_unlock(&kprint_bridge_mutex);

	unregister_module_notifier(&kprint_bridge_module_nb);
	ftrace_free_filter(&kprint_bridge_ops);
	vfree(kprint_bridge_pend);
	kprint_bridge_pend = NULL;
	vfree(kprint_bridge_formats);
	kprint_bridge_formats = NULL;
	vfree(kprint_bridge_sites);
	kprint_bridge_sites = NULL;
}
