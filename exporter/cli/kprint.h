/* SPDX-License-Identifier: GPL-2.0 */
/* The kprint CLI: shared options, output and error reporting. */
#ifndef KPRINT_H
#define KPRINT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "kpc.h"

/* Exit statuses, as --help documents them. */
enum {
	KPRINT_EXIT_OK		= 0,
	KPRINT_EXIT_ERROR	= 1,	/* the kernel or the system said no */
	KPRINT_EXIT_USAGE	= 2,
	KPRINT_EXIT_NOMODULE	= 3,	/* no kprint family here */
	KPRINT_EXIT_PERM	= 4,	/* missing capability */
};

enum kprint_color_mode {
	KPRINT_COLOR_AUTO,
	KPRINT_COLOR_ALWAYS,
	KPRINT_COLOR_NEVER,
};

struct kprint_opts {
	bool json;
	bool verbose;
	enum kprint_color_mode color;
	struct kpc_text_opts text;
	struct kpc_filter filter;
	uint64_t count;			/* stop after this many records; 0: never */
	uint64_t until;			/* stop once this seq is shown or lost; 0: never */
	uint64_t from;
	bool has_from;
	int rcvbuf;
	const char *catalog_path;	/* --catalog: monitor and dump */
	struct kpc_catalog *catalog;	/* loaded by kprint_catalog_open() */
	const char *cmd;		/* the command, once main() knows it */
	bool cmd_takes_catalog;
};

/* What the user was doing, to say which privilege it takes. */
enum kprint_action {
	KPRINT_ACT_SUBSCRIBE,
	KPRINT_ACT_READ,
	KPRINT_ACT_EMIT,
	KPRINT_ACT_COUNT,
};

/*
 * Say why an operation failed, as helpfully as the errno allows, and
 * return the exit status for it.  extack: the kernel's message, or NULL.
 */
int kprint_fail(enum kprint_action action, const char *what, int err,
		const char *extack);

/* Options shared by every command, for the commands' getopt tables. */
#define KPRINT_GLOBAL_SHORTOPTS	"hVv"
enum {
	KPRINT_OPT_JSON = 0x100,
	KPRINT_OPT_COLOR,
	KPRINT_OPT_LEVEL_COLOR,
	KPRINT_OPT_LEVEL,
	KPRINT_OPT_CLASS,
	KPRINT_OPT_SUBSYSTEM,
	KPRINT_OPT_MODULE,
	KPRINT_OPT_SOURCE,
	KPRINT_OPT_DEVICE,
	KPRINT_OPT_FORMAT_ID,
	KPRINT_OPT_COUNT,
	KPRINT_OPT_FROM,
	KPRINT_OPT_UNTIL,
	KPRINT_OPT_RCVBUF,
	KPRINT_OPT_CATALOG,
	/* Command-private options start here. */
	KPRINT_OPT_PRIVATE = 0x200,
};

/*
 * getopt_long() over the global options plus a command's own (extra, may
 * be NULL).  For each option of the command's own, handle() is called;
 * it returns 0 or an exit status.  Leaves optind at the first operand.
 * Returns 0, or an exit status to end with (-1 for a clean exit, after
 * --help or --version).
 */
int kprint_parse(struct kprint_opts *o, int argc, char **argv,
		 const struct option *extra,
		 int (*handle)(struct kprint_opts *o, int opt, const char *arg));

/*
 * kprint_parse() for a command that takes options and no operands.
 * Return: -1 to go on, or the exit status to return now (after --help, or
 * on a usage error).
 */
int kprint_parse_options_only(struct kprint_opts *o, int argc, char **argv,
			      const char *cmd, const struct option *extra,
			      int (*handle)(struct kprint_opts *o, int opt, const char *arg));

/*
 * kprint_parse() for a command with options anywhere among up to @max
 * operands, which it puts in @operand (*n of them).  Return: -1 to go on,
 * or the exit status to return now.
 */
int kprint_parse_operands(struct kprint_opts *o, int argc, char **argv,
			  const struct option *extra,
			  int (*handle)(struct kprint_opts *o, int opt, const char *arg),
			  const char **operand, int max, int *n);

void kprint_usage(FILE *out);

/* "kprint: " @fmt (with @arg) and a pointer to --help; KPRINT_EXIT_USAGE. */
int kprint_usage_error(const char *fmt, const char *arg);

/*
 * --catalog: load o->catalog_path (if given) into o->catalog, saying why
 * on stderr when it is refused.  Returns -1 to go on, or the exit status.
 */
int kprint_catalog_open(struct kprint_opts *o);
void kprint_catalog_close(struct kprint_opts *o);
/* One record with its text translated (JSON: text_translated added). */
int kprint_catalog_print(const struct kprint_opts *o, const struct kpc_record *rec);

/* Output: records and loss events in the chosen format. */
struct kprint_out {
	const struct kprint_opts *opts;
	uint64_t shown;			/* records that passed the filter */
};

/* kpc_record_fn: filter, print, stop with -ECANCELED after --count. */
int kprint_out_record(const struct kpc_record *rec, void *ctx);
/* kpc_event_fn: losses to stderr (and stdout in JSON), the rest with -v. */
int kprint_out_event(const struct kpc_event *ev, void *ctx);

/* The commands. */
int kprint_cmd_monitor(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_dump(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_stats(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_emit(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_formats(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_translate(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_catalog(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_sites(struct kprint_opts *o, int argc, char **argv);
int kprint_cmd_problems(struct kprint_opts *o, int argc, char **argv);
/* kprint problems --check-npd (cmd_problems_npd.c): an NPD rule file against @cat and kernels. */
int kprint_problems_check_npd(const struct kprint_opts *o, const char *npd,
			      const struct kpc_problems *cat, const char *const *what,
			      unsigned int nwhat);
/* kprint sites diff OLD NEW: argv[0] is "diff" (kprint sites' sub-command table). */
int kprint_cmd_sites_diff(struct kprint_opts *o, int argc, char **argv);

/*
 * Load the call-site catalog @what names: a path (with '/' or ".jsonl"), or
 * a release in @dir (NULL: KPC_SITES_DIR, as kprint sites list); @what NULL:
 * the running kernel's.  Says why on stderr; returns 0 or the exit status.
 */
int kprint_sites_open(const char *what, const char *dir, struct kpc_sites *s);
/* The running kernel's release (uname -r), read once; NULL if uname() failed. */
const char *kprint_sites_running(void);

#endif /* KPRINT_H */
