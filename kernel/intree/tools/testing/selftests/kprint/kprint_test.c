// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_test: the kprint generic netlink family as a subscriber sees it.
 *
 * The test resolves the "kprint" family, joins its "records" multicast
 * group and makes records of two kinds: two injected with KPRINT_CMD_EMIT,
 * which bracket the test's window of sequence numbers, and, when printk
 * hands its messages to kprint, lines written to /dev/kmsg between them.
 * Every record of the window must be notified, in order and with the
 * attributes every record carries; the records must say what was made
 * (level, class, text, format, arguments); and a KPRINT_CMD_RECORD_GET dump
 * from the window's start must return the same records.  Without the
 * family (CONFIG_KPRINT=n, or the module not loaded) the test is skipped.
 *
 * Plain libc and raw netlink sockets, as the net selftests use, so that
 * the test needs no library on the machine under test.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/kprint.h>
#include <linux/netlink.h>

#include "kselftest.h"

#define NR_TESTS	14
#define KMSG_LINES	3
#define MAX_RECS	256
#define TIMEOUT_MS	30000
/* A notification carries about 15 KiB of records; a dump message more. */
#define RECV_SIZE	(256 * 1024)

struct req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[2048];
};

/* One record as decoded from its KPRINT_A_RECORD nest. */
struct rec {
	__u64 present;		/* bit n: attribute n was there */
	bool malformed;		/* a wrong size, or a string without NUL */
	__u64 seq, ts_mono, format_id, printk_seq;
	__u32 level, class, flags, source, facility;
	unsigned int nargs;
	size_t text_len;	/* without the NUL: a NUL before it is data */
	char text[KPRINT_TEXT_MAX];
	char format[KPRINT_FORMAT_MAX];
	char subsystem[KPRINT_TAG_MAX];
	char module[KPRINT_TAG_MAX];
	char args[KPRINT_ARGS_MAX][KPRINT_ARG_MAX];
};

struct recs {
	struct rec r[MAX_RECS];
	unsigned int n;
	unsigned int overflow;	/* records of the window beyond MAX_RECS */
};

struct family {
	__u16 id;
	__u32 version;
	__u32 records_grp;
};

static struct recs notified, dumped;
static char rbuf[RECV_SIZE];

static bool nla_ok(const struct nlattr *nla, int rem)
{
	return rem >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= rem;
}

static const struct nlattr *nla_next(const struct nlattr *nla, int *rem)
{
	*rem -= NLA_ALIGN(nla->nla_len);
	return (const void *)((const char *)nla + NLA_ALIGN(nla->nla_len));
}

static const void *nla_data(const struct nlattr *nla)
{
	return (const char *)nla + NLA_HDRLEN;
}

static int nla_len(const struct nlattr *nla)
{
	return nla->nla_len - NLA_HDRLEN;
}

static int nla_type(const struct nlattr *nla)
{
	return nla->nla_type & NLA_TYPE_MASK;
}

static void req_init(struct req *r, __u16 type, __u16 flags, __u8 cmd)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->genl.cmd = cmd;
	r->genl.version = type == GENL_ID_CTRL ? 1 : KPRINT_GENL_VERSION;
}

static struct nlattr *req_put(struct req *r, __u16 type, const void *data,
			      size_t len)
{
	size_t off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *nla = (struct nlattr *)((char *)r + off);

	if (off + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(*r))
		ksft_exit_fail_msg("request of %zu bytes does not fit\n", off + len);
	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)nla + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = off + NLA_ALIGN(nla->nla_len);
	return nla;
}

static void req_put_u32(struct req *r, __u16 type, __u32 v)
{
	req_put(r, type, &v, sizeof(v));
}

static void req_put_str(struct req *r, __u16 type, const char *s)
{
	req_put(r, type, s, strlen(s) + 1);
}

/* A nest covers every attribute put after it up to now. */
static void req_nest_end(struct req *r, struct nlattr *nest)
{
	nest->nla_len = (char *)r + r->nlh.nlmsg_len - (char *)nest;
}

