// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: the "kprint" generic netlink family's requests.
 *
 * The handlers named by the operations table in kprint_genl.c, and the
 * family built from that table.  Dumps read the ring from a cursor kept in
 * the netlink callback; the multicast group and the filtered subscribers
 * (KPRINT_CMD_SUBSCRIBE) are fed by the notification worker
 * (kprint_ntf.c), started and stopped with the family.
 */

#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "kprint_bridge.h"
#include "kprint_core.h"
#include "kprint_genl.h"
#include "kprint_netlink.h"
#include "kprint_nl_fill.h"
#include "kprint_nl_filter.h"
#include "kprint_ntf.h"
#include "kprint_ratelimit.h"
#include "kprint_render.h"

static struct genl_family kprint_nl_family __ro_after_init;

/* Readers need what dmesg needs: CAP_SYSLOG, or CAP_SYS_ADMIN. */
static bool kprint_nl_may_read(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYSLOG) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
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

/*
 * The request's parsed attributes in a dump's callbacks.  Linux 6.2's
 * split genetlink ops moved them from struct genl_dumpit_info into the
 * struct genl_info it now embeds (genl_info_dump()); 6.1 has only the
 * former, 6.12 only the latter (KPRINT_COMPAT_6_1: kernel/Kbuild).
 */
static struct nlattr *const *kprint_nl_dump_attrs(struct netlink_callback *cb)
{
#ifdef KPRINT_COMPAT_6_1
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_info_dump(cb)->attrs;
#endif
}

int kprint_nl_record_get_start(struct netlink_callback *cb)
{
	struct nlattr *const *attrs = kprint_nl_dump_attrs(cb);
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

	if (attrs[KPRINT_A_START_SEQ])
		start = nla_get_u64(attrs[KPRINT_A_START_SEQ]);

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

/* Replies */

/* A reply to @info of @size bytes of attributes, its header put. */
static struct sk_buff *kprint_nl_reply_new(struct genl_info *info, u8 cmd,
					   size_t size, void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &kprint_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * Ends a reply with the one KPRINT_A_SEQ its room was allocated for and
 * sends it; the reply is consumed either way.
 */
static int kprint_nl_reply_seq(struct sk_buff *msg, void *hdr,
			       struct genl_info *info, u64 seq)
{
	if (nla_put_u64_64bit(msg, KPRINT_A_SEQ, seq, KPRINT_A_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* KPRINT_CMD_STATS_GET */

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

	msg = kprint_nl_reply_new(info, KPRINT_CMD_STATS_GET,
				  kprint_nl_stats_size(), &hdr);
	if (!msg)
		return -ENOMEM;

	kprint_get_stats(&st);
	kprint_bridge_get_stats(&st.bridge);
	kprint_ratelimit_get_stats(&st.ratelimit);
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

/* The record of an emit request, from its (already validated) nest. */
static int kprint_nl_emit_build(struct kprint_builder *b, struct nlattr **tb,
				struct nlattr **args, unsigned int nargs,
				struct netlink_ext_ack *extack)
{
	struct nlattr *fattr = tb[KPRINT_RECORD_A_FORMAT];
	const char *fmt = nla_data(fattr);
	const char *argv[KPRINT_ARGS_MAX];
	size_t lens[KPRINT_ARGS_MAX];
	u32 class = KPRINT_CLASS_NONE;
	unsigned int i;

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
	kprint_rec_put_str(b, KPRINT_STR_DEVICE, "");
	kprint_rec_put_str(b, KPRINT_STR_FORMAT, fmt);

	for (i = 0; i < nargs; i++) {
		argv[i] = nla_data(args[i]);
		lens[i] = strnlen(argv[i], nla_len(args[i]));
	}
	switch (kprint_render_given(b, fmt, argv, lens, nargs)) {
	case KPRINT_RENDER_OK:
		break;
	case KPRINT_RENDER_STAR:
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "'*' width or precision cannot be injected");
		return -EINVAL;
	case KPRINT_RENDER_INVALID:
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "format has an unsupported conversion");
		return -EINVAL;
	case KPRINT_RENDER_MISMATCH:
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "number of conversions differs from number of arguments");
		return -EINVAL;
	}

	if (b->rec->flags & KPRINT_RECORD_F_TRUNCATED) {
		NL_SET_ERR_MSG_ATTR(extack, fattr,
				    "text would be longer than KPRINT_TEXT_MAX - 1");
		return -EMSGSIZE;
	}

	kprint_rec_end(b);
	return 0;
}

/*
 * The one record of an EMIT request, parsed into @tb, and its arguments in
 * order into @args (@nargs of them): nla_parse() keeps only the last ARG.
 */
static int kprint_nl_emit_parse(struct genl_info *info, struct nlattr **tb,
				struct nlattr **args, unsigned int *nargs)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *rattr, *attr;
	int err, rem, nrec = 0;

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
		if (*nargs == KPRINT_ARGS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "more than KPRINT_ARGS_MAX arguments");
			return -EINVAL;
		}
		args[(*nargs)++] = attr;
	}
	return 0;
}

int kprint_nl_emit_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KPRINT_RECORD_A_MAX + 1];
	struct nlattr *args[KPRINT_ARGS_MAX];
	struct netlink_ext_ack *extack = info->extack;
	struct kprint_builder b = {};
	unsigned int nargs = 0;
	struct sk_buff *msg;
	unsigned long flags;
	void *hdr, *buf;
	bool running;
	int err;
	u64 seq;

	err = kprint_nl_emit_parse(info, tb, args, &nargs);
	if (err)
		return err;

	/* Allocate the reply first: a stored record must get its answer. */
	msg = kprint_nl_reply_new(info, KPRINT_CMD_EMIT,
				  kprint_nl_emit_reply_size(), &hdr);
	if (!msg)
		return -ENOMEM;

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
	return kprint_nl_reply_seq(msg, hdr, info, seq);

