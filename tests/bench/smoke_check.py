#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The checks of make check's bench smokes (tests/e2e/own-guest/bench-smoke*.sh)
on what `tests/bench/run --smoke` wrote into DIR (results.json,
results.md): each row there with a sample per repetition, finite (and
positive where asked), its median between its min and max, and what each
smoke's own steps must have recorded.  The numbers of a smoke mean
nothing, so the targets are never checked.  Prints TAP lines; exit status
1 if any failed.

  tests/bench/smoke_check.py guest .output/bench
  tests/bench/smoke_check.py journald .output/bench-journald
"""
import json
import math
import os
import sys

fails = 0


def check(what, cond):
    global fails
    print(("ok - " if cond else "not ok - ") + what)
    fails += not cond


def rows_shaped(res, ids, positive=False):
    rows = {r["id"]: r for r in res["results"]}
    for rid in ids:
        r = rows.get(rid)
        check("%s: %d finite%s samples, a median between min and max"
              % (rid, res["env"]["reps"], " positive" if positive else ""),
              r is not None and len(r["samples"]) == res["env"]["reps"] and
              all(math.isfinite(v) and (v > 0 or not positive) for v in r["samples"]) and
              r["min"] <= r["median"] <= r["max"])


def guest(res, md):
    """bench-smoke.sh: the bench guest's steps and B11 on the host."""
    rows_shaped(res, ("B1", "B1_subscriber", "B1_bpf", "B2", "B2_bare_rps", "B3", "B4",
                      "B4_ns_per_series",
                      "B5", "B6", "B6_preempted", "B6_bare", "B6_datagrams", "B7", "B11",
                      "B11_kprint", "B11_mtail", "B12", "B12_user"))
    best = {r["id"]: r for r in res["results"]}.get("B2_best")
    check("B2_best: one ratio, of each side's fastest repetition",
          best is not None and len(best["samples"]) == 1 and best["samples"][0] > 0)
    for name in ("low", "high"):
        L = res["latency"].get(name, {})
        check("B8 %s rate: p50 <= p99, both positive, from every probe" % name,
              L.get("probes", 0) > 0 and 0 < L["p50_ms"] <= L["p99_ms"])
        P = L.get("polled", {})
        check("B8 %s rate, polled: as many probes, p50 <= p99, both positive" % name,
              P.get("probes") == L.get("probes") and 0 < P["p50_ms"] <= P["p99_ms"])
        check("B8 %s rate: from before the write, as many probes and no sooner" % name,
              all(X.get("from_write", {}).get("probes") == X.get("probes") and
                  X["from_write"]["p50_ms"] >= X["p50_ms"] for X in (L, P)))
        check("B8 %s rate: until parsed by http.client, as many probes and no sooner" % name,
              L.get("parsed", {}).get("probes") == L.get("probes") and
              L["parsed"]["p50_ms"] >= L["p50_ms"])
    check("the environment is recorded (kernel, CPUs, QEMU, date)",
          all(res["env"].get(k) for k in ("kernel", "guest_cpus", "qemu", "date")))
    check("results.md has a table row for each of B1..B9, B11 and B12",
          all("| %s |" % b in md for b in ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8",
                                           "B9", "B11", "B12")))
    check("B11: both sides recognised problems in every repetition",
          all(r["kprint_hits"] and any(r["mtail_counts"].values())
              for r in res["raw"]["npd"]["reps"]))


def journald(res, md):
    """bench-smoke-journald.sh: B10's systemd guest."""
    rows_shaped(res, ("B10", "B10_journal", "B10_kprint", "B10_journald"), positive=True)
    reps = res["raw"]["journald"]["reps"]
    check("every flood: the exporter, journald and the bridge took CPU time",
          all(r["journald_s"] > 0 and r["exporter_s"] > 0 and r["kernel_s"] > 0
              for mode in ("plain", "journal") for r in reps[mode]))
    check("--journal: the namespace's journald took CPU time storing kprint's records",
          all(r["namespace_s"] > 0 for r in reps["journal"]))
    check("results.md has the rows B10 and B10_journal, each with its target or none",
          "| B10 |" in md and "| B10_journal |" in md and "<= 0.5" in md)


def main():
    which, out = sys.argv[1], sys.argv[2]
    try:
        with open(os.path.join(out, "results.json")) as f:
            res = json.load(f)
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
    except (OSError, ValueError) as e:
        check("results.json and results.md are there, the first JSON (%s)" % e, False)
        return 1
    {"guest": guest, "journald": journald}[which](res, md)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
