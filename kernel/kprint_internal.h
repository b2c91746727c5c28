/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: declarations shared by the files of kprint.ko.
 */
#ifndef _KPRINT_INTERNAL_H
#define _KPRINT_INTERNAL_H

#include <linux/kprint.h>
#include <linux/stdarg.h>
#include <linux/types.h>

#include "kprint_ring.h"

/* kprint_main.c */
extern struct kprint_ring kprint_ring;
extern bool kprint_running;
extern bool kprint_printk;
extern bool kprint_selfcheck;

/**
 * struct kprint_stats - every counter reported by KPRINT_CMD_STATS_GET
 * @ring: counters kept by the ring under its lock
 * @dropped: records never stored
 * @mcast_sent: records multicast to at least one listener
 * @mcast_failed: records whose multicast failed
 */
struct kprint_stats {
	struct kprint_ring_stats ring;
	u64 dropped;
	u64 mcast_sent;
	u64 mcast_failed;
};

void kprint_count_dropped(unsigned int n);
void kprint_count_mcast(unsigned int sent, unsigned int failed);
void kprint_count_selfcheck_failure(void);
void kprint_get_stats(struct kprint_stats *st);

/* kprint_record.c */

/**
 * struct kprint_builder - assembles one serialized record
 * @rec: output, KPRINT_REC_MAX bytes, 8-byte aligned
 * @pos: next free byte in @rec->data
 * @text: the text is collected here (KPRINT_TEXT_MAX bytes) because it is
 *	stored after the arguments, which are rendered at the same time
 * @text_len: bytes in @text, without a NUL
 * @argbuf: KPRINT_ARG_MAX bytes to render one argument into
 */
struct kprint_builder {
	struct kprint_rec *rec;
	char *pos;
	char *text;
	unsigned int text_len;
	char *argbuf;
};

void kprint_rec_begin(struct kprint_builder *b, u8 level, u8 class, u32 flags);
void kprint_rec_put_str(struct kprint_builder *b, enum kprint_rec_str idx,
			const char *s);
void kprint_rec_put_strn(struct kprint_builder *b, enum kprint_rec_str idx,
			 const char *s, size_t len);
void kprint_rec_add_arg(struct kprint_builder *b, const char *s, size_t len);
void kprint_rec_append_text(struct kprint_builder *b, const char *s,
			    size_t len);
char *kprint_rec_text_tail(struct kprint_builder *b, size_t *room);
void kprint_rec_text_advance(struct kprint_builder *b, size_t len);
void kprint_rec_end(struct kprint_builder *b);
const char *kprint_rec_text(const struct kprint_rec *rec);
const char *kprint_rec_format(const struct kprint_rec *rec);
u64 kprint_fnv1a64(const char *s);

/* kprint_render.c */

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

static inline bool kprint_fmt_is_conversion(const struct kprint_fmt_spec *spec)
{
	return spec->type >= KPRINT_FMT_CHAR;
}

unsigned int kprint_fmt_decode(const char *fmt, struct kprint_fmt_spec *spec);
__printf(2, 0)
void kprint_render(struct kprint_builder *b, const char *fmt, va_list args);

/* kprint_emit.c */
int kprint_emit_init(void);
void kprint_emit_exit(void);
u64 kprint_commit(struct kprint_rec *recs, unsigned int len);
__printf(3, 0)
void kprint_build_site(struct kprint_builder *b, struct kprint_site *site,
		       const char *fmt, va_list args, u8 level);
struct kprint_builder *kprint_scratch_get(unsigned long *flags);
void kprint_trace_record(const char *format, u64 format_id, u32 level,
			 u32 class, const char *tags, u64 tags_id);
void kprint_scratch_put(unsigned long flags);

/* kprint_netlink.c */
int kprint_nl_init(void);
void kprint_nl_exit(void);
bool kprint_ntf_wanted(void);
void kprint_ntf_kick(void);

#endif /* _KPRINT_INTERNAL_H */
