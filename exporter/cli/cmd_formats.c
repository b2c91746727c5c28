// SPDX-License-Identifier: GPL-2.0
/*
 * kprint formats: the top message formats by count, from the in-kernel BPF
 * counters, each as used at one level and class by one module and
 * subsystem; with --ratelimit, the calls ___ratelimit() suppressed, per
 * ratelimit state and caller.  Loads and attaches the counters (pinned) the
 * first time; afterwards it only reads what they counted.  Formats are
 * shown raw (unescaped from the maps), as records show them.  With --pot,
 * every format counted as a gettext template (kpc_catalog.h); with --pot
 * --sites, every format of a kernel's call-site catalog, counted or not.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kprint.h"

enum {
	KPRINT_OPT_FMT_SOURCE = KPRINT_OPT_PRIVATE,
	KPRINT_OPT_FMT_TOP,
	KPRINT_OPT_FMT_PIN_DIR,
	KPRINT_OPT_FMT_MAX_FORMATS,
	KPRINT_OPT_FMT_UNLOAD,
	KPRINT_OPT_FMT_RATELIMIT,
	KPRINT_OPT_FMT_POT,
	KPRINT_OPT_FMT_SITES,
};

static const struct option kprint_formats_options[] = {
	{ "source",	 required_argument,	NULL, KPRINT_OPT_FMT_SOURCE },
	{ "top",	 required_argument,	NULL, KPRINT_OPT_FMT_TOP },
	{ "pin-dir",	 required_argument,	NULL, KPRINT_OPT_FMT_PIN_DIR },
	{ "max-formats", required_argument,	NULL, KPRINT_OPT_FMT_MAX_FORMATS },
	{ "unload",	 no_argument,		NULL, KPRINT_OPT_FMT_UNLOAD },
	{ "ratelimit",	 no_argument,		NULL, KPRINT_OPT_FMT_RATELIMIT },
	{ "pot",	 no_argument,		NULL, KPRINT_OPT_FMT_POT },
	{ "sites",	 optional_argument,	NULL, KPRINT_OPT_FMT_SITES },
	{ NULL, 0, NULL, 0 },
};

static struct {
	bool want[KPC_BPF_NR_SOURCES];
	unsigned long top;
	struct kpc_bpf_opts bpf;
	bool unload;
	bool ratelimit;
	bool pot;
	bool sites;
	const char *sites_arg;		/* --sites REL or FILE; NULL: the running kernel */
} kprint_formats_args = { .want = { true, true }, .top = 20 };

static int kprint_formats_opt(struct kprint_opts *o, int opt, const char *arg)
{
	uint64_t v;

	(void)o;
	switch (opt) {
	case KPRINT_OPT_FMT_SOURCE:
		kprint_formats_args.want[KPC_BPF_KPRINT] = !strcmp(arg, "kprint") || !strcmp(arg, "all");
		kprint_formats_args.want[KPC_BPF_PRINTK] = !strcmp(arg, "printk") || !strcmp(arg, "all");
		if (kprint_formats_args.want[KPC_BPF_KPRINT] || kprint_formats_args.want[KPC_BPF_PRINTK])
			return 0;
		fprintf(stderr, "kprint: --source is kprint, printk or all, not '%s'\n", arg);
		return KPRINT_EXIT_USAGE;
	case KPRINT_OPT_FMT_TOP:
		if (kpc_parse_u64(arg, 10, ULONG_MAX, &v)) {
			fprintf(stderr, "kprint: --top wants a number (0: all), not '%s'\n", arg);
			return KPRINT_EXIT_USAGE;
		}
		kprint_formats_args.top = v;
		return 0;
	case KPRINT_OPT_FMT_PIN_DIR:
		kprint_formats_args.bpf.pin_dir = arg;
		return 0;
	case KPRINT_OPT_FMT_MAX_FORMATS:
		if (kpc_parse_u64(arg, 10, UINT_MAX, &v) || !v) {
			fprintf(stderr, "kprint: --max-formats wants a positive number, not '%s'\n", arg);
			return KPRINT_EXIT_USAGE;
		}
		kprint_formats_args.bpf.max_formats = v;
		return 0;
	case KPRINT_OPT_FMT_UNLOAD:
		kprint_formats_args.unload = true;
		return 0;
	case KPRINT_OPT_FMT_RATELIMIT:
		kprint_formats_args.ratelimit = true;
		return 0;
	case KPRINT_OPT_FMT_POT:
		kprint_formats_args.pot = true;
		return 0;
	case KPRINT_OPT_FMT_SITES:
		kprint_formats_args.sites = true;
		kprint_formats_args.sites_arg = arg;
		return 0;
	}
	return KPRINT_EXIT_USAGE;
}

