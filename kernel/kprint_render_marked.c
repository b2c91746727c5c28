// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: a record's text with its arguments marked, for the printk echo.
 *
 * The marked text is rebuilt from the record's format and arguments.  It
 * is checked against the stored text on the way, so that a reader of
 * /dev/kmsg can trust the markers.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "kprint_render.h"

/**
 * kprint_render_marked() - a record's text with KPRINT_MARKER around each arg
 * @rec: a sealed record
 * @buf: where the marked text goes, NUL-terminated
 * @size: bytes at @buf
 *
 * For the printk echo with markers=1.  The marked text is built from the
 * record's format and args, and checked against its text on the way: it is
 * only made when taking the markers out gives the text byte for byte and
 * the n-th marked span is arg n, all of them, so that a reader of
 * /dev/kmsg can rely on both.  That is not so for a record cut at one of
 * its limits (an arg longer than KPRINT_ARG_MAX, more than KPRINT_ARGS_MAX
 * args, a text cut at KPRINT_TEXT_MAX), nor for a text that holds a marker
 * of its own (the split would be ambiguous) or a NUL (printk's "%s" stops
 * there): those are echoed as they always were.  A trailing newline of the
 * format is missing from the text (kprint_rec_end()), and so from the
 * marked text.
 *
 * Context: Any context.
 * Return: the length of the marked text; -EINVAL when the record cannot be
 * marked faithfully, -ENOSPC when the marked text does not fit in @size.
 */
int kprint_render_marked(const struct kprint_rec *rec, char *buf, size_t size)
{
	const char *fmt = kprint_rec_format(rec);
	const char *text = kprint_rec_text(rec);
	size_t tlen = rec->slen[KPRINT_STR_TEXT];
	size_t pos = 0, out = 0, m, alen;
	struct kprint_fmt_spec fs;
	unsigned int n, i = 0;
	const char *arg;

	if (memchr(text, KPRINT_MARKER, tlen) || memchr(text, '\0', tlen))
		return -EINVAL;
	/* Exactly the text and two markers per arg, when it succeeds. */
	if (tlen + 2 * rec->nr_args >= size)
		return -ENOSPC;

	for (; (n = kprint_fmt_decode(fmt, &fs)); fmt += n) {
		switch (fs.type) {
		case KPRINT_FMT_LITERAL:
			m = min_t(size_t, n, tlen - pos);
			if (memcmp(text + pos, fmt, m))
				return -EINVAL;
			/* Only the format's trailing newline may be missing. */
			if (m < n && !(m == n - 1 && fmt[m] == '\n' && !fmt[n]))
				return -EINVAL;
			memcpy(buf + out, fmt, m);
			out += m;
			pos += m;
			break;
		case KPRINT_FMT_PERCENT:
			if (pos == tlen || text[pos] != '%')
				return -EINVAL;
			buf[out++] = '%';
			pos++;
			break;
		case KPRINT_FMT_INVALID:
			/* Rendering stopped here, as vsnprintf() does. */
			goto end;
		default:
			if (i == rec->nr_args)
				return -EINVAL;
			arg = kprint_rec_str(rec, KPRINT_STR_ARG0 + i);
			alen = rec->slen[KPRINT_STR_ARG0 + i];
			if (alen > tlen - pos || memcmp(text + pos, arg, alen))
				return -EINVAL;
			buf[out++] = KPRINT_MARKER;
			memcpy(buf + out, arg, alen);
			out += alen;
			buf[out++] = KPRINT_MARKER;
			pos += alen;
			i++;
			break;
		}
	}
end:
	if (pos != tlen || i != rec->nr_args)
		return -EINVAL;
	buf[out] = '\0';
	return out;
}
