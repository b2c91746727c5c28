// SPDX-License-Identifier: GPL-2.0
/*
 * kprint_exporter: setup, serve, teardown.  The options are kpx_options.c's.
 * Signals are blocked in every thread and taken by main with sigwait(), so
 * no handler races the libraries' threads; SIGHUP's reload of the web
 * config runs there too, in main's own thread, while the HTTP threads keep
 * serving.
 */
#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kpc.h"
#include "kpx_caps.h"
#include "kpx_catalogs.h"
#include "kpx_http.h"
#include "kpx_http_server.h"
#include "kpx_ingest.h"
#include "kpx_journal.h"
#include "kpx_log.h"
#include "kpx_metrics.h"
#include "kpx_options.h"
#include "kpx_page.h"
#include "kpx_problems.h"
#include "kpx_replay.h"
#include "kpx_sites.h"
#include "kpx_store.h"
#include "kpx_webconfig.h"

/* Everything the exporter runs with, torn down whatever setup reached. */
struct kpx_daemon {
	struct kpx_config cfg;
	struct kpx_catalogs catalogs;
	struct kpx_sites sites;
	struct kpx_store store;
	struct kpx_metrics metrics;
	struct kpx_ingest ingest;
	struct kpx_journal journal;
	struct kpx_problems problems;
	struct kpx_npd npd;		/* --npd-rules */
	struct kpx_http http;
	bool catalogs_ready, store_ready;
	sigset_t sigs;
	char addrs[KPX_LISTEN_MAX * 82];	/* where it listens, for the startup message */
};

/*
 * What an error can mean besides a plain failure (exit status 1), by
 * where it came from: kprint_exporter(8)'s EXIT STATUS.
 */
enum {
	KPX_ERR_USAGE = 1 << 0,		/* -EINVAL: a value or file given is not right: 2 */
	KPX_ERR_FILE = 1 << 1,		/* all but -ENOMEM: a file given is not right: 2 */
	KPX_ERR_MODULE = 1 << 2,	/* -ENOENT: kprint.ko is not loaded: 3 */
	KPX_ERR_DENIED = 1 << 3,	/* -EPERM, -EACCES: not privileged enough: 4 */
};

static int kpx_exit_status(int err, unsigned int means)
{
	if (!err)
		return 0;
	if ((means & KPX_ERR_USAGE) && err == -EINVAL)
		return 2;
	if ((means & KPX_ERR_FILE) && err != -ENOMEM)
		return 2;
	if ((means & KPX_ERR_MODULE) && err == -ENOENT)
		return 3;
	if ((means & KPX_ERR_DENIED) && (err == -EPERM || err == -EACCES))
		return 4;
	return 1;
}

/* Load (or reuse) the BPF counters; without them the rest still serves. */
static void kpx_bpf_setup(struct kpx_metrics *metrics, const char *pin_dir)
{
	int err = kpc_bpf_open(&(struct kpc_bpf_opts){ .pin_dir = pin_dir }, &metrics->bpf);

	if (err) {
		snprintf(metrics->bpf_error, sizeof(metrics->bpf_error),
			 "loading the BPF counters failed: %s", strerror(-err));
		kpx_log("%s; serving without them (%s 0)\n", metrics->bpf_error,
			kpx_metric_name(KPX_M_BPF_UP));
		metrics->bpf = NULL;
		return;
	}
	for (int s = 0; s < KPC_BPF_NR_SOURCES; s++) {
		const struct kpc_bpf_hook_status *hs = kpc_bpf_status(metrics->bpf, s);

		if (!hs->attached)
			kpx_log("%s messages are not counted: %s\n", kpc_bpf_source_name(s),
				hs->why);
	}
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
		kpx_log("SIGHUP: catalogs refused, the old ones stay\n");
		return;
	}
	set = kpx_catalogs_get(c);
	kpx_log("SIGHUP: serving %zu catalog%s\n", set->n, set->n == 1 ? "" : "s");
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

	kpx_reload_catalogs(http->catalogs);
	if (!path) {
		if (!http->catalogs->npaths)
			kpx_log("SIGHUP: no --web.config.file or --catalog to re-read\n");
		return;
	}
	if (kpx_webconfig_load(path, &web)) {
		kpx_log("SIGHUP: %s refused, the old web config stays\n", path);
		return;
	}
	if (kpx_http_reload(http, web, &was)) {
		kpx_webconfig_free(web);
		return;
	}
	kpx_webconfig_free(was);
	kpx_web_describe(web, what, sizeof(what));
	kpx_log("SIGHUP: serving %s\n", what);
}

