// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's side of the problem catalog (kpx_problems.c,
 * kpx_problems_metrics.c, kpx_journal.c's problem entries), with libkpc's
 * real loader and matcher on a catalog of this test's own: hits counted
 * per label set up to max_series and then in the overflow series, first
 * and last seen, the /events text, /problems, the kprint_problem_*
 * families with their exemplar, the journal entry of a hit and the
 * journal queue carrying a record's hits; a catalog missing at the
 * default path is none, at a path given is an error; an NPD rule file's
 * hits on the same ways, marked with its source.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kpx_expo.h"
#include "kpx_journal.h"
#include "kpx_problems.h"
#include "test_kpc_tap.h"
#include "test_kpx_entry.h"

static const char catalog[] =
	"kprint-problems: 1\n"
	"problems:\n"
	"  - problem: BlockIOError\n"
	"    kind: event\n"
	"    message-id: afc6ad6bf5e3b1866ba468ea9cb2d435\n"
	"    summary: A block device failed a request\n"
	"    description: A test rule.\n"
	"    labels: [device]\n"
	"    attribution: [sector]\n"
	"    formats:\n"
	"      - format: \"%s error, dev %s, sector %llu\"\n"
	"        args: [error, device, sector]\n"
	"        source: \"block/blk-core.c: blk_print_req_error()\"\n"
	"  - problem: DockerHung\n"
	"    kind: condition\n"
	"    condition: KernelDeadlock\n"
	"    message-id: 5b13733484e77248880d75be81fbe3d1\n"
	"    summary: A docker task hung\n"
	"    description: A test rule.\n"
	"    attribution: [task, pid]\n"
	"    formats:\n"
	"      - format: \"INFO: task %s:%d blocked for more than %ld seconds.\"\n"
	"        args: [task, pid, -]\n"
	"        where: {task: {prefix: docker}}\n"
	"        source: \"kernel/hung_task.c: check_hung_task()\"\n";

#define BLK	"%s error, dev %s, sector %llu"
#define HUNG	"INFO: task %s:%d blocked for more than %ld seconds."

static struct kpc_record rec_of(uint64_t seq, const char *fmt, const char *text,
				const char *a0, const char *a1, const char *a2)
{
	struct kpc_record r = kpc_genl_record_empty;

	r.seq = seq;
	r.level = 3;
	r.ts_real_ns = 1700000000000000000ull + seq;
	r.format = fmt;
	r.format_id = kpc_format_id(fmt);
	r.text = text;
	r.text_len = strlen(text);
	r.args[0] = a0;
	r.args[1] = a1;
	r.args[2] = a2;
	r.nargs = 3;
	return r;
}

static char *render(struct kpx_problems *pr, enum kpx_expo_format format)
{
	struct kpx_expo e = { .format = format };
	char *buf = NULL;
	size_t len;

	e.out = open_memstream(&buf, &len);
	kpx_problems_metrics(&e, pr);
	fclose(e.out);
	return buf;
}

static void test_journal(struct kpx_hits *h, const struct kpc_record *r)
{
	struct kpx_journal_entry e = { 0 };
	struct kpx_journal j = { 0 };
	struct kpc_record *recs[1] = { (struct kpc_record *)r };
	struct kpx_hits *hits[1] = { h };

	tap_ok(!kpx_journal_problem_build(&e, r, &h->hit[0]), "a hit's journal entry is built");
	tap_ok(field_is(&e, "MESSAGE", "BlockIOError: critical medium error, dev sdc, sector 6") &&
	       field_is(&e, "MESSAGE_ID", "afc6ad6bf5e3b1866ba468ea9cb2d435") &&
	       field_is(&e, "PRIORITY", "3") && field_is(&e, "SYSLOG_IDENTIFIER", "kprint") &&
	       field_is(&e, "KPRINT_PROBLEM", "BlockIOError") &&
	       field_is(&e, "KPRINT_PROBLEM_KIND", "event") && !field(&e, "KPRINT_PROBLEM_CONDITION") &&
	       field_is(&e, "KPRINT_PROBLEM_DEVICE", "sdc") &&
	       field_is(&e, "KPRINT_PROBLEM_SECTOR", "6") && field_is(&e, "KPRINT_SEQ", "4"),
	       "the entry: the rule's MESSAGE_ID, NAME: text, the record's priority and seq,"
	       " the label and attribution as KPRINT_PROBLEM_<NAME>");
	kpx_journal_entry_fini(&e);

	/* Queued with its record, a copy: the caller's hits are freed apart. */
	if (!tap_ok(!kpx_journal_init(&j, 4), "a journal queue"))
		return;
	kpx_journal_add_hits(&j, recs, hits, 1);
	kpx_journal_add(&j, recs, 1);
	tap_ok(j.n == 2 && j.q[0].hits && j.q[0].hits != h && j.q[0].hits->n == 1 &&
	       !j.q[0].hits->events && j.q[0].hits->hit[0].rule == h->hit[0].rule && !j.q[1].hits,
	       "the queue holds the record with a copy of its hits, a record without none");
	kpx_journal_stop(&j);
}

