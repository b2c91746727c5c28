// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: kprint_preempt_test - a printing task moved to another CPU mid-printk
 *
 * The printk bridge builds a record at vprintk_store()'s entry and keeps it
 * in a slot of that CPU until printk commits the message.  vprintk_store()
 * disables interrupts a few instructions later.  A task preempted in
 * between may be moved, and then commits on another CPU than the one that
 * holds its slot.  That takes an involuntary preemption in a window of a
 * few instructions: no workload meets it on purpose.  This module makes it
 * happen, each time it is asked to.
 *
 * Writing N to the parameter run prints N messages "kprint_preempt_test:
 * message I of N" from the writing task, pinned to its CPU.  An ftrace
 * callback on vprintk_store() wakes a real-time kthread bound to that CPU.
 * ftrace calls it and the bridge's hook from one list, with preemption off
 * throughout, so the wakeup preempts the printing task after both, where
 * ftrace turns preemption back on at vprintk_store()'s entry.  The kthread
 * then moves the task, runnable but off its CPU, to the other CPU, where
 * printk goes on.  A second callback, on printk's commits, notes the CPU
 * of each commit.
 *
 * This only happens where the kernel preempts at preempt_enable(): a fully
 * preemptible kernel (PREEMPT_RT, or preempt=full on a PREEMPT_DYNAMIC
 * kernel).  Elsewhere a write fails with -EOPNOTSUPP.  The read-only
 * parameter moved counts the messages whose hook and commit ran on
 * different CPUs; every one of them must be a kprint record.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/ftrace.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>

/* Bounds one write: each message takes a few context switches. */
#define KPMT_MAX_N	10000

static DEFINE_MUTEX(kpmt_lock);
static struct task_struct *kpmt_victim;
/* A mover per CPU of the two the task goes between, [0] on from, [1] on to. */
static struct task_struct *kpmt_movers[2];
static int kpmt_cpus[2];
static DECLARE_COMPLETION(kpmt_moved);
static int kpmt_hook_cpu, kpmt_commit_cpu;
static bool kpmt_armed, kpmt_go[2];
static unsigned int kpmt_count_moved;
module_param_named(moved, kpmt_count_moved, uint, 0444);
MODULE_PARM_DESC(moved, "Messages whose printk hook and commit ran on different CPUs (read-only)");

/* vprintk_store()'s entry: hand the printing task to its CPU's mover. */
static void notrace kpmt_store_entry(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int cpu = raw_smp_processor_id(), me = cpu == kpmt_cpus[0] ? 0 : 1;

	if (READ_ONCE(kpmt_victim) != current || !READ_ONCE(kpmt_armed))
		return;
	WRITE_ONCE(kpmt_armed, false);
	kpmt_hook_cpu = cpu;
	WRITE_ONCE(kpmt_go[me], true);
	wake_up_process(kpmt_movers[me]);
}

/* printk's commit: where it ran. */
static void notrace kpmt_commit(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	if (READ_ONCE(kpmt_victim) == current)
		kpmt_commit_cpu = raw_smp_processor_id();
}

static struct ftrace_ops kpmt_store_ops = { .func = kpmt_store_entry };
static struct ftrace_ops kpmt_commit_ops = { .func = kpmt_commit };

/*
 * Real-time and bound to one CPU: its wakeup there preempts the printing
 * task, which is runnable but not running while this moves it to the
 * other CPU.  @data: the index of its CPU in kpmt_cpus.
 */
static int kpmt_mover_fn(void *data)
{
	long me = (long)data;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			return 0;
		}
		if (!xchg(&kpmt_go[me], false)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		set_cpus_allowed_ptr(kpmt_victim, cpumask_of(kpmt_cpus[!me]));
		complete(&kpmt_moved);
	}
}

/*
 * One message from the task on CPU @from.  The mover also runs when the
 * wakeup did not preempt in the window: then, once printk is done.
 */
