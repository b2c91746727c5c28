// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's hook on vprintk_store().
 */

/**
 * DOC: printk bridge hook
 *
 * **Hook point.**  On Linux 6.1 every message that reaches the printk ring
 * goes through vprintk_store(facility, level, dev_info, fmt, args).  So do
 * printk_deferred(), /dev/kmsg writes, and NMI and recursive printk.  (Older
 * 6.1.y releases send the last two from printk_safe.c's vprintk() straight
 * to vprintk_store(); newer ones go through vprintk_deferred() and
 * vprintk_emit().)  An ftrace_ops filtered on that one function sees them
 * all, before printk renders the text.  It is filtered by address:
 * neither the function nor kallsyms_lookup_name() is exported.
 *
 * Why an ftrace_ops and not a kprobe: while a kprobe's handler runs, every
 * other kprobe hit on that CPU is missed (a tracer's, or the BPF counters'
 * on kprint.ko).  The ops reads the arguments from the registers ftrace
 * saved; on x86 it needs no FTRACE_OPS_FL_SAVE_REGS (kprint_bridge_regs()).
 * It has no FTRACE_OPS_FL_RECURSION either.  On 6.1 that flag asks ftrace
 * to guard the ops, and a message ftrace's guard turned away would be lost
 * without a count.  The hook guards against recursion itself, per CPU, and
 * counts what it turns away.
 *
 * **Per message**, with interrupts off, in the CPU's scratch record
 * (kprint_core.c):
 *
 * - the format as the call site compiled it (kprint_bridge_format.c);
 * - each argument, rendered by kprint_render() from a va_copy() of
 *   printk's va_list;
 * - the text as printk stores it.  Its KERN_ prefix is parsed and stripped
 *   as printk_parse_prefix() does, the text is cut at printk's
 *   LOG_LINE_MAX, and one newline is dropped;
 * - the level and KERN_CONT flag from that prefix, as 6.1 takes them from
 *   the rendered text;
 * - SUBSYSTEM and DEVICE from struct dev_printk_info;
 * - the module and function of the caller (kprint_bridge_caller.c).
 *
 * A plain message's arguments may be kept as values instead, and its text
 * rendered when the record is read (kprint_bridge_defer()).  The record
 * waits in a pending slot for printk's commit (kprint_bridge_order.c).
 * It is committed like every kprint record, but not echoed back to printk.
 * Every message seen, stored or not, is handed once to the BPF printk
 * counter (kprint_handoff.c).
 *
 * **What is not bridged.**  kprint's own printk calls (the echo of its
 * records, NMI echoes) are marked per CPU, and counted as skipped.  In NMI
 * no record can be stored.  Such a message is counted (dropped-nmi) and
 * still handed to the BPF counter, with its format, level and subsystem.
 * A printk from inside the bridge is counted as dropped-recursion.  One
 * that finds no scratch record or no slot is counted as dropped-scratch.
 */

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#include <kprint_handoff.h>

#include "kprint_bridge_shared.h"
#include "kprint_core.h"
#include "kprint_handoff.h"
#include "kprint_render.h"

/*
 * vprintk_store() takes the level and KERN_CONT from the first 7 bytes of
 * the rendered text (its prefix_buf[8]), and printk_sprint() strips every
 * KERN_SOH pair at the start (printk_parse_prefix()).
 */
#define KPRINT_BRIDGE_PREFIX_SEEN	7

/*
 * The KERN_SOH pairs at the start of @text: those within the first
 * KPRINT_BRIDGE_PREFIX_SEEN bytes set @cont, and the first level one
 * @level if it is still LOGLEVEL_DEFAULT.  Returns the bytes they take.
 */
static size_t kprint_bridge_parse_prefix(const char *text, size_t len,
					 int *level, bool *cont)
{
	size_t n = 0;
	int c;

	while (len - n >= 2 && (c = printk_get_level(text + n))) {
		bool seen = n + 2 <= KPRINT_BRIDGE_PREFIX_SEEN;

		if (seen && c == 'c')
			*cont = true;
		else if (seen && *level == LOGLEVEL_DEFAULT)
			*level = c - '0';
		n += 2;
	}
	return n;
}

static u8 kprint_bridge_final_level(int level)
{
	if (level == LOGLEVEL_DEFAULT)
		level = default_message_loglevel;
	return level & 7;
}

