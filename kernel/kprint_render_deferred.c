// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: deferring a bridged message's rendering.
 *
 * A printk message of plain conversions need not be rendered twice, once
 * by printk and once by the bridge.  kprint_render_plan() works its format
 * out once; kprint_render_planned() keeps the arguments as values; and
 * kprint_render_expand() (kprint_render.c) makes the text when the record
 * is read.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "kprint_render.h"
#include "kprint_render_plain.h"

/**
 * kprint_render_plan() - work out a format's plan for kprint_render_planned()
 * @fmt: printf-style format
 * @plan: filled in
 *
 * Worked out once for a format the caller sees again and again (the
 * printk bridge's format cache): kprint_render_planned() then takes the
 * arguments without walking the format.
 *
 * Context: Any context.
 */
void kprint_render_plan(const char *fmt, struct kprint_render_plan *plan)
{
	struct kprint_fmt_spec fs;
	unsigned int n, bound = 0;
	bool first = true;

	memset(plan, 0, sizeof(*plan));
	for (; (n = kprint_fmt_decode(fmt, &fs)); fmt += n, first = false) {
		switch (fs.type) {
		case KPRINT_FMT_LITERAL:
			bound += n;
			continue;
		case KPRINT_FMT_PERCENT:
			if (fs.star_width || fs.star_prec)
				return;
			bound++;
			continue;
		default:
			break;
		}
		if (plan->nr == KPRINT_ARGS_MAX)
			return;
		switch (kprint_plain_kind(fmt, n, &fs)) {
		case KPRINT_PLAIN_STR:
			if (first)
				return;
			break;
		case KPRINT_PLAIN_INT:
			bound += KPRINT_PLAIN_INT_MAX;
			break;
		default:
			return;
		}
		plan->type[plan->nr++] = fs.type;
	}
	if (bound > U16_MAX)
		return;
	plan->bound = bound;
	plan->deferrable = true;
}

/**
 * kprint_render_planned() - keep a format's arguments for rendering later
 * @b: builder, after every fixed string (the format among them) is stored
 * @plan: the format's plan (kprint_render_plan()), deferrable
 * @args: its arguments
 * @room: the most text bytes the record may have
 *
 * The printk bridge's way around rendering every message twice: printk
 * renders the text itself, and the record need only keep what it takes to
 * render it again when someone reads it.  Only formats made of literal
 * text and plain conversions (kprint_plain_kind()) qualify, and none that
 * begins with a %s, which could begin the text with a KERN_SOH (printk
 * would take it for a level): the plan says so.  A plain integer is stored
 * as its 64-bit value, a plain %s as the string (it may be gone by the time
 * of reading).  The text is not stored at all; kprint_render_expand()
 * makes it, with the arguments, from the stored format.
 *
 * Context: Any context in which vsnprintf() of the format is safe.
 * Return: 0, or -EINVAL (with the builder as it was) when the format must
 * be rendered now: a string longer than an argument may be, or a text that
 * could be longer than @room (so would be cut).
 */
int kprint_render_planned(struct kprint_builder *b,
			  const struct kprint_render_plan *plan, va_list args,
			  size_t room)
{
	struct kprint_rec *rec = b->rec;
	char *const pos = b->pos;
	struct kprint_fmt_spec fs = {};
	size_t bound = plan->bound, len;
	const char *s;
	unsigned int i;
	va_list ap;
	u64 v;

	va_copy(ap, args);
	for (i = 0; i < plan->nr; i++) {
		fs.type = plan->type[i];
		if (fs.type == KPRINT_FMT_STR) {
			s = kprint_plain_str(va_arg(ap, const char *));
			len = strnlen(s, KPRINT_ARG_MAX);
			if (len == KPRINT_ARG_MAX)
				break;
			kprint_rec_add_arg(b, s, len);
			bound += len;
		} else {
			v = kprint_plain_int(&fs, &ap);
			kprint_rec_add_arg(b, (const char *)&v, sizeof(v));
		}
	}
	va_end(ap);
	if (i == plan->nr && bound <= room)
		return 0;
	b->pos = pos;
	rec->nr_args = 0;
	return -EINVAL;
}
