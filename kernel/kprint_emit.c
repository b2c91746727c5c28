// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the emit path used by the kprint_*() macros.
 *
 * A message is rendered into a per-CPU scratch record with interrupts off,
 * then copied into the ring under its lock, then echoed to printk.  The
 * multicast is never sent from here (this may be hard interrupt context);
 * the ring write only kicks the notification worker.
 *
 * Keeping rendering out of the ring lock keeps the lock hold time to a
 * memcpy, and the per-CPU scratch keeps the ~6 KiB record off the stack.
 * An emitter that finds its CPU's scratch busy (a kprint call from within
 * kprint, e.g. from a console driver fed by the printk echo) or that runs
 * in NMI, where neither the ring lock nor the scratch can be taken safely,
 * counts the message as dropped instead.
 */

#include <linux/bug.h>
#include <linux/export.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "kprint_internal.h"

struct kprint_scratch {
	struct kprint_builder b;
	bool busy;
	char text[KPRINT_TEXT_MAX];
	char arg[KPRINT_ARG_MAX];
	char check[KPRINT_TEXT_MAX];
	u64 rec[KPRINT_REC_MAX / sizeof(u64)];
};

static struct kprint_scratch __percpu *kprint_scratch;

/**
 * kprint_emit_init() - allocate the per-CPU scratch records
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int kprint_emit_init(void)
{
	kprint_scratch = alloc_percpu(struct kprint_scratch);
	return kprint_scratch ? 0 : -ENOMEM;
}

/**
 * kprint_emit_exit() - free the per-CPU scratch records
 *
 * Context: Process context, once no emitter can be running any more.
 */
void kprint_emit_exit(void)
{
	free_percpu(kprint_scratch);
	kprint_scratch = NULL;
}

/**
 * kprint_scratch_get() - take this CPU's scratch builder
 * @flags: saved interrupt state, to pass to kprint_scratch_put()
 *
 * Context: Any context.  Disables interrupts on success.
 * Return: the builder, or NULL if the message cannot be recorded now (NMI,
 * recursion on this CPU, module not running); the caller counts the drop.
 */
struct kprint_builder *kprint_scratch_get(unsigned long *flags)
{
	struct kprint_scratch *s;

	if (unlikely(in_nmi()))
		return NULL;

	/*
	 * Checked with interrupts off: module exit clears kprint_running
	 * and then waits a grace period, which an interrupts-off section
	 * holds up, so nobody stores into a ring that is going away.
	 */
	local_irq_save(*flags);
	s = this_cpu_ptr(kprint_scratch);
	if (unlikely(!READ_ONCE(kprint_running) || s->busy)) {
		local_irq_restore(*flags);
		return NULL;
	}
	s->busy = true;
	s->b.rec = (struct kprint_rec *)s->rec;
	s->b.text = s->text;
	s->b.argbuf = s->arg;
	return &s->b;
}

/**
 * kprint_scratch_put() - release this CPU's scratch builder
 * @flags: what kprint_scratch_get() saved
 *
 * Context: After a successful kprint_scratch_get() on this CPU.
 */
void kprint_scratch_put(unsigned long flags)
{
	this_cpu_ptr(kprint_scratch)->busy = false;
	local_irq_restore(flags);
}

static u64 kprint_site_format_id(struct kprint_site *site)
{
#if BITS_PER_LONG == 64
	u64 id = READ_ONCE(site->format_id);

	/* Racing first users compute the same value; either store wins. */
	if (unlikely(!id)) {
		id = kprint_fnv1a64(site->format);
		WRITE_ONCE(site->format_id, id);
	}
	return id;
#else
	/* A torn 64-bit read would hand out a wrong id: don't cache. */
	return kprint_fnv1a64(site->format);
#endif
}

/*
 * A site's strings never change, so their lengths are measured once rather
 * than on every call.  Racing first users store the same values.
 */
static const unsigned short *kprint_site_str_len(struct kprint_site *site)
{
	static const struct {
		size_t offset;
		size_t max;
	} strs[] = {
		{ offsetof(struct kprint_site, file), KPRINT_TAG_MAX },
		{ offsetof(struct kprint_site, function), KPRINT_TAG_MAX },
		{ offsetof(struct kprint_site, subsystem), KPRINT_TAG_MAX },
		{ offsetof(struct kprint_site, module), KPRINT_TAG_MAX },
		{ offsetof(struct kprint_site, format), KPRINT_FORMAT_MAX },
	};
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(strs) != ARRAY_SIZE(site->str_len));
	if (likely(smp_load_acquire(&site->str_len_ready)))
		return site->str_len;
	for (i = 0; i < ARRAY_SIZE(strs); i++)
		site->str_len[i] = strnlen(*(const char **)((void *)site + strs[i].offset),
					   strs[i].max);
	smp_store_release(&site->str_len_ready, true);
	return site->str_len;
}

