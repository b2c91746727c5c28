// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's continuation lines (pr_cont()).
 */

/**
 * DOC: printk bridge continuation lines
 *
 * A KERN_CONT fragment is a record of its own, flagged
 * KPRINT_RECORD_F_CONT.  Its @continues is the seq of the record that
 * began its caller's line, if that line is still open (no newline yet).
 * The caller is printk's: the task's pid, or 0x80000000 + CPU outside
 * task context.  A fragment whose line is not open is a line of its own,
 * in printk and in the bridge alike.
 *
 * printk merges a fragment into the line's record only while no other
 * caller's record came in between, and while the line fits LOG_LINE_MAX.
 * The bridge links a fragment to its caller's line even when printk did
 * not.  So a reader can rebuild each caller's line.
 *
 * Whether printk merged it, the record's @printk_seq says: the line's seq,
 * or its own.  Its level is the one printk stored.  Both are read from
 * printk's record at its commit, not guessed.  (The BPF counter still gets
 * the level the hook expects at entry.)
 */

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/spinlock.h>

#include "kprint_bridge_shared.h"

/* printk callers whose open line (pr_cont) is remembered. */
#define KPRINT_BRIDGE_LINES_BITS	8
#define KPRINT_BRIDGE_LINES		(1U << KPRINT_BRIDGE_LINES_BITS)

static struct kprint_bridge_line kprint_bridge_lines[KPRINT_BRIDGE_LINES];
static DEFINE_RAW_SPINLOCK(kprint_bridge_lines_lock);

/*
 * The newest record of printk's ring as far as the bridge knows: the
 * caller id and level of the last message it saw, and whether a fragment
 * of that caller may still be appended to it (printk has not finalized
 * it).  Packed in one word so that paths which cannot take the lock (NMI)
 * may close it with one store.
 */
#define KPRINT_BRIDGE_LAST_OPEN		BIT_ULL(63)
#define KPRINT_BRIDGE_LAST_LEVEL(w)	((u8)((w) >> 32) & 7)
#define KPRINT_BRIDGE_LAST_CALLER(w)	((u32)(w))
static u64 kprint_bridge_last;

/* A message the bridge does not build ends the newest record's line. */
void kprint_bridge_last_close(void)
{
	WRITE_ONCE(kprint_bridge_last, 0);
}

static struct kprint_bridge_line *kprint_bridge_line(u32 caller)
{
	return &kprint_bridge_lines[hash_32(caller, KPRINT_BRIDGE_LINES_BITS)];
}

/**
 * kprint_bridge_line_get() - the line a message of @caller continues
 * @caller: printk's caller id of the message
 * @cont: the message is a KERN_CONT fragment
 * @open: it does not end its line (no newline, no dev_info)
 * @level: in: its own level as printk stores a record of its own; out: the
 *	level printk stores it with
 * @line: the open line @caller continues
 *
 * Decides like vprintk_store() whether printk appends the message to the
 * newest record of its ring, and makes the message the newest record.  A
 * message that neither continues nor leaves a line open closes @caller's
 * line here, so that only the others need kprint_bridge_line_set().
 * Return: true if @line is the open line of @caller that @cont continues.
 */
bool kprint_bridge_line_get(u32 caller, bool cont, bool open,
			    u8 *level, struct kprint_bridge_line *line)
{
	struct kprint_bridge_line *l = kprint_bridge_line(caller);
	bool has_line = false;
	u64 last;

	/*
	 * Most messages are whole lines of a caller with no line open: they
	 * only become the newest record, one store, as a message the bridge
	 * does not build does (kprint_bridge_last_close()).  Only the caller
	 * itself opens its line, so that it is not open cannot change under
	 * it.
	 */
	if (!cont && !open &&
	    (READ_ONCE(l->caller) != caller || !READ_ONCE(l->open))) {
		WRITE_ONCE(kprint_bridge_last, (u64)*level << 32 | caller);
		return false;
	}

	raw_spin_lock(&kprint_bridge_lines_lock);
	if (cont) {
		*line = *l;
		has_line = line->open && line->caller == caller;
	} else if (!open && l->caller == caller) {
		l->open = false;
	}
	last = READ_ONCE(kprint_bridge_last);
	if (cont && (last & KPRINT_BRIDGE_LAST_OPEN) &&
	    KPRINT_BRIDGE_LAST_CALLER(last) == caller)
		/* Appended: printk keeps its record's level. */
		*level = KPRINT_BRIDGE_LAST_LEVEL(last);
	WRITE_ONCE(kprint_bridge_last,
		   (open ? KPRINT_BRIDGE_LAST_OPEN : 0) |
		   (u64)*level << 32 | caller);
	raw_spin_unlock(&kprint_bridge_lines_lock);
	return has_line;
}

void kprint_bridge_line_set(u32 caller, u64 seq, bool open, bool cont)
{
	struct kprint_bridge_line *line;

	raw_spin_lock(&kprint_bridge_lines_lock);
	line = kprint_bridge_line(caller);
	if (cont) {
		/* A fragment keeps the line's first record. */
		if (line->caller == caller)
			line->open = open;
	} else {
		line->caller = caller;
		line->open = open;
		line->seq = seq;
	}
	raw_spin_unlock(&kprint_bridge_lines_lock);
}
