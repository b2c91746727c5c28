// SPDX-License-Identifier: GPL-2.0
/* Records and loss events to stdout/stderr, as text or JSON lines. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "kprint.h"

int kprint_out_record(const struct kpc_record *rec, void *ctx)
{
	struct kprint_out *out = ctx;
	const struct kprint_opts *o = out->opts;
	int err;

	/* Filtered records still count for sequence tracking, not for --count. */
	if (!kpc_filter_match(&o->filter, rec))
		return o->until && rec->seq >= o->until ? -ECANCELED : 0;

	if (o->catalog)
		err = kprint_catalog_print(o, rec);
	else if (o->json)
		err = kpc_json_record_print(stdout, rec);
	else
		err = kpc_text_print(stdout, &o->text, rec);
	if (err)
		return err;

	out->shown++;
	if (o->until && rec->seq >= o->until)
		return -ECANCELED;
	return o->count && out->shown >= o->count ? -ECANCELED : 0;
}

static const char *kprint_lost_why(const struct kpc_event *ev)
{
	if (ev->reason == KPC_LOST_MISSING)
		return "the kernel skipped them and the ring does not have them";
	if (ev->reason == KPC_LOST_MALFORMED)
		return "the kernel sent them, but they could not be decoded (malformed)";
	switch (ev->cause) {
	case KPC_CAUSE_START:
		return "overwritten in the ring before the requested start was read";
	case KPC_CAUSE_OVERRUN:
		return "overwritten in the ring while our socket buffer overran";
	case KPC_CAUSE_GAP:
		return "overwritten in the ring before notifications caught up";
	case KPC_CAUSE_NOTIFY:
		break;	/* only malformed records are lost for it */
	}
	return "unknown";
}

static int kprint_out_lost(const struct kprint_opts *o, const struct kpc_event *ev)
{
	fprintf(stderr, "kprint: lost %" PRIu64 " record%s (seq %" PRIu64 "..%" PRIu64 "): %s\n",
		ev->count, ev->count == 1 ? "" : "s", ev->first_seq,
		ev->last_seq, kprint_lost_why(ev));

	return o->json ? kpc_json_print_put(stdout, kpc_json_lost(ev)) : 0;
}

/*
 * kprint.ko went away or came back.  In JSON a line of its own, since
 * sequence numbers start again after it:
 *   {"module": "unloaded", "next_seq": N}	all before N were shown
 *   {"module": "loaded", "first_seq": N}	the new instance's first
 */
static int kprint_out_module(const struct kprint_opts *o, const struct kpc_event *ev)
{
	bool unloaded = ev->kind == KPC_EVENT_UNLOADED;
	struct json_object *obj;
	int err = -ENOMEM;

	if (unloaded)
		fprintf(stderr, "kprint: kprint.ko was unloaded; waiting for it to come back\n");
	else
		fprintf(stderr, "kprint: kprint.ko is loaded again; its records start at seq %" PRIu64 "\n",
			ev->first_seq);
	if (!o->json)
		return 0;

	obj = json_object_new_object();
	if (!obj)
		return -ENOMEM;
	if (json_object_object_add(obj, "module", json_object_new_string(unloaded ?
					"unloaded" : "loaded")) ||
	    json_object_object_add(obj, unloaded ? "next_seq" : "first_seq",
				   json_object_new_uint64(ev->first_seq)))
		goto out;
	err = kpc_json_print(stdout, obj);
out:
	json_object_put(obj);
	return err;
}

int kprint_out_event(const struct kpc_event *ev, void *ctx)
{
	struct kprint_out *out = ctx;
	const struct kprint_opts *o = out->opts;

	switch (ev->kind) {
	case KPC_EVENT_LOST: {
		int err;

		/* Keep the order of stdout and stderr sensible on a terminal. */
		fflush(stdout);
		err = kprint_out_lost(o, ev);
		if (!err && o->until && ev->last_seq >= o->until)
			err = -ECANCELED;
		return err;
	}
	case KPC_EVENT_MALFORMED:
		fprintf(stderr, "kprint: skipped %" PRIu64 " malformed record%s from the kernel\n",
			ev->count, ev->count == 1 ? "" : "s");
		return 0;
	case KPC_EVENT_GAP:
		if (o->verbose)
			fprintf(stderr, "kprint: notifications skipped seq %" PRIu64 "..%" PRIu64 ", reading them from the ring\n",
				ev->first_seq, ev->last_seq);
		return 0;
	case KPC_EVENT_OVERRUN:
		if (o->verbose)
			fprintf(stderr, "kprint: socket receive buffer overran, reading missed records from the ring\n");
		return 0;
	case KPC_EVENT_UNLOADED:
	case KPC_EVENT_RELOADED:
		fflush(stdout);
		return kprint_out_module(o, ev);
	}
	return 0;
}
