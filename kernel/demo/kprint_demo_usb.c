// SPDX-License-Identifier: GPL-2.0
/* kprint_demo: what a USB mass-storage stick says, the RFC's own example. */

#define KPRINT_SUBSYSTEM "usb-storage"

#include <linux/kprint.h>

#include "kprint_demo.h"

void kprint_demo_usb(void)
{
	static unsigned int calls;
	unsigned int n = calls++;
	switch (n % 4) {
	case 0:
		kprint_detected("cheesy flash drive detected at %d", n % 16);
		break;
	case 1:
		kprint_debug("usb %d-%d: polling port status 0x%04x", 1, n % 4 + 1, 0x0103);
		break;
	case 2:
		kprint_err("usb %d-%d: device descriptor read/64, error %d", 1, n % 4 + 1, -71);
		break;
	default:
		kprint_info("%u bytes transferred in %u ms", (n * 4096) % 65536, n % 100);
		break;
	}
}
