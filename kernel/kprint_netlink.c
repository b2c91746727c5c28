// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the "kprint" generic netlink family.
 *
 * Dumps read the ring from a cursor kept in the netlink callback; the
 * "records" multicast group is fed by a work item that drains the ring from
 * the ring's own notification cursor.  Emitters never build messages: they
 * may run in hard interrupt context, and most of the time nobody listens.
 */

#include <linux/capability.h>
#include <linux/irq_work.h>
#include <linux/netlink.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "kprint_genl.h"
#include "kprint_internal.h"

static struct genl_family kprint_nl_family __ro_after_init;

/* Cleared first on unload, so that no new multicast work is started. */
static bool kprint_ntf_enabled;

/* Readers need what dmesg needs: CAP_SYSLOG, or CAP_SYS_ADMIN. */
static bool kprint_nl_may_read(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYSLOG) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}

/* Largest KPRINT_A_RECORD nest, for buffer sizing (from the spec). */
static size_t kprint_nl_record_max(void)
{
	return kprint_record_nest_max_size();
}

static size_t kprint_nl_record_size(const struct kprint_rec *rec)
{
	size_t size;
	unsigned int i;

	/* The nest and its scalars (from the spec), COMM, every stored string. */
	size = kprint_record_nest_scalars_size() +
	       nla_total_size(strnlen(rec->comm, KPRINT_COMM_MAX - 1) + 1);
	for (i = 0; i < KPRINT_STR_ARG0 + rec->nr_args; i++)
		size += nla_total_size(rec->slen[i] + 1);
	return size;
}

static int kprint_nl_put_str(struct sk_buff *skb, int type, const char **p,
			     unsigned int len)
{
	int err = nla_put(skb, type, len + 1, *p);

	*p += len + 1;
	return err;
}

static int kprint_nl_record_fill(struct sk_buff *skb,
				 const struct kprint_rec *rec)
{
	const char *p = rec->data, *file, *function, *subsystem, *module;
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, KPRINT_A_RECORD);
	if (!nest)
		return -EMSGSIZE;

	/* Storage order: file, function, subsystem, module, format, args. */
	file = p;
	p += rec->slen[KPRINT_STR_FILE] + 1;
	function = p;
	p += rec->slen[KPRINT_STR_FUNCTION] + 1;
	subsystem = p;
	p += rec->slen[KPRINT_STR_SUBSYSTEM] + 1;
	module = p;
	p += rec->slen[KPRINT_STR_MODULE] + 1;

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
	    nla_put_string(skb, KPRINT_RECORD_A_COMM, rec->comm) ||
	    nla_put(skb, KPRINT_RECORD_A_FILE,
		    rec->slen[KPRINT_STR_FILE] + 1, file) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_LINE, rec->line) ||
	    nla_put(skb, KPRINT_RECORD_A_FUNCTION,
		    rec->slen[KPRINT_STR_FUNCTION] + 1, function) ||
	    nla_put(skb, KPRINT_RECORD_A_SUBSYSTEM,
		    rec->slen[KPRINT_STR_SUBSYSTEM] + 1, subsystem) ||
	    nla_put(skb, KPRINT_RECORD_A_MODULE,
		    rec->slen[KPRINT_STR_MODULE] + 1, module) ||
	    kprint_nl_put_str(skb, KPRINT_RECORD_A_FORMAT, &p,
			      rec->slen[KPRINT_STR_FORMAT]) ||
	    nla_put_u64_64bit(skb, KPRINT_RECORD_A_FORMAT_ID, rec->format_id,
			      KPRINT_RECORD_A_PAD))
		goto cancel;

	for (i = 0; i < rec->nr_args; i++)
		if (kprint_nl_put_str(skb, KPRINT_RECORD_A_ARG, &p,
				      rec->slen[KPRINT_STR_ARG0 + i]))
			goto cancel;

	/* The text is stored last. */
	if (kprint_nl_put_str(skb, KPRINT_RECORD_A_TEXT, &p,
			      rec->slen[KPRINT_STR_TEXT]) ||
	    nla_put_u64_64bit(skb, KPRINT_RECORD_A_BLOCK_ID, rec->block_id,
			      KPRINT_RECORD_A_PAD) ||
	    nla_put_u32(skb, KPRINT_RECORD_A_FLAGS, rec->flags))
		goto cancel;

	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * struct kprint_nl_fill - state of one pass over the ring into a message
 * @skb: message to fill, or NULL to only count (and so discard) records
 * @end_seq: stop before this sequence number
 * @n: records added (or counted)
 * @ntf: for the multicast: skip records stored while nobody listened
 * @full: stopped because the next record did not fit
 */
