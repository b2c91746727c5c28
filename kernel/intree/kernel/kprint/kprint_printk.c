// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: printk's direct handoff, the in-tree printk bridge.
 */

/**
 * DOC: printk handoff
 *
 * With kprint built in, vprintk_store() hands every message it stores to
 * kprint_printk_store(), once its place in printk's ring is reserved, so
 * that the record carries printk's sequence number.  The record is the
 * out-of-tree printk bridge's, which hooks the same function with ftrace:
 * source printk, the facility, the caller's format with its KERN_ pairs
 * stripped (inside dev_printk()'s and netdev_printk()'s %pV, the
 * caller's own), each argument rendered on its own, the text as printk
 * stores it, dev_printk()'s SUBSYSTEM and DEVICE, the module whose memory
 * holds the format, and printk's seq.  A continuation fragment printk
 * appended to an open record is a KPRINT_RECORD_F_CONT record whose
 * continues field is the seq of the record that began the line.
 *
 * The record is not echoed back to printk.  kprint's own echo of its
 * records is skipped, a message in NMI or printed from inside this
 * function is counted as dropped, and messages before kprint's initcall
 * are not recorded.
 */

#include <linux/compiler.h>
#include <linux/dev_printk.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/kprint.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <asm/sections.h>

#include "kprint_bridge.h"
#include "kprint_core.h"
#include "kprint_record.h"
#include "kprint_render.h"
#include "kprint_stats.h"

/* printk keeps LOG_LINE_MAX - 1 bytes of a message, its prefix included. */
#define KPRINT_PRINTK_LINE_MAX		(1024 - 32)

/* Lines open for continuation, by printk's seq of their record. */
#define KPRINT_PRINTK_LINES_BITS	6

struct kprint_printk_line {
	u64 printk_seq;
	u64 seq;
};

static struct kprint_printk_line kprint_printk_lines[1 << KPRINT_PRINTK_LINES_BITS];
static DEFINE_RAW_SPINLOCK(kprint_printk_lines_lock);

static DEFINE_PER_CPU(bool, kprint_printk_busy);

static atomic64_t kprint_printk_bridged, kprint_printk_skipped,
		  kprint_printk_nmi, kprint_printk_recursion,
		  kprint_printk_dropped;

/* A helper that wraps its caller's format in a struct va_format. */
struct kprint_printk_wrapper {
	const char *fmt;
	const char *prefix;
	unsigned int nstr;
};

static const struct kprint_printk_wrapper kprint_printk_wrappers[] = {
	/* drivers/base/core.c, __dev_printk() */
	{ "%s %s: %pV", "%s %s: ", 2 },
	/* net/core/dev.c, __netdev_printk() */
	{ "%s %s %s%s: %pV", "%s %s %s%s: ", 4 },
	{ "%s%s%s: %pV", "%s%s%s: ", 3 },
	{ "%s(NULL net_device): %pV", "%s(NULL net_device): ", 1 },
};

/* Which of kprint_printk_wrappers @fmt is, or NULL. */
static const struct kprint_printk_wrapper *kprint_printk_wrapper(const char *fmt)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprint_printk_wrappers); i++)
		if (!strcmp(fmt, kprint_printk_wrappers[i].fmt))
			return &kprint_printk_wrappers[i];
	return NULL;
}

#define KPRINT_PRINTK_WRAP_MAX	4

/* The strings of @w's @args into @s, and the struct va_format after them. */
static struct va_format *
kprint_printk_vaf(const struct kprint_printk_wrapper *w, va_list args,
		  const char **s)
{
	struct va_format *vaf;
	unsigned int n;
	va_list ap;

	va_copy(ap, args);
	for (n = 0; n < w->nstr; n++)
		s[n] = va_arg(ap, const char *);
	vaf = va_arg(ap, struct va_format *);
	va_end(ap);
	return vaf;
}

