/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What changed between two kernels' call-site catalogs (kprint sites
 * diff), and which format ids a Prometheus rules file or kprint's problem
 * catalog names that the newer kernel no longer prints (--rules).
 *
 * Matching, by format_id first, then by text:
 *  - An id in both catalogs is unchanged.  If NEW prints it from none of
 *    the places OLD did (a place: the module, and the function where both
 *    catalogs know it), it is reported once as moved.
 *  - An id of OLD absent from NEW is changed when NEW has, in the same
 *    module and function, an id absent from OLD whose text is near enough:
 *    similarity 1 - levenshtein(a, b) / max(len a, len b), over bytes, at
 *    least KPC_SITES_SIM_FUNCTION.  Where either side has no function (the
 *    image read without kallsyms) the module alone must match, and the
 *    similarity must be at least KPC_SITES_SIM_MODULE.  Pairs are taken
 *    the most similar first, each id at most once (one to one).
 *  - The other ids of OLD are removed, the other ids of NEW added.
 * Function names are compared without a compiler suffix (".isra.0",
 * ".constprop.0", ".part.0", ".cold"), which moves between builds.
 */
#ifndef KPC_SITES_DIFF_H
#define KPC_SITES_DIFF_H

#include <stdio.h>

#include "kpc_sites.h"

#define KPC_SITES_SIM_FUNCTION	0.6
#define KPC_SITES_SIM_MODULE	0.8

enum kpc_sites_change {
	KPC_SITES_ADDED,
	KPC_SITES_REMOVED,
	KPC_SITES_CHANGED,
	KPC_SITES_MOVED,
	KPC_SITES_CHANGE_MAX,
};

/*
 * One change.  old: OLD's entry (NULL when added), new: NEW's (NULL when
 * removed); for changed, the two entries that matched; for moved and for
 * an id printed from several places, the first of the id's entries (the
 * others follow it in its catalog).
 */
struct kpc_sites_delta {
	enum kpc_sites_change change;
	const struct kpc_site *old;
	const struct kpc_site *new;
	double similarity;		/* changed: of the two texts */
};

struct kpc_sites_diff {
	struct kpc_sites_delta *v;	/* by module, function, change, format */
	size_t n, cap;
	size_t count[KPC_SITES_CHANGE_MAX];
	size_t unchanged;		/* ids in both, moved ones included */
};

/* The diff of two sorted catalogs (kpc_sites_sort()); they must outlive it. */
int kpc_sites_diff(const struct kpc_sites *old, const struct kpc_sites *new,
		   struct kpc_sites_diff *out);
void kpc_sites_diff_free(struct kpc_sites_diff *d);

/* Where a change is shown: NEW's module, and its function, else OLD's. */
const char *kpc_sites_delta_module(const struct kpc_sites_delta *d);
const char *kpc_sites_delta_function(const struct kpc_sites_delta *d);

/* "added", "removed", "changed", "moved". */
const char *kpc_sites_change_name(enum kpc_sites_change change);

/* The similarity above, or -1 when below @min (computed only that far). */
double kpc_sites_similarity(const char *a, const char *b, double min);

/*
 * A format id named by a rules file: a label matcher format_id="ID" or
 * format_id=~"ID|ID" (literal ids only) in a rule's expr, or the
 * "format_id" of a problem catalog's line.
 */
struct kpc_sites_rule_ref {
	uint64_t format_id;
	char *rule;			/* the alert's or record's name, the problem's id */
	const char *kind;		/* "alert", "record", "problem" */
	unsigned int line;		/* where the id is written, 1-based */
};

struct kpc_sites_rules {
	char *path;
	struct kpc_sites_rule_ref *v;
	size_t n, cap;
	size_t not_literal;		/* regex alternatives that are no literal id */
};

/*
 * Read a Prometheus rules file (YAML: groups[].rules[] with alert or
 * record, and expr), or a file of JSON lines each with a "format_id" (the
 * stand-in of kprint's problem catalog, told apart by its first character
 * '{').  A file that is neither is refused with "FILE:LINE: reason" in
 * @err, -EINVAL.
 */
int kpc_sites_rules_load(const char *path, struct kpc_sites_rules *out, char *err,
			 size_t errlen);
void kpc_sites_rules_free(struct kpc_sites_rules *r);

/*
 * The change that took OLD's @id away from NEW (removed, or changed to
 * another text), or NULL when OLD does not have it or NEW still does.
 */
const struct kpc_sites_delta *kpc_sites_diff_gone(const struct kpc_sites_diff *d, uint64_t id);

#endif /* KPC_SITES_DIFF_H */
