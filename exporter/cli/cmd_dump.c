// SPDX-License-Identifier: GPL-2.0
/* kprint dump: the ring, oldest first, like dmesg. */
#include <errno.h>
#include <stdio.h>

#include "kprint.h"

static int kprint_dump_ring(void *dump_ctx, uint64_t from, kpc_record_fn fn,
			    void *fn_ctx, struct kpc_malformed *bad)
{
	return kpc_dump(dump_ctx, from, fn, fn_ctx, bad);
}

int kprint_cmd_dump(struct kprint_opts *o, int argc, char **argv)
{
	struct kprint_out out = { .opts = o };
	struct kpc_sock_opts sopts = { 0 };
	struct kpc_tracker tracker = {
		.deliver = kprint_out_record,
		.event = kprint_out_event,
		.ctx = &out,
		.dump = kprint_dump_ring,
	};
	struct kpc_sock *ks;
	int ret, err;

	ret = kprint_parse_options_only(o, argc, argv, "dump", NULL, NULL);
	if (ret >= 0)
		return ret;
	ret = kprint_catalog_open(o);
	if (ret >= 0)
		return ret;
	ret = KPRINT_EXIT_OK;

	err = kpc_sock_open(&sopts, &ks);
	if (err)
		return kprint_fail(KPRINT_ACT_READ, "dump", err, NULL);

	/*
	 * The same tracker as monitor's: with --from, a ring that starts
	 * later reports the difference as lost; without, the first record
	 * held is where we start.  Records overwritten while the dump runs
	 * are reported either way.
	 */
	tracker.dump_ctx = ks;
	if (o->has_from) {
		uint64_t origin;

		/* Seqs before the module's first record were never lost. */
		err = kpc_origin_get(ks, &origin);
		if (err) {
			ret = kprint_fail(KPRINT_ACT_READ, "dump", err,
					  kpc_sock_extack(ks));
			goto out;
		}
		kpc_tracker_anchor(&tracker, o->from > origin ? o->from : origin);
	}
	err = kpc_tracker_resync(&tracker, KPC_CAUSE_START);
	fflush(stdout);
	if (err && err != -ECANCELED)
		ret = kprint_fail(KPRINT_ACT_READ, "dump", err, kpc_sock_extack(ks));
out:
	kpc_sock_close(ks);
	return ret;
}
