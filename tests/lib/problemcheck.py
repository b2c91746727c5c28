# SPDX-License-Identifier: GPL-2.0
"""The checks of the kernel problem tests (tests/e2e/problems-*.py): what
the exporter (--problems.file), its /events stream and `kprint problems`
make of the problems that tests/lib/provoke.py causes.

Watch starts them all before the first problem: the exporter with the
tree's catalog, a reader of /events, `kprint problems --follow --json`,
and the /dev/kmsg oracle.  The exporter also runs node-problem-detector's
kernel-monitor.json (--npd-rules, --npd-metrics), checked against NPD's
own algorithm redone in tests/lib/npdoracle.py.  The oracle counts each problem's lines in the
kernel's own log with a regular expression of this file (a test oracle:
independent of the catalog and of the matcher), so that each channel must
give exactly that many hits, for the right record, with the right labels
and attribution, and nothing for any other line of the run.
"""
import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import kpnl
from kpxtest import problems_schema_errors
from npdoracle import NpdMonitor
from lib import PORT, URL, check, get, kmsg_write, wait_for, wait_subscribers
import provoke as pv
from provoke import Kmsg
from ssetest import Stream

CATALOG = "problems/problems.yaml"
NPD_RULES = "tests/host/npd/kernel-monitor.json"
OM = "application/openmetrics-text"
SCHEMA = "schema/problems.schema.json"

# Each problem's lines in the kernel's log as 6.1 prints them: the oracle.
ORACLE = {
    "OOMKilling": r"^[^:]*out of memory: Killed process \d+ ",
    "TaskHung": r"^INFO: task \S+:\d+ blocked for more than \d+ seconds\.",
    "DockerHung": r"^INFO: task docker\S*:\d+ blocked for more than",
    "Segfault": r"^\S+\[\d+\]: segfault at ",
    "Ext4Error": r"^EXT4-fs error \(device ",
    "Ext4Warning": r"^EXT4-fs warning \(device ",
    "FilesystemIsReadOnly": r"^EXT4-fs \(\S+\): Remounting filesystem read-only",
    "XfsHasShutdown": r"^XFS \(\S+\): .* detected at .*Shutting down filesystem\.",
    "IOError": r"^Buffer I/O error on dev",
    "BlockIOError": r"^[a-z ]+ error, dev \S+, sector \d+ op 0x",
    "LinkDown": r"\(slave \S+\): link status definitely down",
    "KernelWarning": r"^WARNING: CPU: \d+ PID: \d+ at ",
    "KernelOops": r"^(Oops: )?[A-Za-z ]+: [0-9a-f]{4} \[#\d+\]",
    "KernelBUG": r"^kernel BUG at ",
    "KernelPanic": r"^Kernel panic - not syncing",
    "SoftLockup": r"BUG: soft lockup",
    "RCUStall": r"^rcu: INFO: .* stall",
    "HardwareError": r"^mce: \[Hardware Error\]: CPU \d+: Machine Check",
}


def npd_rules(work, lookback):
    """NPD_RULES, or a copy of it in work with another "lookback"."""
    if lookback is None:
        return NPD_RULES
    with open(NPD_RULES) as f:
        cfg = json.load(f)
    cfg["lookback"] = lookback
    path = f"{work}/kernel-monitor.json"
    with open(path, "w") as f:
        json.dump(cfg, f, indent="\t")
    return path