static int nl_open(void)
{
	int one = 1, size = 4 << 20;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	/* Room for a burst of notifications; FORCE works for root. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * One datagram from the kernel.  Anybody may send datagrams to a netlink
 * socket: what does not come from port 0 is dropped.
 */
static ssize_t nl_recv(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct sockaddr_nl sa;
	socklen_t salen;
	ssize_t len;

	for (;;) {
		int n = poll(&pfd, 1, timeout_ms);

		if (n == 0)
			errno = ETIMEDOUT;
		if (n <= 0)
			return -1;
		salen = sizeof(sa);
		len = recvfrom(fd, rbuf, sizeof(rbuf), 0,
			       (struct sockaddr *)&sa, &salen);
		if (len < 0 || sa.nl_pid == 0)
			return len;
	}
}

/* The extended ack's message of an error, "" when there is none. */
static const char *nl_ext_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	const struct nlattr *nla;
	size_t off = sizeof(*e);
	int rem;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return "";
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	rem = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	for (nla = (const void *)((const char *)e + off); nla_ok(nla, rem);
	     nla = nla_next(nla, &rem))
		if (nla_type(nla) == NLMSGERR_ATTR_MSG && nla_len(nla) > 0)
			return nla_data(nla);
	return "";
}

typedef void (*reply_fn)(const struct nlattr *attrs, int len, void *arg);

/*
 * Send a request and hand each reply to @fn until the ack (a do) or
 * NLMSG_DONE (a dump).  Returns 0 or a negative errno.
 */
static int nl_request(int fd, struct req *r, reply_fn fn, void *arg)
{
	static __u32 seq;
	const struct nlmsghdr *nlh;
	ssize_t len;

	r->nlh.nlmsg_seq = ++seq;
	if (send(fd, r, r->nlh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		len = nl_recv(fd, TIMEOUT_MS);
		if (len < 0)
			return -errno;
		for (nlh = (void *)rbuf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			const struct genlmsghdr *genl = NLMSG_DATA(nlh);

			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				/* A missing family is the caller's to report. */
				if (e->error && r->nlh.nlmsg_type != GENL_ID_CTRL)
					ksft_print_msg("request %u: %s (%s)\n",
						       r->genl.cmd,
						       strerror(-e->error),
						       nl_ext_msg(nlh));
				return e->error;
			}
			fn((const void *)((const char *)genl + GENL_HDRLEN),
			   nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), arg);
		}
	}
}

