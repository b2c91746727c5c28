// SPDX-License-Identifier: GPL-2.0
/*
 * kpc_problems: the catalog loader (a good file, and every refusal with
 * FILE:LINE: reason), kpc_format_matches() against texts the kernel
 * renders, the matcher (outer and inner formats, predicates, record
 * fields, a level passed as "%s", context lines joined from pr_cont()
 * fragments within "within" records and not beyond, two problems in one
 * record, near misses, one hash lookup per record) and the hit as JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kpc_json.h"
#include "kpc_problems_int.h"
#include "test_kpc_tap.h"

static char fixture_dir[4096];

static void fixtures(void)
{
	const char *slash = strrchr(__FILE__, '/');

	snprintf(fixture_dir, sizeof(fixture_dir), "%.*s/problems",
		 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
}

static struct kpc_problems *load_good(void)
{
	struct kpc_problems *p = NULL;
	char path[4200], err[512];
	int ret;

	snprintf(path, sizeof(path), "%s/good.yaml", fixture_dir);
	ret = kpc_problems_load(path, &p, err, sizeof(err));
	tap_ok(!ret && p, "good.yaml loads (%d%s%s)", ret, ret ? ": " : "", ret ? err : "");
	return p;
}

/* Write yaml to a file of its own and load it: ret, err, the catalog freed. */
static int load_text(const char *yaml, char *err, size_t errlen, char *path, size_t pathlen)
{
	struct kpc_problems *p = NULL;
	int fd, ret;

	snprintf(path, pathlen, "/tmp/test_kpc_problems.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, yaml, strlen(yaml)) != (ssize_t)strlen(yaml))
		return -EIO;
	close(fd);
	ret = kpc_problems_load(path, &p, err, errlen);
	kpc_problems_free(p);
	unlink(path);
	return ret;
}

static void test_load_good(struct kpc_problems *p)
{
	const struct kpc_problem_rule *r;
	const struct kpc_problem_format *f;
	unsigned int i;

	tap_ok(kpc_problems_count(p) == 9, "9 rules (%u)", kpc_problems_count(p));
	tap_ok(kpc_problems_nformats(p) == 9, "9 formats (%u)", kpc_problems_nformats(p));
	r = kpc_problems_find(p, "FilesystemIsReadOnly");
	tap_ok(r && r->kind == KPC_PROBLEM_CONDITION && !strcmp(r->condition,
	       "ReadonlyFilesystem") && !strcmp(r->message_id, "00000000000000000000000000000005")
	       && r->nlabels == 1 && !strcmp(r->labels[0], "device") && r->nattrs == 0,
	       "FilesystemIsReadOnly: condition ReadonlyFilesystem, its id, label device");
	r = kpc_problems_find(p, "OOMKilling");
	tap_ok(r && r->kind == KPC_PROBLEM_EVENT && !r->condition && r->nattrs == 3 &&
	       !strcmp(r->attrs[2], "task_memcg") && !strcmp(r->description, "A test rule.\n") &&
	       kpc_problems_rule(p, r->index) == r, "OOMKilling: an event, its attribution");
	tap_ok(!kpc_problems_find(p, "NoSuchProblem") && !kpc_problems_rule(p, 9) &&
	       !kpc_problems_format(p, 9), "no rule or format past the catalog");
	f = kpc_problems_format(p, 3);
	tap_ok(f && !strcmp(f->rule->name, "Ext4Error") &&
	       f->format_id == kpc_format_id(f->format) && f->inner &&
	       !strcmp(f->inner, "deleted inode referenced: %u") && f->nkernels == 1 &&
	       !strcmp(f->kernels[0], "6.1") && !strcmp(f->source,
	       "fs/ext4/super.c: __ext4_error_inode()") && f->line == 56,
	       "Ext4Error's format: id, inner, kernels, source, line %u", f ? f->line : 0);
	for (i = 0; i < kpc_problems_count(p); i++)
		if (kpc_problems_rule(p, i)->index != i)
			break;
	tap_ok(i == kpc_problems_count(p), "rules know their index");
}

#define H "kprint-problems: 1\nproblems:\n"
#define RULE(name, id)							\
	"  - problem: " name "\n"					\
	"    kind: event\n"						\
	"    message-id: " id "\n"					\
	"    summary: s\n"						\
	"    description: d\n"
#define ID1 "00000000000000000000000000000001"
#define ID2 "00000000000000000000000000000002"
#define FMT(f, args)							\
	"      - format: \"" f "\"\n"					\
	"        args: " args "\n"					\
	"        source: \"f.c: f()\"\n"
/* A good rule: lines 3-11 of a file that starts with H. */
#define GOOD RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]")

static const struct {
	const char *yaml;
	unsigned int line;
	const char *why;
} bad_files[] = {
	{ "", 1, "empty" },
	{ "# nothing\n", 1, "empty" },
	{ "kprint-problems: 2\nproblems: []\n", 1, "version '2' is not 1" },
	{ "problems: []\n", 1, "wants 'kprint-problems: 1'" },
	{ "kprint-problems: 1\n", 1, "wants 'problems'" },
	{ H "  - problem: A\n  x: [\n", 4, "" },
	{ "kprint-problems: 1\nproblem: []\n", 2, "unknown key 'problem'" },
	{ "kprint-problems: 1\nkprint-problems: 1\nproblems: []\n", 2, "given twice" },
	{ "- a\n", 1, "wants a mapping" },
	{ H "  - x\n", 3, "problem: wants a mapping" },
	{ H GOOD "    colour: red\n", 12, "unknown key 'colour'" },
	{ H "  - problem: A\n    summary: s\n", 3, "wants 'kind'" },
	{ H "  - problem: A\n    kind: event\n    message-id: " ID1 "\n    summary: s\n"
	  "    formats: []\n", 3, "wants 'description'" },
	{ H RULE("A", ID1), 3, "wants 'formats'" },
	{ H RULE("A", ID1) "    formats: []\n", 8, "one format or more" },
	{ H RULE("A b", ID1) "    formats:\n" FMT("x %d", "[n]"), 3, "'A b' is not a name" },
	{ H "  - problem: A\n    kind: sometimes\n    message-id: " ID1 "\n    summary: s\n"
	  "    description: d\n    formats:\n" FMT("x %d", "[n]"), 4, "neither event nor condition" },
	{ H "  - problem: A\n    kind: condition\n    message-id: " ID1 "\n    summary: s\n"
	  "    description: d\n    formats:\n" FMT("x %d", "[n]"), 3, "wants 'condition'" },
	{ H GOOD "    condition: C\n", 12, "only a problem of kind condition" },
	{ H RULE("A", "0123") "    formats:\n" FMT("x %d", "[n]"), 5, "32 lowercase hex" },
	{ H RULE("A", "0000000000000000000000000000000A") "    formats:\n" FMT("x %d", "[n]"),
	  5, "32 lowercase hex" },
	{ H GOOD RULE("A", ID2) "    formats:\n" FMT("y %d", "[n]"), 12, "problem 'A' given twice" },
	{ H GOOD RULE("B", ID1) "    formats:\n" FMT("y %d", "[n]"), 14,
	  "message-id: " ID1 " is problem A's already" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d %s", "[n]"), 10, "1 name for 2 conversions" },
	{ H RULE("A", ID1) "    formats:\n      - format: \"x %d\"\n        source: s\n", 9,
	  "args: wanted" },
	{ H RULE("A", ID1) "    formats:\n" FMT("%s", "[m]"), 9, "has no text of its own" },
	{ H RULE("A", ID1) "    formats:\n" FMT("%s%d", "[m, n]"), 9, "has no text of its own" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d\\n", "[n]"), 9, "ends in a newline" },
	{ H RULE("A", ID1) "    formats:\n" FMT("\\x016x %d", "[n]"), 9, "starts with a KERN_ level" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %n", "[n]"), 9, "%n is not a kernel conversion" },
	{ H RULE("A", ID1) "    labels: [device]\n    formats:\n" FMT("x %d", "[n]"), 8,
	  "labels: no format of A binds 'device'" },
	{ H RULE("A", ID1) "    attribution: [task]\n    formats:\n" FMT("x %d", "[n]"), 8,
	  "attribution: no format or context of A binds 'task'" },
	{ H RULE("A", ID1) "    labels: [Device]\n    formats:\n" FMT("x %d", "[n]"), 8,
	  "'Device' is not a name" },
	{ H RULE("A", ID1) "    labels: [problem]\n    formats:\n" FMT("x %d", "[problem]"), 8,
	  "'problem' is the exporter's own" },
	{ H RULE("A", ID1) "    labels: [n]\n    attribution: [n]\n    formats:\n"
	  FMT("x %d", "[n]"), 9, "'n' is a label already" },
	{ H RULE("A", ID1) "    labels: [a, b, c, d, e]\n    formats:\n" FMT("x %d", "[n]"), 8,
	  "more than 4 names" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d %d", "[n, n]"), 10, "'n' given twice" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        record: {n: device}\n", 9,
	  "'n' is bound twice" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        record: {d: devices}\n", 12,
	  "'devices' is not a record field" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        inner: \"y\"\n", 12,
	  "the format has no %pV" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %pV %pV", "[a, b]") "        inner: \"y\"\n", 12,
	  "more than one %pV" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %pV", "[a]") "        inner: \"%s\"\n", 12,
	  "inner: \"%s\" has no text of its own" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %pV", "[a]") "        inner: \"y %d\"\n"
	  "        inner-args: [b, c]\n", 13, "inner-args: 2 names for 1 conversion" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        inner-args: [b]\n", 12,
	  "without an inner format" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        where: {m: {equals: 1}}\n",
	  12, "'m' is not bound by this format" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        where: {n: {like: 1}}\n",
	  12, "unknown key 'like'" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]")
	  "        where: {n: {equals: 1, prefix: 2}}\n", 12, "wants one of" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        where: {n: {one-of: []}}\n",
	  12, "one value or more" },
	{ H RULE("A", ID1) "    formats:\n      - format: \"x %d\"\n        args: [n]\n", 9,
	  "wants 'source'" },
	{ H RULE("A", ID1) "    formats:\n" FMT("x %d", "[n]") "        kernels: 6.1\n", 12,
	  "kernels: wants a list" },
	{ H GOOD "    context:\n      format: \"y %s\"\n      keys: [k]\n      within: 0\n", 15,
	  "within: wants a number of records from 1 to 4096" },
	{ H GOOD "    context:\n      format: \"y %s\"\n", 13, "context: wants 'keys'" },
	{ H GOOD "    context:\n      format: \"%s\"\n      keys: [k]\n", 13,
	  "has no text of its own" },
	{ H GOOD "    context:\n      format: \"y %s\"\n      keys: [\"a=b\"]\n", 14,
	  "'a=b' is not a name" },
	{ H GOOD "    context:\n      format: \"y %s\"\n      keys: {k: \"a=b\"}\n", 14,
	  "'a=b' is not a key of key=value pairs" },
	{ H "  - problem: A\n    kind: event\n    message-id: \"0000000000000000000000000000000\\0\"\n"
	  "    summary: s\n    description: d\n    formats:\n" FMT("x %d", "[n]"), 5,
	  "message-id: wants a string" },
};

static void test_load_errors(void)
{
	char err[512], path[64], want[600];
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		ret = load_text(bad_files[i].yaml, err, sizeof(err), path, sizeof(path));
		snprintf(want, sizeof(want), "%s:%u: ", path, bad_files[i].line);
		tap_ok(ret == -EINVAL && !strncmp(err, want, strlen(want)) &&
		       strstr(err + strlen(want), bad_files[i].why),
		       "refused at line %u, \"%s\": %d, \"%s\"", bad_files[i].line,
		       bad_files[i].why, ret, err);
	}
	ret = load_text(H GOOD, err, sizeof(err), path, sizeof(path));
	tap_ok(!ret, "the good rule of the refusals loads (%d %s)", ret, err);
	ret = kpc_problems_load("/nonexistent/problems.yaml", (struct kpc_problems *[]){ NULL },
				err, sizeof(err));
	tap_ok(ret == -ENOENT && !strcmp(err, "/nonexistent/problems.yaml: No such file or directory"),
	       "a missing file: -ENOENT, FILE: why (%d, %s)", ret, err);
}

/* kpc_format_matches(format, text), spans joined with '|' into got. */
static bool fm(const char *format, const char *text, char *got, size_t size)
{
	const char *spans[KPRINT_ARGS_MAX];
	size_t lens[KPRINT_ARGS_MAX], at = 0;
	unsigned int n = KPRINT_ARGS_MAX, i;
	bool ok;

	got[0] = '\0';
	ok = kpc_format_matches(format, text, strlen(text), spans, lens, &n);
	for (i = 0; ok && i < n && at < size; i++)
		at += snprintf(got + at, size - at, "%s%.*s", i ? "|" : "", (int)lens[i], spans[i]);
	return ok;
}

static const struct {
	const char *format, *text, *spans;	/* spans NULL: no match */
} fm_cases[] = {
	{ "deleted inode referenced: %u", "deleted inode referenced: 12", "12" },
	{ "deleted inode referenced: %u", "deleted inode referenced: 12x", NULL },
	{ "deleted inode referenced: %u", "deleted inode referenced: ", NULL },
	{ "deleted inode referenced: %u", "deleted inode referenced: -1", NULL },
	{ "deleted inode referenced: %u", "deleted inode refrenced: 12", NULL },
	{ "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u",
	  "critical medium error, dev sdb, sector 4096 op 0x0:(READ) flags 0x80700 phys_seg 1"
	  " prio class 2", "critical medium|sdb|4096|0|READ|80700|1|2" },
	{ "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u",
	  "I/O error, dev sdb, sector 4096 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class",
	  NULL },
	{ "%s%s[%d]: segfault at %lx ip %px sp %px error %lx",
	  "a.out[1234]: segfault at 0 ip 00005581e7a8b139 sp 00007ffc4b1e0f10 error 6",
	  "|a.out|1234|0|00005581e7a8b139|00007ffc4b1e0f10|6" },
	{ "%s%s[%d]: segfault at %lx ip %px sp %px error %lx",
	  "a.out[1234]: segfault at 0 ip 0x5581e7a8b139 sp 00007ffc4b1e0f10 error 6", NULL },
	{ "ptr %p here", "ptr 000000003c0a9b1e here", "000000003c0a9b1e" },
	{ "ptr %p here", "ptr (____ptrval____) here", "(____ptrval____)" },
	{ "ptr %p here", "ptr zz here", NULL },
	{ "oom-kill:constraint=%s,nodemask=%*pbl", "oom-kill:constraint=CONSTRAINT_NONE,"
	  "nodemask=0-3,5", "CONSTRAINT_NONE|0-3,5" },
	{ "oom-kill:constraint=%s,nodemask=%*pbl", "oom-kill:constraint=CONSTRAINT_MEMCG,"
	  "nodemask=(null)", "CONSTRAINT_MEMCG|(null)" },
	{ "oom-kill:constraint=%s,nodemask=%*pbl", "oom-kill:constraint=X,nodemask=", "X|" },
	{ "oom-kill:constraint=%s,nodemask=%*pbl", "oom-kill:constraint=X,nodemask=all", NULL },
	{ "%s (0x%x) detected at %pS (%s:%d).  Shutting down filesystem.",
	  "Corruption of in-memory data (0x8) detected at xfs_do_force_shutdown+0x5d/0x1a0 [xfs]"
	  " (fs/xfs/xfs_fsops.c:492).  Shutting down filesystem.",
	  "Corruption of in-memory data|8|xfs_do_force_shutdown+0x5d/0x1a0 [xfs]|"
	  "fs/xfs/xfs_fsops.c|492" },
	{ "at %pS", "at foo+0x1c/0x40 [mod]", "foo+0x1c/0x40 [mod]" },
	{ "%pI4 says %pM", "10.0.2.15 says 52:54:00:12:34:56", "10.0.2.15|52:54:00:12:34:56" },
	{ "err %pe", "err -ENOMEM", "-ENOMEM" },
	{ "[%5d]", "[   42]", "   42" },
	{ "[%-5d]", "[42   ]", "42   " },
	{ "[%04x] %c!", "[00ff] y!", "00ff|y" },
	{ "%c", "", NULL },
	{ "%#x", "0x1f", "0x1f" },
	{ "%d", "-12", "-12" },
	{ "%u", "-12", NULL },
	{ "%o", "0755", "0755" },
	{ "%o", "0855", NULL },
	{ "100%% done, %d left", "100% done, 3 left", "3" },
	{ "100%% done", "100%% done", NULL },
	{ "%s: %s", "a: b: c", "a|b: c" },
	{ "%s", "", "" },
	{ "x %n", "x ", NULL },
	{ "no conversion", "no conversion", "" },
	{ "no conversion", "no conversion ", NULL },
};

static void test_format_matches(void)
{
	const char *spans[1];
	size_t lens[1];
	unsigned int n = 1, i;
	char got[512];
	bool ok;

	for (i = 0; i < sizeof(fm_cases) / sizeof(fm_cases[0]); i++) {
		ok = fm(fm_cases[i].format, fm_cases[i].text, got, sizeof(got));
		if (fm_cases[i].spans)
			tap_ok(ok && !strcmp(got, fm_cases[i].spans), "\"%s\" matches \"%s\" as %s (%s)",
			       fm_cases[i].format, fm_cases[i].text, fm_cases[i].spans,
			       ok ? got : "no match");
		else
			tap_ok(!ok, "\"%s\" does not match \"%s\"", fm_cases[i].format,
			       fm_cases[i].text);
	}
	ok = kpc_format_matches("%s=%d", "a=1", 3, spans, lens, &n);
	tap_ok(ok && n == 2 && lens[0] == 1 && spans[0][0] == 'a',
	       "room for one span: the first filled, the count is 2 (%u)", n);
	tap_ok(kpc_format_matches("a%cb", "a\0b", 3, NULL, NULL, NULL),
	       "a %%c of 0 renders a NUL, which is text; no spans wanted");
}

/* A record of format with args, the rest as the bridge would send it. */
static void record(struct kpc_record *rec, uint64_t seq, const char *format,
		   const char *text, unsigned int nargs, ...)
{
	va_list ap;
	unsigned int i;

	memset(rec, 0, sizeof(*rec));
	rec->seq = seq;
	rec->ts_mono_ns = 1234567890123ULL;
	rec->format = format;
	rec->format_id = kpc_format_id(format);
	rec->text = text;
	rec->comm = "kworker/0:1";
	rec->pid = 42;
	rec->device = "";
	rec->module = "";
	rec->subsystem = "";
	rec->function = "";
	rec->file = "";
	rec->source = KPRINT_SOURCE_PRINTK;
	rec->nargs = nargs;
	va_start(ap, nargs);
	for (i = 0; i < nargs; i++)
		rec->args[i] = va_arg(ap, const char *);
	va_end(ap);
}

static const char *attr(const struct kpc_problem_hit *h, const char *name)
{
	unsigned int i;

	for (i = 0; i < h->nattrs; i++)
		if (!strcmp(h->attr_names[i], name))
			return h->attrs[i];
	return NULL;
}

#define OOM_FMT "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB," \
		" shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd"
#define OOM_CTX "oom-kill:constraint=%s,nodemask=%*pbl"
#define HUNG_FMT "INFO: task %s:%d blocked for more than %ld seconds."

static void oom_record(struct kpc_record *rec, uint64_t seq)
{
	record(rec, seq, OOM_FMT, "Memory cgroup out of memory: Killed process 99 (stress)", 10,
	       "Memory cgroup out of memory", "99", "stress", "1", "2", "3", "4", "0", "5", "0");
}

static void unrelated(struct kpc_record *rec, uint64_t seq)
{
	record(rec, seq, "eth0: link up", "eth0: link up", 0);
}

static void fragment(struct kpc_record *rec, uint64_t seq, uint64_t continues, const char *text)
{
	record(rec, seq, "%s", text, 1, text);
	rec->flags = KPRINT_RECORD_F_CONT;
	rec->continues = continues;
}

/* The OOM kill's context line: head, fragments, others in between. */
static void test_context(const struct kpc_problems *p)
{
	struct kpc_problem_matcher *m = kpc_problem_matcher_new(p);
	struct kpc_problem_hit h[KPC_PROBLEM_HITS_MAX];
	struct kpc_record rec;
	int n;

	record(&rec, 10, OOM_CTX, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null)", 2,
	       "CONSTRAINT_MEMCG", "(null)");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 0, "the context line is no problem of its own (%d)", n);
	fragment(&rec, 11, 10, ",cpuset=/,mems_allowed=0");
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	fragment(&rec, 12, 999, ",oom_memcg=/wrong,task_memcg=/wrong");
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	fragment(&rec, 13, 10, ",oom_memcg=/test,task_memcg=/test/sub");
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	oom_record(&rec, 14);
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].rule->name, "OOMKilling") && h[0].nattrs == 3 &&
	       !strcmp(attr(&h[0], "task"), "stress") && !strcmp(attr(&h[0], "pid"), "99") &&
	       !strcmp(attr(&h[0], "task_memcg"), "/test/sub"),
	       "OOMKilling, task stress, pid 99, task_memcg /test/sub from the fragments of its"
	       " line, not another line's (%d, %s)", n,
	       n == 1 && attr(&h[0], "task_memcg") ? attr(&h[0], "task_memcg") : "none");

	/* within: 4, counted from the line's first record. */
	record(&rec, 20, OOM_CTX, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null)", 2,
	       "CONSTRAINT_MEMCG", "(null)");
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	fragment(&rec, 21, 20, ",task_memcg=/near");
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	unrelated(&rec, 22);
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	unrelated(&rec, 23);
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	oom_record(&rec, 24);
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && attr(&h[0], "task_memcg") && !strcmp(attr(&h[0], "task_memcg"), "/near"),
	       "a line 4 records back (within: 4) attributes");

	record(&rec, 30, OOM_CTX, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null)", 2,
	       "CONSTRAINT_MEMCG", "(null)");
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	unrelated(&rec, 31);
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	unrelated(&rec, 32);
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	unrelated(&rec, 33);
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	unrelated(&rec, 34);
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	fragment(&rec, 35, 30, ",task_memcg=/far");
	kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	oom_record(&rec, 36);
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && h[0].nattrs == 2 && !attr(&h[0], "task_memcg"),
	       "a line 6 records back is not joined nor read: the hit without task_memcg (%s)",
	       n == 1 && attr(&h[0], "task_memcg") ? attr(&h[0], "task_memcg") : "none");
	kpc_problem_matcher_free(m);
}

