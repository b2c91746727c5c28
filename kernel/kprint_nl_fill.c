// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: records and statistics as netlink attributes.
 *
 * Each message kind has a kprint_nl_*_size() that says how much room it
 * takes and a kprint_nl_*_fill() that writes it, in the manner of
 * net/core/drop_monitor.c, so that a message is allocated once at the right
 * size.  Record fills run under the ring lock with interrupts off (see
 * kprint_nl_fill_one()): they only copy.
 */

#include <linux/percpu.h>

#include <net/netlink.h>

#include <uapi/linux/kprint.h>

#include "kprint_genl.h"
#include "kprint_nl_fill.h"
#include "kprint_render.h"
#include "kprint_ring.h"
#include "kprint_stats_table.h"

/*
 * Where a deferred record (KPRINT_REC_DEFERRED) is expanded for the
 * message.  Per CPU: kprint_ring_read() calls kprint_nl_fill_one() with
 * the ring lock held and interrupts off, and no record is read in NMI.
 */
struct kprint_nl_expansion {
	u64 rec[KPRINT_REC_MAX / sizeof(u64)];
	char text[KPRINT_TEXT_MAX];
};

static struct kprint_nl_expansion __percpu *kprint_nl_expansion;

/**
 * kprint_nl_fill_init() - allocate what filling messages needs
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int kprint_nl_fill_init(void)
{
	kprint_nl_expansion = alloc_percpu(struct kprint_nl_expansion);
	return kprint_nl_expansion ? 0 : -ENOMEM;
}

/**
 * kprint_nl_fill_exit() - free it, once no message is being filled
 *
 * Context: Process context.
 */
void kprint_nl_fill_exit(void)
{
	free_percpu(kprint_nl_expansion);
	kprint_nl_expansion = NULL;
}

static const struct kprint_rec *kprint_nl_expand(const struct kprint_rec *rec)
{
	struct kprint_nl_expansion *x = this_cpu_ptr(kprint_nl_expansion);
	struct kprint_builder b = {
		.rec = (struct kprint_rec *)x->rec,
		.text = x->text,
	};

	kprint_render_expand(rec, &b);
	return b.rec;
}

/* The attribute each of a record's strings goes out as. */
static const u16 kprint_nl_str_attr[KPRINT_STR_ARG0] = {
	[KPRINT_STR_FILE]	= KPRINT_RECORD_A_FILE,
	[KPRINT_STR_FUNCTION]	= KPRINT_RECORD_A_FUNCTION,
	[KPRINT_STR_SUBSYSTEM]	= KPRINT_RECORD_A_SUBSYSTEM,
	[KPRINT_STR_MODULE]	= KPRINT_RECORD_A_MODULE,
	[KPRINT_STR_DEVICE]	= KPRINT_RECORD_A_DEVICE,
	[KPRINT_STR_FORMAT]	= KPRINT_RECORD_A_FORMAT,
	[KPRINT_STR_TEXT]	= KPRINT_RECORD_A_TEXT,
};

/*
 * The nest and every attribute of a record but its strings, counted from
 * the spec (kprint_genl.h is generated from schema/kprint.yaml).
 */
static size_t kprint_nl_record_fixed_size(void)
{
	return kprint_record_nest_scalars_size();
}

/**
 * kprint_nl_record_max() - room for the largest KPRINT_A_RECORD nest
 *
 * Context: Any context.
 * Return: bytes.
 */
size_t kprint_nl_record_max(void)
{
	return kprint_record_nest_max_size();
}

/* Room for one record's KPRINT_A_RECORD nest. */
static size_t kprint_nl_record_size(const struct kprint_rec *rec)
{
	size_t size;
	unsigned int i;

	size = kprint_nl_record_fixed_size() +
	       nla_total_size(strnlen(rec->comm, KPRINT_COMM_MAX - 1) + 1);
	for (i = 0; i < kprint_rec_nr_strs(rec); i++)
		size += nla_total_size(rec->slen[i] + 1);
	return size;
}

/*
 * Attributes that most records have at their default, 0 or "": sent only
 * when they are not.  A reader takes an absent one as its default (the
 * spec says so), and a flood of kprint records is a sixth smaller on the
 * wire, with five attributes fewer to build and to decode per record.
 */
static bool kprint_nl_str_sent(const struct kprint_rec_iter *it)
{
	return it->len || it->idx != KPRINT_STR_DEVICE;
}

