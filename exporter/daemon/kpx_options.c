// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's options.  Each is one entry of kpx_options[]: getopt's
 * table, the defaults, the checks and --help are made from it, and
 * tests/unit/exporter-options.py holds kprint_exporter(8)'s option list
 * against --help, so that an option is added in one place (and the man
 * page).  A default is written as the option would be given and goes
 * through the same check, so that it cannot hold what the option refuses.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kpx_events.h"
#include "kpx_http.h"
#include "kpx_log.h"
#include "kpx_options.h"
#include "kpx_page.h"
#include "kpx_problems.h"
#include "kpc_sites.h"

#define KPX_USAGE_INDENT	22	/* where the help of an option starts */
#define KPX_USAGE_WIDTH		78

static int kpx_set_string(const struct kpx_option *o, void *field, const char *arg)
{
	(void)o;
	*(const char **)field = arg;
	return 0;
}

static int kpx_set_flag(const struct kpx_option *o, void *field, const char *arg)
{
	(void)o;
	(void)arg;
	*(bool *)field = true;
	return 0;
}

static int kpx_set_number(const struct kpx_option *o, void *field, const char *arg)
{
	uint64_t n;

	if (kpc_parse_u64(arg, 10, o->max, &n) || n < o->min) {
		kpx_log("--%s wants a number %lu..%lu, not '%s'\n", o->name, o->min, o->max, arg);
		return -EINVAL;
	}
	*(unsigned long *)field = n;
	return 0;
}

/*
 * A duration as Prometheus' flags write them, one number and its unit:
 * "15s", "1m", "500ms".  In ms, within min..max.
 */
static int kpx_set_duration(const struct kpx_option *o, void *field, const char *arg)
{
	static const struct { const char *unit; unsigned long ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 },
	};
	size_t digits = strspn(arg, "0123456789");
	char num[21];
	uint64_t n;

	for (size_t i = 0; digits && digits < sizeof(num) &&
	     i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(arg + digits, units[i].unit))
			continue;
		memcpy(num, arg, digits);
		num[digits] = '\0';
		if (kpc_parse_u64(num, 10, o->max / units[i].ms, &n) || n * units[i].ms < o->min)
			break;
		*(unsigned long *)field = n * units[i].ms;
		return 0;
	}
	kpx_log("--%s wants a duration %lus..%lus, a number and its unit (ms, s, m) as 15s,"
		" not '%s'\n", o->name, o->min / 1000, o->max / 1000, arg);
	return -EINVAL;
}

/* One more value of a repeatable option, o->max of them at most. */
static int kpx_set_list(const struct kpx_option *o, void *field, const char *arg)
{
	struct kpx_list *l = field;

	if (l->n == o->max || l->n == KPX_LIST_MAX) {
		kpx_log("at most %lu --%s\n", o->max, o->name);
		return -EINVAL;
	}
	l->v[l->n++] = arg;
	return 0;
}

/* A file with a default, and whether it was named (a missing default is no mistake). */
static int kpx_set_path(const struct kpx_option *o, void *field, const char *arg)
{
	struct kpx_path *p = field;

	p->path = arg;
	p->given = arg != o->def;
	return 0;
}

/*
 * The metrics' path: absolute, printable, no query, and none of the other
 * endpoints (which stay where they are).
 */
static int kpx_set_telemetry(const struct kpx_option *o, void *field, const char *arg)
{
	static const char *const taken[] = { "/", "/records", "/formats", "/healthz", "/events",
					     "/catalogs", "/sites", "/problems" };
	bool bad = arg[0] != '/' || strlen(arg) > 256;

	for (const char *q = arg; *q && !bad; q++)
		bad = *q <= ' ' || *q == 0x7f || *q == '?' || *q == '#';
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]) && !bad; i++)
		bad = !strcmp(arg, taken[i]);
	if (bad) {
		kpx_log("--%s wants a path from /, without spaces, '?' or '#', not /, /records,"
			" /formats, /healthz, /events, /catalogs, /sites or /problems: '%s'\n",
			o->name, arg);
		return -EINVAL;
	}
	return kpx_set_string(o, field, arg);
}

static int kpx_set_level_color(const struct kpx_option *o, void *field, const char *arg)
{
	if (kpx_page_level_color(field, arg)) {
		kpx_log("--%s wants LEVEL=SPEC, as kprint --level-color (err=bold,red,"
			" warn=0x0e), not '%s'\n", o->name, arg);
		return -EINVAL;
	}
	return 0;
}

#define KPX_FIELD(member)	offsetof(struct kpx_config, member)

