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
 * The bridge makes every message printk stores a kprint record of source
 * printk.  One ftrace_ops carries it, in one callback with three jobs:
 *
 * - kprint_bridge_hook.c: at vprintk_store()'s entry, the hook builds the
 *   message's record;
 * - kprint_bridge_order.c: at printk's commit, the record takes printk's
 *   seq and level, and is committed in printk's order;
 * - kprint_bridge_caller.c: at printk's entry points, a hint names the
 *   caller.  The same file finds the caller without one.
 *
 * kprint_bridge_format.c caches the formats, kprint_bridge_cont.c follows
 * continuation lines (pr_cont()), and kprint_bridge_backlog.c takes what
 * printk stored before the load.  kprint_bridge_stats.c counts.  This file
 * holds the parameters, and turns the ops on and off.
 *
 * **Safety.**  printk_deferred() runs with scheduler locks held: nothing
 * in the bridge wakes anybody, and kprint_commit() only raises an
 * irq_work.  Turning the bridge off, at run time or on unload, unregisters
 * the ops.  That waits until no CPU is inside the hook; only then is
 * anything freed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dev_printk.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "kprint_bridge.h"
#include "kprint_bridge_shared.h"
#include "kprint_handoff.h"
#include "kprint_stats.h"

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

/*
 * Entry points filtered in beside vprintk_store(), on the hook's own
 * ftrace_ops: one ops, so that turning the bridge off (and unloading) waits
 * for one RCU-tasks grace period, not one per ops.  The callback tells
 * vprintk_store() from the entry points by the traced address.
 */
static unsigned int kprint_bridge_entries;

/* printk's entry points, where the hook leaves hints for itself. */
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

/* vprintk_store()'s code, from its symbol's offset and size. */
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

static struct ftrace_ops kprint_bridge_ops = {
	.func	= kprint_bridge_dispatch,
	.flags	= KPRINT_BRIDGE_OPS_FLAGS,
};

static int kprint_bridge_register(void)
{
	int err;

	lockdep_assert_held(&kprint_bridge_mutex);
	kprint_bridge_order_reset();
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

/* Frees what kprint_bridge_alloc() made, once no CPU is in the hook. */
static void kprint_bridge_free(void)
{
	kprint_bridge_order_free();
	kprint_bridge_format_free();
	kprint_bridge_caller_free();
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

/* Makes the caches and the pending slots; frees them all if one fails. */
static int kprint_bridge_alloc(void)
{
	if (kprint_bridge_caller_alloc())
		return -ENOMEM;
	if (kprint_bridge_format_alloc() || kprint_bridge_order_alloc()) {
		kprint_bridge_free();
		return -ENOMEM;
	}
	return 0;
}

/*
 * Filters the ops on vprintk_store(), printk's two commits and the entry
 * points.  By address: ftrace_set_filter() by name matches every traced
 * function of the kernel against the name (one kallsyms lookup each),
 * over a second per name in the guest, at every load.  vprintk_store()
 * and printk's two commits are needed; the entry points this kernel does
 * not have (or trace) are left out.
 */
static int kprint_bridge_filter(void)
{
	static const char target[] = "vprintk_store";
	static const char *const commits[] = { "prb_commit", "prb_final_commit" };
	unsigned int i;
	int err;

	kprint_bridge_store_ip = kprint_bridge_lookup(target);
	for (i = 0; i < ARRAY_SIZE(kprint_bridge_commit_ips); i++)
		kprint_bridge_commit_ips[i] = kprint_bridge_lookup(commits[i]);
	if (!kprint_bridge_store_ip || !kprint_bridge_commit_ips[0] ||
	    !kprint_bridge_commit_ips[1])
		return -ENOENT;
	kprint_bridge_store_range();
	err = ftrace_set_filter_ip(&kprint_bridge_ops, kprint_bridge_store_ip,
				   0, 1);
	for (i = 0; !err && i < ARRAY_SIZE(kprint_bridge_commit_ips); i++)
		err = ftrace_set_filter_ip(&kprint_bridge_ops,
					   kprint_bridge_commit_ips[i], 0, 0);
	if (err) {
		ftrace_free_filter(&kprint_bridge_ops);
		return err;
	}
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
	return 0;
}

/*
 * Turns the hook on, if the parameter says so, and sets @backlog_end to
 * where the backlog ends: printk's next seq once every later record is
 * taken live.
 */
static int kprint_bridge_start(u64 *backlog_end)
{
	int err = 0;

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
			goto out;
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
		*backlog_end = kprint_bridge_backlog_end();
		WRITE_ONCE(kprint_bridge_load_end, *backlog_end);
		if (*backlog_end)
			kprint_bridge_turn_start(*backlog_end);
	}
out:
	mutex_unlock(&kprint_bridge_mutex);
	return err;
}

/**
 * kprint_bridge_init() - set the hook up, turn it on, take the backlog
 *
 * Context: Process context (module init), once kprint runs.
 * Return: 0 or a negative errno.
 */
int kprint_bridge_init(void)
{
	u64 backlog_end = 0;
	int err;

	err = kprint_bridge_alloc();
	if (err)
		return err;
	err = kprint_bridge_filter();
	if (err)
		goto err_free;
	err = register_module_notifier(&kprint_bridge_module_nb);
	if (err)
		goto err_filter;
	err = kprint_bridge_start(&backlog_end);
	if (err)
		goto err_notifier;

	if (READ_ONCE(kprint_bridge_loading))
		kprint_bridge_backlog(backlog_end);
	WRITE_ONCE(kprint_bridge_loading, false);
	return 0;

err_notifier:
	unregister_module_notifier(&kprint_bridge_module_nb);
err_filter:
	ftrace_free_filter(&kprint_bridge_ops);
err_free:
	kprint_bridge_free();
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
	kprint_bridge_free();
}
