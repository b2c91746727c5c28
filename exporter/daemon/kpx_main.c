// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_exporter: options and lifecycle.  Signals are blocked in every
 * thread and taken by main with sigwait(), so no handler races the
 * libraries' threads; SIGHUP's reload of the web config runs there too,
 * in main's own thread, while the HTTP threads keep serving.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kpx.h"

static void kpx_usage(FILE *out)
{
	fprintf(out,
"usage: kprint_exporter [OPTIONS]\n"
"Serve kprint's counters and recent records over HTTP.\n"
"\n"
"  --web.listen-address ADDR:PORT\n"
"                      where to listen, numeric, IPv6 as [ADDR]:PORT; given\n"
"                      again, listens on each (at most %d).  Default\n"
"                      " KPX_LISTEN_DEFAULT ": loopback only; 9464 is in the exporter\n"
"                      range of Prometheus' default port allocations, where\n"
"                      OpenCensus and OpenTelemetry exporters also use it:\n"
"                      pick another port if one of those runs here; port 0\n"
"                      takes a free one, named in the startup message\n"
"  --listen ADDR:PORT  the same as --web.listen-address\n"
"  --web.telemetry-path PATH\n"
"                      where the metrics are (default " KPX_TELEMETRY_DEFAULT ")\n"
"  --web.config.file FILE\n"
"                      TLS and basic auth, in exporter-toolkit's format\n"
"                      (tls_server_config, basic_auth_users); SIGHUP re-reads\n"
"                      it, a bad one is refused and the old one kept\n"
"  --web.max-streams N /events streams open at once, 1..%d (default %d); past\n"
"                      it a request gets 503\n"
"  --web.max-requests N\n"
"                      requests in flight from one client address, 1..%d\n"
"                      (default %d); past it a request gets 503\n"
"  --web.level-color LEVEL=SPEC\n"
"                      the page's color of a level (repeatable), as kprint\n"
"                      --level-color: words (bold,red) or a VGA attribute\n"
"                      byte (0x0c: light red); the page's ?color= overrides\n"
"  --web.events-keepalive DURATION\n"
"                      an idle /events stream sends a keepalive comment after\n"
"                      this long, 1s..30s, as 15s or 1500ms (default 15s)\n"
"  --catalog FILE.po   a message catalog (gettext PO, msgid = the kernel's\n"
"                      format), served as lang=LANGUAGE of its header; given\n"
"                      again, one file per language (at most %d).  A bad one\n"
"                      stops with FILE:LINE and exit status 2; SIGHUP re-reads\n"
"                      them all, a bad one refused and the old ones kept\n"
"  --records N         recent records kept for /records and /events (default\n"
"                      %d); an /events client further behind than that gets\n"
"                      a lost event\n"
"  --max-series N      per-format series per source in /metrics, the rest\n"
"                      summed as format=\"__overflow__\" (default %d)\n"
"  --no-bpf            do not load or read the BPF per-format counters\n"
"  --pin-dir DIR       BPF pin directory (default " KPRINT_COUNTER_PIN_DIR ")\n"
"  --rcvbuf BYTES      the subscription's receive buffer\n"
"  --journal           write every record to the systemd journal, its fields as\n"
"                      KPRINT_* journal fields and a MESSAGE_ID per format\n"
"                      and module (docs/journal.md), and at the start the\n"
"                      ring's records the journal does not have yet;\n"
"                      run it in a journal namespace of its own (the unit's\n"
"                      LogNamespace=kprint): the system journal already has\n"
"                      every kernel message's text from /dev/kmsg\n"
"  --journal-queue N   records waiting for journald at most (default %d);\n"
"                      past it they are lost, and counted\n"
"  --replay FILE       serve the records of FILE (kprint dump --json or monitor\n"
"                      --json lines; - for stdin) instead of the kernel's: no\n"
"                      netlink, no BPF; their counts per format are the\n"
"                      series with source=\"replay\".  A bad line stops with\n"
"                      FILE:LINE and exit status 2\n"
"  --help\n"
"\n"
"Endpoints: /metrics (Prometheus text 0.0.4, or OpenMetrics 1.0.0 with\n"
"exemplars when Accept prefers it), /records (JSON; level, class,\n"
"source, subsystem, device, module, format_id, q, after, limit, lang),\n"
"/formats (JSON), /events (Server-Sent Events: the filters of /records,\n"
"after=ID or Last-Event-ID to resume), /catalogs (JSON: the languages\n"
"lang= takes), /healthz.\n"
"Needs CAP_SYS_ADMIN (joining the records group, loading BPF) and CAP_SYSLOG\n"
"to start.  Once set up it drops every capability and sets no_new_privs:\n"
"none effective; CAP_SYS_ADMIN stays permitted, raised by libkpc only around\n"
"the calls the kernel checks then (reading the ring or the module's counters,\n"
"re-joining the records group after a reload); none at all with --replay.\n"
"HTTP limits: %d connections, %d per client address (past them 503), 64 KiB\n"
"per request's headers, 10 s idle, 10 s to send a request, 60 s to take\n"
"a response; /events streams are exempt from the last two.\n",
		KPX_LISTEN_MAX, KPX_STREAMS_MAX, KPX_STREAMS_DEFAULT, KPX_REQUESTS_MAX,
		KPX_REQUESTS_DEFAULT, KPX_CATALOGS_MAX, KPX_RECORDS_DEFAULT,
		KPX_MAX_SERIES_DEFAULT, KPX_JOURNAL_QUEUE_DEFAULT, KPX_HTTP_CONNECTIONS,
		KPX_HTTP_PER_IP);
}

