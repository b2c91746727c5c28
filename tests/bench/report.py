#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tests/bench/report.py [--docs DIR] [--extra X.json ...] RAW.json OUT.json OUT.md: the table.

Each ratio's median and spread (min..max) over the repetitions, its target
and whether the median meets it, and the environment the numbers come
from: without it, ratios from a software-emulated guest mean little.

With --docs DIR (make bench passes docs/), the table is also kept there,
dated, as DIR/bench/results-YYYY-MM-DD-HHMM.md, and the block between the
markers in DIR/benchmarks.md is replaced by a link to it and its table:
the write-up always shows the latest run and every run stays on file.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys

# id: (what, baseline, target as (op, value) or None, unit)
ROWS = [
    ("B1", "ns per kprint_info() (no subscriber, BPF off, bridge off)", "ns per printk() of the same format and arguments (bridge off)", ("<=", 1.5), "x"),
    ("B1_bridge", "ns per kprint_info() (no subscriber, BPF off, bridge on)", "ns per printk() (bridge on)", None, "x"),
    ("B9", "ns per printk() with the printk bridge on", "ns per printk() with it off, B1's formats", ("<=", 1.8), "x"),
    ("B9_ring_bytes", "ring bytes per bridged record of B1's formats (ring size / records it holds, filled with them)", "(absolute)", None, " B"),
    ("B9_ring_default", "such records the default 1 MiB ring holds (same count, scaled to 1 MiB)", "(absolute)", None, ""),
    ("B1_subscriber", "ns per kprint_info() with one subscriber", "ns per printk()", None, "x"),
    ("B1_bpf", "ns per kprint_info() with the BPF counters attached", "ns per printk()", None, "x"),
    ("B1_noecho", "ns per kprint_info() with the printk echo off (printk=N)", "ns per printk()", None, "x"),
    ("B1_clock", "ns per ktime_get_ns(), the one clock read of each record", "ns per printk()", None, "x"),
    ("B2", "records/s the exporter receives and indexes", "records/s a bare receiver drains, same socket options and load", (">=", 0.9), "x"),
    ("B2_best", "the exporter's fastest repetition of B2, records/s", "the bare receiver's fastest", None, "x"),
    ("B2_bare_rps", "the bare receiver's records/s in B2: the same work each time, so its spread is the host's", "(absolute)", None, ""),
    ("B3", "ns of BPF counting per printk message, bridge on: the programs' run time (kernel.bpf_stats_enabled) plus their hooks' (B3_hook_ns each)", "ns per printk()", ("<=", 0.10), "x"),
    ("B3_runs", "BPF program runs (hooks) per printk message", "(absolute)", ("<=", 1), ""),
    ("B3_run_time", "of B3, the programs' run time alone", "ns per printk()", None, "x"),
    ("B3_hook_ns", "one hook's own cost: an empty fentry's trampoline, timed on jiffies_to_usecs() with and without (fastest of 3 passes each)", "(absolute)", None, "ns"),
    ("B3_timed", "ns per printk() added by the counters, timed (run time and hook; noisy)", "ns per printk()", None, "x"),
    ("B3_kprint_timed", "ns per kprint_info() added by the counters, timed", "ns per printk()", None, "x"),
    ("B4", "/metrics time with 10,000 formats", "/metrics time with 1,000 formats", ("<=", 12), "x"),
    ("B4_ns_per_series", "render cost per series", "(absolute)", None, "ns"),
    ("B5", "/records?limit=1000 time", "/metrics time with 1,000 formats", ("<=", 3), "x"),
    ("B6", "exporter wake-ups (voluntary context switches, all threads) per 1,000 records", "(absolute)", ("<=", 5), ""),
    ("B6_preempted", "exporter preemptions (involuntary switches) per 1,000 records", "(absolute)", None, ""),
    ("B6_bare", "bare receiver wake-ups per 1,000 records", "(absolute)", None, ""),
    ("B6_datagrams", "notifications (datagrams) the bare receiver read per 1,000 records", "(absolute)", None, ""),
    ("B7", "CPU s per million messages counted per format by kprint", "the same by mtail, one regex per format", ("<=", 0.12), "x"),
    ("B10", "CPU s per million printk messages, kprint's whole path: the exporter's cgroup (receiving and storing), every kernel thread (the notification worker), the bridge and BPF counter in the printing task (timed, bridge on less off)", "journald (systemd-journald.service's cgroup) reading the same flood from /dev/kmsg and storing it", ("<=", 0.5), "x"),
    ("B10_journal", "the same with the exporter's --journal, plus the journal namespace kprint's journald storing its records", "journald as in B10, same flood", None, "x"),
    ("B10_kprint", "of B10, kprint's CPU s per million messages", "(absolute)", None, ""),
    ("B10_journald", "of B10, journald's CPU s per million messages", "(absolute)", None, ""),
    ("B11", "CPU s per million records to recognise kernel problems: kprint's catalog matcher (problems/problems.yaml) over decoded records", "the same records' text in mtail running NPD's kernel-monitor.json patterns, one counter per reason (mtail matches lines, not NPD's buffer)", ("<=", 0.1), "x"),
    ("B11_kprint", "of B11, kprint's CPU s per million records (= CPU µs per record)", "(absolute)", None, ""),
    ("B11_mtail", "of B11, mtail's CPU s per million records", "(absolute)", None, ""),
    ("B12", "wake-ups of a kernel-filtered subscriber (kprint monitor --level err+ --source kprint) per 10,000 records it does not want, B6's flood", "(absolute)", ("<=", 1), ""),
    ("B12_cpu", "of B12, its CPU s per million unwanted records", "(absolute)", None, ""),
    ("B12_user", "the same monitor filtering in user space (--until): wake-ups per 10,000", "(absolute)", None, ""),
    ("B12_user_cpu", "of B12_user, its CPU s per million", "(absolute)", None, ""),
]

