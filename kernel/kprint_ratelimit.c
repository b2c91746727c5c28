// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the ratelimit hook.
 *
 * DOC: overview
 *
 * ___ratelimit(rs, func) returns 0 when its caller must drop a message
 * (printk_ratelimited(), dev_*_ratelimited(), net_ratelimit() ...).  BPF
 * counts those calls per state and caller (bpf/kprint_counter.bpf.c), but
 * on Debian's 6.1 lib/ratelimit.c is notrace: kprobe events and fentry
 * refuse it, and only a module's own register_kretprobe() can probe it.
 *
 * So kprint.ko holds a kretprobe on ___ratelimit(): its entry handler
 * keeps (rs, func), its return handler queues them when the return value
 * is 0.  Tracers cannot see them from there: a BPF kprobe that fires while
 * a kprobe handler runs on the CPU is missed (current_kprobe is set).  The
 * queue is per CPU and lock-free, since ___ratelimit() is called from any
 * context, NMI included; an irq_work on the same CPU empties it by calling
 * kprint_trace_ratelimit() once per refused call, where BPF has its kprobe
 * "kprint:kprint_trace_ratelimit".
 *
 * That irq_work must not run inside the kretprobe's handler either, and an
 * irq_work raised from there would: the rethook trampoline keeps the
 * interrupt state of the probed return (on, usually), and current_kprobe
 * stays set until the handler returns, so a self-IPI taken there makes the
 * BPF kprobe a miss.  So the work is lazy (the next tick; a kthread on
 * PREEMPT_RT), and when it finds that it interrupted our return handler
 * (its per-CPU busy count) it goes again at the tick after.  What stays
 * open is the few instructions of the trampoline around our handler, and
 * another module's kprobe handler that a tick interrupts: such a miss is in
 * the BPF probe's own miss count (kprobe_profile), not ours.
 *
 * Nothing here prints, sleeps or takes a lock: the handlers run inside
 * printk_ratelimited() callers, with preemption off, in any context.  A
 * refused call that finds the queue full is counted as lost; the calls the
 * kretprobe itself missed (no free instance, or a kprobe already running on
 * the CPU) are its nmissed; both are in the stats reply.
 */

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/ratelimit.h>

#include <asm/local.h>

#include "kprint_ratelimit.h"
#include "kprint_stats.h"

/* Refused calls queued per CPU; a power of two. */
#define KPRINT_RL_SLOTS		256
#define KPRINT_RL_MASK		(KPRINT_RL_SLOTS - 1)

static bool kprint_rl_enable = true;
module_param_named(ratelimit, kprint_rl_enable, bool, 0444);
MODULE_PARM_DESC(ratelimit,
		 "Show every call ___ratelimit() refuses to tracers (kprint:kprint_trace_ratelimit; default Y)");

/* The arguments of one ___ratelimit() call, kept from entry to return. */
struct kprint_rl_call {
	const struct ratelimit_state *rs;
	const char *func;
};

/*
 * One refused call.  @rs is written last and cleared by the consumer: a
 * slot reserved by a producer that an interrupt or NMI cut short reads
 * NULL, and the consumer stops there until that producer raises the work
 * again.
 */
struct kprint_rl_slot {
	const struct ratelimit_state *rs;
	const char *func;
};

/*
 * Producers are the return handlers on this CPU (which nest: task,
 * softirq, hardirq, NMI) and reserve a slot by a local cmpxchg of @head;
 * the one consumer is @work, on this CPU too, which alone moves @tail.
 * @busy counts the return handlers running on this CPU.
 */
struct kprint_rl_cpu {
	local_t head;
	unsigned long tail;
	unsigned int busy;
	struct irq_work work;
	struct kprint_rl_slot slot[KPRINT_RL_SLOTS];
};

static DEFINE_PER_CPU(struct kprint_rl_cpu, kprint_rl_cpu);

static struct {
	atomic64_t queued;
	atomic64_t lost;
	atomic64_t traced;
} kprint_rl_count;

static bool kprint_rl_registered;

/**
 * kprint_trace_ratelimit() - where tracers see each call ___ratelimit() refused
 * @rs: the ratelimit state the caller passed
 * @func: the name the caller passed (its __func__ for printk_ratelimited()
 *	and friends, "net_ratelimit" for net_ratelimit(), the writer's comm
 *	for /dev/kmsg)
 *
 * bpf/kprint_counter.bpf.c counts with a kprobe here, defined through
 * tracefs as "kprint:kprint_trace_ratelimit" like the one on
 * kprint_trace_record(): it holds no module reference and comes back when
 * kprint.ko is loaded again.  Called once per refused call, shortly after
 * it (from an irq_work on the caller's CPU), never from a kprobe handler.
 * __noipa and the empty asm keep the call and its arguments as declared.
 *
 * Context: Hard interrupt (a lazy irq_work; a kthread on PREEMPT_RT).
 * @func is the caller's string: a module that called ___ratelimit() and
 * is unloaded in between leaves it dangling, so readers must read it
 * fault-safe (BPF does).
 */
__noipa void kprint_trace_ratelimit(const struct ratelimit_state *rs,
				    const char *func)
{
	asm volatile("");
}