class Watch:
    """The exporter, its /events, `kprint problems -f` and /dev/kmsg, from
    before the first problem to after the last."""

    def __init__(self, work, npd_lookback=None):
        self.work = work
        self.err = open(f"{work}/exporter.err", "w")
        self.npd_rules = npd_rules(work, npd_lookback)
        # NPD's start time counts back from here (lookback), on the clock
        # of /dev/kmsg's and the records' stamps.
        self.start_ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        self.exporter = subprocess.Popen(
            ["kprint_exporter", "--no-bpf", "--listen", f"127.0.0.1:{PORT}",
             f"--problems.file={CATALOG}", "--npd-rules", self.npd_rules, "--npd-metrics"],
            stderr=self.err)
        self.events, self.stop, self.reader = [], False, None
        wait_for("the exporter with --problems.file answers /healthz", self.healthy)
        self.up = self.exporter.poll() is None
        with open(f"{work}/exporter.err") as f:
            check("the exporter starts with --problems.file=" + CATALOG, self.up, f.read()[-300:])
        if self.up:
            self.stream = Stream("127.0.0.1", PORT, "/events")
            self.reader = threading.Thread(target=self.read_events, daemon=True)
            self.reader.start()
        self.cli_out = f"{work}/problems-follow.json"
        self.cli = subprocess.Popen(["kprint", "problems", "--follow", "--json",
                                     "--problems", CATALOG],
                                    stdout=open(self.cli_out, "w"),
                                    stderr=open(f"{work}/problems-follow.err", "w"))
        # The exporter and the CLI both subscribed: nothing from now on
        # can pass them by.
        wait_subscribers(kpnl.Genl().groups["records"], 2 if self.up else 1)
        # With what /dev/kmsg held before: the exporter has it too (the
        # printk backlog kprint.ko took at load), and NPD's lookback reaches it.
        self.log = Kmsg(history=True)

    def healthy(self):
        if self.exporter.poll() is not None:
            return True		# dead: the check after says so
        try:
            return get("/healthz", timeout=2)[0] == 200
        except OSError:
            return False

    def read_events(self):
        while not self.stop:
            try:
                self.events.append(self.stream.next_event(1))
            except TimeoutError:
                continue
            except (EOFError, OSError, ValueError):
                return

    def settle(self, token):
        """Wait until /events has sent the record of a last /dev/kmsg line
        (so the exporter has every record before it), then stop reading."""
        text = f"kprint problems: {token}"
        kmsg_write(text)
        if not self.reader:
            return		# no exporter: its checks fail anyway
        wait_for("/events sends the run's last record", lambda: any(
            e.get("event") == "message" and e["data"].get("text") == text
            for e in self.events[-200:]))
        self.stop = True
        if self.reader:
            self.reader.join(5)

    def npd_expected(self):
        """What NPD, started with the exporter, makes of the kernel's log
        (npdoracle): the lines before the run as far as its lookback goes,
        and every line of the run."""
        return NpdMonitor(self.npd_rules).run(self.log.history + self.log.read(),
                                              self.start_ns)

    def npd_before(self):
        """NPD's hits in the lines /dev/kmsg held before the run."""
        return NpdMonitor(self.npd_rules).run(self.log.history, self.start_ns)[0]

    def expected(self):
        """{problem: count} by the oracle, over every kernel line of the run."""
        lines = self.log.read()
        out = {}
        for name, rx in ORACLE.items():
            n = sum(1 for r in lines if re.search(rx, r["text"]))
            if n:
                out[name] = n
        return out

    def wait_cli(self, n):
        """Wait until `kprint problems -f` has printed n hits (the kernel
        log's count of them), which it may do after the exporter's."""
        wait_for(f"kprint problems -f prints {n} hits", lambda: len(self.cli_hits()) >= n,
                 seconds=30, state=lambda: len(self.cli_hits()))

    def cli_hits(self):
        with open(self.cli_out) as f:
            return [json.loads(ln) for ln in f if ln.endswith("\n")]

    def close(self):
        self.cli.terminate()
        self.cli.wait()
        self.exporter.terminate()
        check("SIGTERM stops the exporter with status 0", self.exporter.wait() == 0)


def problems_page(query=""):
    """GET /problems?...: (status, JSON or None); (0, None) without an
    exporter to answer."""
    try:
        st, body = get("/problems" + query)
        return st, json.loads(body)
    except (OSError, ValueError):
        return locals().get("st", 0), None


def openmetrics():
    """/metrics as OpenMetrics; empty without an exporter to answer."""
    req = urllib.request.Request(URL + "/metrics", headers={"Accept": OM})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.read().decode()
    except OSError:
        return ""


LABELS = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def om_samples(page, name):
    """[(labels, value, exemplar labels or None)] of one family's samples."""
    out = []
    rx = re.compile(r'^%s\{([^}]*)\} (\S+)(?: # \{([^}]*)\} \S+(?: \S+)?)?$' % re.escape(name))
    for ln in page.splitlines():
        m = rx.match(ln)
        if m:
            ex = dict(LABELS.findall(m.group(3))) if m.group(3) is not None else None
            out.append((dict(LABELS.findall(m.group(1))), float(m.group(2)), ex))
    return out


def follows_its_record(events, i):
    """Whether the problem event events[i] comes right after its record's
    own event (past other problem events of the same record)."""
    seq = events[i]["data"]["record"]["seq"]
    j = i - 1
    while j >= 0 and events[j].get("event") == "problem" and \
            events[j]["data"]["record"]["seq"] == seq:
        j -= 1
    return j >= 0 and events[j].get("event") == "message" and events[j]["data"].get("seq") == seq


