// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink layer: status and extack parsing of NLMSG_ERROR/NLMSG_DONE
 * messages built by hand, stats decoding, and - against the running
 * kernel's own "nlctrl" family, since this host has no kprint - requests,
 * dumps, errors, the rejection of messages not sent by the kernel and the
 * report of a receive-buffer overrun as ENOBUFS.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>

#include "kpc.h"
#include "test_kpc_tap.h"

static void test_status(void)
{
	char extack[KPC_EXTACK_MAX];
	struct nlmsghdr *h;
	struct nlmsgerr *e;
	struct nl_msg *m;
	int st;

	/* Capped: TLVs right after struct nlmsgerr. */
	m = nlmsg_alloc();
	h = nlmsg_put(m, 0, 7, NLMSG_ERROR, sizeof(*e), NLM_F_CAPPED | NLM_F_ACK_TLVS);
	e = nlmsg_data(h);
	e->error = -EINVAL;
	e->msg = (struct nlmsghdr){ .nlmsg_len = 40, .nlmsg_type = TEST_FAMILY_ID, .nlmsg_seq = 7 };
	nla_put_string(m, NLMSGERR_ATTR_MSG, "format has 2 conversions but 1 arg");
	nla_put_u32(m, NLMSGERR_ATTR_OFFS, 20);
	st = kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack));
	tap_ok(st == -EINVAL && !strcmp(extack, "format has 2 conversions but 1 arg"),
	       "a capped NLMSG_ERROR gives its errno and extack message");
	nlmsg_free(m);

	/* Not capped: the request's payload is echoed before the TLVs. */
	m = nlmsg_alloc();
	h = nlmsg_put(m, 0, 7, NLMSG_ERROR, sizeof(*e) + 12, NLM_F_ACK_TLVS);
	e = nlmsg_data(h);
	e->error = -ERANGE;
	e->msg = (struct nlmsghdr){ .nlmsg_len = NLMSG_HDRLEN + 12, .nlmsg_type = TEST_FAMILY_ID };
	memset(e + 1, 0x41, 12);
	nla_put_string(m, NLMSGERR_ATTR_MSG, "level out of range");
	st = kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack));
	tap_ok(st == -ERANGE && !strcmp(extack, "level out of range"),
	       "an uncapped NLMSG_ERROR: the extack after the echoed request");
	nlmsg_free(m);

	/* Missing-attribute extack without a message. */
	m = nlmsg_alloc();
	h = nlmsg_put(m, 0, 7, NLMSG_ERROR, sizeof(*e), NLM_F_CAPPED | NLM_F_ACK_TLVS);
	e = nlmsg_data(h);
	e->error = -EINVAL;
	nla_put_u32(m, NLMSGERR_ATTR_MISS_TYPE, KPRINT_RECORD_A_FORMAT);
	st = kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack));
	tap_ok(st == -EINVAL && strstr(extack, "missing attribute"),
	       "an extack naming only a missing attribute still says so (\"%s\")", extack);
	nlmsg_free(m);

	/* An ACK: error 0, no TLVs. */
	m = nlmsg_alloc();
	h = nlmsg_put(m, 0, 7, NLMSG_ERROR, sizeof(*e), NLM_F_CAPPED);
	e = nlmsg_data(h);
	e->error = 0;
	st = kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack));
	tap_ok(st == 0 && !extack[0], "an ACK is status 0 with no extack");
	nlmsg_free(m);

	/* A dump that failed part-way: the errno is in NLMSG_DONE. */
	m = nlmsg_alloc();
	h = nlmsg_put(m, 0, 7, NLMSG_DONE, sizeof(int), NLM_F_MULTI | NLM_F_ACK_TLVS);
	*(int *)nlmsg_data(h) = -EPERM;
	nla_put_string(m, NLMSGERR_ATTR_MSG, "dump refused");
	st = kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack));
	tap_ok(st == -EPERM && !strcmp(extack, "dump refused"),
	       "NLMSG_DONE carries a dump's errno and extack");
	nlmsg_free(m);

	m = nlmsg_alloc();
	nlmsg_put(m, 0, 7, NLMSG_DONE, 0, NLM_F_MULTI);
	tap_ok(kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack)) == 0,
	       "an empty NLMSG_DONE (older kernels) is success");
	nlmsg_free(m);

	m = nlmsg_alloc();
	nlmsg_put(m, 0, 7, NLMSG_ERROR, 4, 0);
	tap_ok(kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack)) == -EBADMSG,
	       "a truncated NLMSG_ERROR is -EBADMSG");
	nlmsg_free(m);

	m = test_msg(KPRINT_CMD_RECORD_NTF);
	tap_ok(kpc_nlmsg_status(nlmsg_hdr(m), extack, sizeof(extack)) == 1,
	       "a family message is not a status");
	nlmsg_free(m);
}