/*
 * The slot of a message the bridge saw (kprint_handoff.c): it counts under
 * @m's format, the level printk stores and @tags (subsystem, NUL, module,
 * NUL; @tags_len bytes).
 */
static void kprint_bridge_handoff(const struct kprint_bridge_msg *m, u32 level,
				  const char *tags, size_t tags_len)
{
	struct kprint_handoff_head *h = kprint_handoff_begin(m->args, m->fmt);

	if (!h)
		return;
	h->format_id = m->format_id;
	/* The call site hashed its tags once, for messages without SUBSYSTEM. */
	if (m->caller && !tags[0])
		h->tags_id = m->caller->tags_id;
	else
		h->tags_id = kprint_fnv1a64_mem(tags, tags_len);
	h->level = level;
	h->class = KPRINT_CLASS_NONE;
	h->flags = KPRINT_HANDOFF_F_BRIDGED;
	h->format_len = m->format_len;
	h->format = (unsigned long)m->format;
	kprint_handoff_end(h, tags, tags_len);
}

/*
 * A message dropped (NMI, recursion, no scratch) is still counted, under
 * what can be known without a record: its subsystem but no module, and
 * the level printk stores.
 */
static void kprint_bridge_handoff_dropped(const struct kprint_bridge_msg *m)
{
	char tags[PRINTK_INFO_SUBSYSTEM_LEN + 2];
	ssize_t tlen = 0;
	int level = m->level;
	bool cont = false;
	char prefix[8];
	va_list ap;

	if (m->dev_info)
		tlen = strscpy(tags, m->dev_info->subsystem,
			       PRINTK_INFO_SUBSYSTEM_LEN);
	if (tlen < 0)
		tlen = PRINTK_INFO_SUBSYSTEM_LEN - 1;
	tags[tlen] = '\0';
	tags[tlen + 1] = '\0';

	/* The level, as vprintk_store() finds it: from the text's start. */
	if (!m->facility) {
		va_copy(ap, *m->args);
		vsnprintf(prefix, sizeof(prefix), m->fmt, ap);
		va_end(ap);
		kprint_bridge_parse_prefix(prefix, strlen(prefix), &level,
					   &cont);
	}
	kprint_bridge_handoff(m, kprint_bridge_final_level(level), tags,
			      tlen + 2);
}

/* The text, as printk would store it, into @b's text. */
static void kprint_bridge_render(struct kprint_builder *b,
				 const struct kprint_bridge_msg *m)
{
	const char *const *s = m->wrap_str;
	size_t room;
	char *tail;
	int n = 0;

	if (m->wrap >= 0) {
		const char *prefix = kprint_bridge_wrappers[m->wrap].prefix;

		tail = kprint_rec_text_tail(b, &room);
		switch (kprint_bridge_wrappers[m->wrap].nstr) {
		case 1:
			n = snprintf(tail, room, prefix, s[0]);
			break;
		case 2:
			n = snprintf(tail, room, prefix, s[0], s[1]);
			break;
		case 3:
			n = snprintf(tail, room, prefix, s[0], s[1], s[2]);
			break;
		case 4:
			n = snprintf(tail, room, prefix, s[0], s[1], s[2],
				     s[3]);
			break;
		}
		kprint_rec_text_advance(b, n);
		/* The caller's format, KERN_ pairs and all, as %pV prints it. */
		kprint_render(b, m->wrap_fmt, *m->format_args);
	} else {
		kprint_render(b, m->fmt, *m->args);
	}
}

/*
 * Stores the arguments of @m as values, for rendering when the record is
 * read (kprint_render_planned(), KPRINT_REC_DEFERRED), where the text
 * then made is surely the one printk stores: a plain message of facility
 * 0 (no dev_printk() prefix, no /dev/kmsg write) whose format, stored
 * whole, ends its line, and whose level prefix is the format's own.
 * @level and @cont are set from that prefix, as printk sets them from the
 * text's.  Not with the selfcheck on, which compares the stored text.
 */
static bool kprint_bridge_defer(struct kprint_builder *b,
				const struct kprint_bridge_msg *m,
				int *level, bool *cont)
{
	size_t skip = m->format - m->fmt;
	struct kprint_render_plan uncached;
	const struct kprint_render_plan *plan = m->plan;

	if (m->wrap >= 0 || m->facility || kprint_selfcheck_enabled())
		return false;
	if (!plan) {
		kprint_bridge_plan(m->format, m->format_len, &uncached);
		plan = &uncached;
	}
	if (!plan->deferrable ||
	    kprint_render_planned(b, plan, *m->args,
				  KPRINT_BRIDGE_LINE_MAX - 1 - skip))
		return false;
	kprint_bridge_parse_prefix(m->fmt, skip, level, cont);
	return true;
}