/* The irq_work: hand every complete slot to kprint_trace_ratelimit(). */
static void kprint_rl_drain(struct irq_work *work)
{
	struct kprint_rl_cpu *c = container_of(work, struct kprint_rl_cpu, work);
	unsigned long tail = c->tail;

	/* Inside our handler a kprobe is running: BPF would miss. Later. */
	if (READ_ONCE(c->busy)) {
		irq_work_queue(work);
		return;
	}
	while (tail != (unsigned long)local_read(&c->head)) {
		struct kprint_rl_slot *s = &c->slot[tail & KPRINT_RL_MASK];
		const struct ratelimit_state *rs = READ_ONCE(s->rs);
		const char *func;

		if (!rs)
			break;
		func = READ_ONCE(s->func);
		WRITE_ONCE(s->rs, NULL);
		/* Producers are on this CPU: order for them, not for others. */
		barrier();
		WRITE_ONCE(c->tail, ++tail);
		kprint_trace_ratelimit(rs, func);
		atomic64_inc(&kprint_rl_count.traced);
	}
}

static void kprint_rl_queue(const struct ratelimit_state *rs, const char *func)
{
	struct kprint_rl_cpu *c = this_cpu_ptr(&kprint_rl_cpu);
	struct kprint_rl_slot *s;
	long head;

	do {
		head = local_read(&c->head);
		/* A stale tail only makes the queue look fuller. */
		if ((unsigned long)head - READ_ONCE(c->tail) >= KPRINT_RL_SLOTS) {
			atomic64_inc(&kprint_rl_count.lost);
			return;
		}
	} while (local_cmpxchg(&c->head, head, head + 1) != head);

	s = &c->slot[head & KPRINT_RL_MASK];
	WRITE_ONCE(s->func, func);
	barrier();
	WRITE_ONCE(s->rs, rs);
	atomic64_inc(&kprint_rl_count.queued);
	/* NMI-safe; a work already pending takes this slot too. */
	irq_work_queue(&c->work);
}

static int kprint_rl_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kprint_rl_call *call = (struct kprint_rl_call *)ri->data;

	call->rs = (const struct ratelimit_state *)regs_get_kernel_argument(regs, 0);
	call->func = (const char *)regs_get_kernel_argument(regs, 1);
	return 0;
}

static int kprint_rl_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct kprint_rl_call *call = (const struct kprint_rl_call *)ri->data;
	struct kprint_rl_cpu *c = this_cpu_ptr(&kprint_rl_cpu);

	if (regs_return_value(regs) || !call->rs)
		return 0;
	/* Interrupts and NMIs nest, each restoring the count it found. */
	WRITE_ONCE(c->busy, c->busy + 1);
	barrier();
	kprint_rl_queue(call->rs, call->func);
	barrier();
	WRITE_ONCE(c->busy, c->busy - 1);
	return 0;
}

static struct kretprobe kprint_rl_probe = {
	.kp.symbol_name = "___ratelimit",
	.entry_handler = kprint_rl_entry,
	.handler = kprint_rl_return,
	.data_size = sizeof(struct kprint_rl_call),
};

/**
 * kprint_ratelimit_init() - register the kretprobe on ___ratelimit()
 *
 * With the ratelimit parameter off, or when the kernel refuses the probe,
 * kprint runs without it: the stats reply says it is off (0), and a refusal
 * is no load failure, since nothing else depends on it.
 *
 * Context: Process context (module init).
 */
void kprint_ratelimit_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kprint_rl_cpu *c = per_cpu_ptr(&kprint_rl_cpu, cpu);

		c->work = IRQ_WORK_INIT_LAZY(kprint_rl_drain);
	}
	if (!kprint_rl_enable)
		return;
	/* Every CPU may be inside ___ratelimit() in several contexts at once. */
	kprint_rl_probe.maxactive = 4 * num_possible_cpus();
	if (register_kretprobe(&kprint_rl_probe))
		return;
	kprint_rl_registered = true;
}

/**
 * kprint_ratelimit_exit() - remove the kretprobe, then wait for the queue
 *
 * unregister_kretprobe() returns once no handler runs any more; after it,
 * no slot is queued, and irq_work_sync() waits for each CPU's work still
 * pending or running, so nothing of ours runs once this returns.
 *
 * Context: Process context (module exit or failed init).
 */
void kprint_ratelimit_exit(void)
{
	int cpu;

	if (kprint_rl_registered) {
		unregister_kretprobe(&kprint_rl_probe);
		WRITE_ONCE(kprint_rl_registered, false);
	}
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&kprint_rl_cpu, cpu)->work);
}

/**
 * kprint_ratelimit_get_stats() - the ratelimit hook's counters
 * @st: filled in
 *
 * Context: Any context.
 */
void kprint_ratelimit_get_stats(struct kprint_ratelimit_stats *st)
{
	st->on = READ_ONCE(kprint_rl_registered);
	st->queued = atomic64_read(&kprint_rl_count.queued);
	st->lost = atomic64_read(&kprint_rl_count.lost);
	st->traced = atomic64_read(&kprint_rl_count.traced);
	/* Missed at entry (a kprobe running) and at return (no instance). */
	st->missed = st->on ? (u64)READ_ONCE(kprint_rl_probe.nmissed) +
			      READ_ONCE(kprint_rl_probe.kp.nmissed) : 0;
}
