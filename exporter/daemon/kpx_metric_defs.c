// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics /metrics serves of its own, each named and explained once.
 * The module's counters are not here: their families come from the spec
 * (kpx_stats_metrics.c, generated), and --journal's from kpx_journal.c.
 */
#include "kpx_expo.h"
#include "kpx_http.h"

const struct kpx_metric_def kpx_metric_defs[KPX_NR_METRICS] = {
	[KPX_M_BPF_UP] = { "kprint_bpf_up", "gauge",
		"Whether the in-kernel BPF per-format counters are loaded (1) or not (0)." },
	[KPX_M_BPF_ATTACHED] = { "kprint_bpf_attached", "gauge",
		"Whether the BPF hook of a source counts now." },
	[KPX_M_FORMAT_MESSAGES] = { "kprint_format_messages_total", "counter",
		"Messages per format, level, class, subsystem and module, counted in the kernel "
		"by BPF; printk has class none and empty subsystem and module; source replay: "
		"the records of a --replay file; past --max-series per source the rest is "
		"summed in format __overflow__ with the other labels empty." },
	[KPX_M_BPF_MESSAGES] = { "kprint_bpf_messages_total", "counter",
		"Messages seen by the BPF hook of a source." },
	[KPX_M_BPF_OVERFLOW] = { "kprint_bpf_overflow_total", "counter",
		"Messages of a source seen but not counted per format: the map update failed "
		"(kprint_bpf_update_failures_total) or the format was unreadable." },
	[KPX_M_BPF_UPDATE_FAILURES] = { "kprint_bpf_update_failures_total", "counter",
		"BPF map updates that failed, per source (kprint, printk, ratelimit) and reason: "
		"full (E2BIG), busy (EBUSY, the bucket lock taken on this CPU), nomem, other." },
	[KPX_M_BPF_PRINTK_HOOK] = { "kprint_bpf_printk_hook_messages_total", "counter",
		"printk messages counted per key, all by one hook at the entry of vprintk_store: "
		"plain (the key it computes: kprint.ko not bridging them), bridge (the key "
		"kprint.ko's bridge handed over) or echo (kprint.ko's echo of a record, counted "
		"per format as that record, source kprint); each message once." },
	[KPX_M_BPF_HANDOFF_TORN] = { "kprint_bpf_handoff_torn_total", "counter",
		"Bridged printk messages whose handoff slot was reused while being read, counted "
		"under the plain key instead (docs/bpf-counters.md)." },
	[KPX_M_BPF_HANDOFF_SWITCHED] = { "kprint_bpf_handoff_switched_total", "counter",
		"Bridged printk messages whose task was switched out between the bridge's hook and "
		"the counter's, both at the entry of vprintk_store (a preemptible kernel): counted "
		"under the newest slot "
		"with their task and pointers (docs/bpf-counters.md)." },
	[KPX_M_RATELIMIT_CALLS] = { "kprint_ratelimit_calls_total", "counter",
		"Calls of the kernel's ___ratelimit() seen by BPF." },
	[KPX_M_RATELIMIT_SUPPRESSED] = { "kprint_ratelimit_suppressed_total", "counter",
		"Calls ___ratelimit() refused (the caller dropped its message), per caller name "
		"(its __func__; net_ratelimit for net_ratelimit(), the writer's comm for "
		"/dev/kmsg), summed over the ratelimit states of that name." },
	[KPX_M_KERNEL_UP] = { "kprint_kernel_up", "gauge",
		"Whether the module's counters could be read at this scrape." },
	[KPX_M_INGEST_UP] = { "kprint_exporter_ingest_up", "gauge",
		"Whether the exporter's subscription to kprint records is alive." },
	[KPX_M_MODULE_LOADED] = { "kprint_module_loaded", "gauge",
		"Whether kprint.ko is loaded, as the exporter's subscription last saw." },
	[KPX_M_MODULE_RELOADS] = { "kprint_exporter_module_reloads_total", "counter",
		"Times kprint.ko was loaded again while the exporter ran; its sequence "
		"numbers restart and /records starts afresh each time." },
	[KPX_M_RECORDS_RECEIVED] = { "kprint_exporter_records_received_total", "counter",
		"Records the exporter received from the kernel." },
	[KPX_M_RECORDS_LOST] = { "kprint_exporter_records_lost_total", "counter",
		"Records the exporter could not get, by reason." },
	[KPX_M_RESYNCS] = { "kprint_exporter_resyncs_total", "counter",
		"Times notifications were skipped or overran and the ring was re-read." },
	[KPX_M_RECORDS_MALFORMED] = { "kprint_exporter_records_malformed_total", "counter",
		"Records that could not be decoded." },
	[KPX_M_FORGED_DATAGRAMS] = { "kprint_exporter_forged_datagrams_total", "counter",
		"Netlink datagrams another process sent to the exporter's sockets, posing as "
		"the kernel: dropped unread, never shown." },
	[KPX_M_EVENT_STREAMS] = { "kprint_exporter_event_streams", "gauge",
		"/events streams open now." },
	[KPX_M_EVENT_STREAMS_REFUSED] = { "kprint_exporter_event_streams_refused_total", "counter",
		"/events requests answered 503: --web.max-streams streams were open." },
	[KPX_M_RECORDS_WAITING] = { "kprint_exporter_records_waiting", "gauge",
		"/records answers held now for records to come (wait=)." },
	[KPX_M_EVENTS_SENT] = { "kprint_exporter_events_sent_total", "counter",
		"Records sent as events, over all /events streams." },
	[KPX_M_EVENTS_LOST] = { "kprint_exporter_events_lost_total", "counter",
		"lost events sent, by reason: overwritten (the store no longer held records "
		"a stream had not taken: a slow client, or an old Last-Event-ID), reloaded "
		"(records of an earlier kprint.ko instance, or an id this exporter does not know)." },
	[KPX_M_HTTP_REFUSED] = { "kprint_exporter_http_refused_total", "counter",
		"HTTP connections and requests answered 503 for a limit, by reason: connections "
		"(" KPX_STR(KPX_HTTP_CONNECTIONS) " open in all), address ("
		KPX_STR(KPX_HTTP_PER_IP) " open from the client's address), requests "
		"(--web.max-requests in flight from the client's address)." },
	[KPX_M_CATALOG_TRANSLATIONS] = { "kprint_exporter_catalog_translations", "gauge",
		"Formats the --catalog file of a language translates, as last read (at start "
		"or on a SIGHUP that took it); one series per language served with lang=." },
	[KPX_M_SITES_LOADED] = { "kprint_sites_loaded", "gauge",
		"Whether the running kernel's call-site catalog (kprint sites build, in "
		"--sites.dir) is loaded (1) or not (0: missing, or refused as corrupt)." },
	[KPX_M_SITES_ENTRIES] = { "kprint_sites_entries", "gauge",
		"Entries of the call-site catalog served, labelled with the kernel it was built "
		"for; no series while none is loaded." },
	[KPX_M_SITES_LOAD_FAILURES] = { "kprint_sites_load_failures_total", "counter",
		"Call-site catalog files that could not be read or were refused (each version of "
		"the file once), said with FILE:LINE on stderr." },
	[KPX_M_FORMATS_UNCATALOGED] = { "kprint_formats_uncataloged", "gauge",
		"Formats the exporter's counts know, per source (the BPF sources, replay, or "
		"records: the records held when there are no counts), that the call-site catalog "
		"has no entry for: kprint's own API, modules built out of tree, a catalog of "
		"another build; no series while no catalog is loaded." },
	[KPX_M_PROBLEM_CATALOG_RULES] = { "kprint_problem_catalog_rules", "gauge",
		"Rules of the problem catalog loaded (--problems.file; 0: none, as when the "
		"default file is not installed)." },
	[KPX_M_PROBLEM_TOTAL] = { "kprint_problem_total", "counter",
		"Records recognised as a kernel problem by the catalog, by problem and the "
		"rule's labels; past --problems.max-series label sets of a problem, in the "
		"series whose every label is overflow.  The exemplar names the latest record "
		"(seq, kprint_instance) and what it concerns (task, pid, memcg...)." },
	[KPX_M_PROBLEM_CONDITION] = { "kprint_problem_condition", "gauge",
		"A permanent condition (the catalog's kind condition) seen since the exporter "
		"started, by condition, problem and the rule's labels: always 1, for as long "
		"as the exporter runs (such a condition lasts until the machine reboots)." },
	[KPX_M_BUILD_INFO] = { "kprint_exporter_build_info", "gauge",
		"The exporter's version." },
	[KPX_M_SCRAPE_DURATION] = { "kprint_exporter_scrape_duration_seconds", "gauge",
		"How long this scrape took to collect." },
};
