// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/kprint.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include "kpc_caps.h"
#include "kpc_ctrl.h"
#include "kpc_genl.h"
#include "kpc_sock.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* The generic netlink controller and its group for family events. */
#define KPC_CTRL_NAME	"nlctrl"
#define KPC_CTRL_GROUP	"notify"

/*
 * nl_recv() peeks at each datagram's size and grows its buffer to fit, so
 * this only has to cover the common case without a second read.
 */
#define KPC_MSG_BUF_SIZE	(32 << 10)

/*
 * kpc_sock_recv()'s own buffer, kept with the socket: one recvmsg() per
 * datagram, where nl_recv() peeks at each one's size first (two system
 * calls) and allocates and frees a buffer for it.  kprint.ko sends no
 * larger datagram: a notification holds at most 16 KiB of records, or one
 * record, whose attributes' lengths are 16-bit; the controller's events
 * are small.
 */
#define KPC_RECV_BUF_SIZE	(80 << 10)

struct kpc_sock {
	struct nl_sock *nl;
	int family_id;			/* -1 while a watched family is gone */
	char family[GENL_NAMSIZ];
	char group[GENL_NAMSIZ];	/* "" if none joined */
	bool watch;
	bool filtered;			/* subscribed with filter, below */
	struct kpc_sub_filter filter;	/* its strings and ids point into ours */
	char module[KPRINT_TAG_MAX];
	char subsystem[KPRINT_TAG_MAX];
	uint64_t ids[KPRINT_FORMAT_IDS_MAX];
	int rcvbuf;
	uint64_t foreign;
	unsigned char *rbuf;		/* KPC_RECV_BUF_SIZE, or NULL until needed */
	bool rbuf_busy;			/* a callback of kpc_sock_recv() runs */
	char extack[KPC_EXTACK_MAX];
};

/*
 * The receive buffer is set before the socket is bound, so nothing is ever
 * queued on a smaller one.  libnl cannot do that: nl_connect() sets 32 KiB,
 * and nl_socket_set_buffer_size() before it fails (-NLE_BAD_SOCK, no fd
 * yet).  So we create and bind the socket ourselves and hand it to libnl.
 */
static int kpc_sock_set_rcvbuf(struct kpc_sock *ks, int fd, int want)
{
	int got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want)) < 0)
		return -errno;
	/* The kernel doubles what it is given, for its own bookkeeping. */
	if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) && got / 2 < want) {
		/* Capped at net.core.rmem_max; root may go past it. */
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want));
		len = sizeof(got);
		getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len);
	}
	ks->rcvbuf = got / 2;
	return 0;
}

static int kpc_sock_connect(struct kpc_sock *ks, int rcvbuf)
{
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;

	err = kpc_sock_set_rcvbuf(ks, fd, rcvbuf);
	if (err)
		goto err_close;

	/* Port id 0: the kernel picks a free one. */
	if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0) {
		err = -errno;
		goto err_close;
	}

	err = nl_socket_set_fd(ks->nl, NETLINK_GENERIC, fd);
	if (err < 0) {
		err = kpc_nlerr_to_errno(err);
		goto err_close;
	}
	return 0;

err_close:
	close(fd);
	return err;
}

static void kpc_sock_set_options(struct kpc_sock *ks, int timeout_ms)
{
	int fd = nl_socket_get_fd(ks->nl), one = 1;

	/*
	 * Extended acks carry the kernel's error message; capped acks
	 * leave out the echo of our request.  Kernels without them just
	 * say less, so failures are ignored.
	 */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	if (timeout_ms >= 0) {
		struct timeval tv = {
			.tv_sec = timeout_ms / 1000,
			.tv_usec = (timeout_ms % 1000) * 1000,
		};

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}

	/* We build every header ourselves and match replies by sequence. */
	nl_socket_disable_auto_ack(ks->nl);
	nl_socket_enable_msg_peek(ks->nl);
	nl_socket_set_msg_buf_size(ks->nl, KPC_MSG_BUF_SIZE);
}

static int kpc_sock_add_membership(struct kpc_sock *ks, int grp)
{
	int fd = nl_socket_get_fd(ks->nl), err = 0;
	struct kpc_caps caps;

	kpc_caps_raise(&caps);
	/* errno, not libnl's code: the CLI tells EPERM from the rest. */
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
		err = -errno;
	kpc_caps_lower(&caps);
	return err;
}