def attrs_ok(hit, attrs):
    """Each of attrs held in hit's attribution: a name (or a tuple of
    names, any of which) and a value, or a function of (value, hit)."""
    got = hit.get("attribution", {})
    for k, v in attrs.items():
        keys = k if isinstance(k, tuple) else (k,)
        if callable(v):
            if not any(v(got.get(kk), hit) for kk in keys):
                return False
        elif not any(got.get(kk) == v for kk in keys):
            return False
    return True


class Outcome:
    """What every channel made of the run, taken once it is over."""

    def __init__(self, watch):
        self.events = watch.events
        self.cli = watch.cli_hits()
        st, self.problems = problems_page()
        check("GET /problems answers 200 with JSON", st == 200 and self.problems is not None)
        self.problems = self.problems or {"rules": 0, "problems": []}
        self.om = openmetrics()
        r = subprocess.run(["kprint", "problems", "--json", "--problems", CATALOG],
                           capture_output=True, text=True, timeout=120)
        check("kprint problems --json (the ring) exits 0", r.returncode == 0, r.stderr[-300:])
        self.dump = [json.loads(ln) for ln in r.stdout.splitlines() if ln.strip()]
        r = subprocess.run(["kprint", "problems", "--problems", CATALOG],
                           capture_output=True, text=True, timeout=120)
        check("kprint problems (text, the ring) exits 0", r.returncode == 0, r.stderr[-300:])
        self.text = r.stdout.splitlines()

    def entry(self, name):
        return next((p for p in self.problems["problems"]
                     if p.get("problem") == name and "npd" not in p), None)


def verify_problems(out, name, count, labels, attrs, condition=None):
    """/problems: the count, the one series of labels, its latest hit."""
    e = out.entry(name)
    check(f"{name}: /problems counts {count}", e is not None and e["count"] == count,
          e and e["count"])
    series = [s for s in (e or {}).get("series", []) if s.get("labels") == labels]
    check(f"{name}: /problems has one series {labels} of {count}",
          len(series) == 1 and series[0]["count"] == count and len(e["series"]) == 1,
          e and e.get("series"))
    latest = series[0].get("latest") if series else None
    check(f"{name}: its latest hit is its last line, attribution {attrs_text(attrs)}",
          latest is not None and latest.get("labels") == labels and attrs_ok(latest, attrs) and
          re.search(ORACLE[name], latest["record"]["text"]) is not None, latest)
    check(f"{name}: first and last seen given, kind {'condition' if condition else 'event'}",
          e is not None and e["first_seen"] and e["last_seen"] and
          e["kind"] == ("condition" if condition else "event") and e["condition"] == condition, e)
    return latest


def attrs_text(attrs):
    return ", ".join(f"{'|'.join(k) if isinstance(k, tuple) else k}"
                     f"{'' if callable(v) else '=' + str(v)}" for k, v in attrs.items())


def exemplar_pairs(seq, attribution):
    """The attribution pairs an exemplar carries: in the rule's order, each
    that still fits OpenMetrics' 128 characters of names and values."""
    used = len("seq") + len(seq) + len("kprint_instance") + 8
    out = {}
    for k, v in attribution.items():
        if used + len(k) + len(v) <= 128:
            used += len(k) + len(v)
            out[k] = v
    return out


def verify_metrics(out, name, count, labels, latest, condition=None):
    """/metrics (OpenMetrics): the counter, its exemplar, the condition."""
    want = {"problem": name, **labels}
    s = [x for x in om_samples(out.om, "kprint_problem_total") if x[0] == want]
    check(f"{name}: kprint_problem_total{want} {count}", len(s) == 1 and s[0][1] == count, s)
    ex = s[0][2] if s else None
    seq = str(latest["record"]["seq"]) if latest else None
    pairs = exemplar_pairs(seq, latest["attribution"]) if latest else None
    check(f"{name}: its exemplar is the latest record (seq {seq}) with its attribution {pairs}",
          ex is not None and ex.get("seq") == seq and
          re.fullmatch(r"[0-9a-f]{8}", ex.get("kprint_instance", "")) is not None and
          {k: v for k, v in ex.items() if k not in ("seq", "kprint_instance")} == pairs, ex)
    if latest:
        st, body = get(f"/records?after={int(seq) - 1}&limit=1")
        recs = json.loads(body) if st == 200 else []
        check(f"{name}: /records?after={int(seq) - 1}&limit=1 is the exemplar's record",
              len(recs) == 1 and recs[0]["seq"] == int(seq) and
              recs[0]["text"] == latest["record"]["text"], recs)
    if condition:
        c = [x for x in om_samples(out.om, "kprint_problem_condition")
             if x[0] == {"condition": condition, **want}]
        check(f"{name}: kprint_problem_condition{{condition=\"{condition}\"}} 1",
              len(c) == 1 and c[0][1] == 1,
              [ln for ln in out.om.splitlines() if "kprint_problem_condition" in ln])