static int kprint_formats_cmp(const void *a, const void *b)
{
	const struct kpc_format_count *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	c = strcmp(x->format, y->format);
	if (!c)
		c = strcmp(x->module, y->module);
	if (!c)
		c = strcmp(x->subsystem, y->subsystem);
	if (!c && x->level != y->level)
		c = x->level < y->level ? -1 : 1;
	if (!c && x->class != y->class)
		c = x->class < y->class ? -1 : 1;
	return c;
}

static int kprint_formats_json(enum kpc_bpf_source src, const struct kpc_format_count *f)
{
	return kpc_json_print_put(stdout, kpc_json_format_count(src, f));
}

/* s escaped like a record's text, padded to width; "-" when empty. */
static void kprint_formats_column(const struct kprint_opts *o, const char *s, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *col;

	col = open_memstream(&buf, &len);
	if (col) {
		kpc_text_escape(col, *s ? s : "-", o->text.utf8);
		if (fclose(col))
			len = 0;
	}
	if (buf && len)
		printf("%-*s  ", width, buf);
	else
		printf("%-*s  ", width, "?");
	free(buf);
}

static void kprint_formats_text(const struct kprint_opts *o, enum kpc_bpf_source src,
				const struct kpc_format_count *f)
{
	const char *level = kpc_level_name(f->level), *class = kpc_class_name(f->class);

	printf("%12" PRIu64 "  %-6s  %-6s  %-10s  %016" PRIx64 "  ", f->count,
	       kpc_bpf_source_name(src), level ? level : "?", class ? class : "?",
	       f->format_id);
	kprint_formats_column(o, f->module, 14);
	kprint_formats_column(o, f->subsystem, 14);
	kpc_text_escape(stdout, f->format, o->text.utf8);
	putchar('\n');
}

/* Totals and overflow, so that what was not counted per format shows. */
static int kprint_formats_summary(const struct kprint_opts *o, enum kpc_bpf_source src,
				  const struct kprint_counter_totals *t, size_t formats,
				  unsigned int max, const struct kpc_bpf_hook_status *st)
{
	const struct kprint_counter_failures *f = kpc_bpf_failures(t, src);

	if (o->json)
		return kpc_json_print_put(stdout,
					  kpc_json_format_summary(src, t, formats, max, st));
	printf("# %s: %" PRIu64 " messages, %zu of at most %u formats, %" PRIu64
	       " not counted per format (map full %" PRIu64 ", busy %" PRIu64 ", no memory %"
	       PRIu64 ", other %" PRIu64, kpc_bpf_source_name(src), kpc_bpf_seen(t, src),
	       formats, max, kpc_bpf_not_counted(t, src), (uint64_t)f->full, (uint64_t)f->busy,
	       (uint64_t)f->nomem, (uint64_t)f->other);
	if (src == KPC_BPF_PRINTK)
		printf(", unreadable %" PRIu64 "); %" PRIu64 " under the plain key, %" PRIu64
		       " under the bridge's (%" PRIu64 " after a task switch), %" PRIu64
		       " kprint's echo (counted as its records); handoffs torn %" PRIu64,
		       (uint64_t)t->printk_unreadable, (uint64_t)t->printk_plain,
		       (uint64_t)t->printk_bridged, (uint64_t)t->handoff_switched,
		       (uint64_t)t->printk_echo, (uint64_t)t->handoff_torn);
	else
		putchar(')');
	printf("%s%s\n", st->attached ? "" : "; NOT COUNTING: ", st->attached ? "" : st->why);
	return 0;
}

