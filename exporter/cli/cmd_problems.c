// SPDX-License-Identifier: GPL-2.0
/*
 * kprint problems: the kernel problems among the ring's records (the
 * problem catalog, kpc_problems.h), then with --follow the live ones.
 *
 * Every record goes through the matcher, in order, whatever the filters
 * say: a rule's context is the line printed before its record, which a
 * filter could hide.  The filters (--source, --level, ...) choose which
 * hits are shown.  Text: one line per hit,
 *	[seconds.micros] PROBLEM label=value ... attr=value ...: record text
 * JSON: one hit per line as kpc_json_problem_hit() writes it, and nothing
 * else on stdout (losses and the module's comings and goings go to
 * stderr), so that every line is a hit.
 *
 * The catalog is read before the kernel is asked for anything, so that a
 * refused one costs no privilege and says FILE:LINE: why.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "kprint.h"

enum {
	KPRINT_OPT_PROB_FILE = KPRINT_OPT_PRIVATE,
	KPRINT_OPT_PROB_NPD,
	KPRINT_OPT_PROB_SITES,
};

#define KPRINT_PROBLEMS_SITES_MAX	16	/* --sites given */

static const struct option kprint_problems_options[] = {
	{ "follow",	no_argument,		NULL, 'f' },
	{ "problems",	required_argument,	NULL, KPRINT_OPT_PROB_FILE },
	{ "check-npd",	required_argument,	NULL, KPRINT_OPT_PROB_NPD },
	{ "sites",	required_argument,	NULL, KPRINT_OPT_PROB_SITES },
	{ NULL, 0, NULL, 0 },
};

struct kprint_problems {
	const struct kprint_opts *o;
	bool follow;
	const char *path;
	const char *npd;		/* --check-npd FILE */
	unsigned int nsites;
	const char *sites[KPRINT_PROBLEMS_SITES_MAX];
	struct kpc_problems *catalog;
	struct kpc_problem_matcher *m;
	uint64_t shown;			/* hits shown, for --count */
	uint64_t next_seq;		/* after the last record seen */
};

static struct kprint_problems kprint_problems_args;
static volatile sig_atomic_t kprint_problems_stop;

static int kprint_problems_opt(struct kprint_opts *o, int opt, const char *arg)
{
	(void)o;
	switch (opt) {
	case 'f':
		kprint_problems_args.follow = true;
		return 0;
	case KPRINT_OPT_PROB_FILE:
		kprint_problems_args.path = arg;
		return 0;
	case KPRINT_OPT_PROB_NPD:
		kprint_problems_args.npd = arg;
		return 0;
	case KPRINT_OPT_PROB_SITES:
		if (kprint_problems_args.nsites == KPRINT_PROBLEMS_SITES_MAX)
			return kprint_usage_error("problems: too many --sites (%s at most)", "16");
		kprint_problems_args.sites[kprint_problems_args.nsites++] = arg;
		return 0;
	}
	return KPRINT_EXIT_USAGE;
}

static void kprint_problems_text(const struct kprint_problems *pr,
				 const struct kpc_problem_hit *hit, const struct kpc_record *rec)
{
	const struct kpc_problem_rule *r = hit->rule;
	bool utf8 = pr->o->text.utf8;
	unsigned int i;

	printf("[%5llu.%06llu] ", (unsigned long long)(rec->ts_mono_ns / 1000000000ULL),
	       (unsigned long long)(rec->ts_mono_ns % 1000000000ULL / 1000));
	fputs(r->name, stdout);
	for (i = 0; i < r->nlabels; i++) {
		printf(" %s=", r->labels[i]);
		kpc_text_escape(stdout, hit->labels[i], utf8);
	}
	for (i = 0; i < hit->nattrs; i++) {
		printf(" %s=", hit->attr_names[i]);
		kpc_text_escape(stdout, hit->attrs[i], utf8);
	}
	fputs(": ", stdout);
	kpc_text_escape_mem(stdout, rec->text ? rec->text : "",
			    rec->text ? kpc_record_text_len(rec) : 0, utf8);
	putchar('\n');
}