static noinline bool kpmt_one(int from, unsigned int i, unsigned int n)
{
	set_cpus_allowed_ptr(current, cpumask_of(from));
	kpmt_hook_cpu = kpmt_commit_cpu = -1;
	reinit_completion(&kpmt_moved);
	WRITE_ONCE(kpmt_armed, true);
	pr_info("message %u of %u\n", i, n);
	if (READ_ONCE(kpmt_armed)) {
		/* printk never reached vprintk_store(): nothing woke a mover. */
		WRITE_ONCE(kpmt_armed, false);
		return false;
	}
	wait_for_completion(&kpmt_moved);
	return kpmt_hook_cpu >= 0 && kpmt_commit_cpu >= 0 &&
	       kpmt_hook_cpu != kpmt_commit_cpu;
}

static void kpmt_stop_movers(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(kpmt_movers[i]))
			kthread_stop(kpmt_movers[i]);
		kpmt_movers[i] = NULL;
	}
}

static int kpmt_start_movers(void)
{
	long i;

	for (i = 0; i < 2; i++) {
		kpmt_movers[i] = kthread_create(kpmt_mover_fn, (void *)i,
						"kpmt_mover/%d", kpmt_cpus[i]);
		if (IS_ERR(kpmt_movers[i])) {
			int err = PTR_ERR(kpmt_movers[i]);

			kpmt_stop_movers();
			return err;
		}
		kthread_bind(kpmt_movers[i], kpmt_cpus[i]);
		sched_set_fifo(kpmt_movers[i]);
		wake_up_process(kpmt_movers[i]);
	}
	return 0;
}

static int kpmt_run(unsigned int n)
{
	cpumask_var_t saved;
	unsigned int i;
	int err;

	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, current->cpus_ptr);
	kpmt_cpus[0] = raw_smp_processor_id();
	kpmt_cpus[1] = cpumask_any_but(cpu_online_mask, kpmt_cpus[0]);
	err = kpmt_cpus[1] < nr_cpu_ids ? kpmt_start_movers() : -ENODEV;
	if (err)
		goto out;
	WRITE_ONCE(kpmt_victim, current);
	/* Back and forth, so that both CPUs hold slots of moved tasks. */
	for (i = 1; i <= n; i++)
		if (kpmt_one(kpmt_cpus[!(i & 1)], i, n))
			kpmt_count_moved++;
	WRITE_ONCE(kpmt_victim, NULL);
	kpmt_stop_movers();
out:
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	return err;
}

static int kpmt_set_run(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err = kstrtouint(val, 0, &n);

	if (err)
		return err;
	if (!n || n > KPMT_MAX_N)
		return -EINVAL;
	if (!preempt_model_full() && !preempt_model_rt())
		return -EOPNOTSUPP;
	mutex_lock(&kpmt_lock);
	err = kpmt_run(n);
	mutex_unlock(&kpmt_lock);
	return err;
}

static const struct kernel_param_ops kpmt_run_ops = {
	.set = kpmt_set_run,
};
module_param_cb(run, &kpmt_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "Write N: N printk()s, each moved to another CPU between hook and commit");

static int kpmt_filter(struct ftrace_ops *ops, const char *const *names)
{
	int err = 0;

	for (; *names && !err; names++)
		err = ftrace_set_filter(ops, (unsigned char *)*names,
					strlen(*names), 0);
	return err ?: register_ftrace_function(ops);
}

static int __init kpmt_init(void)
{
	static const char *const store[] = { "vprintk_store", NULL };
	static const char *const commit[] = { "prb_commit", "prb_final_commit", NULL };
	int err = kpmt_filter(&kpmt_store_ops, store);

	if (err)
		return err;
	err = kpmt_filter(&kpmt_commit_ops, commit);
	if (err)
		unregister_ftrace_function(&kpmt_store_ops);
	return err;
}

static void __exit kpmt_exit(void)
{
	unregister_ftrace_function(&kpmt_commit_ops);
	unregister_ftrace_function(&kpmt_store_ops);
	ftrace_free_filter(&kpmt_commit_ops);
	ftrace_free_filter(&kpmt_store_ops);
}

module_init(kpmt_init);
module_exit(kpmt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kprint: a printing task moved to another CPU between the bridge's hook and printk's commit");
