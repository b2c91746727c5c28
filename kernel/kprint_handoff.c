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
 * the bridge's key.  Unregistering the bridge's hook clears the slots, so
 * that a later message of the same call site, task and stack cannot take
 * the key of an earlier one.
 *
 * The counter learns where the slots are from kprint_trace_handoff(), a
 * kprobe point like kprint_trace_record(): called when the slots are made
 * and freed, and again whenever the bridge parameter is read, so that a
 * counter attached after kprint.ko loaded asks by reading it.
 */

#include <linux/compiler.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "kprint_bridge.h"
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
 * kprint_handoff_clear() - forget every slot
 *
 * Only each slot's task is cleared, one store: a reader copying it
 * meanwhile gets it whole, before or after.  Until this runs, a message
 * printed after the hook was removed can still match its call site's
 * last slot (docs/bpf-counters.md).
 *
 * Context: Process context, the bridge's hook unregistered (no writer).
 */
void kprint_handoff_clear(void)
{
	unsigned int i;

	for (i = 0; i < nr_cpu_ids * KPRINT_HANDOFF_CONTEXTS; i++)
		WRITE_ONCE(kprint_handoff_blocks[i].head.task, 0);
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
 * Context: Process context (module init), before the bridge's hook.
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
 * Context: Process context (module exit), the bridge's hook unregistered.
 */
void kprint_handoff_exit(void)
{
	struct kprint_handoff_block *blocks = kprint_handoff_blocks;

	kprint_trace_handoff(NULL, 0);
	kprint_handoff_clear();
	kprint_handoff_blocks = NULL;
	kvfree(blocks);
}
