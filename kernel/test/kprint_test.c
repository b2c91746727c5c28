// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_test: emits known kprint records on request, for the test suite.
 *
 * Every parameter below is write-only for root and works synchronously:
 * the write returns once the records are in the ring (and echoed to
 * printk).  Writing N:
 *
 *   emit        emits the whole table N times (one call site per entry)
 *   reference   for each table entry i, N times, printk()s at KERN_INFO
 *               "kprint_test ref <i>: " followed by the entry's format and
 *               arguments, through printk itself, to compare texts with
 *   flood       emits N records "kprint_test flood %u" (0 .. N-1)
 *   flood_cpus  on each online CPU at once, N records
 *               "kprint_test flood_cpus cpu %u n %u"
 *   block       flushes one block of N lines "kprint_test block line %u of %u"
 *   block_abort aborts one block of N lines "kprint_test aborted line %u of %u"
 *   clocks      on each online CPU at once, N + 1 records "kprint_test clock
 *               cpu %u n %u mono %llu real %llu" (n 0 .. N), the clocks read
 *               with ktime_get_ns() and ktime_get_real_ns() right before
 *               each call: record n's stamps lie between its clocks and
 *               those of record n + 1
 *   emit_irq    from hard interrupt context, N records "kprint_test irq %u"
 *               then a flushed block of N lines
 *               "kprint_test irq block line %u of %u"
 *   printk      N legacy printk()s "kprint_test legacy printk %d"
 *   canary      one WARN() "kprint_test canary N": a deliberate splat, for
 *               the test that proves tests/vm/suite charges a splat to the
 *               test during which it appeared (tests/e2e/own-guest/splat-canary.sh)
 *
 * steady takes RATE:SECONDS and emits RATE records a second,
 * "kprint_test steady %u" (0, 1, ...), evenly in 10 ms ticks, for SECONDS:
 * the offered load of the sustained-rate tests.
 *
 * table_size (read-only) is the number of table entries.
 */

#define KPRINT_SUBSYSTEM "kprint-test"

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kprint.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

/* Bounds a single write, so a typo cannot wedge the machine. */
#define KPRINT_TEST_MAX_N	1000000
#define KPRINT_TEST_MAX_IRQ_N	1000

/* A function of this module, for %pS and %ps. */
noinline void kprint_test_marker(void);
noinline void kprint_test_marker(void)
{
	barrier();
}

