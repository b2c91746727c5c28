// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's commits, in printk's order.
 */

/**
 * DOC: printk bridge order
 *
 * printk gives a record its seq when it reserves the record's slot.  That
 * is after the hook ran.  It commits the record once the text is rendered.
 * So the hook builds the record at vprintk_store()'s entry, and keeps it in
 * a pending slot of its CPU and interrupt context.
 *
 * The same ftrace_ops is on prb_commit() and prb_final_commit().
 * vprintk_store() calls them with interrupts off.  There the commit hook
 * takes the newest slot of the current task in that context.  The task may
 * have moved to another CPU before printk disabled interrupts: its slot is
 * found there.  The hook reads printk's seq and level from the struct
 * prb_reserved_entry it is given, and commits the record then.  kprint's
 * record carries @printk_seq, which is /dev/kmsg's seq.
 *
 * A record is committed only once printk's previous seq was: kprint's
 * order is printk's.  A fragment printk appended to a record carries that
 * record's seq, and may come after later records.  The wait for a turn
 * has a bound (KPRINT_BRIDGE_TURN_NS); a record that waited that long is
 * counted as late.  Three never wait: a commit in NMI, one inside the
 * hook, and a printk nested in another on the same CPU, whose turn the
 * outer one holds.
 *
 * printk may never commit a message: its recursion limit, or a failed
 * reservation.  Its slot stays filled until a later printk or commit of
 * the same task finds it below its own frame.  Then it is freed, and
 * counted (bridge_order: uncommitted).
 */

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "kprint_bridge_shared.h"
#include "kprint_core.h"

/* Where the hook is: vprintk_store(). */
unsigned long kprint_bridge_store_ip;

/* Where printk commits a record: prb_commit(), prb_final_commit(). */
unsigned long kprint_bridge_commit_ips[2];

/*
 * vprintk_store()'s code, [start, end): only its own calls commit the
 * message.  prb_reserve_in_last() commits the record it reopened when the
 * fragment does not fit (LOG_LINE_MAX) and prb_reserve() a record without
 * text when its text does not; the message is then reserved again.
 */
unsigned long kprint_bridge_store_start, kprint_bridge_store_end;

static bool kprint_bridge_from_store(unsigned long parent_ip)
{
	return !kprint_bridge_store_end ||
	       (parent_ip >= kprint_bridge_store_start &&
		parent_ip < kprint_bridge_store_end);
}

/* From vprintk_store()'s entry to printk's commit */

static struct kprint_bridge_pending *kprint_bridge_pend;
static DEFINE_PER_CPU(u64, kprint_bridge_stamp);

/* Fewer slots only make the full table's path testable. */
static unsigned int kprint_bridge_slots = KPRINT_BRIDGE_PENDING;
module_param_named(bridge_slots, kprint_bridge_slots, uint, 0444);
MODULE_PARM_DESC(bridge_slots,
		 "Messages kept per CPU and context until printk commits them (1-5, default 5; fewer for tests)");

static struct kprint_bridge_pending *kprint_bridge_pend_set(int cpu, int lvl)
{
	return &kprint_bridge_pend[(cpu * KPRINT_BRIDGE_LEVELS + lvl) *
				   KPRINT_BRIDGE_PENDING];
}

/*
 * Frees current's filled slots of @set whose vprintk_store() frame lay
 * below @sp: that frame returned without printk committing its message
 * (its recursion limit, a failed reservation).
 */
static void kprint_bridge_pending_stale(struct kprint_bridge_pending *set,
					unsigned long sp)
{
	unsigned int i;

	for (i = 0; i < KPRINT_BRIDGE_PENDING; i++)
		if (atomic_read(&set[i].state) == KPRINT_BRIDGE_P_FILLED &&
		    set[i].task == current && set[i].sp < sp &&
		    atomic_cmpxchg(&set[i].state, KPRINT_BRIDGE_P_FILLED,
				   KPRINT_BRIDGE_P_FREE) == KPRINT_BRIDGE_P_FILLED)
			atomic64_inc(&kprint_bridge_count.uncommitted);
}