/* In the order of --help and of kprint_exporter(8)'s OPTIONS. */
const struct kpx_option kpx_options[] = {
	{ .name = "web.listen-address", .arg = "ADDR:PORT", .def = "127.0.0.1:9464",
	  .help = "where to listen, numeric, IPv6 as [ADDR]:PORT; given again, listens on"
		  " each.  The default is loopback only; 9464 is in the exporter range of"
		  " Prometheus' default port allocations, where OpenCensus and OpenTelemetry"
		  " exporters also use it: pick another port if one of those runs here; port 0"
		  " takes a free one, named in the startup message",
	  .set = kpx_set_list, .field = KPX_FIELD(listen), .max = KPX_LISTEN_MAX },
	{ .name = "listen", .arg = "ADDR:PORT",
	  .help = "the same as --web.listen-address",
	  .set = kpx_set_list, .field = KPX_FIELD(listen), .max = KPX_LISTEN_MAX },
	{ .name = "web.telemetry-path", .arg = "PATH", .def = KPX_TELEMETRY_DEFAULT,
	  .help = "where the metrics are",
	  .set = kpx_set_telemetry, .field = KPX_FIELD(telemetry_path) },
	{ .name = "web.config.file", .arg = "FILE",
	  .help = "TLS and basic auth, in exporter-toolkit's format (tls_server_config,"
		  " basic_auth_users); SIGHUP re-reads it, a bad one is refused and the old"
		  " one kept",
	  .set = kpx_set_string, .field = KPX_FIELD(web_config) },
	{ .name = "web.max-streams", .arg = "N", .def = KPX_STR(KPX_STREAMS_DEFAULT),
	  .help = "/events streams open at once; past it a request gets 503",
	  .set = kpx_set_number, .field = KPX_FIELD(max_streams), .min = 1,
	  .max = KPX_STREAMS_MAX },
	{ .name = "web.max-requests", .arg = "N", .def = KPX_STR(KPX_REQUESTS_DEFAULT),
	  .help = "requests in flight from one client address; past it a request gets 503",
	  .set = kpx_set_number, .field = KPX_FIELD(max_requests), .min = 1,
	  .max = KPX_REQUESTS_MAX },
	{ .name = "web.events-keepalive", .arg = "DURATION", .def = "15s",
	  .help = "an idle /events stream sends a keepalive comment after this long, as 15s"
		  " or 1500ms",
	  .set = kpx_set_duration, .field = KPX_FIELD(keepalive_ms), .min = 1000,
	  .max = 30000 },
	{ .name = "web.level-color", .arg = "LEVEL=SPEC",
	  .help = "the page's color of a level (repeatable), as kprint --level-color: words"
		  " (bold,red) or a VGA attribute byte (0x0c: light red); the page's ?color="
		  " overrides",
	  .set = kpx_set_level_color, .field = KPX_FIELD(level_color) },
	{ .name = "catalog", .arg = "FILE.po",
	  .help = "a message catalog (gettext PO, msgid = the kernel's format), served as"
		  " lang=LANGUAGE of its header; given again, one file per language.  A bad"
		  " one stops with FILE:LINE and exit status 2; SIGHUP re-reads them all, a"
		  " bad one refused and the old ones kept",
	  .set = kpx_set_list, .field = KPX_FIELD(catalogs), .max = 32 },
	{ .name = "sites.dir", .arg = "DIR", .def = KPC_SITES_DIR,
	  .help = "where the call-site catalogs are (kprint sites build): the running"
		  " kernel's, DIR/$(uname -r).jsonl, is served on /sites and read again when"
		  " it changes; missing, or refused as corrupt (said with FILE:LINE), none is"
		  " served",
	  .set = kpx_set_string, .field = KPX_FIELD(sites_dir) },
	{ .name = "problems.file", .arg = "FILE", .def = KPC_PROBLEMS_FILE,
	  .help = "the problem catalog (kprint(7), PROBLEM CATALOG): the kernel problems"
		  " recognised by format, counted as kprint_problem_total and served on"
		  " /problems and /events.  A file given that does not load stops with"
		  " FILE:LINE: reason and exit status 2; the default missing is no catalog",
	  .set = kpx_set_path, .field = KPX_FIELD(problems) },
	{ .name = "problems.max-series", .arg = "N", .def = KPX_STR(KPX_PROBLEMS_SERIES),
	  .help = "label sets per problem in /metrics and /problems; past it, counted in"
		  " the series whose every label is \"overflow\"",
	  .set = kpx_set_number, .field = KPX_FIELD(problems_series), .min = 1,
	  .max = 100000 },
	{ .name = "npd-rules", .arg = "FILE",
	  .help = "a node-problem-detector rule file (its kernel-monitor.json: plugin"
		  " kmsg), evaluated as NPD does on the kernel's printk records; each rule's"
		  " hits are counted as kprint_problem_total{problem=REASON,npd=SOURCE}, a"
		  " permanent rule's condition as kprint_problem_condition.  A file that does"
		  " not load, or a pattern RE2 would refuse, stops with FILE:LINE: reason and"
		  " exit status 2",
	  .set = kpx_set_list, .field = KPX_FIELD(npd_rules), .max = 16 },
	{ .name = "npd-metrics",
	  .help = "also serve NPD's own families for the --npd-rules files:"
		  " problem_counter{reason} and problem_gauge{type,reason}",
	  .set = kpx_set_flag, .field = KPX_FIELD(npd_metrics) },
	{ .name = "records", .arg = "N", .def = "10000",
	  .help = "recent records kept for /records and /events; an /events client further"
		  " behind than that gets a lost event",
	  .set = kpx_set_number, .field = KPX_FIELD(records), .min = 1, .max = 10000000 },
	{ .name = "max-series", .arg = "N", .def = "5000",
	  .help = "per-format series per source in /metrics, the rest summed as"
		  " format=\"__overflow__\"",
	  .set = kpx_set_number, .field = KPX_FIELD(max_series), .max = 1000000 },
	{ .name = "no-bpf",
	  .help = "do not load or read the BPF per-format counters",
	  .set = kpx_set_flag, .field = KPX_FIELD(no_bpf) },
	{ .name = "pin-dir", .arg = "DIR", .def = KPRINT_COUNTER_PIN_DIR,
	  .help = "BPF pin directory",
	  .set = kpx_set_string, .field = KPX_FIELD(pin_dir) },
	{ .name = "rcvbuf", .arg = "BYTES",
	  .help = "the subscription's receive buffer",
	  .set = kpx_set_number, .field = KPX_FIELD(rcvbuf), .min = 4096, .max = 1UL << 30 },
	{ .name = "journal",
	  .help = "write every record to the systemd journal, its fields as KPRINT_* journal"
		  " fields and a MESSAGE_ID per format and module (docs/journal.md), and at"
		  " the start the ring's records the journal does not have yet; run it in a"
		  " journal namespace of its own (the unit's LogNamespace=kprint): the system"
		  " journal already has every kernel message's text from /dev/kmsg",
	  .set = kpx_set_flag, .field = KPX_FIELD(journal) },
	{ .name = "journal-queue", .arg = "N", .def = "65536",
	  .help = "records waiting for journald at most; past it they are lost, and counted",
	  .set = kpx_set_number, .field = KPX_FIELD(journal_queue), .min = 1, .max = 10000000 },
	{ .name = "replay", .arg = "FILE",
	  .help = "serve the records of FILE (kprint dump --json or monitor --json lines;"
		  " - for stdin) instead of the kernel's: no netlink, no BPF; their counts per"
		  " format are the series with source=\"replay\".  A bad line stops with"
		  " FILE:LINE and exit status 2",
	  .set = kpx_set_string, .field = KPX_FIELD(replay) },
	{ .name = "help",
	  .help = "this text, on standard output" },
	{ 0 }
};

