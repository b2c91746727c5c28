// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: kprint_printk_test - known printk() calls, for the printk bridge's tests
 *
 * kprint.ko's printk bridge turns every printk() of the kernel into a kprint
 * record.  This module makes printk calls whose every field is known
 * beforehand, so that tests/e2e/bridge-*.{py,sh} can compare each bridged
 * record with what it should be and with what /dev/kmsg shows.  It does not
 * use kprint at all (it loads without kprint.ko): it is a plain printk user,
 * like any driver.
 *
 * Every trigger is a write-only parameter for root, and works synchronously:
 * the write returns once its messages are in printk's ring.  Writing N:
 *
 *   table        the table of kprint_printk_test_table.h, N times: printk()
 *                and pr_*() calls covering every conversion kprint's own
 *                table covers
 *   dev          N times dev_info(), dev_err(), dev_warn() on the platform
 *                device "kprint_printk_test" this module registers
 *                (SUBSYSTEM=platform, DEVICE=+platform:kprint_printk_test)
 *   cont         N pr_cont() lines from each of two kthreads bound to CPUs
 *                0 and 1, taking turns in a fixed order so that their
 *                fragments interleave, sometimes back to back
 *   ratelimited  N printk_ratelimited() calls in one burst from a fresh call
 *                site (KPPT_RL_SITES of them, one per write: -ENOSPC after),
 *                which prints the first DEFAULT_RATELIMIT_BURST and
 *                suppresses the rest, exactly; -ETIME if the burst outlasted
 *                the interval
 *   rl_burst     N calls of printk_ratelimited()'s own expansion on one
 *                state, reset first (burst DEFAULT_RATELIMIT_BURST): the
 *                calls ___ratelimit() refused, by its return value, are
 *                then in the read-only parameter rl_suppressed, the state's
 *                own count in rl_missed, the caller's function name (the
 *                func ___ratelimit() got) in rl_function; -ETIME if the
 *                burst outlasted the interval
 *   deferred     N times the printk_deferred() path with interrupts off:
 *                vprintk_emit(LOGLEVEL_SCHED), what printk_deferred() does
 *                (_printk_deferred itself is not exported), with a level and
 *                without; then one "callbacks suppressed" message, which lib/
 *                ratelimit.c prints with the real printk_deferred()
 *   hexdump      N times two print_hex_dump()s, whose level reaches printk
 *                as a "%s" argument
 *   cont_race    on each online CPU at once, N lines "cont_race cpu %u n
 *                %u:" (err on even CPUs, notice on odd) continued by " f0",
 *                " f1", " f2" and " end" with pr_cont(); the CPUs begin
 *                each line together (waiting at most 100 ms for each other)
 *   cont_long    on each online CPU at once, N lines "cont_long cpu %u n
 *                %u:" continued by 16 fragments of 100 bytes and " end":
 *                longer than printk keeps in one record
 *   recurse      one printk() whose "%pfwP" argument prints the next
 *                level's message while printk renders it, N levels deep
 *                (printk refuses the fifth), then "recurse done"
 *   flood_cpus   on each online CPU at once, N printk()s
 *                "kprint_printk_test flood cpu %u n %u", with a 1 ms pause
 *                every flood_pause_every lines (0, the default: none);
 *                writing 1 to <debugfs>/kprint_printk_test/flood_stop ends
 *                a running flood early (a parameter cannot: a running
 *                write holds the module's parameter lock)
 *
 * The expected record of every call site is in debugfs,
 * <debugfs>/kprint_printk_test/expected: one JSON object a line, with the
 * trigger, the format (as the bridge must report it: pr_fmt prefix kept,
 * level prefix and trailing newline removed), the rendered args (or regexes
 * for the values that cannot be known beforehand), the level, the module,
 * the function making the call, subsystem, device and the prefix dev_*()
 * put before the text.  The tests read their expectations from there only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fwnode.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/platform_device.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <uapi/linux/kprint.h>

/* Bounds a single write, so a typo cannot wedge the machine. */
#define KPPT_MAX_N		1000000

/*
 * The functions making the calls: their names are what the bridge must
 * report as the record's function, so the compiler may neither inline nor
 * clone them (a clone is named "fn.constprop.0").
 */
#define KPPT_CALLER		noinline __attribute__((__noipa__))

/*
 * After the last call of a function: a call in tail position becomes a
 * jump, and the stack then names the caller's caller as the printk's.
 * (GCC may still move a printk, which is __cold, into "fn.cold": %pS names
 * that, and so must the bridge.)
 */
#define kppt_no_tail_call()	barrier()

/* A function of this module, for %pS and %ps. */
KPPT_CALLER void kppt_marker(void);
KPPT_CALLER void kppt_marker(void)
{
	barrier();
}

static const u8 kppt_ip4[4] = { 192, 0, 2, 1 };
static const u8 kppt_ip6[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
};
static const u8 kppt_mac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const u8 kppt_uuid[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
#define KPPT_ESCAPE "tab\there \"quote\" back\\slash caf\xc3\xa9 ctl\x01" "end"
static const char kppt_escape[] = KPPT_ESCAPE;

/* 300 characters: longer than a kprint arg may be (KPRINT_ARG_MAX - 1). */
#define KPPT_LONG_LEN		300
static char kppt_long[KPPT_LONG_LEN + 1];
static char kppt_long_cut[KPRINT_ARG_MAX];
static const char *kppt_long_cut_args[] = { kppt_long_cut };

/* A NULL the compiler cannot see, so that it does not warn about %s. */
static const char *volatile kppt_null;

static struct platform_device *kppt_pdev;

/**
 * struct kppt_expect - what the bridge must make of one call site
 * @trigger: the parameter whose write makes the call
 * @index: the entry's number within its trigger
 * @call: how the call is made (printk, pr_info, dev_err, ...)
 * @level: the level printk stores, "default" for default_message_loglevel,
 *	"cont" for a pr_cont() fragment (the level of the line it joins)
 * @format: the format the record must carry
 * @args: the rendered args, or with @args_re regexes they must match fully;
 *	NULL: they vary with the call (cont, flood: the test knows how)
 * @nargs: how many
 * @args_re: @args are regexes
 * @truncated: the record must be flagged truncated
 * @module: the module the call is made from
 * @function: the function making the call (the record's function is
 *	this name followed by "+0xOFF/0xSIZE")
 * @dev: a dev_*() call on kppt_pdev: subsystem, device, text prefix
 */
struct kppt_expect {
	const char *trigger;
	int index;
	const char *call;
	const char *level;
	const char *format;
	const char *const *args;
	unsigned int nargs;
	bool args_re;
	bool truncated;
	const char *module;
	const char *function;
	bool dev;
};

#define KPPT_ARGS(...)							\
	.args = (const char *const []){ __VA_ARGS__ },			\
	.nargs = sizeof((const char *const []){ __VA_ARGS__ }) / sizeof(char *)
#define KPPT_ARGS_RE(...) KPPT_ARGS(__VA_ARGS__), .args_re = true
#define KPPT_ARGS_LONG							\
	.args = kppt_long_cut_args, .nargs = 1, .truncated = true

/* The table's calls: kppt_<call>(format, args...). */
#define kppt_printk_emerg(fmt, ...)	printk(KERN_EMERG fmt "\n", ##__VA_ARGS__)
#define kppt_printk_alert(fmt, ...)	printk(KERN_ALERT fmt "\n", ##__VA_ARGS__)
#define kppt_printk_crit(fmt, ...)	printk(KERN_CRIT fmt "\n", ##__VA_ARGS__)
#define kppt_printk_debug(fmt, ...)	printk(KERN_DEBUG fmt "\n", ##__VA_ARGS__)
#define kppt_printk(fmt, ...)		printk(fmt "\n", ##__VA_ARGS__)
#define kppt_printk_kdefault(fmt, ...)	printk(KERN_DEFAULT fmt "\n", ##__VA_ARGS__)
#define kppt_pr_err(fmt, ...)		pr_err(fmt "\n", ##__VA_ARGS__)
#define kppt_pr_warn(fmt, ...)		pr_warn(fmt "\n", ##__VA_ARGS__)
#define kppt_pr_notice(fmt, ...)	pr_notice(fmt "\n", ##__VA_ARGS__)
#define kppt_pr_info(fmt, ...)		pr_info(fmt "\n", ##__VA_ARGS__)
#define kppt_pr_info_nonl(fmt, ...)	pr_info(fmt, ##__VA_ARGS__)
/* The format each call reaches printk with, as the bridge must report it. */
#define KPPT_FMT_printk_emerg(fmt)	fmt
#define KPPT_FMT_printk_alert(fmt)	fmt
#define KPPT_FMT_printk_crit(fmt)	fmt
#define KPPT_FMT_printk_debug(fmt)	fmt
#define KPPT_FMT_printk(fmt)		fmt
#define KPPT_FMT_printk_kdefault(fmt)	fmt
#define KPPT_FMT_pr_err(fmt)		pr_fmt(fmt)
#define KPPT_FMT_pr_warn(fmt)		pr_fmt(fmt)
#define KPPT_FMT_pr_notice(fmt)		pr_fmt(fmt)
#define KPPT_FMT_pr_info(fmt)		pr_fmt(fmt)
#define KPPT_FMT_pr_info_nonl(fmt)	pr_fmt(fmt)
#define KPPT_FMT_pv_info(fmt)		pr_fmt(fmt)

/* Entry 35's format, a %pV whose inner format and args follow it. */
#define KPPT_PV_FMT		"pV <%pV>"

__printf(1, 2)
static KPPT_CALLER void kppt_pv(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info(KPPT_PV_FMT "\n", &vaf);
	va_end(args);
}

/* kppt_pv_info's format argument is the inner one: skip the outer. */
#undef kppt_pv_info
#define kppt_pv_info(fmt, ...)		kppt_pv(__VA_ARGS__)

static KPPT_CALLER void kppt_table_one(int i)
{
	switch (i) {
#define KPPT_X(idx, call, lvl, fmt, exp, ...)				\
	case idx:							\
		kppt_##call(fmt, ##__VA_ARGS__);			\
		break;
#include "kprint_printk_test_table.h"
#undef KPPT_X
	}
	kppt_no_tail_call();
}

#define KPPT_X(idx, call, lvl, fmt, exp, ...)	+ 1
enum { KPPT_TABLE_NR = 0
#include "kprint_printk_test_table.h"
};
#undef KPPT_X

/* dev_*(): the caller's own format is what the bridge must report. */
#define KPPT_DEV_NR		3
static KPPT_CALLER void kppt_dev_one(int i)
{
	struct device *dev = &kppt_pdev->dev;

	switch (i) {
	case 0:
		dev_info(dev, "dev info %d %s\n", 7, "seven");
		break;
	case 1:
		dev_err(dev, "dev err %#x <%pI4>\n", 16, kppt_ip4);
		break;
	case 2:
		dev_warn(dev, "dev warn no args\n");
		break;
	}
	kppt_no_tail_call();
}

#define KPPT_DEFERRED_NR	2
static KPPT_CALLER __printf(1, 2)
void kppt_printk_deferred(const char *fmt, ...)
{
	va_list args;

	/* What printk_deferred() does: vprintk_deferred() is this call. */
	va_start(args, fmt);
	vprintk_emit(0, LOGLEVEL_SCHED, NULL, fmt, args);
	va_end(args);
}

/* One call let through in 100 ms, for "callbacks suppressed". */
static DEFINE_RATELIMIT_STATE(kppt_deferred_rs, HZ / 10, 1);

static int kppt_get_n(const char *val, unsigned int *n)
{
	int err = kstrtouint(val, 0, n);

	if (err)
		return err;
	return *n > KPPT_MAX_N ? -ERANGE : 0;
}

static int kppt_set_table(const char *val, const struct kernel_param *kp)
{
	unsigned int n, r;
	int err, i;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	for (r = 0; r < n; r++) {
		for (i = 0; i < KPPT_TABLE_NR; i++)
			kppt_table_one(i);
		cond_resched();
	}
	return 0;
}

static int kppt_set_dev(const char *val, const struct kernel_param *kp)
{
	unsigned int n, r;
	int err, i;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	for (r = 0; r < n; r++) {
		for (i = 0; i < KPPT_DEV_NR; i++)
			kppt_dev_one(i);
		cond_resched();
	}
	return 0;
}

static KPPT_CALLER int kppt_set_deferred(const char *val,
					 const struct kernel_param *kp)
{
	unsigned long flags, end;
	unsigned int n, r;
	int err;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	for (r = 0; r < n; r++) {
		/* printk_deferred()'s callers hold scheduler locks, irqs off. */
		local_irq_save(flags);
		kppt_printk_deferred(KERN_INFO pr_fmt("deferred %u\n"), r);
		kppt_printk_deferred(pr_fmt("deferred default %u\n"), r);
		local_irq_restore(flags);
		cond_resched();
	}

	/*
	 * One let through, one suppressed (again if an interval ended between
	 * the two), then, once the interval is over, the next call makes
	 * lib/ratelimit.c printk_deferred() "kppt_set_deferred: 1 callbacks
	 * suppressed".  Writes are serialised by the param lock.
	 */
	end = jiffies + 10 * HZ;
	do {
		if (time_after(jiffies, end))
			return -ETIME;
		kppt_deferred_rs.begin = 0;
		kppt_deferred_rs.printed = 0;
		kppt_deferred_rs.missed = 0;
		__ratelimit(&kppt_deferred_rs);
		__ratelimit(&kppt_deferred_rs);
	} while (kppt_deferred_rs.missed != 1);
	while (!time_is_before_jiffies(kppt_deferred_rs.begin +
				       kppt_deferred_rs.interval)) {
		if (time_after(jiffies, end))
			return -ETIME;
		schedule_timeout_uninterruptible(1);
	}
	__ratelimit(&kppt_deferred_rs);
	return 0;
}

/* Two dumps: 40 bytes with offsets and ASCII (3 lines), 8 bare (1). */
#define KPPT_HEX_LEN		40
#define KPPT_HEX_SHORT		8
static u8 kppt_hex[KPPT_HEX_LEN];
/* What print_hex_dump() passes printk after the level and prefix. */
static char kppt_hex_lines[4][80];
static char kppt_hex_offsets[3][9];

/* print_hex_dump() only passes the message on: the caller is the record's. */
static KPPT_CALLER int kppt_set_hexdump(const char *val,
					const struct kernel_param *kp)
{
	unsigned int n, r;
	int err;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	for (r = 0; r < n; r++) {
		print_hex_dump(KERN_INFO, "kprint_printk_test hex: ",
			       DUMP_PREFIX_OFFSET, 16, 1, kppt_hex, KPPT_HEX_LEN,
			       true);
		print_hex_dump(KERN_ERR, "kprint_printk_test hex bare: ",
			       DUMP_PREFIX_NONE, 16, 1, kppt_hex, KPPT_HEX_SHORT,
			       false);
		cond_resched();
	}
	return 0;
}

/*
 * printk_ratelimited() keeps its state in a static of its call site, which
 * nothing can reset: each write takes a call site of its own, so that each
 * burst starts from a fresh state and its suppressed count is exact.
 */
#define KPPT_RL_SITES		4
static unsigned int kppt_rl_used;

static KPPT_CALLER int kppt_set_ratelimited(const char *val,
					    const struct kernel_param *kp)
{
	unsigned int n, i, site;
	unsigned long start;
	int err;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	/* Parameter writes are serialised (the param lock). */
	if (kppt_rl_used >= KPPT_RL_SITES)
		return -ENOSPC;
	site = kppt_rl_used++;
	start = jiffies;
	for (i = 0; i < n; i++) {
		switch (site) {
		case 0:
			pr_info_ratelimited("ratelimited %u of burst %u\n", i, site);
			break;
		case 1:
			pr_info_ratelimited("ratelimited %u of burst %u\n", i, site);
			break;
		case 2:
			pr_info_ratelimited("ratelimited %u of burst %u\n", i, site);
			break;
		case 3:
			pr_info_ratelimited("ratelimited %u of burst %u\n", i, site);
			break;
		}
	}
	/* The whole burst within one interval, or the count is not exact. */
	if (time_after_eq(jiffies, start + DEFAULT_RATELIMIT_INTERVAL))
		return -ETIME;
	return 0;
}

/*
 * printk_ratelimited() expanded (include/linux/printk.h), on a state of our
 * own that each write resets, so that which calls ___ratelimit() refused is
 * known exactly: by its return value, which also counts a call refused
 * because the state's lock was taken (not in the state's missed).
 */
static struct ratelimit_state kppt_rl_burst_rs;
static unsigned int kppt_rl_refused;
static unsigned int kppt_rl_missed;
static char *kppt_rl_function = "";
module_param_named(rl_suppressed, kppt_rl_refused, uint, 0444);
MODULE_PARM_DESC(rl_suppressed, "Calls the last rl_burst write had refused by ___ratelimit()");
module_param_named(rl_missed, kppt_rl_missed, uint, 0444);
MODULE_PARM_DESC(rl_missed, "The rl_burst state's own count of refused calls (missed)");
module_param_named(rl_function, kppt_rl_function, charp, 0444);
MODULE_PARM_DESC(rl_function, "The function name rl_burst passes to ___ratelimit()");

static KPPT_CALLER int kppt_set_rl_burst(const char *val,
					 const struct kernel_param *kp)
{
	unsigned int n, i, suppressed = 0;
	unsigned long start;
	int err;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	/* Parameter writes are serialised (the param lock). */
	ratelimit_state_init(&kppt_rl_burst_rs, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	start = jiffies;
	for (i = 0; i < n; i++) {
		if (__ratelimit(&kppt_rl_burst_rs))
			pr_info("rl_burst %u\n", i);
		else
			suppressed++;
	}
	if (time_after_eq(jiffies, start + DEFAULT_RATELIMIT_INTERVAL))
		return -ETIME;
	kppt_rl_refused = suppressed;
	kppt_rl_missed = kppt_rl_burst_rs.missed;
	kppt_rl_function = (char *)__func__;
	return 0;
}

/*
 * pr_cont() from two CPUs: thread t (bound to CPU t) prints, per line,
 * "cont t<t> line <l>:", KPPT_CONT_FRAGS fragments " t<t>.<j>" and
 * " t<t> end\n".  The steps of both threads run in one global order
 * (kppt_cont.owner[step]: whose step it is), fixed beforehand from a
 * pseudo-random sequence, so that fragments of the two lines interleave in
 * printk's ring, sometimes alternating, sometimes back to back (which the
 * ring merges into one record).
 */
#define KPPT_CONT_FRAGS		3
#define KPPT_CONT_STEPS		(KPPT_CONT_FRAGS + 2)	/* per line */
#define KPPT_CONT_MAX_LINES	1000

struct kppt_cont_state {
	u8 *owner;
	unsigned int steps;
	unsigned int lines;
	atomic_t step;
	atomic_t failed;
	struct completion done[2];
};
static struct kppt_cont_state kppt_cont;

/* Waits for step @s to be thread @t's: false on timeout (then gives up). */
static bool kppt_cont_wait_turn(unsigned int t, unsigned int s)
{
	unsigned long end = jiffies + 10 * HZ;

	while (atomic_read_acquire(&kppt_cont.step) != s) {
		if (atomic_read(&kppt_cont.failed) || time_after(jiffies, end)) {
			atomic_set(&kppt_cont.failed, 1);
			return false;
		}
		cond_resched();
		cpu_relax();
	}
	return kppt_cont.owner[s] == t;
}

static KPPT_CALLER int kppt_cont_thread(void *data)
{
	unsigned int t = (uintptr_t)data, s, l = 0, k = 0;

	for (s = 0; s < kppt_cont.steps; s++) {
		if (kppt_cont.owner[s] != t)
			continue;
		if (!kppt_cont_wait_turn(t, s))
			break;
		if (k == 0)
			pr_info("cont t%u line %u:", t, l);
		else if (k <= KPPT_CONT_FRAGS)
			pr_cont(" t%u.%u", t, k - 1);
		else
			pr_cont(" t%u end\n", t);
		if (++k == KPPT_CONT_STEPS) {
			k = 0;
			l++;
		}
		atomic_set_release(&kppt_cont.step, s + 1);
	}
	complete(&kppt_cont.done[t]);
	/* kthread_stop() reaps us: the module cannot go before. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int kppt_set_cont(const char *val, const struct kernel_param *kp)
{
	struct task_struct *task[2];
	unsigned int n, s, left[2], t;
	u32 rnd = 0x9e3779b9;
	int err, i;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	if (n > KPPT_CONT_MAX_LINES)
		return -ERANGE;
	if (!cpu_online(0) || !cpu_online(1))
		return -ENODEV;

	kppt_cont.lines = n;
	kppt_cont.steps = 2 * n * KPPT_CONT_STEPS;
	kppt_cont.owner = kmalloc(max(kppt_cont.steps, 1U), GFP_KERNEL);
	if (!kppt_cont.owner)
		return -ENOMEM;
	left[0] = left[1] = n * KPPT_CONT_STEPS;
	for (s = 0; s < kppt_cont.steps; s++) {
		/* A fixed xorshift: the same interleaving on every run. */
		rnd ^= rnd << 13;
		rnd ^= rnd >> 17;
		rnd ^= rnd << 5;
		t = !left[0] ? 1 : !left[1] ? 0 : rnd & 1;
		kppt_cont.owner[s] = t;
		left[t]--;
	}
	atomic_set(&kppt_cont.step, 0);
	atomic_set(&kppt_cont.failed, 0);

	for (i = 0; i < 2; i++) {
		init_completion(&kppt_cont.done[i]);
		task[i] = kthread_create(kppt_cont_thread, (void *)(uintptr_t)i,
					 "kppt_cont/%d", i);
		if (IS_ERR(task[i])) {
			err = PTR_ERR(task[i]);
			goto stop;
		}
		kthread_bind(task[i], i);
	}
	for (i = 0; i < 2; i++)
		wake_up_process(task[i]);
	for (i = 0; i < 2; i++)
		wait_for_completion(&kppt_cont.done[i]);
	err = atomic_read(&kppt_cont.failed) ? -ETIMEDOUT : 0;
	i = 2;
stop:
	while (--i >= 0)
		kthread_stop(task[i]);
	kfree(kppt_cont.owner);
	kppt_cont.owner = NULL;
	return err;
}

/* The flood: N lines on every online CPU at once. */
static unsigned int kppt_flood_pause_every;
module_param_named(flood_pause_every, kppt_flood_pause_every, uint, 0600);
MODULE_PARM_DESC(flood_pause_every,
		 "flood_cpus pauses 1 ms after every that many lines (0: never)");
static bool kppt_flood_stop;

/* What each CPU prints: flood_cpus's lines, or cont_race's, cont_long's. */
enum kppt_flood_kind { KPPT_FLOOD, KPPT_CONT_RACE, KPPT_CONT_LONG };

struct kppt_flood_work {
	struct work_struct work;
	enum kppt_flood_kind kind;
	unsigned int cpu;
	unsigned int n;
	atomic_t *running;
	struct completion *done;
	/* cont_race: the lines begun on every CPU, and how many CPUs there are. */
	atomic_t *begun;
	unsigned int ncpus;
};

/*
 * cont_race's CPUs begin each line together: without that, an emulated
 * machine that runs one virtual CPU at a time for milliseconds has each
 * print all its lines before the other starts, and nothing races.  The
 * wait is bounded, so that a CPU kept away only makes the race weaker;
 * cpu_relax() lets an emulator run the other CPU meanwhile.
 */
static void kppt_cont_race_begin(struct kppt_flood_work *w, unsigned int i)
{
	u64 until = ktime_get_mono_fast_ns() + 100 * NSEC_PER_MSEC;
	int want = (i + 1) * w->ncpus;

	atomic_inc(w->begun);
	while (atomic_read(w->begun) < want && !READ_ONCE(kppt_flood_stop) &&
	       ktime_get_mono_fast_ns() < until)
		cpu_relax();
}

/*
 * A line begun with a level of its CPU's own (err on even CPUs, notice on
 * odd ones, neither the default) and continued by three fragments without
 * one, as the other CPU does the same: printk appends a fragment to its
 * line only while no other caller's record came in between, and then
 * keeps the line's level; else the fragment is a record of its own, at
 * the default level.
 */
static KPPT_CALLER void kppt_cont_race_line(unsigned int cpu, unsigned int i)
{
	unsigned int j;

	if (cpu & 1)
		pr_notice("cont_race cpu %u n %u:", cpu, i);
	else
		pr_err("cont_race cpu %u n %u:", cpu, i);
	for (j = 0; j < 3; j++)
		pr_cont(" f%u", j);
	pr_cont(" end\n");
}

/*
 * A line continued past what printk keeps in one record (LOG_LINE_MAX,
 * 6.12's PRINTKRB_RECORD_MAX): printk appends fragments until the next
 * one would not fit, and stores that one as a record of its own.
 */
static KPPT_CALLER void kppt_cont_long_line(unsigned int cpu, unsigned int i)
{
	static const char chunk[] = "abcdefghijklmnopqrstuvwxyz0123456789"
				    "abcdefghijklmnopqrstuvwxyz0123456789"
				    "abcdefghijklmnopqrstuvwxyz";
	unsigned int j;

	pr_notice("cont_long cpu %u n %u:", cpu, i);
	for (j = 0; j < 16; j++)
		pr_cont(" %02u.%.*s", j, 96, chunk);
	pr_cont(" end\n");
}

static KPPT_CALLER void kppt_flood_fn(struct work_struct *work)
{
	struct kppt_flood_work *w = container_of(work, struct kppt_flood_work, work);
	unsigned int pause = READ_ONCE(kppt_flood_pause_every), i;

	for (i = 0; i < w->n && !READ_ONCE(kppt_flood_stop); i++) {
		if (w->kind == KPPT_CONT_RACE) {
			kppt_cont_race_begin(w, i);
			kppt_cont_race_line(w->cpu, i);
		} else if (w->kind == KPPT_CONT_LONG) {
			kppt_cont_long_line(w->cpu, i);
		} else {
			printk(KERN_INFO "kprint_printk_test flood cpu %u n %u\n", w->cpu, i);
		}
		if (pause && i % pause == pause - 1)
			usleep_range(1000, 1100);	/* pacing, not waiting */
		else if (!(i % 256))
			cond_resched();
	}
	if (atomic_dec_and_test(w->running))
		complete(w->done);
}

static int kppt_run_cpus(const char *val, enum kppt_flood_kind kind)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct kppt_flood_work *works;
	atomic_t running = ATOMIC_INIT(1), begun = ATOMIC_INIT(0);
	unsigned int n, cpu, ncpus;
	int err;

	/* Any length: flood_stop ends it. */
	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	works = kcalloc(nr_cpu_ids, sizeof(*works), GFP_KERNEL);
	if (!works)
		return -ENOMEM;
	WRITE_ONCE(kppt_flood_stop, false);
	/* Queue everywhere first, then wait: the CPUs really overlap. */
	cpus_read_lock();
	ncpus = num_online_cpus();
	for_each_online_cpu(cpu) {
		INIT_WORK(&works[cpu].work, kppt_flood_fn);
		works[cpu].kind = kind;
		works[cpu].cpu = cpu;
		works[cpu].n = n;
		works[cpu].running = &running;
		works[cpu].done = &done;
		works[cpu].begun = &begun;
		works[cpu].ncpus = ncpus;
		atomic_inc(&running);
		queue_work_on(cpu, system_highpri_wq, &works[cpu].work);
	}
	/*
	 * A flood may run for minutes: wait a second at a time, which the
	 * hung task detector does not take for a task stuck in D state.
	 */
	if (!atomic_dec_and_test(&running))
		while (!wait_for_completion_timeout(&done, HZ))
			;
	for_each_online_cpu(cpu)
		flush_work(&works[cpu].work);
	cpus_read_unlock();
	kfree(works);
	return 0;
}

static int kppt_set_flood_cpus(const char *val, const struct kernel_param *kp)
{
	return kppt_run_cpus(val, KPPT_FLOOD);
}

static int kppt_set_cont_race(const char *val, const struct kernel_param *kp)
{
	return kppt_run_cpus(val, KPPT_CONT_RACE);
}

static int kppt_set_cont_long(const char *val, const struct kernel_param *kp)
{
	return kppt_run_cpus(val, KPPT_CONT_LONG);
}

/*
 * A line left open across a load of kprint.ko: 1 begins it, 2 ends it,
 * from the writer's task (printk's caller id), so that printk appends the
 * end unless a record came in between.
 */
static int kppt_set_cont_open(const char *val, const struct kernel_param *kp)
{
	unsigned int step;
	int err = kstrtouint(val, 0, &step);

	if (err)
		return err;
	if (step == 1)
		pr_info("cont_open begin");
	else if (step == 2)
		pr_cont(" cont_open end\n");
	else
		return -EINVAL;
	return 0;
}

/*
 * A printk nested inside another printk's formatting: printk renders a
 * stored message's text with vscnprintf() after reserving its record, so a
 * kprobe there that prints (once, for the armed task) makes a message whose
 * record printk reserves after the outer one's and commits before it.
 */
static struct task_struct *kppt_nested_task;

static int kppt_nested_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (READ_ONCE(kppt_nested_task) == current) {
		WRITE_ONCE(kppt_nested_task, NULL);
		pr_info("nested inside printk\n");
	}
	return 0;
}