/* @w's prefix with its strings @s, at the text's tail. */
static void kprint_printk_prefix(struct kprint_builder *b,
				 const struct kprint_printk_wrapper *w,
				 const char *const *s)
{
	size_t room;
	char *tail = kprint_rec_text_tail(b, &room);
	int n = 0;

	switch (w->nstr) {
	case 1:
		n = snprintf(tail, room, w->prefix, s[0]);
		break;
	case 2:
		n = snprintf(tail, room, w->prefix, s[0], s[1]);
		break;
	case 3:
		n = snprintf(tail, room, w->prefix, s[0], s[1], s[2]);
		break;
	case 4:
		n = snprintf(tail, room, w->prefix, s[0], s[1], s[2], s[3]);
		break;
	}
	kprint_rec_text_advance(b, n);
}

/*
 * The text as printk stores it, rendered argument by argument: a
 * wrapper's prefix, then its caller's format with the caller's arguments,
 * the format and arguments of the record.
 */
static __printf(5, 0) void
kprint_printk_render(struct kprint_builder *b,
		     const struct kprint_printk_wrapper *w, const char *const *s,
		     struct va_format *vaf, const char *fmt, va_list args)
{
	va_list ap;

	if (w) {
		kprint_printk_prefix(b, w, s);
		va_copy(ap, *vaf->va);
		kprint_render(b, vaf->fmt, ap);
	} else {
		va_copy(ap, args);
		kprint_render(b, fmt, ap);
	}
	va_end(ap);
}

/*
 * The module whose memory holds @fmt: "vmlinux" for the kernel image.
 * Not inlined: a module's name is shorter than kprint_rec_put_str()'s
 * bound, which the compiler would call an overread.
 */
static noinline const char *kprint_printk_owner(const char *fmt)
{
	struct module *mod;

	if (is_kernel_rodata((unsigned long)fmt) ||
	    is_kernel_core_data((unsigned long)fmt) ||
	    init_section_contains((void *)fmt, 1))
		return "vmlinux";
	mod = __module_address((unsigned long)fmt);
	return mod ? mod->name : "";
}

/* The kprint seq of the record that began printk's record @pseq. */
static u64 kprint_printk_line_seq(u64 pseq)
{
	struct kprint_printk_line *l;
	u64 seq = 0;

	l = &kprint_printk_lines[hash_64(pseq, KPRINT_PRINTK_LINES_BITS)];
	raw_spin_lock(&kprint_printk_lines_lock);
	if (l->seq && l->printk_seq == pseq)
		seq = l->seq;
	raw_spin_unlock(&kprint_printk_lines_lock);
	return seq;
}

static void kprint_printk_line_set(u64 pseq, u64 seq)
{
	struct kprint_printk_line *l;

	l = &kprint_printk_lines[hash_64(pseq, KPRINT_PRINTK_LINES_BITS)];
	raw_spin_lock(&kprint_printk_lines_lock);
	l->printk_seq = pseq;
	l->seq = seq;
	raw_spin_unlock(&kprint_printk_lines_lock);
}

/*
 * The record's header, fixed strings, text and arguments.  Returns
 * whether the text ends its line.
 */
static __printf(5, 0) bool
kprint_printk_build(struct kprint_builder *b, int facility, int level,
		    const struct dev_printk_info *dev_info, const char *fmt,
		    va_list args)
{
	const struct kprint_printk_wrapper *w = kprint_printk_wrapper(fmt);
	const char *s[KPRINT_PRINTK_WRAP_MAX];
	struct va_format *vaf = w ? kprint_printk_vaf(w, args, s) : NULL;
	const char *format = vaf ? vaf->fmt : fmt;
	struct kprint_rec *rec = b->rec;
	size_t len, skip = 0;

	if (!facility)
		format = printk_skip_headers(format);
	len = strlen(format);
	if (len && format[len - 1] == '\n')
		len--;

	kprint_rec_begin(b, level & 7, KPRINT_CLASS_NONE, 0);
	rec->source = KPRINT_SOURCE_PRINTK;
	rec->facility = facility;
	rec->format_id = kprint_fnv1a64_mem(format, len);
	kprint_rec_put_str(b, KPRINT_STR_FILE, "");
	kprint_rec_put_str(b, KPRINT_STR_FUNCTION, "");
	/* dev_printk_info's arrays are shorter than kprint's limits. */
	if (dev_info) {
		kprint_rec_put_strn(b, KPRINT_STR_SUBSYSTEM, dev_info->subsystem,
				    strnlen(dev_info->subsystem,
					    sizeof(dev_info->subsystem)));
	} else {
		kprint_rec_put_str(b, KPRINT_STR_SUBSYSTEM, "");
	}
	kprint_rec_put_str(b, KPRINT_STR_MODULE, kprint_printk_owner(format));
	if (dev_info) {
		kprint_rec_put_strn(b, KPRINT_STR_DEVICE, dev_info->device,
				    strnlen(dev_info->device,
					    sizeof(dev_info->device)));
	} else {
		kprint_rec_put_str(b, KPRINT_STR_DEVICE, "");
	}
	kprint_rec_put_strn(b, KPRINT_STR_FORMAT, format,
			    min_t(size_t, len, KPRINT_FORMAT_MAX));

	kprint_printk_render(b, w, s, vaf, fmt, args);
	if (b->text_len > KPRINT_PRINTK_LINE_MAX - 1) {
		b->text_len = KPRINT_PRINTK_LINE_MAX - 1;
		rec->flags |= KPRINT_RECORD_F_TRUNCATED;
	}
	if (!facility) {
		skip = printk_skip_headers(b->text) - b->text;
		b->text_start = min_t(size_t, skip, b->text_len);
	}
	kprint_rec_end(b);
	return b->text_len > skip && b->text[b->text_len - 1] == '\n';
}

