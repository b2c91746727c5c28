// SPDX-License-Identifier: GPL-2.0
/* kprint stats: the module's counters. */
#include <errno.h>
#include <stdio.h>

#include "kprint.h"

static int kprint_stats_print(const struct kprint_opts *o,
			      const struct kpc_stats *st)
{
	if (o->json)
		return kpc_json_print_put(stdout, kpc_json_stats(st));
	return kpc_text_stats(stdout, st);
}

int kprint_cmd_stats(struct kprint_opts *o, int argc, char **argv)
{
	struct kpc_sock_opts sopts = { 0 };
	struct kpc_stats st;
	struct kpc_sock *ks;
	int ret, err;

	ret = kprint_parse_options_only(o, argc, argv, "stats", NULL, NULL);
	if (ret >= 0)
		return ret;
	ret = KPRINT_EXIT_OK;

	err = kpc_sock_open(&sopts, &ks);
	if (err)
		return kprint_fail(KPRINT_ACT_READ, "stats", err, NULL);

	err = kpc_stats_get(ks, &st);
	if (!err)
		err = kprint_stats_print(o, &st);
	if (err)
		ret = kprint_fail(KPRINT_ACT_READ, "stats", err, kpc_sock_extack(ks));

	kpc_sock_close(ks);
	return ret;
}