static int kprint_nl_put_u64_set(struct sk_buff *skb, int type, u64 value)
{
	return value ? nla_put_u64_64bit(skb, type, value, KPRINT_RECORD_A_PAD) : 0;
}

static int kprint_nl_put_u32_set(struct sk_buff *skb, int type, u32 value)
{
	return value ? nla_put_u32(skb, type, value) : 0;
}

/*
 * A record as a KPRINT_A_RECORD nest, its attributes in one fixed order: the
 * strings in storage order, with LINE after FILE and FORMAT_ID after FORMAT;
 * BLOCK_ID, DEVICE, FACILITY, CONTINUES and PRINTK_SEQ only when set;
 * FILTERED last, only for a filtered subscriber (@filtered not NULL).
 * Returns 0, or -EMSGSIZE with @skb left as it was.
 */
static int kprint_nl_record_fill(struct sk_buff *skb,
				 const struct kprint_rec *rec,
				 const u64 *filtered)
{
	struct kprint_rec_iter it;
	struct nlattr *nest;

	nest = nla_nest_start(skb, KPRINT_A_RECORD);
	if (!nest)
		return -EMSGSIZE;

	if (nla_put_u64_64bit(skb, KPRINT_RECORD_A_SEQ, rec->seq,
			      KPRINT_RECORD_A_PAD) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_LEVEL, rec->level) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_CLASS, rec->class) ||
	    nla_put_u64_64bit(skb, KPRINT_RECORD_A_TS_MONO_NS, rec->ts_mono,
			      KPRINT_RECORD_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_RECORD_A_TS_REAL_NS, rec->ts_real,
			      KPRINT_RECORD_A_PAD) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_CPU, rec->cpu) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_PID, rec->pid) ||
	    nla_put_string(skb, KPRINT_RECORD_A_COMM, rec->comm))
		goto cancel;

	kprint_rec_for_each_str(rec, &it) {
		int type = it.idx >= KPRINT_STR_ARG0 ? KPRINT_RECORD_A_ARG :
			   kprint_nl_str_attr[it.idx];

		if (kprint_nl_str_sent(&it) && nla_put(skb, type, it.len + 1, it.s))
			goto cancel;
		if (it.idx == KPRINT_STR_FILE &&
		    nla_put_u32(skb, KPRINT_RECORD_A_LINE, rec->line))
			goto cancel;
		if (it.idx == KPRINT_STR_FORMAT &&
		    nla_put_u64_64bit(skb, KPRINT_RECORD_A_FORMAT_ID,
				      rec->format_id, KPRINT_RECORD_A_PAD))
			goto cancel;
	}

	if (kprint_nl_put_u64_set(skb, KPRINT_RECORD_A_BLOCK_ID, rec->block_id) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_FLAGS, rec->flags) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_SOURCE, rec->source) ||
	    kprint_nl_put_u32_set(skb, KPRINT_RECORD_A_FACILITY, rec->facility) ||
	    kprint_nl_put_u64_set(skb, KPRINT_RECORD_A_CONTINUES, rec->continues) ||
	    kprint_nl_put_u64_set(skb, KPRINT_RECORD_A_PRINTK_SEQ, rec->printk_seq))
		goto cancel;
	if (filtered &&
	    nla_put_u64_64bit(skb, KPRINT_RECORD_A_FILTERED, *filtered,
			      KPRINT_RECORD_A_PAD))
		goto cancel;

	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * kprint_nl_fill_one() - a kprint_ring_read_fn that fills a message
 * @rec: the record the ring hands out
 * @arg: a struct kprint_nl_fill
 *
 * Context: Under the ring lock with interrupts off: copying only.
 * Return: KPRINT_RING_NEXT, or KPRINT_RING_STOP at @end_seq or when the
 * record does not fit (@full).
 */
int kprint_nl_fill_one(const struct kprint_rec *rec, void *arg)
{
	struct kprint_nl_fill *f = arg;

	if (rec->seq >= f->end_seq)
		return KPRINT_RING_STOP;
	if (f->ntf && (rec->rflags & KPRINT_REC_NO_NTF))
		return KPRINT_RING_NEXT;
	if (f->skb && (rec->rflags & KPRINT_REC_DEFERRED))
		rec = kprint_nl_expand(rec);
	if (f->skb &&
	    (kprint_nl_record_size(rec) > skb_tailroom(f->skb) ||
	     kprint_nl_record_fill(f->skb, rec, NULL))) {
		f->full = true;
		return KPRINT_RING_STOP;
	}
	f->n++;
	return KPRINT_RING_NEXT;
}

