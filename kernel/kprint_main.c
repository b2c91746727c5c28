// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: structured kernel messages over generic netlink.
 *
 * Module setup, parameters and statistics.  The in-kernel API is in
 * include/linux/kprint.h, the userspace contract in
 * include/uapi/linux/kprint.h.
 */

#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <net/genetlink.h>

#include "kprint_internal.h"

#define KPRINT_RING_MIN		SZ_64K
#define KPRINT_RING_MAX		SZ_256M

static unsigned int kprint_ring_size = SZ_1M;
module_param_named(ring_size, kprint_ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size,
		 "Ring size in bytes, rounded up to a power of two (64 KiB .. 256 MiB, default 1 MiB)");

bool kprint_printk = true;
module_param_named(printk, kprint_printk, bool, 0644);
MODULE_PARM_DESC(printk, "Echo every record's text to printk (default Y)");

bool kprint_selfcheck;
module_param_named(selfcheck, kprint_selfcheck, bool, 0644);
MODULE_PARM_DESC(selfcheck,
		 "Debug: compare every rendered text with vsnprintf() (default N)");

static atomic_t kprint_selfcheck_failures = ATOMIC_INIT(0);

static int kprint_param_get_atomic(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read((atomic_t *)kp->arg));
}

static const struct kernel_param_ops kprint_param_ops_atomic_ro = {
	.get = kprint_param_get_atomic,
};

module_param_cb(selfcheck_failures, &kprint_param_ops_atomic_ro,
		&kprint_selfcheck_failures, 0444);
MODULE_PARM_DESC(selfcheck_failures,
		 "Texts that differed from vsnprintf() while selfcheck was on");

struct kprint_ring kprint_ring;
bool kprint_running;

static atomic64_t kprint_dropped = ATOMIC64_INIT(0);
static atomic64_t kprint_mcast_sent = ATOMIC64_INIT(0);
static atomic64_t kprint_mcast_failed = ATOMIC64_INIT(0);

/**
 * kprint_count_dropped() - count messages that were never stored
 * @n: how many
 *
 * Context: Any context.
 */
void kprint_count_dropped(unsigned int n)
{
	atomic64_add(n, &kprint_dropped);
}

/**
 * kprint_count_mcast() - count multicast outcomes
 * @sent: records delivered to at least one listener
 * @failed: records whose multicast failed
 *
 * Context: Any context.
 */
void kprint_count_mcast(unsigned int sent, unsigned int failed)
{
	atomic64_add(sent, &kprint_mcast_sent);
	atomic64_add(failed, &kprint_mcast_failed);
}

/**
 * kprint_count_selfcheck_failure() - count a text that differed from vsnprintf()
 *
 * Context: Any context.
 */
void kprint_count_selfcheck_failure(void)
{
	atomic_inc(&kprint_selfcheck_failures);
}

/**
 * kprint_get_stats() - collect every counter
 * @st: filled in
 *
 * The ring counters are one consistent snapshot; the others are read
 * individually right after it.
 *
 * Context: Any context but NMI.
 */
void kprint_get_stats(struct kprint_stats *st)
{
	kprint_ring_get_stats(&kprint_ring, &st->ring);
	st->dropped = atomic64_read(&kprint_dropped);
	st->mcast_sent = atomic64_read(&kprint_mcast_sent);
	st->mcast_failed = atomic64_read(&kprint_mcast_failed);
}

static int __init kprint_init(void)
{
	int err;

	kprint_ring_size = roundup_pow_of_two(clamp_t(unsigned int,
						      kprint_ring_size,
						      KPRINT_RING_MIN,
						      KPRINT_RING_MAX));
	BUILD_BUG_ON(KPRINT_RING_MIN < 4 * KPRINT_REC_MAX);

	err = kprint_ring_init(&kprint_ring, kprint_ring_size);
	if (err)
		return err;

	err = kprint_emit_init();
	if (err)
		goto err_ring;

	WRITE_ONCE(kprint_running, true);

	err = kprint_nl_init();
	if (err)
		goto err_emit;

	return 0;

err_emit:
	WRITE_ONCE(kprint_running, false);
	synchronize_rcu();
	kprint_emit_exit();
err_ring:
	kprint_ring_destroy(&kprint_ring);
	return err;
}

static void __exit kprint_exit(void)
{
	/*
	 * Modules that call kprint hold a reference on us through their
	 * symbol use, so they are gone; what is left are netlink emit
	 * requests.  Emitters run with interrupts off, so once no new one
	 * can start, a grace period lets those that already did finish:
	 * after it the ring holds its last record.
	 */
	WRITE_ONCE(kprint_running, false);
	synchronize_rcu();

	/*
	 * Subscribers get every stored record before the family goes
	 * (they cannot dump the ring afterwards), then the controller's
	 * "family deleted" event, which tells them to wait for a reload.
	 */
	kprint_nl_exit();

	kprint_emit_exit();
	kprint_ring_destroy(&kprint_ring);
}

module_init(kprint_init);
module_exit(kprint_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprint: structured kernel messages over generic netlink");
MODULE_ALIAS_GENL_FAMILY(KPRINT_GENL_NAME);