/*
 * A slot of this CPU and context to fill, BUSY, or NULL; @sp is the stack
 * pointer at vprintk_store()'s entry.  When every slot is filled (tasks
 * preempted between the hook and printk's commit), the oldest is taken
 * back: its message cannot be bridged any more and is counted as
 * dropped-scratch.
 */
struct kprint_bridge_pending *kprint_bridge_pending_get(unsigned long sp)
{
	unsigned int i, slots = clamp(kprint_bridge_slots, 1U,
				      (unsigned int)KPRINT_BRIDGE_PENDING);
	struct kprint_bridge_pending *set, *p = NULL;

	if (in_nmi())
		return NULL;
	set = kprint_bridge_pend_set(smp_processor_id(),
				     interrupt_context_level());
	kprint_bridge_pending_stale(set, sp + 1);
	for (i = 0; i < slots; i++)
		if (atomic_cmpxchg(&set[i].state, KPRINT_BRIDGE_P_FREE,
				   KPRINT_BRIDGE_P_BUSY) == KPRINT_BRIDGE_P_FREE) {
			p = &set[i];
			goto found;
		}
	for (i = 0; i < slots; i++)
		if (atomic_read(&set[i].state) == KPRINT_BRIDGE_P_FILLED &&
		    (!p || set[i].stamp < p->stamp))
			p = &set[i];
	if (!p || atomic_cmpxchg(&p->state, KPRINT_BRIDGE_P_FILLED,
				 KPRINT_BRIDGE_P_BUSY) != KPRINT_BRIDGE_P_FILLED)
		return NULL;
	atomic64_inc(&kprint_bridge_count.dropped_scratch);
found:
	p->build = false;
	p->task = current;
	p->sp = sp;
	p->stamp = this_cpu_inc_return(kprint_bridge_stamp);
	return p;
}

/* Takes @p if it is current's filled slot. */
static bool kprint_bridge_pending_claim(struct kprint_bridge_pending *p)
{
	if (atomic_cmpxchg(&p->state, KPRINT_BRIDGE_P_FILLED,
			   KPRINT_BRIDGE_P_BUSY) != KPRINT_BRIDGE_P_FILLED)
		return false;
	if (p->task == current)
		return true;
	/* Refilled by its CPU for another task since it was looked at. */
	kprint_bridge_pending_fill(p);
	return false;
}

/*
 * A task preempted between the hook and printk's disabling interrupts
 * may commit on another CPU: its slot is found there.
 */
static struct kprint_bridge_pending *kprint_bridge_pending_find(unsigned long sp)
{
	struct kprint_bridge_pending *set;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		set = kprint_bridge_pend_set(cpu, 0);
		for (i = 0; i < KPRINT_BRIDGE_PENDING; i++)
			if (atomic_read(&set[i].state) == KPRINT_BRIDGE_P_FILLED &&
			    READ_ONCE(set[i].task) == current &&
			    set[i].sp >= sp &&
			    kprint_bridge_pending_claim(&set[i])) {
				atomic64_inc(&kprint_bridge_count.order_moved);
				return &set[i];
			}
	}
	return NULL;
}

/*
 * The message printk commits now, from the frame whose prb_commit() call
 * has stack pointer @sp: the newest slot of current in this context made
 * at or above @sp.  Slots made below it are messages printk refused from
 * inside this one (freed and counted as uncommitted).  @nested: another
 * slot above is pending too, the message printk prints from inside its own
 * printk (its reservation is held meanwhile).
 */
static struct kprint_bridge_pending *kprint_bridge_pending_take(unsigned long sp,
								 bool *nested)
{
	struct kprint_bridge_pending *set, *p = NULL;
	int lvl = interrupt_context_level();
	unsigned int i, n = 0;

	set = kprint_bridge_pend_set(smp_processor_id(), lvl);
	kprint_bridge_pending_stale(set, sp);
	for (i = 0; i < KPRINT_BRIDGE_PENDING; i++)
		if (atomic_read_acquire(&set[i].state) ==
			    KPRINT_BRIDGE_P_FILLED &&
		    set[i].task == current) {
			n++;
			if (!p || set[i].stamp > p->stamp)
				p = &set[i];
		}
	*nested = n > 1;
	if (p)
		return kprint_bridge_pending_claim(p) ? p : NULL;
	return lvl ? NULL : kprint_bridge_pending_find(sp);
}

