#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The clocks of records.  kprint reads CLOCK_MONOTONIC and CLOCK_REALTIME
at most once a millisecond per CPU and carries them forward with
sched_clock() in between (kernel/kprint_clock.c).  The test module emits,
on every CPU at once, records that carry the two clocks as read right
before each call (its "clocks" parameter): every record's stamps must lie
between its own clocks and those of the next record of its CPU, give or
take the bound kprint_clock.c documents, and the stamps must never go back
in sequence order, across CPUs."""
import re
import sys

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import check, finish, load_test_module, sized, write_param  # noqa: E402

# kprint_clock.c: sched_clock()'s drift from the clocksource over a span,
# the TSC's calibration error where it is unstable: 0.2 %, 2 us, in this
# guest.
SLACK_NS = 5000
SPAN_NS = 1_000_000	# KPRINT_CLOCK_SPAN
# Records per CPU: both CPUs' fit in the default ring (1 MiB) with room.
N = sized(1000, 1000)
FORMAT = "kprint_test clock cpu %u n %u mono %llu real %llu"

load_test_module()
g = kpnl.Genl()
start = g.stats()["next_seq"]
write_param("clocks", str(N))
records = [r for r in g.dump(start) if r.get("format") == FORMAT]
check(f"{N + 1} records per CPU", len(records) % (N + 1) == 0 and len(records) >= 2 * (N + 1),
      len(records))

by_cpu = {}
elsewhere = []
for r in records:
    cpu, n, mono, real = (int(a) for a in r["args"])
    if r["cpu"] != cpu:
        elsewhere.append((r["seq"], r["cpu"], cpu))
    by_cpu.setdefault(cpu, []).append((n, mono, real, r))
check("every record made on the CPU it names", not elsewhere, elsewhere[:5])

for cpu, rows in sorted(by_cpu.items()):
    tag = f"cpu {cpu}"
    rows.sort(key=lambda row: row[0])
    check(f"{tag}: records n = 0 .. {N}, in sequence order",
          [row[0] for row in rows] == list(range(N + 1)) and
          [row[3]["seq"] for row in rows] == sorted(row[3]["seq"] for row in rows))
    took = rows[-1][1] - rows[0][1]
    # Else each record could have read the clocks itself.
    check(f"{tag}: {N} records in {took / 1e6:.1f} ms: most stamped within a span "
          f"of the previous one", took < N * SPAN_NS / 2, took)
    check(f"{tag}: ... over at least 3 spans, so re-anchored too", took > 3 * SPAN_NS, took)
    off_mono, off_real = [], []
    for (n, mono, real, rec), (_, next_mono, next_real, _) in zip(rows, rows[1:]):
        if not mono - SLACK_NS <= rec["ts_mono_ns"] <= next_mono + SLACK_NS:
            off_mono.append((n, rec["ts_mono_ns"] - mono, next_mono - rec["ts_mono_ns"]))
        if not real - SLACK_NS <= rec["ts_real_ns"] <= next_real + SLACK_NS:
            off_real.append((n, rec["ts_real_ns"] - real, next_real - rec["ts_real_ns"]))
    check(f"{tag}: every monotonic stamp between its clocks and the next's, +-{SLACK_NS} ns",
          not off_mono, f"{len(off_mono)} off, first (n, after, before): {off_mono[:5]}")
    check(f"{tag}: every wall-clock stamp between its clocks and the next's, +-{SLACK_NS} ns",
          not off_real, f"{len(off_real)} off, first (n, after, before): {off_real[:5]}")

check("records of two CPUs at least", len(by_cpu) >= 2, sorted(by_cpu))
ours = sorted(records, key=lambda r: r["seq"])
back = [(a["seq"], b["seq"], a["ts_mono_ns"] - b["ts_mono_ns"])
        for a, b in zip(ours, ours[1:]) if b["ts_mono_ns"] < a["ts_mono_ns"]]
check(f"monotonic stamps never go back in sequence order ({len(ours)} records)", not back,
      back[:5])
changes = sum(a["cpu"] != b["cpu"] for a, b in zip(ours, ours[1:]))
check(f"the CPUs' records interleave in the ring ({changes} changes of CPU)", changes >= 2,
      changes)
finish()