static struct kprobe kppt_nested_kp = {
	.symbol_name	= "vscnprintf",
	.pre_handler	= kppt_nested_pre,
};
static bool kppt_nested_registered;

static int kppt_set_nested(const char *val, const struct kernel_param *kp)
{
	unsigned int i, n;
	int err = kstrtouint(val, 0, &n);

	if (err)
		return err;
	if (!kppt_nested_registered) {
		err = register_kprobe(&kppt_nested_kp);
		if (err)
			return err;
		kppt_nested_registered = true;
	}
	for (i = 0; i < n; i++) {
		WRITE_ONCE(kppt_nested_task, current);
		pr_info("nested outer %u\n", i);
		WRITE_ONCE(kppt_nested_task, NULL);
	}
	return 0;
}

/*
 * printk nested in printk in the printing task itself: a firmware node
 * whose name callback prints.  "%pfwP" calls it each time a message is
 * formatted: the bridge's hook first, then printk measuring the text, then
 * printk rendering it into the record it reserved.  The third call prints
 * the next level's message, so printk reserves each inner message after
 * its outer one and commits it first, until its recursion limit refuses
 * one (PRINTK_MAX_RECURSION is 3: the fifth level).
 */
#define KPPT_RECURSE_MAX	8
#define KPPT_RECURSE_CALL	3