/*
 * First what the command line names: a bad web config or catalog fails
 * before anything is opened or loaded, then a bad address or a port in use.
 */
static int kpx_setup_http(struct kpx_daemon *d)
{
	const struct kpx_config *cfg = &d->cfg;
	struct kpx_catalog_set *set = NULL;
	struct kpx_http *http = &d->http;
	size_t len;
	int err;

	if (cfg->web_config) {
		err = kpx_webconfig_load(cfg->web_config, &http->web);
		if (err)
			return kpx_exit_status(err, KPX_ERR_USAGE);
	}
	if (cfg->catalogs.n) {
		/* A file missing or unreadable is a mistake in the setup too. */
		err = kpx_catalogs_load(cfg->catalogs.v, cfg->catalogs.n, &set);
		if (err)
			return kpx_exit_status(err, KPX_ERR_FILE);
	}
	kpx_catalogs_init(&d->catalogs, cfg->catalogs.v, cfg->catalogs.n, set);
	d->catalogs_ready = true;
	http->catalogs = &d->catalogs;
	http->events.catalogs = &d->catalogs;
	http->events.max_streams = cfg->max_streams;
	http->events.keepalive_ms = cfg->keepalive_ms;
	http->max_requests = cfg->max_requests;
	http->telemetry_path = cfg->telemetry_path;
	memcpy(http->page.level_color, cfg->level_color, sizeof(cfg->level_color));
	for (unsigned int i = 0; i < cfg->listen.n; i++) {
		err = kpx_http_listen(http, cfg->listen.v[i]);
		if (err)
			return kpx_exit_status(err, KPX_ERR_USAGE | KPX_ERR_DENIED);
		len = strlen(d->addrs);
		snprintf(d->addrs + len, sizeof(d->addrs) - len, "%s%s", i ? ", " : "",
			 http->lst[i].addr);
	}
	return 0;
}

/* --journal: where the journal left off, read while privileged. */
static int kpx_setup_journal(struct kpx_daemon *d)
{
	int err = kpx_journal_init(&d->journal, d->cfg.journal_queue);

	if (err) {
		kpx_log("no memory for a journal queue of %lu records\n", d->cfg.journal_queue);
		return err;
	}
	d->ingest.journal = &d->journal;
	d->metrics.journal = &d->journal;
	err = kpx_journal_resume(&d->journal);
	if (err)
		kpx_log("--journal: cannot read where the journal left off (%s): writing only"
			" the records received from now on\n", strerror(-err));
	if (!d->journal.ns)
		kpx_log("--journal writes to the system journal, which journald already feeds"
			" every kernel message's text: each record there twice"
			" (LogNamespace=kprint keeps them apart, docs/journal.md)\n");
	return 0;
}

/* The kernel's side, all that needs privileges: BPF, the family, the ring. */
static int kpx_setup_kernel(struct kpx_daemon *d)
{
	struct kpx_metrics *metrics = &d->metrics;
	int err;

	if (!d->cfg.no_bpf)
		kpx_bpf_setup(metrics, d->cfg.pin_dir);
	err = kpc_sock_open(&(struct kpc_sock_opts){ 0 }, &metrics->ctl);
	if (err) {
		kpx_log("cannot talk to the kprint family: %s%s\n", strerror(-err),
			err == -ENOENT ? " (is kprint.ko loaded?)" : "");
		metrics->ctl = NULL;
		return err;
	}
	d->ingest.store = &d->store;
	d->ingest.rcvbuf = d->cfg.rcvbuf;
	d->ingest.problems = &d->problems;
	if (d->cfg.journal) {
		err = kpx_setup_journal(d);
		if (err)
			return err;
	}
	d->ingest.stop_fd = eventfd(0, EFD_CLOEXEC);
	if (d->ingest.stop_fd < 0) {
		err = -errno;
		kpx_log("eventfd: %s\n", strerror(-err));
		return err;
	}
	err = kpx_ingest_open(&d->ingest);
	if (err)
		kpx_log("cannot subscribe to kprint records: %s%s\n", strerror(-err),
			err == -EPERM || err == -EACCES ? " (needs CAP_SYS_ADMIN and CAP_SYSLOG)" : "");
	return err;
}