def verify_hits(out, name, count, labels, attrs):
    """/events and `kprint problems` (live and over the ring): count hits,
    each with the labels and attribution, the same records."""
    evs = [i for i, e in enumerate(out.events)
           if e.get("event") == "problem" and e["data"].get("problem") == name and
           "npd" not in e["data"]]
    hits = [out.events[i]["data"] for i in evs]
    check(f"{name}: /events sends {count} problem event(s), labels and attribution right",
          len(hits) == count and all(h["labels"] == labels and attrs_ok(h, attrs) for h in hits),
          hits[-1:] or len(hits))
    check(f"{name}: each right after its record's own event",
          evs and all(follows_its_record(out.events, i) for i in evs))
    seqs = sorted(h["record"]["seq"] for h in hits)
    verify_text(out, name, count, hits)
    for what, got in (("kprint problems -f --json", out.cli),
                      ("kprint problems --json", out.dump)):
        mine = [h for h in got if h.get("problem") == name]
        check(f"{name}: {what} prints the same {count} hit(s)",
              len(mine) == count and sorted(h["record"]["seq"] for h in mine) == seqs and
              all(h["labels"] == labels and attrs_ok(h, attrs) for h in mine), mine[-1:])


def verify_text(out, name, count, hits):
    """`kprint problems` as text: a line per hit, "[seconds] PROBLEM
    label=value ... attr=value ...: record text", with /events' values."""
    lines = [ln for ln in out.text if re.match(r"^\[ *\d+\.\d+\] %s[ :]" % name, ln)]
    want = []
    for h in hits:
        pairs = " ".join(f"{k}={v}" for k, v in list(h["labels"].items()) +
                         list(h["attribution"].items()))
        want.append(f"{name}{' ' + pairs if pairs else ''}: {h['record']['text']}")
    got = [re.sub(r"^\[ *\d+\.\d+\] ", "", ln) for ln in lines]
    check(f"{name}: kprint problems (text) prints {count} line(s) of it, values and record text",
          len(lines) == count and sorted(got) == sorted(want), (lines[-1:], want[-1:]))


def verify(out, name, count, labels, attrs, condition=None):
    """Every channel's view of one problem, caused count times."""
    latest = verify_problems(out, name, count, labels, attrs, condition)
    verify_metrics(out, name, count, labels, latest, condition)
    verify_hits(out, name, count, labels, attrs)


def no_false_positive(out, expected):
    """The run's problems are exactly those caused, as often as the kernel
    printed them: /problems?seen=1 and every channel (the catalog's: NPD's
    rules are verify_npd()'s)."""
    st, seen = problems_page("?seen=1")
    got = {p["problem"]: p["count"] for p in (seen or {}).get("problems", []) if "npd" not in p}
    check(f"/problems?seen=1 lists exactly {expected}", st == 200 and got == expected, got)
    for what, hits in (("/events", [e["data"] for e in out.events
                                    if e.get("event") == "problem" and "npd" not in e["data"]]),
                       ("kprint problems -f --json", out.cli),
                       ("kprint problems --json", out.dump)):
        n = {}
        for h in hits:
            n[h.get("problem")] = n.get(h.get("problem"), 0) + 1
        check(f"{what}: exactly those problems, no other", n == expected, n)


def verify_catalog(out):
    """Every rule of the catalog listed, the rules gauge, a bad parameter."""
    import yaml
    try:
        with open(CATALOG) as f:
            rules = len(yaml.safe_load(f)["problems"])
    except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
        check(f"{CATALOG} is there, with its problems", False, e)
        return
    p = out.problems
    mine = [x for x in p["problems"] if "npd" not in x]
    check(f"/problems: rules {rules}, every rule listed once",
          p["rules"] == rules and len({x["problem"] for x in mine}) == rules == len(mine),
          p["rules"])
    g = [ln for ln in out.om.splitlines() if ln.startswith("kprint_problem_catalog_rules ")]
    check(f"kprint_problem_catalog_rules {rules}", g == [f"kprint_problem_catalog_rules {rules}"], g)
    st, body = problems_page("?bogus=1")
    check("/problems?bogus=1: 400 with a JSON error", st == 400 and body is not None, st)
    why = problems_schema_errors(p)
    check("/problems is valid against " + SCHEMA, not why, why)


