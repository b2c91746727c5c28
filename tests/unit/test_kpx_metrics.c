// SPDX-License-Identifier: GPL-2.0
/*
 * kpx_metric_defs[] and kpx_stats_metrics[] (generated from the spec: the
 * module's counters), where every metric of /metrics is named and explained
 * once: each entry is complete and well formed for the exposition format,
 * no name is used twice, and a rendered page (a replay's: no kernel, no
 * BPF) has exactly the table's families, each HELP and TYPE from the table
 * and its samples right after them, in the text format and in OpenMetrics
 * (counter families named without _total, "# EOF" last); which of the two
 * an Accept header gets.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "kpx_metrics.h"
#include "kpx_stats_metrics.h"
#include "kpx_store.h"
#include "test_kpc_tap.h"

/* A family's definition, from either table. */
static bool metric_def(unsigned int i, struct kpx_metric_def *d)
{
	if (i < KPX_NR_METRICS) {
		*d = kpx_metric_defs[i];
		return true;
	}
	i -= KPX_NR_METRICS;
	d->name = kpx_stats_metrics[i].family;
	d->type = kpx_stats_metrics[i].type;
	d->help = kpx_stats_metrics[i].help;
	return d->name != NULL;
}

#define NR_DEFS (KPX_NR_METRICS + kpx_stats_nmetrics)

static void test_table(void)
{
	unsigned int i, j, n = 0, bad = 0, dup = 0;
	regex_t name_re;

	regcomp(&name_re, "^[a-zA-Z_:][a-zA-Z0-9_:]*$", REG_EXTENDED | REG_NOSUB);
	for (i = 0; i < NR_DEFS; i++) {
		struct kpx_metric_def def, other;
		const struct kpx_metric_def *d = &def;
		bool counter;

		if (!metric_def(i, &def))
			continue;	/* a further sample of a family of the spec */
		n++;
		if (!d->name || !d->type || !d->help) {
			printf("# metric %u is incomplete\n", i);
			bad++;
			continue;
		}
		counter = !strcmp(d->type, "counter");
		if (regexec(&name_re, d->name, 0, NULL, 0) || strncmp(d->name, "kprint_", 7) ||
		    (!counter && strcmp(d->type, "gauge")) ||
		    counter != (strlen(d->name) > 6 &&
				!strcmp(d->name + strlen(d->name) - 6, "_total")) ||
		    !*d->help || strpbrk(d->help, "\\\n")) {
			printf("# metric %s is malformed\n", d->name);
			bad++;
		}
		for (j = 0; j < i; j++)
			dup += metric_def(j, &other) && other.name && !strcmp(other.name, d->name);
	}
	regfree(&name_re);
	tap_ok(!bad, "all %u metrics have a Prometheus name with the kprint_ prefix, a type"
	       " (counters and only they end in _total) and a one-line HELP", n);
	tap_ok(!dup, "no metric name is declared twice");
}

/* A family's name in format: OpenMetrics names a counter's without _total. */
static size_t family_len(int i, enum kpx_expo_format format)
{
	struct kpx_metric_def d;
	size_t len;

	if (!metric_def(i, &d))
		return 0;
	len = strlen(d.name);
	return format == KPX_EXPO_OPENMETRICS && !strcmp(d.type, "counter") ? len - 6 : len;
}

/* The table entry whose family (sample, if !family) is named name, or -1. */
static int lookup(const char *name, size_t len, enum kpx_expo_format format, bool family)
{
	int i;

	for (i = 0; i < (int)NR_DEFS; i++) {
		struct kpx_metric_def d;

		if (metric_def(i, &d) &&
		    (family ? family_len(i, format) : strlen(d.name)) == len &&
		    !strncmp(d.name, name, len))
			return i;
	}
	return -1;
}