/*
 * The id of family (and of its group, when not NULL, in *grp), asked of
 * the controller on our own socket: -ENOENT if there is no such family,
 * -EPROTO if it lacks the group.  libnl's lookups would take a record
 * of a group this socket joined for the controller's answer (kpc_ctrl.h).
 */
static int kpc_sock_ctrl_resolve(struct kpc_sock *ks, const char *family,
				 const char *group, int *grp)
{
	struct kpc_ctrl_reply r = { .family = family, .group = group, .id = -1 };
	struct nl_msg *msg;
	int err;

	/* No family has a longer name; the controller's policy says -EINVAL. */
	if (strlen(family) >= GENL_NAMSIZ)
		return -ENOENT;
	msg = kpc_ctrl_getfamily(family);
	if (!msg)
		return -ENOMEM;
	err = kpc_sock_request(ks, msg, kpc_ctrl_cb, &r);
	return err ? err : kpc_ctrl_result(&r, grp);
}

static int kpc_sock_join(struct kpc_sock *ks, const char *family,
			 const char *group)
{
	int grp, err;

	err = kpc_sock_ctrl_resolve(ks, family, group, &grp);
	if (err < 0)
		return err;

	err = kpc_sock_add_membership(ks, grp);
	if (err)
		return err;

	/*
	 * Notifications come unasked, with sequence number 0; our receive
	 * loop does not check sequences, but anything that hands this socket
	 * to nl_recvmsgs() must not either.
	 */
	nl_socket_disable_seq_check(ks->nl);
	return 0;
}

static int kpc_sock_subscribe_cb(struct nlmsghdr *nlh, void *ctx)
{
	struct nlattr *tb[KPRINT_A_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, KPRINT_A_MAX, kpc_genl_kprint_policy) < 0 ||
	    !tb[KPRINT_A_SEQ])
		return -EBADMSG;
	*(uint64_t *)ctx = nla_get_u64(tb[KPRINT_A_SEQ]);
	return 0;
}

static int kpc_sock_put_filter(struct nl_msg *msg, const struct kpc_sub_filter *f)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(msg, KPRINT_A_FILTER);
	if (!nest)
		return -EMSGSIZE;
	if ((f->level >= 0 && nla_put_u32(msg, KPRINT_FILTER_A_LEVEL, f->level) < 0) ||
	    (f->source >= 0 && nla_put_u32(msg, KPRINT_FILTER_A_SOURCE, f->source) < 0) ||
	    (f->class >= 0 && nla_put_u32(msg, KPRINT_FILTER_A_CLASS, f->class) < 0) ||
	    (f->module && nla_put_string(msg, KPRINT_FILTER_A_MODULE, f->module) < 0) ||
	    (f->subsystem &&
	     nla_put_string(msg, KPRINT_FILTER_A_SUBSYSTEM, f->subsystem) < 0))
		return -EMSGSIZE;
	for (i = 0; i < f->nr_ids; i++)
		if (nla_put_u64(msg, KPRINT_FILTER_A_FORMAT_ID, f->format_ids[i]) < 0)
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* Keep a copy of the filter, to subscribe again after a reload. */
static void kpc_sock_keep_filter(struct kpc_sock *ks, const struct kpc_sub_filter *f)
{
	unsigned int n = f->nr_ids < KPRINT_FORMAT_IDS_MAX ? f->nr_ids : KPRINT_FORMAT_IDS_MAX;

	if (f == &ks->filter)
		return;
	ks->filter = *f;
	if (f->module) {
		snprintf(ks->module, sizeof(ks->module), "%s", f->module);
		ks->filter.module = ks->module;
	}
	if (f->subsystem) {
		snprintf(ks->subsystem, sizeof(ks->subsystem), "%s", f->subsystem);
		ks->filter.subsystem = ks->subsystem;
	}
	if (n)
		memcpy(ks->ids, f->format_ids, n * sizeof(ks->ids[0]));
	ks->filter.format_ids = ks->ids;
	ks->filter.nr_ids = n;
	ks->filtered = true;
}