static void family_reply(const struct nlattr *attrs, int len, void *arg)
{
	const struct nlattr *nla, *grp, *ga;
	struct family *fam = arg;
	int rem, grem, arem;

	for (nla = attrs, rem = len;
	     nla_ok(nla, rem); nla = nla_next(nla, &rem)) {
		if (nla_type(nla) == CTRL_ATTR_FAMILY_ID)
			fam->id = *(const __u16 *)nla_data(nla);
		if (nla_type(nla) == CTRL_ATTR_VERSION)
			fam->version = *(const __u32 *)nla_data(nla);
		if (nla_type(nla) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		for (grp = nla_data(nla), grem = nla_len(nla);
		     nla_ok(grp, grem); grp = nla_next(grp, &grem)) {
			const char *name = NULL;
			__u32 id = 0;

			for (ga = nla_data(grp), arem = nla_len(grp);
			     nla_ok(ga, arem); ga = nla_next(ga, &arem)) {
				if (nla_type(ga) == CTRL_ATTR_MCAST_GRP_NAME)
					name = nla_data(ga);
				if (nla_type(ga) == CTRL_ATTR_MCAST_GRP_ID)
					id = *(const __u32 *)nla_data(ga);
			}
			if (name && !strcmp(name, KPRINT_MCGRP_RECORDS))
				fam->records_grp = id;
		}
	}
}

static int family_resolve(int fd, struct family *fam)
{
	struct req r;

	memset(fam, 0, sizeof(*fam));
	req_init(&r, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	req_put_str(&r, CTRL_ATTR_FAMILY_NAME, KPRINT_GENL_NAME);
	return nl_request(fd, &r, family_reply, fam);
}

struct stats {
	bool has_next_seq, has_bridge;
	__u64 next_seq, bridge;
};

static void stats_reply(const struct nlattr *attrs, int len, void *arg)
{
	const struct nlattr *nla, *s;
	struct stats *st = arg;
	int rem, srem;

	for (nla = attrs, rem = len;
	     nla_ok(nla, rem); nla = nla_next(nla, &rem)) {
		if (nla_type(nla) != KPRINT_A_STATS)
			continue;
		for (s = nla_data(nla), srem = nla_len(nla);
		     nla_ok(s, srem); s = nla_next(s, &srem)) {
			if (nla_len(s) != sizeof(__u64))
				continue;
			if (nla_type(s) == KPRINT_STATS_A_NEXT_SEQ) {
				memcpy(&st->next_seq, nla_data(s), 8);
				st->has_next_seq = true;
			}
			if (nla_type(s) == KPRINT_STATS_A_BRIDGE) {
				memcpy(&st->bridge, nla_data(s), 8);
				st->has_bridge = true;
			}
		}
	}
}

static void emit_reply(const struct nlattr *attrs, int len, void *arg)
{
	const struct nlattr *nla;
	int rem;

	for (nla = attrs, rem = len;
	     nla_ok(nla, rem); nla = nla_next(nla, &rem))
		if (nla_type(nla) == KPRINT_A_SEQ && nla_len(nla) == 8)
			memcpy(arg, nla_data(nla), 8);
}

/* Inject one record; its sequence number, or 0 when refused. */
static __u64 emit(int fd, __u16 family, const char *token, const char *what)
{
	struct nlattr *nest;
	__u64 seq = 0;
	struct req r;

	req_init(&r, family, NLM_F_ACK, KPRINT_CMD_EMIT);
	nest = req_put(&r, KPRINT_A_RECORD | NLA_F_NESTED, NULL, 0);
	req_put_u32(&r, KPRINT_RECORD_A_LEVEL, KPRINT_LEVEL_ERR);
	req_put_u32(&r, KPRINT_RECORD_A_CLASS, KPRINT_CLASS_DETECTED);
	req_put_str(&r, KPRINT_RECORD_A_SUBSYSTEM, "kselftest");
	req_put_str(&r, KPRINT_RECORD_A_FORMAT, "kprint_test %s: %s");
	req_put_str(&r, KPRINT_RECORD_A_ARG, token);
	req_put_str(&r, KPRINT_RECORD_A_ARG, what);
	req_nest_end(&r, nest);
	if (nl_request(fd, &r, emit_reply, &seq))
		return 0;
	return seq;
}

static bool get_int(const struct nlattr *nla, void *dst, int size)
{
	if (nla_len(nla) != size)
		return false;
	memcpy(dst, nla_data(nla), size);
	return true;
}

/* A string attribute: NUL-terminated, within @size bytes with the NUL. */
static bool get_str(const struct nlattr *nla, char *dst, size_t size,
		    size_t *len)
{
	size_t n = nla_len(nla);

	if (!n || n > size || ((const char *)nla_data(nla))[n - 1])
		return false;
	memcpy(dst, nla_data(nla), n);
	if (len)
		*len = n - 1;
	return true;
}

static bool decode_one(const struct nlattr *a, struct rec *r)
{
	char scratch[KPRINT_TEXT_MAX];

	switch (nla_type(a)) {
	case KPRINT_RECORD_A_SEQ:	 return get_int(a, &r->seq, 8);
	case KPRINT_RECORD_A_TS_MONO_NS: return get_int(a, &r->ts_mono, 8);
	case KPRINT_RECORD_A_FORMAT_ID:	 return get_int(a, &r->format_id, 8);
	case KPRINT_RECORD_A_PRINTK_SEQ: return get_int(a, &r->printk_seq, 8);
	case KPRINT_RECORD_A_LEVEL:	 return get_int(a, &r->level, 4);
	case KPRINT_RECORD_A_CLASS:	 return get_int(a, &r->class, 4);
	case KPRINT_RECORD_A_FLAGS:	 return get_int(a, &r->flags, 4);
	case KPRINT_RECORD_A_SOURCE:	 return get_int(a, &r->source, 4);
	case KPRINT_RECORD_A_FACILITY:	 return get_int(a, &r->facility, 4);
	case KPRINT_RECORD_A_TEXT:
		return get_str(a, r->text, sizeof(r->text), &r->text_len);
	case KPRINT_RECORD_A_FORMAT:
		return get_str(a, r->format, sizeof(r->format), NULL);
	case KPRINT_RECORD_A_SUBSYSTEM:
		return get_str(a, r->subsystem, sizeof(r->subsystem), NULL);
	case KPRINT_RECORD_A_MODULE:
		return get_str(a, r->module, sizeof(r->module), NULL);
	case KPRINT_RECORD_A_ARG:
		if (r->nargs >= KPRINT_ARGS_MAX)
			return false;
		return get_str(a, r->args[r->nargs++], KPRINT_ARG_MAX, NULL);
	case KPRINT_RECORD_A_COMM:
		return get_str(a, scratch, KPRINT_COMM_MAX, NULL);
	case KPRINT_RECORD_A_FILE:
	case KPRINT_RECORD_A_FUNCTION:
		return get_str(a, scratch, KPRINT_TAG_MAX, NULL);
	case KPRINT_RECORD_A_DEVICE:
		return get_str(a, scratch, KPRINT_DEVICE_MAX, NULL);
	case KPRINT_RECORD_A_TS_REAL_NS:
	case KPRINT_RECORD_A_BLOCK_ID:
	case KPRINT_RECORD_A_CONTINUES:
		return nla_len(a) == 8;
	case KPRINT_RECORD_A_CPU:
	case KPRINT_RECORD_A_PID:
	case KPRINT_RECORD_A_LINE:
		return nla_len(a) == 4;
	default:
		/* Padding, and what a newer kernel may add. */
		return true;
	}
}

static void decode_rec(const struct nlattr *nest, struct rec *r)
{
	const struct nlattr *a;
	int rem;

	memset(r, 0, sizeof(*r));
	for (a = nla_data(nest), rem = nla_len(nest);
	     nla_ok(a, rem); a = nla_next(a, &rem)) {
		if (nla_type(a) < 64)
			r->present |= 1ULL << nla_type(a);
		if (!decode_one(a, r))
			r->malformed = true;
	}
}

struct window {
	struct recs *recs;
	__u64 first, last;	/* the window's seqs */
	bool done;
};

/* Keep the records of a message that fall in the window @arg. */
static void keep_records(const struct nlattr *attrs, int len, void *arg)
{
	const struct nlattr *nla;
	struct window *w = arg;
	static struct rec r;
	int rem;

	for (nla = attrs, rem = len;
	     nla_ok(nla, rem); nla = nla_next(nla, &rem)) {
		if (nla_type(nla) != KPRINT_A_RECORD)
			continue;
		decode_rec(nla, &r);
		if (r.seq < w->first || r.seq > w->last)
			continue;
		if (r.seq == w->last)
			w->done = true;
		if (w->recs->n < MAX_RECS)
			w->recs->r[w->recs->n++] = r;
		else
			w->recs->overflow++;
	}
}

static int dump(int fd, __u16 family, __u64 start, struct window *w)
{
	struct req r;

	req_init(&r, family, NLM_F_DUMP, KPRINT_CMD_RECORD_GET);
	req_put(&r, KPRINT_A_START_SEQ, &start, sizeof(start));
	return nl_request(fd, &r, keep_records, w);
}

/*
 * Read notifications until the window's last record has come.  A socket
 * overrun (ENOBUFS) loses notifications: it is noted, and reading goes on.
 */
static int collect(int fd, __u16 family, struct window *w, bool *overrun)
{
	const struct nlmsghdr *nlh;
	ssize_t len;

	while (!w->done) {
		len = nl_recv(fd, TIMEOUT_MS);
		if (len < 0 && errno == ENOBUFS) {
			*overrun = true;
			continue;
		}
		if (len < 0)
			return -errno;
		for (nlh = (void *)rbuf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			const struct genlmsghdr *genl = NLMSG_DATA(nlh);

			if (nlh->nlmsg_type != family ||
			    genl->cmd != KPRINT_CMD_RECORD_NTF)
				continue;
			keep_records((const void *)((const char *)genl + GENL_HDRLEN),
				     nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), w);
		}
	}
	return 0;
}

/* One line through /dev/kmsg: <11> is facility user, level err. */
static bool kmsg_write(const char *token, int i)
{
	char line[128];
	int fd, n;
	bool ok;

	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = snprintf(line, sizeof(line), "<11>kprint_test %s: kmsg %d\n",
		     token, i);
	ok = write(fd, line, n) == n;
	close(fd);
	return ok;
}

static __u64 fnv1a64(const char *s)
{
	__u64 h = KPRINT_FNV1A64_OFFSET;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= KPRINT_FNV1A64_PRIME;
	}
	return h;
}

