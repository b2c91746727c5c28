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
steps=emit,ingest,wakeups,http,mtail,latency,filtered,npd
if tests/bench/run --smoke --only $steps >.output/bench-smoke.log 2>&1; then
	ok "tests/bench/run --smoke --only $steps exits 0"
else
	not_ok "tests/bench/run --smoke --only $steps exits 0 (status $?)"
	tail -40 .output/bench-smoke.log | sed 's/^/# /'
fi
grep '^# B' .output/bench-smoke.log | sed 's/^/# guest: /'

/usr/bin/python3 tests/bench/smoke_check.py guest .output/bench
[ $? -eq 0 ] || KPRINT_FAILS=$((KPRINT_FAILS + 1))
tap_exit
