#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter --npd-rules on a replay, no kernel needed: a
node-problem-detector rule file (tests/host/exporter-npd.json, written from
NPD's documented kernel-monitor.json rules, plus a multi-line rule of our
own) run on real-looking kernel records as `kprint dump --json` writes
them.

Checked: each rule fires with its reason and count
(kprint_problem_total{npd,problem}), the pattern anchored at the end as NPD
anchors it ("divide error: 0000 [#2] PREEMPT SMP NOPTI" is no KernelOops),
a multi-line rule fires when its last line is the newest message and not
when another line came between (its "\\nNot tainted" matching the line
"      Not tainted ..." because NPD trims each message), a pr_cont()
fragment completes its line and a rule fires once for the line,
kprint-source records are no kernel log lines, permanent rules set their
condition (kprint_problem_condition), --npd-metrics serves NPD's problem_counter
(a permanent rule counted on a change only) and problem_gauge, both
expositions parse (prometheus_client, promtool), and a bad file (a
backreference, lookaround, a pattern that does not compile, not JSON, a
journald plugin) stops the start with FILE:LINE: reason and exit status 2.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import (REPO, Exporter, F_CONT, Tap, line, parse_metrics,  # noqa: E402
                     problems_schema_errors, promtool_check, record, run_replay)
from prometheus_client.openmetrics.parser import \
    text_string_to_metric_families as om_families  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

t = Tap()
work = tempfile.mkdtemp(prefix="kpx-npd.")
RULES = os.path.join(REPO, "tests/host/exporter-npd.json")
OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
recs = []


def add(text, source="printk", **kw):
    """One record more, its text as printk rendered it: its seq."""
    seq = len(recs) + 1
    recs.append(record(seq, "%s", args=[text], text=text, source=source, level="err", **kw))
    return seq


HUNG_END = "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."
add("Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org)")
add("Memory cgroup out of memory: Killed process 4242 (java) total-vm:8388608kB, "
    "anon-rss:4194304kB, file-rss:1024kB, shmem-rss:0kB, UID:1000 pgtables:8400kB "
    "oom_score_adj:936")
add("INFO: task kworker/u8:2:193 blocked for more than 120 seconds.")
add("      Not tainted 6.1.0-13-amd64 #1 Debian 6.1.55-1")
add(HUNG_END)
add("INFO: task docker:1877 blocked for more than 120 seconds.")
add("      Not tainted 6.1.0-13-amd64 #1 Debian 6.1.55-1")
add("task:docker          state:D stack:0     pid:1877  ppid:1      flags:0x00000000")
add(HUNG_END)
add("INFO: task docker:1877 blocked for more than 241 seconds.")
add("unregister_netdevice: waiting for eth0 to become free. Usage count = 2")
head = add("unregister_netdevice: waiting for ")
add("lo to become free. Usage count = 1", flags=F_CONT, continues=head)
add("BUG: unable to handle kernel NULL pointer dereference at 0000000000000008")
add("divide error: 0000 [#1] SMP")
add("divide error: 0000 [#2] PREEMPT SMP NOPTI")
add("EXT4-fs error (device sda1): ext4_find_entry:1455: inode #2: comm ls: reading directory"
    " lblock 0")
add("EXT4-fs warning (device sda1): ext4_dx_add_entry:2485: Directory (ino: 1311) index full,"
    " reach max htree level :2")
head = add("Buffer I/O error on dev sdb1, ")
add("logical block 9, lost async page write", flags=F_CONT, continues=head)
add("Buffer I/O error on dev sdz, logical block 0, async page read", source="kprint")
add("EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#0_DIMM#0 (channel:0 slot:0"
    " page:0x4c1a offset:0x0 grain:32 syndrome:0x0)")
add("EXT4-fs (sda1): Remounting filesystem read-only")
add("XFS (dm-0): xfs_do_force_shutdown(0x2) called from line 1271 of file fs/xfs/xfs_log.c.")
add("XFS (dm-0): Log I/O Error Detected. Shutting down filesystem")
add("systemd[1]: session-3.scope: Consumed 1.204s CPU time.")

