// SPDX-License-Identifier: GPL-2.0
/*
 * kprint-bare-recv: the baseline receiver of benchmark B2.
 *
 * Joins the records group through the same libkpc socket as the exporter
 * (same receive buffer, same non-blocking poll loop) and only counts the
 * records each notification carries: no decoding, no copying, no store.
 * What the exporter achieves is then compared with what merely draining
 * the same multicast achieves on the same machine.
 *
 * usage: kprint-bare-recv [--rcvbuf BYTES] COUNT IDLE_MS
 *
 * Prints "ready" once subscribed, then exits after COUNT records, or once
 * no record came for IDLE_MS after the first one, printing one JSON object:
 * {"records": N, "datagrams": N, "polls": N, "overruns": N, "first_ns": T,
 * "last_ns": T, "voluntary_switches": N, "user_us": N, "system_us": N}
 * with the notifications it read, the polls that found one ready,
 * CLOCK_MONOTONIC times of the first and last datagram, how often it went
 * to sleep (its wake-ups) and its CPU time, all along.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <netlink/genl/genl.h>

#include <linux/kprint.h>

#include "kpc_parse.h"
#include "kpc_sock.h"

struct kpb_count {
	uint64_t records;
	uint64_t datagrams;
	uint64_t polls;
	uint64_t overruns;
	uint64_t first_ns;
	uint64_t last_ns;
};

static uint64_t kpb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int kpb_count_msg(struct nlmsghdr *nlh, void *ctx)
{
	struct kpb_count *c = ctx;
	struct nlattr *nla;
	int rem;

	if (genlmsg_hdr(nlh)->cmd != KPRINT_CMD_RECORD_NTF)
		return 0;
	c->datagrams++;
	nla_for_each_attr(nla, genlmsg_attrdata(genlmsg_hdr(nlh), 0),
			  genlmsg_attrlen(genlmsg_hdr(nlh), 0), rem)
		if (nla_type(nla) == KPRINT_A_RECORD)
			c->records++;
	return 0;
}

int main(int argc, char **argv)
{
	struct kpc_sock_opts opts = { .group = KPRINT_MCGRP_RECORDS, .nonblock = true };
	uint64_t want, idle_ms, rcvbuf;
	struct kpb_count c = { 0 };
	struct kpc_sock *ks;
	struct rusage ru;
	struct pollfd pfd;
	int err, argi = 1;

	if (argc == 5 && !strcmp(argv[1], "--rcvbuf")) {
		if (kpc_parse_u64(argv[2], 10, 1 << 30, &rcvbuf))
			goto usage;
		opts.rcvbuf = rcvbuf;
		argi = 3;
	}
	if (argc - argi != 2 || kpc_parse_u64(argv[argi], 10, UINT64_MAX, &want) ||
	    kpc_parse_u64(argv[argi + 1], 10, 3600000, &idle_ms) || !idle_ms)
		goto usage;

	err = kpc_sock_open(&opts, &ks);
	if (err) {
		fprintf(stderr, "kprint-bare-recv: subscribe: %s\n", strerror(-err));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	pfd.fd = kpc_sock_fd(ks);
	pfd.events = POLLIN;
	while (c.records < want) {
		uint64_t before = c.records;
		int n = poll(&pfd, 1, c.records ? (int)idle_ms : -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;		/* idle: the burst is over */
		c.polls++;
		for (;;) {
			err = kpc_sock_recv(ks, kpb_count_msg, &c);
			if (err == -ENOBUFS) {
				c.overruns++;
				continue;
			}
			if (err)
				break;
		}
		if (err != -EAGAIN)
			break;
		err = 0;
		if (c.records != before) {
			c.last_ns = kpb_now_ns();
			if (!before)
				c.first_ns = c.last_ns;
		}
	}
	kpc_sock_close(ks);
	if (err) {
		fprintf(stderr, "kprint-bare-recv: receive: %s\n", strerror(-err));
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"records\": %" PRIu64 ", \"datagrams\": %" PRIu64
	       ", \"polls\": %" PRIu64 ", \"overruns\": %" PRIu64
	       ", \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64
	       ", \"voluntary_switches\": %ld, \"user_us\": %ld, \"system_us\": %ld}\n",
	       c.records, c.datagrams, c.polls, c.overruns, c.first_ns, c.last_ns, ru.ru_nvcsw,
	       (long)(ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec),
	       (long)(ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec));
	return 0;

usage:
	fprintf(stderr, "usage: kprint-bare-recv [--rcvbuf BYTES] COUNT IDLE_MS\n");
	return 2;
}