struct kprint_nl_fill {
	struct sk_buff *skb;
	u64 end_seq;
	unsigned int n;
	bool ntf;
	bool full;
};

/* Runs under the ring lock with interrupts off: copying only. */
static int kprint_nl_fill_one(const struct kprint_rec *rec, void *arg)
{
	struct kprint_nl_fill *f = arg;

	if (rec->seq >= f->end_seq)
		return KPRINT_RING_STOP;
	if (f->ntf && (rec->rflags & KPRINT_REC_NO_NTF))
		return KPRINT_RING_NEXT;
	if (f->skb &&
	    (kprint_nl_record_size(rec) > skb_tailroom(f->skb) ||
	     kprint_nl_record_fill(f->skb, rec))) {
		f->full = true;
		return KPRINT_RING_STOP;
	}
	f->n++;
	return KPRINT_RING_NEXT;
}

/* KPRINT_CMD_RECORD_GET */

struct kprint_nl_dump_ctx {
	struct kprint_cursor cur;
	u64 end_seq;
};

static struct kprint_nl_dump_ctx *
kprint_nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct kprint_nl_dump_ctx) > sizeof(cb->ctx));
	return (struct kprint_nl_dump_ctx *)cb->ctx;
}

int kprint_nl_record_get_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct kprint_nl_dump_ctx *ctx = kprint_nl_dump_ctx(cb);
	struct kprint_ring_stats st;
	u64 start = 0;

	/*
	 * .start runs in the requester's context, so current is theirs.
	 * Refusing here gives a plain NLMSG_ERROR that every client
	 * understands.  Linux 6.1's genetlink does not hand its extack to
	 * .start yet (cb->extack is NULL there, which NL_SET_ERR_MSG
	 * tolerates), so the message only shows on later kernels.
	 */
	if (!kprint_nl_may_read(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack,
			       "reading kprint records needs CAP_SYSLOG or CAP_SYS_ADMIN");
		return -EPERM;
	}

	if (info->attrs[KPRINT_A_START_SEQ])
		start = nla_get_u64(info->attrs[KPRINT_A_START_SEQ]);

	/*
	 * A dump covers what was in the ring when it started; otherwise a
	 * steady stream of emitters could keep it going forever.
	 */
	kprint_ring_get_stats(&kprint_ring, &st);
	ctx->end_seq = st.next_seq;
	kprint_ring_seek(&kprint_ring, &ctx->cur, start);

	/* Every message must be able to hold the largest record. */
	cb->min_dump_alloc = nlmsg_total_size(genlmsg_total_size(kprint_nl_record_max()));
	return 0;
}

int kprint_nl_record_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct kprint_nl_dump_ctx *ctx = kprint_nl_dump_ctx(cb);
	struct kprint_nl_fill f = {
		.skb = skb,
		.end_seq = ctx->end_seq,
	};
	void *hdr;

	if (ctx->cur.seq >= ctx->end_seq)
		return 0;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &kprint_nl_family, NLM_F_MULTI, KPRINT_CMD_RECORD_GET);
	if (!hdr)
		return -EMSGSIZE;

	kprint_ring_read(&kprint_ring, &ctx->cur, kprint_nl_fill_one, &f);
	if (!f.n) {
		genlmsg_cancel(skb, hdr);
		return f.full ? -EMSGSIZE : 0;
	}
	genlmsg_end(skb, hdr);
	return skb->len;
}

/* KPRINT_CMD_STATS_GET */

static int kprint_nl_stats_fill(struct sk_buff *skb,
				const struct kprint_stats *st)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, KPRINT_A_STATS);
	if (!nest)
		return -EMSGSIZE;

	if (nla_put_u64_64bit(skb, KPRINT_STATS_A_RECORDS, st->ring.records,
			      KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_OVERWRITTEN,
			      st->ring.overwritten, KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_DROPPED, st->dropped,
			      KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_TRUNCATED,
			      st->ring.truncated, KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_RING_BYTES, st->ring.size,
			      KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_RING_RECORDS,
			      st->ring.nr_records, KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_FIRST_SEQ,
			      st->ring.first_seq, KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_NEXT_SEQ,
			      st->ring.next_seq, KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_MCAST_SENT, st->mcast_sent,
			      KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_MCAST_FAILED,
			      st->mcast_failed, KPRINT_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KPRINT_STATS_A_MCAST_SKIPPED,
			      st->ring.ntf_skipped, KPRINT_STATS_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}

	nla_nest_end(skb, nest);
	return 0;
}

