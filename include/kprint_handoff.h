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
 * the message counts (format id, tags, level as stored); kprint's own
 * echo of a record writes one itself, right before its vprintk_emit(),
 * bridge or not, saying that it is the echo.  The return finds the slot of
 * its own call and counts under that key (the echo only in a total: its
 * record counted it), or without one under the plain key it computes
 * itself.
 * No program runs on kprint.ko's side, so kprint.ko loading, unloading
 * and switching the bridge can neither double nor lose a count.
 *
 * The slot lives in one block per CPU and interrupt context level (task,
 * softirq, hardirq, NMI), in an array kprint.ko allocates and announces
 * through kprint_trace_handoff().  A block is written only on its CPU, at
 * its context level, with preemption off, and read there too.  Each
 * message overwrites its block's slot: the bridge's hook and the return
 * bracket vprintk_store() alone, which runs with interrupts off, so no
 * other message of the same context comes in between (but a printk from
 * inside printk's own store, whose slot replaces the outer message's: the
 * outer one then counts plain).
 * The slot is the call's when the task, its vprintk_store() arguments
 * (va_list and format pointers) and the task's context switch count
 * match.  A task switched out in between (a preemptible kernel: at the
 * first or last instructions) takes it with the same task and pointers:
 * its own if it came back to this CPU; if it moved, it finds another
 * message's, or, from the same call site and stack, an older one's
 * (docs/bpf-counters.md).
 *
 * Needs __u32 and __u64 from its includer (<linux/types.h> in the kernel,
 * vmlinux.h in BPF).
 */
#ifndef KPRINT_HANDOFF_H
#define KPRINT_HANDOFF_H

#define KPRINT_HANDOFF_CONTEXTS	4	/* task, softirq, hardirq, NMI */
#define KPRINT_HANDOFF_TAGS	80	/* "subsystem\0module\0", cut */

/* The message counts under the slot's key. */
#define KPRINT_HANDOFF_F_BRIDGED	1U
/*
 * kprint's own echo of a record, which counts as that record (kprint
 * formats), not again as a printk: only in the echo total.  Written by the
 * echo itself, with the bridge on or off (kernel/kprint_handoff.c).
 */
#define KPRINT_HANDOFF_F_ECHO		2U

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
	__u32 flags;		/* KPRINT_HANDOFF_F_*: one of them */
	__u32 format_len;	/* bytes of the format at @format */
	__u64 format;		/* the caller's format, valid during the call */
};

/*
 * One block per CPU and context level: the last message's slot, between
 * two copies of its number, so that a reader gets it with one copy of
 * @begin .. @end and knows it whole when the two are equal (copied in
 * ascending order; a writer is never interrupted by a reader of its
 * block, only a preempted reader by writers).
 */
struct kprint_handoff_block {
	__u64 begin;		/* slots written, before this one */
	struct kprint_handoff_head head;
	__u64 end;		/* slots written, after it */
	/* For a new counter entry only: subsystem, NUL, module, NUL. */
	char tags[KPRINT_HANDOFF_TAGS];
	__u64 pad[3];		/* a block per three cache lines */
};

#endif /* KPRINT_HANDOFF_H */