def verify_npd(out, npd, before, fired, stale):
    """NPD's rules on the same lines: kprint_problem_total{npd,problem} as
    often as NPD matches, and /problems' entries of the file's reasons; as
    many /events problem events with "npd" as NPD matches in the run's own
    lines (before: its hits in the lines before, which the exporter counted
    when it started, before /events was read), each right after its
    record; its problem_counter, problem_gauge and conditions as NPD sets
    them; the reasons in fired among the hits, those in stale (a pattern no
    line of our kernels fits) not."""
    hits, counter, conds = npd
    src = NpdMonitor(NPD_RULES).source
    got = {s[0]["problem"]: s[1] for s in om_samples(out.om, "kprint_problem_total")
           if s[0].get("npd") == src and s[1]}
    check(f"NPD rules: kprint_problem_total{{npd=\"{src}\"}} {hits}", got == hits, got)
    listed = {p["problem"]: p["count"] for p in out.problems["problems"]
              if p.get("npd") == src and p["count"]}
    check(f"NPD rules: /problems lists them with npd \"{src}\" and these counts", listed == hits,
          listed)
    live = {k: v - before.get(k, 0) for k, v in hits.items() if v - before.get(k, 0)}
    evs = [i for i, e in enumerate(out.events)
           if e.get("event") == "problem" and e["data"].get("npd") == src]
    sent = {}
    for i in evs:
        sent[out.events[i]["data"]["problem"]] = sent.get(out.events[i]["data"]["problem"], 0) + 1
    check(f"NPD rules: /events sends {live}, each right after its record",
          sent == live and all(follows_its_record(out.events, i) for i in evs), sent)
    check(f"NPD rules fire on {sorted(fired)}, not on {sorted(stale)}",
          set(fired) <= set(hits) and not set(stale) & set(hits), sorted(hits))
    ctr = {s[0]["reason"]: s[1] for s in om_samples(out.om, "problem_counter_total") if s[1]}
    check(f"NPD's problem_counter {counter}", ctr == counter, ctr)
    gauge = {s[0]["type"]: s[0]["reason"] for s in om_samples(out.om, "problem_gauge")
             if s[1] == 1}
    cond = {s[0]["condition"]: s[0]["problem"]
            for s in om_samples(out.om, "kprint_problem_condition") if s[0].get("npd") == src}
    check(f"NPD's conditions {conds}: problem_gauge and kprint_problem_condition{{npd}}",
          gauge == conds and cond == conds, (gauge, cond))


def run(test, work, causes, catalog=False, npd_fired=(), npd_stale=(), npd_lookback=None):
    """Cause each problem of causes, [(name, cause function, what(facts) ->
    [(problem, labels, attribution, condition)])], in turn with everything
    watching, then check each problem caused on every channel, that nothing
    else was recognised, and with catalog the catalog's own figures; and
    NPD's rules as NPD would run them (verify_npd), with npd_lookback for
    the rule file's "lookback"."""
    start = time.monotonic()
    os.makedirs(work, exist_ok=True)
    watch = Watch(work, npd_lookback)
    caused, times = [], {}
    for name, fn, what in causes:
        facts, took, _ = pv.provoke(name, fn, watch.log)
        times[name] = took
        if check(f"{name}: caused ({took:.1f} s)", facts is not None):
            caused += what(facts)
    watch.settle(f"{test} done")
    expected = watch.expected()
    watch.wait_cli(sum(expected.values()))
    npd = watch.npd_expected()
    print(f"# {test}: the kernel's log has {expected}; NPD's rules match {npd[0]} "
          f"(of which before the run, within the lookback: "
          f"{watch.npd_before()})", flush=True)
    out = Outcome(watch)
    for problem, labels, attrs, condition in caused:
        verify(out, problem, expected.get(problem, 0), labels, attrs, condition)
    no_false_positive(out, expected)
    verify_npd(out, npd, watch.npd_before(), npd_fired, npd_stale)
    if catalog:
        verify_catalog(out)
    watch.close()
    print(f"# {test}: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()) +
          f"; the whole test {time.monotonic() - start:.1f} s", flush=True)

