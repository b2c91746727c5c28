/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: building a record from a call site (struct kprint_site), shared
 * by single messages and block lines.
 */
#ifndef _KPRINT_EMIT_H
#define _KPRINT_EMIT_H

#include <linux/compiler.h>
#include <linux/kprint.h>
#include <linux/stdarg.h>

#include "kprint_record.h"

__printf(3, 0)
void kprint_build_site(struct kprint_builder *b, struct kprint_site *site,
		       const char *fmt, va_list args, u8 level);

extern bool kprint_selfcheck;

/* Is the selfcheck parameter on?  Asked on every bridged printk. */
static inline bool kprint_selfcheck_enabled(void)
{
	return READ_ONCE(kprint_selfcheck);
}

__printf(2, 0)
void kprint_selfcheck_text(struct kprint_builder *b, const char *fmt,
			   va_list args, size_t limit, size_t skip);

#endif /* _KPRINT_EMIT_H */