static const struct rec *find_text(const struct recs *rs, const char *text)
{
	unsigned int i;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].text_len == strlen(text) &&
		    !strcmp(rs->r[i].text, text))
			return &rs->r[i];
	return NULL;
}

/*
 * Every record carries these, whatever made it (strings may be empty):
 * the fields kprint(7) lists for every record.  source says where a record
 * came from and is checked where it means something; block-id, device,
 * facility, continues and printk-seq come only when they are not 0 or
 * empty, and are checked where they are set.
 */
#define BIT_ULL(n)	(1ULL << (n))
static const __u64 always_attrs =
	BIT_ULL(KPRINT_RECORD_A_SEQ) | BIT_ULL(KPRINT_RECORD_A_LEVEL) |
	BIT_ULL(KPRINT_RECORD_A_CLASS) | BIT_ULL(KPRINT_RECORD_A_TS_MONO_NS) |
	BIT_ULL(KPRINT_RECORD_A_TS_REAL_NS) | BIT_ULL(KPRINT_RECORD_A_CPU) |
	BIT_ULL(KPRINT_RECORD_A_PID) | BIT_ULL(KPRINT_RECORD_A_COMM) |
	BIT_ULL(KPRINT_RECORD_A_FILE) | BIT_ULL(KPRINT_RECORD_A_LINE) |
	BIT_ULL(KPRINT_RECORD_A_FUNCTION) | BIT_ULL(KPRINT_RECORD_A_SUBSYSTEM) |
	BIT_ULL(KPRINT_RECORD_A_MODULE) | BIT_ULL(KPRINT_RECORD_A_FORMAT) |
	BIT_ULL(KPRINT_RECORD_A_FORMAT_ID) | BIT_ULL(KPRINT_RECORD_A_TEXT) |
	BIT_ULL(KPRINT_RECORD_A_FLAGS);