/* kpc_record_fn: every record through the matcher, the hits shown. */
static int kprint_problems_record(const struct kpc_record *rec, void *ctx)
{
	struct kprint_problems *pr = ctx;
	const struct kprint_opts *o = pr->o;
	struct kpc_problem_hit hits[KPC_PROBLEM_HITS_MAX];
	int n, i, err;

	pr->next_seq = rec->seq + 1;
	n = kpc_problem_match(pr->m, rec, hits, KPC_PROBLEM_HITS_MAX);
	if (n < 0)
		return n;
	if (!kpc_filter_match(&o->filter, rec))
		n = 0;
	for (i = 0; i < n; i++) {
		if (o->json) {
			err = kpc_json_print_put(stdout, kpc_json_problem_hit(&hits[i], rec));
			if (err)
				return err;
		} else {
			kprint_problems_text(pr, &hits[i], rec);
		}
		if (o->count && ++pr->shown >= o->count)
			return -ECANCELED;
	}
	if (ferror(stdout))
		return -EIO;
	return o->until && rec->seq >= o->until ? -ECANCELED : 0;
}

/* kpc_event_fn: what was lost, on stderr only (stdout has hits alone). */
static int kprint_problems_event(const struct kpc_event *ev, void *ctx)
{
	struct kprint_problems *pr = ctx;

	fflush(stdout);
	switch (ev->kind) {
	case KPC_EVENT_LOST:
		fprintf(stderr, "kprint: lost %" PRIu64 " record%s (seq %" PRIu64 "..%" PRIu64
			"): their problems are not shown\n", ev->count, ev->count == 1 ? "" : "s",
			ev->first_seq, ev->last_seq);
		return pr->o->until && ev->last_seq >= pr->o->until ? -ECANCELED : 0;
	case KPC_EVENT_MALFORMED:
		fprintf(stderr, "kprint: skipped %" PRIu64 " malformed record%s from the kernel\n",
			ev->count, ev->count == 1 ? "" : "s");
		return 0;
	case KPC_EVENT_UNLOADED:
		fprintf(stderr, "kprint: kprint.ko was unloaded; waiting for it to come back\n");
		return 0;
	case KPC_EVENT_RELOADED:
		fprintf(stderr, "kprint: kprint.ko is loaded again; its records start at seq %"
			PRIu64 "\n", ev->first_seq);
		return 0;
	default:
		return 0;
	}
}

static int kprint_problems_dump_ring(void *dump_ctx, uint64_t from, kpc_record_fn fn,
				     void *fn_ctx, struct kpc_malformed *bad)
{
	return kpc_dump(dump_ctx, from, fn, fn_ctx, bad);
}

/* The ring, oldest first, as kprint dump reads it. */
static int kprint_problems_dump(struct kprint_problems *pr)
{
	struct kpc_sock_opts sopts = { 0 };
	struct kpc_tracker tracker = {
		.deliver = kprint_problems_record,
		.event = kprint_problems_event,
		.ctx = pr,
		.dump = kprint_problems_dump_ring,
	};
	struct kpc_sock *ks;
	int err, ret = KPRINT_EXIT_OK;

	err = kpc_sock_open(&sopts, &ks);
	if (err)
		return kprint_fail(KPRINT_ACT_READ, "read the ring", err, NULL);
	tracker.dump_ctx = ks;
	err = kpc_tracker_resync(&tracker, KPC_CAUSE_START);
	fflush(stdout);
	if (err == -ECANCELED)
		ret = -ECANCELED;
	else if (err)
		ret = kprint_fail(KPRINT_ACT_READ, "read the ring", err, kpc_sock_extack(ks));
	kpc_sock_close(ks);
	return ret;
}

static void kprint_problems_signal(int sig)
{
	(void)sig;
	kprint_problems_stop = 1;
}

