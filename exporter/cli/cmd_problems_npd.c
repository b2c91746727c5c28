// SPDX-License-Identifier: GPL-2.0
/*
 * kprint problems --check-npd FILE [--sites WHAT]...: a node-problem-
 * detector rule file (config/kernel-monitor.json) held against the problem
 * catalog and the kernels' formats (kpc_npdcheck.h says how a pattern is
 * held against a format, and where that falls short).
 *
 * For each rule: the catalog rules with a format (its %pV filled with its
 * inner format) that prints a line the pattern matches; then for each
 * call-site catalog (--sites, a path or a release, as kprint sites diff
 * takes them; the running kernel's by default) a format that prints one,
 * or "stale" when none does.  Text, or with --json one object per rule per
 * line.  Exit 0 when the file was read, whatever is stale; 1 when the file
 * or a catalog cannot be read (FILE:LINE: why for a pattern refused).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc.h"
#include "kprint.h"

#define KPRINT_NPD_TEXT	1024

struct kprint_npd_hit {
	const char *format;	/* NULL: stale */
	const char *module, *function;
	unsigned int nformats;	/* distinct formats that match */
};

/* The catalog rules covering @r, as a JSON array of names. */
static struct json_object *kprint_npd_covered(const struct kpc_npdcheck_rule *r,
					      const struct kpc_problems *cat)
{
	struct json_object *names = json_object_new_array();
	const struct kpc_problem_rule *last = NULL;
	char buf[KPRINT_NPD_TEXT];

	for (unsigned int i = 0; i < kpc_problems_nformats(cat); i++) {
		const struct kpc_problem_format *f = kpc_problems_format(cat, i);

		if (f->rule == last)
			continue;
		if (kpc_npdcheck_matches_format(r, f->format, f->inner, buf, sizeof(buf))) {
			json_object_array_add(names, json_object_new_string(f->rule->name));
			last = f->rule;
		}
	}
	return names;
}

/*
 * Whether @e prints a line @r matches: as it is, or for a %pV with the
 * inner formats the catalog gives that format (the kernels' catalogs have
 * the wrappers' formats, not always those their callers pass).
 */
static int kprint_npd_site(const struct kpc_npdcheck_rule *r, const struct kpc_site *e,
			   const struct kpc_problems *cat, char *buf, size_t len)
{
	int m = kpc_npdcheck_matches_format(r, e->format, NULL, buf, len);

	if (m == KPC_NPD_MATCH || !strstr(e->format, "%pV"))
		return m;
	for (unsigned int i = 0; i < kpc_problems_nformats(cat); i++) {
		const struct kpc_problem_format *f = kpc_problems_format(cat, i);
		int mi;

		if (f->format_id != e->format_id || !f->inner)
			continue;
		mi = kpc_npdcheck_matches_format(r, e->format, f->inner, buf, len);
		if (mi && (!m || mi < m))
			m = mi;
	}
	return m;
}

/*
 * How many formats of @s print a line @r matches, and one of them: one
 * that does with "x" for its strings rather than with a word of the
 * pattern ("%s error in ..." matches "EXT4-fs error .*" that way).
 */
static void kprint_npd_scan(const struct kpc_npdcheck_rule *r, const struct kpc_sites *s,
			    const struct kpc_problems *cat, struct kprint_npd_hit *hit)
{
	char buf[KPRINT_NPD_TEXT];
	int best = 0, m;

	memset(hit, 0, sizeof(*hit));
	for (size_t i = 0; i < s->n; i++) {
		const struct kpc_site *e = &s->v[i];

		/* Sorted by id: the same format again, at another call site. */
		if (i && e->format_id == s->v[i - 1].format_id)
			continue;
		m = kprint_npd_site(r, e, cat, buf, sizeof(buf));
		if (!m)
			continue;
		hit->nformats++;
		if (!best || m < best) {
			best = m;
			hit->format = e->format;
			hit->module = e->module;
			hit->function = e->function;
		}
	}
}

static void kprint_npd_text(const char *path, const struct kpc_npdcheck_rule *r,
			    struct json_object *covered, const struct kpc_problem_rule *byname, const struct kpc_sites *sites,
			    const struct kprint_npd_hit *hits, unsigned int nsites)
{
	size_t n = json_object_array_length(covered);

	printf("%s:%u: %s: \"%s\"\n  catalog:", path, r->line, r->reason, r->pattern);
	for (size_t i = 0; i < n; i++)
		printf("%s %s", i ? "," : "", json_object_get_string(
			json_object_array_get_idx(covered, i)));
	if (!n)
		printf(" none (no catalog format prints a line it matches)%s%s",
		       byname ? "; by name only: " : "", byname ? byname->name : "");
	putchar('\n');
	for (unsigned int k = 0; k < nsites; k++) {
		if (!hits[k].format) {
			printf("  %s: stale: no format prints a line it matches\n", sites[k].kernel);
			continue;
		}
		printf("  %s: %u format%s, \"", sites[k].kernel, hits[k].nformats,
		       hits[k].nformats == 1 ? "" : "s");
		kpc_text_escape(stdout, hits[k].format, false);
		printf("\" (%s %s)\n", hits[k].module,
		       hits[k].function ? hits[k].function : "-");
	}
}

