// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_demo: a steady trickle of realistic kprint records, so that the
 * tools have something to show.  Nothing here touches real hardware; the
 * messages are modelled on what storage and network drivers print.
 */

#define KPRINT_SUBSYSTEM "kprint-demo"

#include <linux/jiffies.h>
#include <linux/kprint.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>

#include "kprint_demo.h"

static unsigned int kprint_demo_interval_ms = 500;
module_param_named(interval_ms, kprint_demo_interval_ms, uint, 0644);
MODULE_PARM_DESC(interval_ms, "Milliseconds between two demo messages (default 500)");

static void kprint_demo_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(kprint_demo_work, kprint_demo_work_fn);
static unsigned int kprint_demo_tick;

/* Weighted like a real log: chatty USB, some network, rare storage news. */
static void (*const kprint_demo_sources[])(void) = {
	kprint_demo_usb, kprint_demo_net, kprint_demo_usb, kprint_demo_scsi,
	kprint_demo_usb, kprint_demo_net, kprint_demo_ext4, kprint_demo_usb,
};

static void kprint_demo_work_fn(struct work_struct *work)
{
	kprint_demo_sources[kprint_demo_tick++ % ARRAY_SIZE(kprint_demo_sources)]();
	schedule_delayed_work(&kprint_demo_work,
			      msecs_to_jiffies(max(kprint_demo_interval_ms, 1U)));
}

static int __init kprint_demo_init(void)
{
	kprint_copyright("kprint demo traffic, copyright (c) %d %s", 2007,
			 "the kprint authors");
	schedule_delayed_work(&kprint_demo_work, 0);
	return 0;
}

static void __exit kprint_demo_exit(void)
{
	cancel_delayed_work_sync(&kprint_demo_work);
}

module_init(kprint_demo_init);
module_exit(kprint_demo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprint demo traffic source");
