#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run gives it a lane, a core, of its own)
#
# make bench's B10 still works: `tests/bench/run --smoke --only journald`
# boots a guest with systemd (journald reading /dev/kmsg, as on any
# machine), floods printk once with the exporter and once with the
# exporter's --journal, and writes the JSON and the Markdown table.  Apart
# from bench-smoke.sh because a systemd boot under emulation takes most of a
# minute by itself.  Only the presence and shape of the figures are checked,
# never the targets (make bench measures those).
set -u
cd "$(dirname "$0")/../../.." || exit 1

. tests/lib/tap.sh

# Results apart from bench-smoke.sh's, which may run at the same time.
export KPRINT_BENCH_OUT=.output/bench-journald
rm -f $KPRINT_BENCH_OUT/results.json $KPRINT_BENCH_OUT/results.md
if tests/bench/run --smoke --only journald >.output/bench-smoke-journald.log 2>&1; then
	ok "tests/bench/run --smoke --only journald exits 0"
else
	not_ok "tests/bench/run --smoke --only journald exits 0 (status $?)"
	tail -40 .output/bench-smoke-journald.log | sed 's/^/# /'
fi
grep '^# [0-9.]* s: B10' .output/bench-smoke-journald.log | sed 's/^/# guest: /'

/usr/bin/python3 - <<'PY'
import json
import math

fails = 0


def check(what, cond):
    global fails
    print(("ok - " if cond else "not ok - ") + what)
    fails += not cond


try:
    with open(".output/bench-journald/results.json") as f:
        res = json.load(f)
except (OSError, ValueError) as e:
    check("results.json is there and is JSON (%s)" % e, False)
    raise SystemExit(1)
rows = {r["id"]: r for r in res["results"]}
for rid in ("B10", "B10_journal", "B10_kprint", "B10_journald"):
    r = rows.get(rid)
    check("%s: %d finite positive samples, a median between min and max"
          % (rid, res["env"]["reps"]),
          r is not None and len(r["samples"]) == res["env"]["reps"] and
          all(math.isfinite(v) and v > 0 for v in r["samples"]) and
          r["min"] <= r["median"] <= r["max"])
reps = res["raw"]["journald"]["reps"]
check("every flood: the exporter, journald and the bridge took CPU time",
      all(r["journald_s"] > 0 and r["exporter_s"] > 0 and r["kernel_s"] > 0
          for mode in ("plain", "journal") for r in reps[mode]))
check("--journal: the namespace's journald took CPU time storing kprint's records",
      all(r["namespace_s"] > 0 for r in reps["journal"]))
with open(".output/bench-journald/results.md") as f:
    md = f.read()
check("results.md has the rows B10 and B10_journal, each with its target or none",
      "| B10 |" in md and "| B10_journal |" in md and "<= 0.5" in md)
raise SystemExit(1 if fails else 0)
PY
[ $? -eq 0 ] || KPRINT_FAILS=$((KPRINT_FAILS + 1))
tap_exit
