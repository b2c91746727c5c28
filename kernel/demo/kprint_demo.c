// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_demo: a steady trickle of realistic kprint records, so that the
 * tools have something to show.  Nothing here touches real hardware; the
 * messages are modelled on what storage and network drivers print.
 */

#define KPRINT_SUBSYSTEM "usb-storage"

#include <linux/jiffies.h>
#include <linux/kprint.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>

static unsigned int kprint_demo_interval_ms = 500;
module_param_named(interval_ms, kprint_demo_interval_ms, uint, 0644);
MODULE_PARM_DESC(interval_ms, "Milliseconds between two demo messages (default 500)");

static const char * const kprint_demo_disks[] = { "sdb", "sdc", "sdd" };
static const unsigned int kprint_demo_speeds[] = { 100, 1000, 2500, 10000 };

static void kprint_demo_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(kprint_demo_work, kprint_demo_work_fn);
static unsigned int kprint_demo_tick;

static void kprint_demo_block(unsigned int n)
{
	const char *disk = kprint_demo_disks[n % ARRAY_SIZE(kprint_demo_disks)];
	struct kprint_block blk;

	/* What a SCSI probe prints: lines that only make sense together. */
	kprint_block_init(&blk, KPRINT_LEVEL_NOTICE);
	kprint_block(&blk, "scsi %u:0:0:0: Direct-Access     %-8s %-16s %s",
		     n % 8, "Cheesy", "Flash Drive", "1.00");
	kprint_block(&blk, "sd %u:0:0:0: [%s] %llu 512-byte logical blocks",
		     n % 8, disk, 15633408ULL);
	kprint_block(&blk, "sd %u:0:0:0: [%s] Write Protect is %s",
		     n % 8, disk, "off");
	kprint_block(&blk, "sd %u:0:0:0: [%s] Attached SCSI removable disk",
		     n % 8, disk);
	kprint_block_flush(&blk);
}

static void kprint_demo_work_fn(struct work_struct *work)
{
	unsigned int n = kprint_demo_tick++;
	const char *disk = kprint_demo_disks[n % ARRAY_SIZE(kprint_demo_disks)];

	switch (n % 10) {
	case 0:
		kprint_detected("cheesy flash drive detected at %d", n % 16);
		break;
	case 1:
		kprint_info("eth0: link up, %u Mbps, %s duplex",
			    kprint_demo_speeds[n % ARRAY_SIZE(kprint_demo_speeds)],
			    n & 1 ? "full" : "half");
		break;
	case 2:
		kprint_debug("usb %d-%d: polling port status 0x%04x",
			     1, n % 4 + 1, 0x0103);
		break;
	case 3:
		kprint_notice("EXT4-fs (%s1): mounted filesystem with %s data mode",
			      disk, n & 1 ? "ordered" : "writeback");
		break;
	case 4:
		kprint_registered("usbcore: registered new interface driver %s",
				  "usb-storage");
		break;
	case 5:
		kprint_warn("sd %u:0:0:0: [%s] Sense Key : Medium Error",
			    n % 8, disk);
		break;
	case 6:
		kprint_setting("eth0: MTU changed to %u", n & 1 ? 9000 : 1500);
		break;
	case 7:
		kprint_err("usb %d-%d: device descriptor read/64, error %d",
			   1, n % 4 + 1, -71);
		break;
	case 8:
		kprint_demo_block(n);
		break;
	default:
		kprint_info("usb-storage: %u bytes transferred in %u ms",
			    (n * 4096) % 65536, n % 100);
		break;
	}

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