/**
 * kprint_printk_store() - printk hands a message over
 * @facility: syslog facility (0 but for /dev/kmsg writes)
 * @level: the level printk stores (for @cont, its record's: printk keeps it)
 * @dev_info: dev_printk()'s SUBSYSTEM and DEVICE, or NULL
 * @pseq: printk's seq of the record the text goes into
 * @cont: the text is appended to the open record @pseq
 * @fmt: the format printk got
 * @args: its arguments, left for printk to use
 *
 * Context: vprintk_store(), interrupts off, any context.
 */
void kprint_printk_store(int facility, int level,
			 const struct dev_printk_info *dev_info, u64 pseq,
			 bool cont, const char *fmt, va_list args)
{
	struct kprint_builder *b;
	unsigned long sflags;
	bool newline;
	u64 seq;

	if (unlikely(!fmt))
		return;
	if (kprint_own_printk()) {
		atomic64_inc(&kprint_printk_skipped);
		return;
	}
	if (unlikely(in_nmi())) {
		atomic64_inc(&kprint_printk_nmi);
		return;
	}
	if (unlikely(this_cpu_read(kprint_printk_busy))) {
		atomic64_inc(&kprint_printk_recursion);
		return;
	}
	this_cpu_write(kprint_printk_busy, true);
	/* NULL before kprint's initcall: nothing to count yet. */
	b = kprint_scratch_get(&sflags);
	if (!b)
		goto out;
	newline = kprint_printk_build(b, facility, level, dev_info, fmt, args);
	b->rec->printk_seq = pseq;
	if (cont) {
		b->rec->flags |= KPRINT_RECORD_F_CONT;
		b->rec->continues = kprint_printk_line_seq(pseq);
	}
	seq = kprint_commit(b->rec, b->rec->len);
	kprint_scratch_put(sflags);
	if (!seq) {
		atomic64_inc(&kprint_printk_dropped);
		goto out;
	}
	atomic64_inc(&kprint_printk_bridged);
	/* dev_printk() always ends its line (LOG_NEWLINE). */
	if (!cont && !newline && !dev_info)
		kprint_printk_line_set(pseq, seq);
out:
	this_cpu_write(kprint_printk_busy, false);
}

/**
 * kprint_bridge_get_stats() - the handoff's counters, as the bridge's
 * @st: filled in
 *
 * Context: Any context.
 */
void kprint_bridge_get_stats(struct kprint_bridge_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->on = IS_BUILTIN(CONFIG_KPRINT);
	st->bridged = atomic64_read(&kprint_printk_bridged);
	st->skipped = atomic64_read(&kprint_printk_skipped);
	st->dropped_nmi = atomic64_read(&kprint_printk_nmi);
	st->dropped_recursion = atomic64_read(&kprint_printk_recursion);
	st->dropped_scratch = atomic64_read(&kprint_printk_dropped);
}