static int kpx_number(const char *opt, const char *arg, unsigned long min,
		      unsigned long max, unsigned long *v)
{
	uint64_t n;

	if (kpc_parse_u64(arg, 10, max, &n) || n < min) {
		fprintf(stderr, "kprint_exporter: --%s wants a number %lu..%lu, not '%s'\n",
			opt, min, max, arg);
		return -EINVAL;
	}
	*v = n;
	return 0;
}

/*
 * A duration as Prometheus' flags write them, one number and its unit:
 * "15s", "1m", "500ms".  Into *ms, within min_ms..max_ms.
 */
static int kpx_duration(const char *opt, const char *arg, unsigned long min_ms,
			unsigned long max_ms, unsigned long *ms)
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
		if (kpc_parse_u64(num, 10, max_ms / units[i].ms, &n) || n * units[i].ms < min_ms)
			break;
		*ms = n * units[i].ms;
		return 0;
	}
	fprintf(stderr, "kprint_exporter: --%s wants a duration %lus..%lus, a number and"
		" its unit (ms, s, m) as 15s, not '%s'\n", opt, min_ms / 1000, max_ms / 1000, arg);
	return -EINVAL;
}

enum { OPT_LISTEN = 256, OPT_RECORDS, OPT_MAX_SERIES, OPT_NO_BPF, OPT_PIN_DIR,
       OPT_RCVBUF, OPT_REPLAY, OPT_TELEMETRY, OPT_WEB_CONFIG, OPT_MAX_STREAMS,
       OPT_KEEPALIVE, OPT_CATALOG, OPT_HELP, OPT_LEVEL_COLOR, OPT_JOURNAL,
       OPT_JOURNAL_QUEUE, OPT_MAX_REQUESTS };