err_free_buf:
	kfree(buf);
err_free_msg:
	nlmsg_free(msg);
	return err;
}

/* KPRINT_CMD_SUBSCRIBE */

/*
 * An empty name would match only records without one, which is never what
 * was meant: it is refused.  True if @attr is there and empty.
 */
static bool kprint_nl_filter_empty(const struct nlattr *attr)
{
	return attr && (nla_len(attr) < 1 || !*(const char *)nla_data(attr));
}

/*
 * A filter from its KPRINT_A_FILTER nest; attributes left out match every
 * record.  The policy (kprint_nl_filter_policy, from the spec) refuses
 * unknown attributes, out-of-range levels, sources and classes and
 * over-long strings, each with its extack message; what a policy cannot
 * say (an empty name, too many format ids) is refused here in the same
 * manner.  Returns 0 or -EINVAL.
 */
static int kprint_nl_filter_parse(struct kprint_nl_filter *f, const struct nlattr *nest,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KPRINT_FILTER_A_MAX + 1];
	const struct nlattr *attr;
	int err, rem;

	err = nla_parse_nested(tb, KPRINT_FILTER_A_MAX, nest,
			       kprint_nl_filter_policy, extack);
	if (err)
		return err;

	memset(f, 0, sizeof(*f));
	f->level = tb[KPRINT_FILTER_A_LEVEL] ?
		   nla_get_u32(tb[KPRINT_FILTER_A_LEVEL]) : KPRINT_LEVEL_MAX;
	f->source = tb[KPRINT_FILTER_A_SOURCE] ?
		    nla_get_u32(tb[KPRINT_FILTER_A_SOURCE]) : -1;
	f->class = tb[KPRINT_FILTER_A_CLASS] ?
		   nla_get_u32(tb[KPRINT_FILTER_A_CLASS]) : -1;

	if (kprint_nl_filter_empty(tb[KPRINT_FILTER_A_MODULE])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KPRINT_FILTER_A_MODULE],
				    "empty module: leave it out to match every module");
		return -EINVAL;
	}
	if (kprint_nl_filter_empty(tb[KPRINT_FILTER_A_SUBSYSTEM])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KPRINT_FILTER_A_SUBSYSTEM],
				    "empty subsystem: leave it out to match every subsystem");
		return -EINVAL;
	}
	if (tb[KPRINT_FILTER_A_MODULE])
		nla_strscpy(f->module, tb[KPRINT_FILTER_A_MODULE],
			    sizeof(f->module));
	if (tb[KPRINT_FILTER_A_SUBSYSTEM])
		nla_strscpy(f->subsystem, tb[KPRINT_FILTER_A_SUBSYSTEM],
			    sizeof(f->subsystem));

	/* nla_parse keeps only the last FORMAT_ID; walk the nest for all. */
	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) != KPRINT_FILTER_A_FORMAT_ID)
			continue;
		if (f->nr_ids == KPRINT_FORMAT_IDS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "more than KPRINT_FORMAT_IDS_MAX format ids");
			return -EINVAL;
		}
		f->ids[f->nr_ids++] = nla_get_u64(attr);
	}
	return 0;
}

/*
 * The subscriber is the socket that sends the request: its records come
 * by unicast to the request's port id (kprint_ntf.c says why), and what it
 * may receive is what joining the group needs, CAP_SYS_ADMIN.
 */
int kprint_nl_subscribe_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprint_nl_filter filter;
	struct sk_buff *msg;
	void *hdr;
	u64 from;
	int err;

	if (!netlink_capable(skb, CAP_SYS_ADMIN)) {
		GENL_SET_ERR_MSG(info,
				 "subscribing needs CAP_SYS_ADMIN, as joining the records group does");
		return -EPERM;
	}
	if (GENL_REQ_ATTR_CHECK(info, KPRINT_A_FILTER)) {
		GENL_SET_ERR_MSG(info, "missing KPRINT_A_FILTER");
		return -EINVAL;
	}
	err = kprint_nl_filter_parse(&filter, info->attrs[KPRINT_A_FILTER],
				     info->extack);
	if (err)
		return err;

	msg = kprint_nl_reply_new(info, KPRINT_CMD_SUBSCRIBE,
				  kprint_nl_subscribe_reply_size(), &hdr);
	if (!msg)
		return -ENOMEM;

	err = kprint_ntf_subscribe(info->snd_portid, &filter, &from,
				   info->extack);
	if (err)
		goto err_free;
	/*
	 * Room was allocated for it; a subscriber without the reply still
	 * gets its records and learns their start from the first one.
	 */
	return kprint_nl_reply_seq(msg, hdr, info, from);

err_free:
	nlmsg_free(msg);
	return err;
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

	err = kprint_nl_fill_init();
	if (err)
		return err;

	err = kprint_ntf_start(&kprint_ring, &kprint_nl_family);
	if (err) {
		kprint_nl_fill_exit();
		return err;
	}

	err = genl_register_family(&kprint_nl_family);
	if (err) {
		kprint_ntf_stop();
		kprint_nl_fill_exit();
		return err;
	}
	kprint_ntf_enable();
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
	kprint_ntf_stop();
	genl_unregister_family(&kprint_nl_family);
	kprint_nl_fill_exit();
}