/* Live, from the record after the last one the dump saw. */
static int kprint_problems_follow(struct kprint_problems *pr)
{
	struct kpc_stream_opts sopts = {
		.record = kprint_problems_record,
		.event = kprint_problems_event,
		.ctx = pr,
		.rcvbuf = pr->o->rcvbuf,
		.replay = true,
		.from = pr->next_seq,
	};
	struct pollfd pfd = { .events = POLLIN };
	struct sigaction sa = { .sa_handler = kprint_problems_signal };
	struct kpc_stream *st;
	int err, ret = KPRINT_EXIT_OK;

	err = kpc_stream_open(&sopts, &st);
	if (err)
		return kprint_fail(KPRINT_ACT_SUBSCRIBE, "subscribe", err, NULL);
	/* No SA_RESTART: poll() must return EINTR so that the loop sees the flag. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = kpc_stream_start(st);
	pfd.fd = kpc_stream_fd(st);
	while (!err && !kprint_problems_stop) {
		if (poll(&pfd, 1, -1) < 0) {
			err = errno == EINTR ? 0 : -errno;
			continue;
		}
		err = kpc_stream_process(st);
		fflush(stdout);
	}
	fflush(stdout);
	if (err && err != -ECANCELED)
		ret = kprint_fail(KPRINT_ACT_READ, "follow", err, NULL);
	kpc_stream_close(st);
	return ret;
}

/* --problems FILE, or the default one; -1 to go on, or the exit status. */
static int kprint_problems_load(struct kprint_problems *pr)
{
	char buf[PATH_MAX], err[512];
	int ret;

	if (!pr->path) {
		pr->path = kpc_problems_default_path(buf, sizeof(buf));
		if (!pr->path) {
			fprintf(stderr, "kprint: no problem catalog (%s): give one with"
				" --problems FILE\n", KPC_PROBLEMS_FILE);
			return KPRINT_EXIT_ERROR;
		}
	}
	ret = kpc_problems_load(pr->path, &pr->catalog, err, sizeof(err));
	if (ret) {
		fputs("kprint: ", stderr);
		kpc_text_escape(stderr, err, pr->o->text.utf8);
		fputc('\n', stderr);
		return KPRINT_EXIT_ERROR;
	}
	if (pr->o->verbose)
		fprintf(stderr, "kprint: %s: %u problems, %u formats\n", pr->path,
			kpc_problems_count(pr->catalog), kpc_problems_nformats(pr->catalog));
	pr->path = NULL;	/* buf goes out of scope */
	pr->m = kpc_problem_matcher_new(pr->catalog);
	if (!pr->m) {
		fprintf(stderr, "kprint: %s\n", strerror(ENOMEM));
		return KPRINT_EXIT_ERROR;
	}
	return -1;
}

int kprint_cmd_problems(struct kprint_opts *o, int argc, char **argv)
{
	struct kprint_problems *pr = &kprint_problems_args;
	int ret;

	ret = kprint_parse_options_only(o, argc, argv, "problems", kprint_problems_options,
					kprint_problems_opt);
	if (ret >= 0)
		return ret;
	pr->o = o;
	if (pr->nsites && !pr->npd)
		return kprint_usage_error("problems: --sites goes with --check-npd%s", "");
	ret = kprint_problems_load(pr);
	if (ret >= 0)
		goto out;
	if (pr->npd) {
		ret = kprint_problems_check_npd(o, pr->npd, pr->catalog, pr->sites, pr->nsites);
		goto out;
	}
	ret = kprint_problems_dump(pr);
	if (ret == KPRINT_EXIT_OK && pr->follow)
		ret = kprint_problems_follow(pr);
	if (ret < 0)
		ret = KPRINT_EXIT_OK;	/* --count or --until reached */
out:
	kpc_problem_matcher_free(pr->m);
	kpc_problems_free(pr->catalog);
	return ret;
}
