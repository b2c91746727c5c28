#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run gives it a lane, a core, of its own)
#
# make bench still works: `tests/bench/run --smoke` boots its guest, runs
# every comparison briefly (B11 on the host over that guest's boot records)
# and writes the JSON and the Markdown table; B10's guest, booted with
# systemd, is bench-smoke-journald.sh's.  The
# numbers of so short a run mean nothing, so only their presence and shape
# are checked here, never the targets (make bench measures those).
set -u
cd "$(dirname "$0")/../../.." || exit 1

. tests/lib/tap.sh

rm -f .output/bench/results.json .output/bench/results.md
steps=emit,ingest,wakeups,http,mtail,latency,npd
if tests/bench/run --smoke --only $steps >.output/bench-smoke.log 2>&1; then
	ok "tests/bench/run --smoke --only $steps exits 0"
else
	not_ok "tests/bench/run --smoke --only $steps exits 0 (status $?)"
	tail -40 .output/bench-smoke.log | sed 's/^/# /'
fi
grep '^# B' .output/bench-smoke.log | sed 's/^/# guest: /'

/usr/bin/python3 - <<'EOF'
import json
import math

fails = 0


def check(what, cond):
    global fails
    print(("ok - " if cond else "not ok - ") + what)
    fails += not cond


try:
    with open(".output/bench/results.json") as f:
        res = json.load(f)
except (OSError, ValueError) as e:
    check("results.json is there and is JSON (%s)" % e, False)
    raise SystemExit(1)
rows = {r["id"]: r for r in res["results"]}
for rid in ("B1", "B1_subscriber", "B1_bpf", "B2", "B3", "B4", "B4_ns_per_series",
            "B5", "B6", "B6_preempted", "B6_bare", "B7", "B11", "B11_kprint", "B11_mtail"):
    r = rows.get(rid)
    check("%s: %d finite samples, a median between min and max" % (rid, res["env"]["reps"]),
          r is not None and len(r["samples"]) == res["env"]["reps"] and
          all(math.isfinite(v) for v in r["samples"]) and r["min"] <= r["median"] <= r["max"])
for name in ("low", "high"):
    L = res["latency"].get(name, {})
    check("B8 %s rate: p50 <= p99, both positive, from every probe" % name,
          L.get("probes", 0) > 0 and 0 < L["p50_ms"] <= L["p99_ms"])
check("the environment is recorded (kernel, CPUs, QEMU, date)",
      all(res["env"].get(k) for k in ("kernel", "guest_cpus", "qemu", "date")))
with open(".output/bench/results.md") as f:
    md = f.read()
check("results.md has a table row for each of B1..B9 and B11",
      all("| %s |" % b in md for b in ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9",
                                       "B11")))
raw = res["raw"]
check("B11: both sides recognised problems in every repetition",
      all(r["kprint_hits"] and any(r["mtail_counts"].values()) for r in raw["npd"]["reps"]))
raise SystemExit(1 if fails else 0)
EOF
[ $? -eq 0 ] || KPRINT_FAILS=$((KPRINT_FAILS + 1))
tap_exit
