/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generic netlink socket talking to the kprint family: requests with
 * their replies and extack messages, or a subscription to a multicast group.
 *
 * The receive path is our own loop over nl_recv() rather than
 * nl_recvmsgs(): libnl 3.7 neither parses extack TLVs, nor reads the error
 * code a dump may put in NLMSG_DONE, nor checks who sent a message, and it
 * folds ENOBUFS (lost multicast) into NLE_NOMEM.
 *
 * Errors are negative errnos.  Opening fails with -ENOENT when the family
 * does not exist (module not loaded, or another network namespace),
 * -EPROTO when it lacks the group asked for, and -EPERM/-EACCES when
 * joining the group is not allowed.
 */
#ifndef KPC_SOCK_H
#define KPC_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nl_msg;
struct nlmsghdr;
struct kpc_sock;

/* Big enough for a burst of notifications while the reader is busy. */
#define KPC_RCVBUF_DEFAULT	(4 << 20)
/* How long a request waits for each reply datagram. */
#define KPC_TIMEOUT_MS_DEFAULT	10000
#define KPC_EXTACK_MAX		256

/*
 * A kernel-side filter (KPRINT_CMD_SUBSCRIBE): kprint.ko sends the socket
 * only the records that match every criterion set, by unicast, instead of
 * the socket joining the "records" group.  Each record it sends carries
 * how many records right before it the filter refused (kpc_record's
 * filtered), so that a kpc_tracker tells them from lost ones.
 */
struct kpc_sub_filter {
	int level;		/* this level or more severe; -1: any */
	int source;		/* enum kprint_source; -1: any */
	int class;		/* enum kprint_class; -1: any */
	const char *module;	/* exactly this module; NULL: any */
	const char *subsystem;	/* exactly this subsystem; NULL: any */
	unsigned int nr_ids;	/* up to KPRINT_FORMAT_IDS_MAX; 0: any format */
	const uint64_t *format_ids;
};

struct kpc_sock_opts {
	const char *family;	/* NULL: KPRINT_GENL_NAME */
	const char *group;	/* join this multicast group; NULL: none */
	/*
	 * Subscribe with this filter instead of joining group (ignored
	 * then); NULL: no filter.  The socket subscribes again when the
	 * family comes back (opts->watch).  Opening fails with the kernel's
	 * -errno and its extack message in *extack (when not NULL) if the
	 * filter is refused.
	 */
	const struct kpc_sub_filter *filter;
	char *extack;		/* KPC_EXTACK_MAX bytes, or NULL */
	int rcvbuf;		/* receive buffer, bytes; 0: KPC_RCVBUF_DEFAULT */
	int timeout_ms;		/* 0: KPC_TIMEOUT_MS_DEFAULT; < 0: wait forever */
	bool nonblock;		/* for subscribers driven by poll() */
	bool watch;		/* see the family go and come back (below) */
};

/*
 * What kpc_sock_recv() saw happen to the family on a socket opened with
 * opts->watch, which also listens to the generic netlink controller:
 *
 * KPC_SOCK_GONE: the family was unregistered (kprint.ko unloaded).  Every
 *	record the kernel sent before is already delivered; nothing more
 *	comes until the family is back.
 * KPC_SOCK_BACK: the family is registered again (kprint.ko reloaded).  The
 *	socket now talks to the new family and has re-joined its group; the
 *	new instance's sequence numbers start again, so the caller's other
 *	sockets must be reopened and its reading restarted.
 */
enum kpc_sock_change {
	KPC_SOCK_GONE = 1,
	KPC_SOCK_BACK,
};

int kpc_sock_open(const struct kpc_sock_opts *opts, struct kpc_sock **out);

/*
 * Subscribe this (blocking) socket with filter f, or give it a new filter;
 * *from (when not NULL) is set to the first record the filter applies to.
 * Returns 0 or the kernel's -errno (extack in kpc_sock_extack()): -EINVAL
 * for a bad filter, -EPERM without CAP_SYS_ADMIN, -EOPNOTSUPP if the
 * kprint.ko has no KPRINT_CMD_SUBSCRIBE.
 */
int kpc_sock_subscribe(struct kpc_sock *ks, const struct kpc_sub_filter *f,
		       uint64_t *from);
void kpc_sock_close(struct kpc_sock *ks);

int kpc_sock_fd(const struct kpc_sock *ks);
int kpc_sock_family_id(const struct kpc_sock *ks);
/* The receive buffer the kernel granted (it may cap what was asked for). */
int kpc_sock_rcvbuf(const struct kpc_sock *ks);
/* The extack message of the last failed (or warned) request, or "". */
const char *kpc_sock_extack(const struct kpc_sock *ks);
/* Datagrams dropped because they did not come from the kernel (port id != 0). */
uint64_t kpc_sock_foreign(const struct kpc_sock *ks);

/*
 * A request for our family: genl header with cmd, NLM_F_REQUEST plus flags
 * (NLM_F_DUMP for dumps; do requests always get NLM_F_ACK), room for
 * payload bytes of attributes (0: a page).  NULL: out of memory.
 */
struct nl_msg *kpc_sock_msg(struct kpc_sock *ks, uint8_t cmd, int flags,
			    size_t payload);

/* Called for each reply (or notification) of our family. */
typedef int (*kpc_msg_fn)(struct nlmsghdr *nlh, void *ctx);

/*
 * Send msg (always consumed) and pass every reply to fn until the ACK, the
 * NLMSG_DONE or an error.  Returns 0, the kernel's -errno (its extack
 * message in kpc_sock_extack()), -ETIMEDOUT, or fn's first error (the
 * remaining replies are still read, so the socket stays usable).
 */
int kpc_sock_request(struct kpc_sock *ks, struct nl_msg *msg,
		     kpc_msg_fn fn, void *ctx);

/*
 * Read one datagram of notifications and pass each message of our family
 * to fn.  Returns 0; a enum kpc_sock_change (opts->watch only); -EAGAIN
 * when nothing is pending (non-blocking); -ENOBUFS when the socket overran
 * and notifications were lost; or fn's or the socket's error (-EPERM:
 * re-joining the group of a reloaded family was refused).
 */
int kpc_sock_recv(struct kpc_sock *ks, kpc_msg_fn fn, void *ctx);

/*
 * Look the family up again by name (and re-join the group, if any): after
 * a reload, for a request socket, or for a watching socket that missed
 * the controller's events (it overran).  The socket itself is kept, and
 * with it the credentials the kernel checks requests against.  Returns 0
 * if the family is there (ids updated), -ENOENT if it is not.
 */
int kpc_sock_rebind(struct kpc_sock *ks);

/*
 * The status a kernel control message carries: for NLMSG_ERROR and
 * NLMSG_DONE, 0 or the -errno, with the extack message (if any) copied to
 * extack; 1 for any other message.  -EBADMSG if it is truncated.
 */
int kpc_nlmsg_status(struct nlmsghdr *nlh, char *extack, size_t len);

/* The -errno closest to a libnl NLE_* code (positive or negative). */
int kpc_nlerr_to_errno(int nlerr);

#endif /* KPC_SOCK_H */