int kprint_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprint_stats st;
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (!kprint_nl_may_read(skb)) {
		GENL_SET_ERR_MSG(info,
				 "reading kprint statistics needs CAP_SYSLOG or CAP_SYS_ADMIN");
		return -EPERM;
	}

	msg = genlmsg_new(kprint_nl_stats_get_reply_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &kprint_nl_family, 0,
				KPRINT_CMD_STATS_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}

	kprint_get_stats(&st);
	err = kprint_nl_stats_fill(msg, &st);
	if (err)
		goto err_free;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

/* KPRINT_CMD_EMIT */

/*
 * Text = the format with every conversion replaced by the matching
 * argument, verbatim.  The argument count must match exactly: a format
 * that consumed more arguments than it was given is exactly the printf
 * bug kprint should not let userspace reproduce.
 */
static int kprint_nl_emit_build(struct kprint_builder *b, struct nlattr **tb,
				struct nlattr **args, unsigned int nargs,
				struct netlink_ext_ack *extack)
{
	struct nlattr *fattr = tb[KPRINT_RECORD_A_FORMAT];
	const char *fmt = nla_data(fattr);
	struct kprint_fmt_spec fs;
	unsigned int n, i = 0;
	u32 class = KPRINT_CLASS_NONE;

	if (tb[KPRINT_RECORD_A_CLASS])
		class = nla_get_u32(tb[KPRINT_RECORD_A_CLASS]);

	kprint_rec_begin(b, nla_get_u32(tb[KPRINT_RECORD_A_LEVEL]), class,
			 KPRINT_RECORD_F_USER);
	b->rec->format_id = kprint_fnv1a64(fmt);
	kprint_rec_put_str(b, KPRINT_STR_FILE, "");
	kprint_rec_put_str(b, KPRINT_STR_FUNCTION, "");
	kprint_rec_put_str(b, KPRINT_STR_SUBSYSTEM,
			   tb[KPRINT_RECORD_A_SUBSYSTEM] ?
			   nla_data(tb[KPRINT_RECORD_A_SUBSYSTEM]) : "");
	kprint_rec_put_str(b, KPRINT_STR_MODULE, "user");
	kprint_rec_put_str(b, KPRINT_STR_FORMAT, fmt);

	for (; (n = kprint_fmt_decode(fmt, &fs)); fmt += n) {
		const char *arg;
		size_t len;

		if (fs.star_width || fs.star_prec) {
			NL_SET_ERR_MSG_ATTR(extack, fattr,
					    "'*' width or precision cannot be injected");
			return -EINVAL;
		}

		switch (fs.type) {
		case KPRINT_FMT_LITERAL:
			kprint_rec_append_text(b, fmt, n);
			break;
		case KPRINT_FMT_PERCENT:
			kprint_rec_append_text(b, "%", 1);
			break;
		case KPRINT_FMT_INVALID:
			NL_SET_ERR_MSG_ATTR(extack, fattr,
					    "format has an unsupported conversion");
			return -EINVAL;
		default:
			if (i == nargs)
				goto mismatch;
			arg = nla_data(args[i]);
			len = strnlen(arg, nla_len(args[i]));
			kprint_rec_add_arg(b, arg, len);
			kprint_rec_append_text(b, arg, len);
			i++;
			break;
		}
	}
	if (i != nargs)
		goto mismatch;

	if (b->rec->flags & KPRINT_RECORD_F_TRUNCATED) {
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "text would be longer than KPRINT_TEXT_MAX - 1");
		return -EMSGSIZE;
	}

	kprint_rec_end(b);
	return 0;

mismatch:
	NL_SET_ERR_MSG_ATTR(extack, fattr,
			    "number of conversions differs from number of arguments");
	return -EINVAL;
}