/*
 * What printk's commit tells: kernel/printk/printk_ringbuffer.h's
 * structures, the same in 6.1 and 6.12, as far as the hook follows them
 * from the struct prb_reserved_entry that prb_commit() and
 * prb_final_commit() take to the record's struct printk_info.  Not in
 * include/: mirrored, and every read checked (kprint_bridge_prb_read()).
 */
struct kprint_prb_info {
	u64 seq;
	u64 ts_nsec;
	u16 text_len;
	u8 facility;
	u8 flags:5;
	u8 level:3;
	u32 caller_id;
	struct dev_printk_info dev_info;
};

/* struct prb_desc_ring, the first member of struct printk_ringbuffer. */
struct kprint_prb_desc_ring {
	unsigned int count_bits;
	void *descs;
	struct kprint_prb_info *infos;
};

struct kprint_prb_entry {
	struct kprint_prb_desc_ring *rb;
	unsigned long irqflags;
	unsigned long id;
	unsigned int text_space;
};

/* printk's ring once a read through it held (kprint_bridge_prb_read()). */
static struct kprint_prb_desc_ring *kprint_bridge_prb_ring;
static unsigned long kprint_bridge_prb_mask;
static struct kprint_prb_info *kprint_bridge_prb_infos;

/*
 * The first read through a ring: without faulting, and the ring is kept
 * (for plain reads, a good part of the cost otherwise) only if the
 * record's seq is at its descriptor's index (printk gives the record of
 * descriptor i the seqs i, i + count, ...) and its caller id is the
 * committer's: a layout that is not the mirrored one fails these.
 */
static noinline bool kprint_bridge_prb_learn(struct kprint_prb_desc_ring *ring,
					     unsigned long id)
{
	struct kprint_prb_info *infos, *info;
	unsigned long mask;
	unsigned int bits;
	u32 caller;
	u64 seq;

	if (!ring || get_kernel_nofault(bits, &ring->count_bits) ||
	    bits >= BITS_PER_LONG || get_kernel_nofault(infos, &ring->infos))
		return false;
	mask = (1UL << bits) - 1;
	info = &infos[id & mask];
	if (get_kernel_nofault(seq, &info->seq) ||
	    get_kernel_nofault(caller, &info->caller_id) ||
	    (seq ^ id) & mask || caller != kprint_bridge_caller_id())
		return false;
	WRITE_ONCE(kprint_bridge_prb_mask, mask);
	WRITE_ONCE(kprint_bridge_prb_infos, infos);
	smp_store_release(&kprint_bridge_prb_ring, ring);
	return true;
}

/*
 * printk's seq and level of the record @e commits, false if they cannot
 * be read.  @e is printk's own, on its stack; the ring it names is read
 * plainly once it is known, and every record checked as on the first
 * read.
 */
static bool kprint_bridge_prb_read(const struct kprint_prb_entry *e,
				   u64 *seq, u8 *level)
{
	struct kprint_prb_desc_ring *ring = e->rb;
	const struct kprint_prb_info *info;
	unsigned long id = e->id;

	if (unlikely(ring != smp_load_acquire(&kprint_bridge_prb_ring)) &&
	    !kprint_bridge_prb_learn(ring, id))
		return false;
	info = &READ_ONCE(kprint_bridge_prb_infos)[id & kprint_bridge_prb_mask];
	*seq = READ_ONCE(info->seq);
	if (unlikely((*seq ^ id) & kprint_bridge_prb_mask)) {
		*seq = 0;
		return false;
	}
	/*
	 * The seq alone still passes the turn on: prb_reserve() commits a
	 * record it found no room for before vprintk_store() set its caller.
	 */
	if (unlikely(info->caller_id != kprint_bridge_caller_id()))
		return false;
	*level = info->level;
	return true;
}