static void check_window(const struct window *w, bool overrun)
{
	const struct recs *rs = w->recs;
	__u64 want = w->last - w->first + 1;
	unsigned int i;
	bool in_order = true;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].seq != w->first + i)
			in_order = false;
	ksft_test_result(!overrun && !rs->overflow && rs->n == want && in_order,
			 "notify: records %llu..%llu all notified, in seq order (%u of %llu%s)\n",
			 (unsigned long long)w->first,
			 (unsigned long long)w->last, rs->n,
			 (unsigned long long)want, overrun ? ", overrun" : "");
}

static void check_attrs(const struct recs *rs)
{
	unsigned int i, bad = 0, bad_id = 0;
	bool mono = true;

	for (i = 0; i < rs->n; i++) {
		const struct rec *r = &rs->r[i];

		if (r->malformed || (r->present & always_attrs) != always_attrs) {
			ksft_print_msg("record %llu: attributes %#llx, want %#llx%s\n",
				       (unsigned long long)r->seq,
				       (unsigned long long)r->present,
				       (unsigned long long)always_attrs,
				       r->malformed ? ", malformed" : "");
			bad++;
		}
		if (r->format_id != fnv1a64(r->format))
			bad_id++;
		if (i && r->ts_mono < rs->r[i - 1].ts_mono)
			mono = false;
	}
	ksft_test_result(rs->n && !bad,
			 "notify: %u records carry every attribute, strings NUL-terminated within their limits\n",
			 rs->n);
	ksft_test_result(rs->n && !bad_id,
			 "notify: format-id is the FNV-1a 64 of the format (%u wrong)\n",
			 bad_id);
	ksft_test_result(rs->n && mono,
			 "notify: CLOCK_MONOTONIC stamps never go back in seq order\n");
}

