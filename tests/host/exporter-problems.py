#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's kernel problems (--problems.file) on a replay, no
kernel needed: a file of records as `kprint dump --json` writes them,
real-looking kernel problems (a memory cgroup's OOM kill with its
oom-kill: summary line and the line's continuation records, hung tasks, one
of them docker's, an ext4 error with its %pV argument and the remount
read-only, block I/O errors on four disks, a buffer I/O error) among
unrelated records (a bare "%s" whose text reads like a hung task, an ext4
message that is no problem), matched by tests/host/exporter-problems.yaml.

Checked: /metrics in both expositions (kprint_problem_total per label set,
the overflow series past --problems.max-series, kprint_problem_condition,
kprint_problem_catalog_rules; the OpenMetrics exemplar names the latest
record and its attribution within 128 characters, parsed by
prometheus_client; the text passes promtool), /problems (against
schema/problems.schema.json, counts, first and last seen, the latest record
with its args, ?seen=1, 400 for a bad parameter), /events (each problem
right after its record), no problem for the unrelated records, a bad
catalog refused at the start with FILE:LINE: reason and exit status 2, and
the default catalog missing (no problems, one log line).
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import (REPO, Exporter, F_CONT, Tap, line, parse_metrics,  # noqa: E402
                     problems_schema_errors as schema_errors, promtool_check, record,
                     run_replay)
from ssetest import Stream  # noqa: E402
from prometheus_client.openmetrics.parser import \
    text_string_to_metric_families  # noqa: E402

t = Tap()
work = tempfile.mkdtemp(prefix="kpx-problems.")
CATALOG = os.path.join(REPO, "tests/host/exporter-problems.yaml")
DEFAULT_CATALOG = "/usr/share/kprint/problems.yaml"
OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"

recs = []
problems_of = {}        # seq -> [problem names], in the catalog's order


def add(fmt, args=(), text=None, problems=(), **kw):
    """One record more (its seq the next); text rendered from args when not given."""
    seq = len(recs) + 1
    if text is None:
        text = re.sub(r"%(?:\*pbl|p[A-Za-z]|[-0-9.*lhz]*[a-zA-Z])", "%s", fmt) % tuple(args)
    kw.setdefault("module", "")
    recs.append(record(seq, fmt, args=args, text=text, source="printk", **kw))
    if problems:
        problems_of[seq] = list(problems)
    return seq


def cont(fmt, head, args=()):
    """A pr_cont() fragment of the line that record head begins."""
    return add(fmt, args, flags=F_CONT, continues=head)


KILLED = ("%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, "
          "shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd")
HUNG = "INFO: task %s:%d blocked for more than %ld seconds."
BLK = "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u"
EXT4_MSG = "%sEXT4-fs (%s): %pV"


def oom(memcg, task, pid):
    """dump_oom_summary()'s line (its fragments) and __oom_kill_process()'s: the kill's seq."""
    head = add("oom-kill:constraint=%s,nodemask=%*pbl", ["CONSTRAINT_MEMCG", "(null)"])
    cont(",cpuset=%s", head, ["/"])
    cont(",mems_allowed=%*pbl", head, ["0"])
    cont(",oom_memcg=", head)
    cont("%s", head, [memcg])
    cont(",task_memcg=", head)
    cont("%s", head, [memcg])
    cont(",task=%s,pid=%d,uid=%d", head, [task, str(pid), "0"])
    add("Memory cgroup stats for %s", ["/test"])
    return add(KILLED, ["Memory cgroup out of memory", str(pid), task, "108540", "99652",
                        "0", "0", "0", "236", "0"], level="err", problems=["OOMKilling"])


def blk(dev, sector):
    return add(BLK, ["critical medium", dev, str(sector), "0", "READ", "0", "1", "2"],
               level="err", problems=["BlockIOError"])


