// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the printk bridge's load backlog.
 */

/**
 * DOC: printk bridge backlog
 *
 * At load, what printk stored before becomes records too, flagged
 * KPRINT_RECORD_F_BACKLOG.  They are read with kmsg_dump_get_line(), up to
 * printk's next seq once the hook is on.  Every record printk reserves
 * after that is taken live, at its commit.
 *
 * A record whose printk the hook saw, reserved before the backlog's end and
 * committed during the load, is taken live.  Its seq is noted
 * (kprint_bridge_load_note()), and the backlog skips it.  One whose printk
 * began before the hook went on has no record built: the backlog has it.
 * The backlog's records carry printk's seq, its level and facility, and
 * its timestamp when printk.time is on.  They name no caller: the loading
 * task did not write them.
 */

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "kprint_bridge_shared.h"
#include "kprint_core.h"

/*
 * Load.  Records printk committed while the backlog is being taken, with
 * a seq below where the backlog ends, are taken live and not again.
 */
#define KPRINT_BRIDGE_LOAD_SEQS		64

bool kprint_bridge_loading;
u64 kprint_bridge_load_end;
static atomic_t kprint_bridge_load_n;
static u64 kprint_bridge_load_seqs[KPRINT_BRIDGE_LOAD_SEQS];

/*
 * Notes @seq, if printk committed it live while the backlog is taken, so
 * that the backlog does not take it again.  Asked at every commit.
 */
void kprint_bridge_load_note(u64 seq)
{
	int i;

	if (likely(!READ_ONCE(kprint_bridge_loading)) ||
	    seq >= READ_ONCE(kprint_bridge_load_end))
		return;
	i = atomic_inc_return(&kprint_bridge_load_n) - 1;
	if (i < KPRINT_BRIDGE_LOAD_SEQS)
		WRITE_ONCE(kprint_bridge_load_seqs[i], seq);
}

static bool kprint_bridge_load_live(u64 seq)
{
	int i, n = min(atomic_read(&kprint_bridge_load_n),
		       KPRINT_BRIDGE_LOAD_SEQS);

	for (i = 0; i < n; i++)
		if (READ_ONCE(kprint_bridge_load_seqs[i]) == seq)
			return true;
	return false;
}

/*
 * One line of kmsg_dump_get_line(syslog = true): "<pri>[ssss.uuuuuu] text",
 * the timestamp only with printk.time on, every further line of a
 * multi-line text behind the same prefix again.
 */
static void kprint_bridge_backlog_line(char *line, size_t len, u64 *ts,
				       u64 pseq)
{
	struct kprint_builder *b;
	unsigned long flags, pri = 0, sec, usec;
	size_t prefix, i, n;
	char *p = line, *end = line + len;
	u64 mono;

	if (len && end[-1] == '\n')
		end--;
	*end = '\0';
	if (*p != '<')
		return;
	pri = simple_strtoul(p + 1, &p, 10);
	if (*p != '>')
		return;
	p++;
	*ts = 0;
	if (*p == '[' && sscanf(p, "[%lu.%lu]", &sec, &usec) == 2) {
		p = strchr(p, ']') + 1;
		if (*p == ' ')
			p++;
		*ts = (u64)sec * NSEC_PER_SEC + (u64)usec * NSEC_PER_USEC;
	}
	prefix = p - line;

	/* Put the lines of a multi-line text back together. */
	for (i = n = 0; p + i < end; ) {
		line[n++] = p[i];
		if (p[i] == '\n' && p + i + 1 + prefix <= end)
			i += 1 + prefix;
		else
			i++;
	}

	b = kprint_scratch_get(&flags);
	if (!b) {
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
		return;
	}
	kprint_rec_begin(b, pri & 7, KPRINT_CLASS_NONE,
			 KPRINT_RECORD_F_BACKLOG);
	b->rec->source = KPRINT_SOURCE_PRINTK;
	b->rec->facility = (pri >> 3) & 0xff;
	b->rec->format_id = kprint_fnv1a64("");
	b->rec->printk_seq = pseq;
	/* Nobody made this now: the loading task is not its author. */
	b->rec->pid = 0;
	memset(b->rec->comm, 0, sizeof(b->rec->comm));
	mono = *ts ?: ktime_get_ns();
	b->rec->ts_mono = mono;
	b->rec->ts_real = ktime_to_ns(ktime_mono_to_real(ns_to_ktime(mono)));
	kprint_rec_put_str(b, KPRINT_STR_FILE, "");
	kprint_rec_put_str(b, KPRINT_STR_FUNCTION, "");
	kprint_rec_put_str(b, KPRINT_STR_SUBSYSTEM, "");
	kprint_rec_put_str(b, KPRINT_STR_MODULE, "");
	kprint_rec_put_str(b, KPRINT_STR_DEVICE, "");
	kprint_rec_put_str(b, KPRINT_STR_FORMAT, "");
	kprint_rec_append_text(b, line, n);
	kprint_rec_end(b);
	if (kprint_commit(b->rec, b->rec->len))
		atomic64_inc(&kprint_bridge_count.backlog);
	else
		atomic64_inc(&kprint_bridge_count.dropped_scratch);
	kprint_scratch_put(flags);
}

/* printk's next seq: where its ring ends now. */
u64 kprint_bridge_backlog_end(void)
{
	struct kmsg_dump_iter iter;

	kmsg_dump_rewind(&iter);
	return iter.next_seq;
}

/**
 * kprint_bridge_backlog() - take printk's ring up to @end as backlog records
 * @end: printk's next seq, read once the hook was registered
 *
 * Every record printk reserves after the registration is taken live, at
 * its commit; so is one reserved before and committed after.  What
 * printk committed before is here, below @end, where the hook's commits
 * are noted (kprint_bridge_load_note()) so as not to take them twice.
 */
void kprint_bridge_backlog(u64 end)
{
	/* A record's text plus a prefix per line: more is cut by printk. */
	const size_t size = 2 * KPRINT_TEXT_MAX;
	struct kmsg_dump_iter iter;
	size_t len;
	char *line;
	u64 ts;

	line = kmalloc(size, GFP_KERNEL);
	if (!line)
		return;
	kmsg_dump_rewind(&iter);
	while (iter.cur_seq < end &&
	       kmsg_dump_get_line(&iter, true, line, size - 1, &len)) {
		/* cur_seq is now past the line just read. */
		if (iter.cur_seq > end)
			break;
		if (kprint_bridge_load_live(iter.cur_seq - 1))
			atomic64_inc(&kprint_bridge_count.backlog_live);
		else
			kprint_bridge_backlog_line(line, len, &ts,
						   iter.cur_seq - 1);
		cond_resched();
	}
	kfree(line);
}
