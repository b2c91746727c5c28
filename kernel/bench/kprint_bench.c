// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_bench: times kprint_*() against printk() for `make bench`.
 *
 * Both loops run the same eight formats with the same arguments, one call
 * per iteration in turn, so the only difference between them is the API.
 * Writing MODE:N to the root-only parameter "run" makes N calls in the
 * writer's context and stores how long they took, in nanoseconds, in the
 * read-only parameter "last_ns":
 *
 *   kprint:N   kprint_info() of format i % 8 (a record, and its printk echo)
 *   printk:N   printk(KERN_INFO ...) of the same format and arguments
 *   clock:N    ktime_get_ns(), the clock read each record pays once
 *
 * "kprint:1" emits format 0 alone: the probe of the latency benchmark.
 * The formats are listed in "formats", one per line, so userspace counts
 * them (mtail's regexes, the exporter's series) without copying them.
 */

#define KPRINT_SUBSYSTEM "kprint-bench"

#include <linux/kernel.h>
#include <linux/jiffies.h>
#include <linux/kprint.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/string.h>

/* Enough for seconds of either loop, not enough to wedge the guest. */
#define KPRINT_BENCH_MAX_N	10000000

/* Messages in the style of real drivers: tags, numbers, strings, widths. */
#define KPRINT_BENCH_TABLE(X)						\
	X(0, "kprint_bench sd %u:0:0:0: [sda] %llu 512-byte logical blocks", \
	  i & 7, (unsigned long long)i << 3)				\
	X(1, "kprint_bench usb %d-%d: new high-speed USB device number %u using %s", \
	  1, 2, i, "xhci_hcd")						\
	X(2, "kprint_bench eth%d: link up, %u Mbps, %s duplex",	\
	  0, 1000u, "full")						\
	X(3, "kprint_bench EXT4-fs (%s): mounted filesystem %08x with ordered data mode", \
	  "vda1", i)							\
	X(4, "kprint_bench nvme%dn1: I/O %u QID %d timeout, aborting",	\
	  0, i, 3)							\
	X(5, "kprint_bench oom: task %s pid %d score %ld",		\
	  "worker", 4242, (long)i)					\
	X(6, "kprint_bench audit: op=%s res=%d seq=%u",			\
	  "load", 1, i)							\
	X(7, "kprint_bench cpu%u: temperature above threshold, clock throttled (total events = %lu)", \
	  1u, (unsigned long)i)

#define KPRINT_BENCH_NR	8

static DEFINE_MUTEX(kprint_bench_lock);

static unsigned long long kprint_bench_last_ns;
module_param_named(last_ns, kprint_bench_last_ns, ullong, 0444);
MODULE_PARM_DESC(last_ns, "Nanoseconds the last run took");

static noinline void kprint_bench_kprint(unsigned int i)
{
	switch (i % KPRINT_BENCH_NR) {
#define KPRINT_BENCH_X(idx, fmt, ...)					\
	case idx:							\
		kprint_info(fmt, __VA_ARGS__);				\
		break;
	KPRINT_BENCH_TABLE(KPRINT_BENCH_X)
#undef KPRINT_BENCH_X
	}
}

static noinline void kprint_bench_printk(unsigned int i)
{
	switch (i % KPRINT_BENCH_NR) {
#define KPRINT_BENCH_X(idx, fmt, ...)					\
	case idx:							\
		printk(KERN_INFO fmt "\n", __VA_ARGS__);		\
		break;
	KPRINT_BENCH_TABLE(KPRINT_BENCH_X)
#undef KPRINT_BENCH_X
	}
}

/*
 * What one record timestamp costs: kprint reads CLOCK_MONOTONIC once per
 * record, and where the clocksource is not the TSC (HPET under emulation)
 * that read is a device access, unlike printk's sched_clock().
 */
static noinline void kprint_bench_clock(unsigned int i)
{
	u64 t = ktime_get_ns();

	barrier_data(&t);
}

/*
 * What a BPF hook costs around the function it is on (B3): the bench
 * attaches an fentry that does nothing to jiffies_to_usecs() and times this
 * with and without it (tests/bench/hook_cost.bpf.c).
 */
static noinline void kprint_bench_hook(unsigned int i)
{
	unsigned int us = jiffies_to_usecs(i);

	barrier_data(&us);
}

static int kprint_bench_set_run(const char *val, const struct kernel_param *kp)
{
	void (*one)(unsigned int i);
	char buf[32], *colon;
	unsigned int n, i;
	u64 start, end;
	int err;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	colon = strchr(strim(buf), ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (!strcmp(buf, "kprint"))
		one = kprint_bench_kprint;
	else if (!strcmp(buf, "printk"))
		one = kprint_bench_printk;
	else if (!strcmp(buf, "clock"))
		one = kprint_bench_clock;
	else if (!strcmp(buf, "hook"))
		one = kprint_bench_hook;
	else
		return -EINVAL;
	err = kstrtouint(colon + 1, 10, &n);
	if (err)
		return err;
	if (!n || n > KPRINT_BENCH_MAX_N)
		return -ERANGE;

	mutex_lock(&kprint_bench_lock);
	start = ktime_get_ns();
	for (i = 0; i < n; i++) {
		one(i);
		/* The same in both loops, so it cancels out of the ratio. */
		if (!(i % 256))
			cond_resched();
	}
	end = ktime_get_ns();
	kprint_bench_last_ns = end - start;
	mutex_unlock(&kprint_bench_lock);
	return 0;
}

static const struct kernel_param_ops kprint_bench_run_ops = {
	.set = kprint_bench_set_run,
};
module_param_cb(run, &kprint_bench_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "kprint:N, printk:N, clock:N or hook:N: time N calls, see last_ns");

static const char *const kprint_bench_formats[KPRINT_BENCH_NR] = {
#define KPRINT_BENCH_X(idx, fmt, ...) [idx] = fmt,
	KPRINT_BENCH_TABLE(KPRINT_BENCH_X)
#undef KPRINT_BENCH_X
};

static int kprint_bench_get_formats(char *buf, const struct kernel_param *kp)
{
	int i, len = 0;

	for (i = 0; i < KPRINT_BENCH_NR; i++)
		len += sysfs_emit_at(buf, len, "%s\n", kprint_bench_formats[i]);
	return len;
}

static const struct kernel_param_ops kprint_bench_formats_ops = {
	.get = kprint_bench_get_formats,
};
module_param_cb(formats, &kprint_bench_formats_ops, NULL, 0444);
MODULE_PARM_DESC(formats, "The benchmark's formats, one per line");

MODULE_DESCRIPTION("kprint benchmark: kprint_*() against printk()");
MODULE_LICENSE("GPL");