static void test_counts(struct kpx_problems *pr)
{
	static const char *const devs[] = { "sda", "sdb", "sda", "sdc", "sdd" };
	struct kpc_record r;
	struct kpx_hits *h;
	char text[96], sector[8], *s;
	uint64_t seq = 1;

	for (unsigned int i = 0; i < 5; i++, seq++) {
		snprintf(sector, sizeof(sector), "%u", 2 * i);
		snprintf(text, sizeof(text), "critical medium error, dev %s, sector %s", devs[i],
			 sector);
		r = rec_of(seq, BLK, text, "critical medium", devs[i], sector);
		h = kpx_problems_record(pr, &r, 0xabcd0123);
		tap_ok(h && h->n == 1 && h->events && !strncmp(h->events, "event: problem\ndata: {", 22)
		       && strstr(h->events, "\"problem\":\"BlockIOError\"") &&
		       !strcmp(h->events + strlen(h->events) - 2, "\n\n"),
		       "%s: a hit, its /events text one problem event", devs[i]);
		if (i == 3 && h)
			test_journal(h, &r);
		kpx_hits_free(h);
	}
	r = rec_of(seq++, HUNG, "INFO: task dd:7 blocked for more than 120 seconds.", "dd", "7",
		   "120");
	tap_ok(!kpx_problems_record(pr, &r, 0xabcd0123), "a hung task not docker's: no problem");
	r = rec_of(seq++, "%s", "critical medium error, dev sda, sector 1", "x", NULL, NULL);
	r.nargs = 1;
	tap_ok(!kpx_problems_record(pr, &r, 0xabcd0123), "a format no rule names: no problem");
	r = rec_of(seq, HUNG, "INFO: task dockerd:9 blocked for more than 120 seconds.", "dockerd",
		   "9", "120");
	h = kpx_problems_record(pr, &r, 0xabcd0123);
	tap_ok(h && h->n == 1 && h->hit[0].rule->kind == KPC_PROBLEM_CONDITION,
	       "a hung dockerd: the condition");
	kpx_hits_free(h);

	tap_ok(pr->state[0].count == 5 && pr->state[0].nseries == 2 &&
	       pr->state[0].series[0].count == 2 && pr->state[0].series[1].count == 1 &&
	       pr->state[0].overflow && pr->state[0].overflow->count == 2 &&
	       !strcmp(pr->state[0].overflow->labels[0], "overflow"),
	       "max_series 2: sda 2, sdb 1, the overflow 2 (sdc, sdd)");
	tap_ok(pr->state[0].first_ns == 1700000000000000001ull &&
	       pr->state[0].last_ns == 1700000000000000005ull,
	       "first and last seen: the records' own times");

	s = render(pr, KPX_EXPO_OPENMETRICS);
	tap_ok(s && strstr(s, "kprint_problem_total{problem=\"BlockIOError\",device=\"sda\"} 2 # "
			      "{seq=\"3\",kprint_instance=\"abcd0123\",sector=\"4\"} 1 "
			      "1700000000.000000003\n") &&
	       strstr(s, "kprint_problem_total{problem=\"BlockIOError\",device=\"overflow\"} 2 # "
			 "{seq=\"5\",kprint_instance=\"abcd0123\",sector=\"8\"} 1") &&
	       strstr(s, "kprint_problem_condition{condition=\"KernelDeadlock\","
			 "problem=\"DockerHung\"} 1\n") &&
	       strstr(s, "kprint_problem_catalog_rules 2\n") && strstr(s, "# TYPE kprint_problem counter"),
	       "OpenMetrics: the series, their exemplars, the condition, the rules");
	if (s && !strstr(s, "# {seq=\"3\""))
		printf("# %s", s);
	free(s);
	s = render(pr, KPX_EXPO_TEXT);
	tap_ok(s && !strstr(s, " # {") &&
	       strstr(s, "kprint_problem_total{problem=\"DockerHung\"} 1\n") &&
	       strstr(s, "# TYPE kprint_problem_total counter"),
	       "the text exposition: no exemplars, the counter named with _total");
	free(s);
	s = kpx_problems_json(pr, true);
	tap_ok(s && !strncmp(s, "{\"rules\":2,\"problems\":[{\"problem\":\"BlockIOError\","
			     "\"kind\":\"event\",\"condition\":null,", 76) &&
	       strstr(s, "\"first_seen\":\"2023-11-14T22:13:20.000000001Z\"") &&
	       strstr(s, "\"labels\":{\"device\":\"overflow\"},\"count\":2"),
	       "/problems: the rules, each problem, its series and times");
	free(s);
}