int kpc_sock_subscribe(struct kpc_sock *ks, const struct kpc_sub_filter *f,
		       uint64_t *from)
{
	/* Room for every attribute of the filter, strings at their longest. */
	size_t size = 6 * NLA_HDRLEN + 3 * sizeof(uint32_t) + 2 * KPRINT_TAG_MAX +
		      f->nr_ids * (NLA_HDRLEN + sizeof(uint64_t));
	uint64_t start = 0;
	struct nl_msg *msg;
	int err, fd, fl;

	msg = kpc_sock_msg(ks, KPRINT_CMD_SUBSCRIBE, 0, size);
	if (!msg)
		return -ENOMEM;
	err = kpc_sock_put_filter(msg, f);
	if (err) {
		nlmsg_free(msg);
		return err;
	}

	/* The reply is waited for even on a socket made non-blocking. */
	fd = nl_socket_get_fd(ks->nl);
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	err = kpc_sock_request(ks, msg, kpc_sock_subscribe_cb, &start);
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl);
	if (err)
		return err;
	kpc_sock_keep_filter(ks, f);
	if (from)
		*from = start;
	return 0;
}

static int kpc_sock_open_filtered(struct kpc_sock *ks, const struct kpc_sock_opts *opts)
{
	int err;

	err = kpc_sock_subscribe(ks, opts->filter, NULL);
	if (err) {
		if (opts->extack)
			snprintf(opts->extack, KPC_EXTACK_MAX, "%s", ks->extack);
		return err;
	}
	/* Records come unasked, with sequence number 0. */
	nl_socket_disable_seq_check(ks->nl);
	return 0;
}

int kpc_sock_open(const struct kpc_sock_opts *opts, struct kpc_sock **out)
{
	const char *family = opts->family ? opts->family : KPRINT_GENL_NAME;
	struct kpc_sock *ks;
	int err;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return -ENOMEM;

	ks->nl = nl_socket_alloc();
	if (!ks->nl) {
		err = -ENOMEM;
		goto err_socket_alloc;
	}

	/* On success the fd is libnl's: nl_socket_free() closes it. */
	err = kpc_sock_connect(ks, opts->rcvbuf > 0 ? opts->rcvbuf :
			       KPC_RCVBUF_DEFAULT);
	if (err)
		goto err_connect;

	/* Before any request: our request loop needs the receive timeout. */
	kpc_sock_set_options(ks, opts->timeout_ms ? opts->timeout_ms :
			     KPC_TIMEOUT_MS_DEFAULT);

	/* Still blocking: the lookups below wait for their answers. */
	ks->family_id = kpc_sock_ctrl_resolve(ks, family, NULL, NULL);
	if (ks->family_id < 0) {
		err = ks->family_id;
		goto err_setup;
	}

	snprintf(ks->family, sizeof(ks->family), "%s", family);
	if (opts->group && !opts->filter) {
		snprintf(ks->group, sizeof(ks->group), "%s", opts->group);
		err = kpc_sock_join(ks, family, opts->group);
		if (err)
			goto err_setup;
	}

	/*
	 * The controller announces families coming and going to anyone who
	 * listens (no privilege needed): that is how a subscriber learns
	 * that kprint.ko was unloaded and loaded again.
	 */
	if (opts->watch) {
		err = kpc_sock_join(ks, KPC_CTRL_NAME, KPC_CTRL_GROUP);
		if (err)
			goto err_setup;
		ks->watch = true;
	}

	if (opts->filter) {
		err = kpc_sock_open_filtered(ks, opts);
		if (err)
			goto err_setup;
	}

	if (opts->nonblock) {
		err = nl_socket_set_nonblocking(ks->nl);
		if (err < 0) {
			err = kpc_nlerr_to_errno(err);
			goto err_setup;
		}
	}

	*out = ks;
	return 0;

err_setup:
	/* nl_socket_free() closes the fd, which also leaves any group. */
err_connect:
	nl_socket_free(ks->nl);
err_socket_alloc:
	free(ks);
	return err;
}

void kpc_sock_close(struct kpc_sock *ks)
{
	if (!ks)
		return;
	nl_socket_free(ks->nl);
	free(ks->rbuf);
	free(ks);
}

int kpc_sock_fd(const struct kpc_sock *ks)
{
	return nl_socket_get_fd(ks->nl);
}

int kpc_sock_family_id(const struct kpc_sock *ks)
{
	return ks->family_id;
}

int kpc_sock_rcvbuf(const struct kpc_sock *ks)
{
	return ks->rcvbuf;
}

const char *kpc_sock_extack(const struct kpc_sock *ks)
{
	return ks->extack;
}

uint64_t kpc_sock_foreign(const struct kpc_sock *ks)
{
	return ks->foreign;
}

