// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: kprint_problem_test - a WARN() and an oops, on request
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
 *
 * The oops is taken in a kthread of its own, not in the writer: a task
 * that dies in an oops keeps every lock it held, and a parameter's write
 * runs under kernel_param_lock(), which rmmod then waits for forever.  The
 * kthread holds no lock and no module reference, so the module unloads
 * afterwards as usual.  The kernel is tainted (D) from then on: run the
 * oops last in its guest.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

/* How long a write of oops waits for its kthread to die, in 10 ms steps. */
#define KPPT_OOPS_WAIT	1000

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

MODULE_DESCRIPTION("kprint test: a WARN() and an oops on request (kernel problem tests)");
MODULE_LICENSE("GPL");