# Unrelated, and what would fool a regex over the text.
add("usb %d-%d: new high-speed USB device number %d using %s", ["1", "1", "2", "xhci_hcd"])
add("%s", ["INFO: task fake:1 blocked for more than 120 seconds."])
SHORT_MEMCG = "/test"
OOM1 = oom(SHORT_MEMCG, "stress", 4242)
add("random: crng init done")
HUNG_DD = add(HUNG, ["dd", "777", "120"], level="err", problems=["TaskHung"])
add("\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
HUNG_DOCKER = add(HUNG, ["dockerd", "888", "120"], level="err",
                  problems=["TaskHung", "DockerHung"])
EXT4 = add("EXT4-fs error (device %s): %s:%d: inode #%lu: comm %s: %pV",
           ["loop0", "ext4_lookup", "1855", "12", "ls", "deleted inode referenced: 12"],
           level="crit", problems=["Ext4Error"])
RO = add(EXT4_MSG, ["", "loop0", "Remounting filesystem read-only"],
         text="EXT4-fs (loop0): Remounting filesystem read-only", level="crit",
         problems=["FilesystemIsReadOnly"])
add(EXT4_MSG, ["", "loop1", "mounted filesystem with ordered data mode. Quota mode: none."],
    text="EXT4-fs (loop1): mounted filesystem with ordered data mode. Quota mode: none.")
BLK_FIRST = blk("sda", 2048)
blk("sdb", 4096)
blk("sda", 2056)
BUF = add("Buffer I/O error on dev %pg, logical block %llu, async page read", ["sda1", "256"],
          level="err", problems=["IOError"])
PART1 = len(recs)       # the short exporter's file ends here
blk("sdc", 8)
BLK_LAST = blk("sdd", 16)
LONG_MEMCG = ("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0123456789abcdef"
              ".slice/cri-containerd-0a1b2c.scope")
OOM2 = oom(LONG_MEMCG, "java", 31337)
add("systemd[1]: %s: Consumed %s CPU time.", ["session-1.scope", "1.2s"])

path = os.path.join(work, "problems.jsonl")
with open(path, "wb") as f:
    for r in recs:
        f.write(line(r))
part1 = os.path.join(work, "part1.jsonl")
with open(part1, "wb") as f:
    for r in recs[:PART1]:
        f.write(line(r))

exp = Exporter(path, "--problems.file", CATALOG, "--problems.max-series", "2")
short = Exporter(part1, "--problems.file", CATALOG)
t.ok(any("recognising the 8 problems of %s" % CATALOG in ln for ln in exp.stderr),
     "the startup says how many problems it recognises (%r)" % exp.stderr)


def when(seq):
    """first_seen/last_seen of a record of seq (kpxtest: ts_real_ns 1.7e18 + seq)."""
    ns = recs[seq - 1]["ts_real_ns"]
    return datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (ns % 10**9)


def get_json(e, p):
    st, _, body = e.get(p)
    return st, json.loads(body)


st, all_p = get_json(exp, "/problems")
t.ok(st == 200 and not schema_errors(all_p),
     "/problems: 200 and valid against schema/problems.schema.json (%r)" % schema_errors(all_p))
by = {p["problem"]: p for p in all_p["problems"]}
t.ok(all_p["rules"] == 8 and sorted(by) == sorted(
    ["OOMKilling", "TaskHung", "DockerHung", "Ext4Error", "FilesystemIsReadOnly",
     "BlockIOError", "IOError", "KernelWarning"]),
     "/problems lists every rule of the catalog, seen or not (%r)" % sorted(by))
want_counts = {"OOMKilling": 2, "TaskHung": 2, "DockerHung": 1, "Ext4Error": 1,
               "FilesystemIsReadOnly": 1, "BlockIOError": 5, "IOError": 1, "KernelWarning": 0}
t.ok({k: v["count"] for k, v in by.items()} == want_counts,
     "counts per problem (%r)" % {k: v["count"] for k, v in by.items()})
kw = by["KernelWarning"]
t.ok(kw["first_seen"] is None and kw["last_seen"] is None and kw["series"] == [],
     "a problem never seen: first/last seen null, no series (%r)" % kw)
b = by["BlockIOError"]
t.ok(b["first_seen"] == when(BLK_FIRST) and b["last_seen"] == when(BLK_LAST),
     "first_seen and last_seen are the first and last records' times, RFC 3339 UTC (%s, %s)"
     % (b["first_seen"], b["last_seen"]))
series = {s["labels"]["device"]: s["count"] for s in b["series"]}
t.ok(series == {"sda": 2, "sdb": 1, "overflow": 2},
     "--problems.max-series 2: two label sets, the rest in the series whose labels are"
     " all overflow (%r)" % series)
t.ok(by["DockerHung"]["kind"] == "condition" and by["DockerHung"]["condition"] == "KernelDeadlock"
     and by["TaskHung"]["kind"] == "event" and by["TaskHung"]["condition"] is None,
     "kind and condition as the catalog has them")
o = by["OOMKilling"]["series"]
latest = o[0]["latest"] if len(o) == 1 else {}
kill = recs[OOM2 - 1]
t.ok(latest.get("record", {}).get("seq") == OOM2 and latest["record"]["args"] == kill["args"]
     and latest["record"]["text"] == kill["text"],
     "the latest hit holds the latest record, its args as /records has them")
t.ok(latest.get("attribution") == {"task": "java", "pid": "31337", "memcg": LONG_MEMCG},
     "the OOM kill's attribution: task and pid from its record, the memory cgroup from the"
     " oom-kill: line's fragments before it (%r)" % latest.get("attribution"))
ext = by["Ext4Error"]["series"]
t.ok(len(ext) == 1 and ext[0]["labels"] == {"device": "loop0"} and
     ext[0]["latest"]["attribution"].get("task") == "ls" and
     ext[0]["latest"]["record"]["args"][5] == "deleted inode referenced: 12",
     "ext4's error: device loop0 a label, the %%pV argument in the latest record (%r)" % ext)
ro = by["FilesystemIsReadOnly"]["series"]
t.ok(len(ro) == 1 and ro[0]["labels"] == {"device": "loop0"} and ro[0]["count"] == 1,
     "the remount read-only by its inner format; ext4's other message on loop1 is none (%r)" % ro)

st, seen = get_json(exp, "/problems?seen=1")
t.ok(st == 200 and not schema_errors(seen) and sorted(p["problem"] for p in seen["problems"])
     == sorted(k for k, v in want_counts.items() if v) and seen["rules"] == 8,
     "?seen=1: only the problems seen, rules still all of them")
st, zero = get_json(exp, "/problems?seen=0")
t.ok(st == 200 and len(zero["problems"]) == 8, "?seen=0: every problem")
for q, param in (("?foo=1", "foo"), ("?seen=2", "seen"), ("?seen=1&limit=3", "limit"),
                 ("?seen", "seen")):
    st, hdr, body = exp.get("/problems" + q)
    try:
        err = json.loads(body)
    except ValueError:
        err = {}
    t.ok(st == 400 and hdr.get("Content-Type", "").startswith("application/json") and
         err.get("parameter") == param and err.get("error"),
         "/problems%s: 400 and a JSON error naming %s (%d %r)" % (q, param, st, body[:120]))

# /metrics, the text exposition.
st, _, text = exp.get("/metrics")
ok, why = promtool_check(text)
t.ok(st == 200 and ok, "/metrics (text) passes promtool check metrics (%s)" % why[:300])
samples = parse_metrics(text.decode())


def sample(name, **labels):
    got = [v for n, ls, v in samples if n == name and dict(ls) == labels]
    return got[0] if len(got) == 1 else None


t.ok(sample("kprint_problem_catalog_rules") == 8, "kprint_problem_catalog_rules 8")
got = {tuple(ls): v for n, ls, v in samples if n == "kprint_problem_total"}
want = {(("problem", "OOMKilling"),): 2, (("problem", "TaskHung"),): 2,
        (("problem", "DockerHung"),): 1, (("problem", "KernelWarning"),): 0,
        (("problem", "Ext4Error"), ("device", "loop0")): 1,
        (("problem", "FilesystemIsReadOnly"), ("device", "loop0")): 1,
        (("problem", "BlockIOError"), ("device", "sda")): 2,
        (("problem", "BlockIOError"), ("device", "sdb")): 1,
        (("problem", "BlockIOError"), ("device", "overflow")): 2,
        (("problem", "IOError"), ("device", "sda1")): 1}
t.ok(got == want, "kprint_problem_total: a series per problem and label set, the overflow"
     " past --problems.max-series, 0 for a problem without labels not seen (%r)" % got)
cond = {tuple(ls): v for n, ls, v in samples if n == "kprint_problem_condition"}
t.ok(cond == {(("condition", "KernelDeadlock"), ("problem", "DockerHung")): 1,
              (("condition", "ReadonlyFilesystem"), ("problem", "FilesystemIsReadOnly"),
               ("device", "loop0")): 1},
     "kprint_problem_condition: 1 per permanent condition seen, none for the events (%r)" % cond)
t.ok(b" # {" not in text, "no exemplars in the text exposition")


# OpenMetrics: exemplars, parsed by prometheus_client.
def om(e):
    st, hdr, body = e.get("/metrics", headers={"Accept": OM_TYPE})
    try:
        fams = list(text_string_to_metric_families(body.decode()))
    except Exception as ex:  # the parser raises ValueError and others
        return None, repr(ex)
    return {f.name: f for f in fams}, hdr.get("Content-Type", "")


def exemplars(fams):
    """{(problem, labels...): exemplar} of kprint_problem_total."""
    f = fams.get("kprint_problem")
    return {tuple(sorted(s.labels.items())): s.exemplar for s in f.samples
            if s.name == "kprint_problem_total"} if f else {}


def within(e):
    return sum(len(k) + len(v) for k, v in e.labels.items()) <= 128


fams, ctype = om(exp)
t.ok(fams is not None and ctype.startswith("application/openmetrics-text"),
     "/metrics as OpenMetrics parses with prometheus_client (%s)" % ctype)
fams = fams or {}
ex = exemplars(fams)
inst = None
bad = []
for key, e in ex.items():
    labels = dict(key)
    seen_count = want.get(tuple([("problem", labels["problem"])] + [
        (k, v) for k, v in key if k != "problem"]), None)
    if e is None:
        if seen_count:
            bad.append("no exemplar on %r" % (key,))
        continue
    inst = e.labels.get("kprint_instance")
    if not within(e) or e.value != 1 or not re.fullmatch(r"[0-9a-f]{8}", inst or ""):
        bad.append("%r: %r" % (key, e))
t.ok(ex and not bad, "every problem series seen has an exemplar within 128 characters,"
     " value 1, an 8-digit instance (%r)" % bad[:3])
e = ex.get((("problem", "OOMKilling"),))
t.ok(e is not None and e.labels.get("seq") == str(OOM2) and e.labels.get("task") == "java"
     and e.labels.get("pid") == "31337" and "memcg" not in e.labels and within(e),
     "the OOM kill's exemplar: its seq, task and pid; the memcg, too long for 128"
     " characters, left out (%r)" % (e,))
e = ex.get((("device", "overflow"), ("problem", "BlockIOError")))
t.ok(e is not None and e.labels.get("seq") == str(BLK_LAST) and
     e.labels.get("sector") == "16" and e.labels.get("error") == "critical medium",
     "the overflow series' exemplar is its latest hit, with its attribution (%r)" % (e,))
t.ok("kprint_problem_condition" in fams and fams["kprint_problem_condition"].type == "gauge"
     and "kprint_problem_catalog_rules" in fams, "the condition and catalog families parse")
fams_s, _ = om(short)
e = exemplars(fams_s or {}).get((("problem", "OOMKilling"),))
t.ok(e is not None and e.labels.get("seq") == str(OOM1) and
     e.labels.get("memcg") == SHORT_MEMCG and within(e),
     "a short memcg fits: the exemplar names it (%r)" % (e,))
st, _, body = short.get("/metrics")
got_s = {tuple(ls): v for n, ls, v in parse_metrics(body.decode())
         if n == "kprint_problem_total" and ("problem", "BlockIOError") in ls}
t.ok(got_s == {(("problem", "BlockIOError"), ("device", "sda")): 2,
               (("problem", "BlockIOError"), ("device", "sdb")): 1},
     "the default --problems.max-series (32): no overflow (%r)" % got_s)

# /events: the problem events right after their records', none after others.
s = Stream(exp.host, exp.port, "/events?after=00000000-0")
evs = []
try:
    while True:
        ev = s.next_event(timeout=5)
        evs.append(ev)
        if ev.get("id", "").endswith("-%d" % len(recs)):
            break
except (TimeoutError, EOFError) as err:
    evs.append({"event": "error", "data": repr(err)})
s.close()
after, bad, nprob = {}, [], 0
last_seq = None
for ev in evs:
    if ev["event"] == "message":
        last_seq = ev["data"]["seq"]
        after[last_seq] = []
    elif ev["event"] == "problem":
        nprob += 1
        if last_seq is None or ev["data"]["record"]["seq"] != last_seq or "id" in ev:
            bad.append(ev)
        else:
            after[last_seq].append(ev["data"]["problem"])
ids = {ev["id"].split("-")[0] for ev in evs if ev["event"] == "message"}
t.ok(ids == {inst}, "the exemplars' kprint_instance is the instance of the /events ids"
     " (%r, %r)" % (ids, inst))
t.ok(not bad and nprob == sum(len(v) for v in problems_of.values()),
     "/events: %d problem events, each right after its record's, without an id (%r)"
     % (nprob, bad[:2]))
wrong = {q: v for q, v in after.items() if v != problems_of.get(q, [])}
t.ok(len(after) == len(recs) and not wrong,
     "/events: each record's problems, in the catalog's order, none for the unrelated"
     " records (%r)" % wrong)
ev = next((ev for ev in evs if ev["event"] == "problem" and
           ev["data"]["problem"] == "DockerHung"), {})
t.ok(ev.get("data", {}).get("kind") == "condition" and
     ev["data"].get("condition") == "KernelDeadlock" and
     ev["data"].get("attribution") == {"task": "dockerd", "pid": "888"} and
     not schema_errors({"rules": 1, "problems": [dict(by["DockerHung"], series=[
         {"labels": {}, "count": 1, "first_seen": None, "last_seen": None,
          "latest": ev["data"]}])]}),
     "a problem event's data is a HIT of the schema (%r)" % ev.get("data", {}).get("attribution"))

# The page: the problems panel, and the banner of a condition, which stays.
REPLAY_503 = "/formats - Failed to load resource: the server responded with a status of 503"
from pagetest import Browser, By  # noqa: E402
b = Browser()
try:
    b.get("http://%s:%d/" % (exp.host, exp.port))
    items = b.until(lambda: b.d.find_elements(By.CSS_SELECTOR, "#problems li.problem"), 10) or []
    names = sorted(li.get_attribute("data-problem") for li in items)
    t.ok(names == sorted(k for k, v in want_counts.items() if v),
         "the page's problems panel lists the problems seen (%r)" % names)
    oom_li = [li for li in items if li.get_attribute("data-problem") == "OOMKilling"]
    t.ok(oom_li and "×2" in oom_li[0].text and kill["text"] in oom_li[0].text and
         "task=java" in oom_li[0].text,
         "... with its count, attribution and latest record's text (%r)"
         % (oom_li and oom_li[0].text[:200]))
    banner = b.d.find_element(By.ID, "condition-banner")
    shown = b.until(lambda: banner.is_displayed() and banner.text, 5)
    t.ok(shown and "KernelDeadlock" in banner.text and
         "ReadonlyFilesystem (device=loop0)" in banner.text and
         not banner.find_elements(By.TAG_NAME, "button"),
         "a banner names the conditions, with nothing to dismiss it (%r)" % banner.text)
    # Another lost banner dismissed leaves it; a reload shows it again.
    b.js("document.getElementById('banner-close').click()")
    t.ok(banner.is_displayed(), "... the other banner's Dismiss leaves it shown")
    errors = b.errors(allowed=[REPLAY_503])
    t.ok(not errors, "no console errors but /formats' 503 (%r)" % errors[:3])
    b.get("http://%s:%d/" % (short.host, short.port))
    items = b.until(lambda: b.d.find_elements(By.CSS_SELECTOR, "#problems li.problem"), 10) or []
    banner = b.d.find_element(By.ID, "condition-banner")
    t.ok(items and b.until(lambda: banner.is_displayed(), 2) and
         "KernelDeadlock" in banner.text,
         "the short replay's page: its banner too (%r)" % banner.text)
finally:
    b.quit()

for e in (exp, short):
    t.ok(e.stop() == 0, "the exporter stops cleanly (%r)" % e.stderr[-3:])

# The shipped catalog (problems/problems.yaml, or KPRINT_PROBLEMS_YAML), when
# the tree has it: the same records, no problem for the unrelated ones.
real = os.environ.get("KPRINT_PROBLEMS_YAML", os.path.join(REPO, "problems/problems.yaml"))
if not os.path.exists(real):
    print("ok - # SKIP no %s: the shipped catalog is not checked" % real)
else:
    e = Exporter(path, "--problems.file", real)
    s = Stream(e.host, e.port, "/events?after=00000000-0")
    got = {}
    try:
        while True:
            ev = s.next_event(timeout=5)
            if ev["event"] == "problem":
                got.setdefault(ev["data"]["record"]["seq"], []).append(ev["data"]["problem"])
            if ev.get("id", "").endswith("-%d" % len(recs)):
                break
    except (TimeoutError, EOFError):
        pass
    s.close()
    stray = {q: v for q, v in got.items() if q not in problems_of}
    core = {q: [p for p in v if p in ("OOMKilling", "TaskHung", "DockerHung", "Ext4Error",
                                      "FilesystemIsReadOnly", "BlockIOError")]
            for q, v in got.items()}
    want_core = {q: [p for p in v if p != "IOError"] for q, v in problems_of.items()}
    t.ok(not stray and {q: v for q, v in core.items() if v} ==
         {q: v for q, v in want_core.items() if v},
         "%s: the same problems (the buffer I/O error aside), none for the unrelated"
         " records (%r, %r)" % (real, stray, core))
    t.ok(e.stop() == 0, "that exporter stops cleanly")

# A catalog that does not load: refused at the start, FILE:LINE: reason, status 2.
bad_cat = os.path.join(work, "bad.yaml")
with open(CATALOG) as f:
    lines = f.read().split("\n")
at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("summary: A WARN"))
lines.insert(at + 1, "    severity: high")
with open(bad_cat, "w") as f:
    f.write("\n".join(lines))