static const char npd_rules[] =
	"{ \"source\": \"kernel-monitor\",\n"
	"  \"conditions\": [ { \"type\": \"KernelDeadlock\", \"reason\": \"Fine\" } ],\n"
	"  \"rules\": [ { \"type\": \"temporary\", \"reason\": \"IOError\",\n"
	"               \"pattern\": \"Buffer I/O error .*\" },\n"
	"             { \"type\": \"permanent\", \"condition\": \"KernelDeadlock\",\n"
	"               \"reason\": \"DockerHung\",\n"
	"               \"pattern\": \"task docker:\\\\w+ blocked for more than \\\\w+ seconds\\\\.\" } ] }\n";

/*
 * NPD's rules beside the catalog (no catalog here): a hit is a problem of
 * the catalog's kind, marked with the file's source on /events, /problems
 * and in the journal entry, which has no MESSAGE_ID.
 */
static void test_npd(const char *path)
{
	const char *paths[1] = { path };
	struct kpx_problems pr;
	struct kpx_npd npd;
	static const char text[] = "INFO: task docker:77 blocked for more than 2 seconds.";
	struct kpc_record r = rec_of(1, "%s", text, text, NULL, NULL);
	struct kpx_journal_entry e = { 0 };
	struct kpx_hits *h;
	char *json;

	r.source = KPRINT_SOURCE_PRINTK;
	r.nargs = 1;
	if (!tap_ok(!kpx_problems_init(&pr, "/nonexistent/problems.yaml", false, 2) &&
		    !kpx_npd_init(&npd, paths, 1, false, false) && !kpx_problems_npd(&pr, &npd) &&
		    npd.nreasons == 2, "NPD's rules load beside no catalog: 2 reasons"))
		return;
	h = kpx_problems_record(&pr, &r, 1);
	tap_ok(h && h->n == 1 && !strcmp(h->hit[0].rule->name, "DockerHung") &&
	       !strcmp(h->hit[0].rule->npd, "kernel-monitor") && h->events &&
	       strstr(h->events, "event: problem\ndata: {\"problem\":\"DockerHung\","
		      "\"npd\":\"kernel-monitor\",\"kind\":\"condition\",\"condition\":"
		      "\"KernelDeadlock\",\"labels\":{},\"attribution\":{}"),
	       "a hit of a permanent rule: its /events text names the file");
	tap_ok(h && !kpx_journal_problem_build(&e, &r, &h->hit[0]) && !field(&e, "MESSAGE_ID") &&
	       field_is(&e, "KPRINT_PROBLEM", "DockerHung") &&
	       field_is(&e, "KPRINT_PROBLEM_NPD", "kernel-monitor") &&
	       field_is(&e, "KPRINT_PROBLEM_CONDITION", "KernelDeadlock"),
	       "its journal entry: KPRINT_PROBLEM_NPD, no MESSAGE_ID");
	kpx_journal_entry_fini(&e);
	kpx_hits_free(h);
	json = kpx_problems_json(&pr, true);
	tap_ok(json && strstr(json, "{\"rules\":0,\"problems\":[{\"problem\":\"DockerHung\","
			      "\"npd\":\"kernel-monitor\",\"kind\":\"condition\"") &&
	       !strstr(json, "IOError"), "/problems?seen=1: the reason seen, after no catalog");
	free(json);
	json = kpx_problems_json(&pr, false);
	tap_ok(json && strstr(json, "\"problem\":\"IOError\",\"npd\":\"kernel-monitor\","
			      "\"kind\":\"event\",\"condition\":null,\"summary\":\"\",\"count\":0"),
	       "/problems: the reason not seen too, count 0");
	free(json);
	kpx_problems_fini(&pr);
	kpx_npd_fini(&npd);
}

int main(void)
{
	char path[] = "/tmp/test_kpx_problems.XXXXXX";
	struct kpx_problems pr;
	int fd = mkstemp(path);

	if (!tap_ok(fd >= 0 && write(fd, catalog, sizeof(catalog) - 1) ==
		    (ssize_t)sizeof(catalog) - 1, "the test catalog is written"))
		return 1;
	close(fd);
	if (tap_ok(!kpx_problems_init(&pr, path, true, 2) && kpx_problems_rules(&pr) == 2,
		   "the catalog loads: 2 rules")) {
		test_counts(&pr);
		kpx_problems_fini(&pr);
	}
	unlink(path);
	tap_ok(!kpx_problems_init(&pr, path, false, 2) && !kpx_problems_rules(&pr),
	       "the default path missing: no catalog, no error");
	kpx_problems_fini(&pr);
	tap_ok(kpx_problems_init(&pr, path, true, 2) == -ENOENT,
	       "a path given missing: -ENOENT");
	kpx_problems_fini(&pr);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (tap_ok(fd >= 0 && write(fd, npd_rules, sizeof(npd_rules) - 1) ==
		   (ssize_t)sizeof(npd_rules) - 1, "an NPD rule file is written"))
		test_npd(path);
	close(fd);
	unlink(path);
	return tap_failures ? 1 : 0;
}
