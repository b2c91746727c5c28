/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: the serialized record, its accessors and its builder.
 *
 * Everything that needs to know where a record keeps a string goes through
 * the accessors below; nothing else walks kprint_rec::data by hand.
 */
#ifndef _KPRINT_RECORD_H
#define _KPRINT_RECORD_H

#include <linux/align.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/kprint.h>
#include <linux/string.h>
#include <linux/types.h>
/* <linux/unaligned.h> since 6.12 (KPRINT_COMPAT_6_1: kernel/Kbuild). */
#ifdef KPRINT_COMPAT_6_1
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif
#include <kprint_fnv1a.h>

/**
 * DOC: kprint record layout
 *
 * A record is a fixed header (struct kprint_rec) followed by its strings,
 * each NUL-terminated, padded as a whole to a multiple of KPRINT_REC_ALIGN
 * bytes.  The header keeps every string's length in @slen, indexed by enum
 * kprint_rec_str.  The strings are stored in this order::
 *
 *	file, function, subsystem, module, device, format,
 *	arg 0 .. arg nr_args-1, text
 *
 * which is not the @slen order: the text is only complete once every
 * argument has been rendered, so it is stored last, while its length has
 * a fixed slot in front of the arguments'.  Subsystem and module are
 * adjacent, so the two tags can be handed out as one span of bytes.
 *
 * kprint_rec_for_each_str() walks the strings in storage order;
 * kprint_rec_str() finds one by its index.
 */

/* Ring-internal bits of kprint_rec::rflags, never shown to userspace. */
#define KPRINT_REC_PAD		BIT(0)	/* filler up to the end of the buffer */
#define KPRINT_REC_NO_NTF	BIT(1)	/* nobody listened when it was stored */
/*
 * Arguments kept as values and no text (kprint_render_planned()): readers
 * see the record kprint_render_expand() makes of it.
 */
#define KPRINT_REC_DEFERRED	BIT(2)

/* Strings of a record, in kprint_rec::slen order (see the DOC above). */
enum kprint_rec_str {
	KPRINT_STR_FILE,
	KPRINT_STR_FUNCTION,
	KPRINT_STR_SUBSYSTEM,
	KPRINT_STR_MODULE,
	KPRINT_STR_DEVICE,
	KPRINT_STR_FORMAT,
	KPRINT_STR_TEXT,
	KPRINT_STR_ARG0,
	KPRINT_STR_NR = KPRINT_STR_ARG0 + KPRINT_ARGS_MAX,
};

/**
 * struct kprint_rec - a record as stored in the ring
 * @len: bytes of the whole record including strings, a multiple of 8
 * @rflags: KPRINT_REC_* bits; a pad only has @len and @rflags
 * @seq: sequence number, given when the record enters the ring
 * @ts_mono: CLOCK_MONOTONIC ns, taken when the record enters the ring
 * @ts_real: CLOCK_REALTIME ns, taken with @ts_mono
 * @format_id: FNV-1a 64 of the format
 * @block_id: id of the block the record belongs to, 0 if none
 * @continues: for a KPRINT_RECORD_F_CONT fragment, seq of the record whose
 *	line it continues; 0 otherwise
 * @printk_seq: for a printk record, printk's seq of the record it is
 *	stored in (/dev/kmsg's); 0 otherwise
 * @flags: enum kprint_record_flags
 * @pid: thread group id in the initial pid namespace, 0 outside task context
 * @cpu: CPU the message was emitted on
 * @line: source line, 0 when unknown
 * @level: enum kprint_level
 * @class: enum kprint_class
 * @nr_args: number of rendered arguments stored
 * @source: enum kprint_source
 * @facility: syslog facility (printk records; 0 otherwise)
 * @__pad: zero
 * @comm: task name, empty outside task context
 * @slen: string lengths (without the NUL), indexed by enum kprint_rec_str
 * @data: the strings, each NUL-terminated, in storage order
 */
struct kprint_rec {
	u32 len;
	u32 rflags;
	u64 seq;
	u64 ts_mono;
	u64 ts_real;
	u64 format_id;
	u64 block_id;
	u64 continues;
	u64 printk_seq;
	u32 flags;
	u32 pid;
	u32 cpu;
	u32 line;
	u8 level;
	u8 class;
	u8 nr_args;
	u8 source;
	u8 facility;
	u8 __pad[3];
	char comm[KPRINT_COMM_MAX];
	u16 slen[KPRINT_STR_NR];
	char data[];
};

#define KPRINT_REC_ALIGN	8

/* Largest serialized record: every string at its limit. */
#define KPRINT_REC_MAX							\
	ALIGN(sizeof(struct kprint_rec) + 4 * KPRINT_TAG_MAX +		\
	      KPRINT_DEVICE_MAX + KPRINT_FORMAT_MAX + KPRINT_ARGS_MAX * KPRINT_ARG_MAX +	\
	      KPRINT_TEXT_MAX, KPRINT_REC_ALIGN)