st, err = run_replay(path, "--problems.file", bad_cat)
t.ok(st == 2 and re.search(r"%s:%d: .*severity" % (re.escape(bad_cat), at + 2), err),
     "a catalog with an unknown key: exit status 2 and FILE:LINE: reason (%r, %r)" % (st, err))
st, err = run_replay(path, "--problems.file", os.path.join(work, "missing.yaml"))
t.ok(st == 2 and "missing.yaml" in err,
     "a catalog given that is not there: exit status 2, named (%r, %r)" % (st, err))

# No --problems.file and no default installed: no problems, said once, the rest serves.
if os.path.exists(DEFAULT_CATALOG):
    print("ok - # SKIP %s is installed here: the missing default is not testable" %
          DEFAULT_CATALOG)
else:
    plain = Exporter(path)
    said = [ln for ln in plain.stderr if "problem catalog" in ln]
    t.ok(len(said) == 1 and DEFAULT_CATALOG in said[0],
         "the default catalog missing: one log line naming it (%r)" % said)
    st, p = get_json(plain, "/problems")
    t.ok(st == 200 and p == {"rules": 0, "problems": []}, "... /problems is empty (%r)" % p)
    st, _, body = plain.get("/metrics")
    sm = parse_metrics(body.decode())
    t.ok(("kprint_problem_catalog_rules", [], 0.0) in sm and
         not [n for n, _, _ in sm if n in ("kprint_problem_total", "kprint_problem_condition")],
         "... kprint_problem_catalog_rules 0 and no problem series")
    b = Browser()
    try:
        b.get("http://%s:%d/" % (plain.host, plain.port))
        st_el = b.d.find_element(By.ID, "problems-status")
        said = b.until(lambda: "No problem catalog" in st_el.text and st_el.text, 10)
        t.ok(said and not b.d.find_element(By.ID, "condition-banner").is_displayed(),
             "... the page says there is no catalog, and shows no banner (%r)" % st_el.text)
    finally:
        b.quit()
    st, _, body = plain.get("/records?limit=1000")
    t.ok(st == 200 and len(json.loads(body)) == len(recs), "... and the records are all served")
    t.ok(plain.stop() == 0, "that exporter stops cleanly")

subprocess.run(["rm", "-rf", work])
t.done()