static void test_match(const struct kpc_problems *p)
{
	struct kpc_problem_matcher *m = kpc_problem_matcher_new(p);
	struct kpc_problem_hit h[KPC_PROBLEM_HITS_MAX];
	const char *ext4 = "EXT4-fs error (device %s): %s:%d: inode #%lu: comm %s: %pV";
	struct kpc_record rec;
	char long_name[300];
	int n, i;

	record(&rec, 1, HUNG_FMT, "INFO: task dockerd:77 blocked for more than 120 seconds.", 3,
	       "dockerd", "77", "120");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 2 && !strcmp(h[0].rule->name, "TaskHung") &&
	       !strcmp(h[1].rule->name, "DockerHung") && !strcmp(attr(&h[0], "pid"), "77") &&
	       !strcmp(attr(&h[1], "task"), "dockerd"),
	       "a hung dockerd is TaskHung and DockerHung, in the catalog's order (%d)", n);
	n = kpc_problem_match(m, &rec, h, 1);
	tap_ok(n == 1 && !strcmp(h[0].rule->name, "TaskHung"), "max 1: the first of them");
	n = kpc_problem_match(m, &rec, NULL, 0);
	tap_ok(n == 0, "max 0: none");
	record(&rec, 2, HUNG_FMT, "INFO: task bash:78 blocked for more than 120 seconds.", 3,
	       "bash", "78", "120");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].rule->name, "TaskHung"), "a hung bash: TaskHung alone");

	record(&rec, 3, ext4, "", 6, "sda1", "ext4_lookup", "1812", "12", "ls",
	       "deleted inode referenced: 13");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].rule->name, "Ext4Error") && !strcmp(h[0].labels[0], "sda1")
	       && !strcmp(attr(&h[0], "ino"), "13") && !strcmp(attr(&h[0], "task"), "ls"),
	       "Ext4Error by outer and inner format: device sda1, ino 13 from the %%pV, task ls");
	rec.args[5] = "deleted inode referenced: 13 (again)";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 0, "another message in the same %%pV is no Ext4Error (%d)", n);
	rec.args[5] = "deleted inode referenced: 13";
	rec.nargs = 5;
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 0, "a record with an argument missing does not match (%d)", n);
	rec.nargs = 6;
	rec.format = "EXT4-fs error (device %s): %s:%d: inode #%lu: comm %s: %pV ";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 0, "a format whose id is a rule's but not its text does not match (%d)", n);

	record(&rec, 4, "%sEXT4-fs (%s): %pV", "EXT4-fs (sda1): Remounting filesystem read-only",
	       3, "\0012", "sda1", "Remounting filesystem read-only");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].rule->name, "FilesystemIsReadOnly") &&
	       !strcmp(h[0].labels[0], "sda1"), "FilesystemIsReadOnly with KERN_CRIT as its %%s");
	rec.args[0] = "";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1, "and with an empty %%s for the level");
	rec.args[2] = "mounted filesystem with ordered data mode";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 0, "another ext4 message of the same outer format is none (%d)", n);

	record(&rec, 5, "%s%s[%d]: segfault at %lx ip %px sp %px error %lx", "", 7, "\0016",
	       "a.out", "1234", "0", "00005581e7a8b139", "00007ffc4b1e0f10", "6");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].labels[0], "a.out") && !strcmp(attr(&h[0], "pid"), "1234")
	       && !strcmp(attr(&h[0], "ip"), "00005581e7a8b139"),
	       "Segfault: the level's SOH pair is not in the task a one-of predicate reads");
	rec.args[0] = "\0010";
	rec.args[1] = "crashy";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].labels[0], "crashy"), "and with KERN_EMERG, the second value");
	rec.args[1] = "crashy2";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 0, "a task one-of does not name: none (%d)", n);

	record(&rec, 6, "(slave %s): link status definitely down, disabling slave", "", 1, "dummy0");
	rec.device = "bond0";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].labels[0], "dummy0") && !strcmp(attr(&h[0], "bond"), "bond0"),
	       "LinkDown: device from the arg, bond from the record's device field");

	record(&rec, 7, "%sXFS (%s): %pV", "", 3, "\0011", "loop0",
	       "Corruption of in-memory data (0x8) detected at xfs_fs_goingdown+0x5d/0x90 [xfs]"
	       " (fs/xfs/xfs_fsops.c:492).  Shutting down filesystem.");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].labels[0], "loop0") &&
	       !strcmp(attr(&h[0], "why"), "Corruption of in-memory data") &&
	       !strcmp(attr(&h[0], "at"), "xfs_fs_goingdown+0x5d/0x90 [xfs]"),
	       "XfsHasShutdown: inner format with a %%pS");

	record(&rec, 8, "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio"
	       " class %u", "", 8, "critical medium", "sdb", "4096", "0", "READ", "80700", "1", "2");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && !strcmp(h[0].labels[0], "sdb") && !strcmp(attr(&h[0], "sector"), "4096"),
	       "BlockIOError: equals predicate, device and sector");
	rec.args[0] = "critical medium ";
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 0, "equals is equal: one space more is none (%d)", n);

	/* A long UTF-8 value is cut before a character, not inside. */
	for (i = 0; i + 2 < (int)sizeof(long_name); i += 2)
		memcpy(long_name + i, "\xc3\xa9", 2);
	long_name[i] = '\0';
	record(&rec, 9, "(slave %s): link status definitely down, disabling slave", "", 1,
	       long_name);
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(n == 1 && strlen(h[0].labels[0]) == 126 &&
	       !memcmp(h[0].labels[0], long_name, 126), "a 298-byte label is cut at 126 bytes"
	       " (%zu), on a character's boundary", n == 1 ? strlen(h[0].labels[0]) : 0);
	kpc_problem_matcher_free(m);
}