/* A message that is not bridged still pairs with printk's commit. */
static void kprint_bridge_pending_mark(unsigned long sp)
{
	struct kprint_bridge_pending *p = kprint_bridge_pending_get(sp);

	if (p)
		kprint_bridge_pending_fill(p);
}

/*
 * The record's header and fixed strings: who printed @m (@caller), its
 * subsystem and device, and its format.
 */
static void kprint_bridge_begin(struct kprint_builder *b,
				const struct kprint_bridge_msg *m,
				const struct kprint_bridge_site *caller)
{
	struct kprint_rec *rec = b->rec;

	kprint_rec_begin(b, 0, KPRINT_CLASS_NONE, 0);
	rec->source = KPRINT_SOURCE_PRINTK;
	rec->facility = m->facility;
	rec->format_id = m->format_id;
	kprint_rec_put_str(b, KPRINT_STR_FILE, "");
	kprint_rec_put_strn(b, KPRINT_STR_FUNCTION,
			    caller ? caller->function : "",
			    caller ? caller->function_len : 0);
	kprint_rec_put_str(b, KPRINT_STR_SUBSYSTEM,
			   m->dev_info ? m->dev_info->subsystem : "");
	kprint_rec_put_strn(b, KPRINT_STR_MODULE, caller ? caller->module : "",
			    caller ? caller->module_len : 0);
	kprint_rec_put_str(b, KPRINT_STR_DEVICE,
			   m->dev_info ? m->dev_info->device : "");
	kprint_rec_put_strn(b, KPRINT_STR_FORMAT, m->format,
			    min_t(size_t, m->format_len, KPRINT_FORMAT_MAX));
}

/*
 * The record's text, or its arguments kept for later (deferred), with
 * @level and @cont from the text's prefix and @skip the prefix's bytes.
 * Returns whether the text ends its line.
 */
static bool kprint_bridge_text(struct kprint_builder *b,
			       const struct kprint_bridge_msg *m,
			       int *level, bool *cont, size_t *skip)
{
	struct kprint_rec *rec = b->rec;

	if (kprint_bridge_defer(b, m, level, cont)) {
		this_cpu_inc(kprint_bridge_hot.deferred);
		rec->rflags |= KPRINT_REC_DEFERRED;
		return true;
	}

	kprint_bridge_render(b, m);

	/* printk keeps LOG_LINE_MAX - 1 bytes, its prefix included. */
	if (b->text_len > KPRINT_BRIDGE_LINE_MAX - 1) {
		b->text_len = KPRINT_BRIDGE_LINE_MAX - 1;
		rec->flags |= KPRINT_RECORD_F_TRUNCATED;
	}
	/* Only a message of facility 0 has its prefix parsed (not /dev/kmsg's). */
	if (!m->facility) {
		*skip = kprint_bridge_parse_prefix(b->text, b->text_len, level,
						   cont);
		b->text_start = *skip;
	}
	return b->text_len > *skip && b->text[b->text_len - 1] == '\n';
}

/*
 * Builds the record of @m in @b, whose record is @p's, finding @m's
 * caller, for printk's commit of the message (kprint_bridge_commit_hook()).
 */
static void kprint_bridge_store(struct kprint_builder *b,
				struct kprint_bridge_msg *m,
				const struct kprint_bridge_hint *hint,
				struct pt_regs *regs,
				struct kprint_bridge_pending *p)
{
	struct kprint_bridge_line line;
	struct kprint_rec *rec = b->rec;
	int level = m->level;
	bool cont = false, newline, open, merged = false;
	size_t skip = 0;
	u32 caller_id;

	BUILD_BUG_ON(KSYM_SYMBOL_LEN > KPRINT_TEXT_MAX);
	m->caller = kprint_bridge_caller_named(hint, regs, b->checkbuf,
					       m->owner);
	kprint_bridge_begin(b, m, m->caller);
	newline = kprint_bridge_text(b, m, &level, &cont, &skip);
	kprint_rec_end(b);

