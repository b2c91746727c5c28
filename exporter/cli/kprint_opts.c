// SPDX-License-Identifier: GPL-2.0
/*
 * kprint's options: the global ones (which every command takes, before or
 * after its name), --help, and kprint_parse(), which a command calls with
 * its own options.  Apart from main() and the command table, so that the
 * commands, which parse their options here, and main(), which names the
 * commands, do not import each other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprint.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct option kprint_global_options[] = {
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "json",		no_argument,		NULL, KPRINT_OPT_JSON },
	{ "color",		optional_argument,	NULL, KPRINT_OPT_COLOR },
	{ "colour",		optional_argument,	NULL, KPRINT_OPT_COLOR },
	{ "level-color",	required_argument,	NULL, KPRINT_OPT_LEVEL_COLOR },
	{ "level",		required_argument,	NULL, KPRINT_OPT_LEVEL },
	{ "class",		required_argument,	NULL, KPRINT_OPT_CLASS },
	{ "subsystem",		required_argument,	NULL, KPRINT_OPT_SUBSYSTEM },
	{ "module",		required_argument,	NULL, KPRINT_OPT_MODULE },
	{ "source",		required_argument,	NULL, KPRINT_OPT_SOURCE },
	{ "device",		required_argument,	NULL, KPRINT_OPT_DEVICE },
	{ "format-id",		required_argument,	NULL, KPRINT_OPT_FORMAT_ID },
	{ "count",		required_argument,	NULL, KPRINT_OPT_COUNT },
	{ "from",		required_argument,	NULL, KPRINT_OPT_FROM },
	{ "until",		required_argument,	NULL, KPRINT_OPT_UNTIL },
	{ "rcvbuf",		required_argument,	NULL, KPRINT_OPT_RCVBUF },
	{ "catalog",		required_argument,	NULL, KPRINT_OPT_CATALOG },
};

static const char kprint_usage_commands[] =
"Usage: kprint [OPTIONS] COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Read, follow and inject kprint records: structured kernel messages from\n"
"the kprint module's generic netlink family \"kprint\".\n"
"\n"
"Commands:\n"
"  monitor [--from SEQ] [--count N]   follow new records live (with --from,\n"
"                                     replay the ring from SEQ first); lost\n"
"                                     records are re-read from the ring, and\n"
"                                     what the ring no longer has is reported\n"
"  dump [--from SEQ] [--count N]      print the ring, like dmesg; with --from,\n"
"                                     report records already overwritten\n"
"  stats                              the module's counters, and the printk\n"
"                                     bridge's (on/off, bridged, skipped, dropped)\n"
"  emit --level L [--class C] [--subsystem S] FORMAT [ARG...]\n"
"                                     inject a record (each ARG is one %-conversion\n"
"                                     of FORMAT, already rendered); prints its seq\n"
"  formats [--source kprint|printk|all] [--top N] [--pin-dir DIR]\n"
"          [--max-formats N] [--unload] [--pot [--sites [REL|FILE]]]\n"
"                                     message counts per format, kept in the\n"
"                                     kernel by BPF (loaded and pinned on first\n"
"                                     use, in /sys/fs/bpf/kprint); --unload\n"
"                                     stops counting and removes them;\n"
"                                     --pot writes a gettext template (POT)\n"
"                                     of every format counted (--sites: of\n"
"                                     every format of a kernel's catalog)\n"
"  translate --catalog FILE.po [FILE] the kernel log as text (dmesg, /dev/kmsg)\n"
"                                     in the catalog's language: the lines\n"
"                                     kprint.ko echoed with markers=1 (0x1f\n"
"                                     around each argument), no module needed\n"
"  catalog --journal [--default-module M] FILE.po...\n"
"                                     a systemd catalog for journalctl -x: an\n"
"                                     entry per MESSAGE_ID of kprint_exporter\n"
"                                     --journal (format and module, the\n"
"                                     modules from the \"#:\" lines), in English\n"
"                                     and each catalog's language\n"
"  sites build [--kernel KVER | --all] [--dir DIR | --output FILE] [--jobs N]\n"
"              [--image FILE] [--moddir DIR] [--kallsyms FILE | --no-kallsyms]\n"
"                                     the catalog of every printk call site of\n"
"                                     an installed kernel, read from its image\n"
"                                     and modules: DIR/KVER.jsonl (DIR:\n"
"                                     /var/lib/kprint/sites)\n"
"  sites list [--kernel KVER] [--dir DIR | --file FILE] [--module M]\n"
"             [--level L] [--kind K]  its entries: format id, level, module,\n"
"                                     function, format\n"
"  sites diff OLD NEW [--dir DIR] [--rules FILE]\n"
"                                     formats added, removed, changed and moved\n"
"                                     between two kernels' catalogs; --rules:\n"
"                                     the format ids a rules file names that\n"
"                                     NEW no longer prints\n"
"  problems [--follow|-f] [--problems FILE]\n"
"                                     the kernel problems (OOM kills, hung\n"
"                                     tasks, oopses, I/O errors...) among the\n"
"                                     ring's records, then with -f the live\n"
"                                     ones, by the problem catalog (FILE:\n"
"                                     " KPC_PROBLEMS_FILE ");\n"
"                                     a line per hit: [seconds] PROBLEM\n"
"                                     label=value ... attr=value ...: text\n"
"\n";

static const char kprint_usage_options[] =
"Options (before or after the command):\n"
"  --json                 one JSON object per line (schema/record.schema.json);\n"
"                         lost records as {\"lost\": N, \"reason\": ...} lines\n"
"  --color[=WHEN]         WHEN is auto (default: on a terminal, TERM not dumb,\n"
"                         NO_COLOR unset), always or never\n"
"  --level-color LEVEL=SPEC\n"
"                         color of a level (repeatable); SPEC is words\n"
"                         (bold,red  yellow  blue,bg-white  bright-cyan  default)\n"
"                         or a VGA attribute byte (0x17: gray on blue)\n"
"  --level LEVELS         only these levels: emerg alert crit err warn notice\n"
"                         info debug; \"err\" exactly, \"err+\" err or more severe;\n"
"                         comma-separated lists and repeats add up\n"
"  --class CLASSES        only these classes: none detected registered setting\n"
"                         copyright (comma-separated)\n"
"  --subsystem S          only records of subsystem S\n"
"  --module M             only records of module M (vmlinux: the core kernel)\n"
"  --source SOURCES       only records of these sources: kprint (kprint_*()\n"
"                         calls, emit) or printk (the printk bridge);\n"
"                         comma-separated, repeats add up; all: both\n"
"  --device D             only records of dev_printk() device D as /dev/kmsg\n"
"                         names it (+pci:0000:00:19.0, b8:0, n2)\n"
"  --format-id ID         only records of format ID (16 hex digits, as --json\n"
"                         prints it); repeats add up, to 16\n"
"  --count N              stop after N records (after filtering)\n"
"  --from SEQ             start at sequence number SEQ\n"
"  --until SEQ            stop once record SEQ was shown, filtered out or\n"
"                         reported lost\n"
"  --rcvbuf BYTES         monitor's socket receive buffer (default 4 MiB)\n"
"  --catalog FILE.po      monitor, dump: show each record's text translated by\n"
"                         the gettext catalog FILE.po (msgid: the format), built\n"
"                         from the record's own args; JSON adds text_translated\n"
"  -v, --verbose          also report recovered gaps and overruns\n"
"  -h, --help             this help\n"
"  -V, --version          the version\n"
"\n";

static const char kprint_usage_notes[] =
"Text lines: [seconds.micros] level subsystem: text  (CLOCK_MONOTONIC, like\n"
"dmesg); printk records: [seconds.micros] level [printk SUBSYSTEM DEVICE] text,\n"
"with \"backlog\" (taken from printk's ring at load) or \"cont SEQ\" (a pr_cont()\n"
"fragment of record SEQ's line) in the brackets; control bytes, invalid UTF-8\n"
"and backslashes are escaped (\\xNN, \\\\).\n"
"\n"
"Privileges (as for the kernel log): dump, stats and problems need\n"
"CAP_SYSLOG or CAP_SYS_ADMIN, monitor and problems -f need CAP_SYS_ADMIN,\n"
"emit needs CAP_NET_ADMIN.\n"
"\n"
"Exit status:\n"
"  0  success (also monitor or problems -f ended by --count, SIGINT or\n"
"     SIGTERM)\n"
"  1  an operation failed (the kernel's reason is printed), or --catalog's\n"
"     file or the problem catalog was refused (FILE:LINE: why) or is missing\n"
"  2  usage error\n"
"  3  the kprint module is not loaded (no generic netlink family \"kprint\")\n"
"  4  permission denied (missing capability)\n";

void kprint_usage(FILE *out)
{
	fputs(kprint_usage_commands, out);
	fputs(kprint_usage_options, out);
	fputs(kprint_usage_notes, out);
}

static void kprint_version(void)
{
	printf("kprint %s (kprint generic netlink family version %d)\n",
	       KPRINT_VERSION, KPRINT_GENL_VERSION);
}

int kprint_usage_error(const char *fmt, const char *arg)
{
	fputs("kprint: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'kprint --help'.\n", stderr);
	return KPRINT_EXIT_USAGE;
}

/* The options that choose records; any other is a usage error. */
static int kprint_filter_opt(struct kpc_filter *f, int opt, const char *arg)
{
	switch (opt) {
	case KPRINT_OPT_LEVEL:
		if (kpc_filter_parse_levels(arg, &f->levels))
			return kprint_usage_error("bad --level '%s' (want e.g. err, err+ or warn,info)", arg);
		return 0;
	case KPRINT_OPT_CLASS:
		if (kpc_filter_parse_classes(arg, &f->classes))
			return kprint_usage_error("bad --class '%s' (none, detected, registered, setting, copyright)", arg);
		return 0;
	case KPRINT_OPT_SUBSYSTEM:
		f->subsystem = arg;
		return 0;
	case KPRINT_OPT_MODULE:
		f->module = arg;
		return 0;
	case KPRINT_OPT_SOURCE:
		/* Repeats add up, like --class; "all" (as formats has it) is no filter. */
		if (!strcmp(arg, "all"))
			f->sources = 0;
		else if (kpc_filter_parse_sources(arg, &f->sources))
			return kprint_usage_error("bad --source '%s' (kprint, printk or all)", arg);
		return 0;
	case KPRINT_OPT_DEVICE:
		f->device = arg;
		return 0;
	case KPRINT_OPT_FORMAT_ID:
		switch (kpc_filter_add_format_id(f, arg)) {
		case 0:
			return 0;
		case -E2BIG:
			return kprint_usage_error("more than 16 --format-id ('%s' is the 17th)", arg);
		default:
			return kprint_usage_error("bad --format-id '%s' (want 16 hex digits, as --json prints it)", arg);
		}
	default:
		/* getopt_long() already said what was wrong. */
		fputs("Try 'kprint --help'.\n", stderr);
		return KPRINT_EXIT_USAGE;
	}
}