static const char kpx_usage_head[] =
"usage: kprint_exporter [OPTIONS]\n"
"Serve kprint's counters and recent records over HTTP.\n"
"\n";

static const char kpx_usage_tail[] =
"\n"
"Endpoints: /metrics (Prometheus text 0.0.4, or OpenMetrics 1.0.0 with\n"
"exemplars when Accept prefers it), /records (JSON; level, class,\n"
"source, subsystem, device, module, format_id, q, after, limit, lang),\n"
"/formats (JSON; never=1 with the filters of /sites: the catalog's formats\n"
"never counted), /events (Server-Sent Events: the filters of /records,\n"
"after=ID or Last-Event-ID to resume), /catalogs (JSON: the languages\n"
"lang= takes), /sites (JSON: the running kernel's call-site catalog;\n"
"module, level, kind, source, function, format_id, q, seen, limit,\n"
"offset, summary), /problems (JSON: the problem catalog's problems, their\n"
"counts and latest records; seen=1 only those seen), /healthz.\n"
"Needs CAP_SYS_ADMIN (joining the records group, loading BPF) and CAP_SYSLOG\n"
"to start.  Once set up it drops every capability and sets no_new_privs:\n"
"none effective; CAP_SYS_ADMIN stays permitted, raised by libkpc only around\n"
"the calls the kernel checks then (reading the ring or the module's counters,\n"
"re-joining the records group after a reload); none at all with --replay.\n"
"HTTP limits: " KPX_STR(KPX_HTTP_CONNECTIONS) " connections, " KPX_STR(KPX_HTTP_PER_IP)
" per client address (past them 503), 64 KiB\n"
"per request's headers, 10 s idle, 10 s to send a request, 60 s to take\n"
"a response; /events streams are exempt from the last two.\n";

