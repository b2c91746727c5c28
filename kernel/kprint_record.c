// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: assembling serialized records (layout in kprint_record.h).
 *
 * A record is built in place in a KPRINT_REC_MAX buffer: the fixed header,
 * then the strings in storage order.  Every string is cut to its UAPI limit
 * and a cut marks the record KPRINT_RECORD_F_TRUNCATED, so the limits are
 * enforced once, here, for every producer (kernel callers, blocks and
 * KPRINT_CMD_EMIT).
 */

#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "kprint_record.h"

static const u16 kprint_str_max[] = {
	[KPRINT_STR_FILE]	= KPRINT_TAG_MAX,
	[KPRINT_STR_FUNCTION]	= KPRINT_TAG_MAX,
	[KPRINT_STR_SUBSYSTEM]	= KPRINT_TAG_MAX,
	[KPRINT_STR_MODULE]	= KPRINT_TAG_MAX,
	[KPRINT_STR_DEVICE]	= KPRINT_DEVICE_MAX,
	[KPRINT_STR_FORMAT]	= KPRINT_FORMAT_MAX,
};

static void kprint_rec_store(struct kprint_builder *b, unsigned int idx,
			     const char *s, size_t len, size_t max)
{
	if (len > max - 1) {
		len = max - 1;
		b->rec->flags |= KPRINT_RECORD_F_TRUNCATED;
	}
	kprint_copy(b->pos, s, len);
	b->pos[len] = '\0';
	b->rec->slen[idx] = len;
	b->pos += len + 1;
}

/**
 * kprint_rec_begin() - start a record
 * @b: builder with @rec, @text and @argbuf set
 * @level: enum kprint_level
 * @class: enum kprint_class
 * @flags: initial enum kprint_record_flags
 *
 * Records the emitting context.  Outside task context (hard or soft
 * interrupt, NMI) there is no meaningful task: pid is 0 and comm empty,
 * rather than naming whichever task happened to be interrupted.
 *
 * Context: Any context.
 */
void kprint_rec_begin(struct kprint_builder *b, u8 level, u8 class, u32 flags)
{
	struct kprint_rec *rec = b->rec;

	memset(rec, 0, sizeof(*rec));
	rec->level = level;
	rec->class = class;
	rec->flags = flags;
	rec->cpu = raw_smp_processor_id();
	if (in_task()) {
		rec->pid = task_tgid_nr(current);
		strscpy(rec->comm, current->comm, sizeof(rec->comm));
	}
	b->pos = rec->data;
	b->text_len = 0;
	b->text_start = 0;
}

/**
 * kprint_rec_put_str() - store one of the fixed strings
 * @b: the builder
 * @idx: KPRINT_STR_FILE .. KPRINT_STR_FORMAT, in that order
 * @s: the string, cut to its limit if needed
 *
 * Context: Any context.
 */
void kprint_rec_put_str(struct kprint_builder *b, enum kprint_rec_str idx,
			const char *s)
{
	kprint_rec_put_strn(b, idx, s, strnlen(s, kprint_str_max[idx]));
}

/**
 * kprint_rec_put_strn() - store one of the fixed strings, its length known
 * @b: the builder
 * @idx: KPRINT_STR_FILE .. KPRINT_STR_FORMAT, in that order
 * @s: the string
 * @len: strnlen() of @s at the string's limit; longer is cut to the limit
 *
 * Context: Any context.
 */
void kprint_rec_put_strn(struct kprint_builder *b, enum kprint_rec_str idx,
			 const char *s, size_t len)
{
	kprint_rec_store(b, idx, s, len, kprint_str_max[idx]);
}

/**
 * kprint_rec_add_arg() - store the next rendered argument
 * @b: the builder, after every fixed string
 * @s: the argument's bytes (may contain NULs, e.g. from %c)
 * @len: number of bytes
 *
 * Arguments past KPRINT_ARGS_MAX are not stored; the record is marked
 * truncated instead.
 *
 * Context: Any context.
 */
void kprint_rec_add_arg(struct kprint_builder *b, const char *s, size_t len)
{
	struct kprint_rec *rec = b->rec;

	if (rec->nr_args == KPRINT_ARGS_MAX) {
		rec->flags |= KPRINT_RECORD_F_TRUNCATED;
		return;
	}
	kprint_rec_store(b, KPRINT_STR_ARG0 + rec->nr_args, s, len,
			 KPRINT_ARG_MAX);
	rec->nr_args++;
}

/**
 * kprint_rec_append_text() - add bytes to the text
 * @b: the builder
 * @s: bytes to add
 * @len: number of bytes
 *
 * Context: Any context.
 */
void kprint_rec_append_text(struct kprint_builder *b, const char *s,
			    size_t len)
{
	size_t room = KPRINT_TEXT_MAX - 1 - b->text_len;

	if (len > room) {
		len = room;
		b->rec->flags |= KPRINT_RECORD_F_TRUNCATED;
	}
	kprint_copy(b->text + b->text_len, s, len);
	b->text_len += len;
}

/**
 * kprint_rec_text_tail() - where the text goes on, to render into directly
 * @b: the builder
 * @room: set to the bytes available there, including one for a NUL
 *
 * Context: Any context.
 * Return: pointer to the end of the text so far.
 */
char *kprint_rec_text_tail(struct kprint_builder *b, size_t *room)
{
	*room = KPRINT_TEXT_MAX - b->text_len;
	return b->text + b->text_len;
}

/**
 * kprint_rec_text_advance() - account for bytes rendered at the text tail
 * @b: the builder
 * @len: bytes the rendering wanted to write, possibly more than fitted
 *
 * Context: Any context.
 */
void kprint_rec_text_advance(struct kprint_builder *b, size_t len)
{
	size_t room = KPRINT_TEXT_MAX - 1 - b->text_len;

	if (len > room) {
		len = room;
		b->rec->flags |= KPRINT_RECORD_F_TRUNCATED;
	}
	b->text_len += len;
}

/**
 * kprint_rec_end() - store the text and seal the record
 * @b: the builder
 *
 * A kprint message is one line, so one trailing newline is dropped here
 * the way printk drops it.
 *
 * Context: Any context.
 */
void kprint_rec_end(struct kprint_builder *b)
{
	struct kprint_rec *rec = b->rec;
	char *end;

	if (b->text_len > b->text_start && b->text[b->text_len - 1] == '\n')
		b->text_len--;
	kprint_rec_store(b, KPRINT_STR_TEXT, b->text + b->text_start,
			 b->text_len - b->text_start, KPRINT_TEXT_MAX);

	/* Zero the alignment padding so no stale scratch reaches the ring. */
	end = PTR_ALIGN(b->pos, KPRINT_REC_ALIGN);
	while (b->pos < end)
		*b->pos++ = '\0';
	rec->len = end - (char *)rec;
}
