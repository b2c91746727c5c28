// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the selfcheck, which compares rendered texts with vsnprintf().
 *
 * It is a debugging aid, off by default.  With it on, every text that
 * kprint renders, its own messages' and the printk bridge's, is rendered
 * again by vsnprintf() and compared.  A difference is counted and reported.
 */

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "kprint_render.h"

bool kprint_selfcheck;
module_param_named(selfcheck, kprint_selfcheck, bool, 0644);
MODULE_PARM_DESC(selfcheck,
		 "Debug: compare every rendered text with vsnprintf() (default N)");

static atomic_t kprint_selfcheck_failures = ATOMIC_INIT(0);

static int kprint_param_get_atomic(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read((atomic_t *)kp->arg));
}

static const struct kernel_param_ops kprint_param_ops_atomic_ro = {
	.get = kprint_param_get_atomic,
};

module_param_cb(selfcheck_failures, &kprint_param_ops_atomic_ro,
		&kprint_selfcheck_failures, 0444);
MODULE_PARM_DESC(selfcheck_failures,
		 "Texts that differed from vsnprintf() while selfcheck was on");

/**
 * kprint_selfcheck_text() - compare a sealed record's text with vsnprintf()
 * @b: builder after kprint_rec_end(), with @checkbuf
 * @fmt: the format the text was rendered from
 * @args: its arguments
 * @limit: bytes of vsnprintf()'s output kept (printk keeps fewer than a
 *	record's text holds), at most KPRINT_TEXT_MAX - 1
 * @skip: bytes at the start of what was kept that the text leaves out
 *	(printk's KERN_ prefix)
 *
 * A difference is counted in selfcheck_failures and reported (ratelimited).
 *
 * Context: Any context in which vsnprintf() of @fmt is safe.
 */
void kprint_selfcheck_text(struct kprint_builder *b, const char *fmt,
			   va_list args, size_t limit, size_t skip)
{
	const struct kprint_rec *rec = b->rec;
	char *check = b->checkbuf;
	size_t len;
	int n;

	n = vsnprintf(check, KPRINT_TEXT_MAX, fmt, args);
	len = min_t(size_t, n, limit);
	skip = min(skip, len);
	check += skip;
	len -= skip;
	if (len && check[len - 1] == '\n')
		len--;
	if (len == rec->slen[KPRINT_STR_TEXT] &&
	    !memcmp(check, kprint_rec_text(rec), len))
		return;

	atomic_inc(&kprint_selfcheck_failures);
	pr_warn_ratelimited("kprint: text of format \"%s\" differs from vsnprintf()\n",
			    fmt);
}
