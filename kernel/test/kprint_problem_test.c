// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: kprint_problem_test - a WARN(), an oops and a stuck CPU, on request
 *
 * The kernel problem tests (tests/e2e/problems-*.py) cause each problem of
 * problems/problems.yaml through the kernel's own code path.  Most come
 * from stock code (the OOM killer, the hung task detector, ext4, XFS,
 * SCSI, bonding); a WARN() and an oops need code that goes wrong on
 * purpose, and that is this module.  What it prints is the kernel's own:
 * WARN() goes through __warn_printk() and __warn(), the oops through the
 * page fault handler's page_fault_oops() and die().
 *
 *   warn   write N: one WARN(1, "kprint_problem_test: warning N"), from the
 *          writing task; the write returns once it is printed.
 *   oops   write N: a kthread "kprint_oops/N" writes through a NULL
 *          pointer and dies in the oops.  The write returns once that
 *          kthread is dead, so that the whole oops report is in the log.
 *   spin   write "CPU SECONDS": a kthread "kprint_spin/CPU", bound to CPU,
 *          loops there with preemption off for SECONDS (at most
 *          KPPT_SPIN_MAX): the soft lockup detector and RCU's stall
 *          detector on that CPU see it (watchdog_timer_fn(),
 *          print_cpu_stall()).  The write returns when the loop is over.
 *   spin_irqoff  the same with interrupts off as well: the stalled CPU
 *          takes no tick, so another CPU's tick finds the stall
 *          (print_other_cpu_stall()).
 *
 * A spin ends early when the module is unloaded (a stop flag read in the
 * loop) or when its clock stands still, and never lasts longer than
 * KPPT_SPIN_MAX: a test that lost its way must not hang its guest.  It
 * starts an RCU grace period, which it then holds up, for RCU's stall
 * detectors to find.  The detectors' thresholds are the test's
 * to lower (kernel.watchdog_thresh, rcupdate.rcu_cpu_stall_timeout).
 *
 * The oops is taken in a kthread of its own, not in the writer: a task
 * that dies in an oops keeps every lock it held, and a parameter's write
 * runs under kernel_param_lock(), which rmmod then waits for forever.  The
 * kthread holds no lock and no module reference, so the module unloads
 * afterwards as usual.  The kernel is tainted (D) from then on: run the
 * oops last in its guest.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/nmi.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>

/* How long a write of oops waits for its kthread to die, in 10 ms steps. */
#define KPPT_OOPS_WAIT	1000
/*
 * The longest spin, in seconds: well within the time a clocksource may go
 * without a timekeeping update and still be read right (its max_idle_ns:
 * 19 s for the HPET of the 6.1 guests under TCG, 440 s for 6.12's TSC).
 */
#define KPPT_SPIN_MAX	10
/*
 * How many reads in a row of a clock that stands still end a spin anyway:
 * far more than the reads between two steps of the coarsest clocksource
 * (jiffies, whose steps are a few ms apart even when only another CPU's
 * tick advances them), and under emulation still less than a minute.
 */
#define KPPT_SPIN_STILL	20000000U

static bool kppt_stop;

static int kppt_get_n(const char *val, unsigned int *n)
{
	return kstrtouint(val, 0, n);
}

static int kppt_set_warn(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	WARN(1, "kprint_problem_test: warning %u\n", n);
	return 0;
}

/* The kthread: a write through NULL, which the compiler cannot see is one. */
static int kppt_oops_fn(void *data)
{
	int *p = NULL;

	OPTIMIZER_HIDE_VAR(p);
	pr_info("oops %u: writing through a NULL pointer\n",
		(unsigned int)(unsigned long)data);
	WRITE_ONCE(*p, 1);
	/* Not reached: the oops ends this task. */
	return 0;
}

static int kppt_set_oops(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t;
	unsigned int n, i;
	int err;

	err = kppt_get_n(val, &n);
	if (err)
		return err;
	t = kthread_create(kppt_oops_fn, (void *)(unsigned long)n, "kprint_oops/%u", n);
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	wake_up_process(t);
	/* A kthread is reaped by itself: exit_state is set once it is dead. */
	for (i = 0; i < KPPT_OOPS_WAIT && !READ_ONCE(t->exit_state); i++)
		msleep(10);
	err = READ_ONCE(t->exit_state) ? 0 : -ETIMEDOUT;
	put_task_struct(t);
	return err;
}

struct kppt_spin {
	unsigned int seconds;
	bool irqoff;
	struct completion done;
};

