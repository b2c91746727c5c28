// SPDX-License-Identifier: GPL-2.0
/*
 * kprint: matching records against a filtered subscriber's filter.  Its
 * request is parsed with the family's other requests (kprint_netlink.c).
 */

#include <linux/string.h>

#include "kprint_nl_filter.h"

/**
 * kprint_nl_filter_match() - does a stored record pass a filter?
 * @f: the filter
 * @rec: the record as stored (a deferred one too: its tags and format id
 *	 are stored as they are sent)
 *
 * Context: Any context; under the ring lock when the worker calls it.
 * Return: true when every criterion of @f holds.
 */
bool kprint_nl_filter_match(const struct kprint_nl_filter *f,
			    const struct kprint_rec *rec)
{
	unsigned int i;

	if (rec->level > f->level)
		return false;
	if (f->source >= 0 && rec->source != f->source)
		return false;
	if (f->class >= 0 && rec->class != f->class)
		return false;
	if (f->module[0] &&
	    strcmp(kprint_rec_str(rec, KPRINT_STR_MODULE), f->module))
		return false;
	if (f->subsystem[0] &&
	    strcmp(kprint_rec_str(rec, KPRINT_STR_SUBSYSTEM), f->subsystem))
		return false;
	if (!f->nr_ids)
		return true;
	for (i = 0; i < f->nr_ids; i++)
		if (rec->format_id == f->ids[i])
			return true;
	return false;
}
