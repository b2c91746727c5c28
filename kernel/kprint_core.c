// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the core, which every producer of records shares.
 *
 * It owns the ring and the "running" state, hands out the per-CPU scratch
 * record a message is rendered into, and commits finished records: into
 * the ring, to tracers, to printk, and to the notification worker (which
 * multicasts them later, since this may be hard interrupt context).
 *
 * Rendering happens in the scratch with interrupts off, outside the ring
 * lock, which keeps the lock hold time to a memcpy; the per-CPU scratch
 * keeps the ~6 KiB record off the stack.  An emitter that finds its CPU's
 * scratch busy (a kprint call from within kprint, e.g. from a console
 * driver fed by the printk echo) or that runs in NMI, where neither the
 * ring lock nor the scratch can be taken safely, gets no scratch and counts
 * the message as dropped instead.
 */

/**
 * DOC: argument markers in the printk echo
 *
 * With markers=1, kprint's echo of a record to printk carries
 * KPRINT_MARKER (0x1f, ASCII unit separator) before and after each
 * argument: "link \x1feth0\x1f up at \x1f1000\x1f Mb/s" (written here as
 * /dev/kmsg shows the byte).  A reader of /dev/kmsg or of a saved dmesg
 * can then split the arguments out of the line without the netlink family:
 * the pieces at odd positions are the record's args, and the line without
 * the markers is the record's text.
 *
 * Which lines: only the echo of records of source kprint (kprint_*()
 * calls, blocks, KPRINT_CMD_EMIT) that have at least one argument and can
 * be marked faithfully (kprint_render_marked()); the others are echoed as
 * before.  Never the records of the printk bridge: printk already stored
 * those lines, byte for byte as their callers wrote them, and kprint does
 * not echo them.  Nor the echo of a message kprint_emit_site() gets in NMI,
 * which printk renders from the format itself.  The record's own text
 * stays without markers: what netlink, the exporter and the selfcheck see
 * does not depend on the parameter.
 *
 * Off by default, since it changes the line every other reader of the
 * kernel log sees: /dev/kmsg and dmesg show the byte as "\x1f", journald
 * stores a message with a control byte as a blob ("[N blob data]" unless
 * journalctl --all), and a grep for a message's words across an argument
 * no longer matches.
 */

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>

#include "kprint_core.h"
#include "kprint_handoff.h"
#include "kprint_ntf.h"
#include "kprint_render.h"

bool kprint_printk = true;
module_param_named(printk, kprint_printk, bool, 0644);
MODULE_PARM_DESC(printk, "Echo every record's text to printk (default Y)");

/*
 * Off by default: a marked echo changes the line every reader of the
 * kernel log sees (dmesg shows "\x1f", journald keeps the line as a blob,
 * greps for a message's words across an argument stop matching).  Read
 * once per echoed record, so switching it at run time is safe.
 */
static bool kprint_markers;
module_param_named(markers, kprint_markers, bool, 0644);
MODULE_PARM_DESC(markers,
		 "Put 0x1f (unit separator) around each argument in the printk echo (default N; writable at run time)");

struct kprint_ring kprint_ring;
bool kprint_running;

static atomic64_t kprint_dropped = ATOMIC64_INIT(0);

/*
 * Bit n set while this CPU, in interrupt context level n (task, softirq,
 * hardirq, NMI: interrupt_context_level()), is inside one of kprint's own
 * printk calls, so that the printk bridge can tell those from the rest.
 */
static DEFINE_PER_CPU(u8, kprint_own_printk_ctx);

struct kprint_scratch {
	struct kprint_builder b;
	bool busy;
	/*
	 * The marked echo's line.  Apart from the builder, since records are
	 * also committed from buffers of their own (blocks, netlink emit);
	 * busy while printk has it, where a console driver may kprint again.
	 */
	bool marked_busy;
	char marked[KPRINT_MARKED_MAX];
	char text[KPRINT_TEXT_MAX];
	char arg[KPRINT_ARG_MAX];
	char check[KPRINT_TEXT_MAX];
	u64 rec[KPRINT_REC_MAX / sizeof(u64)];
};

