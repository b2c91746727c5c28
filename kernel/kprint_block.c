// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: blocks, several lines published as one unit.
 *
 * The 2007 RFC described blocks but never built them.  Here each line is
 * rendered when kprint_block() is called (its arguments may not outlive the
 * call) and appended, already serialized, to a buffer owned by the block.
 * kprint_block_flush() then hands the whole buffer to the ring in a single
 * locked write, so the lines get consecutive sequence numbers, one shared
 * block id, and nothing can be interleaved with them, in the ring or in the
 * multicast that follows it.  Until the flush nothing is visible anywhere,
 * which is what makes kprint_block_abort() leave no trace.
 *
 * The buffer grows with GFP_ATOMIC so that blocks work in any context the
 * rest of kprint works in.  A line that cannot be stored is counted as
 * dropped right away.
 */

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kprint_core.h"
#include "kprint_emit.h"

/* Block ids start at 1: 0 means "not in a block". */
static atomic64_t kprint_block_last_id = ATOMIC64_INIT(0);

#define KPRINT_BLOCK_MIN_ALLOC	1024

/*
 * A block far larger than the ring would evict its own first lines while
 * being written; a quarter of the ring leaves room for everything else.
 */
static unsigned int kprint_block_max(void)
{
	return kprint_ring.size / 4;
}

static bool kprint_block_append(struct kprint_block *blk,
				const struct kprint_rec *rec)
{
	unsigned int need = blk->len + rec->len;

	if (need > kprint_block_max())
		return false;

	if (need > blk->size) {
		unsigned int size = max_t(unsigned int, blk->size,
					  KPRINT_BLOCK_MIN_ALLOC);
		void *buf;

		while (size < need)
			size *= 2;
		size = min(size, kprint_block_max());
		buf = krealloc(blk->buf, size, GFP_ATOMIC | __GFP_NOWARN);
		if (!buf)
			return false;
		blk->buf = buf;
		blk->size = size;
	}

	kprint_copy(blk->buf + blk->len, rec, rec->len);
	blk->len = need;
	blk->lines++;
	return true;
}

/**
 * kprint_block_emit_site() - add a line to a block (backend of kprint_block())
 * @blk: the block
 * @site: static descriptor of the call site (its level is ignored)
 * @fmt: @site->format, passed again for the compiler's format checking
 *
 * The line is rendered now, with the block's level.  It becomes visible
 * only when the block is flushed.
 *
 * Context: Any context but NMI (there the line is counted as dropped).
 */
void kprint_block_emit_site(struct kprint_block *blk, struct kprint_site *site,
			    const char *fmt, ...)
{
	struct kprint_builder *b;
	unsigned long flags;
	va_list args;

	b = kprint_scratch_get(&flags);
	if (unlikely(!b)) {
		kprint_count_dropped(1);
		return;
	}

	va_start(args, fmt);
	kprint_build_site(b, site, fmt, args, blk->level);
	va_end(args);

	if (!kprint_block_append(blk, b->rec))
		kprint_count_dropped(1);
	kprint_scratch_put(flags);
}
EXPORT_SYMBOL_GPL(kprint_block_emit_site);

static void kprint_block_reset(struct kprint_block *blk)
{
	kfree(blk->buf);
	blk->buf = NULL;
	blk->len = 0;
	blk->size = 0;
	blk->lines = 0;
}

/**
 * kprint_block_flush() - publish every line of a block as one unit
 * @blk: the block
 *
 * The lines enter the ring in one locked write, with consecutive sequence
 * numbers, the same timestamps and a shared, unique, nonzero block id, and
 * are echoed to printk line by line.  The block is left empty and can be
 * reused with the same level.  Flushing an empty block does nothing.
 *
 * Context: Any context but NMI.
 */
void kprint_block_flush(struct kprint_block *blk)
{
	void *p, *end = blk->buf + blk->len;
	struct kprint_rec *rec;
	u64 id;

	if (!blk->lines)
		goto out;

	/* Neither the ring lock nor kfree() may be used in NMI. */
	if (WARN_ON_ONCE(in_nmi())) {
		kprint_count_dropped(blk->lines);
		blk->buf = NULL;
		goto out;
	}
	if (unlikely(!READ_ONCE(kprint_running))) {
		kprint_count_dropped(blk->lines);
		goto out;
	}

	id = atomic64_inc_return(&kprint_block_last_id);
	for (p = blk->buf; p < end; p += rec->len) {
		rec = p;
		rec->block_id = id;
	}
	kprint_commit(blk->buf, blk->len);
out:
	kprint_block_reset(blk);
}
EXPORT_SYMBOL_GPL(kprint_block_flush);

/**
 * kprint_block_abort() - throw a block away
 * @blk: the block
 *
 * Nothing of it reaches the ring, the multicast or printk, and no sequence
 * number is used up.  The block is left empty and can be reused.
 *
 * Context: Any context but NMI.
 */
void kprint_block_abort(struct kprint_block *blk)
{
	kprint_block_reset(blk);
}
EXPORT_SYMBOL_GPL(kprint_block_abort);