/* One hash lookup per record, and nothing more for one no rule names. */
static void test_lookups(const struct kpc_problems *p)
{
	struct kpc_problem_matcher *m = kpc_problem_matcher_new(p);
	struct kpc_problem_hit h[KPC_PROBLEM_HITS_MAX];
	struct kpc_record rec;
	unsigned int i, hits = 0;

	for (i = 0; i < 1000; i++) {
		unrelated(&rec, i);
		hits += kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	}
	record(&rec, 1000, HUNG_FMT, "", 3, "dockerd", "1", "2");
	hits += kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	tap_ok(m->lookups == 1001 && hits == 2, "1001 records, 1001 hash lookups (%llu), 2 hits",
	       (unsigned long long)m->lookups);
	tap_ok(!kpc_problems_lookup(p, kpc_format_id("eth0: link up")) &&
	       kpc_problems_lookup(p, kpc_format_id(HUNG_FMT))->fmt >= 0 &&
	       kpc_problems_lookup(p, kpc_format_id(OOM_CTX))->slot == 0,
	       "the hash has rule formats and the context format, not others");
	tap_ok(kpc_problem_match(m, NULL, h, 1) == -EINVAL && kpc_problem_match(NULL, &rec, h, 1)
	       == -EINVAL, "no record or matcher: -EINVAL");
	kpc_problem_matcher_free(m);
}