static void test_stats_decode(void)
{
	struct kpc_stats st;
	struct nlattr *nest;
	struct nl_msg *m;
	int i, err;

	m = test_msg(KPRINT_CMD_STATS_GET);
	nest = nla_nest_start(m, KPRINT_A_STATS);
	for (i = KPRINT_STATS_A_RECORDS; i <= KPRINT_STATS_A_MAX; i++)
		nla_put_u64(m, i, 1000 + i);
	nla_put_u64(m, KPRINT_STATS_A_MAX + 1, 5);	/* newer than us */
	nla_nest_end(m, nest);
	err = kpc_stats_decode(nlmsg_hdr(m), &st);
	tap_ok(!err && st.records == 1000 + KPRINT_STATS_A_RECORDS &&
	       st.next_seq == 1000 + KPRINT_STATS_A_NEXT_SEQ &&
	       st.mcast_skipped == 1000 + KPRINT_STATS_A_MCAST_SKIPPED &&
	       st.present == ((2u << KPRINT_STATS_A_MAX) - (1u << KPRINT_STATS_A_RECORDS)),
	       "every stats counter decodes, unknown ones are ignored");
	nlmsg_free(m);

	m = test_msg(KPRINT_CMD_STATS_GET);
	nest = nla_nest_start(m, KPRINT_A_STATS);
	nla_put_u64(m, KPRINT_STATS_A_NEXT_SEQ, 77);
	nla_nest_end(m, nest);
	err = kpc_stats_decode(nlmsg_hdr(m), &st);
	tap_ok(!err && st.next_seq == 77 && st.present == (1u << KPRINT_STATS_A_NEXT_SEQ),
	       "counters the kernel leaves out are marked absent");
	nlmsg_free(m);

	memset(&st, 0, sizeof(st));
	st.records = 20000;
	st.next_seq = 20001;
	st.present = (1u << KPRINT_STATS_A_RECORDS) | (1u << KPRINT_STATS_A_NEXT_SEQ);
	tap_ok(kpc_stats_origin(&st) == 1, "the origin (first seq ever) is next_seq - records");
	st.present = 1u << KPRINT_STATS_A_NEXT_SEQ;
	tap_ok(kpc_stats_origin(&st) == 0, "without the records counter the origin is 0");

	m = test_msg(KPRINT_CMD_STATS_GET);
	nest = nla_nest_start(m, KPRINT_A_STATS);
	nla_put_u32(m, KPRINT_STATS_A_RECORDS, 1);
	nla_nest_end(m, nest);
	tap_ok(kpc_stats_decode(nlmsg_hdr(m), &st) == -EINVAL,
	       "a 4-byte counter is rejected");
	nlmsg_free(m);

	m = test_msg(KPRINT_CMD_STATS_GET);
	tap_ok(kpc_stats_decode(nlmsg_hdr(m), &st) == -EINVAL,
	       "a reply without KPRINT_A_STATS is rejected");
	nlmsg_free(m);
}

static int count_msgs(struct nlmsghdr *nlh, void *ctx)
{
	(void)nlh;
	(*(int *)ctx)++;
	return 0;
}

static struct nl_msg *getfamily(struct kpc_sock *ks, const char *name, int flags)
{
	struct nl_msg *msg = kpc_sock_msg(ks, CTRL_CMD_GETFAMILY, flags, 0);

	if (name)
		nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, name);
	return msg;
}

