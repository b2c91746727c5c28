// SPDX-License-Identifier: GPL-2.0
/*
 * kprint monitor: follow the records group, or a kernel-filtered
 * subscription, resyncing from the ring.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "kprint.h"

static volatile sig_atomic_t kprint_stop;

static void kprint_monitor_signal(int sig)
{
	(void)sig;
	kprint_stop = 1;
}

/* No SA_RESTART: poll() must return EINTR so the loop sees the flag. */
static void kprint_monitor_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kprint_monitor_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int kprint_monitor_loop(struct kpc_stream *st)
{
	struct pollfd pfd = { .fd = kpc_stream_fd(st), .events = POLLIN };
	int err;

	while (!kprint_stop) {
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		err = kpc_stream_process(st);
		/* Live output: whoever reads our pipe should not wait for a full buffer. */
		fflush(stdout);
		if (err)
			return err;
	}
	return 0;
}

/* The one bit of mask, or -1 when it has none or several. */
static int kprint_monitor_one(uint32_t mask)
{
	return mask && !(mask & (mask - 1)) ? __builtin_ctz(mask) : -1;
}

/*
 * What of the --level, --source, --class, --module, --subsystem and
 * --format-id filter kprint.ko can apply itself (kernel-side, per
 * subscriber): a flood of records nobody asked for then never reaches us.  It takes a superset:
 * "debug,err+" is sent as "debug or more severe", and the filter of
 * kprint_out_record() still decides, as it must for what a resync reads
 * from the ring.  --device stays ours alone.  With --until the filter
 * stays ours too: a record past SEQ must reach us to end the monitor.
 * Returns false when there is nothing for the kernel to filter.
 */
static bool kprint_monitor_kfilter(const struct kprint_opts *o,
				   struct kpc_sub_filter *kf)
{
	const struct kpc_filter *f = &o->filter;

	kf->level = f->levels ? 31 - __builtin_clz(f->levels) : -1;
	kf->source = kprint_monitor_one(f->sources);
	kf->class = kprint_monitor_one(f->classes);
	kf->module = f->module && *f->module ? f->module : NULL;
	kf->subsystem = f->subsystem && *f->subsystem ? f->subsystem : NULL;
	kf->nr_ids = f->nr_format_ids;
	kf->format_ids = f->format_ids;
	if (o->until)
		return false;
	return (kf->level >= 0 && kf->level < KPRINT_LEVEL_MAX) ||
	       kf->source >= 0 || kf->class >= 0 || kf->module || kf->subsystem ||
	       kf->nr_ids;
}

int kprint_cmd_monitor(struct kprint_opts *o, int argc, char **argv)
{
	char extack[KPC_EXTACK_MAX] = "";
	struct kpc_sub_filter kf;
	struct kprint_out out = { .opts = o };
	struct kpc_stream_opts sopts = {
		.record = kprint_out_record,
		.event = kprint_out_event,
		.ctx = &out,
	};
	struct kpc_stream *st;
	int ret, err;

	ret = kprint_parse_options_only(o, argc, argv, "monitor", NULL, NULL);
	if (ret >= 0)
		return ret;
	ret = kprint_catalog_open(o);
	if (ret >= 0)
		return ret;
	ret = KPRINT_EXIT_OK;
	sopts.rcvbuf = o->rcvbuf;
	sopts.replay = o->has_from;
	sopts.from = o->from;
	if (kprint_monitor_kfilter(o, &kf)) {
		sopts.filter = &kf;
		sopts.extack = extack;
	}

	err = kpc_stream_open(&sopts, &st);
	if (err)
		return kprint_fail(KPRINT_ACT_SUBSCRIBE, "subscribe", err, extack);

	kprint_monitor_signals();
	err = kpc_stream_start(st);
	if (err && err != -ECANCELED) {
		ret = kprint_fail(KPRINT_ACT_READ, "read the ring", err, NULL);
		goto out;
	}
	if (!err)
		err = kprint_monitor_loop(st);
	fflush(stdout);
	if (err && err != -ECANCELED)
		ret = kprint_fail(KPRINT_ACT_READ, "monitor", err, NULL);

	if (kpc_stream_foreign(st))
		fprintf(stderr, "kprint: ignored %" PRIu64 " netlink message(s) that did not come from the kernel\n",
			kpc_stream_foreign(st));
out:
	kpc_stream_close(st);
	return ret;
}