WANT = {"OOMKilling": 1, "TaskHung": 3, "HungTaskReport": 1, "UnregisterNetDevice": 2,
        "KernelOops": 2, "Ext4Error": 1, "Ext4Warning": 1, "IOError": 1,
        "XfsHasShutdown": 1, "MemoryReadError": 1, "DockerHung": 2,
        "FilesystemIsReadOnly": 1}
REASONS = set(WANT)		# every reason of the file fired
CONDS = {"KernelDeadlock": "DockerHung", "ReadonlyFilesystem": "FilesystemIsReadOnly",
         "XfsShutdown": "XfsHasShutdown"}

path = os.path.join(work, "npd.jsonl")
with open(path, "wb") as f:
    for r in recs:
        f.write(line(r))

exp = Exporter(path, "--npd-rules", RULES, "--npd-metrics")
t.ok(any("running the 13 node-problem-detector rules of %s" % RULES in ln for ln in exp.stderr),
     "the startup says how many rules it runs (%r)" % exp.stderr)
st, _, body = exp.get("/metrics")
text = body.decode()
sm = parse_metrics(text)
got = {dict(lb)["problem"]: v for n, lb, v in sm
       if n == "kprint_problem_total" and dict(lb).get("npd") == "kernel-monitor"}
for reason, n in WANT.items():
    t.ok(got.get(reason) == n, "%s counted %d times (%r)" % (reason, n, got.get(reason)))
t.ok(set(got) == set(WANT), "one series per reason, no other (%r)" % sorted(got))
conds = {dict(lb)["condition"]: dict(lb)["problem"] for n, lb, v in sm
         if n == "kprint_problem_condition" and dict(lb).get("npd") == "kernel-monitor" and
         v == 1}
t.ok(conds == CONDS, "each permanent rule set its condition (%r)" % conds)

counter = {dict(lb)["reason"]: v for n, lb, v in sm if n == "problem_counter"}
want_counter = dict(WANT, DockerHung=1)
t.ok(counter == want_counter, "problem_counter: NPD's events, a permanent rule's on a change"
     " only (%r)" % counter)
gauge = {(dict(lb)["type"], dict(lb)["reason"]): v for n, lb, v in sm if n == "problem_gauge"}
t.ok(gauge == {(c, r): 1.0 for c, r in CONDS.items()},
     "problem_gauge{type,reason}: 1 for each condition's reason (%r)" % gauge)
fams = {f.name: f for f in text_string_to_metric_families(text)}
t.ok(fams.get("problem_counter") and fams["problem_counter"].type == "counter" and
     fams["problem_counter"].documentation ==
     "Number of times a specific type of problem have occurred." and
     fams.get("problem_gauge") and fams["problem_gauge"].type == "gauge" and
     fams["problem_gauge"].documentation ==
     "Whether a specific type of problem is affecting the node or not.",
     "NPD's families parse with NPD's help and types (Prometheus text)")
ok, why = promtool_check(body)
# promtool's lint would rename NPD's families; nothing else may fail.
lint = [ln for ln in why.splitlines() if ln.strip() and not ln.startswith(
    ("problem_counter counter metrics should have", "problem_counter metric name should not",
     "problem_gauge metric name should not"))]
t.ok(ok or not lint, "promtool check metrics: nothing but the lint of NPD's names (%s)" % why)
st, _, body = exp.get("/metrics", headers={"Accept": OM_TYPE})
try:
    om = {f.name: f for f in om_families(body.decode())}
    omc = {s.labels["reason"]: s.value for s in om["problem_counter"].samples
           if s.name == "problem_counter_total"}
    t.ok(omc == want_counter and om["problem_gauge"].type == "gauge",
         "... and the OpenMetrics exposition (%r)" % omc)
except Exception as e:  # noqa: BLE001
    t.ok(False, "the OpenMetrics exposition parses (%s)" % e)
