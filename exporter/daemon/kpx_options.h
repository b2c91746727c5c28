/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's options, each declared once in kpx_options[] with its
 * argument, default, help and check; the command line parser, --help and
 * the option list of kprint_exporter(8) (tests/unit/exporter-options.py
 * compares them) all come from that table (kpx_options.c).
 */
#ifndef KPX_OPTIONS_H
#define KPX_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kpc.h"

#define KPX_LIST_MAX	32	/* a repeatable option given this often at most */

/* A repeatable option's values, in the order given. */
struct kpx_list {
	const char *v[KPX_LIST_MAX];
	unsigned int n;
};

/* A file with a default: whether the command line named it. */
struct kpx_path {
	const char *path;
	bool given;			/* not the default */
};

/* What the command line asks for, each value checked. */
struct kpx_config {
	struct kpx_list listen;		/* --web.listen-address, --listen */
	const char *telemetry_path;
	const char *web_config;		/* NULL: open HTTP */
	unsigned long max_streams;
	unsigned long max_requests;
	unsigned long keepalive_ms;
	const char *level_color[KPRINT_LEVEL_MAX + 1];	/* NULL: the page's own */
	struct kpx_list catalogs;
	unsigned long records;
	unsigned long max_series;
	bool no_bpf;
	const char *pin_dir;
	unsigned long rcvbuf;		/* 0: libkpc's */
	bool journal;
	unsigned long journal_queue;
	const char *replay;		/* NULL: the kernel's records */
	const char *sites_dir;		/* the call-site catalogs, DIR/KVER.jsonl */
	struct kpx_path problems;	/* --problems.file */
	unsigned long problems_series;	/* --problems.max-series */
	struct kpx_list npd_rules;	/* --npd-rules: node-problem-detector's files */
	bool npd_metrics;		/* --npd-metrics: NPD's problem_counter, problem_gauge */
};

struct kpx_option;

/* Check arg and store it in field (a member of struct kpx_config); 0 or -EINVAL, said. */
typedef int kpx_option_set(const struct kpx_option *o, void *field, const char *arg);

struct kpx_option {
	const char *name;		/* --name */
	const char *arg;		/* its argument as --help names it; NULL: none */
	const char *def;		/* the default, as it would be given; NULL: none */
	const char *help;		/* a sentence or two for --help */
	kpx_option_set *set;		/* NULL: --help itself */
	size_t field;			/* offsetof(struct kpx_config, ...) */
	unsigned long min, max;		/* a number's range (a duration's in ms); a list's length */
};

extern const struct kpx_option kpx_options[];

enum kpx_parse {
	KPX_PARSE_RUN,			/* c holds the options: go on */
	KPX_PARSE_HELP,			/* --help was printed: exit 0 */
	KPX_PARSE_BAD,			/* a bad option or value, said: exit 2 */
};

/* argv into c, defaults first. */
enum kpx_parse kpx_options_parse(struct kpx_config *c, int argc, char **argv);
/* --help, from the table. */
void kpx_options_usage(FILE *out);

#endif /* KPX_OPTIONS_H */