/* The records, from the kernel or the --replay file, up to dropping privileges. */
static int kpx_setup_records(struct kpx_daemon *d)
{
	const char *replay = d->cfg.replay;
	int err;

	err = kpx_store_init(&d->store, d->cfg.records);
	if (err) {
		kpx_log("no memory for %lu records\n", d->cfg.records);
		return err;
	}
	d->store_ready = true;
	pthread_mutex_init(&d->metrics.lock, NULL);
	d->metrics.store = &d->store;
	d->metrics.max_series = d->cfg.max_series;
	d->metrics.catalogs = &d->catalogs;
	if (replay) {
		/* A file instead of the kernel: nothing to subscribe to or load. */
		d->store.replay = true;
		snprintf(d->metrics.bpf_error, sizeof(d->metrics.bpf_error),
			 "no BPF counters with --replay");
		err = kpx_replay_load(replay, &d->store, &d->problems, &d->metrics.replay,
				      &d->metrics.nreplay);
	} else {
		err = kpx_setup_kernel(d);
	}
	if (err)
		return err;
	/*
	 * Everything privileged is done.  Still a single thread: the threads
	 * started next inherit the dropped capabilities.  Failing is status 1,
	 * not the caller's lack of permission (4).
	 */
	return kpx_drop_privileges(!replay) ? -ENOTRECOVERABLE : 0;
}

/* The threads: the journal writer, ingest, then HTTP. */
static int kpx_start(struct kpx_daemon *d)
{
	int err;

	if (d->cfg.journal) {
		err = kpx_journal_start(&d->journal);
		if (err) {
			kpx_log("cannot start the journal writer: %s\n", strerror(-err));
			return err;
		}
	}
	if (!d->cfg.replay) {
		err = kpx_ingest_run(&d->ingest);
		if (err) {
			kpx_log("cannot start the subscriber thread: %s\n", strerror(-err));
			return err;
		}
	}
	d->http.metrics = &d->metrics;
	d->http.store = &d->store;
	/* The page's files: only this program links them (kpx_page.h). */
	d->http.page.assets = kpx_web_assets;
	d->metrics.events = &d->http.events;
	d->metrics.http = &d->http;
	return kpx_http_start(&d->http);
}

/* The addresses first and each followed by ", ": tests read them so. */
static void kpx_announce(struct kpx_daemon *d)
{
	const struct kpx_config *cfg = &d->cfg;
	char what[256];

	kpx_web_describe(d->http.web, what, sizeof(what));
	if (cfg->replay)
		fprintf(stderr, "kprint_exporter %s: listening on %s, %s, replaying %" PRIu64
			" records of %s (%zu kept), %zu formats\n", KPRINT_VERSION, d->addrs,
			what, d->store.received, cfg->replay, d->store.n, d->metrics.nreplay);
	else
		fprintf(stderr, "kprint_exporter %s: listening on %s, %s, keeping %lu records,"
			" BPF %s\n", KPRINT_VERSION, d->addrs, what, cfg->records,
			d->metrics.bpf ? "on" : cfg->no_bpf ? "off (--no-bpf)" : "unavailable");
	if (kpx_problems_rules(&d->problems))
		kpx_log("recognising the %u problems of %s\n", kpx_problems_rules(&d->problems),
			cfg->problems.path);
	if (cfg->journal)
		kpx_log("writing records to the journal%s%s, from the ring the %zu it did not"
			" have yet\n", d->journal.ns ? ", namespace " : " (the system journal)",
			d->journal.ns ? d->journal.ns : "", d->journal.resumed);
}