static struct json_object *kprint_npd_str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void kprint_npd_json(const char *path, const struct kpc_npdcheck_rule *r,
			    struct json_object *covered, const struct kpc_problem_rule *byname, const struct kpc_sites *sites,
			    const struct kprint_npd_hit *hits, unsigned int nsites)
{
	struct json_object *o = json_object_new_object(), *ks = json_object_new_array();

	json_object_object_add(o, "file", json_object_new_string(path));
	json_object_object_add(o, "line", json_object_new_int(r->line));
	json_object_object_add(o, "reason", json_object_new_string(r->reason));
	json_object_object_add(o, "type", kprint_npd_str(r->type));
	json_object_object_add(o, "condition", kprint_npd_str(r->condition));
	json_object_object_add(o, "pattern", json_object_new_string(r->pattern));
	json_object_object_add(o, "catalog", json_object_get(covered));
	json_object_object_add(o, "catalog_by_name", kprint_npd_str(byname ? byname->name : NULL));
	for (unsigned int k = 0; k < nsites; k++) {
		struct json_object *h = json_object_new_object();

		json_object_object_add(h, "kernel", json_object_new_string(sites[k].kernel));
		json_object_object_add(h, "stale", json_object_new_boolean(!hits[k].format));
		json_object_object_add(h, "formats", json_object_new_int(hits[k].nformats));
		json_object_object_add(h, "format", kprint_npd_str(hits[k].format));
		json_object_object_add(h, "module", kprint_npd_str(hits[k].module));
		json_object_object_add(h, "function", kprint_npd_str(hits[k].function));
		json_object_array_add(ks, h);
	}
	json_object_object_add(o, "kernels", ks);
	kpc_json_print_put(stdout, o);
}

static int kprint_npd_report(const struct kprint_opts *o, const char *path,
			     const struct kpc_npdcheck_rules *rules, const struct kpc_problems *cat,
			     const struct kpc_sites *sites, unsigned int nsites)
{
	struct kprint_npd_hit *hits = calloc(nsites + 1, sizeof(*hits));

	if (!hits)
		return KPRINT_EXIT_ERROR;
	for (size_t i = 0; i < rules->n; i++) {
		const struct kpc_npdcheck_rule *r = &rules->v[i];
		struct json_object *covered = kprint_npd_covered(r, cat);
		/* A weaker word than a format's: the catalog's rule of that name. */
		const struct kpc_problem_rule *byname = kpc_problems_find(cat, r->reason);

		for (unsigned int k = 0; k < nsites; k++)
			kprint_npd_scan(r, &sites[k], cat, &hits[k]);
		if (o->json)
			kprint_npd_json(path, r, covered, byname, sites, hits, nsites);
		else
			kprint_npd_text(path, r, covered, byname, sites, hits, nsites);
		json_object_put(covered);
	}
	free(hits);
	fflush(stdout);
	return ferror(stdout) ? KPRINT_EXIT_ERROR : KPRINT_EXIT_OK;
}

int kprint_problems_check_npd(const struct kprint_opts *o, const char *npd,
			      const struct kpc_problems *cat, const char *const *what,
			      unsigned int nwhat)
{
	struct kpc_npdcheck_rules rules;
	struct kpc_sites *sites;
	unsigned int n = nwhat ? nwhat : 1, k;
	char err[1024];
	int ret;

	ret = kpc_npdcheck_load(npd, &rules, err, sizeof(err));
	if (ret) {
		fputs("kprint: ", stderr);
		kpc_text_escape(stderr, err, o->text.utf8);
		fputc('\n', stderr);
		return KPRINT_EXIT_ERROR;
	}
	sites = calloc(n, sizeof(*sites));
	ret = sites ? 0 : KPRINT_EXIT_ERROR;
	for (k = 0; !ret && k < n; k++)
		ret = kprint_sites_open(nwhat ? what[k] : NULL, NULL, &sites[k]);
	if (!ret)
		ret = kprint_npd_report(o, npd, &rules, cat, sites, n);
	for (k = 0; sites && k < n; k++)
		kpc_sites_free(&sites[k]);
	free(sites);
	kpc_npdcheck_free(&rules);
	return ret;
}
