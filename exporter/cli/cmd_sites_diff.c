// SPDX-License-Identifier: GPL-2.0
/*
 * kprint sites diff OLD NEW [--dir DIR] [--rules FILE] [--json]: what the
 * call-site catalogs of two kernels say changed (kpc_sites_diff.h: how
 * formats are matched), or, with --rules, which format ids a Prometheus
 * rules file or kprint's problem catalog names that NEW no longer prints.
 * OLD and NEW are releases (DIR/REL.jsonl) or paths of catalog files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kprint.h"

enum { KPRINT_OPT_SD_DIR = KPRINT_OPT_PRIVATE, KPRINT_OPT_SD_RULES };

static const struct option kprint_sites_diff_options[] = {
	{ "dir",	required_argument,	NULL, KPRINT_OPT_SD_DIR },
	{ "rules",	required_argument,	NULL, KPRINT_OPT_SD_RULES },
	{ NULL, 0, NULL, 0 },
};

static struct {
	const char *dir;
	const char *rules;
} kprint_sites_diff_args;

static int kprint_sites_diff_opt(struct kprint_opts *o, int opt, const char *arg)
{
	(void)o;
	if (opt == KPRINT_OPT_SD_DIR)
		kprint_sites_diff_args.dir = arg;
	else
		kprint_sites_diff_args.rules = arg;
	return 0;
}

/* The running kernel's release, read once; NULL if uname() failed. */
const char *kprint_sites_running(void)
{
	static struct utsname uts;
	static int err = -1;

	if (err < 0)
		err = !!uname(&uts);
	return err ? NULL : uts.release;
}

int kprint_sites_open(const char *what, const char *dir, struct kpc_sites *s)
{
	char path[4096], err[512];
	int ret;

	if (!what) {
		what = kprint_sites_running();
		if (!what) {
			fprintf(stderr, "kprint: uname: %s\n", strerror(errno));
			return KPRINT_EXIT_ERROR;
		}
	}
	if (!strchr(what, '/') && !strstr(what, ".jsonl")) {
		if (!kpc_sites_path(dir, what, path, sizeof(path)))
			return kprint_usage_error("a release too long: '%s'", what);
		/* Missing: say how to build it; any other error, the loader says. */
		if (access(path, F_OK) && errno == ENOENT) {
			fprintf(stderr, "kprint: no catalog of %s: %s (kprint sites build --kernel %s)\n",
				what, path, what);
			return KPRINT_EXIT_ERROR;
		}
		what = path;
	}
	ret = kpc_sites_load(what, s, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "kprint: %s\n", err);
		return KPRINT_EXIT_ERROR;
	}
	return 0;
}

static void kprint_sd_id(char *buf, const struct kpc_site *e)
{
	if (e)
		snprintf(buf, 17, "%016" PRIx64, e->format_id);
	else
		snprintf(buf, 17, "-");
}

/* "module:function" of each entry of @first's id in @s, blank between. */
static void kprint_sd_places(FILE *out, const struct kpc_sites *s, const struct kpc_site *first)
{
	const struct kpc_site *e;

	for (e = first; e < s->v + s->n && e->format_id == first->format_id; e++)
		fprintf(out, "%s%s%s%s", e == first ? "" : " ", e->module,
			e->function ? ":" : "", e->function ? e->function : "");
}

static void kprint_sd_format(const struct kprint_opts *o, const char *format)
{
	putchar('"');
	kpc_text_escape(stdout, format, o->text.utf8);
	putchar('"');
}