static struct kprint_scratch __percpu *kprint_scratch;

/**
 * kprint_core_init() - set up the ring and the per-CPU scratch records
 * @ring_size: ring size in bytes, a power of two
 *
 * Context: Process context (module init).
 * Return: 0 or a negative errno.
 */
int kprint_core_init(u32 ring_size)
{
	int err;

	err = kprint_ring_init(&kprint_ring, ring_size);
	if (err)
		return err;

	kprint_scratch = alloc_percpu(struct kprint_scratch);
	if (!kprint_scratch) {
		err = -ENOMEM;
		goto err_ring;
	}
	/*
	 * The handoff slots serve the echo as well as the bridge, so they
	 * live as long as records can be stored and echoed.
	 */
	err = kprint_handoff_init();
	if (err)
		goto err_scratch;
	return 0;

err_scratch:
	free_percpu(kprint_scratch);
	kprint_scratch = NULL;
err_ring:
	kprint_ring_destroy(&kprint_ring);
	return err;
}

/**
 * kprint_core_start() - let records be stored
 *
 * Context: Process context, after kprint_core_init().
 */
void kprint_core_start(void)
{
	WRITE_ONCE(kprint_running, true);
}

/**
 * kprint_core_stop() - stop storing records, and wait for emitters
 *
 * Emitters run with interrupts off, so once no new one can start, a grace
 * period lets those that already did finish.  After it the ring holds its
 * last record.
 *
 * Context: Process context.
 */
void kprint_core_stop(void)
{
	WRITE_ONCE(kprint_running, false);
	synchronize_rcu();
}

/**
 * kprint_core_exit() - free the handoff slots, the scratch records and the ring
 *
 * Context: Process context, after kprint_core_stop() (no echo runs any
 * more), with the bridge's hook gone, and once nothing reads the ring.
 */
void kprint_core_exit(void)
{
	kprint_handoff_exit();
	free_percpu(kprint_scratch);
	kprint_scratch = NULL;
	kprint_ring_destroy(&kprint_ring);
}

/**
 * kprint_count_dropped() - count messages that were never stored
 * @n: how many
 *
 * Context: Any context.
 */
void kprint_count_dropped(unsigned int n)
{
	atomic64_add(n, &kprint_dropped);
}

/**
 * kprint_get_stats() - collect every counter
 * @st: filled in
 *
 * The ring counters are one consistent snapshot; the others are read
 * individually right after it.
 *
 * Context: Any context but NMI.
 */
void kprint_get_stats(struct kprint_stats *st)
{
	kprint_ring_get_stats(&kprint_ring, &st->ring);
	st->dropped = atomic64_read(&kprint_dropped);
	kprint_ntf_get_stats(&st->mcast_sent, &st->mcast_failed);
}

/**
 * kprint_scratch_get() - take this CPU's scratch builder
 * @flags: saved interrupt state, to pass to kprint_scratch_put()
 *
 * Context: Any context.  Disables interrupts on success.
 * Return: the builder, or NULL if the message cannot be recorded now (NMI,
 * recursion on this CPU, module not running); the caller counts the drop.
 */
struct kprint_builder *kprint_scratch_get(unsigned long *flags)
{
	struct kprint_scratch *s;

	if (unlikely(in_nmi()))
		return NULL;

	/*
	 * Checked with interrupts off: module exit clears kprint_running
	 * and then waits a grace period, which an interrupts-off section
	 * holds up, so nobody stores into a ring that is going away.
	 */
	local_irq_save(*flags);
	s = this_cpu_ptr(kprint_scratch);
	if (unlikely(!READ_ONCE(kprint_running) || s->busy)) {
		local_irq_restore(*flags);
		return NULL;
	}
	s->busy = true;
	s->b.rec = (struct kprint_rec *)s->rec;
	s->b.text = s->text;
	s->b.argbuf = s->arg;
	s->b.checkbuf = s->check;
	return &s->b;
}

