// SPDX-License-Identifier: GPL-2.0
/* kprint_demo: what a network driver says about its link. */

#define KPRINT_SUBSYSTEM "net"

#include <linux/kernel.h>
#include <linux/kprint.h>

#include "kprint_demo.h"

static const unsigned int kprint_demo_speeds[] = { 100, 1000, 2500, 10000 };

void kprint_demo_net(void)
{
	static unsigned int calls;
	unsigned int n = calls++;
	if (n % 3)
		kprint_info("eth0: link up, %u Mbps, %s duplex",
			    kprint_demo_speeds[n % ARRAY_SIZE(kprint_demo_speeds)],
			    n & 1 ? "full" : "half");
	else
		kprint_setting("eth0: MTU changed to %u", n & 1 ? 9000 : 1500);
}