# B8: its p99 at 10,000 records/s, in ms (a smoke run goes slower: no target).
B8_P99_MS = 20
B8_RATE = 10000


def met(target, value):
    if target is None:
        return None
    op, limit = target
    return value <= limit if op == "<=" else value >= limit


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            return m.group(1) if m else platform.processor()
    except OSError:
        return platform.processor()


def qemu_version():
    try:
        out = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                             text=True).stdout
        return out.splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def fmt(v, unit):
    if unit == "ns":
        return "%.0f ns" % v
    if abs(v) >= 100:
        return "%.0f%s" % (v, unit)
    return "%.3g%s" % (v, unit)


SPDX = "<!-- SPDX-License-Identifier: GPL-2.0 -->"
LATEST_BEGIN = "<!-- latest run: written by tests/bench/report.py, do not edit by hand -->"
LATEST_END = "<!-- end of latest run -->"


def dated_name(started):
    """results-YYYY-MM-DD-HHMM.md of the run's start (UTC), now if undated."""
    try:
        when = datetime.datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        when = datetime.datetime.utcnow()
    return when.strftime("results-%Y-%m-%d-%H%M.md")


def keep_in_docs(docs, started, md):
    """Write the dated table under docs/bench/ and point benchmarks.md at it."""
    name = dated_name(started)
    os.makedirs(os.path.join(docs, "bench"), exist_ok=True)
    with open(os.path.join(docs, "bench", name), "w") as f:
        f.write(md)

    path = os.path.join(docs, "benchmarks.md")
    with open(path) as f:
        text = f.read()
    begin, end = text.find(LATEST_BEGIN), text.find(LATEST_END)
    if begin < 0 or end < begin:
        sys.exit("report.py: %s has no latest-run markers; the table is in docs/bench/%s"
                 % (path, name))
    # The dated file without its SPDX line and title, which the link replaces.
    body = md.split("\n")
    body = [line for line in body[1:] if not line.startswith("# kprint benchmarks")]
    block = [LATEST_BEGIN, "", "The latest run (%s, this machine): [bench/%s](bench/%s)."
             % (started or "undated", name, name)]
    block += body
    text = text[:begin] + "\n".join(block).rstrip("\n") + "\n\n" + text[end:]
    with open(path, "w") as f:
        f.write(text)
    print("report.py: kept as %s/bench/%s, linked from %s" % (docs, name, path))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--started", default="")
    p.add_argument("--docs", help="also keep the table, dated, in this docs directory")
    p.add_argument("--extra", action="append", default=[],
                   help="more results measured apart (B11 on the host, B10 in the systemd"
                   " guest): their ratios and raw measurements join RAW's")
    p.add_argument("raw")
    p.add_argument("json_out")
    p.add_argument("md_out")
    a = p.parse_args()
    with open(a.raw) as f:
        raw = json.load(f)
    for path in a.extra:
        with open(path) as f:
            extra = json.load(f)
        raw["ratios"].update(extra["ratios"])
        raw["raw"].update(extra["raw"])

    env = dict(raw["env"])
    env.update({"date": a.started, "host_cpu": cpu_model(),
                "host_kernel": platform.release(), "qemu": qemu_version(),
                "emulation": "TCG (software), no KVM", "smoke": raw["smoke"],
                "reps": raw["reps"], "seconds": raw["raw"].get("seconds", {})})
    rows = []
    for rid, what, base, target, unit in ROWS:
        vals = raw["ratios"].get(rid)
        if not vals:
            continue
        med = statistics.median(vals)
        rows.append({"id": rid, "what": what, "baseline": base, "unit": unit,
                     "target": ("%s %s" % target) if target else None,
                     "median": med, "min": min(vals), "max": max(vals),
                     "samples": vals, "met": met(target, med)})
    out = {"env": env, "results": rows, "latency": raw["raw"].get("latency", {}),
           "raw": raw["raw"]}
    # B8's target is for the high rate alone (issue 31: 10,000 records/s).
    if out["latency"].get("high", {}).get("rate") == B8_RATE:
        L = out["latency"]["high"]
        L["target"] = "p99 <= %g ms" % B8_P99_MS
        L["met"] = L["p99_ms"] <= B8_P99_MS
    with open(a.json_out, "w") as f:
        json.dump(out, f, indent=1)

    md = [SPDX,
          "# kprint benchmarks, %s%s" % (a.started or "undated",
                                       " (SMOKE RUN: checks the suite, measures nothing)"
                                       if raw["smoke"] else ""),
          "",
          "Guest: Linux %s, %d vCPUs, %s (%s); host CPU: %s, kernel %s."
          % (env["kernel"], env["guest_cpus"], env["emulation"], env["qemu"],
             env["host_cpu"], env["host_kernel"]),
          "Each ratio: median of %d interleaved repetitions (A B A B ...), spread min..max."
          % raw["reps"],
          "",
          "| id | measured | against | median | spread | target | met |",
          "|----|----------|---------|--------|--------|--------|-----|"]
    for r in rows:
        md.append("| %s | %s | %s | %s | %s..%s | %s | %s |" % (
            r["id"], r["what"], r["baseline"], fmt(r["median"], r["unit"]),
            fmt(r["min"], r["unit"]), fmt(r["max"], r["unit"]), r["target"] or "-",
            {True: "yes", False: "**no**", None: "-"}[r["met"]]))
    lat = out["latency"]
    for name in ("low", "high"):
        if name in lat:
            L = lat[name]
            W = L.get("from_write", {})
            R = L.get("parsed", {})
            md.append("| B8 | kprint_info() (the record's stamp) to the last byte of its answer "
                      "from /records, asked with wait=, %s rate (%s records/s) | (absolute, "
                      "%d probes; from before the write that makes it: p50 %.2f ms, p99 %.2f "
                      "ms; until the answer was parsed by http.client: p50 %.2f ms, p99 %.2f "
                      "ms) | p50 %.2f ms | p99 %.2f ms | %s | %s |"
                      % (name, L["rate"] or "idle", L["probes"], W.get("p50_ms", 0),
                         W.get("p99_ms", 0), R.get("p50_ms", 0), R.get("p99_ms", 0),
                         L["p50_ms"], L["p99_ms"], L.get("target", "-"),
                         {True: "yes", False: "**no**", None: "-"}[L.get("met")]))
            P = L.get("polled")
            if P:
                W = P.get("from_write", {})
                md.append("| B8_polled | the same, /records asked every millisecond, %s rate "
                          "| (absolute, %d probes taking turns with B8's; from before the write: "
                          "p50 %.2f ms, p99 %.2f ms) | p50 %.2f ms | p99 %.2f ms | - | - |"
                          % (name, P["probes"], W.get("p50_ms", 0), W.get("p99_ms", 0),
                             P["p50_ms"], P["p99_ms"]))
    md.append("")
    md = "\n".join(md)
    with open(a.md_out, "w") as f:
        f.write(md)
    # A smoke run measures nothing: it must not become the latest figures.
    if a.docs and not raw["smoke"]:
        keep_in_docs(a.docs, a.started, md)


if __name__ == "__main__":
    main()
