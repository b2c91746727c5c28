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

#endif /* _KPRINT_EMIT_H */