/**
 * struct kprint_rec_iter - position in a walk over a record's strings
 * @s: the current string, NUL-terminated
 * @idx: its index, enum kprint_rec_str (KPRINT_STR_ARG0 + n for arg n)
 * @len: its length without the NUL, rec->slen[@idx]
 * @pos: how many strings come before it in storage order
 */
struct kprint_rec_iter {
	const char *s;
	unsigned int idx;
	unsigned int len;
	unsigned int pos;
};

/* Number of strings a record holds: the fixed ones and its arguments. */
static inline unsigned int kprint_rec_nr_strs(const struct kprint_rec *rec)
{
	return KPRINT_STR_ARG0 + rec->nr_args;
}

/* Index of the string stored at position @pos (see the DOC above). */
static inline unsigned int kprint_rec_str_at(const struct kprint_rec *rec,
					     unsigned int pos)
{
	if (pos < KPRINT_STR_TEXT)
		return pos;
	if (pos < KPRINT_STR_TEXT + rec->nr_args)
		return pos + 1;
	return KPRINT_STR_TEXT;
}

static inline void kprint_rec_iter_set(const struct kprint_rec *rec,
				       struct kprint_rec_iter *it,
				       const char *s, unsigned int pos)
{
	it->s = s;
	it->pos = pos;
	if (pos < kprint_rec_nr_strs(rec)) {
		it->idx = kprint_rec_str_at(rec, pos);
		it->len = rec->slen[it->idx];
	}
}

static inline void kprint_rec_iter_first(const struct kprint_rec *rec,
					 struct kprint_rec_iter *it)
{
	kprint_rec_iter_set(rec, it, rec->data, 0);
}

static inline void kprint_rec_iter_next(const struct kprint_rec *rec,
					struct kprint_rec_iter *it)
{
	kprint_rec_iter_set(rec, it, it->s + it->len + 1, it->pos + 1);
}

/**
 * kprint_rec_for_each_str() - walk a record's strings in storage order
 * @rec: the record
 * @it: a struct kprint_rec_iter; in the body @it->s, @it->idx and @it->len
 *	describe the current string
 */
#define kprint_rec_for_each_str(rec, it)				\
	for (kprint_rec_iter_first(rec, it);				\
	     (it)->pos < kprint_rec_nr_strs(rec);			\
	     kprint_rec_iter_next(rec, it))

/**
 * kprint_rec_str() - find one string of a record
 * @rec: the record
 * @idx: which, enum kprint_rec_str (KPRINT_STR_ARG0 + n for argument n)
 *
 * Context: Any context.
 * Return: the NUL-terminated string; rec->slen[@idx] is its length.
 */
static inline const char *kprint_rec_str(const struct kprint_rec *rec,
					 unsigned int idx)
{
	/*
	 * Stored before string @idx: every string of a lower index but the
	 * text, and before the text every string but itself.
	 */
	unsigned int end = idx, i;
	const char *p = rec->data;

	if (idx == KPRINT_STR_TEXT)
		end = kprint_rec_nr_strs(rec);

	for (i = 0; i < end; i++)
		if (i != KPRINT_STR_TEXT)
			p += rec->slen[i] + 1;
	return p;
}

static inline const char *kprint_rec_format(const struct kprint_rec *rec)
{
	return kprint_rec_str(rec, KPRINT_STR_FORMAT);
}

static inline const char *kprint_rec_text(const struct kprint_rec *rec)
{
	return kprint_rec_str(rec, KPRINT_STR_TEXT);
}

/**
 * kprint_rec_tags() - a record's subsystem and module, as one span
 * @rec: the record
 * @len: set to the bytes they take, both NULs included
 *
 * Context: Any context.
 * Return: the subsystem, immediately followed by the module.
 */
static inline const char *kprint_rec_tags(const struct kprint_rec *rec,
					  unsigned int *len)
{
	BUILD_BUG_ON(KPRINT_STR_MODULE - KPRINT_STR_SUBSYSTEM != 1);
	*len = rec->slen[KPRINT_STR_SUBSYSTEM] + 1 +
	       rec->slen[KPRINT_STR_MODULE] + 1;
	return kprint_rec_str(rec, KPRINT_STR_SUBSYSTEM);
}

/**
 * kprint_copy() - copy the bytes of a record or of one of its strings
 * @dst: destination, not overlapping @src
 * @src: source
 * @len: bytes
 *
 * Every byte of a record is copied twice or three times on its way to the
 * ring (a string into the record or the text, the text after the
 * arguments, the record into the ring), in pieces of a few to a few
 * hundred bytes.  memcpy() is a call, and on x86 CPUs with ERMS it is
 * `rep movsb`, whose start-up cost dominates copies this short on CPUs
 * without FSRM, and which an emulator such as QEMU's TCG (where make bench
 * runs) executes a byte per step: B9 and B1 were a third copying there.
 * Eight bytes at a time, inline, is as fast for these sizes anywhere.
 * The accesses are volatile so that the compiler does not turn the loops
 * back into a call to memcpy().
 *
 * Context: Any context.
 */
