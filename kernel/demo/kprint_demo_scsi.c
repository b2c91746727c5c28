// SPDX-License-Identifier: GPL-2.0
/* kprint_demo: what the SCSI disk driver says, some of it as one block. */

#define KPRINT_SUBSYSTEM "scsi"

#include <linux/kprint.h>

#include "kprint_demo.h"

void kprint_demo_scsi(void)
{
	static unsigned int calls;
	unsigned int n = calls++;
	char disk[] = { 's', 'd', 'b' + n % 3, '\0' };
	struct kprint_block blk;

	if (n % 2) {
		kprint_warn("sd %u:0:0:0: [%s] Sense Key : Medium Error", n % 8, disk);
		return;
	}
	/* What a SCSI probe prints: lines that only make sense together. */
	kprint_block_init(&blk, KPRINT_LEVEL_NOTICE);
	kprint_block(&blk, "scsi %u:0:0:0: Direct-Access     %-8s %-16s %s",
		     n % 8, "Cheesy", "Flash Drive", "1.00");
	kprint_block(&blk, "sd %u:0:0:0: [%s] %llu 512-byte logical blocks",
		     n % 8, disk, 15633408ULL);
	kprint_block(&blk, "sd %u:0:0:0: [%s] Write Protect is %s", n % 8, disk, "off");
	kprint_block(&blk, "sd %u:0:0:0: [%s] Attached SCSI removable disk", n % 8, disk);
	kprint_block_flush(&blk);
}