static struct task_struct *kppt_recurse_task;
static unsigned int kppt_recurse_depth, kppt_recurse_level;
static unsigned int kppt_recurse_calls[KPPT_RECURSE_MAX + 1];
static struct fwnode_handle kppt_recurse_node;

static const char *kppt_recurse_get_name(const struct fwnode_handle *fwnode)
{
	unsigned int lvl = kppt_recurse_level;

	if (READ_ONCE(kppt_recurse_task) != current)
		return "kppt";
	if (++kppt_recurse_calls[lvl] == KPPT_RECURSE_CALL &&
	    lvl < kppt_recurse_depth) {
		kppt_recurse_level = lvl + 1;
		kppt_recurse_calls[lvl + 1] = 0;
		pr_info("recurse level %u %pfwP\n", lvl + 1, fwnode);
		kppt_recurse_level = lvl;
	}
	return "kppt";
}

static const struct fwnode_operations kppt_recurse_fwnode_ops = {
	.get_name	= kppt_recurse_get_name,
};

static int kppt_set_recurse(const char *val, const struct kernel_param *kp)
{
	unsigned int depth;
	int err = kstrtouint(val, 0, &depth);

	if (err)
		return err;
	if (depth > KPPT_RECURSE_MAX)
		return -EINVAL;
	fwnode_init(&kppt_recurse_node, &kppt_recurse_fwnode_ops);
	kppt_recurse_depth = depth;
	kppt_recurse_level = 0;
	kppt_recurse_calls[0] = 0;
	WRITE_ONCE(kppt_recurse_task, current);
	pr_info("recurse level 0 %pfwP\n", &kppt_recurse_node);
	WRITE_ONCE(kppt_recurse_task, NULL);
	/* Pairs the refused message's slot at once, in this task. */
	pr_info("recurse done\n");
	return 0;
}