static __always_inline void kprint_copy(void *dst, const void *src, size_t len)
{
	const char *s = src;
	char *d = dst;

	if (len < sizeof(u64)) {
		for (; len; len--)
			WRITE_ONCE(*d++, *s++);
		return;
	}
	/* The last word is copied whole, overlapping the one before. */
	put_unaligned(READ_ONCE(*(const u64 *)(s + len - sizeof(u64))),
		      (u64 *)(d + len - sizeof(u64)));
	for (; len >= sizeof(u64); len -= sizeof(u64), s += sizeof(u64),
	     d += sizeof(u64))
		put_unaligned(READ_ONCE(*(const u64 *)s), (u64 *)d);
}

/**
 * kprint_zero() - zero a record's header
 * @dst: destination, 8-byte aligned
 * @len: bytes, a multiple of 8
 *
 * For the reason kprint_copy() gives: memset() of a header this size is
 * `rep stosq`, with the same start-up cost.
 *
 * Context: Any context.
 */
static __always_inline void kprint_zero(void *dst, size_t len)
{
	u64 *d = dst;

	for (; len; len -= sizeof(u64))
		WRITE_ONCE(*d++, 0);
}

/**
 * struct kprint_builder - assembles one serialized record
 * @rec: output, KPRINT_REC_MAX bytes, 8-byte aligned
 * @pos: next free byte in @rec->data
 * @text: the text is collected here (KPRINT_TEXT_MAX bytes) because it is
 *	stored after the arguments, which are rendered at the same time
 * @text_len: bytes in @text, without a NUL
 * @text_start: bytes at the start of @text that are not stored (the
 *	printk bridge's level prefix), skipped instead of moved
 * @argbuf: KPRINT_ARG_MAX bytes to render one argument into
 * @checkbuf: KPRINT_TEXT_MAX bytes for the selfcheck's vsnprintf(), or NULL
 */
struct kprint_builder {
	struct kprint_rec *rec;
	char *pos;
	char *text;
	unsigned int text_len;
	unsigned int text_start;
	char *argbuf;
	char *checkbuf;
};

void kprint_rec_begin(struct kprint_builder *b, u8 level, u8 class, u32 flags);

/* The bytes string @idx may take, its NUL included: the UAPI limits. */
static __always_inline size_t kprint_rec_str_max(unsigned int idx)
{
	switch (idx) {
	case KPRINT_STR_FILE:
	case KPRINT_STR_FUNCTION:
	case KPRINT_STR_SUBSYSTEM:
	case KPRINT_STR_MODULE:
		return KPRINT_TAG_MAX;
	case KPRINT_STR_DEVICE:
		return KPRINT_DEVICE_MAX;
	case KPRINT_STR_FORMAT:
		return KPRINT_FORMAT_MAX;
	case KPRINT_STR_TEXT:
		return KPRINT_TEXT_MAX;
	default:
		return KPRINT_ARG_MAX;
	}
}

/* Stores string @idx of @len bytes, cut to @max - 1. */
static __always_inline void kprint_rec_store(struct kprint_builder *b,
					     unsigned int idx, const char *s,
					     size_t len, size_t max)
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
 * kprint_rec_put_strn() - store one of the fixed strings, its length known
 * @b: the builder
 * @idx: KPRINT_STR_FILE .. KPRINT_STR_FORMAT, in that order
 * @s: the string
 * @len: strnlen() of @s at the string's limit; longer is cut to the limit
 *
 * Context: Any context.
 */
static inline void kprint_rec_put_strn(struct kprint_builder *b,
				       enum kprint_rec_str idx, const char *s,
				       size_t len)
{
	kprint_rec_store(b, idx, s, len, kprint_rec_str_max(idx));
}

/**
 * kprint_rec_put_str() - store one of the fixed strings
 * @b: the builder
 * @idx: KPRINT_STR_FILE .. KPRINT_STR_FORMAT, in that order
 * @s: the string, cut to its limit if needed
 *
 * Context: Any context.
 */
static inline void kprint_rec_put_str(struct kprint_builder *b,
				      enum kprint_rec_str idx, const char *s)
{
	kprint_rec_put_strn(b, idx, s, strnlen(s, kprint_rec_str_max(idx)));
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
static inline void kprint_rec_add_arg(struct kprint_builder *b, const char *s,
				      size_t len)
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

void kprint_rec_append_text(struct kprint_builder *b, const char *s,
			    size_t len);
char *kprint_rec_text_tail(struct kprint_builder *b, size_t *room);
void kprint_rec_text_advance(struct kprint_builder *b, size_t len);
void kprint_rec_end(struct kprint_builder *b);

#endif /* _KPRINT_RECORD_H */
