/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Asking the generic netlink controller for a family's id and one of its
 * multicast groups: the GETFAMILY request, to be sent with
 * kpc_sock_request() and kpc_ctrl_cb() as its callback, which takes only
 * the answer to that request, whatever else the socket receives meanwhile.
 */
#ifndef KPC_CTRL_H
#define KPC_CTRL_H

struct nl_msg;
struct nlattr;
struct nlmsghdr;

/* What the controller told us about a family, and the group asked for. */
struct kpc_ctrl_reply {
	const char *family;
	const char *group;	/* NULL: none asked for */
	int id;			/* -1 until the answer came */
	int grp;
};

/* GETFAMILY for family (at most GENL_NAMSIZ - 1 bytes); NULL: no memory. */
struct nl_msg *kpc_ctrl_getfamily(const char *family);
/* The kpc_msg_fn for its answer; ctx is a struct kpc_ctrl_reply. */
int kpc_ctrl_cb(struct nlmsghdr *nlh, void *ctx);
/*
 * The family id, with the group's in *grp (when not NULL); -EPROTO if the
 * family lacks the group, -EBADMSG if the controller did not answer.
 */
int kpc_ctrl_result(const struct kpc_ctrl_reply *r, int *grp);
/* The id of group name in a controller message's CTRL_ATTR_MCAST_GROUPS. */
int kpc_ctrl_group(struct nlattr *groups, const char *name);

#endif /* KPC_CTRL_H */