static void test_json(const struct kpc_problems *p)
{
	struct kpc_problem_matcher *m = kpc_problem_matcher_new(p);
	struct kpc_problem_hit h[KPC_PROBLEM_HITS_MAX];
	struct json_object *obj, *v, *rec_obj;
	struct kpc_record rec;
	const char *s;
	int n;

	record(&rec, 77, HUNG_FMT, "INFO: task dockerd:77 blocked for more than 120 seconds.", 3,
	       "dockerd", "77", "120");
	n = kpc_problem_match(m, &rec, h, KPC_PROBLEM_HITS_MAX);
	obj = n == 2 ? kpc_json_problem_hit(&h[1], &rec) : NULL;
	s = obj ? json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN) : "";
	tap_ok(obj && json_object_object_get_ex(obj, "problem", &v) &&
	       !strcmp(json_object_get_string(v), "DockerHung") &&
	       json_object_object_get_ex(obj, "kind", &v) &&
	       !strcmp(json_object_get_string(v), "condition") &&
	       json_object_object_get_ex(obj, "condition", &v) &&
	       !strcmp(json_object_get_string(v), "KernelDeadlock") &&
	       json_object_object_get_ex(obj, "labels", &v) && !json_object_object_length(v) &&
	       json_object_object_get_ex(obj, "attribution", &v) &&
	       json_object_object_length(v) == 1 &&
	       json_object_object_get_ex(obj, "record", &rec_obj) &&
	       json_object_object_get_ex(rec_obj, "seq", &v) && json_object_get_int64(v) == 77 &&
	       json_object_object_get_ex(rec_obj, "text", &v) &&
	       !strcmp(json_object_get_string(v), rec.text), "a condition hit as JSON: %s", s);
	json_object_put(obj);
	obj = n == 2 ? kpc_json_problem_hit(&h[0], &rec) : NULL;
	s = obj ? json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN) : "";
	tap_ok(obj && !json_object_object_get_ex(obj, "condition", NULL) &&
	       !strncmp(s, "{\"problem\":\"TaskHung\",\"kind\":\"event\",\"labels\":{},"
			"\"attribution\":{\"task\":\"dockerd\",\"pid\":\"77\"},\"record\":{", 98),
	       "an event hit: no condition, keys in order: %s", s);
	json_object_put(obj);
	kpc_problem_matcher_free(m);
}

int main(void)
{
	struct kpc_problems *p;

	fixtures();
	p = load_good();
	if (p) {
		test_load_good(p);
		test_match(p);
		test_context(p);
		test_lookups(p);
		test_json(p);
	}
	test_load_errors();
	test_format_matches();
	kpc_problems_free(p);
	return tap_done();
}
