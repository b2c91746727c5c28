// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's handoff to the BPF printk counter.
 */

/**
 * DOC: handoff
 *
 * bpf/kprint_counter.bpf.c counts every printk message once, at the return
 * of vprintk_store(), its one hook per message.  What only the bridge knows
 * of a message (its module, the level printk stored, the caller's format
 * inside dev_printk()'s %pV) reaches that hook through the slots described
 * in include/kprint_handoff.h: the bridge writes one per message its hook
 * sees, the return reads the one of its own call.
 *
 * Nothing on this side runs a BPF program, so the count of a message never
 * depends on two hooks agreeing: a message the bridge wrote no slot for
 * (kprint.ko absent, the bridge off or not yet registered) is counted by
 * the return with the key it computes itself; one it did is counted under
 * the bridge's key.  kprint's own echo of a record writes its slot itself,
 * whether the bridge is on or not, so that the return does not count as a
 * printk what the record was counted as already (kprint_handoff_echo()).
 * Unregistering the bridge's hook clears the slots, so
 * that a later message of the same call site, task and stack cannot take
 * the key of an earlier one.
 *
 * The counter learns where the slots are from kprint_trace_handoff(), a
 * kprobe point like kprint_trace_record(): called when the slots are made
 * and freed, and again whenever the bridge parameter is read, so that a
 * counter attached after kprint.ko loaded asks by reading it.
 */

#include <linux/compiler.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include <kprint_handoff.h>

#include "kprint_handoff.h"
#include "kprint_record.h"

static struct kprint_handoff_block *kprint_handoff_blocks;

/**
 * kprint_trace_handoff() - where tracers learn where the slots are
 * @blocks: KPRINT_HANDOFF_CONTEXTS blocks per possible CPU, CPU-major;
 *	NULL once they are gone
 * @cpus: the CPUs @blocks has room for (nr_cpu_ids)
 *
 * For the kprobe "kprint:kprint_trace_handoff" of bpf/kprint_counter.bpf.c,
 * which holds no module reference; __noipa and the empty asm keep the call
 * and its arguments as declared.
 *
 * Context: Process context.
 */
__noipa void kprint_trace_handoff(const struct kprint_handoff_block *blocks,
				  u32 cpus)
{
	asm volatile("");
}

/**
 * kprint_handoff_begin() - open the slot of the message being stored
 * @args: vprintk_store()'s va_list pointer
 * @fmt: vprintk_store()'s format pointer
 *
 * Fills in the key (task .. switches); the caller fills in what the
 * message counts under, straight into the slot (format_id, tags_id, level,
 * class, flags and the format; flags 0 for a message the counter must
 * count itself, kprint's own echo), then closes it with
 * kprint_handoff_end().  Written in place, not assembled and copied: this
 * is on every printk's path.
 *
 * Context: The bridge's hook, preemption off, any context (NMI included).
 * Return: the slot's head, or NULL if there are no slots.
 */
struct kprint_handoff_head *kprint_handoff_begin(const void *args,
						 const char *fmt)
{
	struct kprint_handoff_block *blk = kprint_handoff_blocks;

	if (unlikely(!blk))
		return NULL;
	blk += smp_processor_id() * KPRINT_HANDOFF_CONTEXTS +
	       interrupt_context_level();

	/* Between its two numbers: a reader that sees them differ skips it. */
	WRITE_ONCE(blk->begin, blk->end + 1);
	barrier();
	blk->head.task = (unsigned long)current;
	blk->head.args = (unsigned long)args;
	blk->head.fmt = (unsigned long)fmt;
	blk->head.switches = current->nvcsw + current->nivcsw;
	return &blk->head;
}

/**
 * kprint_handoff_end() - close the slot kprint_handoff_begin() opened
 * @h: its head
 * @tags: subsystem, NUL, module, NUL (NULL with flags 0)
 * @tags_len: bytes of @tags
 *
 * Context: As kprint_handoff_begin(), right after it.
 */
void kprint_handoff_end(struct kprint_handoff_head *h, const char *tags,
			size_t tags_len)
{
	struct kprint_handoff_block *blk =
		container_of(h, struct kprint_handoff_block, head);

	tags_len = min(tags_len, sizeof(blk->tags));
	if (tags)
		kprint_copy(blk->tags, tags, tags_len);
	/* Cut tags still end in NUL, NUL: the module read as empty. */
	if (tags_len >= sizeof(blk->tags) - 1)
		blk->tags[sizeof(blk->tags) - 2] = blk->tags[sizeof(blk->tags) - 1] = '\0';
	barrier();
	WRITE_ONCE(blk->end, blk->begin);
}

