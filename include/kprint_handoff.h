/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The printk bridge's handoff to the BPF printk counter: kprint.ko writes,
 * bpf/kprint_counter.bpf.c reads (docs/bpf-counters.md, "One hook per
 * message").
 *
 * The counter has one hook per printk message, the return of
 * vprintk_store(), whether kprint.ko is loaded or not.  While the bridge's
 * hook on vprintk_store()'s entry is registered, it writes a slot for
 * every message it sees, inside that very call, saying under which key
 * the message counts (format id, tags, level as stored) or that it is
 * kprint's own echo; the return finds the slot of its own call and counts
 * under that key, or without one under the plain key it computes itself.
 * No program runs on kprint.ko's side, so kprint.ko loading, unloading
 * and switching the bridge can neither double nor lose a count.
 *
 * Slots live in one block per CPU and interrupt context level (task,
 * softirq, hardirq, NMI), each block a ring of KPRINT_HANDOFF_SLOTS, in an
 * array kprint.ko allocates and announces through kprint_trace_handoff().
 * A block is written only on its CPU, at its context level, with
 * preemption off, and read there too.  A call's slot is the newest one
 * whose key matches: the task, its vprintk_store() arguments (va_list and
 * format pointers) and the task's context switch count, which proves the
 * slot this call's.  A task switched out in between (a preemptible kernel)
 * takes the newest slot with its task and pointers: its own if it came
 * back to this CPU; if it moved, it finds none, or an older message's of
 * the same call site and stack (docs/bpf-counters.md).
 *
 * Needs __u32 and __u64 from its includer (<linux/types.h> in the kernel,
 * vmlinux.h in BPF).
 */
#ifndef KPRINT_HANDOFF_H
#define KPRINT_HANDOFF_H

#define KPRINT_HANDOFF_CONTEXTS	4	/* task, softirq, hardirq, NMI */
#define KPRINT_HANDOFF_SLOTS	8	/* per block; a power of two */
#define KPRINT_HANDOFF_TAGS	80	/* "subsystem\0module\0", cut */

/* The message counts under the slot's key (else: kprint's own echo). */
#define KPRINT_HANDOFF_F_BRIDGED	1U

/* A slot's part that a reader compares, then counts with. */
struct kprint_handoff_head {
	/* Which call: compared as a whole. */
	__u64 task;		/* current */
	__u64 args;		/* vprintk_store()'s va_list pointer */
	__u64 fmt;		/* its format pointer, as passed */
	__u64 switches;		/* current->nvcsw + current->nivcsw */
	/* What it counts under. */
	__u64 format_id;	/* FNV-1a 64 of the format, as the record's */
	__u64 tags_id;		/* FNV-1a 64 of the used bytes of tags */
	__u32 level;		/* the level printk stores */
	__u32 class;		/* KPRINT_CLASS_NONE */
	__u32 flags;		/* KPRINT_HANDOFF_F_* */
	__u32 format_len;	/* bytes of the format at @format */
	__u64 format;		/* the caller's format, valid during the call */
};

struct kprint_handoff_slot {
	struct kprint_handoff_head head;
	/* For a new counter entry only: subsystem, NUL, module, NUL. */
	char tags[KPRINT_HANDOFF_TAGS];
};

/*
 * The newest slot's head is also kept between two copies of its number,
 * so that a reader gets it with one copy of struct kprint_handoff_newest
 * and knows it whole when @begin equals @end (copied in ascending order,
 * and a writer is never interrupted by a reader of its block, only a
 * preempted reader by writers).  The ring (but its oldest slot, which the
 * next write reuses) is for a call whose slot is no longer the newest: printk nested inside it (in the same context, which
 * only a printk from inside printk's own store can be).
 */
struct kprint_handoff_newest {
	__u64 begin;		/* slots written, before the copy */
	struct kprint_handoff_head head;
	__u64 end;		/* slots written, after it */
};

struct kprint_handoff_block {
	struct kprint_handoff_newest newest;
	__u64 pad[5];		/* the slots start on their own cache line */
	struct kprint_handoff_slot slot[KPRINT_HANDOFF_SLOTS];
};

#endif /* KPRINT_HANDOFF_H */