int kprint_nl_emit_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KPRINT_RECORD_A_MAX + 1];
	struct nlattr *args[KPRINT_ARGS_MAX];
	struct netlink_ext_ack *extack = info->extack;
	struct kprint_builder b = {};
	struct nlattr *rattr, *attr;
	unsigned int nargs = 0;
	struct sk_buff *msg;
	unsigned long flags;
	void *hdr, *buf;
	int err, rem, nrec = 0;
	bool running;
	u64 seq;

	if (GENL_REQ_ATTR_CHECK(info, KPRINT_A_RECORD)) {
		GENL_SET_ERR_MSG(info, "missing KPRINT_A_RECORD");
		return -EINVAL;
	}
	nla_for_each_attr(attr, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem)
		if (nla_type(attr) == KPRINT_A_RECORD)
			nrec++;
	if (nrec > 1) {
		GENL_SET_ERR_MSG(info, "one KPRINT_A_RECORD per request");
		return -EINVAL;
	}

	rattr = info->attrs[KPRINT_A_RECORD];
	err = nla_parse_nested(tb, KPRINT_RECORD_A_MAX, rattr,
			       kprint_nl_emit_record_policy, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, rattr, tb, KPRINT_RECORD_A_LEVEL)) {
		NL_SET_ERR_MSG(extack, "missing KPRINT_RECORD_A_LEVEL");
		return -EINVAL;
	}
	if (NL_REQ_ATTR_CHECK(extack, rattr, tb, KPRINT_RECORD_A_FORMAT)) {
		NL_SET_ERR_MSG(extack, "missing KPRINT_RECORD_A_FORMAT");
		return -EINVAL;
	}

	/* nla_parse keeps only the last ARG; walk the nest for all of them. */
	nla_for_each_nested(attr, rattr, rem) {
		if (nla_type(attr) != KPRINT_RECORD_A_ARG)
			continue;
		if (nargs == KPRINT_ARGS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "more than KPRINT_ARGS_MAX arguments");
			return -EINVAL;
		}
		args[nargs++] = attr;
	}

	/* Allocate the reply first: a stored record must get its answer. */
	msg = genlmsg_new(kprint_nl_emit_reply_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kprint_nl_family, 0,
				KPRINT_CMD_EMIT);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free_msg;
	}

	buf = kmalloc(KPRINT_REC_MAX + KPRINT_TEXT_MAX, GFP_KERNEL);
	if (!buf) {
		err = -ENOMEM;
		goto err_free_msg;
	}
	b.rec = buf;
	b.text = buf + KPRINT_REC_MAX;

	err = kprint_nl_emit_build(&b, tb, args, nargs, extack);
	if (err)
		goto err_free_buf;

	/*
	 * Stored with interrupts off and only while kprint runs, like every
	 * in-kernel emitter: module exit's grace period then waits for this
	 * store too, and the ring's last record is known before the final
	 * notifications go out.
	 */
	local_irq_save(flags);
	running = READ_ONCE(kprint_running);
	seq = running ? kprint_commit(b.rec, b.rec->len) : 0;
	local_irq_restore(flags);
	kfree(buf);
	if (!running) {
		GENL_SET_ERR_MSG(info, "kprint is being unloaded");
		err = -ESHUTDOWN;
		goto err_free_msg;
	}
	if (!seq) {
		err = -ENOBUFS;
		goto err_free_msg;
	}

	if (nla_put_u64_64bit(msg, KPRINT_A_SEQ, seq, KPRINT_A_PAD)) {
		err = -EMSGSIZE;
		goto err_free_msg;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_buf:
	kfree(buf);
err_free_msg:
	nlmsg_free(msg);
	return err;
}

/* Notifications */

static void kprint_ntf_work_fn(struct work_struct *work);
static DECLARE_WORK(kprint_ntf_work, kprint_ntf_work_fn);

/*
 * Set from the first kick until the worker starts draining: every record
 * stored in between will be sent by that run, so its emitter need not
 * raise the irq_work again.  Without it each record paid for a
 * self-interrupt while the worker was still on its way.
 */
static unsigned long kprint_ntf_pending;

/* Emitters may hold scheduler locks: they only ever raise an irq_work. */
static void kprint_ntf_irq_work_fn(struct irq_work *irq_work)
{
	if (READ_ONCE(kprint_ntf_enabled))
		queue_work(system_unbound_wq, &kprint_ntf_work);
	else
		clear_bit(0, &kprint_ntf_pending);
}

static struct irq_work kprint_ntf_irq_work =
	IRQ_WORK_INIT(kprint_ntf_irq_work_fn);

/**
 * kprint_ntf_wanted() - does anybody listen to the records group?
 *
 * Context: Any context.
 * Return: true if a record stored now should be multicast.  Records stored
 * while this is false never are, so a subscriber only receives records
 * stored after it joined.
 */
bool kprint_ntf_wanted(void)
{
	return READ_ONCE(kprint_ntf_enabled) &&
	       genl_has_listeners(&kprint_nl_family, &init_net,
				  KPRINT_NLGRP_RECORDS) > 0;
}

/**
 * kprint_ntf_kick() - have the notification worker drain the ring
 *
 * Context: Any context.
 */
void kprint_ntf_kick(void)
{
	if (!test_and_set_bit(0, &kprint_ntf_pending))
		irq_work_queue(&kprint_ntf_irq_work);
}

