// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "kpc_ops.h"

int kpc_stats_decode(struct nlmsghdr *nlh, struct kpc_stats *st)
{
	struct nlattr *tb[KPRINT_A_MAX + 1], *nla;
	int rem;

	memset(st, 0, sizeof(*st));
	if (genlmsg_parse(nlh, 0, tb, KPRINT_A_MAX, kpc_genl_kprint_policy) < 0)
		return -EINVAL;
	if (!tb[KPRINT_A_STATS])
		return -EINVAL;

	nla_for_each_nested(nla, tb[KPRINT_A_STATS], rem) {
		const struct kpc_stats_field *f = kpc_stats_field_of(nla_type(nla));

		if (!f)
			continue;	/* pad, or a counter newer than us */
		if (nla_len(nla) != sizeof(uint64_t))
			return -EINVAL;
		memcpy((char *)st + f->offset, nla_data(nla), sizeof(uint64_t));
		st->present |= 1u << f->attr;
	}
	return rem ? -EINVAL : 0;
}

struct kpc_stats_reply {
	struct kpc_stats *st;
	int err;
	bool seen;
};

static int kpc_stats_cb(struct nlmsghdr *nlh, void *ctx)
{
	struct kpc_stats_reply *reply = ctx;

	reply->seen = true;
	reply->err = kpc_stats_decode(nlh, reply->st);
	return reply->err;
}

int kpc_stats_get(struct kpc_sock *ks, struct kpc_stats *st)
{
	struct kpc_stats_reply reply = { .st = st };
	struct nl_msg *msg;
	int err;

	msg = kpc_sock_msg(ks, KPRINT_CMD_STATS_GET, 0, 0);
	if (!msg)
		return -ENOMEM;
	err = kpc_sock_request(ks, msg, kpc_stats_cb, &reply);
	if (err)
		return err;
	return reply.seen ? 0 : -EBADMSG;
}

uint64_t kpc_stats_origin(const struct kpc_stats *st)
{
	uint32_t need = (1u << KPRINT_STATS_A_NEXT_SEQ) | (1u << KPRINT_STATS_A_RECORDS);

	if ((st->present & need) != need || st->records > st->next_seq)
		return 0;
	return st->next_seq - st->records;
}

int kpc_origin_get(struct kpc_sock *ks, uint64_t *origin)
{
	struct kpc_stats st;
	int err;

	err = kpc_stats_get(ks, &st);
	if (err)
		return err;
	*origin = kpc_stats_origin(&st);
	return 0;
}

struct kpc_dump_ctx {
	kpc_record_fn fn;
	void *ctx;
	struct kpc_malformed *bad;
	const struct kpc_record_mem *mem;
};

static int kpc_dump_cb(struct nlmsghdr *nlh, void *ctx)
{
	struct kpc_dump_ctx *dump = ctx;
	int n;

	n = kpc_record_decode_msg_into(nlh, dump->fn, dump->ctx, dump->bad, dump->mem);
	if (n == -EBADMSG) {
		dump->bad->count++;
		return 0;
	}
	return n < 0 ? n : 0;
}

int kpc_dump_into(struct kpc_sock *ks, uint64_t from, kpc_record_fn fn, void *ctx,
		  struct kpc_malformed *bad, const struct kpc_record_mem *mem)
{
	struct kpc_malformed none = { 0 };
	struct kpc_dump_ctx dump = {
		.fn = fn, .ctx = ctx, .bad = bad ? bad : &none, .mem = mem,
	};
	struct nl_msg *msg;

	msg = kpc_sock_msg(ks, KPRINT_CMD_RECORD_GET, NLM_F_DUMP, 16);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u64(msg, KPRINT_A_START_SEQ, from) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return kpc_sock_request(ks, msg, kpc_dump_cb, &dump);
}

int kpc_dump(struct kpc_sock *ks, uint64_t from, kpc_record_fn fn, void *ctx,
	     struct kpc_malformed *bad)
{
	return kpc_dump_into(ks, from, fn, ctx, bad, NULL);
}

struct kpc_emit_reply {
	uint64_t seq;
	bool seen;
};

static int kpc_emit_cb(struct nlmsghdr *nlh, void *ctx)
{
	struct kpc_emit_reply *reply = ctx;
	struct nlattr *tb[KPRINT_A_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, KPRINT_A_MAX, kpc_genl_kprint_policy) < 0 ||
	    !tb[KPRINT_A_SEQ])
		return -EBADMSG;
	reply->seq = nla_get_u64(tb[KPRINT_A_SEQ]);
	reply->seen = true;
	return 0;
}

static size_t kpc_emit_size(const struct kpc_emit_req *req)
{
	size_t size = 4 * NLA_HDRLEN + 2 * sizeof(uint32_t);
	unsigned int i;

	size += NLA_ALIGN(strlen(req->format) + 1);
	if (req->subsystem)
		size += NLA_HDRLEN + NLA_ALIGN(strlen(req->subsystem) + 1);
	for (i = 0; i < req->nargs; i++)
		size += NLA_HDRLEN + NLA_ALIGN(strlen(req->args[i]) + 1);
	return size;
}

int kpc_emit(struct kpc_sock *ks, const struct kpc_emit_req *req, uint64_t *seq)
{
	struct kpc_emit_reply reply = { 0 };
	struct nlattr *nest;
	struct nl_msg *msg;
	unsigned int i;
	int err;

	/* Sized to fit, so an over-long request reaches the kernel's checks. */
	msg = kpc_sock_msg(ks, KPRINT_CMD_EMIT, 0, kpc_emit_size(req));
	if (!msg)
		return -ENOMEM;

	nest = nla_nest_start(msg, KPRINT_A_RECORD);
	if (!nest)
		goto nla_put_failure;
	if (nla_put_u32(msg, KPRINT_RECORD_A_LEVEL, req->level) < 0)
		goto nla_put_failure;
	if (req->class >= 0 &&
	    nla_put_u32(msg, KPRINT_RECORD_A_CLASS, req->class) < 0)
		goto nla_put_failure;
	if (req->subsystem &&
	    nla_put_string(msg, KPRINT_RECORD_A_SUBSYSTEM, req->subsystem) < 0)
		goto nla_put_failure;
	if (nla_put_string(msg, KPRINT_RECORD_A_FORMAT, req->format) < 0)
		goto nla_put_failure;
	for (i = 0; i < req->nargs; i++)
		if (nla_put_string(msg, KPRINT_RECORD_A_ARG, req->args[i]) < 0)
			goto nla_put_failure;
	nla_nest_end(msg, nest);

	err = kpc_sock_request(ks, msg, kpc_emit_cb, &reply);
	if (err)
		return err;
	if (!reply.seen)
		return -EBADMSG;
	*seq = reply.seq;
	return 0;

nla_put_failure:
	nlmsg_free(msg);
	return -EMSGSIZE;
}
