// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's callers: who printed a message.
 */

/**
 * DOC: printk bridge callers
 *
 * A bridged record names a module and a function: those of the first
 * caller outside the printk core.  Three ways find it, cheapest first.
 *
 * **Hints.**  On x86 the hook's ftrace_ops is also on the functions that
 * callers call to print (_printk(), _dev_info(), ...).  There it sees the
 * caller's return address, and leaves it as a hint for the
 * vprintk_store() that follows.  The hook checks the hint before it uses
 * it (kprint_bridge_hinted()).
 *
 * **The unwinder.**  Without a valid hint, x86's exported unwinder starts
 * from the registers ftrace saved, and stops at the caller.  Elsewhere,
 * or when it finds none, stack_trace_save() is the last resort.
 *
 * **The site cache.**  sprint_symbol() of a return address is cached
 * (__module_address() is not exported).  The cache is lock-free.
 *
 * A function that ends in a tail call to printk leaves its own caller's
 * return address.  So the caller names the function only if the
 * instruction before its return address calls into the printk core.  It
 * names the module only if the format is not in another module's memory
 * (kprint_bridge_named()).
 *
 * A module's sites and formats are forgotten when its memory goes: its
 * init sections once it is live, everything on unload.
 */

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#include "kprint_bridge_shared.h"

/* Return addresses looked at, from the hook outwards. */
#define KPRINT_BRIDGE_STACK_DEPTH	16

/* Call sites whose symbol is cached. */
#define KPRINT_BRIDGE_SITES_BITS	10
#define KPRINT_BRIDGE_SITES		(1U << KPRINT_BRIDGE_SITES_BITS)

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
	kprint_bridge_format_forget(lo, hi);
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

struct notifier_block kprint_bridge_module_nb = {
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
 * the unwinder finds.  The entry points are kprint_bridge.c's
 * kprint_bridge_entry_fns.
 */

/*
 * From an entry point's stack pointer to vprintk_store()'s: a few printk
 * frames (_dev_info() -> ... -> vprintk_emit() is the deepest, well under
 * this).
 */
#define KPRINT_BRIDGE_HINT_REACH	2048

DEFINE_PER_CPU(struct kprint_bridge_hint[4], kprint_bridge_hints);

static unsigned long kprint_bridge_switches(const struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

void notrace kprint_bridge_entry_hook(unsigned long ip,
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

/* The first caller outside the printk core, or NULL. */
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
 * What the record names, of a message whose format @o holds.  The caller, if it called into the printk
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
kprint_bridge_named(const struct kprint_bridge_owner *o,
		    const struct kprint_bridge_site *caller)
{
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

/**
 * kprint_bridge_caller_named() - what the record of a message names
 * @hint: the hint the hook took for the message
 * @regs: the registers ftrace saved at vprintk_store()'s entry
 * @sym: KSYM_SYMBOL_LEN bytes to work in
 * @owner: the module whose memory holds the message's format, or NULL
 *
 * Context: The hook, with its CPU busy (kprint_bridge_busy) and
 * interrupts off.
 * Return: the module and function to name, or NULL for none.
 */
const struct kprint_bridge_site *
kprint_bridge_caller_named(const struct kprint_bridge_hint *hint,
			   struct pt_regs *regs, char *sym,
			   const struct kprint_bridge_owner *owner)
{
	const struct kprint_bridge_site *caller;

	caller = kprint_bridge_caller(hint, regs, sym,
				      this_cpu_ptr(&kprint_bridge_site_tmp));
	return kprint_bridge_named(owner, caller);
}

/**
 * kprint_bridge_caller_alloc() - make the site cache
 *
 * Context: Process context (kprint_bridge_init()).
 * Return: 0 or -ENOMEM.
 */
int kprint_bridge_caller_alloc(void)
{
	kprint_bridge_sites = vzalloc(KPRINT_BRIDGE_SITES *
				      sizeof(*kprint_bridge_sites));
	return kprint_bridge_sites ? 0 : -ENOMEM;
}

/* Frees the site cache, once no CPU is in the hook. */
void kprint_bridge_caller_free(void)
{
	vfree(kprint_bridge_sites);
	kprint_bridge_sites = NULL;
}