static const u8 kprint_test_ip4[4] = { 192, 0, 2, 1 };
static const u8 kprint_test_ip6[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
};
static const u8 kprint_test_mac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const u8 kprint_test_uuid[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
static const char kprint_test_escape[] =
	"tab\there \"quote\" back\\slash caf\xc3\xa9 ctl\x01" "end";

/* 300 characters: longer than an argument may be, shorter than a text. */
#define KPRINT_TEST_LONG_LEN	300
static char kprint_test_long[KPRINT_TEST_LONG_LEN + 1];

/* A NULL the compiler cannot see, so that it does not warn about %s. */
static const char *volatile kprint_test_null;

/*
 * The table itself is kprint_test_table.h, expanded twice below: once into
 * kprint calls, once into the matching printk calls.  Entry 36 uses %pV,
 * which needs a va_list of its own, so it is kprint_test_pv().
 */
#define KPRINT_TEST_PV		36
#define KPRINT_TEST_PV_FMT	"kprint_test pV <%pV>"
#define KPRINT_TEST_NR		43

static int kprint_test_table_size = KPRINT_TEST_NR;
module_param_named(table_size, kprint_test_table_size, int, 0444);
MODULE_PARM_DESC(table_size, "Number of entries in the emit table");

__printf(3, 4)
static void kprint_test_pv(int i, bool reference, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (reference)
		printk(KERN_INFO "kprint_test ref %d: " KPRINT_TEST_PV_FMT "\n",
		       i, &vaf);
	else
		kprint_info(KPRINT_TEST_PV_FMT, &vaf);
	va_end(args);
}

static void kprint_test_emit_one(int i)
{
	switch (i) {
#define KPRINT_TEST_X(idx, call, fmt, ...)				\
	case idx:							\
		call(fmt, ##__VA_ARGS__);				\
		break;
#include "kprint_test_table.h"
#undef KPRINT_TEST_X
	case KPRINT_TEST_PV:
		kprint_test_pv(i, false, "inner %d %s", 5, "five");
		break;
	}
}

static void kprint_test_reference_one(int i)
{
	switch (i) {
/*
 * A format that already ends in "\n" (entry 35) must not get a second one,
 * which printk would keep as an empty line; without any, the last line
 * would stay open for continuation and not show up in the log yet.  The
 * test is on a string literal, so the compiler keeps only one branch.
 */
#define KPRINT_TEST_X(idx, call, fmt, ...)				\
	case idx:							\
		if (fmt[sizeof(fmt) - 2] == '\n')			\
			printk(KERN_INFO "kprint_test ref %d: " fmt,	\
			       idx, ##__VA_ARGS__);			\
		else							\
			printk(KERN_INFO "kprint_test ref %d: " fmt "\n", \
			       idx, ##__VA_ARGS__);			\
		break;
#include "kprint_test_table.h"
#undef KPRINT_TEST_X
	case KPRINT_TEST_PV:
		kprint_test_pv(i, true, "inner %d %s", 5, "five");
		break;
	}
}

static int kprint_test_get_n(const char *val, unsigned int max,
			     unsigned int *n)
{
	int err = kstrtouint(val, 0, n);

	if (err)
		return err;
	return *n > max ? -ERANGE : 0;
}

/* Write N: run @one over the whole table, N times. */
static int kprint_test_repeat_table(const char *val, void (*one)(int i))
{
	unsigned int n, r;
	int err, i;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_N, &n);
	if (err)
		return err;
	for (r = 0; r < n; r++) {
		for (i = 0; i < KPRINT_TEST_NR; i++)
			one(i);
		cond_resched();
	}
	return 0;
}

static int kprint_test_set_emit(const char *val, const struct kernel_param *kp)
{
	return kprint_test_repeat_table(val, kprint_test_emit_one);
}

static int kprint_test_set_reference(const char *val,
				     const struct kernel_param *kp)
{
	return kprint_test_repeat_table(val, kprint_test_reference_one);
}

static int kprint_test_set_flood(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int err;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_N, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		kprint_info("kprint_test flood %u", i);
		if (!(i % 256))
			cond_resched();
	}
	return 0;
}

struct kprint_test_cpu_work {
	struct work_struct work;
	unsigned int cpu;
	unsigned int n;
	/* How many of the @cpus works have begun: the start line. */
	atomic_t *started;
	unsigned int cpus;
};

/*
 * Waits, at most a second, until every CPU's work has begun: a worker
 * woken late (a loaded host under emulation) could otherwise find the
 * others done, and their records would not interleave.
 */
static void kprint_test_start_line(struct kprint_test_cpu_work *w)
{
	u64 end = ktime_get_ns() + NSEC_PER_SEC;

	atomic_inc(w->started);
	while ((unsigned int)atomic_read(w->started) < w->cpus && ktime_get_ns() < end)
		cpu_relax();
}

static void kprint_test_flood_cpu_fn(struct work_struct *work)
{
	struct kprint_test_cpu_work *w =
		container_of(work, struct kprint_test_cpu_work, work);
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		kprint_info("kprint_test flood_cpus cpu %u n %u", w->cpu, i);
		if (!(i % 256))
			cond_resched();
	}
}

/*
 * A record's stamp must come right after its clocks.  Every 100 records
 * a short sleep: under QEMU's single-threaded TCG a vCPU runs up to 100
 * ms before the other gets a turn, long enough for all of one CPU's
 * records, and an idle vCPU hands the turn over at once.
 */
static void kprint_test_clocks_cpu_fn(struct work_struct *work)
{
	struct kprint_test_cpu_work *w =
		container_of(work, struct kprint_test_cpu_work, work);
	unsigned int i;

	kprint_test_start_line(w);
	for (i = 0; i <= w->n; i++) {
		kprint_info("kprint_test clock cpu %u n %u mono %llu real %llu",
			    w->cpu, i, ktime_get_ns(), ktime_get_real_ns());
		if (i % 100 == 99)
			usleep_range(50, 100);
	}
}

/* Runs @fn with the N of @val on every online CPU at once, waits for all. */
static int kprint_test_on_each_cpu(const char *val, work_func_t fn)
{
	struct kprint_test_cpu_work *works;
	atomic_t started = ATOMIC_INIT(0);
	unsigned int n, cpu;
	int err;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_N, &n);
	if (err)
		return err;

	works = kcalloc(nr_cpu_ids, sizeof(*works), GFP_KERNEL);
	if (!works)
		return -ENOMEM;

	/* Queue everywhere first, then wait: the emitters really overlap. */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		INIT_WORK(&works[cpu].work, fn);
		works[cpu].cpu = cpu;
		works[cpu].n = n;
		works[cpu].started = &started;
		works[cpu].cpus = num_online_cpus();
		queue_work_on(cpu, system_highpri_wq, &works[cpu].work);
	}
	for_each_online_cpu(cpu)
		flush_work(&works[cpu].work);
	cpus_read_unlock();

	kfree(works);
	return 0;
}