#define KPPT_PARAM(name, desc)						\
	static const struct kernel_param_ops kppt_##name##_ops = {	\
		.set = kppt_set_##name,					\
	};								\
	module_param_cb(name, &kppt_##name##_ops, NULL, 0200);		\
	MODULE_PARM_DESC(name, desc)

KPPT_PARAM(table, "Write N: make the printk table's calls N times");
KPPT_PARAM(dev, "Write N: dev_info/dev_err/dev_warn on the module's device, N times");
KPPT_PARAM(cont, "Write N: N pr_cont() lines from each of CPUs 0 and 1, interleaved");
KPPT_PARAM(ratelimited, "Write N: one burst of N printk_ratelimited() calls");
KPPT_PARAM(rl_burst, "Write N: N ___ratelimit() calls on a fresh state, burst 10; see rl_suppressed");
KPPT_PARAM(deferred, "Write N: the printk_deferred() path N times, irqs off");
KPPT_PARAM(hexdump, "Write N: two print_hex_dump()s, N times");
KPPT_PARAM(flood_cpus, "Write N: N printk()s on every online CPU at once");
KPPT_PARAM(cont_race, "Write N: N pr_cont() lines on every online CPU at once");
KPPT_PARAM(cont_long, "Write N: N pr_cont() lines longer than printk's record, every CPU");
KPPT_PARAM(cont_open, "Write 1: begin a line without its newline; 2: end it");
KPPT_PARAM(nested, "Write N: N printk()s, each with one printed inside its formatting");
KPPT_PARAM(recurse, "Write D: a printk() with D levels printed inside its formatting, in the task");

/* The expected table, as JSON lines. */
static const struct kppt_expect kppt_expected_table[] = {
#define KPPT_X(idx, call_, lvl, fmt, exp, ...)				\
	{ .trigger = "table", .index = idx, .call = #call_, .level = lvl, \
	  .format = KPPT_FMT_##call_(fmt), exp,				\
	  .module = KBUILD_MODNAME },
#include "kprint_printk_test_table.h"
#undef KPPT_X
};

static const char *const kppt_cont_args_re[] = { "[01]", "[0-9]+" };
static const char *const kppt_cont_end_re[] = { "[01]" };
static const char *const kppt_flood_re[] = { "[0-9]+", "[0-9]+" };
static const char *const kppt_rl_re[] = { "[0-9]", "[0-9]+" };
static const char *const kppt_deferred_re[] = { "[0-9]+" };
static const char *const kppt_rl_suppressed[] = { "kppt_set_deferred", "1" };
static const char *kppt_hex_args[4][4];

static const struct kppt_expect kppt_expected_other[] = {
	{ "dev", 0, "dev_info", "info", "dev info %d %s",
	  (const char *const []){ "7", "seven" }, 2, .function = "kppt_dev_one", .dev = true },
	{ "dev", 1, "dev_err", "err", "dev err %#x <%pI4>",
	  (const char *const []){ "0x10", "192.0.2.1" }, 2, .function = "kppt_dev_one", .dev = true },
	{ "dev", 2, "dev_warn", "warn", "dev warn no args",
	  NULL, 0, .function = "kppt_dev_one", .dev = true },
	{ "cont", 0, "pr_info", "info", pr_fmt("cont t%u line %u:"),
	  kppt_cont_args_re, 2, true, .function = "kppt_cont_thread" },
	{ "cont", 1, "pr_cont", "cont", " t%u.%u",
	  kppt_cont_args_re, 2, true, .function = "kppt_cont_thread" },
	{ "cont", 2, "pr_cont", "cont", " t%u end",
	  kppt_cont_end_re, 1, true, .function = "kppt_cont_thread" },
	{ "ratelimited", 0, "pr_info_ratelimited", "info", pr_fmt("ratelimited %u of burst %u"),
	  kppt_rl_re, 2, true, .function = "kppt_set_ratelimited" },
	{ "deferred", 0, "printk_deferred", "info", pr_fmt("deferred %u"),
	  kppt_deferred_re, 1, true, .function = "kppt_printk_deferred" },
	{ "deferred", 1, "printk_deferred", "default", pr_fmt("deferred default %u"),
	  kppt_deferred_re, 1, true, .function = "kppt_printk_deferred" },
	{ "deferred", 2, "printk_deferred", "warn", "%s: %d callbacks suppressed",
	  kppt_rl_suppressed, 2, .module = "vmlinux", .function = "___ratelimit" },
	{ "hexdump", 0, "print_hex_dump", "info", "%s%s%.8x: %s",
	  kppt_hex_args[0], 4, .function = "kppt_set_hexdump" },
	{ "hexdump", 1, "print_hex_dump", "info", "%s%s%.8x: %s",
	  kppt_hex_args[1], 4, .function = "kppt_set_hexdump" },
	{ "hexdump", 2, "print_hex_dump", "info", "%s%s%.8x: %s",
	  kppt_hex_args[2], 4, .function = "kppt_set_hexdump" },
	{ "hexdump", 3, "print_hex_dump", "err", "%s%s%s",
	  kppt_hex_args[3], 3, .function = "kppt_set_hexdump" },
	{ "flood_cpus", 0, "printk", "info", "kprint_printk_test flood cpu %u n %u",
	  kppt_flood_re, 2, true, .function = "kppt_flood_fn" },
};

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void kppt_json_str(struct seq_file *m, const char *s)
{
	seq_putc(m, '"');
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			seq_printf(m, "\\%c", c);
		else if (c < 0x20)
			seq_printf(m, "\\u%04x", c);
		else
			seq_putc(m, c);
	}
	seq_putc(m, '"');
}