static void test_page(enum kpx_expo_format format)
{
	const char *fmt = format == KPX_EXPO_OPENMETRICS ? "OpenMetrics" : "text format";
	struct kpx_metrics m = { .lock = PTHREAD_MUTEX_INITIALIZER, .max_series = 10 };
	unsigned int seen[256] = { 0 }, i, unknown = 0, wrong = 0, orphans = 0;
	struct kpx_metric_def cur = { 0 };
	struct kpx_store store;
	char *page, *line, *save;
	int current = -1;
	size_t len;

	if (kpx_store_init(&store, 4)) {
		tap_ok(0, "a store for the page");
		return;
	}
	store.replay = true;
	m.store = &store;
	page = kpx_metrics_render_as(&m, format, &len);
	tap_ok(page != NULL, "a replay's /metrics page renders (%s)", fmt);
	if (format == KPX_EXPO_OPENMETRICS) {
		tap_ok(page && len > 7 && !strcmp(page + len - 6, "# EOF\n") &&
		       strstr(page, "\n# EOF\n") == page + len - 7,
		       "OpenMetrics: \"# EOF\" once, as the last line");
		if (page)
			page[len - 6] = '\0';	/* the parse below sees no # EOF */
	}
	for (line = strtok_r(page, "\n", &save); page && line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# HELP ", 7)) {
			const char *name = line + 7, *sp = strchr(name, ' ');
			char want[1024];

			current = sp ? lookup(name, sp - name, format, true) : -1;
			if (current < 0) {
				printf("# not in the table: %s\n", line);
				unknown++;
				continue;
			}
			seen[current]++;
			metric_def(current, &cur);
			snprintf(want, sizeof(want), "%s", cur.help);
			wrong += strcmp(sp + 1, want) != 0;
		} else if (!strncmp(line, "# TYPE ", 7)) {
			char want[256];

			snprintf(want, sizeof(want), "# TYPE %.*s %s",
				 current >= 0 ? (int)family_len(current, format) : 1,
				 current >= 0 ? cur.name : "?",
				 current >= 0 ? cur.type : "?");
			wrong += strcmp(line, want) != 0;
		} else {
			size_t n = strcspn(line, "{ ");

			/* A sample belongs to the family whose HELP came last. */
			if (current < 0 || lookup(line, n, format, false) != current) {
				printf("# sample outside its family: %s\n", line);
				orphans++;
			}
		}
	}
	for (i = 0; i < NR_DEFS && i < 256; i++) {
		bool kernel = i == KPX_M_KERNEL_UP || i >= KPX_NR_METRICS;

		/* A replay has no kernel to ask: its kprint_kernel_* are left out. */
		if (metric_def(i, &cur) && seen[i] != (kernel ? 0u : 1u)) {
			printf("# %s: %u HELP lines\n", cur.name, seen[i]);
			wrong++;
		}
	}
	tap_ok(page && !unknown && !wrong && !orphans,
	       "%s: the page has each family of the table once (the kernel's left out in a"
	       " replay), HELP and TYPE as declared, every sample after its own family's", fmt);
	free(page);
	kpx_store_fini(&store);
}

static char *bridge_page(const struct kpc_stats *st)
{
	return tap_capture(f, kpx_metrics_bridge(f, st));
}

/* promtool's verdict on a page: 1 passed, 0 failed, -1 no promtool here. */
static int promtool(const char *page)
{
	FILE *p;

	if (system("command -v promtool >/dev/null 2>&1"))
		return -1;
	p = popen("promtool check metrics >/dev/null 2>&1", "w");
	if (!p)
		return 0;
	fputs(page, p);
	return pclose(p) == 0;
}

/* The generated family named name (the test fails on NULL: no family). */
static const struct kpx_stats_metric *family_def(const char *name)
{
	static const struct kpx_stats_metric none = { .help = "?", .type = "?" };
	unsigned int i;

	for (i = 0; i < kpx_stats_nmetrics; i++)
		if (kpx_stats_metrics[i].family && !strcmp(kpx_stats_metrics[i].family, name))
			return &kpx_stats_metrics[i];
	return &none;
}

static void test_bridge(void)
{
	struct kpc_stats st = {
		.bridge = 1, .bridged = 812, .bridge_skipped = 3, .bridge_dropped_nmi = 1,
		.bridge_dropped_recursion = 2, .bridge_dropped_scratch = 4,
		.bridge_missed = 5, .bridge_backlog = 554,
	};
	char *page, want[4096];
	size_t n = 0;
	int a, verdict;

	page = bridge_page(&st);
	tap_ok(page && !*page, "a module without the bridge's counters: no kprint_bridge_* at all");
	free(page);

	for (a = KPRINT_STATS_A_BRIDGE; a <= KPRINT_STATS_A_BRIDGE_BACKLOG; a++)
		st.present |= 1u << a;
	page = bridge_page(&st);
#define HEAD(m) n += snprintf(want + n, sizeof(want) - n, "# HELP %s %s\n# TYPE %s %s\n", \
			      m, family_def(m)->help, m, family_def(m)->type)