/*
 * Order.  printk gives a record its seq when it reserves its slot and
 * commits it after rendering its text: two CPUs may commit in the other
 * order.  The hook commits a record into kprint's ring only once every
 * earlier seq of printk is committed, so kprint's order is printk's.
 *
 * @kprint_bridge_next is the lowest seq not known committed (0 while not
 * known: the bridge just came on).  A commit marks its own seq done in
 * @kprint_bridge_done and moves @kprint_bridge_next over the run of done
 * seqs that follows.  It never jumps over a seq still being written: an
 * NMI's commit, or one nested in another printk on the same CPU, must not
 * let later records of other CPUs overtake the one it interrupted.  Every
 * seq printk reserves is committed (prb_reserve() commits even the record
 * it could not give room), so the run always closes.
 *
 * The wait runs with interrupts off, as printk's writer it waits for has
 * them, and at most KPRINT_BRIDGE_TURN_NS (then counted as late); never
 * in NMI, inside its own hook, or for a message printed while printing
 * another on this CPU: the one it interrupted cannot commit before it.
 * That nested record is committed at once, ahead of its turn, and counted
 * (overtook).
 */
#define KPRINT_BRIDGE_TURN_NS	(20 * NSEC_PER_MSEC)
/* Seqs in flight at once: a few per CPU and context, with room to spare. */
#define KPRINT_BRIDGE_TURNS	1024

static u64 kprint_bridge_next;
static u64 kprint_bridge_done[KPRINT_BRIDGE_TURNS];

/* Moves the turn over every done seq from @next on. */
static u64 kprint_bridge_turn_advance(u64 next)
{
	u64 prev;

	while (next &&
	       smp_load_acquire(&kprint_bridge_done[next % KPRINT_BRIDGE_TURNS]) ==
		       next + 1) {
		prev = cmpxchg64(&kprint_bridge_next, next, next + 1);
		next = prev == next ? next + 1 : prev;
	}
	return next;
}

/* Is @seq's turn here: is every earlier seq of printk committed? */
static bool kprint_bridge_turn_here(u64 seq)
{
	u64 next = kprint_bridge_turn_advance(READ_ONCE(kprint_bridge_next));

	return !next || next >= seq;
}

/*
 * The turn starts at @seq: when the bridge comes on, at the first commit
 * it sees (or the backlog's end), and past a gap wider than the table
 * holds, which only a seq never committed could leave.
 */
void kprint_bridge_turn_start(u64 seq)
{
	u64 old = READ_ONCE(kprint_bridge_next), prev;

	while (old < seq) {
		prev = cmpxchg64(&kprint_bridge_next, old, seq);
		if (prev == old)
			break;
		old = prev;
	}
}

static void kprint_bridge_turn_wait(u64 seq)
{
	u64 deadline;

	if (kprint_bridge_turn_here(seq))
		return;
	/*
	 * Not local_clock(): with an unstable TSC it stops a tick past the
	 * last tick with interrupts off, as they are here, and the wait
	 * would never end.  The clocksource itself moves on.
	 */
	deadline = ktime_get_mono_fast_ns() + KPRINT_BRIDGE_TURN_NS;
	while (!kprint_bridge_turn_here(seq)) {
		if (ktime_get_mono_fast_ns() > deadline) {
			/* The seqs before are not waited for again. */
			atomic64_inc(&kprint_bridge_count.order_late);
			kprint_bridge_turn_start(seq);
			return;
		}
		cpu_relax();
	}
}

/* printk's @seq is committed. */
static void kprint_bridge_turn_pass(u64 seq)
{
	u64 next = READ_ONCE(kprint_bridge_next);

	if (!next) {
		kprint_bridge_turn_start(seq + 1);
		return;
	}
	if (seq < next)
		return;
	if (seq - next >= KPRINT_BRIDGE_TURNS) {
		atomic64_inc(&kprint_bridge_count.order_late);
		kprint_bridge_turn_start(seq + 1);
		return;
	}
	smp_store_release(&kprint_bridge_done[seq % KPRINT_BRIDGE_TURNS],
			  seq + 1);
	kprint_bridge_turn_advance(next);
}

