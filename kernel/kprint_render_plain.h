/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the plain conversions, shared by the renderer (kprint_render.c)
 * and the deferral of a bridged message's arguments
 * (kprint_render_deferred.c); nothing else of kprint needs them.
 */
#ifndef _KPRINT_RENDER_PLAIN_H
#define _KPRINT_RENDER_PLAIN_H

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/stdarg.h>
#include <linux/types.h>

#include "kprint_fmt.h"

/*
 * The conversions most messages consist of, written without a width, a
 * precision, a flag or an h/hh length ("%d", "%u", "%x", "%s" and their
 * l, ll and z forms), are rendered directly (kprint_render_plain()): a
 * snprintf() per argument costs a whole vsnprintf() set-up and a second
 * parse of the specification, which made up much of kprint's cost over
 * printk.  The bytes are the ones vsnprintf() writes for these: plain
 * decimal or lower-case hex, and for %s the string, or "(null)" /
 * "(efault)" where check_pointer_msg() refuses the pointer.  The printk
 * bridge also keeps the values of these conversions as they are and
 * renders them only when the record is read (kprint_render_planned()).
 */
enum kprint_plain {
	KPRINT_PLAIN_NONE,
	KPRINT_PLAIN_STR,
	KPRINT_PLAIN_INT,
};

enum kprint_plain kprint_plain_kind(const char *fmt, unsigned int n,
				    const struct kprint_fmt_spec *fs);

/* Longest plain integer: 20 digits and a sign. */
#define KPRINT_PLAIN_INT_MAX	21

/* The string a plain %s prints for @s. */
static inline const char *kprint_plain_str(const char *s)
{
	if (!s)
		return "(null)";
	if ((unsigned long)s < PAGE_SIZE || IS_ERR_VALUE(s))
		return "(efault)";
	return s;
}

/* A plain integer's value, signed types sign-extended to 64 bits. */
static inline u64 kprint_plain_int(const struct kprint_fmt_spec *fs,
				   va_list *ap)
{
	switch (fs->type) {
	case KPRINT_FMT_INT:
		return va_arg(*ap, int);
	case KPRINT_FMT_UINT:
		return va_arg(*ap, unsigned int);
	case KPRINT_FMT_LONG:
		return va_arg(*ap, long);
	case KPRINT_FMT_ULONG:
		return va_arg(*ap, unsigned long);
	case KPRINT_FMT_SSIZE:
		return va_arg(*ap, ssize_t);
	case KPRINT_FMT_SIZE:
		return va_arg(*ap, size_t);
	default:			/* KPRINT_FMT_LLONG */
		return va_arg(*ap, long long);
	}
}

#endif /* _KPRINT_RENDER_PLAIN_H */