/* Setup as far as it goes: 0, or the exit status of what failed. */
static int kpx_setup(struct kpx_daemon *d)
{
	unsigned int means = d->cfg.replay ? KPX_ERR_USAGE : KPX_ERR_MODULE | KPX_ERR_DENIED;
	int status, err;

	/* Before any thread exists, so that all of them inherit the mask. */
	sigemptyset(&d->sigs);
	sigaddset(&d->sigs, SIGINT);
	sigaddset(&d->sigs, SIGTERM);
	sigaddset(&d->sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &d->sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	status = kpx_setup_http(d);
	if (status)
		return status;
	/* A catalog named that does not load is a mistake in the setup: before the kernel. */
	err = kpx_problems_init(&d->problems, d->cfg.problems.path, d->cfg.problems.given,
				d->cfg.problems_series);
	if (err)
		return kpx_exit_status(err, KPX_ERR_FILE);
	/* node-problem-detector's files: each record goes through them with the catalog. */
	err = kpx_npd_init(&d->npd, d->cfg.npd_rules.v, d->cfg.npd_rules.n, d->cfg.npd_metrics,
			   !d->cfg.replay);
	if (err)
		return kpx_exit_status(err, KPX_ERR_FILE);
	if (kpx_problems_npd(&d->problems, &d->npd))
		return kpx_exit_status(-ENOMEM, KPX_ERR_FILE);
	d->metrics.problems = &d->problems;
	d->http.problems = &d->problems;
	/* Never fatal: a catalog missing or corrupt is served as absent. */
	kpx_sites_init(&d->sites, d->cfg.sites_dir);
	d->http.sites = &d->sites;
	d->metrics.sites = &d->sites;
	/* A replay file that cannot be read is no missing module (3). */
	err = kpx_setup_records(d);
	if (!err)
		err = kpx_start(d);
	if (!err)
		kpx_announce(d);
	return kpx_exit_status(err, means);
}

/* Until SIGINT or SIGTERM; SIGHUP reads the web config and catalogs again. */
static void kpx_serve(struct kpx_daemon *d)
{
	int sig;

	while (sigwait(&d->sigs, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
		if (sig == SIGHUP)
			kpx_reload(&d->http, d->cfg.web_config);
	kpx_log("signal %d, stopping\n", sig);
}

static void kpx_teardown(struct kpx_daemon *d)
{
	kpx_http_stop(&d->http);
	kpx_ingest_stop(&d->ingest);
	/* After ingest: nothing adds to the queue any more; it is emptied first. */
	kpx_journal_stop(&d->journal);
	/* After both: their hits point into the catalog. */
	kpx_problems_fini(&d->problems);
	kpx_npd_fini(&d->npd);
	if (d->ingest.stop_fd >= 0)
		close(d->ingest.stop_fd);
	kpc_sock_close(d->metrics.ctl);
	if (d->metrics.bpf)
		kpc_bpf_close(d->metrics.bpf);
	free(d->metrics.replay);
	if (d->store_ready) {
		pthread_mutex_destroy(&d->metrics.lock);
		kpx_store_fini(&d->store);
	}
	kpx_webconfig_free(d->http.web);
	if (d->catalogs_ready)
		kpx_catalogs_fini(&d->catalogs);
	kpx_sites_fini(&d->sites);
}

int main(int argc, char **argv)
{
	static struct kpx_daemon d = { .ingest.stop_fd = -1 };
	int status;

	/*
	 * One malloc arena for every thread, set before any is started.
	 * Otherwise the ingest thread gets an arena of its own, which glibc
	 * grows by what each allocation lacks, with an mprotect() per page:
	 * one system call and one page fault for every five records or so
	 * while the store fills.  The main arena grows by M_TOP_PAD (128 KiB)
	 * at a time; its lock is shared with HTTP threads that seldom allocate.
	 */
	mallopt(M_ARENA_MAX, 1);
	switch (kpx_options_parse(&d.cfg, argc, argv)) {
	case KPX_PARSE_HELP:
		return 0;
	case KPX_PARSE_BAD:
		return 2;
	default:
		break;
	}
	status = kpx_setup(&d);
	if (!status)
		kpx_serve(&d);
	kpx_teardown(&d);
	return status;
}