static void kppt_json_field(struct seq_file *m, const char *key, const char *val)
{
	seq_printf(m, ", \"%s\": ", key);
	kppt_json_str(m, val);
}

static void kppt_show_one(struct seq_file *m, const struct kppt_expect *e)
{
	struct device *dev = &kppt_pdev->dev;
	unsigned int i;

	seq_printf(m, "{\"trigger\": \"%s\", \"index\": %d", e->trigger, e->index);
	kppt_json_field(m, "call", e->call);
	kppt_json_field(m, "level", e->level);
	kppt_json_field(m, "format", e->format);
	seq_printf(m, ", \"%s\": [", e->args_re ? "args_re" : "args");
	for (i = 0; i < e->nargs; i++) {
		if (i)
			seq_puts(m, ", ");
		kppt_json_str(m, e->args[i]);
	}
	seq_printf(m, "], \"truncated\": %s", e->truncated ? "true" : "false");
	kppt_json_field(m, "module", e->module ?: KBUILD_MODNAME);
	/* The table's calls are all in kppt_table_one(), but for %pV's. */
	kppt_json_field(m, "function", e->function ?:
			(!strcmp(e->call, "pv_info") ? "kppt_pv" : "kppt_table_one"));
	if (e->dev) {
		char prefix[128];

		kppt_json_field(m, "subsystem", dev->bus->name);
		snprintf(prefix, sizeof(prefix), "+%s:%s", dev->bus->name,
			 dev_name(dev));
		kppt_json_field(m, "device", prefix);
		snprintf(prefix, sizeof(prefix), "%s %s: ",
			 dev_driver_string(dev), dev_name(dev));
		kppt_json_field(m, "text_prefix", prefix);
	} else {
		kppt_json_field(m, "subsystem", "");
		kppt_json_field(m, "device", "");
		kppt_json_field(m, "text_prefix", "");
	}
	if (!strcmp(e->trigger, "ratelimited"))
		seq_printf(m, ", \"burst\": %d, \"interval_ms\": %u, \"sites\": %d",
			   DEFAULT_RATELIMIT_BURST,
			   jiffies_to_msecs(DEFAULT_RATELIMIT_INTERVAL),
			   KPPT_RL_SITES);
	if (!strcmp(e->trigger, "cont"))
		seq_printf(m, ", \"fragments\": %d", KPPT_CONT_FRAGS);
	seq_puts(m, "}\n");
}