static int kprint_test_set_flood_cpus(const char *val,
				      const struct kernel_param *kp)
{
	return kprint_test_on_each_cpu(val, kprint_test_flood_cpu_fn);
}

static int kprint_test_set_clocks(const char *val,
				  const struct kernel_param *kp)
{
	return kprint_test_on_each_cpu(val, kprint_test_clocks_cpu_fn);
}

#define KPRINT_TEST_TICK_NS	(10 * NSEC_PER_MSEC)
#define KPRINT_TEST_MAX_RATE	10000000
#define KPRINT_TEST_MAX_SECONDS	3600

static int kprint_test_set_steady(const char *val, const struct kernel_param *kp)
{
	const unsigned int ticks_per_s = NSEC_PER_SEC / KPRINT_TEST_TICK_NS;
	unsigned int rate, seconds, t, i = 0;
	char buf[32], *colon;
	u64 start;
	int err;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	colon = strchr(strim(buf), ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	err = kprint_test_get_n(buf, KPRINT_TEST_MAX_RATE, &rate);
	if (!err)
		err = kprint_test_get_n(colon + 1, KPRINT_TEST_MAX_SECONDS, &seconds);
	if (err)
		return err;

	/*
	 * Each tick emits what is due by its end, counted from the start,
	 * so a late tick catches up and the total is exactly RATE*SECONDS.
	 */
	start = ktime_get_ns();
	for (t = 1; t <= seconds * ticks_per_s; t++) {
		u64 end = start + (u64)t * KPRINT_TEST_TICK_NS, now;
		u64 due = div_u64((u64)rate * t, ticks_per_s);

		for (; i < due; i++)
			kprint_info("kprint_test steady %u", i);
		if (signal_pending(current))
			return -EINTR;
		now = ktime_get_ns();
		if (now < end) {
			/* Pacing the offered load, not waiting for anything. */
			unsigned long us = div_u64(end - now, NSEC_PER_USEC);

			usleep_range_state(us, us + 100, TASK_INTERRUPTIBLE);
		} else {
			cond_resched();
		}
	}
	return 0;
}

static void kprint_test_block_lines(unsigned int n, bool abort)
{
	struct kprint_block blk;
	unsigned int i;

	kprint_block_init(&blk, KPRINT_LEVEL_INFO);
	for (i = 1; i <= n; i++) {
		if (abort)
			kprint_block(&blk, "kprint_test aborted line %u of %u",
				     i, n);
		else
			kprint_block(&blk, "kprint_test block line %u of %u",
				     i, n);
	}
	if (abort)
		kprint_block_abort(&blk);
	else
		kprint_block_flush(&blk);
}

static int kprint_test_set_block(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_N, &n);
	if (err)
		return err;
	kprint_test_block_lines(n, false);
	return 0;
}