/* Commits @p's record with what printk stored: its seq and level. */
static void kprint_bridge_commit_pending(struct kprint_bridge_pending *p,
					 bool known, u64 pseq, u8 level)
{
	struct kprint_rec *rec = (struct kprint_rec *)p->buf;
	u64 seq;

	if (known) {
		rec->printk_seq = pseq;
		rec->level = level;
	}
	seq = kprint_commit(rec, rec->len);
	if (!seq) {
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
		return;
	}
	this_cpu_inc(kprint_bridge_hot.bridged);
	if (p->open || p->merged)
		kprint_bridge_line_set(p->caller_id, seq, p->open, p->merged);
}

DEFINE_PER_CPU(bool, kprint_bridge_busy);

/* On prb_commit() and prb_final_commit(): printk stores a message. */
void notrace kprint_bridge_commit_hook(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct pt_regs *regs = kprint_bridge_regs(fregs);
	struct kprint_bridge_pending *p = NULL;
	bool nested = false, known, busy;
	unsigned long flags;
	u64 pseq = 0;
	u8 level = 0;

	if (unlikely(!regs))
		return;
	preempt_disable_notrace();
	local_irq_save(flags);
	known = kprint_bridge_prb_read((void *)regs_get_kernel_argument(regs, 0),
				       &pseq, &level);
	if (unlikely(!known))
		atomic64_inc(&kprint_bridge_count.unread);
	busy = this_cpu_read(kprint_bridge_busy);
	if (!in_nmi() && kprint_bridge_from_store(parent_ip))
		p = kprint_bridge_pending_take(kernel_stack_pointer(regs),
						   &nested);
	/*
	 * Taken live, so not again from the backlog: only what the entry hook
	 * saw.  A message that entered printk before the hook went on has no
	 * slot, and the backlog is where it is read.
	 */
	if (known && (p || in_nmi()))
		kprint_bridge_load_note(pseq);
	if (known && !in_nmi() && !busy) {
		if (!nested)
			kprint_bridge_turn_wait(pseq);
		else if (p && p->build && !kprint_bridge_turn_here(pseq))
			atomic64_inc(&kprint_bridge_count.order_overtook);
	}
	if (p) {
		if (p->build && !busy) {
			this_cpu_write(kprint_bridge_busy, true);
			kprint_bridge_commit_pending(p, known, pseq, level);
			this_cpu_write(kprint_bridge_busy, false);
		}
		atomic_set_release(&p->state, KPRINT_BRIDGE_P_FREE);
	}
	if (pseq)
		kprint_bridge_turn_pass(pseq);
	local_irq_restore(flags);
	preempt_enable_notrace();
}

/**
 * kprint_bridge_order_alloc() - make the pending slots
 *
 * Context: Process context (kprint_bridge_init()).
 * Return: 0 or -ENOMEM.
 */
int kprint_bridge_order_alloc(void)
{
	kprint_bridge_pend = vzalloc(array3_size(nr_cpu_ids, KPRINT_BRIDGE_LEVELS *
						 KPRINT_BRIDGE_PENDING,
						 sizeof(*kprint_bridge_pend)));
	return kprint_bridge_pend ? 0 : -ENOMEM;
}

/* Frees the pending slots, once no CPU is in the hook. */
void kprint_bridge_order_free(void)
{
	vfree(kprint_bridge_pend);
	kprint_bridge_pend = NULL;
}

/*
 * Which record is next in printk's order is learnt anew; a message the
 * hook kept when it went off was never paired (no CPU is in the hook now).
 */
void kprint_bridge_order_reset(void)
{
	WRITE_ONCE(kprint_bridge_next, 0);
	memset(kprint_bridge_pend, 0, array3_size(nr_cpu_ids,
						  KPRINT_BRIDGE_LEVELS *
						  KPRINT_BRIDGE_PENDING,
						  sizeof(*kprint_bridge_pend)));
}