	caller_id = kprint_bridge_caller_id();
	/* dev_printk() always ends its line (LOG_NEWLINE). */
	open = !newline && !m->dev_info;
	rec->level = kprint_bridge_final_level(level);
	if (kprint_bridge_line_get(caller_id, cont, open, &rec->level, &line)) {
		merged = true;
		rec->flags |= KPRINT_RECORD_F_CONT;
		rec->continues = line.seq;
	}

	if (unlikely(kprint_selfcheck_enabled())) {
		va_list ap;

		va_copy(ap, *m->args);
		kprint_selfcheck_text(b, m->fmt, ap,
				      KPRINT_BRIDGE_LINE_MAX - 1, skip);
		va_end(ap);
	}

	p->caller_id = caller_id;
	p->open = open;
	p->merged = merged;
	p->build = true;
}

/*
 * Builds @m's record in a pending slot, for printk's commit, and hands the
 * message to the BPF counter; without a scratch record or a slot, counts
 * it as dropped.  With the CPU busy (kprint_bridge_busy), interrupts off.
 */
static void kprint_bridge_build(struct kprint_bridge_msg *m,
				const struct kprint_bridge_hint *hint,
				struct pt_regs *regs)
{
	struct kprint_bridge_pending *p;
	struct kprint_builder *b;
	struct kprint_rec *rec;
	unsigned long sflags;
	unsigned int tags_len;
	const char *tags;

	b = kprint_scratch_get(&sflags);
	p = b ? kprint_bridge_pending_get(kernel_stack_pointer(regs)) :
		 NULL;
	if (unlikely(!p)) {
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
		kprint_bridge_last_close();
		kprint_bridge_handoff_dropped(m);
		if (b)
			kprint_scratch_put(sflags);
		else
			kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		return;
	}
	/* Built in the slot itself: no copy. */
	rec = b->rec;
	b->rec = (struct kprint_rec *)p->buf;
	kprint_bridge_store(b, m, hint, regs, p);
	tags = kprint_rec_tags(b->rec, &tags_len);
	kprint_bridge_handoff(m, b->rec->level, tags, tags_len);
	b->rec = rec;
	kprint_bridge_pending_fill(p);
	kprint_scratch_put(sflags);
}

static void notrace kprint_bridge_hook(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct pt_regs *regs = kprint_bridge_regs(fregs);
	struct kprint_bridge_hint hint;
	/* Set before use; not worth zeroing on every printk (120 bytes). */
	struct kprint_bridge_msg m __uninitialized;
	unsigned long flags;

	if (unlikely(!regs))
		return;
	/* ftrace calls us as is: the per-CPU state needs the CPU kept. */
	preempt_disable_notrace();
	/* printk(NULL) is vsnprintf()'s to complain about, not ours. */
	if (unlikely(!regs_get_kernel_argument(regs, 3))) {
		if (!in_nmi())
			kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		goto out_preempt;
	}
	kprint_bridge_hint_take(&hint);
	if (kprint_own_printk()) {
		atomic64_inc(&kprint_bridge_count.skipped);
		kprint_bridge_last_close();
		/* Its slot is the echo's own (kprint_handoff_echo()). */
		kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		goto out_preempt;
	}

	kprint_bridge_msg_init(&m, regs);
	if (unlikely(in_nmi())) {
		atomic64_inc(&kprint_bridge_count.dropped_nmi);
		kprint_bridge_last_close();
		kprint_bridge_handoff_dropped(&m);
		goto out_preempt;
	}

	local_irq_save(flags);
	if (unlikely(this_cpu_read(kprint_bridge_busy))) {
		atomic64_inc(&kprint_bridge_count.dropped_recursion);
		kprint_bridge_last_close();
		kprint_bridge_handoff_dropped(&m);
		kprint_bridge_pending_mark(kernel_stack_pointer(regs));
		goto out;
	}
	this_cpu_write(kprint_bridge_busy, true);
	kprint_bridge_build(&m, &hint, regs);
	this_cpu_write(kprint_bridge_busy, false);
out:
	local_irq_restore(flags);
out_preempt:
	preempt_enable_notrace();
}

void notrace kprint_bridge_dispatch(unsigned long ip,
				    unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	if (kprint_bridge_is_store(ip))
		kprint_bridge_hook(ip, parent_ip, op, fregs);
	else if (kprint_bridge_is_commit(ip))
		kprint_bridge_commit_hook(ip, parent_ip, op, fregs);
	else
		kprint_bridge_entry_hook(ip, parent_ip, op, fregs);
}
