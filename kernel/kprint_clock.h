/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint record clocks.
 */

#ifndef _KPRINT_CLOCK_H
#define _KPRINT_CLOCK_H

#include <linux/types.h>

u64 kprint_clock_read(s64 *real_offset);

#endif /* _KPRINT_CLOCK_H */