static void test_live_requests(void)
{
	struct kpc_sock_opts opts = { .family = "nlctrl", .rcvbuf = 1 << 20 };
	struct kpc_sock *ks;
	char longname[64];
	int err, n;

	err = kpc_sock_open(&opts, &ks);
	if (err) {
		tap_skip("requests to nlctrl (cannot open a generic netlink socket: %s)",
			 strerror(-err));
		return;
	}
	tap_ok(kpc_sock_family_id(ks) == GENL_ID_CTRL,
	       "the nlctrl family resolves to its fixed id");
	tap_ok(kpc_sock_rcvbuf(ks) >= (1 << 20) || getuid() != 0,
	       "the receive buffer asked for is granted (%d)", kpc_sock_rcvbuf(ks));

	n = 0;
	err = kpc_sock_request(ks, getfamily(ks, "nlctrl", 0), count_msgs, &n);
	tap_ok(err == 0 && n == 1, "a do request gets its one reply and its ACK");

	n = 0;
	err = kpc_sock_request(ks, getfamily(ks, NULL, NLM_F_DUMP), count_msgs, &n);
	tap_ok(err == 0 && n >= 1, "a dump gets its replies until NLMSG_DONE (%d)", n);

	n = 0;
	err = kpc_sock_request(ks, getfamily(ks, "no-such-family", 0), count_msgs, &n);
	tap_ok(err == -ENOENT && n == 0, "the kernel's errno comes back (%d)", err);

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	err = kpc_sock_request(ks, getfamily(ks, longname, 0), count_msgs, &n);
	tap_ok(err < 0, "a request the kernel's policy refuses fails (%d, extack \"%s\")",
	       err, kpc_sock_extack(ks));

	n = 0;
	err = kpc_sock_request(ks, getfamily(ks, "nlctrl", 0), count_msgs, &n);
	tap_ok(err == 0 && n == 1, "the socket stays usable after errors");
	kpc_sock_close(ks);

	opts.family = "kprint-no-such-family";
	tap_ok(kpc_sock_open(&opts, &ks) == -ENOENT, "a missing family is -ENOENT");
	opts.family = "nlctrl";
	opts.group = "no-such-group";
	tap_ok(kpc_sock_open(&opts, &ks) == -EPROTO, "a missing group is -EPROTO");
}

/*
 * Multicast from a user socket (root may send to nlctrl's "notify" group)
 * to a subscriber with a tiny buffer: the subscriber must drop them all
 * as not from the kernel, and report the overrun as -ENOBUFS.
 */
static void test_live_foreign_and_overrun(void)
{
	struct kpc_sock_opts opts = {
		.family = "nlctrl", .group = "notify", .rcvbuf = 1, .nonblock = true,
	};
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	char buf[1024] = { 0 };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	int fd, i, err, grp, sent = 0, enobufs = 0, calls = 0;
	struct kpc_sock *ks;
	struct nl_sock *probe;

	err = kpc_sock_open(&opts, &ks);
	if (err) {
		tap_skip("foreign senders and overruns (cannot join nlctrl/notify: %s)",
			 strerror(-err));
		return;
	}

	probe = nl_socket_alloc();
	genl_connect(probe);
	grp = genl_ctrl_resolve_grp(probe, "nlctrl", "notify");
	nl_socket_free(probe);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || grp <= 0 || grp > 32) {
		tap_skip("foreign senders and overruns (no sender socket or group %d)", grp);
		goto out;
	}
	to.nl_groups = 1u << (grp - 1);
	h->nlmsg_len = sizeof(buf);
	h->nlmsg_type = GENL_ID_CTRL;	/* looks like the family's own messages */
	for (i = 0; i < 64; i++)
		if (sendto(fd, buf, sizeof(buf), MSG_DONTWAIT,
			   (struct sockaddr *)&to, sizeof(to)) == sizeof(buf))
			sent++;
	close(fd);
	if (!sent) {
		tap_skip("foreign senders and overruns (may not send to the group here: %s)",
			 strerror(errno));
		goto out;
	}

	for (i = 0; i < 200; i++) {
		err = kpc_sock_recv(ks, count_msgs, &calls);
		if (err == -EAGAIN)
			break;
		if (err == -ENOBUFS)
			enobufs++;
		else if (err)
			break;
	}
	tap_ok(calls == 0 && kpc_sock_foreign(ks) > 0,
	       "multicast from a user port is dropped and counted (%llu of %d sent)",
	       (unsigned long long)kpc_sock_foreign(ks), sent);
	tap_ok(enobufs == 1, "an overrun is reported once as -ENOBUFS, not as out of memory");
	tap_ok(err == -EAGAIN, "then the socket is drained (-EAGAIN)");
out:
	kpc_sock_close(ks);
}

int main(void)
{
	test_status();
	test_stats_decode();
	test_live_requests();
	test_live_foreign_and_overrun();
	return tap_done();
}
