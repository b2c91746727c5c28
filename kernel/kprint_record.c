// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: assembling serialized records (layout in kprint_record.h).
 *
 * A record is built in place in a KPRINT_REC_MAX buffer: the fixed header,
 * then the strings in storage order.  Every string is cut to its UAPI limit
 * and a cut marks the record KPRINT_RECORD_F_TRUNCATED, so the limits are
 * enforced once, by kprint_rec_store(), for every producer (kernel
 * callers, blocks, KPRINT_CMD_EMIT and the printk bridge).  The helpers
 * that store one string are inline, in kprint_record.h: the bridge calls
 * them a dozen times for every printk.
 */

#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "kprint_record.h"

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
	unsigned int i;
	char c;

	BUILD_BUG_ON(sizeof(*rec) % sizeof(u64));
	kprint_zero(rec, sizeof(*rec));
	rec->level = level;
	rec->class = class;
	rec->flags = flags;
	rec->cpu = raw_smp_processor_id();
	if (in_task()) {
		rec->pid = task_tgid_nr(current);
		/* strscpy(), without its call to memcpy() for a dozen bytes. */
		for (i = 0; i < sizeof(rec->comm) - 1 &&
		     (c = READ_ONCE(current->comm[i])); i++)
			rec->comm[i] = c;
	}
	b->pos = rec->data;
	b->text_len = 0;
	b->text_start = 0;
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