struct nl_msg *kpc_sock_msg(struct kpc_sock *ks, uint8_t cmd, int flags,
			    size_t payload)
{
	struct nl_msg *msg;

	if (!(flags & NLM_F_DUMP))
		flags |= NLM_F_ACK;

	msg = payload ? nlmsg_alloc_size(NLMSG_HDRLEN + GENL_HDRLEN +
					 NLMSG_ALIGN(payload)) : nlmsg_alloc();
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ks->family_id, 0,
			 flags, cmd, KPRINT_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * One datagram from the socket.  Returns its length, 0 when nothing came
 * (non-blocking, or the receive timeout), or -errno; datagrams that are
 * not from the kernel are counted and dropped here, so nobody can inject
 * records or fake replies by sending to our port.
 */
static int kpc_sock_read(struct kpc_sock *ks, unsigned char **buf)
{
	struct sockaddr_nl peer;
	int n;

	for (;;) {
		memset(&peer, 0, sizeof(peer));
		errno = 0;
		n = nl_recv(ks->nl, &peer, buf, NULL);
		if (n < 0)
			/* libnl reports a socket overrun as "out of memory". */
			return errno == ENOBUFS ? -ENOBUFS : kpc_nlerr_to_errno(n);
		if (n == 0)
			return 0;
		if (peer.nl_pid == 0)
			return n;
		ks->foreign++;
		free(*buf);
	}
}

/*
 * The command of the answer to a request: kprint.ko answers with the
 * request's own, the controller a GETFAMILY with a NEWFAMILY.
 */
static uint8_t kpc_sock_reply_cmd(const struct nlmsghdr *req)
{
	const struct genlmsghdr *g = nlmsg_data(req);

	if (req->nlmsg_type == GENL_ID_CTRL && g->cmd == CTRL_CMD_GETFAMILY)
		return CTRL_CMD_NEWFAMILY;
	return g->cmd;
}

/*
 * Is this one of the answers to our request?  Notifications (records,
 * the controller's events) come on the same socket in between: they have
 * sequence number 0, and a request we gave up on left its answers with
 * another number; a data message must also be of the family and command
 * we asked, so that nothing else can pass for the answer.
 */
static bool kpc_sock_is_reply(struct nlmsghdr *nlh, uint32_t seq,
			      uint16_t type, uint8_t cmd)
{
	if (nlh->nlmsg_seq != seq)
		return false;
	if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE)
		return true;
	return nlh->nlmsg_type == type && genlmsg_valid_hdr(nlh, 0) &&
	       ((struct genlmsghdr *)nlmsg_data(nlh))->cmd == cmd;
}

int kpc_sock_request(struct kpc_sock *ks, struct nl_msg *msg,
		     kpc_msg_fn fn, void *ctx)
{
	int err, cb_err = 0, n;
	struct kpc_caps caps;
	bool done = false;
	uint16_t type;
	uint32_t seq;
	uint8_t cmd;

	ks->extack[0] = '\0';
	kpc_caps_raise(&caps);
	err = nl_send_auto(ks->nl, msg);
	kpc_caps_lower(&caps);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	type = nlmsg_hdr(msg)->nlmsg_type;
	cmd = kpc_sock_reply_cmd(nlmsg_hdr(msg));
	nlmsg_free(msg);
	if (err < 0)
		return kpc_nlerr_to_errno(err);

	err = 0;
	while (!done) {
		unsigned char *buf;
		struct nlmsghdr *nlh;

		n = kpc_sock_read(ks, &buf);
		if (n < 0)
			return n;
		if (n == 0)
			return -ETIMEDOUT;

		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, n);
		     nlh = nlmsg_next(nlh, &n)) {
			int status;

			if (!kpc_sock_is_reply(nlh, seq, type, cmd))
				continue;
			status = kpc_nlmsg_status(nlh, ks->extack, sizeof(ks->extack));
			if (status <= 0) {
				err = status;
				done = true;
				break;
			}
			if (!cb_err && fn)
				cb_err = fn(nlh, ctx);
		}
		free(buf);
	}
	return err ? err : cb_err;
}

/*
 * A controller event: is it about our family?  Matching the id as well as
 * the name ignores a stale "deleted" for an instance we already left.
 */