/**
 * kprint_build_site() - build a record from a call site and its arguments
 * @b: builder
 * @site: the call site
 * @fmt: the format (the same string as @site->format)
 * @args: its arguments
 * @level: level of the record
 *
 * Context: Any context but NMI.
 */
void kprint_build_site(struct kprint_builder *b, struct kprint_site *site,
		       const char *fmt, va_list args, u8 level)
{
	const unsigned short *len = kprint_site_str_len(site);

	kprint_rec_begin(b, level, site->class, 0);
	b->rec->line = site->line;
	b->rec->format_id = kprint_site_format_id(site);
	kprint_rec_put_strn(b, KPRINT_STR_FILE, site->file, len[0]);
	kprint_rec_put_strn(b, KPRINT_STR_FUNCTION, site->function, len[1]);
	kprint_rec_put_strn(b, KPRINT_STR_SUBSYSTEM, site->subsystem, len[2]);
	kprint_rec_put_strn(b, KPRINT_STR_MODULE, site->module, len[3]);
	kprint_rec_put_strn(b, KPRINT_STR_FORMAT, fmt, len[4]);
	kprint_render(b, fmt, args);
	kprint_rec_end(b);
}

/**
 * kprint_trace_record() - where tracers see each stored record
 * @format: the record's format string
 * @format_id: its FNV-1a 64 id
 * @level: the record's level (enum kprint_level)
 * @class: the record's class (enum kprint_class)
 * @tags: the record's subsystem, NUL-terminated, immediately followed by
 *	its module, NUL-terminated (their storage order in the record)
 * @tags_id: FNV-1a 64 of those bytes, both NULs included
 *
 * bpf/kprint_counter.bpf.c counts records per format with a kprobe here,
 * defined through tracefs as "kprint:kprint_trace_record": unlike a raw
 * tracepoint or fentry on a module function, such a kprobe holds no
 * reference on the module (kprint can still be unloaded while counted) and
 * is armed again by the kernel when the module comes back.  The same
 * format used by two modules must count as two series, so the counter
 * keys on @tags_id too; the id lets a known (format, tags) pair cost one
 * hash lookup without reading any string, and one pointer to both tags
 * keeps every argument in a register (six on the common ABIs).
 * __noipa keeps the call and its arguments exactly as declared; the empty
 * asm keeps the compiler from deciding the call does nothing.
 *
 * Context: Any context but NMI, once per record stored in the ring, after
 * it was stored; @format and @tags are valid only during the call.
 */
__noipa void kprint_trace_record(const char *format, u64 format_id, u32 level,
				 u32 class, const char *tags, u64 tags_id)
{
	asm volatile("");
}

/*
 * A record's subsystem and module, stored back to back: where they start
 * and how many bytes they take with both NULs.
 */
static const char *kprint_rec_tags(const struct kprint_rec *rec,
				   unsigned int *len)
{
	const char *p = rec->data;
	unsigned int i;

	BUILD_BUG_ON(KPRINT_STR_MODULE != KPRINT_STR_SUBSYSTEM + 1);
	for (i = 0; i < KPRINT_STR_SUBSYSTEM; i++)
		p += rec->slen[i] + 1;
	*len = rec->slen[KPRINT_STR_SUBSYSTEM] + 1 +
	       rec->slen[KPRINT_STR_MODULE] + 1;
	return p;
}

/* FNV-1a 64 of @len bytes, NULs included, as the format id is of a string. */
static u64 kprint_fnv1a64_mem(const char *p, unsigned int len)
{
	u64 h = KPRINT_FNV1A64_OFFSET;

	while (len--) {
		h ^= (u8)*p++;
		h *= KPRINT_FNV1A64_PRIME;
	}
	return h;
}

static void kprint_trace(const struct kprint_rec *rec)
{
	unsigned int len;
	const char *tags = kprint_rec_tags(rec, &len);

	kprint_trace_record(kprint_rec_format(rec), rec->format_id, rec->level,
			    rec->class, tags, kprint_fnv1a64_mem(tags, len));
}

