/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the tokens of a printf-style format, as kprint_fmt_decode()
 * (kprint_render.c) classifies them.
 */
#ifndef _KPRINT_FMT_H
#define _KPRINT_FMT_H

#include <linux/types.h>

/* What a conversion specification pulls from the argument list. */
enum kprint_fmt_type {
	KPRINT_FMT_END,		/* end of the format */
	KPRINT_FMT_LITERAL,	/* a run of plain characters */
	KPRINT_FMT_PERCENT,	/* %% */
	KPRINT_FMT_INVALID,	/* vsnprintf() stops here, and so do we */
	KPRINT_FMT_CHAR,
	KPRINT_FMT_STR,
	KPRINT_FMT_PTR,
	KPRINT_FMT_LLONG,
	KPRINT_FMT_ULONG,
	KPRINT_FMT_LONG,
	KPRINT_FMT_SIZE,
	KPRINT_FMT_SSIZE,
	KPRINT_FMT_PTRDIFF,
	KPRINT_FMT_UINT,	/* also the promoted hh and h forms */
	KPRINT_FMT_INT,
};

/**
 * struct kprint_fmt_spec - one token of a format string
 * @type: enum kprint_fmt_type
 * @star_width: the width is taken from an int argument
 * @star_prec: the precision is taken from an int argument
 */
struct kprint_fmt_spec {
	u8 type;
	bool star_width;
	bool star_prec;
};

#endif /* _KPRINT_FMT_H */