static void check_emitted(const struct recs *rs, const char *token)
{
	const struct rec *r;
	char text[128];

	snprintf(text, sizeof(text), "kprint_test %s: start", token);
	r = find_text(rs, text);
	ksft_test_result(r && r->seq == rs->r[0].seq &&
			 r->level == KPRINT_LEVEL_ERR &&
			 r->class == KPRINT_CLASS_DETECTED &&
			 !strcmp(r->format, "kprint_test %s: %s") &&
			 r->nargs == 2 && !strcmp(r->args[0], token) &&
			 !strcmp(r->args[1], "start"),
			 "emit: the record has its seq, level err, class detected, format, args and text\n");
	ksft_test_result(r && !strcmp(r->subsystem, "kselftest") &&
			 !strcmp(r->module, "user") &&
			 (r->flags & KPRINT_RECORD_F_USER) &&
			 r->source == KPRINT_SOURCE_KPRINT,
			 "emit: subsystem kselftest, module user, flag user, source kprint\n");
}

static void check_kmsg(const struct recs *rs, const char *token, bool bridge)
{
	const struct rec *r[KMSG_LINES];
	bool fields = true, order = true;
	char text[128], arg[130];
	int i;

	if (!bridge) {
		ksft_test_result_skip("kmsg: printk hands nothing to kprint (bridge off)\n");
		ksft_test_result_skip("kmsg: printk-seq (bridge off)\n");
		return;
	}
	for (i = 0; i < KMSG_LINES; i++) {
		snprintf(text, sizeof(text), "kprint_test %s: kmsg %d", token, i);
		snprintf(arg, sizeof(arg), "%s\n", text);
		r[i] = find_text(rs, text);
		if (!r[i] || r[i]->source != KPRINT_SOURCE_PRINTK ||
		    r[i]->level != KPRINT_LEVEL_ERR || r[i]->facility != 1 ||
		    strcmp(r[i]->format, "%s") || r[i]->nargs != 1 ||
		    strcmp(r[i]->args[0], arg)) {
			ksft_print_msg("kmsg line %d: %s\n", i,
				       r[i] ? "wrong fields" : "no record");
			fields = false;
			order = false;
			continue;
		}
		if (!r[i]->printk_seq ||
		    (i && r[i - 1] && (r[i]->seq <= r[i - 1]->seq ||
				       r[i]->printk_seq <= r[i - 1]->printk_seq)))
			order = false;
	}
	ksft_test_result(fields,
			 "kmsg: %d lines are records of source printk, level err, facility user, format %%s\n",
			 KMSG_LINES);
	ksft_test_result(order,
			 "kmsg: printk-seq set and increasing with seq\n");
}

static void check_dump(const struct recs *d, const struct recs *n)
{
	unsigned int i, diff = 0;

	for (i = 0; i < d->n && i < n->n; i++)
		if (d->r[i].seq != n->r[i].seq ||
		    d->r[i].level != n->r[i].level ||
		    d->r[i].text_len != n->r[i].text_len ||
		    memcmp(d->r[i].text, n->r[i].text, d->r[i].text_len))
			diff++;
	ksft_test_result(d->n && d->n == n->n && !d->overflow && !diff,
			 "dump: record-get from the first seq returns the notified records (%u of %u, %u differ)\n",
			 d->n, n->n, diff);
}

