// SPDX-License-Identifier: GPL-2.0
/*
 * A problem hit as JSON, the one writer of it (kprint problems --json, the
 * exporter's /events and /problems): {"problem", "npd"?, "kind",
 * "condition"?, "labels", "attribution", "record"}, "npd" the source of
 * the node-problem-detector file of an --npd-rules hit.
 *
 * The record is the one record writer's (kpc_json_record_write(), what
 * /records serves), read back into a json-c object: a second writer of
 * records would drift from the first, and a hit is rare enough that the
 * round trip costs nothing that matters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kpc_json.h"
#include "kpc_problems.h"

static struct json_object *kpc_pj_record(const struct kpc_record *rec)
{
	struct json_object *obj = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	kpc_json_record_write(f, rec);
	if (!fclose(f))
		obj = json_tokener_parse(buf);
	free(buf);
	return obj;
}

static struct json_object *kpc_pj_pairs(unsigned int n, const char *const *names,
					const char (*values)[KPC_PROBLEM_VALUE_MAX])
{
	struct json_object *obj = json_object_new_object();
	unsigned int i;

	for (i = 0; obj && i < n; i++)
		if (!kpc_json_add(obj, names[i], kpc_json_string(values[i]))) {
			json_object_put(obj);
			return NULL;
		}
	return obj;
}

struct json_object *kpc_json_problem_hit(const struct kpc_problem_hit *hit,
					 const struct kpc_record *rec)
{
	const struct kpc_problem_rule *r = hit->rule;
	struct json_object *obj = json_object_new_object();
	bool ok = obj;

	ok = ok && kpc_json_add(obj, "problem", kpc_json_string(r->name));
	if (r->npd)
		ok = ok && kpc_json_add(obj, "npd", kpc_json_string(r->npd));
	ok = ok && kpc_json_add(obj, "kind", json_object_new_string(
					r->kind == KPC_PROBLEM_CONDITION ? "condition" : "event"));
	if (r->kind == KPC_PROBLEM_CONDITION)
		ok = ok && kpc_json_add(obj, "condition", kpc_json_string(r->condition));
	ok = ok && kpc_json_add(obj, "labels", kpc_pj_pairs(r->nlabels, r->labels,
							    hit->labels));
	ok = ok && kpc_json_add(obj, "attribution", kpc_pj_pairs(hit->nattrs, hit->attr_names,
								 hit->attrs));
	ok = ok && kpc_json_add(obj, "record", kpc_pj_record(rec));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}