/* Does @t take @rec in this pass? */
static bool kprint_nl_target_wants(const struct kprint_nl_target *t,
				   const struct kprint_rec *rec)
{
	if (rec->rflags & KPRINT_REC_NO_NTF)
		return false;
	if (!t->filter)
		return true;
	return rec->seq >= t->from && kprint_nl_filter_match(t->filter, rec);
}

/*
 * Keep a filtered subscriber's count of refused records honest: it is the
 * run of records its filter refused right before the next one it is sent.
 * A hole (records overwritten before the worker read them) or a record
 * sent to nobody (KPRINT_REC_NO_NTF) ends the run, so the subscriber sees
 * those as the gap they are.
 */
static void kprint_nl_target_take(struct kprint_nl_target *t,
				  const struct kprint_rec *rec,
				  const struct kprint_rec *out, bool wants)
{
	if (t->filter) {
		if (rec->seq < t->from)
			return;
		if (rec->seq != t->next || (rec->rflags & KPRINT_REC_NO_NTF))
			t->filtered = 0;
		t->next = rec->seq + 1;
		if (!wants) {
			if (!(rec->rflags & KPRINT_REC_NO_NTF))
				t->filtered++;
			return;
		}
	} else if (!wants) {
		return;
	}
	/* Sized beforehand: a failure here would be a bug, seen as a gap. */
	if (!WARN_ON_ONCE(kprint_nl_record_fill(t->skb, out, t->filter ?
						&t->filtered : NULL)))
		t->n++;
	t->filtered = 0;
}

/**
 * kprint_nl_fanout_one() - a kprint_ring_read_fn that fills each target's
 * message with the records it wants
 * @rec: the record the ring hands out
 * @arg: a struct kprint_nl_fanout
 *
 * A record is taken by every target at once or by none: if it does not fit
 * one target's message, the read stops before it and the next pass starts
 * with it, so every target sees every record in order.
 *
 * Context: Under the ring lock with interrupts off: matching and copying.
 * Return: KPRINT_RING_NEXT, or KPRINT_RING_STOP when a message is full.
 */
int kprint_nl_fanout_one(const struct kprint_rec *rec, void *arg)
{
	struct kprint_nl_fanout *fo = arg;
	const struct kprint_rec *out = rec;
	bool wants[KPRINT_NL_TARGETS_MAX];
	size_t size = 0;
	unsigned int i;

	for (i = 0; i < fo->nr; i++) {
		wants[i] = kprint_nl_target_wants(fo->t[i], rec);
		if (!wants[i])
			continue;
		if (!size) {
			if (rec->rflags & KPRINT_REC_DEFERRED)
				out = kprint_nl_expand(rec);
			size = kprint_nl_record_size(out);
		}
		if (size > skb_tailroom(fo->t[i]->skb)) {
			fo->full = true;
			return KPRINT_RING_STOP;
		}
	}
	for (i = 0; i < fo->nr; i++)
		kprint_nl_target_take(fo->t[i], rec, out, wants[i]);
	fo->n++;
	return KPRINT_RING_NEXT;
}

/**
 * kprint_nl_stats_size() - room for the KPRINT_A_STATS nest
 *
 * Context: Any context.
 * Return: bytes.
 */
size_t kprint_nl_stats_size(void)
{
	return kprint_stats_nest_max_size();
}

/**
 * kprint_nl_stats_fill() - add every counter as a KPRINT_A_STATS nest
 * @skb: the message
 * @st: the counters
 *
 * Context: Any context.
 * Return: 0, or -EMSGSIZE with @skb left as it was.
 */
int kprint_nl_stats_fill(struct sk_buff *skb, const struct kprint_stats *st)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, KPRINT_A_STATS);
	if (!nest)
		return -EMSGSIZE;

	/* The table is generated from the spec, with every counter's place. */
	for (i = 0; i < ARRAY_SIZE(kprint_stats_entries); i++) {
		const struct kprint_stats_entry *a = &kprint_stats_entries[i];
		u64 value = *(const u64 *)((const char *)st + a->offset);

		if (nla_put_u64_64bit(skb, a->attr, value, KPRINT_STATS_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}

	nla_nest_end(skb, nest);
	return 0;
}
