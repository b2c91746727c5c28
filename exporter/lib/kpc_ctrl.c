// SPDX-License-Identifier: GPL-2.0
/*
 * Family and group lookups through the generic netlink controller: the
 * request and its answer, for kpc_sock_request() rather than libnl's
 * genl_ctrl_resolve_grp().  libnl takes the first message it reads after
 * its request for the controller's answer: on a socket that has already
 * joined a group, that may be a record (or a controller event), and the
 * lookup then failed as if the family had no such group.  kpc_sock_request()
 * takes only the answer with our sequence number and command.
 */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "kpc_ctrl.h"

int kpc_ctrl_group(struct nlattr *groups, const char *name)
{
	struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	struct nlattr *grp;
	int rem;

	if (!groups)
		return -EPROTO;
	nla_for_each_nested(grp, groups, rem) {
		if (nla_parse_nested(tb, CTRL_ATTR_MCAST_GRP_MAX, grp, NULL) < 0 ||
		    !tb[CTRL_ATTR_MCAST_GRP_NAME] || !tb[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		if (!strncmp(nla_get_string(tb[CTRL_ATTR_MCAST_GRP_NAME]),
			     name, nla_len(tb[CTRL_ATTR_MCAST_GRP_NAME])))
			return nla_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return -EPROTO;
}

int kpc_ctrl_cb(struct nlmsghdr *nlh, void *ctx)
{
	struct kpc_ctrl_reply *r = ctx;
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME] || !tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	/* The controller looks families up by name: it answers for ours. */
	if (strncmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), r->family,
		    nla_len(tb[CTRL_ATTR_FAMILY_NAME])))
		return -EBADMSG;
	r->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (r->group)
		r->grp = kpc_ctrl_group(tb[CTRL_ATTR_MCAST_GROUPS], r->group);
	return 0;
}

struct nl_msg *kpc_ctrl_getfamily(const char *family)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
			 NLM_F_ACK, CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, family) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int kpc_ctrl_result(const struct kpc_ctrl_reply *r, int *grp)
{
	if (r->id < 0)
		return -EBADMSG;
	if (r->group && r->grp < 0)
		return -EPROTO;
	if (grp)
		*grp = r->grp;
	return r->id;
}