static int kprint_global_opt(struct kprint_opts *o, int opt, const char *arg)
{
	uint64_t val;

	switch (opt) {
	case 'h':
		kprint_usage(stdout);
		return -1;
	case 'V':
		kprint_version();
		return -1;
	case 'v':
		o->verbose = true;
		return 0;
	case KPRINT_OPT_JSON:
		o->json = true;
		return 0;
	case KPRINT_OPT_COLOR:
		if (!arg || !strcmp(arg, "always"))
			o->color = KPRINT_COLOR_ALWAYS;
		else if (!strcmp(arg, "auto"))
			o->color = KPRINT_COLOR_AUTO;
		else if (!strcmp(arg, "never"))
			o->color = KPRINT_COLOR_NEVER;
		else
			return kprint_usage_error("--color takes auto, always or never, not '%s'", arg);
		return 0;
	case KPRINT_OPT_LEVEL_COLOR:
		if (kpc_text_set_level_color(&o->text, arg))
			return kprint_usage_error("bad --level-color '%s' (want LEVEL=SPEC, e.g. err=bold,red or warn=0x0e)", arg);
		return 0;
	case KPRINT_OPT_COUNT:
		if (kpc_parse_u64(arg, 10, UINT64_MAX, &o->count) || !o->count)
			return kprint_usage_error("--count wants a positive number, not '%s'", arg);
		return 0;
	case KPRINT_OPT_FROM:
		if (kpc_parse_u64(arg, 10, UINT64_MAX, &o->from))
			return kprint_usage_error("--from wants a sequence number, not '%s'", arg);
		o->has_from = true;
		return 0;
	case KPRINT_OPT_UNTIL:
		if (kpc_parse_u64(arg, 10, UINT64_MAX, &o->until) || !o->until)
			return kprint_usage_error("--until wants a sequence number, not '%s'", arg);
		return 0;
	case KPRINT_OPT_RCVBUF:
		if (kpc_parse_u64(arg, 10, INT32_MAX, &val) || !val)
			return kprint_usage_error("--rcvbuf wants a size in bytes, not '%s'", arg);
		o->rcvbuf = val;
		return 0;
	case KPRINT_OPT_CATALOG:
		/* One language per view; a second file would silently win. */
		if (o->catalog_path)
			return kprint_usage_error("one --catalog at a time ('%s' is the second)", arg);
		o->catalog_path = arg;
		return 0;
	default:
		return kprint_filter_opt(&o->filter, opt, arg);
	}
}