static int kprint_ratelimit_cmp(const void *a, const void *b)
{
	const struct kpc_ratelimit_count *x = a, *y = b;
	int c;

	if (x->suppressed != y->suppressed)
		return x->suppressed < y->suppressed ? 1 : -1;
	c = strcmp(x->func, y->func);
	if (!c && x->state != y->state)
		c = x->state < y->state ? -1 : 1;
	return c;
}

static struct json_object *kprint_ratelimit_json(const struct kpc_ratelimit_count *r)
{
	struct json_object *obj = json_object_new_object();
	char state[19];
	bool ok = obj;

	snprintf(state, sizeof(state), "%016" PRIx64, r->state);
	ok = ok && kpc_json_add(obj, "function", kpc_json_string(r->func));
	ok = ok && kpc_json_add(obj, "state", json_object_new_string(state));
	ok = ok && kpc_json_add(obj, "suppressed", json_object_new_uint64(r->suppressed));
	ok = ok && kpc_json_add(obj, "burst", json_object_new_int64(r->burst));
	ok = ok && kpc_json_add(obj, "interval_jiffies", json_object_new_int64(r->interval_jiffies));
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

static struct json_object *kprint_ratelimit_summary_json(const struct kprint_counter_totals *t,
							 size_t states, struct kpc_bpf *b)
{
	enum kpc_bpf_hook hook = kpc_bpf_ratelimit_hook(b), other = kpc_bpf_ratelimit_other(b);
	const struct kpc_bpf_hook_status *st = kpc_bpf_hook_status(b, hook);
	const struct kprint_counter_failures *f = &t->ratelimit_failed;
	struct json_object *obj = json_object_new_object(), *fo = json_object_new_object();
	bool ok = obj && fo;

	ok = ok && kpc_json_add(fo, "full", json_object_new_uint64(f->full));
	ok = ok && kpc_json_add(fo, "busy", json_object_new_uint64(f->busy));
	ok = ok && kpc_json_add(fo, "nomem", json_object_new_uint64(f->nomem));
	ok = ok && kpc_json_add(fo, "other", json_object_new_uint64(f->other));
	ok = ok && kpc_json_add(obj, "ratelimit_calls", json_object_new_uint64(t->ratelimit_calls));
	ok = ok && kpc_json_add(obj, "suppressed", json_object_new_uint64(t->ratelimit_suppressed));
	ok = ok && kpc_json_add(obj, "unmatched", json_object_new_uint64(t->ratelimit_unmatched));
	ok = ok && kpc_json_add(obj, "failed", fo);
	fo = NULL;
	ok = ok && kpc_json_add(obj, "states", json_object_new_uint64(states));
	ok = ok && kpc_json_add(obj, "hook", json_object_new_string(kpc_bpf_hook_name(hook)));
	ok = ok && kpc_json_add(obj, "attached", json_object_new_boolean(st->attached));
	if (!st->attached)
		ok = ok && kpc_json_add(obj, "skipped", kpc_json_string(st->why));
	/* The other way, and why it is off: one of them counts, never both. */
	ok = ok && kpc_json_add(obj, "other_hook", json_object_new_string(kpc_bpf_hook_name(other)));
	ok = ok && kpc_json_add(obj, "other_skipped",
				kpc_json_string(kpc_bpf_hook_status(b, other)->why));
	json_object_put(fo);
	if (!ok) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

/* --ratelimit: the suppressed calls per ratelimit state and caller. */
static int kprint_ratelimit_show(const struct kprint_opts *o, struct kpc_bpf *b)
{
	enum kpc_bpf_hook hook = kpc_bpf_ratelimit_hook(b);
	const struct kpc_bpf_hook_status *st = kpc_bpf_hook_status(b, hook);
	struct kprint_counter_totals t;
	struct kpc_ratelimit_count *r;
	size_t n, i;
	int err;

	err = kpc_bpf_totals(b, &t);
	if (!err)
		err = kpc_bpf_ratelimits(b, &r, &n);
	if (err)
		return err;
	qsort(r, n, sizeof(*r), kprint_ratelimit_cmp);
	if (!o->json)
		printf("%12s  %5s  %8s  %-16s  %s\n", "SUPPRESSED", "BURST", "INTERVAL", "STATE",
		       "FUNCTION");
	for (i = 0; i < n && !err; i++) {
		if (kprint_formats_args.top && i >= kprint_formats_args.top)
			break;
		if (o->json) {
			err = kpc_json_print_put(stdout, kprint_ratelimit_json(&r[i]));
			continue;
		}
		printf("%12" PRIu64 "  %5u  %7uj  %016" PRIx64 "  ", r[i].suppressed, r[i].burst,
		       r[i].interval_jiffies, r[i].state);
		kpc_text_escape(stdout, r[i].func, o->text.utf8);
		putchar('\n');
	}
	if (!err && o->json)
		err = kpc_json_print_put(stdout, kprint_ratelimit_summary_json(&t, n, b));
	else if (!err)
		printf("# ratelimit (%s): %" PRIu64 " suppressed, %zu states, %" PRIu64
		       " not counted per state; %" PRIu64 " calls seen, %" PRIu64
		       " without their arguments (direct hook only)%s%s\n",
		       kpc_bpf_hook_name(hook), (uint64_t)t.ratelimit_suppressed, n,
		       kpc_bpf_failures_sum(&t.ratelimit_failed), (uint64_t)t.ratelimit_calls,
		       (uint64_t)t.ratelimit_unmatched,
		       st->attached ? "" : "; NOT COUNTING: ", st->attached ? "" : st->why);
	free(r);
	return err;
}

static int kprint_formats_show(const struct kprint_opts *o, struct kpc_bpf *b)
{
	struct kprint_counter_totals t;
	struct kpc_format_count *f;
	enum kpc_bpf_source src;
	size_t n, i;
	int err;

	err = kpc_bpf_totals(b, &t);
	if (err)
		return err;
	if (!o->json)
		printf("%12s  %-6s  %-6s  %-10s  %-16s  %-14s  %-14s  %s\n", "COUNT", "SOURCE",
		       "LEVEL", "CLASS", "FORMAT_ID", "MODULE", "SUBSYSTEM", "FORMAT");
	for (src = 0; src < KPC_BPF_NR_SOURCES; src++) {
		if (!kprint_formats_args.want[src])
			continue;
		err = kpc_bpf_read(b, src, &f, &n);
		if (err)
			return err;
		qsort(f, n, sizeof(*f), kprint_formats_cmp);
		for (i = 0; i < n && !err; i++) {
			if (kprint_formats_args.top && i >= kprint_formats_args.top)
				break;
			if (o->json)
				err = kprint_formats_json(src, &f[i]);
			else
				kprint_formats_text(o, src, &f[i]);
		}
		if (!err)
			err = kprint_formats_summary(o, src, &t, n, kpc_bpf_max_formats(b),
						     kpc_bpf_status(b, src));
		free(f);
		if (err)
			return err;
	}
	return 0;
}

/* A format's length as a msgid: without one trailing newline. */
static size_t kprint_pot_len(const char *format)
{
	size_t len = strlen(format);

	return len && format[len - 1] == '\n' ? len - 1 : len;
}

static int kprint_pot_cmp(const void *a, const void *b)
{
	const struct kpc_format_count *x = a, *y = b;
	size_t lx = kprint_pot_len(x->format), ly = kprint_pot_len(y->format);
	int c = memcmp(x->format, y->format, lx < ly ? lx : ly);

	if (!c && lx != ly)
		c = lx < ly ? -1 : 1;
	if (!c)
		c = strcmp(x->module, y->module);
	if (!c)
		c = strcmp(x->subsystem, y->subsystem);
	return c;
}

/*
 * A map entry whose format was cut (the map keeps 255 escaped bytes, see
 * docs/bpf-counters.md): the whole format's id is not that of what the map
 * holds.  A cut msgid would match no record.
 */
static bool kprint_pot_cut(const struct kpc_format_count *f)
{
	char whole[KPRINT_COUNTER_FORMAT_LEN];
	size_t len = strlen(f->format);

	if (len >= KPRINT_COUNTER_FORMAT_LEN - 1)
		return true;
	if (kpc_format_id(f->format) == f->format_id)
		return false;
	memcpy(whole, f->format, len + 1);
	if (len && whole[len - 1] == '\n') {
		whole[len - 1] = '\0';
		return kpc_format_id(whole) != f->format_id;
	}
	return true;
}

/* The formats a template leaves out: named with -v, counted at the end. */
struct kprint_pot_left {
	const struct kprint_opts *o;
	size_t n;
};

static void kprint_pot_left(void *ctx, const char *format, const char *why)
{
	struct kprint_pot_left *left = ctx;

	left->n++;
	if (!left->o->verbose)
		return;
	fputs("kprint: formats --pot: left out \"", stderr);
	kpc_text_escape(stderr, format, left->o->text.utf8);
	fprintf(stderr, "\": %s\n", why);
}

static void kprint_pot_left_summary(const struct kprint_pot_left *left)
{
	if (left->n)
		fprintf(stderr, "kprint: formats --pot: left out %zu format%s that no catalog could"
			" translate (empty, cut, not UTF-8 or not a valid kernel format; -v names"
			" them)\n", left->n, left->n == 1 ? "" : "s");
}

/*
 * --pot --sites: every format of a kernel's call-site catalog, whether the
 * counters saw it or not (kpc_catalog_pot_sites()).
 */
static int kprint_pot_sites(const struct kprint_opts *o)
{
	struct kprint_pot_left left = { .o = o };
	struct kpc_sites s = { 0 };
	int ret, err;

	ret = kprint_sites_open(kprint_formats_args.sites_arg, NULL, &s);
	if (ret)
		return ret;
	err = kpc_catalog_pot_sites(stdout, &s, time(NULL), kprint_pot_left, &left);
	if (!err)
		kprint_pot_left_summary(&left);
	if (!err && fflush(stdout))
		err = -errno;
	kpc_sites_free(&s);
	if (err) {
		fprintf(stderr, "kprint: formats --pot --sites: %s\n", strerror(-err));
		return KPRINT_EXIT_ERROR;
	}
	return KPRINT_EXIT_OK;
}

/*
 * --pot: every format the counters hold (of the --source wanted), once,
 * as a POT entry: "#." how often it was counted and from which
 * subsystems, "#:" the modules that said it.  Formats no catalog could
 * translate are left out and said so on stderr.
 */
static int kprint_pot_show(const struct kprint_opts *o, struct kpc_bpf *b)
{
	struct kpc_format_count *all = NULL, *f, *grown;
	struct kprint_pot_left left = { .o = o };
	char comment[512], refs[512], why[256];
	size_t n = 0, m, i, j;
	enum kpc_bpf_source src;
	uint64_t count;
	int err;

	for (src = 0; src < KPC_BPF_NR_SOURCES; src++) {
		if (!kprint_formats_args.want[src])
			continue;
		err = kpc_bpf_read(b, src, &f, &m);
		if (err)
			goto out;
		grown = realloc(all, (n + m) * sizeof(*all) + 1);
		if (!grown) {
			free(f);
			err = -ENOMEM;
			goto out;
		}
		all = grown;
		memcpy(all + n, f, m * sizeof(*f));
		n += m;
		free(f);
	}
	qsort(all, n, sizeof(*all), kprint_pot_cmp);

	err = kpc_catalog_pot_header(stdout, time(NULL));
	for (i = 0; i < n && !err; i = j) {
		count = 0;
		refs[0] = comment[0] = '\0';
		for (j = i; j < n && kprint_pot_len(all[j].format) == kprint_pot_len(all[i].format) &&
		     !memcmp(all[j].format, all[i].format, kprint_pot_len(all[i].format)); j++) {
			count += all[j].count;
			if (kpc_catalog_pot_tag(all[j].module))
				kpc_catalog_pot_list_add(refs, sizeof(refs), " ", all[j].module);
			if (kpc_catalog_pot_tag(all[j].subsystem))
				kpc_catalog_pot_list_add(comment, sizeof(comment), ", ",
							 all[j].subsystem);
		}
		if (kprint_pot_cut(&all[i])) {
			snprintf(why, sizeof(why), "cut in the BPF map (longer than it keeps)");
			err = -EINVAL;
		} else {
			char line[640];

			snprintf(line, sizeof(line), "kprint: counted %" PRIu64 " time%s%s%s", count,
				 count == 1 ? "" : "s", *comment ? "; subsystems " : "", comment);
			err = kpc_catalog_pot_entry(stdout, all[i].format, line, refs, why,
						    sizeof(why));
		}
		if (err == -EINVAL) {
			kprint_pot_left(&left, all[i].format, why);
			err = 0;
		}
	}
	if (!err)
		kprint_pot_left_summary(&left);
out:
	free(all);
	return err;
}

int kprint_cmd_formats(struct kprint_opts *o, int argc, char **argv)
{
	const char *operand;
	struct kpc_bpf *b;
	int ret, err, n;

	/* --sites takes its REL or FILE as --sites=REL or as the one operand. */
	ret = kprint_parse_operands(o, argc, argv, kprint_formats_options, kprint_formats_opt,
				    &operand, 1, &n);
	if (ret >= 0)
		return ret;
	if (n && (!kprint_formats_args.sites || kprint_formats_args.sites_arg)) {
		fprintf(stderr, "kprint: formats takes no arguments ('%s')\n", operand);
		return KPRINT_EXIT_USAGE;
	}
	if (n)
		kprint_formats_args.sites_arg = operand;
	if (kprint_formats_args.sites && !kprint_formats_args.pot)
		return kprint_usage_error("--sites%s writes a template: it goes with --pot", "");
	ret = KPRINT_EXIT_OK;
	if (kprint_formats_args.pot && (o->json || kprint_formats_args.ratelimit ||
					kprint_formats_args.unload)) {
		fprintf(stderr, "kprint: formats --pot writes a POT template: not with --json,"
			" --ratelimit or --unload\n");
		return KPRINT_EXIT_USAGE;
	}
	if (kprint_formats_args.sites)
		return kprint_pot_sites(o);

	if (kprint_formats_args.unload) {
		err = kpc_bpf_unload(kprint_formats_args.bpf.pin_dir);
		if (err)
			return kprint_fail(KPRINT_ACT_COUNT, "unload the BPF counters", err, NULL);
		return KPRINT_EXIT_OK;
	}

	err = kpc_bpf_open(&kprint_formats_args.bpf, &b);
	if (err == -ESTALE) {
		fprintf(stderr, "kprint: the counters pinned in %s have an older layout; "
			"'kprint formats --unload%s%s' removes them (their counts are lost)\n",
			kprint_formats_args.bpf.pin_dir ?: KPRINT_COUNTER_PIN_DIR,
			kprint_formats_args.bpf.pin_dir ? " --pin-dir " : "",
			kprint_formats_args.bpf.pin_dir ?: "");
		return KPRINT_EXIT_ERROR;
	}
	if (err)
		return kprint_fail(KPRINT_ACT_COUNT, "load the BPF counters", err, NULL);
	if (kprint_formats_args.pot)
		err = kprint_pot_show(o, b);
	else if (kprint_formats_args.ratelimit)
		err = kprint_ratelimit_show(o, b);
	else
		err = kprint_formats_show(o, b);
	fflush(stdout);
	if (err)
		ret = kprint_fail(KPRINT_ACT_COUNT, "read the BPF counters", err, NULL);
	kpc_bpf_close(b);
	return ret;
}