/*
 * The loop: no sleep, no cond_resched(), so the CPU's stopper thread
 * (which the soft lockup detector waits for) and RCU's quiescent states
 * wait until it is over.
 *
 * RCU's stall detectors look only while a grace period is in progress,
 * and an idle guest may have none for the whole spin.  So the spin first
 * waits for a whole grace period: the one a spin just before held up may
 * not have ended yet, and its stall, reported already, would be reported
 * again only after three timeouts.  Then, preemption off so that no tick
 * notes a quiescent state for this CPU, it starts a new one, whose stall
 * timeout counts from now.  A poll cookie, not call_rcu(): nothing is
 * queued that would outlive the spin.
 *
 * The bound is ktime_get_mono_fast_ns(), which reads the clocksource.
 * Not local_clock(): where the sched clock is not stable (6.1 under TCG,
 * its TSC marked unstable), sched_clock_cpu() keeps the clock of a CPU
 * with interrupts off within a tick of that CPU's last tick, and only
 * another CPU's reading of it moves it on.  In a wedged guest that other
 * CPU was waiting for this one in smp_call_function_many_cond(), and the
 * spin never ended.  Not jiffies either: this CPU may be the one that
 * advances them.  The fast clock counts from the last timekeeping update,
 * which other CPUs' ticks go on making (tick_sched_do_timer() takes over
 * stalled jiffies); within KPPT_SPIN_MAX it would be right even without
 * them.  Should it stand still all the same, KPPT_SPIN_STILL reads end
 * the spin with a warning: the test then fails, but the guest goes on.
 */
static void kppt_spin_loop(struct kppt_spin *s)
{
	u64 now = ktime_get_mono_fast_ns(), last = now;
	u64 end = now + (u64)s->seconds * NSEC_PER_SEC;
	unsigned int still = 0;

	while (now < end && !READ_ONCE(kppt_stop)) {
		cpu_relax();
		now = ktime_get_mono_fast_ns();
		if (now != last) {
			last = now;
			still = 0;
		} else if (++still == KPPT_SPIN_STILL) {
			pr_warn("spin on CPU %d: the clock stood still for %u reads\n",
				raw_smp_processor_id(), still);
			break;
		}
	}
}

static int kppt_spin_fn(void *data)
{
	struct kppt_spin *s = data;
	unsigned long flags = 0;

	pr_info("%s[%d] spinning on CPU %d for %u s, interrupts %s\n", current->comm,
		current->pid, raw_smp_processor_id(), s->seconds, s->irqoff ? "off" : "on");
	synchronize_rcu();
	preempt_disable();
	start_poll_synchronize_rcu();
	if (s->irqoff)
		local_irq_save(flags);
	kppt_spin_loop(s);
	if (s->irqoff) {
		/* Not also a soft lockup when the timer interrupt comes back. */
		touch_softlockup_watchdog();
		local_irq_restore(flags);
	}
	preempt_enable();
	pr_info("spin on CPU %d over\n", raw_smp_processor_id());
	complete(&s->done);
	return 0;
}

static int kppt_spin(const char *val, bool irqoff)
{
	struct kppt_spin s = { .irqoff = irqoff };
	struct task_struct *t;
	unsigned int cpu;

	if (sscanf(val, "%u %u", &cpu, &s.seconds) != 2)
		return -EINVAL;
	if (s.seconds > KPPT_SPIN_MAX || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	init_completion(&s.done);
	t = kthread_create(kppt_spin_fn, &s, "kprint_spin/%u", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	wake_up_process(t);
	/* s lives on this stack: the kthread is done with it once it completes. */
	wait_for_completion(&s.done);
	return 0;
}

static int kppt_set_spin(const char *val, const struct kernel_param *kp)
{
	return kppt_spin(val, false);
}

static int kppt_set_spin_irqoff(const char *val, const struct kernel_param *kp)
{
	return kppt_spin(val, true);
}

static const struct kernel_param_ops kppt_warn_ops = {
	.set = kppt_set_warn,
};
module_param_cb(warn, &kppt_warn_ops, NULL, 0200);
MODULE_PARM_DESC(warn, "Write N: one WARN() \"kprint_problem_test: warning N\"");

static const struct kernel_param_ops kppt_oops_ops = {
	.set = kppt_set_oops,
};
module_param_cb(oops, &kppt_oops_ops, NULL, 0200);
MODULE_PARM_DESC(oops, "Write N: a kthread kprint_oops/N oopses on a NULL pointer write");

static const struct kernel_param_ops kppt_spin_ops = {
	.set = kppt_set_spin,
};
module_param_cb(spin, &kppt_spin_ops, NULL, 0200);
MODULE_PARM_DESC(spin, "Write \"CPU SECONDS\": a kthread kprint_spin/CPU loops there, preemption off");

static const struct kernel_param_ops kppt_spin_irqoff_ops = {
	.set = kppt_set_spin_irqoff,
};
module_param_cb(spin_irqoff, &kppt_spin_irqoff_ops, NULL, 0200);
MODULE_PARM_DESC(spin_irqoff, "Write \"CPU SECONDS\": the same, interrupts off too");

static void __exit kppt_exit(void)
{
	WRITE_ONCE(kppt_stop, true);
}
module_exit(kppt_exit);

MODULE_DESCRIPTION("kprint test: a WARN(), an oops and a stuck CPU on request (kernel problem tests)");
MODULE_LICENSE("GPL");