static int kpc_sock_ctrl_event(struct kpc_sock *ks, struct nlmsghdr *nlh)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct genlmsghdr *gnlh;
	int id, grp, err;

	if (!genlmsg_valid_hdr(nlh, 0))
		return 0;
	gnlh = nlmsg_data(nlh);
	if (gnlh->cmd != CTRL_CMD_NEWFAMILY && gnlh->cmd != CTRL_CMD_DELFAMILY)
		return 0;
	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME] || !tb[CTRL_ATTR_FAMILY_ID])
		return 0;
	if (strncmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), ks->family,
		    nla_len(tb[CTRL_ATTR_FAMILY_NAME])))
		return 0;
	id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);

	if (gnlh->cmd == CTRL_CMD_DELFAMILY) {
		if (id != ks->family_id)
			return 0;
		ks->family_id = -1;
		return KPC_SOCK_GONE;
	}

	if (id == ks->family_id)
		return 0;
	if (ks->group[0]) {
		grp = kpc_ctrl_group(tb[CTRL_ATTR_MCAST_GROUPS], ks->group);
		if (grp < 0)
			return grp;
		err = kpc_sock_add_membership(ks, grp);
		if (err)
			return err;
	}
	ks->family_id = id;
	if (ks->filtered) {
		err = kpc_sock_subscribe(ks, &ks->filter, NULL);
		if (err)
			return err;
	}
	return KPC_SOCK_BACK;
}

/*
 * One datagram into ks->rbuf, as kpc_sock_read() returns it.  A datagram
 * that did not fit is lost, as in an overrun, and said so the same way:
 * a subscriber then re-reads the ring.
 */
static int kpc_sock_read_own(struct kpc_sock *ks)
{
	struct sockaddr_nl peer;
	struct iovec iov = { .iov_base = ks->rbuf, .iov_len = KPC_RECV_BUF_SIZE };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	for (;;) {
		memset(&peer, 0, sizeof(peer));
		msg.msg_name = &peer;
		msg.msg_namelen = sizeof(peer);
		msg.msg_flags = 0;
		n = recvmsg(nl_socket_get_fd(ks->nl), &msg, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		if (msg.msg_flags & MSG_TRUNC)
			return -ENOBUFS;
		if (peer.nl_pid == 0)
			return n;
		ks->foreign++;
	}
}

int kpc_sock_recv(struct kpc_sock *ks, kpc_msg_fn fn, void *ctx)
{
	struct nlmsghdr *nlh;
	unsigned char *buf;
	bool own;
	int n, err = 0;

	/* A callback that reads this socket again gets a buffer of its own. */
	if (!ks->rbuf && !ks->rbuf_busy)
		ks->rbuf = malloc(KPC_RECV_BUF_SIZE);
	own = ks->rbuf && !ks->rbuf_busy;
	if (own) {
		n = kpc_sock_read_own(ks);
		buf = ks->rbuf;
	} else {
		n = kpc_sock_read(ks, &buf);
	}
	if (n < 0)
		return n;
	if (n == 0)
		return -EAGAIN;

	ks->rbuf_busy |= own;
	for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, n);
	     nlh = nlmsg_next(nlh, &n)) {
		if (ks->watch && nlh->nlmsg_type == GENL_ID_CTRL) {
			/* The controller sends one event per datagram. */
			err = kpc_sock_ctrl_event(ks, nlh);
			if (err)
				break;
			continue;
		}
		if (nlh->nlmsg_type != ks->family_id)
			continue;
		err = fn(nlh, ctx);
		if (err)
			break;
	}
	if (own)
		ks->rbuf_busy = false;
	else
		free(buf);
	return err;
}

int kpc_sock_rebind(struct kpc_sock *ks)
{
	struct nl_sock *nl;
	int id, grp = -1, err;

	/* Our own socket carries notifications: ask on a fresh one. */
	nl = nl_socket_alloc();
	if (!nl)
		return -ENOMEM;
	err = genl_connect(nl);
	if (err < 0) {
		err = kpc_nlerr_to_errno(err);
		goto out;
	}
	id = genl_ctrl_resolve(nl, ks->family);
	if (id < 0) {
		err = kpc_nlerr_to_errno(id);
		if (err == -ENOENT)
			ks->family_id = -1;
		goto out;
	}
	if (ks->group[0]) {
		grp = genl_ctrl_resolve_grp(nl, ks->family, ks->group);
		if (grp < 0) {
			err = grp == -NLE_OBJ_NOTFOUND ? -EPROTO : kpc_nlerr_to_errno(grp);
			goto out;
		}
		err = kpc_sock_add_membership(ks, grp);
		if (err)
			goto out;
	}
	ks->family_id = id;
	err = ks->filtered ? kpc_sock_subscribe(ks, &ks->filter, NULL) : 0;
out:
	nl_socket_free(nl);
	return err;
}
