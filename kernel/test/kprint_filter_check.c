// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time filter check, built (never linked) by "make filter-check".
 *
 * Built as is, both canary formats must be in the object.  Built with
 * -DKPRINT_FILTER_DEBUG (kprint_filter_check_nodebug.o), the debug canary
 * must be gone while the info canary stays: a filtered call leaves neither
 * a call nor its format string.  Built with -DKPRINT_NO_LOCATION
 * (kprint_filter_check_noloc.o), the file name and the function name
 * below must not appear among the object's strings.
 */

#define KPRINT_SUBSYSTEM "kprint-filter-check"
#include <linux/kprint.h>

void kprint_filter_check_canary_fn(int x);

void kprint_filter_check_canary_fn(int x)
{
	kprint_debug("kprint-filter-canary-debug %d", x);
	kprint_info("kprint-filter-canary-info %d", x);
}