/**
 * kprint_scratch_put() - release this CPU's scratch builder
 * @flags: what kprint_scratch_get() saved
 *
 * Context: After a successful kprint_scratch_get() on this CPU.
 */
void kprint_scratch_put(unsigned long flags)
{
	this_cpu_ptr(kprint_scratch)->busy = false;
	local_irq_restore(flags);
}

/**
 * kprint_trace_record() - where tracers see each stored record
 * @format: the record's format string
 * @format_id: its FNV-1a 64 id
 * @level: the record's level (enum kprint_level)
 * @class: the record's class (enum kprint_class)
 * @tags: the record's subsystem, NUL-terminated, immediately followed by
 *	its module, NUL-terminated (their storage order in the record)
 * @tags_id: FNV-1a 64 of those bytes, both NULs included
 *
 * bpf/kprint_counter.bpf.c counts records per format with a kprobe here,
 * defined through tracefs as "kprint:kprint_trace_record": unlike a raw
 * tracepoint or fentry on a module function, such a kprobe holds no
 * reference on the module (kprint can still be unloaded while counted) and
 * is armed again by the kernel when the module comes back.  The same
 * format used by two modules must count as two series, so the counter
 * keys on @tags_id too; the id lets a known (format, tags) pair cost one
 * hash lookup without reading any string, and one pointer to both tags
 * keeps every argument in a register (six on the common ABIs).
 * __noipa keeps the call and its arguments exactly as declared; the empty
 * asm keeps the compiler from deciding the call does nothing.
 *
 * Context: Any context but NMI, once per record stored in the ring, after
 * it was stored; @format and @tags are valid only during the call.
 */
__noipa void kprint_trace_record(const char *format, u64 format_id, u32 level,
				 u32 class, const char *tags, u64 tags_id)
{
	asm volatile("");
}

static void kprint_trace(const struct kprint_rec *rec)
{
	unsigned int len;
	const char *tags = kprint_rec_tags(rec, &len);

	kprint_trace_record(kprint_rec_format(rec), rec->format_id, rec->level,
			    rec->class, tags, kprint_fnv1a64_mem(tags, len));
}

/**
 * kprint_own_printk_begin() - mark the start of one of kprint's printk calls
 *
 * The printk bridge does not take what kprint itself hands to printk
 * (printk already had it as a kprint record): it counts it as skipped.
 * The mark is per CPU and per interrupt context level, with preemption
 * off, so a printk of an interrupt that comes in meanwhile is not taken
 * for kprint's own.
 *
 * Context: Any context; pair with kprint_own_printk_end().
 */
void kprint_own_printk_begin(void)
{
	preempt_disable_notrace();
	this_cpu_or(kprint_own_printk_ctx, BIT(interrupt_context_level()));
}

/**
 * kprint_own_printk_end() - mark the end of one of kprint's printk calls
 *
 * Context: After kprint_own_printk_begin(), in the same context.
 */
void kprint_own_printk_end(void)
{
	this_cpu_and(kprint_own_printk_ctx, ~BIT(interrupt_context_level()));
	preempt_enable_notrace();
}

/**
 * kprint_own_printk() - is this printk one of kprint's own?
 *
 * Context: Any context (the printk bridge's hook).
 * Return: true between kprint_own_printk_begin() and _end() on this CPU at
 * the current interrupt context level.
 */
bool kprint_own_printk(void)
{
	return this_cpu_read(kprint_own_printk_ctx) &
	       BIT(interrupt_context_level());
}

