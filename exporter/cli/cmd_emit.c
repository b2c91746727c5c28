// SPDX-License-Identifier: GPL-2.0
/* kprint emit: inject a record, as a test or from a script. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "kprint.h"

/*
 * emit's --level and --class name what to send, not a filter: they take
 * over the global options of the same names for this command.
 */
enum {
	KPRINT_OPT_EMIT_LEVEL = KPRINT_OPT_PRIVATE,
	KPRINT_OPT_EMIT_CLASS,
	KPRINT_OPT_EMIT_SUBSYSTEM,
};

static const struct option kprint_emit_options[] = {
	{ "level",	required_argument,	NULL, KPRINT_OPT_EMIT_LEVEL },
	{ "class",	required_argument,	NULL, KPRINT_OPT_EMIT_CLASS },
	{ "subsystem",	required_argument,	NULL, KPRINT_OPT_EMIT_SUBSYSTEM },
	{ NULL, 0, NULL, 0 },
};

static struct {
	int level;
	int class;
	const char *subsystem;
} kprint_emit_args = { .level = -1, .class = -1 };

static int kprint_emit_opt(struct kprint_opts *o, int opt, const char *arg)
{
	(void)o;
	switch (opt) {
	case KPRINT_OPT_EMIT_LEVEL:
		kprint_emit_args.level = kpc_level_parse(arg);
		if (kprint_emit_args.level < 0) {
			fprintf(stderr, "kprint: unknown level '%s' (emerg alert crit err warn notice info debug)\n", arg);
			return KPRINT_EXIT_USAGE;
		}
		return 0;
	case KPRINT_OPT_EMIT_CLASS:
		kprint_emit_args.class = kpc_class_parse(arg);
		if (kprint_emit_args.class < 0) {
			fprintf(stderr, "kprint: unknown class '%s' (none detected registered setting copyright)\n", arg);
			return KPRINT_EXIT_USAGE;
		}
		return 0;
	case KPRINT_OPT_EMIT_SUBSYSTEM:
		kprint_emit_args.subsystem = arg;
		return 0;
	}
	return KPRINT_EXIT_USAGE;
}

int kprint_cmd_emit(struct kprint_opts *o, int argc, char **argv)
{
	struct kpc_sock_opts sopts = { 0 };
	struct kpc_emit_req req = { 0 };
	struct kpc_sock *ks;
	uint64_t seq;
	int ret, err;

	ret = kprint_parse(o, argc, argv, kprint_emit_options, kprint_emit_opt);
	if (ret)
		return ret < 0 ? KPRINT_EXIT_OK : ret;
	if (kprint_emit_args.level < 0) {
		fputs("kprint: emit needs --level LEVEL\nTry 'kprint --help'.\n", stderr);
		return KPRINT_EXIT_USAGE;
	}
	if (optind >= argc) {
		fputs("kprint: emit needs a FORMAT\nTry 'kprint --help'.\n", stderr);
		return KPRINT_EXIT_USAGE;
	}

	req.level = kprint_emit_args.level;
	req.class = kprint_emit_args.class;
	req.subsystem = kprint_emit_args.subsystem;
	req.format = argv[optind];
	req.args = (const char *const *)&argv[optind + 1];
	req.nargs = argc - optind - 1;

	err = kpc_sock_open(&sopts, &ks);
	if (err)
		return kprint_fail(KPRINT_ACT_EMIT, "emit", err, NULL);

	err = kpc_emit(ks, &req, &seq);
	if (err) {
		ret = kprint_fail(KPRINT_ACT_EMIT, "emit refused", err,
				  kpc_sock_extack(ks));
	} else if (o->json) {
		printf("{\"seq\":%" PRIu64 "}\n", seq);
	} else {
		printf("%" PRIu64 "\n", seq);
	}

	kpc_sock_close(ks);
	return ret;
}