/* Records made in the window: the two emits around the /dev/kmsg lines. */
static void make_records(int fd, __u16 family, const char *token,
			 bool bridge, struct window *w)
{
	bool kmsg_ok = true;
	int i;

	w->first = emit(fd, family, token, "start");
	ksft_test_result(w->first != 0,
			 "emit: KPRINT_CMD_EMIT replies with the record's seq %llu\n",
			 (unsigned long long)w->first);
	if (!w->first)
		ksft_exit_fail_msg("no record could be emitted\n");
	for (i = 0; bridge && i < KMSG_LINES; i++)
		kmsg_ok &= kmsg_write(token, i);
	if (!kmsg_ok)
		ksft_print_msg("write to /dev/kmsg: %s\n", strerror(errno));
	w->last = emit(fd, family, token, "end");
	if (w->last <= w->first)
		ksft_exit_fail_msg("the second emit got seq %llu\n",
				   (unsigned long long)w->last);
}

int main(void)
{
	struct window w = { .recs = &notified }, d = { .recs = &dumped };
	/* Any record at all counts against the dump from beyond the end. */
	struct window beyond = { .recs = &dumped, .last = UINT64_MAX };
	bool overrun = false, bridge;
	struct stats st = { 0 };
	struct family fam;
	int fd, sub, err;
	char token[32];
	struct req r;

	ksft_print_header();
	fd = nl_open();
	sub = nl_open();
	if (fd < 0 || sub < 0)
		ksft_exit_fail_perror("netlink socket");
	err = family_resolve(fd, &fam);
	if (err == -ENOENT)
		ksft_exit_skip("family \"%s\" not found: CONFIG_KPRINT off or not loaded\n",
			       KPRINT_GENL_NAME);
	if (err)
		ksft_exit_fail_msg("resolving the family: %s\n", strerror(-err));
	if (setsockopt(sub, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
		       &fam.records_grp, sizeof(fam.records_grp))) {
		if (errno == EPERM)
			ksft_exit_skip("joining the records group needs CAP_SYS_ADMIN\n");
		ksft_exit_fail_perror("joining the records group");
	}

	ksft_set_plan(NR_TESTS);
	ksft_test_result(fam.id && fam.version >= KPRINT_GENL_VERSION &&
			 fam.records_grp,
			 "family: %s id %u version %u, group %s %u\n",
			 KPRINT_GENL_NAME, fam.id, fam.version,
			 KPRINT_MCGRP_RECORDS, fam.records_grp);

	req_init(&r, fam.id, NLM_F_ACK, KPRINT_CMD_STATS_GET);
	err = nl_request(fd, &r, stats_reply, &st);
	ksft_test_result(!err && st.has_next_seq,
			 "stats: KPRINT_CMD_STATS_GET replies with next-seq %llu, bridge %llu\n",
			 (unsigned long long)st.next_seq,
			 (unsigned long long)st.bridge);
	/* The bridge counter says whether printk hands messages over. */
	bridge = !st.has_bridge || st.bridge == 1;

	snprintf(token, sizeof(token), "%d.%ld", getpid(), (long)time(NULL));
	make_records(fd, fam.id, token, bridge, &w);
	err = collect(sub, fam.id, &w, &overrun);
	if (err)
		ksft_print_msg("reading notifications: %s\n", strerror(-err));
	check_window(&w, overrun);
	check_attrs(&notified);
	check_emitted(&notified, token);
	check_kmsg(&notified, token, bridge);

	d.first = w.first;
	d.last = w.last;
	err = dump(fd, fam.id, d.first, &d);
	ksft_test_result(!err, "dump: KPRINT_CMD_RECORD_GET from seq %llu ends with NLMSG_DONE\n",
			 (unsigned long long)d.first);
	check_dump(&dumped, &notified);

	dumped.n = 0;
	err = dump(fd, fam.id, w.last + 1000000, &beyond);
	ksft_test_result(!err && !dumped.n,
			 "dump: record-get from beyond the newest record returns none (%u)\n",
			 dumped.n);
	close(sub);
	close(fd);
	ksft_finished();
}