/**
 * kprint_handoff_echo() - hand kprint's own echo of a record over
 * @args: the va_list pointer the echo passes to vprintk_emit()
 * @fmt: its format
 *
 * The record was counted already, by the counter's kprobe on
 * kprint_trace_record(); its echo is one more printk message, which the
 * return of vprintk_store() must count only in its echo total, not as a
 * plain printk of format "%s".  The slot is written here, by the echo,
 * not by the bridge's hook, so it says so with the bridge on or off; it
 * has the key a bridged message's slot has (vprintk_emit() passes @args
 * and @fmt on to vprintk_store() as they are), so a printk from inside
 * that store, which another slot replaces, counts as what it is.
 *
 * Context: Any context but NMI, preemption off, right before the echo's
 * vprintk_emit() (kprint_own_printk_begin() .. _end()).
 * Return: the slot's head, for kprint_handoff_echo_end(); NULL if none.
 */
struct kprint_handoff_head *kprint_handoff_echo(const void *args,
						const char *fmt)
{
	struct kprint_handoff_head *h = kprint_handoff_begin(args, fmt);

	if (!h)
		return NULL;
	h->format_id = 0;
	h->tags_id = 0;
	h->level = 0;
	h->class = KPRINT_CLASS_NONE;
	h->flags = KPRINT_HANDOFF_F_ECHO;
	h->format_len = 0;
	h->format = 0;
	kprint_handoff_end(h, NULL, 0);
	return h;
}

/**
 * kprint_handoff_echo_end() - withdraw the echo's slot
 * @h: what kprint_handoff_echo() returned
 *
 * With the bridge off nothing else writes the slot: a later printk of
 * kprint.ko with the same format pointer (a merged "%s\n") from the same
 * task and stack must not find it.  One store, like kprint_handoff_clear().
 *
 * Context: As kprint_handoff_echo(), right after the echo's vprintk_emit().
 */
void kprint_handoff_echo_end(struct kprint_handoff_head *h)
{
	if (h)
		WRITE_ONCE(h->task, 0);
}

/*
 * This CPU's slots, on it, with interrupts off (an IPI), except an echo's:
 * the echo withdraws its slot itself (kprint_handoff_echo_end()), and one
 * interrupted between writing it and its vprintk_store() would count as a
 * plain printk "%s" if its slot were cleared here.
 */
static void kprint_handoff_clear_cpu(void *unused)
{
	struct kprint_handoff_block *blk = kprint_handoff_blocks +
		smp_processor_id() * KPRINT_HANDOFF_CONTEXTS;
	unsigned int level;

	for (level = 0; level < KPRINT_HANDOFF_CONTEXTS; level++)
		if (!(READ_ONCE(blk[level].head.flags) & KPRINT_HANDOFF_F_ECHO))
			WRITE_ONCE(blk[level].head.task, 0);
}

/**
 * kprint_handoff_clear() - forget every slot
 *
 * Only each slot's task is cleared, one store: a reader copying it
 * meanwhile gets it whole, before or after.  Until this runs, a message
 * printed after the hook was removed can still match its call site's
 * last slot (docs/bpf-counters.md).  The echo still writes slots: each
 * online CPU clears its own, so that none is cleared under an echo in
 * progress; an offline CPU runs no echo.
 *
 * Context: Process context, the bridge's hook unregistered (no writer
 * but the echo).
 */
void kprint_handoff_clear(void)
{
	struct kprint_handoff_block *blk;
	unsigned int cpu, i;

	cpus_read_lock();
	on_each_cpu(kprint_handoff_clear_cpu, NULL, 1);
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		blk = kprint_handoff_blocks + cpu * KPRINT_HANDOFF_CONTEXTS;
		for (i = 0; i < KPRINT_HANDOFF_CONTEXTS; i++)
			WRITE_ONCE(blk[i].head.task, 0);
	}
	cpus_read_unlock();
}

/**
 * kprint_handoff_announce() - tell tracers where the slots are, again
 *
 * Context: Process context.
 */
void kprint_handoff_announce(void)
{
	kprint_trace_handoff(kprint_handoff_blocks, nr_cpu_ids);
}

/**
 * kprint_handoff_init() - make the slots and announce them
 *
 * Context: Process context (module init), before the bridge's hook and
 * before any record is stored (kprint_core_init()).
 * Return: 0 or -ENOMEM.
 */
int kprint_handoff_init(void)
{
	kprint_handoff_blocks = kvcalloc(nr_cpu_ids * KPRINT_HANDOFF_CONTEXTS,
					 sizeof(*kprint_handoff_blocks),
					 GFP_KERNEL);
	if (!kprint_handoff_blocks)
		return -ENOMEM;
	kprint_handoff_announce();
	return 0;
}

/**
 * kprint_handoff_exit() - withdraw the slots and free them
 *
 * A counter still reading the old address after the announcement reads
 * with bpf_probe_read_kernel(), which cannot fault, and matches no key:
 * its slot would need this very call's task, arguments and switch count.
 *
 * Context: Process context (module exit), the bridge's hook unregistered
 * and no record stored or echoed any more (kprint_core_exit()).
 */
void kprint_handoff_exit(void)
{
	struct kprint_handoff_block *blocks = kprint_handoff_blocks;

	kprint_trace_handoff(NULL, 0);
	kprint_handoff_clear();
	kprint_handoff_blocks = NULL;
	kvfree(blocks);
}