static bool kprint_want_color(enum kprint_color_mode mode)
{
	const char *term = getenv("TERM"), *no_color = getenv("NO_COLOR");

	switch (mode) {
	case KPRINT_COLOR_ALWAYS:
		return true;
	case KPRINT_COLOR_NEVER:
		return false;
	case KPRINT_COLOR_AUTO:
		break;
	}
	/* https://no-color.org: set and not empty means no color. */
	if (no_color && *no_color)
		return false;
	return isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb");
}

static bool kprint_short_letter(int val)
{
	return (val >= 'a' && val <= 'z') || (val >= 'A' && val <= 'Z');
}

int kprint_parse(struct kprint_opts *o, int argc, char **argv,
		 const struct option *extra,
		 int (*handle)(struct kprint_opts *o, int opt, const char *arg))
{
	struct option longopts[16 + ARRAY_SIZE(kprint_global_options) + 1];
	char shortopts[2 * 16 + sizeof("+" KPRINT_GLOBAL_SHORTOPTS)] = "+" KPRINT_GLOBAL_SHORTOPTS;
	size_t at = strlen(shortopts);
	unsigned int n = 0, i;
	int opt, ret;

	/*
	 * The command's first: getopt_long() takes the first exact match.  A
	 * command's option whose val is a letter (problems' 'f') is its short
	 * option too.
	 */
	for (i = 0; extra && extra[i].name && i < 16; i++) {
		longopts[n++] = extra[i];
		if (!kprint_short_letter(extra[i].val))
			continue;
		shortopts[at++] = extra[i].val;
		if (extra[i].has_arg == required_argument)
			shortopts[at++] = ':';
		shortopts[at] = '\0';
	}
	for (i = 0; i < ARRAY_SIZE(kprint_global_options); i++)
		longopts[n++] = kprint_global_options[i];
	memset(&longopts[n], 0, sizeof(longopts[n]));

	/* '+': stop at the first operand (the command, or emit's FORMAT). */
	optind = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if ((opt >= KPRINT_OPT_PRIVATE || (kprint_short_letter(opt) &&
		     !strchr(KPRINT_GLOBAL_SHORTOPTS, opt))) && handle)
			ret = handle(o, opt, optarg);
		else
			ret = kprint_global_opt(o, opt, optarg);
		if (ret)
			return ret;
	}
	/* Decided again after each parse: the last options seen count. */
	o->text.color = !o->json && kprint_want_color(o->color);
	if (o->catalog_path && o->cmd && !o->cmd_takes_catalog)
		return kprint_usage_error("--catalog translates the records of monitor and dump;"
					  " %s shows none", o->cmd);
	return 0;
}