/*
 * Payload of a notification: about 15 KiB (the skb stays within an order-2
 * allocation), and at least one record of the largest size.  Each datagram
 * is a wake-up for every subscriber, so a burst goes out in as few as
 * possible; a page-sized datagram carried only about ten records.
 */
#define KPRINT_NTF_PAYLOAD	(SZ_16K - SZ_1K)

static size_t kprint_ntf_payload(void)
{
	return max_t(size_t, KPRINT_NTF_PAYLOAD, kprint_nl_record_max());
}

/*
 * Sends everything from the notification cursor to the head, batching as
 * many records per message as fit.  Records overwritten before we got to
 * them were already counted by the ring (mcast_skipped); the subscriber
 * sees the gap in sequence numbers and can catch up with a dump.
 */
static void kprint_ntf_work_fn(struct work_struct *work)
{
	struct kprint_nl_fill f;
	struct sk_buff *skb;
	bool all;
	void *hdr;
	int err;

	/*
	 * Before reading the ring: a record stored after this kicks again
	 * (test_and_set_bit() is a full barrier), so none is left behind.
	 */
	clear_bit(0, &kprint_ntf_pending);
	smp_mb__after_atomic();
	do {
		if (!READ_ONCE(kprint_ntf_enabled))
			return;
		if (genl_has_listeners(&kprint_nl_family, &init_net,
				       KPRINT_NLGRP_RECORDS) <= 0) {
			kprint_ring_ntf_catch_up(&kprint_ring);
			return;
		}

		memset(&f, 0, sizeof(f));
		f.end_seq = U64_MAX;
		f.ntf = true;

		skb = genlmsg_new(kprint_ntf_payload(), GFP_KERNEL);
		if (!skb) {
			/* Count what we cannot send, rather than retry forever. */
			kprint_ring_read(&kprint_ring, &kprint_ring.ntf,
					 kprint_nl_fill_one, &f);
			kprint_count_mcast(0, f.n);
			return;
		}

		hdr = genlmsg_put(skb, 0, 0, &kprint_nl_family, 0,
				  KPRINT_CMD_RECORD_NTF);
		if (!hdr) {
			nlmsg_free(skb);
			return;
		}

		f.skb = skb;
		all = kprint_ring_read(&kprint_ring, &kprint_ring.ntf,
				       kprint_nl_fill_one, &f);
		if (!f.n) {
			nlmsg_free(skb);
			return;
		}
		genlmsg_end(skb, hdr);

		/*
		 * -ESRCH: nobody took it, e.g. the only subscriber's buffer
		 * was full; that subscriber gets ENOBUFS on its socket, the
		 * usual netlink signal to resynchronise.  The send itself
		 * did not fail.
		 */
		err = genlmsg_multicast(&kprint_nl_family, skb, 0,
					KPRINT_NLGRP_RECORDS, GFP_KERNEL);
		if (!err || err == -ESRCH)
			kprint_count_mcast(f.n, 0);
		else
			kprint_count_mcast(0, f.n);

		cond_resched();
	} while (!all);
}

/* Family */

static struct genl_family kprint_nl_family __ro_after_init = {
	.name		= KPRINT_GENL_NAME,
	.version	= KPRINT_GENL_VERSION,
	.netnsok	= false,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= kprint_nl_ops,
	.n_ops		= ARRAY_SIZE(kprint_nl_ops),
	.mcgrps		= kprint_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(kprint_nl_mcgrps),
};

/**
 * kprint_nl_init() - register the family and enable notifications
 *
 * Context: Process context (module init).
 * Return: 0 or a negative errno from genl_register_family().
 */
int kprint_nl_init(void)
{
	int err;

	err = genl_register_family(&kprint_nl_family);
	if (err)
		return err;

	WRITE_ONCE(kprint_ntf_enabled, true);
	return 0;
}

/**
 * kprint_nl_exit() - send what subscribers have not got, then unregister
 *
 * Context: Process context (module exit), after the last record was stored.
 * On return no netlink operation runs and no notification work is pending.
 */
void kprint_nl_exit(void)
{
	/*
	 * No record can be stored any more, so one last run of the worker
	 * multicasts the tail of the ring: a subscriber that kept up has
	 * every record when it sees the family go.
	 */
	irq_work_sync(&kprint_ntf_irq_work);
	flush_work(&kprint_ntf_work);

	/* Stop the worker before the family's groups are released. */
	WRITE_ONCE(kprint_ntf_enabled, false);
	irq_work_sync(&kprint_ntf_irq_work);
	cancel_work_sync(&kprint_ntf_work);

	genl_unregister_family(&kprint_nl_family);
}
