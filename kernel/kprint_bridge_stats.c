// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's counters.
 */

/**
 * DOC: printk bridge counters
 *
 * Every file of the bridge counts here.  What kprint's statistics carry is
 * read by kprint_bridge_get_stats().  The rest is for tests and the
 * curious, as read-only module parameters: bridge_deferred and
 * bridge_order.  The two counted for nearly every message are per CPU.
 */

#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sysfs.h>

#include "kprint_bridge_shared.h"

struct kprint_bridge_counts kprint_bridge_count;

DEFINE_PER_CPU(struct kprint_bridge_hot, kprint_bridge_hot);

struct kprint_bridge_hot kprint_bridge_hot_sum(void)
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
 * ahead of it, records of the backlog taken live instead, records
 * committed on another CPU than the one their hook ran on.
 */
static int kprint_bridge_order_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "uncommitted %lld unread %lld late %lld overtook %lld live %lld moved %lld\n",
			  atomic64_read(&kprint_bridge_count.uncommitted),
			  atomic64_read(&kprint_bridge_count.unread),
			  atomic64_read(&kprint_bridge_count.order_late),
			  atomic64_read(&kprint_bridge_count.order_overtook),
			  atomic64_read(&kprint_bridge_count.backlog_live),
			  atomic64_read(&kprint_bridge_count.order_moved));
}

static const struct kernel_param_ops kprint_bridge_order_ops = {
	.get = kprint_bridge_order_get,
};

module_param_cb(bridge_order, &kprint_bridge_order_ops, NULL, 0444);
MODULE_PARM_DESC(bridge_order,
		 "Pairing of bridged messages with printk's commits (read-only)");