st, _, body = exp.get("/problems")
doc = json.loads(body) if st == 200 else {}
npd = {p["problem"]: p for p in doc.get("problems", []) if p.get("npd") == "kernel-monitor"}
t.ok({r: p["count"] for r, p in npd.items() if p["count"]} == WANT,
     "/problems lists each reason with npd and its count (%r)" %
     {r: p["count"] for r, p in npd.items()})
t.ok(set(npd) == REASONS and all(p["kind"] == ("condition" if r in CONDS.values() else "event")
                                 for r, p in npd.items()),
     "... every reason of the file, seen or not, its kind its first rule's")
latest = npd.get("IOError", {}).get("series", [{}])[0].get("latest") or {}
t.ok(latest.get("npd") == "kernel-monitor" and latest.get("labels") == {} and
     latest.get("record", {}).get("text") == "Buffer I/O error on dev sdb1, ",
     "its latest hit names the file and the line's first record (%r)" % latest.get("record"))
why = problems_schema_errors(doc)
t.ok(not why, "/problems with NPD's reasons is valid against schema/problems.schema.json (%s)"
     % why)
t.ok(exp.stop() == 0, "the exporter stops cleanly")

plain = Exporter(path, "--npd-rules", RULES)
st, _, body = plain.get("/metrics")
sm = parse_metrics(body.decode())
t.ok(not [n for n, _, _ in sm if n.startswith("problem_")] and
     [v for n, lb, v in sm if n == "kprint_problem_total" and
      dict(lb).get("problem") == "OOMKilling"] == [1.0],
     "without --npd-metrics: no NPD family, the hits still counted")
t.ok(plain.stop() == 0, "that exporter stops cleanly")


def bad(name, text, want):
    """A rule file that must be refused: FILE:LINE: reason, exit status 2."""
    p = os.path.join(work, name)
    with open(p, "w") as f:
        f.write(text)
    st, err = run_replay(path, "--npd-rules", p)
    t.ok(st == 2 and ("%s:%s" % (p, want[0])) in err and want[1] in err,
         "%s refused with FILE:LINE: reason, exit 2 (%r, %r)" % (name, st, err.strip()))


def rules(pattern, extra=""):
    return ('{\n\t"plugin": "kmsg",%s\n\t"rules": [\n\t\t{\n\t\t\t"type": "temporary",\n'
            '\t\t\t"reason": "A",\n\t\t\t"pattern": "ok"\n\t\t},\n\t\t{\n'
            '\t\t\t"type": "temporary",\n\t\t\t"reason": "B",\n'
            '\t\t\t"pattern": "%s"\n\t\t}\n\t]\n}\n' % (extra, pattern))


bad("backref.json", rules("(x+)y\\\\1"), ("12:", "backreference"))
bad("lookahead.json", rules("task (?=docker)\\\\w+"), ("12:", "lookaround"))
bad("lookbehind.json", rules("(?<!not )tainted"), ("12:", "lookaround"))
bad("nocompile.json", rules("Buffer I/O error ([a-z"), ("12:", "missing terminating ]"))
bad("comment-line.json", rules("(?>atomic)", '\n\t"source": "x",\n\t"bufferSize": 5,'),
    ("14:", "atomic"))
bad("notjson.json", '{\n\t"plugin": "kmsg",\n\t"rules": [\n\t\t{ "type" "temporary" }\n]}\n',
    ("4:", "not JSON"))
bad("journald.json", '{\n\t"plugin": "journald",\n\t"rules": []\n}\n',
    ("2:", "only \"kmsg\""))
bad("nocond.json", '{\n\t"rules": [\n\t\t{ "type": "permanent", "condition": "X",\n'
    '\t\t  "reason": "Y", "pattern": "z" }\n\t]\n}\n', ("4:", "not among"))
st, err = run_replay(path, "--npd-rules", os.path.join(work, "missing.json"))
t.ok(st == 2 and "missing.json" in err, "a missing file: exit 2 (%r)" % st)

shutil.rmtree(work)
t.done()
