// SPDX-License-Identifier: GPL-2.0
/* kprint_demo: what a filesystem says when it is mounted. */

#define KPRINT_SUBSYSTEM "ext4"

#include <linux/kprint.h>

#include "kprint_demo.h"

void kprint_demo_ext4(void)
{
	static unsigned int calls;
	unsigned int n = calls++;
	kprint_notice("EXT4-fs (sd%c1): mounted filesystem with %s data mode",
		      'b' + n % 3, n & 1 ? "ordered" : "writeback");
}
