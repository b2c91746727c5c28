// SPDX-License-Identifier: GPL-2.0
/*
 * kprint formats: the top message formats by count, from the in-kernel BPF
 * counters, each as used at one level and class by one module and
 * subsystem.  Loads and attaches the counters (pinned) the first time;
 * afterwards it only reads what they counted.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprint.h"
#include "kpc_bpf.h"

enum {
	KPRINT_OPT_FMT_SOURCE = KPRINT_OPT_PRIVATE,
	KPRINT_OPT_FMT_TOP,
	KPRINT_OPT_FMT_PIN_DIR,
	KPRINT_OPT_FMT_MAX_FORMATS,
	KPRINT_OPT_FMT_UNLOAD,
};

static const struct option kprint_formats_options[] = {
	{ "source",	 required_argument,	NULL, KPRINT_OPT_FMT_SOURCE },
	{ "top",	 required_argument,	NULL, KPRINT_OPT_FMT_TOP },
	{ "pin-dir",	 required_argument,	NULL, KPRINT_OPT_FMT_PIN_DIR },
	{ "max-formats", required_argument,	NULL, KPRINT_OPT_FMT_MAX_FORMATS },
	{ "unload",	 no_argument,		NULL, KPRINT_OPT_FMT_UNLOAD },
	{ NULL, 0, NULL, 0 },
};

static struct {
	bool want[KPC_BPF_NR_SOURCES];
	unsigned long top;
	struct kpc_bpf_opts bpf;
	bool unload;
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
	uint64_t seen = src == KPC_BPF_KPRINT ? t->kprint_records : t->printk_calls;
	uint64_t overflow = src == KPC_BPF_KPRINT ? t->kprint_overflow : t->printk_overflow;

	if (!o->json) {
		printf("# %s: %" PRIu64 " messages, %zu of at most %u formats, %" PRIu64
		       " not counted per format (map full)%s%s\n",
		       kpc_bpf_source_name(src), seen, formats, max, overflow,
		       st->attached ? "" : "; NOT COUNTING: ", st->attached ? "" : st->why);
		return 0;
	}
	return kpc_json_print_put(stdout, kpc_json_format_summary(src, t, formats, max, st));
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

int kprint_cmd_formats(struct kprint_opts *o, int argc, char **argv)
{
	struct kpc_bpf *b;
	int ret, err;

	ret = kprint_parse_options_only(o, argc, argv, "formats", kprint_formats_options, kprint_formats_opt);
	if (ret >= 0)
		return ret;
	ret = KPRINT_EXIT_OK;

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
	err = kprint_formats_show(o, b);
	fflush(stdout);
	if (err)
		ret = kprint_fail(KPRINT_ACT_COUNT, "read the BPF counters", err, NULL);
	kpc_bpf_close(b);
	return ret;
}