__printf(2, 3)
static void kprint_echo_printf(int level, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vprintk_emit(0, level, NULL, fmt, args);
	va_end(args);
}

static void kprint_echo(const struct kprint_rec *rec)
{
	/*
	 * The level goes in as an argument, not as a KERN_SOH prefix built at
	 * run time, so that whoever watches printk (dmesg, the BPF printk
	 * counter) sees a plain level and the constant format "%s\n".
	 */
	kprint_echo_printf(rec->level, "%s\n", kprint_rec_text(rec));
}

/**
 * kprint_commit() - store records, echo them to printk, kick the multicast
 * @recs: one record or a block of records, back to back
 * @len: total bytes at @recs
 *
 * Context: Any context but NMI.
 * Return: the sequence number of the first record, 0 if nothing was stored.
 */
u64 kprint_commit(struct kprint_rec *recs, unsigned int len)
{
	void *p, *end = (void *)recs + len;
	bool wanted = kprint_ntf_wanted();
	struct kprint_rec *rec;
	unsigned int nr = 0;
	u64 seq;

	for (p = recs; p < end; p += rec->len) {
		rec = p;
		if (!wanted)
			rec->rflags |= KPRINT_REC_NO_NTF;
		nr++;
	}

	seq = kprint_ring_write(&kprint_ring, recs, len);
	if (!seq) {
		kprint_count_dropped(nr);
		return 0;
	}
	if (wanted)
		kprint_ntf_kick();

	for (p = recs; p < end; p += rec->len) {
		rec = p;
		kprint_trace(rec);
	}

	if (READ_ONCE(kprint_printk))
		for (p = recs; p < end; p += rec->len) {
			rec = p;
			kprint_echo(rec);
		}
	return seq;
}

__printf(2, 0)
static void kprint_selfcheck_text(struct kprint_builder *b, const char *fmt,
				  va_list args)
{
	struct kprint_scratch *s = container_of(b, struct kprint_scratch, b);
	const struct kprint_rec *rec = b->rec;
	size_t len;
	int n;

	n = vsnprintf(s->check, sizeof(s->check), fmt, args);
	len = min_t(size_t, n, sizeof(s->check) - 1);
	if (len && s->check[len - 1] == '\n')
		len--;
	if (len == rec->slen[KPRINT_STR_TEXT] &&
	    !memcmp(s->check, kprint_rec_text(rec), len))
		return;

	kprint_count_selfcheck_failure();
	pr_warn_ratelimited("kprint: text of format \"%s\" differs from vsnprintf()\n",
			    fmt);
}

/*
 * In NMI the message cannot be recorded, but printk can still defer it, so
 * the classic log does not lose what it would have had without kprint.
 */
__printf(2, 0)
static void kprint_nmi_echo(u8 level, const char *fmt, va_list args)
{
	struct va_format vaf;
	va_list ap;

	if (!READ_ONCE(kprint_printk))
		return;
	va_copy(ap, args);
	vaf.fmt = fmt;
	vaf.va = &ap;
	printk(KERN_SOH "%c%pV", '0' + level, &vaf);
	va_end(ap);
}

/**
 * kprint_emit_site() - record one message (backend of the kprint_*() macros)
 * @site: static descriptor of the call site
 * @fmt: @site->format, passed again for the compiler's format checking
 *
 * Renders the message, stores it in the ring with the next sequence number,
 * echoes its text to printk (unless the "printk" parameter is off) and lets
 * the notification worker multicast it.  When the message cannot be stored
 * it is counted in the dropped statistic.
 *
 * Context: Any context.  In NMI the message is only echoed to printk and
 * counted as dropped.  Disables interrupts on the local CPU while it runs.
 */
void kprint_emit_site(struct kprint_site *site, const char *fmt, ...)
{
	struct kprint_builder *b;
	unsigned long flags;
	va_list args;

	va_start(args, fmt);
	b = kprint_scratch_get(&flags);
	if (unlikely(!b)) {
		kprint_count_dropped(1);
		if (in_nmi())
			kprint_nmi_echo(site->level, fmt, args);
		goto out;
	}

	kprint_build_site(b, site, fmt, args, site->level);
	if (unlikely(READ_ONCE(kprint_selfcheck)))
		kprint_selfcheck_text(b, fmt, args);
	kprint_commit(b->rec, b->rec->len);
	kprint_scratch_put(flags);
out:
	va_end(args);
}
EXPORT_SYMBOL_GPL(kprint_emit_site);