static const struct option kpx_options[] = {
	{ "web.listen-address", required_argument, NULL, OPT_LISTEN },
	{ "listen",	required_argument, NULL, OPT_LISTEN },
	{ "web.telemetry-path", required_argument, NULL, OPT_TELEMETRY },
	{ "web.config.file", required_argument, NULL, OPT_WEB_CONFIG },
	{ "web.max-streams", required_argument, NULL, OPT_MAX_STREAMS },
	{ "web.max-requests", required_argument, NULL, OPT_MAX_REQUESTS },
	{ "web.level-color", required_argument, NULL, OPT_LEVEL_COLOR },
	{ "web.events-keepalive", required_argument, NULL, OPT_KEEPALIVE },
	{ "catalog",	required_argument, NULL, OPT_CATALOG },
	{ "records",	required_argument, NULL, OPT_RECORDS },
	{ "max-series",	required_argument, NULL, OPT_MAX_SERIES },
	{ "no-bpf",	no_argument,	   NULL, OPT_NO_BPF },
	{ "pin-dir",	required_argument, NULL, OPT_PIN_DIR },
	{ "rcvbuf",	required_argument, NULL, OPT_RCVBUF },
	{ "replay",	required_argument, NULL, OPT_REPLAY },
	{ "journal",	no_argument,	   NULL, OPT_JOURNAL },
	{ "journal-queue", required_argument, NULL, OPT_JOURNAL_QUEUE },
	{ "help",	no_argument,	   NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Load (or reuse) the BPF counters; without them the rest still serves. */
static void kpx_bpf_setup(struct kpx_metrics *metrics, const struct kpc_bpf_opts *bopts)
{
	int err = kpc_bpf_open(bopts, &metrics->bpf);

	if (err) {
		snprintf(metrics->bpf_error, sizeof(metrics->bpf_error),
			 "loading the BPF counters failed: %s", strerror(-err));
		fprintf(stderr, "kprint_exporter: %s; serving without them"
			" (%s 0)\n", metrics->bpf_error, kpx_metric_name(KPX_M_BPF_UP));
		metrics->bpf = NULL;
		return;
	}
	for (int s = 0; s < KPC_BPF_NR_SOURCES; s++) {
		const struct kpc_bpf_hook_status *hs = kpc_bpf_status(metrics->bpf, s);

		if (!hs->attached)
			fprintf(stderr, "kprint_exporter: %s messages are not counted: %s\n",
				kpc_bpf_source_name(s), hs->why);
	}
}

/*
 * The metrics' path: absolute, printable, no query, and none of the other
 * endpoints (which stay where they are).
 */
static int kpx_telemetry_path(const char *p)
{
	static const char *const taken[] = { "/", "/records", "/formats", "/healthz", "/events",
					     "/catalogs" };
	bool bad = p[0] != '/' || strlen(p) > 256;

	for (const char *q = p; *q && !bad; q++)
		bad = *q <= ' ' || *q == 0x7f || *q == '?' || *q == '#';
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]) && !bad; i++)
		bad = !strcmp(p, taken[i]);
	if (bad) {
		fprintf(stderr, "kprint_exporter: --web.telemetry-path wants a path from /,"
			" without spaces, '?' or '#', not /, /records, /formats, /healthz,"
			" /events or /catalogs: '%s'\n", p);
		return -EINVAL;
	}
	return 0;
}

/* What the startup message says of the web config. */
static void kpx_web_describe(const struct kpx_web *w, char *buf, size_t len)
{
	if (!w) {
		snprintf(buf, len, "HTTP");
		return;
	}
	snprintf(buf, len, "%s%s%s, %zu basic-auth user%s (%s)", w->tls ? "HTTPS" : "HTTP",
		 w->tls ? ", client certificates: " : "",
		 w->tls ? kpx_client_auth_name(w->client_auth) : "",
		 w->nusers, w->nusers == 1 ? "" : "s", w->path);
}

/* SIGHUP: the catalogs again; a bad one changes nothing. */
static void kpx_reload_catalogs(struct kpx_catalogs *c)
{
	struct kpx_catalog_set *set;

	if (!c->npaths)
		return;
	if (kpx_catalogs_reload(c)) {
		fprintf(stderr, "kprint_exporter: SIGHUP: catalogs refused, the old ones"
			" stay\n");
		return;
	}
	set = kpx_catalogs_get(c);
	fprintf(stderr, "kprint_exporter: SIGHUP: serving %zu catalog%s\n", set->n,
		set->n == 1 ? "" : "s");
	kpx_catalog_set_put(set);
}

/*
 * SIGHUP: the web config again; a bad one changes nothing.  The catalogs
 * are read apart from it: either may be refused while the other is taken.
 */