static int kppt_expected_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kppt_expected_table); i++)
		kppt_show_one(m, &kppt_expected_table[i]);
	for (i = 0; i < ARRAY_SIZE(kppt_expected_other); i++)
		kppt_show_one(m, &kppt_expected_other[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kppt_expected);

static struct dentry *kppt_debugfs;

static void kppt_hex_init(void)
{
	unsigned int i, l;

	for (i = 0; i < KPPT_HEX_LEN; i++)
		kppt_hex[i] = 0x40 + i;	/* '@' 'A' ...: printable ASCII */
	for (l = 0; l < 3; l++) {
		unsigned int off = l * 16;

		hex_dump_to_buffer(kppt_hex + off, min(16U, KPPT_HEX_LEN - off),
				   16, 1, kppt_hex_lines[l],
				   sizeof(kppt_hex_lines[l]), true);
		snprintf(kppt_hex_offsets[l], sizeof(kppt_hex_offsets[l]),
			 "%.8x", off);
		kppt_hex_args[l][0] = KERN_INFO;
		kppt_hex_args[l][1] = "kprint_printk_test hex: ";
		kppt_hex_args[l][2] = kppt_hex_offsets[l];
		kppt_hex_args[l][3] = kppt_hex_lines[l];
	}
	hex_dump_to_buffer(kppt_hex, KPPT_HEX_SHORT, 16, 1, kppt_hex_lines[3],
			   sizeof(kppt_hex_lines[3]), false);
	kppt_hex_args[3][0] = KERN_ERR;
	kppt_hex_args[3][1] = "kprint_printk_test hex bare: ";
	kppt_hex_args[3][2] = kppt_hex_lines[3];
}

static int __init kppt_init(void)
{
	int i;

	for (i = 0; i < KPPT_LONG_LEN; i++)
		kppt_long[i] = 'a' + i % 26;
	memcpy(kppt_long_cut, kppt_long, sizeof(kppt_long_cut) - 1);
	kppt_hex_init();

	kppt_pdev = platform_device_register_simple(KBUILD_MODNAME, -1, NULL, 0);
	if (IS_ERR(kppt_pdev))
		return PTR_ERR(kppt_pdev);
	/* No debugfs is no error for the module, only for its tests. */
	kppt_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("expected", 0400, kppt_debugfs, NULL,
			    &kppt_expected_fops);
	debugfs_create_bool("flood_stop", 0200, kppt_debugfs, &kppt_flood_stop);
	return 0;
}

static void __exit kppt_exit(void)
{
	if (kppt_nested_registered)
		unregister_kprobe(&kppt_nested_kp);
	debugfs_remove(kppt_debugfs);
	platform_device_unregister(kppt_pdev);
}

module_init(kppt_init);
module_exit(kppt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprint: known printk() calls for the printk bridge's tests");
