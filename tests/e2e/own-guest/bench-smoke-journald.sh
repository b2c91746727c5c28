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

/usr/bin/python3 tests/bench/smoke_check.py journald "$KPRINT_BENCH_OUT"
[ $? -eq 0 ] || KPRINT_FAILS=$((KPRINT_FAILS + 1))
tap_exit