/* text at column KPX_USAGE_INDENT, wrapped at KPX_USAGE_WIDTH. */
static void kpx_usage_wrap(FILE *out, const char *text)
{
	int col = KPX_USAGE_INDENT;

	for (const char *p = text; *p; ) {
		size_t word = strcspn(p, " ");

		if (col > KPX_USAGE_INDENT && col + 1 + (int)word > KPX_USAGE_WIDTH) {
			fprintf(out, "\n%*s", KPX_USAGE_INDENT, "");
			col = KPX_USAGE_INDENT;
		} else if (col > KPX_USAGE_INDENT) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, word, out);
		col += word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* The values an option takes: "1..64", "1s..30s", "at most 16 times". */
static void kpx_usage_range(const struct kpx_option *o, char *buf, size_t len)
{
	if (o->set == kpx_set_list)
		snprintf(buf, len, "; at most %lu times", o->max);
	else if (o->set == kpx_set_duration)
		snprintf(buf, len, "; %lus..%lus", o->min / 1000, o->max / 1000);
	else if (o->set == kpx_set_number)
		snprintf(buf, len, "; %lu..%lu", o->min, o->max);
	else
		buf[0] = '\0';
}

void kpx_options_usage(FILE *out)
{
	char lead[64], range[48], *text;
	int col;

	fputs(kpx_usage_head, out);
	for (const struct kpx_option *o = kpx_options; o->name; o++) {
		col = snprintf(lead, sizeof(lead), "  --%s%s%s", o->name, o->arg ? " " : "",
			       o->arg ? o->arg : "");
		fputs(lead, out);
		if (col > KPX_USAGE_INDENT - 2) {
			fputc('\n', out);
			col = 0;
		}
		fprintf(out, "%*s", KPX_USAGE_INDENT - col, "");
		kpx_usage_range(o, range, sizeof(range));
		if (asprintf(&text, "%s%s%s%s%s", o->help, range, o->def ? " (default " : "",
			     o->def ? o->def : "", o->def ? ")" : "") < 0)
			text = NULL;
		kpx_usage_wrap(out, text ? text : o->help);
		free(text);
	}
	fputs(kpx_usage_tail, out);
}

/* The defaults, through the options' own checks; a list's only if it is empty. */
static int kpx_options_defaults(struct kpx_config *c, bool lists)
{
	for (const struct kpx_option *o = kpx_options; o->name; o++) {
		void *field = (char *)c + o->field;

		if (!o->def || (o->set == kpx_set_list) != lists)
			continue;
		if (lists && ((struct kpx_list *)field)->n)
			continue;
		if (o->set(o, field, o->def))
			return -EINVAL;
	}
	return 0;
}

/* The options that only make sense apart. */
static int kpx_options_check(const struct kpx_config *c)
{
	if (c->journal && c->replay) {
		kpx_log("--journal writes the kernel's records, not those of --replay\n");
		return -EINVAL;
	}
	return 0;
}

enum kpx_parse kpx_options_parse(struct kpx_config *c, int argc, char **argv)
{
	struct option lo[sizeof(kpx_options) / sizeof(kpx_options[0])];
	unsigned int n = 0;
	int opt;

	memset(c, 0, sizeof(*c));
	for (const struct kpx_option *o = kpx_options; o->name; o++, n++)
		lo[n] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					 NULL, 256 + n };
	lo[n] = (struct option){ 0 };
	if (kpx_options_defaults(c, false))
		return KPX_PARSE_BAD;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		const struct kpx_option *o = opt >= 256 ? &kpx_options[opt - 256] : NULL;

		if (!o) {
			kpx_options_usage(stderr);
			return KPX_PARSE_BAD;
		}
		if (!o->set) {
			kpx_options_usage(stdout);
			return KPX_PARSE_HELP;
		}
		if (o->set(o, (char *)c + o->field, optarg))
			return KPX_PARSE_BAD;
	}
	if (optind < argc) {
		kpx_log("unexpected argument '%s'\n", argv[optind]);
		return KPX_PARSE_BAD;
	}
	if (kpx_options_defaults(c, true) || kpx_options_check(c))
		return KPX_PARSE_BAD;
	return KPX_PARSE_RUN;
}
