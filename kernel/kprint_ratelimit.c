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
 * context, NMI included.  A work item of that CPU empties it by calling
 * kprint_trace_ratelimit() once per refused call, where BPF has its kprobe
 * "kprint:kprint_trace_ratelimit".
 *
 * Process context, because no interrupt is safe for that call: kprobe
 * handlers may run with interrupts on (the rethook trampoline keeps those
 * of the probed return, an optimized kprobe's entry too) while
 * current_kprobe is set, so an interrupt taken there, a self-IPI of ours
 * or a tick, makes the BPF kprobe a miss (a hard irq_work: every call
 * missed; a lazy one draining at the tick: 433 of 1879).  A task is never
 * preempted inside a kprobe handler (they run with preemption off), so a
 * worker never runs inside one.  The handler cannot queue the work itself
 * (it may be in NMI, or under the scheduler's locks for
 * printk_deferred_ratelimited()): it raises an irq_work that does.
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
#include <linux/sched.h>
#include <linux/workqueue.h>

#include <asm/local.h>

#include "kprint_ratelimit.h"
#include "kprint_stats.h"

/*
 * Refused calls queued per CPU, a power of two: the work empties the queue
 * whenever its worker gets the CPU; 1024 slots are 16 KiB per CPU.
 */
#define KPRINT_RL_SLOTS		1024
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
 * the one consumer is @work (a work item is never run twice at once),
 * which alone moves @tail.  It runs on @cpu but is preemptible and moves
 * if the CPU goes offline, hence acquire and release on the slots.
 */
struct kprint_rl_cpu {
	local_t head;
	unsigned long tail;
	int cpu;
	struct irq_work kick;
	struct work_struct work;
	struct kprint_rl_slot slot[KPRINT_RL_SLOTS];
};

/*
 * Allocated, not DEFINE_PER_CPU: a module's static per-CPU data comes from
 * a reserve of 8 KiB shared by all modules (insmod fails with -ENOMEM
 * beyond it), and the queues are 16 KiB per CPU.
 */
static struct kprint_rl_cpu __percpu *kprint_rl_cpus;

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
 * it (from a work item on the caller's CPU), never in a kprobe handler.
 * __noipa and the empty asm keep the call and its arguments as declared.
 *
 * Context: Process context (a work item on the CPU of the refused call).
 * @func is the caller's string: a module that called ___ratelimit() and
 * is unloaded in between leaves it dangling, so readers must read it
 * fault-safe (BPF does).
 */
__noipa void kprint_trace_ratelimit(const struct ratelimit_state *rs,
				    const char *func)
{
	asm volatile("");
}

/* The work: hand every complete slot to kprint_trace_ratelimit(). */
static void kprint_rl_drain(struct work_struct *work)
{
	struct kprint_rl_cpu *c = container_of(work, struct kprint_rl_cpu, work);
	unsigned long tail = c->tail;

	while (tail != (unsigned long)local_read(&c->head)) {
		struct kprint_rl_slot *s = &c->slot[tail & KPRINT_RL_MASK];
		const struct ratelimit_state *rs = smp_load_acquire(&s->rs);
		const char *func;

		/* Reserved, not written yet: its producer kicks us again. */
		if (!rs)
			break;
		func = READ_ONCE(s->func);
		WRITE_ONCE(s->rs, NULL);
		/* The slot is free for producers once they see the tail. */
		smp_store_release(&c->tail, ++tail);
		kprint_trace_ratelimit(rs, func);
		atomic64_inc(&kprint_rl_count.traced);
		if (!(tail % 64))
			cond_resched();
	}
}

/* The irq_work, on the producer's CPU: no kprobe handler runs in a worker. */
static void kprint_rl_kick(struct irq_work *kick)
{
	struct kprint_rl_cpu *c = container_of(kick, struct kprint_rl_cpu, kick);

	queue_work_on(c->cpu, system_highpri_wq, &c->work);
}

static void kprint_rl_queue(const struct ratelimit_state *rs, const char *func)
{
	struct kprint_rl_cpu *c = this_cpu_ptr(kprint_rl_cpus);
	struct kprint_rl_slot *s;
	long head;

	do {
		head = local_read(&c->head);
		/* A stale tail only makes the queue look fuller. */
		if ((unsigned long)head - smp_load_acquire(&c->tail) >= KPRINT_RL_SLOTS) {
			atomic64_inc(&kprint_rl_count.lost);
			return;
		}
	} while (local_cmpxchg(&c->head, head, head + 1) != head);

	s = &c->slot[head & KPRINT_RL_MASK];
	WRITE_ONCE(s->func, func);
	smp_store_release(&s->rs, rs);
	atomic64_inc(&kprint_rl_count.queued);
	/* NMI-safe; a kick or work already pending takes this slot too. */
	irq_work_queue(&c->kick);
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

	if (!regs_return_value(regs) && call->rs)
		kprint_rl_queue(call->rs, call->func);
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
 * With the ratelimit parameter off, without memory for the queues, or when
 * the kernel refuses the probe, kprint runs without it: the stats reply
 * says it is off (0), and that is no load failure, since nothing else
 * depends on it.
 *
 * Context: Process context (module init).
 */
void kprint_ratelimit_init(void)
{
	int cpu;

	if (!kprint_rl_enable)
		return;
	kprint_rl_cpus = alloc_percpu(struct kprint_rl_cpu);
	if (!kprint_rl_cpus)
		return;
	for_each_possible_cpu(cpu) {
		struct kprint_rl_cpu *c = per_cpu_ptr(kprint_rl_cpus, cpu);

		c->cpu = cpu;
		/* Hard also on PREEMPT_RT: it only queues the work. */
		c->kick = IRQ_WORK_INIT_HARD(kprint_rl_kick);
		INIT_WORK(&c->work, kprint_rl_drain);
	}
	/* Every CPU may be inside ___ratelimit() in several contexts at once. */
	kprint_rl_probe.maxactive = 4 * num_possible_cpus();
	if (register_kretprobe(&kprint_rl_probe)) {
		free_percpu(kprint_rl_cpus);
		kprint_rl_cpus = NULL;
		return;
	}
	kprint_rl_registered = true;
}

/**
 * kprint_ratelimit_exit() - remove the kretprobe, then wait for the queue
 *
 * unregister_kretprobe() returns once no handler runs any more; after it,
 * no slot is queued; irq_work_sync() waits for each CPU's kick still
 * pending or running, then flush_work() for the work it queued, which
 * hands on what was queued last, so nothing of ours runs once the queues
 * are freed.
 *
 * Context: Process context (module exit).
 */
void kprint_ratelimit_exit(void)
{
	int cpu;

	if (!kprint_rl_registered)
		return;
	unregister_kretprobe(&kprint_rl_probe);
	WRITE_ONCE(kprint_rl_registered, false);
	for_each_possible_cpu(cpu) {
		struct kprint_rl_cpu *c = per_cpu_ptr(kprint_rl_cpus, cpu);

		irq_work_sync(&c->kick);
		flush_work(&c->work);
	}
	free_percpu(kprint_rl_cpus);
	kprint_rl_cpus = NULL;
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
