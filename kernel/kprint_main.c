// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: structured kernel messages over generic netlink.
 *
 * Module init and exit: the core (ring, scratch records), then the family
 * and its notifications, torn down in reverse.  The in-kernel API is in
 * include/linux/kprint.h, the userspace contract in
 * include/uapi/linux/kprint.h.
 */

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <net/genetlink.h>

#include "kprint_bridge.h"
#include "kprint_core.h"
#include "kprint_netlink.h"
#include "kprint_ratelimit.h"

#define KPRINT_RING_MIN		SZ_64K
#define KPRINT_RING_MAX		SZ_256M

static unsigned int kprint_ring_size = SZ_1M;
module_param_named(ring_size, kprint_ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size,
		 "Ring size in bytes, rounded up to a power of two (64 KiB .. 256 MiB, default 1 MiB)");

static int __init kprint_init(void)
{
	int err;

	kprint_ring_size = roundup_pow_of_two(clamp_t(unsigned int,
						      kprint_ring_size,
						      KPRINT_RING_MIN,
						      KPRINT_RING_MAX));
	BUILD_BUG_ON(KPRINT_RING_MIN < 4 * KPRINT_REC_MAX);

	err = kprint_core_init(kprint_ring_size);
	if (err)
		return err;

	kprint_core_start();

	err = kprint_nl_init();
	if (err)
		goto err_core;

	/* Last: bridged records need the ring and the multicast. */
	err = kprint_bridge_init();
	if (err)
		goto err_nl;

	/* Needs nothing of the rest: a refused kretprobe only leaves it off. */
	kprint_ratelimit_init();

	return 0;

err_nl:
	kprint_core_stop();
	kprint_nl_exit();
	kprint_core_exit();
	return err;
err_core:
	kprint_core_stop();
	kprint_core_exit();
	return err;
}

static void __exit kprint_exit(void)
{
	/*
	 * Modules that call kprint hold a reference on us through their
	 * symbol use, so they are gone; what is left are netlink emit
	 * requests, which store like every emitter, with interrupts off and
	 * only while kprint runs.  Once stopped, the ring holds its last
	 * record.  The printk bridge stores too, so it goes first: its
	 * hook is unregistered, and no CPU runs it, before the core stops.
	 */
	kprint_ratelimit_exit();
	kprint_bridge_exit();
	kprint_core_stop();

	/*
	 * Subscribers get every stored record before the family goes
	 * (they cannot dump the ring afterwards), then the controller's
	 * "family deleted" event, which tells them to wait for a reload.
	 */
	kprint_nl_exit();

	kprint_core_exit();
}

module_init(kprint_init);
module_exit(kprint_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprint: structured kernel messages over generic netlink");
MODULE_ALIAS_GENL_FAMILY(KPRINT_GENL_NAME);
