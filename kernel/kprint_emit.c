// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the emit path used by the kprint_*() macros.
 *
 * A message is rendered from its call site into the core's per-CPU scratch
 * record with interrupts off, then committed: stored in the ring, echoed to
 * printk, handed to the multicast (see kprint_core.c).  The call site's
 * constant parts (string lengths, format id) are measured once, on first
 * use, and kept in the site.
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "kprint_core.h"
#include "kprint_emit.h"
#include "kprint_render.h"

/*
 * The NMI echo: the record's level as the text's KERN_ prefix, given to
 * _printk(), as printk()'s index has no use for a format built at run time.
 */
#define KPRINT_EMIT_ECHO	KERN_SOH "%c%pV"

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
	/* Pairs with the release below: the lengths are whole once ready. */
	if (likely(smp_load_acquire(&site->str_len_ready)))
		return site->str_len;
	for (i = 0; i < ARRAY_SIZE(strs); i++)
		site->str_len[i] = strnlen(*(const char **)((void *)site + strs[i].offset),
					   strs[i].max);
	/* Publishes the lengths to the acquire above. */
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
	kprint_rec_put_strn(b, KPRINT_STR_DEVICE, "", 0);
	kprint_rec_put_strn(b, KPRINT_STR_FORMAT, fmt, len[4]);
	kprint_render(b, fmt, args);
	kprint_rec_end(b);
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
	kprint_own_printk_begin();
	_printk(KPRINT_EMIT_ECHO, '0' + level, &vaf);
	kprint_own_printk_end();
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
		kprint_selfcheck_text(b, fmt, args, KPRINT_TEXT_MAX - 1, 0);
	kprint_commit(b->rec, b->rec->len);
	kprint_scratch_put(flags);
out:
	va_end(args);
}
EXPORT_SYMBOL_GPL(kprint_emit_site);
