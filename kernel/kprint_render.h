/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: rendering a format and its arguments into a record's text and
 * arguments.
 */
#ifndef _KPRINT_RENDER_H
#define _KPRINT_RENDER_H

#include <linux/compiler.h>
#include <linux/stdarg.h>
#include <linux/types.h>

#include "kprint_fmt.h"
#include "kprint_record.h"

unsigned int kprint_fmt_decode(const char *fmt, struct kprint_fmt_spec *spec);
__printf(2, 0)
void kprint_render(struct kprint_builder *b, const char *fmt, va_list args);

/* Why kprint_render_given() refused a format. */
enum kprint_render_err {
	KPRINT_RENDER_OK,
	KPRINT_RENDER_STAR,	/* a '*' width or precision */
	KPRINT_RENDER_INVALID,	/* a conversion vsnprintf() would stop at */
	KPRINT_RENDER_MISMATCH,	/* conversions and arguments differ in number */
};

/*
 * markers=1: the byte around each argument in kprint's printk echo, ASCII
 * unit separator, which no message has reason to contain.
 */
#define KPRINT_MARKER		0x1f

/*
 * printk of Linux 6.1 keeps at most LOG_LINE_MAX - 1 = 991 bytes of a
 * line, its newline included (6.12 keeps more): a marked echo longer than
 * that would be cut, its last argument left open.  So a marked text, with
 * its NUL instead of the newline, fits in this many bytes or is not made.
 */
#define KPRINT_MARKED_MAX	(1024 - 32 - 1)

int kprint_render_marked(const struct kprint_rec *rec, char *buf, size_t size);

/* kprint_render_check.c: the selfcheck parameter and its comparison */
extern bool kprint_selfcheck;

/* Is the selfcheck parameter on?  Asked on every bridged printk. */
static inline bool kprint_selfcheck_enabled(void)
{
	return READ_ONCE(kprint_selfcheck);
}

__printf(2, 0)
void kprint_selfcheck_text(struct kprint_builder *b, const char *fmt,
			   va_list args, size_t limit, size_t skip);

/**
 * struct kprint_render_plan - a format's conversions, worked out once
 * @deferrable: kprint_render_planned() may keep its arguments as values:
 *	only plain conversions, nothing vsnprintf() stops at, no '*', at most
 *	KPRINT_ARGS_MAX of them, and a first token that is literal text or an
 *	integer (so that the text cannot begin with an argument's KERN_SOH)
 * @nr: its conversions
 * @bound: the most bytes its literal text and integers render to
 * @type: each conversion's enum kprint_fmt_type
 */
struct kprint_render_plan {
	bool deferrable;
	u8 nr;
	u16 bound;
	u8 type[KPRINT_ARGS_MAX];
};

void kprint_render_plan(const char *fmt, struct kprint_render_plan *plan);
int kprint_render_planned(struct kprint_builder *b,
			  const struct kprint_render_plan *plan, va_list args,
			  size_t room);
void kprint_render_expand(const struct kprint_rec *src,
			  struct kprint_builder *b);

enum kprint_render_err kprint_render_given(struct kprint_builder *b,
					   const char *fmt,
					   const char *const *args,
					   const size_t *lens,
					   unsigned int nargs);

#endif /* _KPRINT_RENDER_H */