static int kprint_test_set_block_abort(const char *val,
				       const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_N, &n);
	if (err)
		return err;
	kprint_test_block_lines(n, true);
	return 0;
}

static unsigned int kprint_test_irq_n;

static void kprint_test_irq_fn(struct irq_work *work)
{
	struct kprint_block blk;
	unsigned int i, n = kprint_test_irq_n;

	for (i = 0; i < n; i++)
		kprint_info("kprint_test irq %u", i);

	kprint_block_init(&blk, KPRINT_LEVEL_INFO);
	for (i = 1; i <= n; i++)
		kprint_block(&blk, "kprint_test irq block line %u of %u", i, n);
	kprint_block_flush(&blk);
}

/* IRQ_WORK_HARD_IRQ: run in hard interrupt context even on PREEMPT_RT. */
static struct irq_work kprint_test_irq_work =
	IRQ_WORK_INIT_HARD(kprint_test_irq_fn);

static int kprint_test_set_emit_irq(const char *val,
				    const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_IRQ_N, &n);
	if (err)
		return err;

	/* Parameter writes are serialised, so one irq_work is enough. */
	kprint_test_irq_n = n;
	irq_work_queue(&kprint_test_irq_work);
	irq_work_sync(&kprint_test_irq_work);
	return 0;
}

static int kprint_test_set_printk(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int n, i;
	int err;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_N, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		printk(KERN_INFO "kprint_test legacy printk %d\n", i);
		if (!(i % 256))
			cond_resched();
	}
	return 0;
}

static int kprint_test_set_canary(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kprint_test_get_n(val, KPRINT_TEST_MAX_N, &n);
	if (err)
		return err;
	WARN(1, "kprint_test canary %u\n", n);
	return 0;
}

#define KPRINT_TEST_PARAM(name, desc)					\
	static const struct kernel_param_ops kprint_test_##name##_ops = { \
		.set = kprint_test_set_##name,				\
	};								\
	module_param_cb(name, &kprint_test_##name##_ops, NULL, 0200);	\
	MODULE_PARM_DESC(name, desc)

KPRINT_TEST_PARAM(emit, "Write N: emit the whole table N times");
KPRINT_TEST_PARAM(reference,
		  "Write N: printk each table entry N times as \"kprint_test ref <i>: ...\"");
KPRINT_TEST_PARAM(flood, "Write N: emit N \"kprint_test flood %u\" records");
KPRINT_TEST_PARAM(flood_cpus,
		  "Write N: emit N records on every online CPU concurrently");
KPRINT_TEST_PARAM(clocks,
		  "Write N: on every online CPU at once, N + 1 records carrying the clocks read before each");
KPRINT_TEST_PARAM(block, "Write N: flush a block of N lines");
KPRINT_TEST_PARAM(block_abort, "Write N: abort a block of N lines");
KPRINT_TEST_PARAM(emit_irq,
		  "Write N: N records and a block of N lines from hard irq context");
KPRINT_TEST_PARAM(printk, "Write N: N legacy printk() calls");
KPRINT_TEST_PARAM(steady, "Write RATE:SECONDS: RATE records a second for SECONDS");
KPRINT_TEST_PARAM(canary, "Write N: WARN() once, a deliberate splat for the test harness");

static int __init kprint_test_init(void)
{
	int i;

	for (i = 0; i < KPRINT_TEST_LONG_LEN; i++)
		kprint_test_long[i] = 'a' + i % 26;
	return 0;
}

static void __exit kprint_test_exit(void)
{
	irq_work_sync(&kprint_test_irq_work);
}

module_init(kprint_test_init);
module_exit(kprint_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprint test records");