#define LINE(s) n += snprintf(want + n, sizeof(want) - n, "%s\n", s)
	HEAD("kprint_bridge_enabled");
	LINE("kprint_bridge_enabled 1");
	HEAD("kprint_bridge_records_total");
	LINE("kprint_bridge_records_total 812");
	HEAD("kprint_bridge_skipped_total");
	LINE("kprint_bridge_skipped_total 3");
	HEAD("kprint_bridge_dropped_total");
	LINE("kprint_bridge_dropped_total{reason=\"nmi\"} 1");
	LINE("kprint_bridge_dropped_total{reason=\"recursion\"} 2");
	LINE("kprint_bridge_dropped_total{reason=\"scratch\"} 4");
	LINE("kprint_bridge_dropped_total{reason=\"missed\"} 5");
	HEAD("kprint_bridge_backlog_records_total");
	LINE("kprint_bridge_backlog_records_total 554");
#undef HEAD
#undef LINE
	tap_ok(page && !strcmp(page, want),
	       "the bridge's families: enabled, records, skipped, dropped by reason "
	       "(nmi, recursion, scratch, missed), backlog, each with its HELP and TYPE");
	verdict = promtool(page);
	if (verdict < 0)
		tap_skip("promtool check metrics of the bridge's families (no promtool)");
	else
		tap_ok(verdict == 1, "promtool check metrics passes the bridge's families");
	free(page);

	st.bridge = 0;
	page = bridge_page(&st);
	tap_ok(page && strstr(page, "\nkprint_bridge_enabled 0\n"), "bridge off: enabled 0");
	free(page);
}

/* Accept -> the exposition; tests/host/exporter-openmetrics.py has the rest over HTTP. */
static void test_negotiate(void)
{
	static const struct {
		const char *accept;
		enum kpx_expo_format want;
	} cases[] = {
		{ NULL, KPX_EXPO_TEXT },
		{ "", KPX_EXPO_TEXT },
		{ "text/plain;version=0.0.4", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  KPX_EXPO_OPENMETRICS },
		{ "application/openmetrics-text", KPX_EXPO_OPENMETRICS },
		{ " application/openmetrics-text ; q=1.000 ", KPX_EXPO_OPENMETRICS },
		{ "application/openmetrics-text;q=0.5,text/*", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=0.5,text/plain;q=0.4", KPX_EXPO_OPENMETRICS },
		{ "application/openmetrics-text;q=0.5,text/plain;version=9;q=0.9",
		  KPX_EXPO_OPENMETRICS },
		{ "application/openmetrics-text;q=0.5,*/*;q=0.5", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=0.000", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=-1", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=0.12345", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=0x1", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=1e0", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=1.001", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=0.", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=0.,text/plain;q=0.001", KPX_EXPO_TEXT },
		{ "application/openmetrics-text;q=0.002,text/plain;q=0.001",
		  KPX_EXPO_OPENMETRICS },
		{ "application/openmetrics-text;q=1.,text/plain;q=0.999", KPX_EXPO_OPENMETRICS },
		{ "application/openmetrics-text;version=1.0.0;;", KPX_EXPO_TEXT },
		{ "application/openmetrics-text/", KPX_EXPO_TEXT },
		{ "application/", KPX_EXPO_TEXT },
		{ "\x01\xff,,;=", KPX_EXPO_TEXT },
	};
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum kpx_expo_format got = kpx_metrics_negotiate(cases[i].accept);

		if (got != cases[i].want) {
			printf("# Accept \"%s\": %d, wanted %d\n",
			       cases[i].accept ? cases[i].accept : "(none)", got, cases[i].want);
			bad++;
		}
	}
	tap_ok(!bad, "%u Accept headers: OpenMetrics only where a range of it has the"
	       " highest q, ranges that do not parse ignored", i);
	tap_ok(!strcmp(kpx_metrics_content_type(KPX_EXPO_OPENMETRICS),
		       "application/openmetrics-text; version=1.0.0; charset=utf-8") &&
	       !strcmp(kpx_metrics_content_type(KPX_EXPO_TEXT),
		       "text/plain; version=0.0.4; charset=utf-8"),
	       "the content types of both expositions");
}

int main(void)
{
	test_table();
	test_page(KPX_EXPO_TEXT);
	test_page(KPX_EXPO_OPENMETRICS);
	test_negotiate();
	test_bridge();
	return tap_done();
}
