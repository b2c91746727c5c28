// SPDX-License-Identifier: GPL-2.0
/*
 * What a netlink answer says: a kernel control message's status and its
 * extack words (kpc_nlmsg_status()), and libnl's error codes as errnos
 * (kpc_nlerr_to_errno()), for every request libkpc sends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/errno.h>

#include "kpc_sock.h"

int kpc_nlerr_to_errno(int nlerr)
{
	switch (abs(nlerr)) {
	case NLE_SUCCESS:		return 0;
	case NLE_INTR:			return -EINTR;
	case NLE_BAD_SOCK:		return -EBADF;
	case NLE_AGAIN:			return -EAGAIN;
	case NLE_NOMEM:			return -ENOMEM;
	case NLE_EXIST:			return -EEXIST;
	case NLE_INVAL:			return -EINVAL;
	case NLE_RANGE:			return -ERANGE;
	case NLE_MSGSIZE:		return -EMSGSIZE;
	case NLE_OPNOTSUPP:		return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:		return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:		return -ENOENT;
	case NLE_NOATTR:		return -ENOENT;
	case NLE_MSG_TRUNC:		return -EMSGSIZE;
	case NLE_NOADDR:		return -EADDRNOTAVAIL;
	case NLE_SRCRT_NOSUPPORT:	return -EOPNOTSUPP;
	case NLE_MSG_TOOSHORT:		return -EBADMSG;
	case NLE_MSGTYPE_NOSUPPORT:	return -EOPNOTSUPP;
	case NLE_OBJ_MISMATCH:		return -EINVAL;
	case NLE_NOCACHE:		return -ENOENT;
	case NLE_BUSY:			return -EBUSY;
	case NLE_PROTO_MISMATCH:	return -EPROTONOSUPPORT;
	case NLE_NOACCESS:		return -EACCES;
	case NLE_PERM:			return -EPERM;
	case NLE_PKTLOC_FILE:		return -ENOENT;
	case NLE_PARSE_ERR:		return -EINVAL;
	case NLE_NODEV:			return -ENODEV;
	case NLE_IMMUTABLE:		return -EPERM;
	case NLE_DUMP_INTR:		return -EINTR;
	case NLE_ATTRSIZE:		return -ERANGE;
	default:			return -EIO;
	}
}

static struct nla_policy kpc_extack_policy[NLMSGERR_ATTR_MAX + 1] = {
	[NLMSGERR_ATTR_MSG]		= { .type = NLA_STRING },
	[NLMSGERR_ATTR_OFFS]		= { .type = NLA_U32 },
	[NLMSGERR_ATTR_MISS_TYPE]	= { .type = NLA_U32 },
};

static void kpc_extack_parse(struct nlattr *head, int len, char *extack,
			     size_t size)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (nla_parse(tb, NLMSGERR_ATTR_MAX, head, len, kpc_extack_policy) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(extack, size, "%s", nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	else if (tb[NLMSGERR_ATTR_MISS_TYPE])
		/* The kernel's policy said which attribute, but not in words. */
		snprintf(extack, size, "missing attribute %u",
			 nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]));
}

int kpc_nlmsg_status(struct nlmsghdr *nlh, char *extack, size_t len)
{
	size_t payload, tlv_off;
	int error;

	if (extack && len)
		extack[0] = '\0';
	if (nlh->nlmsg_len < NLMSG_HDRLEN)
		return -EBADMSG;
	payload = nlh->nlmsg_len - NLMSG_HDRLEN;

	switch (nlh->nlmsg_type) {
	case NLMSG_ERROR: {
		struct nlmsgerr *e = nlmsg_data(nlh);

		if (payload < sizeof(*e))
			return -EBADMSG;
		error = e->error;
		tlv_off = sizeof(*e);
		/* Unless capped, the request's payload is echoed before the TLVs. */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
		    e->msg.nlmsg_len > NLMSG_HDRLEN)
			tlv_off += e->msg.nlmsg_len - NLMSG_HDRLEN;
		break;
	}
	case NLMSG_DONE:
		/* A dump that failed part-way says so in NLMSG_DONE. */
		if (payload < sizeof(error))
			return 0;
		memcpy(&error, nlmsg_data(nlh), sizeof(error));
		tlv_off = sizeof(error);
		break;
	default:
		return 1;
	}

	if (error > 0)
		error = -error;
	tlv_off = NLMSG_ALIGN(tlv_off);
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && extack && len &&
	    tlv_off < payload)
		kpc_extack_parse((struct nlattr *)((char *)nlmsg_data(nlh) + tlv_off),
				 payload - tlv_off, extack, len);
	return error;
}