__printf(2, 3)
static void kprint_echo_printf(int level, const char *fmt, ...)
{
	struct kprint_handoff_head *h;
	va_list args;

	va_start(args, fmt);
	kprint_own_printk_begin();
	/* Counted with its record: the BPF counter must not count it again. */
	h = kprint_handoff_echo(args, fmt);
	vprintk_emit(0, level, NULL, fmt, args);
	kprint_handoff_echo_end(h);
	kprint_own_printk_end();
	va_end(args);
}

/**
 * kprint_echo_marked() - echo a record with markers around its args
 * @rec: a stored record with at least one arg
 *
 * The line is kprint_render_marked()'s, in this CPU's marked buffer, with
 * interrupts off so that nothing else on the CPU takes the buffer between
 * the test and the set of marked_busy.  A nested echo (a console driver
 * that kprints from inside the printk below) finds it busy and is echoed
 * unmarked.  The printk bridge still knows the line for kprint's own by
 * kprint_own_printk(), not by its bytes, and skips it.
 *
 * Context: Any context but NMI.
 * Return: true if echoed; false if the record cannot be marked faithfully
 * and must be echoed as it is.
 */
static bool kprint_echo_marked(const struct kprint_rec *rec)
{
	struct kprint_scratch *s;
	unsigned long flags;
	bool done = false;

	local_irq_save(flags);
	s = this_cpu_ptr(kprint_scratch);
	if (s->marked_busy)
		goto out;
	s->marked_busy = true;
	if (kprint_render_marked(rec, s->marked, sizeof(s->marked)) >= 0) {
		kprint_echo_printf(rec->level, "%s\n", s->marked);
		done = true;
	}
	s->marked_busy = false;
out:
	local_irq_restore(flags);
	return done;
}

static void kprint_echo(const struct kprint_rec *rec)
{
	/*
	 * Markers only for records with args: without them the line would
	 * be the same.  Echoes of records that cannot be marked faithfully
	 * stay as they were, so that a marker always means what it says.
	 */
	if (unlikely(READ_ONCE(kprint_markers)) && rec->nr_args &&
	    kprint_echo_marked(rec))
		return;
	/*
	 * The level goes in as an argument, not as a KERN_SOH prefix built at
	 * run time, so that whoever watches printk (dmesg, the BPF printk
	 * counter) sees a plain level and the constant format "%s\n".
	 */
	kprint_echo_printf(rec->level, "%s\n", kprint_rec_text(rec));
}

/**
 * kprint_commit() - store records, echo them to printk, kick the multicast
 * @recs: one record or a block of records, back to back
 * @len: total bytes at @recs
 *
 * Records of source printk (the printk bridge's) are neither echoed, since
 * printk has them already, nor shown to kprint_trace_record(): the bridge
 * hands every printk message to the BPF counter itself (kprint_handoff.c).
 *
 * Context: Any context but NMI.
 * Return: the sequence number of the first record, 0 if nothing was stored.
 */
u64 kprint_commit(struct kprint_rec *recs, unsigned int len)
{
	void *p, *end = (void *)recs + len;
	bool wanted = kprint_ntf_wanted();
	struct kprint_rec *rec;
	unsigned int nr = 0;
	u64 seq;

	for (p = recs; p < end; p += rec->len) {
		rec = p;
		if (!wanted)
			rec->rflags |= KPRINT_REC_NO_NTF;
		nr++;
	}

	seq = kprint_ring_write(&kprint_ring, recs, len);
	if (!seq) {
		kprint_count_dropped(nr);
		return 0;
	}
	if (wanted)
		kprint_ntf_kick();

	for (p = recs; p < end; p += rec->len) {
		rec = p;
		if (rec->source == KPRINT_SOURCE_KPRINT)
			kprint_trace(rec);
	}

	if (READ_ONCE(kprint_printk))
		for (p = recs; p < end; p += rec->len) {
			rec = p;
			if (rec->source == KPRINT_SOURCE_KPRINT)
				kprint_echo(rec);
		}
	return seq;
}