static void kprint_sd_text(const struct kprint_opts *o, const struct kpc_sites *old,
			   const struct kpc_sites *new, const struct kpc_sites_delta *d)
{
	const char *fn = kpc_sites_delta_function(d);
	char oid[17], nid[17];

	kprint_sd_id(oid, d->old);
	kprint_sd_id(nid, d->new);
	printf("%-8s %-16s %-16s ", kpc_sites_change_name(d->change), oid, nid);
	kpc_text_escape(stdout, kpc_sites_delta_module(d), o->text.utf8);
	putchar(' ');
	kpc_text_escape(stdout, fn ? fn : "-", o->text.utf8);
	putchar(' ');
	kprint_sd_format(o, d->old ? d->old->format : d->new->format);
	if (d->change == KPC_SITES_CHANGED) {
		fputs(" -> ", stdout);
		kprint_sd_format(o, d->new->format);
		printf(" (%.2f)", d->similarity);
	} else if (d->change == KPC_SITES_MOVED) {
		fputs(" (was ", stdout);
		kprint_sd_places(stdout, old, d->old);
		fputs("; now ", stdout);
		kprint_sd_places(stdout, new, d->new);
		putchar(')');
	}
	putchar('\n');
}

/* The places of an id as a JSON array of "module:function". */
static struct json_object *kprint_sd_places_json(const struct kpc_sites *s,
						 const struct kpc_site *first)
{
	struct json_object *arr = json_object_new_array();
	const struct kpc_site *e;
	char buf[512];

	for (e = first; arr && e < s->v + s->n && e->format_id == first->format_id; e++) {
		snprintf(buf, sizeof(buf), "%s%s%s", e->module, e->function ? ":" : "",
			 e->function ? e->function : "");
		if (json_object_array_add(arr, kpc_json_string(buf))) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

/*
 * key: val, or key: null when @present is false; false when the object
 * could not be made (out of memory), as kpc_json_add().
 */
static bool kprint_sd_add(struct json_object *obj, const char *key, bool present,
			  struct json_object *val)
{
	if (present)
		return kpc_json_add(obj, key, val);
	return !json_object_object_add(obj, key, NULL);
}

static struct json_object *kprint_sd_id_json(const struct kpc_site *e)
{
	char buf[17];

	kprint_sd_id(buf, e);
	return json_object_new_string(buf);
}

static struct json_object *kprint_sd_json(const struct kpc_sites *old, const struct kpc_sites *new,
					  const struct kpc_sites_delta *d)
{
	struct json_object *obj = json_object_new_object();
	const char *fn = kpc_sites_delta_function(d);
	const struct kpc_site *o = d->old, *n = d->new;
	bool ok = obj;

	ok = ok && kpc_json_add(obj, "change",
				json_object_new_string(kpc_sites_change_name(d->change)));
	ok = ok && kprint_sd_add(obj, "old_id", o, o ? kprint_sd_id_json(o) : NULL);
	ok = ok && kprint_sd_add(obj, "new_id", n, n ? kprint_sd_id_json(n) : NULL);
	ok = ok && kprint_sd_add(obj, "old_format", o, o ? kpc_json_string(o->format) : NULL);
	ok = ok && kprint_sd_add(obj, "new_format", n, n ? kpc_json_string(n->format) : NULL);
	ok = ok && kpc_json_add(obj, "module", kpc_json_string(kpc_sites_delta_module(d)));
	ok = ok && kprint_sd_add(obj, "function", fn, fn ? kpc_json_string(fn) : NULL);
	if (d->change == KPC_SITES_CHANGED) {
		char sim[16];

		/* Three decimals, as the text shows two: not 0.81481481481481488. */
		snprintf(sim, sizeof(sim), "%.3f", d->similarity);
		ok = ok && kpc_json_add(obj, "similarity", json_object_new_double_s(d->similarity, sim));
	}
	if (d->change == KPC_SITES_MOVED) {
		ok = ok && kpc_json_add(obj, "old_places", kprint_sd_places_json(old, o));
		ok = ok && kpc_json_add(obj, "new_places", kprint_sd_places_json(new, n));
	}
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

/* Distinct ids of a catalog: its entries are sorted by id. */
static size_t kprint_sd_ids(const struct kpc_sites *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += !i || s->v[i].format_id != s->v[i - 1].format_id;
	return n;
}

/* The counts of one module's changes, the modules with most first. */
struct kprint_sd_module {
	const char *module;
	size_t count[KPC_SITES_CHANGE_MAX], total;
};

static int kprint_sd_module_cmp(const void *pa, const void *pb)
{
	const struct kprint_sd_module *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->module, b->module);
}

/* Per module (the changes come ordered by module); *n set. */
static struct kprint_sd_module *kprint_sd_modules(const struct kpc_sites_diff *d, size_t *n)
{
	struct kprint_sd_module *m = calloc(d->n + 1, sizeof(*m));
	size_t i;

	*n = 0;
	if (!m)
		return NULL;
	for (i = 0; i < d->n; i++) {
		const char *mod = kpc_sites_delta_module(&d->v[i]);

		if (!*n || strcmp(m[*n - 1].module, mod))
			m[(*n)++].module = mod;
		m[*n - 1].count[d->v[i].change]++;
		m[*n - 1].total++;
	}
	qsort(m, *n, sizeof(*m), kprint_sd_module_cmp);
	return m;
}

static struct json_object *kprint_sd_counts_json(const size_t count[KPC_SITES_CHANGE_MAX])
{
	struct json_object *obj = json_object_new_object();
	enum kpc_sites_change c;
	bool ok = obj;

	for (c = 0; c < KPC_SITES_CHANGE_MAX; c++)
		ok = ok && kpc_json_add(obj, kpc_sites_change_name(c),
					json_object_new_uint64(count[c]));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

static const char *kprint_sd_name(const struct kpc_sites *s, const char *arg)
{
	return s->kernel ? s->kernel : arg;
}

/* After the changes: per module, then the totals. */
static int kprint_sd_summary(const struct kprint_opts *o, const struct kpc_sites_diff *d,
			     const struct kpc_sites *old, const struct kpc_sites *new,
			     const char *old_name, const char *new_name)
{
	struct json_object *obj, *mods;
	struct kprint_sd_module *m;
	size_t n, i;
	bool ok;

	m = kprint_sd_modules(d, &n);
	if (!m)
		return -ENOMEM;
	if (o->json) {
		obj = kprint_sd_counts_json(d->count);
		mods = json_object_new_object();
		ok = obj && mods;
		for (i = 0; ok && i < n; i++)
			ok = kpc_json_add(mods, m[i].module, kprint_sd_counts_json(m[i].count));
		free(m);
		ok = ok && kpc_json_add(obj, "old", kpc_json_string(old_name));
		ok = ok && kpc_json_add(obj, "new", kpc_json_string(new_name));
		ok = ok && kpc_json_add(obj, "unchanged", json_object_new_uint64(d->unchanged));
		ok = ok && kpc_json_add(obj, "old_formats", json_object_new_uint64(kprint_sd_ids(old)));
		ok = ok && kpc_json_add(obj, "new_formats", json_object_new_uint64(kprint_sd_ids(new)));
		if (ok)
			ok = kpc_json_add(obj, "modules", mods);
		else
			json_object_put(mods);
		if (!ok) {
			json_object_put(obj);
			return -ENOMEM;
		}
		return kpc_json_print_put(stdout, obj);
	}
	for (i = 0; i < n; i++)
		printf("# %s: %zu added, %zu removed, %zu changed, %zu moved\n", m[i].module,
		       m[i].count[KPC_SITES_ADDED], m[i].count[KPC_SITES_REMOVED],
		       m[i].count[KPC_SITES_CHANGED], m[i].count[KPC_SITES_MOVED]);
	printf("# %s -> %s: %zu added, %zu removed, %zu changed, %zu moved; %zu unchanged"
	       " (of %zu and %zu formats)\n", old_name, new_name, d->count[KPC_SITES_ADDED],
	       d->count[KPC_SITES_REMOVED], d->count[KPC_SITES_CHANGED],
	       d->count[KPC_SITES_MOVED], d->unchanged, kprint_sd_ids(old), kprint_sd_ids(new));
	free(m);
	return 0;
}

/* One rule's id that NEW no longer prints: where, and what became of it. */
static int kprint_sd_rule_hit(const struct kprint_opts *o, const struct kpc_sites_rules *r,
			      const struct kpc_sites_rule_ref *ref, const struct kpc_sites_delta *d,
			      const char *new_name)
{
	const char *fn = d->old->function;
	struct json_object *obj;
	bool ok;

	if (o->json) {
		obj = json_object_new_object();
		ok = obj && kpc_json_add(obj, "file", kpc_json_string(r->path));
		ok = ok && kpc_json_add(obj, "line", json_object_new_uint64(ref->line));
		ok = ok && kpc_json_add(obj, "rule", kpc_json_string(ref->rule));
		ok = ok && kpc_json_add(obj, "kind", json_object_new_string(ref->kind));
		ok = ok && kpc_json_add(obj, "change",
					json_object_new_string(kpc_sites_change_name(d->change)));
		ok = ok && kpc_json_add(obj, "old_id", kprint_sd_id_json(d->old));
		ok = ok && kpc_json_add(obj, "old_format", kpc_json_string(d->old->format));
		ok = ok && kpc_json_add(obj, "module", kpc_json_string(d->old->module));
		ok = ok && kprint_sd_add(obj, "function", fn, fn ? kpc_json_string(fn) : NULL);
		ok = ok && kprint_sd_add(obj, "new_id", d->new, d->new ? kprint_sd_id_json(d->new) : NULL);
		ok = ok && kprint_sd_add(obj, "new_format", d->new,
					 d->new ? kpc_json_string(d->new->format) : NULL);
		if (!ok)
			json_object_put(obj);
		return kpc_json_print_put(stdout, ok ? obj : NULL);
	}
	printf("%s:%u: %s ", r->path, ref->line, ref->kind);
	kpc_text_escape(stdout, ref->rule, o->text.utf8);
	printf(": format_id %016" PRIx64 " ", ref->format_id);
	kprint_sd_format(o, d->old->format);
	printf(" (%s %s) is not printed by %s: ", d->old->module, fn ? fn : "-", new_name);
	if (d->change == KPC_SITES_CHANGED) {
		printf("changed to %016" PRIx64 " ", d->new->format_id);
		kprint_sd_format(o, d->new->format);
		putchar('\n');
	} else {
		puts("removed");
	}
	return 0;
}

/*
 * The ids of neither catalog are counted apart: an out-of-tree module's,
 * kprint's own API's, or a typo.
 */
static int kprint_sd_rules_summary(const struct kprint_opts *o, const struct kpc_sites_rules *r,
				   const char *new_name, size_t gone, size_t unknown)
{
	struct json_object *obj;
	bool ok;

	if (!o->json) {
		printf("# %s: %zu format id%s named, %zu no longer printed by %s, %zu in neither"
		       " catalog, %zu regex alternative%s not a literal id\n", r->path, r->n,
		       r->n == 1 ? "" : "s", gone, new_name, unknown, r->not_literal,
		       r->not_literal == 1 ? "" : "s");
		return 0;
	}
	obj = json_object_new_object();
	ok = obj && kpc_json_add(obj, "rules", kpc_json_string(r->path));
	ok = ok && kpc_json_add(obj, "new", kpc_json_string(new_name));
	ok = ok && kpc_json_add(obj, "named", json_object_new_uint64(r->n));
	ok = ok && kpc_json_add(obj, "gone", json_object_new_uint64(gone));
	ok = ok && kpc_json_add(obj, "unknown", json_object_new_uint64(unknown));
	ok = ok && kpc_json_add(obj, "not_literal", json_object_new_uint64(r->not_literal));
	if (!ok)
		json_object_put(obj);
	return kpc_json_print_put(stdout, ok ? obj : NULL);
}

/* --rules: the ids the file names that NEW no longer prints.  *gone: how many. */
static int kprint_sd_rules(const struct kprint_opts *o, const struct kpc_sites_diff *d,
			   const struct kpc_sites *old, const struct kpc_sites *new,
			   const struct kpc_sites_rules *r, const char *new_name, size_t *gone)
{
	size_t i, unknown = 0;
	int err = 0;

	*gone = 0;
	for (i = 0; !err && i < r->n; i++) {
		const struct kpc_sites_delta *x = kpc_sites_diff_gone(d, r->v[i].format_id);

		if (!kpc_sites_find(old, r->v[i].format_id) && !kpc_sites_find(new, r->v[i].format_id))
			unknown++;
		if (!x)
			continue;
		(*gone)++;
		err = kprint_sd_rule_hit(o, r, &r->v[i], x, new_name);
	}
	if (err)
		return err;
	return kprint_sd_rules_summary(o, r, new_name, *gone, unknown);
}

static int kprint_sd_run(struct kprint_opts *o, const struct kpc_sites *old,
			 const struct kpc_sites *new, const char **name,
			 const struct kpc_sites_rules *rules)
{
	struct kpc_sites_diff d;
	size_t i, gone = 0;
	int err;

	err = kpc_sites_diff(old, new, &d);
	if (err)
		return err;
	if (rules) {
		err = kprint_sd_rules(o, &d, old, new, rules, name[1], &gone);
		kpc_sites_diff_free(&d);
		return err ? err : gone ? 1 : 0;
	}
	for (i = 0; !err && i < d.n; i++) {
		if (o->json)
			err = kpc_json_print_put(stdout, kprint_sd_json(old, new, &d.v[i]));
		else
			kprint_sd_text(o, old, new, &d.v[i]);
	}
	if (!err)
		err = kprint_sd_summary(o, &d, old, new, name[0], name[1]);
	kpc_sites_diff_free(&d);
	return err;
}

int kprint_cmd_sites_diff(struct kprint_opts *o, int argc, char **argv)
{
	struct kpc_sites old = { 0 }, new = { 0 };
	struct kpc_sites_rules rules = { 0 };
	const char *arg[2], *name[2];
	char why[512];
	int ret, n;

	ret = kprint_parse_operands(o, argc, argv, kprint_sites_diff_options,
				    kprint_sites_diff_opt, arg, 2, &n);
	if (ret >= 0)
		return ret;
	if (n != 2)
		return kprint_usage_error("sites diff takes OLD and NEW (releases or catalog files)%s",
					  "");
	if (kprint_sites_diff_args.rules &&
	    kpc_sites_rules_load(kprint_sites_diff_args.rules, &rules, why, sizeof(why))) {
		fprintf(stderr, "kprint: sites diff --rules: %s\n", why);
		return KPRINT_EXIT_ERROR;
	}
	ret = kprint_sites_open(arg[0], kprint_sites_diff_args.dir, &old);
	if (!ret)
		ret = kprint_sites_open(arg[1], kprint_sites_diff_args.dir, &new);
	if (!ret) {
		name[0] = kprint_sd_name(&old, arg[0]);
		name[1] = kprint_sd_name(&new, arg[1]);
		ret = kprint_sd_run(o, &old, &new, name,
				    kprint_sites_diff_args.rules ? &rules : NULL);
		fflush(stdout);
		if (ret < 0) {
			fprintf(stderr, "kprint: sites diff: %s\n", strerror(-ret));
			ret = KPRINT_EXIT_ERROR;
		} else if (ret) {
			ret = KPRINT_EXIT_ERROR;
		}
	}
	kpc_sites_free(&old);
	kpc_sites_free(&new);
	kpc_sites_rules_free(&rules);
	return ret;
}