int kprint_parse_options_only(struct kprint_opts *o, int argc, char **argv,
			      const char *cmd, const struct option *extra,
			      int (*handle)(struct kprint_opts *o, int opt, const char *arg))
{
	int ret = kprint_parse(o, argc, argv, extra, handle);

	if (ret)
		return ret < 0 ? KPRINT_EXIT_OK : ret;
	if (optind < argc) {
		fprintf(stderr, "kprint: %s takes no arguments ('%s')\n", cmd, argv[optind]);
		return KPRINT_EXIT_USAGE;
	}
	return -1;
}

int kprint_parse_operands(struct kprint_opts *o, int argc, char **argv,
			  const struct option *extra,
			  int (*handle)(struct kprint_opts *o, int opt, const char *arg),
			  const char **operand, int max, int *n)
{
	int ret;

	*n = 0;
	for (;;) {
		ret = kprint_parse(o, argc, argv, extra, handle);
		if (ret)
			return ret < 0 ? KPRINT_EXIT_OK : ret;
		if (optind >= argc)
			return -1;
		if (*n == max) {
			fprintf(stderr, "kprint: %s takes at most %d argument%s ('%s')\n",
				o->cmd ? o->cmd : "kprint", max, max == 1 ? "" : "s", argv[optind]);
			return KPRINT_EXIT_USAGE;
		}
		operand[(*n)++] = argv[optind];
		/* The operand stands as argv[0] of the next round, which getopt skips. */
		argc -= optind;
		argv += optind;
	}
}