static void kpx_reload(struct kpx_http *http, const char *path)
{
	struct kpx_web *web, *was;
	char what[256];

	if (http->catalogs)
		kpx_reload_catalogs(http->catalogs);
	if (!path) {
		if (!http->catalogs || !http->catalogs->npaths)
			fprintf(stderr, "kprint_exporter: SIGHUP: no --web.config.file or"
				" --catalog to re-read\n");
		return;
	}
	if (kpx_webconfig_load(path, &web)) {
		fprintf(stderr, "kprint_exporter: SIGHUP: %s refused, the old web config"
			" stays\n", path);
		return;
	}
	if (kpx_http_reload(http, web, &was)) {
		kpx_webconfig_free(web);
		return;
	}
	kpx_webconfig_free(was);
	kpx_web_describe(web, what, sizeof(what));
	fprintf(stderr, "kprint_exporter: SIGHUP: serving %s\n", what);
}

int main(int argc, char **argv)
{
	const char *listen[KPX_LISTEN_MAX], *replay = NULL, *web_config = NULL;
	const char *catalog[KPX_CATALOGS_MAX];
	struct kpx_catalog_set *catalog_set = NULL;
	struct kpx_catalogs catalogs;
	unsigned int nlisten = 0, ncatalog = 0;
	char addrs[KPX_LISTEN_MAX * 82] = "", what[256];
	unsigned long records = KPX_RECORDS_DEFAULT, v;
	unsigned long journal_queue = KPX_JOURNAL_QUEUE_DEFAULT;
	struct kpx_journal journal = { 0 };
	bool want_journal = false;
	struct kpc_bpf_opts bopts = { 0 };
	struct kpx_metrics metrics = { .max_series = KPX_MAX_SERIES_DEFAULT };
	struct kpx_ingest ingest = { .stop_fd = -1 };
	struct kpx_http http = { 0 };
	struct kpx_store store;
	bool no_bpf = false;
	sigset_t sigs;
	int opt, sig, err;

	while ((opt = getopt_long(argc, argv, "", kpx_options, NULL)) != -1) {
		switch (opt) {
		case OPT_LISTEN:
			if (nlisten == KPX_LISTEN_MAX) {
				fprintf(stderr, "kprint_exporter: at most %d --web.listen-address\n",
					KPX_LISTEN_MAX);
				return 2;
			}
			listen[nlisten++] = optarg;
			break;
		case OPT_TELEMETRY:
			if (kpx_telemetry_path(optarg))
				return 2;
			http.telemetry_path = optarg;
			break;
		case OPT_WEB_CONFIG:
			web_config = optarg;
			break;
		case OPT_LEVEL_COLOR:
			if (kpx_page_level_color(&http.page, optarg)) {
				fprintf(stderr, "kprint_exporter: --web.level-color wants LEVEL=SPEC,"
					" as kprint --level-color (err=bold,red, warn=0x0e), not"
					" '%s'\n", optarg);
				return 2;
			}
			break;
		case OPT_MAX_STREAMS:
			if (kpx_number("web.max-streams", optarg, 1, KPX_STREAMS_MAX, &v))
				return 2;
			http.events.max_streams = v;
			break;
		case OPT_MAX_REQUESTS:
			if (kpx_number("web.max-requests", optarg, 1, KPX_REQUESTS_MAX, &v))
				return 2;
			http.max_requests = v;
			break;
		case OPT_KEEPALIVE:
			if (kpx_duration("web.events-keepalive", optarg, 1000, 30000, &v))
				return 2;
			http.events.keepalive_ms = v;
			break;
		case OPT_CATALOG:
			if (ncatalog == KPX_CATALOGS_MAX) {
				fprintf(stderr, "kprint_exporter: at most %d --catalog\n",
					KPX_CATALOGS_MAX);
				return 2;
			}
			catalog[ncatalog++] = optarg;
			break;
		case OPT_RECORDS:
			if (kpx_number("records", optarg, 1, 10000000, &records))
				return 2;
			break;
		case OPT_MAX_SERIES:
			if (kpx_number("max-series", optarg, 0, 1000000, &v))
				return 2;
			metrics.max_series = v;
			break;
		case OPT_NO_BPF:
			no_bpf = true;
			break;
		case OPT_PIN_DIR:
			bopts.pin_dir = optarg;
			break;
		case OPT_RCVBUF:
			if (kpx_number("rcvbuf", optarg, 4096, 1UL << 30, &v))
				return 2;
			ingest.rcvbuf = v;
			break;
		case OPT_REPLAY:
			replay = optarg;
			break;
		case OPT_JOURNAL:
			want_journal = true;
			break;
		case OPT_JOURNAL_QUEUE:
			if (kpx_number("journal-queue", optarg, 1, 10000000, &journal_queue))
				return 2;
			break;
		case OPT_HELP:
			kpx_usage(stdout);
			return 0;
		default:
			kpx_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kprint_exporter: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	if (want_journal && replay) {
		fprintf(stderr, "kprint_exporter: --journal writes the kernel's records, not"
			" those of --replay\n");
		return 2;
	}
	if (!nlisten)
		listen[nlisten++] = KPX_LISTEN_DEFAULT;

	/* Before any thread exists, so that all of them inherit the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* First: a bad web config or catalog fails before anything is opened or loaded. */
	if (web_config) {
		err = kpx_webconfig_load(web_config, &http.web);
		if (err)
			return err == -EINVAL ? 2 : 1;
	}
	if (ncatalog) {
		err = kpx_catalogs_load(catalog, ncatalog, &catalog_set);
		if (err) {
			/* A file missing or unreadable is a mistake in the setup too. */
			kpx_webconfig_free(http.web);
			return err == -ENOMEM ? 1 : 2;
		}
	}
	kpx_catalogs_init(&catalogs, catalog, ncatalog, catalog_set);
	http.catalogs = &catalogs;
	http.events.catalogs = &catalogs;
	metrics.catalogs = &catalogs;
	/* Then a bad --listen or a port in use. */
	for (unsigned int i = 0; i < nlisten; i++) {
		err = kpx_http_listen(&http, listen[i]);
		if (err) {
			kpx_http_stop(&http);
			kpx_webconfig_free(http.web);
			kpx_catalogs_fini(&catalogs);
			return err == -EINVAL ? 2 : err == -EACCES || err == -EPERM ? 4 : 1;
		}
		snprintf(addrs + strlen(addrs), sizeof(addrs) - strlen(addrs), "%s%s",
			 i ? ", " : "", http.lst[i].addr);
	}
	kpx_web_describe(http.web, what, sizeof(what));

	err = kpx_store_init(&store, records);
	if (err) {
		fprintf(stderr, "kprint_exporter: no memory for %lu records\n", records);
		goto out_http;
	}
	pthread_mutex_init(&metrics.lock, NULL);
	metrics.store = &store;

	if (replay) {
		/* A file instead of the kernel: nothing to subscribe to or load. */
		store.replay = true;
		snprintf(metrics.bpf_error, sizeof(metrics.bpf_error),
			 "no BPF counters with --replay");
		err = kpx_replay_load(replay, &store, &metrics.replay, &metrics.nreplay);
		if (err)
			goto out_store;
	} else {
		if (!no_bpf)
			kpx_bpf_setup(&metrics, &bopts);

		err = kpc_sock_open(&(struct kpc_sock_opts){ 0 }, &metrics.ctl);
		if (err) {
			fprintf(stderr, "kprint_exporter: cannot talk to the kprint family: %s%s\n",
				strerror(-err), err == -ENOENT ? " (is kprint.ko loaded?)" : "");
			metrics.ctl = NULL;
			goto out_bpf;
		}

		ingest.store = &store;
		if (want_journal) {
			err = kpx_journal_init(&journal, journal_queue);
			if (err) {
				fprintf(stderr, "kprint_exporter: no memory for a journal queue of"
					" %lu records\n", journal_queue);
				goto out_ctl;
			}
			ingest.journal = &journal;
			metrics.journal = &journal;
			err = kpx_journal_resume(&journal);
			if (err)
				fprintf(stderr, "kprint_exporter: --journal: cannot read where the"
					" journal left off (%s): writing only the records received"
					" from now on\n", strerror(-err));
			if (!journal.ns)
				fprintf(stderr, "kprint_exporter: --journal writes to the system"
					" journal, which journald already feeds every kernel message's"
					" text: each record there twice (LogNamespace=kprint keeps"
					" them apart, docs/journal.md)\n");
		}
		ingest.stop_fd = eventfd(0, EFD_CLOEXEC);
		if (ingest.stop_fd < 0) {
			err = -errno;
			fprintf(stderr, "kprint_exporter: eventfd: %s\n", strerror(errno));
			goto out_ctl;
		}
		err = kpx_ingest_open(&ingest);
		if (err) {
			fprintf(stderr, "kprint_exporter: cannot subscribe to kprint records: %s%s\n",
				strerror(-err), err == -EPERM || err == -EACCES ?
				" (needs CAP_SYS_ADMIN and CAP_SYSLOG)" : "");
			goto out_efd;
		}
	}

	/*
	 * Everything privileged is done.  Still a single thread: the threads
	 * started below inherit the dropped capabilities.
	 */
	err = kpx_drop_privileges(!replay);
	if (err) {
		/* Status 1, a failure: not the caller's lack of permission (4). */
		err = -ENOTRECOVERABLE;
		goto out_ingest;
	}

	if (want_journal) {
		err = kpx_journal_start(&journal);
		if (err) {
			fprintf(stderr, "kprint_exporter: cannot start the journal writer: %s\n",
				strerror(-err));
			goto out_ingest;
		}
	}
	if (!replay) {
		err = kpx_ingest_run(&ingest);
		if (err) {
			fprintf(stderr, "kprint_exporter: cannot start the subscriber thread: %s\n",
				strerror(-err));
			goto out_ingest;
		}
	}
	http.metrics = &metrics;
	/* The page's files: only this program links them (kpx_page.h). */
	http.page.assets = kpx_web_assets;
	http.store = &store;
	metrics.events = &http.events;
	metrics.http = &http;
	err = kpx_http_start(&http);
	if (err)
		goto out_ingest;
	/* The addresses first and each followed by ", ": tests read them so. */
	if (replay)
		fprintf(stderr, "kprint_exporter %s: listening on %s, %s, replaying %" PRIu64
			" records of %s (%zu kept), %zu formats\n", KPRINT_VERSION, addrs,
			what, store.received, replay, store.n, metrics.nreplay);
	else
		fprintf(stderr, "kprint_exporter %s: listening on %s, %s, keeping %lu records,"
			" BPF %s\n", KPRINT_VERSION, addrs, what, records,
			metrics.bpf ? "on" : no_bpf ? "off (--no-bpf)" : "unavailable");
	if (want_journal)
		fprintf(stderr, "kprint_exporter: writing records to the journal%s%s, from"
			" the ring the %zu it did not have yet\n",
			journal.ns ? ", namespace " : " (the system journal)",
			journal.ns ? journal.ns : "", journal.resumed);

	while (sigwait(&sigs, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
		if (sig == SIGHUP)
			kpx_reload(&http, web_config);
	fprintf(stderr, "kprint_exporter: signal %d, stopping\n", sig);
	err = 0;

	kpx_http_stop(&http);
out_ingest:
	kpx_ingest_stop(&ingest);
out_efd:
	/* After ingest: nothing adds to the queue any more; it is emptied first. */
	kpx_journal_stop(&journal);
	if (ingest.stop_fd >= 0)
		close(ingest.stop_fd);
out_ctl:
	kpc_sock_close(metrics.ctl);
out_bpf:
	if (metrics.bpf)
		kpc_bpf_close(metrics.bpf);
out_store:
	free(metrics.replay);
	pthread_mutex_destroy(&metrics.lock);
	kpx_store_fini(&store);
out_http:
	kpx_http_stop(&http);
	kpx_webconfig_free(http.web);
	kpx_catalogs_fini(&catalogs);
	/* A replay file that cannot be read is no missing module (3). */
	if (replay)
		return err == -EINVAL ? 2 : err ? 1 : 0;
	return err == -ENOENT ? 3 : err == -EPERM || err == -EACCES ? 4 : err ? 1 : 0;
}
