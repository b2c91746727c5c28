/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint_exporter: serves what kprint knows over HTTP, for Prometheus
 * (/metrics) and for people (/records, /formats, /events).
 *
 *	kpx_main	options, signals, start and stop
 *	kpx_ingest	the subscriber thread: kpc_stream into the store
 *	kpx_records	the store of recent records, /records queries, the
 *			--catalog files they are translated with
 *	kpx_metrics	the Prometheus text exposition and /formats
 *	kpx_http	libmicrohttpd: routing, errors, limits
 *	kpx_events	/events: records live as Server-Sent Events
 *	kpx_replay	--replay: records from a saved JSON dump instead
 *	kpx_caps	dropping privileges after setup
 *	kpx_webconfig	--web.config.file (exporter-toolkit's YAML)
 *	kpx_auth	client certificates, basic auth, TLS material checks
 *	kpx_journal	--journal: records into the systemd journal
 *
 * Threads: one ingest thread, libmicrohttpd's threads, and main waiting
 * for a signal.  The store has its own lock; everything a scrape touches
 * (the BPF maps, the stats socket) is under the scrape lock, because
 * libkpc objects are not thread-safe.  The event streams have a lock of
 * their own, taken inside the store's when both are needed, never the
 * other way round.
 */
#ifndef KPX_H
#define KPX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "kpc.h"
#include "kpx_page.h"

#define KPX_LISTEN_DEFAULT	"127.0.0.1:9464"
#define KPX_LISTEN_MAX		16	/* --web.listen-address given this often */
#define KPX_TELEMETRY_DEFAULT	"/metrics"
#define KPX_RECORDS_DEFAULT	10000
#define KPX_MAX_SERIES_DEFAULT	5000
#define KPX_LIMIT_DEFAULT	100
#define KPX_LIMIT_MAX		1000
#define KPX_STREAMS_DEFAULT	32	/* --web.max-streams */
#define KPX_STREAMS_MAX		64	/* all the connections of one address */
/*
 * The HTTP side's limits (kpx_http.c says why, kprint_exporter(8) too):
 * connections in all and per client address, and requests in flight per
 * client address (--web.max-requests).  Past any of them, 503.
 */
#define KPX_HTTP_CONNECTIONS	256
#define KPX_HTTP_PER_IP		64
#define KPX_REQUESTS_DEFAULT	40	/* --web.max-requests, as node_exporter's */
#define KPX_REQUESTS_MAX	KPX_HTTP_PER_IP
#define KPX_HTTP_RETRY_AFTER	"1"	/* s, in every 503 of a limit */
#define KPX_STR_(x)		#x
#define KPX_STR(x)		KPX_STR_(x)	/* a number macro's digits */
#define KPX_KEEPALIVE_DEFAULT_MS 15000	/* --web.events-keepalive */
#define KPX_CATALOGS_MAX	32	/* --catalog given this often */
#define KPX_LANG_MAX		36	/* a lang= value, NUL included */

/* The recent records, oldest overwritten first, and what ingest counted. */
struct kpx_store {
	pthread_mutex_t lock;
	struct kpc_record **ring;	/* cap slots, kpc_record_dup() copies */
	size_t cap;
	size_t head;			/* the slot the next record goes to */
	size_t n;			/* records held, <= cap */
	size_t descents;		/* neighbours whose seq does not go up */

	uint64_t received;
	uint64_t lost[KPC_LOST_REASONS];	/* by enum kpc_lost_reason */
	uint64_t resyncs;		/* gaps and overruns recovered from */
	uint64_t malformed;
	uint64_t reloads;		/* times kprint.ko came back */
	uint64_t forged;		/* datagrams not from the kernel, dropped */
	bool ingest_up;			/* the subscription is alive */
	bool module_loaded;		/* the kprint family is registered */
	bool replay;			/* records from --replay: no kernel at all */

	/*
	 * Where a record is, for /events: the store numbers every record it
	 * takes (its position, 0 for the first, counted by received), and
	 * names the module instance they are of.  Sequence numbers restart
	 * when kprint.ko is loaded again; the instance does not: it is drawn
	 * at random when the store starts and goes up by one at each
	 * reload, so that an event id of another exporter process or of an
	 * earlier instance is never taken for one of this instance.
	 */
	uint32_t instance;
	uint64_t instance_start;	/* position of the instance's first record */
	/* Called under the lock when records came or the instance changed. */
	void (*notify)(void *ctx);
	void *notify_ctx;
};

int kpx_store_init(struct kpx_store *s, size_t cap);
void kpx_store_fini(struct kpx_store *s);
/* Take ownership of n records (kpc_record_dup() copies), under one lock. */
void kpx_store_add(struct kpx_store *s, struct kpc_record **recs, size_t n);
/*
 * kprint.ko was loaded again: drop the old instance's records, whose
 * sequence numbers the new one reuses (paging by seq would mix them).
 */
void kpx_store_reload(struct kpx_store *s);
/*
 * The record at position pos, or NULL if the store no longer (or does
 * not yet) hold it.  Called with the store locked.
 */
const struct kpc_record *kpx_store_at(const struct kpx_store *s, uint64_t pos);
/* Position of the first record kept with a sequence number above after. */
uint64_t kpx_store_pos_after(const struct kpx_store *s, uint64_t after);

/* An event id: "INSTANCE-SEQ", the instance 8 hex digits (kpx_store). */
#define KPX_ID_MAX	32
int kpx_id_parse(const char *s, uint32_t *instance, uint64_t *seq);

/*
 * The --catalog files, one per language, read whole and never changed: a
 * SIGHUP reads them again into a new set and swaps it in, and the old set
 * goes when its last user (a /records answer being written, a stream's
 * fill) puts it back.
 */
struct kpx_catalog_lang {
	char *path;
	const char *lang;		/* the catalog's Language: */
	struct kpc_catalog *cat;
};

struct kpx_catalog_set {
	unsigned int refs;		/* atomic */
	size_t n;
	struct kpx_catalog_lang l[];	/* by language, ascending */
};

struct kpx_catalogs {
	pthread_mutex_t lock;		/* set's pointer, taking a reference */
	struct kpx_catalog_set *set;	/* NULL: no --catalog */
	const char *const *paths;	/* as given, read again on SIGHUP */
	size_t npaths;
};

/*
 * Read paths[n] into a new set: each must name its language in the
 * header (Language:), one file per language.  0 with *out; -EINVAL after
 * saying "FILE:LINE: reason" on stderr, or another -errno, said too.
 */
int kpx_catalogs_load(const char *const *paths, size_t n, struct kpx_catalog_set **out);
/* Serve set (may be NULL: none), read from paths again by reload. */
void kpx_catalogs_init(struct kpx_catalogs *c, const char *const *paths, size_t n,
		       struct kpx_catalog_set *set);
/* SIGHUP: the files again; 0 once swapped in, else the old set stays. */
int kpx_catalogs_reload(struct kpx_catalogs *c);
void kpx_catalogs_fini(struct kpx_catalogs *c);
/* The set served now, with a reference (NULL: none, or c NULL); put it back. */
struct kpx_catalog_set *kpx_catalogs_get(struct kpx_catalogs *c);
void kpx_catalog_set_put(struct kpx_catalog_set *set);
/* The catalog of lang in set (either may be NULL), or NULL. */
const struct kpc_catalog *kpx_catalog_find(const struct kpx_catalog_set *set,
					   const char *lang);
/* GET /catalogs: [{"language":"de","translations":N},...] (malloc'd) or NULL. */
char *kpx_catalogs_json(struct kpx_catalogs *c);
/*
 * A record as /records and /events write it: with cat, text_translated
 * (the text where cat does not translate it).  0, or -ENOMEM.
 */
int kpx_record_write(FILE *f, const struct kpc_record *rec, const struct kpc_catalog *cat);

/* A parsed /records query. */
struct kpx_query {
	struct kpc_filter filter;
	bool has_format_id;
	uint64_t format_id;
	const char *q;			/* substring of the format; NULL: any */
	bool has_after;
	uint64_t after;
	unsigned int limit;
	/*
	 * /events: after is an event id (after_instance with after), and
	 * limit is no parameter.
	 */
	bool events;
	uint32_t after_instance;
	/*
	 * lang=: a language of catalogs (which the caller sets before the
	 * parameters), checked when given; records then carry
	 * text_translated.
	 */
	struct kpx_catalogs *catalogs;
	const char *lang;		/* NULL: no translation */
};

void kpx_query_init(struct kpx_query *q);
/*
 * Apply one query parameter.  value may be NULL ("?b" with no '=');
 * value_len is its length as sent, so that a %00 inside shows.  Returns
 * 0, or -EINVAL with a message for the client in err.
 */
int kpx_query_param(struct kpx_query *q, const char *name, const char *value,
		    size_t value_len, char *err, size_t errlen);
bool kpx_query_match(const struct kpx_query *q, const struct kpc_record *rec);

/*
 * The records matching q as a JSON array, in sequence order: with after,
 * the first limit records past it (so paging by the last seq seen loses
 * and repeats nothing); without, the most recent limit.  NULL: no memory.
 */
char *kpx_records_json(struct kpx_store *s, const struct kpx_query *q);

struct kpx_http;

struct kpx_metrics {
	pthread_mutex_t lock;		/* scrapes one at a time */
	struct kpc_bpf *bpf;		/* NULL: BPF off or failed */
	char bpf_error[256];		/* why bpf is NULL, "" for --no-bpf */
	struct kpc_sock *ctl;		/* kpc_stats_get(); NULL: unavailable */
	unsigned int max_series;
	struct kpx_store *store;
	/* --replay: the file's records counted per format, source "replay". */
	struct kpc_format_count *replay;
	size_t nreplay;
	struct kpx_events *events;	/* NULL: no streams, their counts 0 */
	struct kpx_http *http;		/* NULL: no HTTP refusals counted */
	struct kpx_catalogs *catalogs;	/* NULL: no --catalog */
	struct kpx_journal *journal;	/* NULL: no --journal */
};

/*
 * Every metric /metrics serves, each named and explained once, in
 * kpx_metric_defs[]: the exposition writer prints HELP, TYPE and samples
 * from it, and anything else that names a metric (messages, help) takes
 * the name from there.
 */
enum kpx_metric {
	KPX_M_BPF_UP,
	KPX_M_BPF_ATTACHED,
	KPX_M_FORMAT_MESSAGES,
	KPX_M_BPF_MESSAGES,
	KPX_M_BPF_OVERFLOW,
	KPX_M_BPF_UPDATE_FAILURES,
	KPX_M_BPF_PRINTK_HOOK,
	KPX_M_BPF_HANDOFF_TORN,
	KPX_M_BPF_HANDOFF_SWITCHED,
	KPX_M_RATELIMIT_CALLS,
	KPX_M_RATELIMIT_SUPPRESSED,
	KPX_M_KERNEL_UP,
	KPX_M_KERNEL_RECORDS,
	KPX_M_KERNEL_OVERWRITTEN,
	KPX_M_BRIDGE_ENABLED,
	KPX_M_BRIDGE_RECORDS,
	KPX_M_BRIDGE_SKIPPED,
	KPX_M_BRIDGE_DROPPED,
	KPX_M_BRIDGE_BACKLOG,
	KPX_M_INGEST_UP,
	KPX_M_MODULE_LOADED,
	KPX_M_MODULE_RELOADS,
	KPX_M_RECORDS_RECEIVED,
	KPX_M_RECORDS_LOST,
	KPX_M_RESYNCS,
	KPX_M_RECORDS_MALFORMED,
	KPX_M_FORGED_DATAGRAMS,
	KPX_M_EVENT_STREAMS,
	KPX_M_EVENT_STREAMS_REFUSED,
	KPX_M_EVENTS_SENT,
	KPX_M_EVENTS_LOST,
	KPX_M_HTTP_REFUSED,
	KPX_M_CATALOG_TRANSLATIONS,
	KPX_M_BUILD_INFO,
	KPX_M_SCRAPE_DURATION,
	KPX_NR_METRICS
};

struct kpx_metric_def {
	const char *name;
	const char *type;		/* "counter" or "gauge" */
	const char *help;
};

extern const struct kpx_metric_def kpx_metric_defs[KPX_NR_METRICS];

static inline const char *kpx_metric_name(enum kpx_metric m)
{
	return kpx_metric_defs[m].name;
}

/* Write label value s escaped per the exposition format, valid UTF-8. */
void kpx_label_escape(FILE *out, const char *s);
/*
 * Write the per-format series of one source, at most max_series of them
 * (largest counts first) and the rest summed into format="__overflow__".
 * Sorts f.
 */
void kpx_metrics_formats(FILE *out, const char *source,
			 struct kpc_format_count *f, size_t n,
			 unsigned int max_series);
/*
 * The printk bridge's families (kprint_bridge_*) from the module's
 * counters; nothing when it did not send them all (no bridge in it).
 */
void kpx_metrics_bridge(FILE *out, const struct kpc_stats *st);
/* The whole /metrics page (malloc'd) or NULL. */
char *kpx_metrics_render(struct kpx_metrics *m, size_t *len);
/* The /formats JSON array (malloc'd) or NULL. */
char *kpx_formats_json(struct kpx_metrics *m, int *status);

/*
 * /metrics' two expositions (kpx_metrics.c), one writer: the Prometheus
 * text format 0.0.4, or OpenMetrics 1.0.0 (counter families named without
 * _total, exemplars on the per-format counters, "# EOF").  A family
 * written from outside kpx_metrics.c takes its HELP and TYPE from
 * kpx_expo_head() and writes its samples to out, in either format.
 */
enum kpx_expo_format {
	KPX_EXPO_TEXT,
	KPX_EXPO_OPENMETRICS,
};

struct kpx_latest_set;

struct kpx_expo {
	FILE *out;
	enum kpx_expo_format format;
	const struct kpx_latest_set *latest;	/* exemplars; NULL: none */
};

/* The exposition an Accept header (NULL: none) asks for; text by default. */
enum kpx_expo_format kpx_metrics_negotiate(const char *accept);
const char *kpx_metrics_content_type(enum kpx_expo_format format);
/* The whole /metrics page in format (malloc'd) or NULL. */
char *kpx_metrics_render_as(struct kpx_metrics *m, enum kpx_expo_format format, size_t *len);
void kpx_expo_head(struct kpx_expo *e, const struct kpx_metric_def *d);
/* FNV-1a 64 of "subsystem\0module\0", the BPF maps' tags_id (kpx_replay.c). */
uint64_t kpx_tags_id(const char *subsystem, const char *module);

/*
 * Per-format counts built from records, keyed as the BPF maps are: format
 * id, tags id (FNV-1a 64 of "subsystem\0module\0"), level and class.
 */
struct kpx_counts {
	struct kpc_format_count *f;
	size_t n, cap;
	uint32_t *index;		/* open addressing: 1 + index into f, 0 free */
	size_t mask;			/* slots - 1, a power of two less one */
};

int kpx_counts_add(struct kpx_counts *c, const struct kpc_record *rec);
void kpx_counts_fini(struct kpx_counts *c);

/* What one line of a replay file holds. */
struct kpx_replay_line {
	struct kpc_record *rec;		/* a record (kpc_record_dup()), or NULL */
	uint64_t lost;			/* a lost line: how many, and why */
	enum kpc_lost_reason reason;
};

/*
 * Decode one line (len bytes, no newline needed) of `kprint --json` output.
 * Returns 1 with out->rec for a record, 0 for a lost line (out->lost set),
 * a module line or a blank line, -ENOMEM, or -EINVAL with the reason in err.
 */
int kpx_replay_parse(const char *line, size_t len, struct kpx_replay_line *out,
		     char *err, size_t errlen);
/*
 * Load a whole replay file ("-": stdin) into the store, and count its
 * records per format into *counts.  Returns 0; -EINVAL for a bad line,
 * said on stderr with FILE:LINE; -errno when the file cannot be read.
 */
int kpx_replay_load(const char *path, struct kpx_store *s,
		    struct kpc_format_count **counts, size_t *n);

struct kpx_ingest {
	struct kpx_store *store;
	int rcvbuf;
	int stop_fd;			/* eventfd: readable when asked to stop */
	pthread_t thread;
	bool running;			/* the thread was started */
	struct kpc_stream *st;
	/*
	 * --journal: what ingest receives, and of the ring's records read at
	 * the start those the journal does not have (kpx_journal_add_ring()).
	 */
	struct kpx_journal *journal;
};

/* Subscribe and read the ring (needs privileges); no thread yet. */
int kpx_ingest_open(struct kpx_ingest *in);
/* Start the subscriber thread, which needs none. */
int kpx_ingest_run(struct kpx_ingest *in);
/* Stop the thread (if it runs) and close the subscription. */
void kpx_ingest_stop(struct kpx_ingest *in);

/*
 * Drop every capability but, if keep_sys_admin, CAP_SYS_ADMIN in the
 * permitted set (effective: none), and set no_new_privs.  Affects the
 * calling thread and the threads it creates afterwards: call it before
 * any thread exists.
 */
int kpx_drop_privileges(bool keep_sys_admin);

/* client_auth_type, in exporter-toolkit's (and crypto/tls') order. */
enum kpx_client_auth {
	KPX_CLIENT_NONE,		/* NoClientCert */
	KPX_CLIENT_REQUEST,		/* RequestClientCert: asked, not checked */
	KPX_CLIENT_REQUIRE_ANY,		/* RequireAnyClientCert: any, unverified */
	KPX_CLIENT_VERIFY_IF_GIVEN,	/* VerifyClientCertIfGiven */
	KPX_CLIENT_REQUIRE_VERIFY,	/* RequireAndVerifyClientCert */
	KPX_NR_CLIENT_AUTH
};

struct kpx_user {
	char *name;
	char *hash;			/* bcrypt: $2a$, $2b$ or $2y$ */
};

struct kpx_auth_cache;

/* A parsed --web.config.file; replaced whole on SIGHUP, never changed. */
struct kpx_web {
	char *path;
	bool tls;			/* tls_server_config with cert and key */
	char *cert_pem, *key_pem;	/* as read, NUL-terminated */
	char *ca_pem;			/* client_ca_file, or NULL */
	unsigned int cert_at, key_at, ca_at;	/* their lines, for errors */
	enum kpx_client_auth client_auth;
	char priorities[96];		/* GnuTLS': min_version..max_version */
	struct kpx_user *users;		/* basic_auth_users; none: no auth */
	size_t nusers;
	struct kpx_auth_cache *cache;	/* verified credentials (kpx_auth.c) */
};

/*
 * Read and check a web config: 0 with *out, or -EINVAL after saying
 * "FILE:LINE: reason" on stderr (-ENOMEM: out of memory, said too).
 */
int kpx_webconfig_load(const char *path, struct kpx_web **out);
void kpx_webconfig_free(struct kpx_web *w);
const char *kpx_client_auth_name(enum kpx_client_auth a);

/* Load cert and key (and client CA) into GnuTLS as a check; FILE:LINE. */
int kpx_tls_check(const struct kpx_web *w, const char *path);
int kpx_auth_init(struct kpx_web *w);
void kpx_auth_fini(struct kpx_web *w);

enum kpx_auth_verdict {
	KPX_AUTH_OK,
	KPX_AUTH_DENIED,		/* 401 and WWW-Authenticate */
	KPX_AUTH_CLOSE,			/* client certificate refused: no answer */
	KPX_AUTH_ERROR,			/* out of memory: 500 */
};

struct MHD_Connection;
/* May the request on c be served under w?  Thread-safe. */
enum kpx_auth_verdict kpx_auth_request(struct kpx_web *w, struct MHD_Connection *c);

struct MHD_Daemon;
struct MHD_Response;
struct kpx_conn;
struct kpx_stream;

/*
 * What each daemon serves with: the web config it was started under.  A
 * reload starts new daemons with a new one and stops the old daemons
 * before their config goes, so a request never sees a config freed.
 */
struct kpx_serving {
	struct kpx_http *h;
	struct kpx_web *web;		/* NULL: open HTTP */
	bool retired;			/* its daemons stop: no new streams (events lock) */
};

/* Why a stream skipped records: the reasons of a lost event. */
enum kpx_lost {
	KPX_LOST_OVERWRITTEN,		/* the store no longer holds them */
	KPX_LOST_RELOADED,		/* of another module instance */
	KPX_NR_LOST
};

/* Their names, in lost events and in kprint_exporter_events_lost_total. */
extern const char *const kpx_lost_names[KPX_NR_LOST];

/* The /events streams (kpx_events.c). */
struct kpx_events {
	pthread_mutex_t lock;
	struct kpx_store *store;
	struct kpx_stream *streams;	/* open ones */
	unsigned int nstreams;
	unsigned int max_streams;	/* --web.max-streams; 0: the default */
	unsigned int keepalive_ms;	/* --web.events-keepalive; 0: the default */
	struct kpx_catalogs *catalogs;	/* for lang=; NULL: none */
	unsigned int nsuspended;
	/*
	 * Threads run that wake a suspended stream (ingest, the watchdog's
	 * keepalives).  Without them (the fuzzer's daemon, driven by hand)
	 * a stream ends once it has sent what the store holds.
	 */
	bool live;
	bool ready;			/* the lock is initialised */
	uint64_t refused;		/* streams turned away: over the cap */
	uint64_t sent;			/* record events */
	uint64_t lost[KPX_NR_LOST];	/* lost events */
};

void kpx_events_init(struct kpx_events *ev, struct kpx_store *store, bool live);
/* Every stream ends (at once, suspended or not): before the daemons stop. */
void kpx_events_end(struct kpx_events *ev);
/* After they stopped. */
void kpx_events_fini(struct kpx_events *ev);
/*
 * A stream for connection c of serving sv, from the position q says
 * (after= or Last-Event-ID: q->has_after); its filters are copied.
 * 0 with *resp to queue; -EBUSY over the cap; -ENOMEM.
 */
int kpx_events_open(struct kpx_events *ev, struct kpx_serving *sv,
		    struct MHD_Connection *c, const struct kpx_query *q,
		    struct MHD_Response **resp);
/* End the streams of sv, whose daemons are about to stop (SIGHUP). */
void kpx_events_retire(struct kpx_events *ev, struct kpx_serving *sv);
/* Twice a second: keepalives for the streams idle for long enough. */
void kpx_events_tick(struct kpx_events *ev);

/* One --web.listen-address: its socket is the acceptor's (kpx_accept.c). */
struct kpx_listener {
	int fd;
	char addr[80];			/* where it listens, as ADDR:PORT */
};

/* A client address, as the limits count them. */
struct kpx_addr {
	sa_family_t family;
	uint8_t bytes[16];
};

/* What one client address holds (kpx_http.conn_lock). */
struct kpx_peer {
	struct kpx_addr addr;
	unsigned int conns;		/* admitted, not yet closed */
	unsigned int inflight;		/* requests not yet answered */
};

/* Why a connection or a request was refused: kprint_exporter_http_refused_total. */
enum kpx_refusal {
	KPX_REFUSED_CONNECTIONS,	/* KPX_HTTP_CONNECTIONS open in all */
	KPX_REFUSED_ADDRESS,		/* KPX_HTTP_PER_IP open from its address */
	KPX_REFUSED_REQUESTS,		/* --web.max-requests in flight from its address */
	KPX_NR_REFUSED
};
extern const char *const kpx_refusal_names[KPX_NR_REFUSED];

/*
 * A connection libmicrohttpd serves, watched by kpx_http.c's watchdog
 * and counted against its address (its socket context).
 */
struct kpx_conn {
	struct kpx_conn *prev, *next;
	int fd;
	double deadline;		/* CLOCK_MONOTONIC, s */
	bool cut;
	bool inflight;			/* a request counted in its peer's inflight */
	struct kpx_addr addr;
};

#define KPX_LINGER_MAX	256		/* refused connections drained at once */

/* A refused connection, drained until its client closes (kpx_accept.c). */
struct kpx_linger {
	int fd;
	double until;			/* CLOCK_MONOTONIC, s */
};

struct kpx_http {
	struct kpx_metrics *metrics;
	struct kpx_store *store;
	/* The daemon every listener's connections go to (mhd_lock). */
	struct MHD_Daemon *mhd;
	pthread_mutex_t mhd_lock;
	bool mhd_tls;			/* it speaks TLS: a refusal cannot be a 503 */
	struct kpx_listener lst[KPX_LISTEN_MAX];
	unsigned int nlst;
	const char *telemetry_path;	/* NULL: /metrics */
	struct kpx_page page;		/* the / page; no assets: links only */
	struct kpx_catalogs *catalogs;	/* lang= and /catalogs; NULL: none */
	/* The web config being served; NULL: open HTTP. */
	struct kpx_web *web;
	struct kpx_serving *serving;
	struct kpx_events events;
	/* The slow-client watchdog (see kpx_http.c). */
	pthread_mutex_t conn_lock;
	pthread_cond_t conn_cond;
	struct kpx_conn *conns;
	unsigned int nconns;		/* admitted, not yet closed */
	struct kpx_peer peers[KPX_HTTP_CONNECTIONS];
	unsigned int npeers;
	unsigned int max_requests;	/* --web.max-requests; 0: the default */
	uint64_t refused[KPX_NR_REFUSED];
	bool watchdog, stopping;
	pthread_t watchdog_thread;
	/* The acceptor (kpx_accept.c): accepts, admits or refuses. */
	bool acceptor;
	pthread_t accept_thread;
	int accept_wake;		/* an eventfd that stops it */
	struct kpx_linger linger[KPX_LINGER_MAX];
	unsigned int nlinger;
};

/*
 * Add a listening socket for "ADDR:PORT" or "[ADDR6]:PORT" (numeric; port
 * 0 picks a free one, h->lst[].addr says which).  Separate from starting,
 * so that it happens before privileges are dropped.
 */
int kpx_http_listen(struct kpx_http *h, const char *listen);
/* Serve every listener under h->web with libmicrohttpd's threads. */
int kpx_http_start(struct kpx_http *h);
/*
 * Serve under web from now on, on the same sockets: new daemons take them
 * over before the old ones let go, so no connection attempt is refused.
 * 0: web is h's, and *was the old config, no longer used, for the caller
 * to free; else nothing changed.
 */
int kpx_http_reload(struct kpx_http *h, struct kpx_web *web, struct kpx_web **was);
/*
 * The same handler and limits with no listening socket and no threads, for
 * the fuzzer: connections come from MHD_add_connection() and are driven
 * by MHD_run() in the caller's thread.
 */
int kpx_http_start_nolisten(struct kpx_http *h);
void kpx_http_stop(struct kpx_http *h);

/* kpx_accept.c: the listeners' accept loop, and the counts by address. */
int kpx_accept_start(struct kpx_http *h);
void kpx_accept_stop(struct kpx_http *h);
/* sa as the limits count it; false for a family they do not count. */
bool kpx_addr_of(const struct sockaddr *sa, struct kpx_addr *a);
/* The counts of a (conn_lock held), made when create; NULL when not. */
struct kpx_peer *kpx_peer_get(struct kpx_http *h, const struct kpx_addr *a, bool create);
/* Forget p once it holds nothing (conn_lock held). */
void kpx_peer_put(struct kpx_http *h, struct kpx_peer *p);
double kpx_mono(void);

/*
 * --journal (kpx_journal.c): ingest hands every batch to kpx_journal_add(),
 * which copies the records into a bounded queue and never blocks on
 * journald; one writer thread sends them with sd_journal_sendv().
 */
#define KPX_JOURNAL_QUEUE_DEFAULT 65536	/* --journal-queue */
#define KPX_JOURNAL_IDENTIFIER	"kprint"	/* SYSLOG_IDENTIFIER */
#define KPX_JOURNAL_FIELDS_MAX	(40 + KPRINT_ARGS_MAX)

/* Why a record --journal received did not reach journald. */
enum kpx_journal_lost {
	KPX_JOURNAL_LOST_QUEUE_FULL,
	KPX_JOURNAL_LOST_NOMEM,
	KPX_JOURNAL_LOST_SEND_FAILED,
	KPX_JOURNAL_LOST_STOPPED,
	KPX_JOURNAL_NR_LOST
};

extern const char *const kpx_journal_lost_names[KPX_JOURNAL_NR_LOST];

struct kpx_journal {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* records queued, or stop */
	struct kpc_record **q;		/* cap slots, kpc_record_dup() copies */
	size_t cap, head, n;
	size_t writing;			/* taken off the queue, being sent */
	size_t high_water;
	const char *ns;			/* $LOG_NAMESPACE; NULL: the system journal */
	bool ready, running, stop;
	unsigned int drain_ms;		/* a stop's wait for journald (5 s) */
	pthread_t thread;
	uint64_t queued, written;
	uint64_t lost[KPX_JOURNAL_NR_LOST];
	uint64_t send_ns;		/* time in sd_journal_sendv() */
	/* Where the journal left off (kpx_journal_resume()). */
	bool resume_known;		/* asked the journal, and it answered */
	bool resume_found;		/* an entry of ours, its record's: */
	uint64_t resume_seq, resume_mono_ns, resume_real_ns;
	size_t resumed;			/* records the ring had that it had not */
};

/* One record's journal fields, "NAME=value" each (reused, grown as needed). */
struct kpx_journal_entry {
	struct iovec iov[KPX_JOURNAL_FIELDS_MAX];
	size_t off[KPX_JOURNAL_FIELDS_MAX];
	unsigned int n;
	char *buf;
	size_t len, cap;
};

int kpx_journal_init(struct kpx_journal *j, size_t cap);
int kpx_journal_start(struct kpx_journal *j);
/* Copy n records into the queue; what does not fit is counted lost.  j may be NULL. */
void kpx_journal_add(struct kpx_journal *j, struct kpc_record *const *recs, size_t n);
/*
 * Read where the journal left off: the last entry with
 * SYSLOG_IDENTIFIER=kprint, in j's namespace (needs the right to read it:
 * call it before privileges are dropped).  0, or -errno: then
 * kpx_journal_add_ring() writes nothing of the ring.
 */
int kpx_journal_resume(struct kpx_journal *j);
/*
 * The records the ring held at the start (in seq order): those the journal
 * does not have yet, by kpx_journal_resume()'s answer, into the queue.
 */
void kpx_journal_add_ring(struct kpx_journal *j, struct kpc_record *const *recs, size_t n);
/*
 * Stop the writer after it emptied the queue (drain_ms at most; a send
 * journald still does not take a second later is cancelled), and free it.
 */
void kpx_journal_stop(struct kpx_journal *j);
/* The fields of rec into e (docs/journal.md); 0, -ENOMEM or -E2BIG. */
int kpx_journal_entry_build(struct kpx_journal_entry *e, const struct kpc_record *rec);
void kpx_journal_entry_fini(struct kpx_journal_entry *e);
struct kpx_expo;
/* The kprint_exporter_journal_* families (j NULL: --journal is off). */
void kpx_journal_metrics(struct kpx_expo *e, struct kpx_journal *j);

#endif /* KPX_H */
