#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
# The in-tree series' kselftest (kernel/intree/tools/testing/selftests/
# kprint/kprint_test.c), built on the host by make against this tree's UAPI
# header (.output/selftest/kprint_test), run here against the out-of-tree
# kprint.ko, which is the same family: with the printk bridge on every
# KTAP test passes; with the bridge off the /dev/kmsg tests skip and the
# rest pass; with kprint.ko unloaded the whole test skips (KSFT_SKIP, 4),
# never fails.  Its KTAP lines are shown as comments.
. "$(dirname "$0")/../lib/lib.sh"

BIN=.output/selftest/kprint_test
BRIDGE=/sys/module/kprint/parameters/bridge

# run_ksft NAME: runs the selftest, its output in $WORK/NAME and as
# comments, its exit status in $WORK/NAME.rc.
run_ksft() {
	"$BIN" >"$WORK/$1" 2>&1
	echo $? >"$WORK/$1.rc"
	sed 's/^/# /' "$WORK/$1"
}

# plan NAME: the number N of the KTAP plan line "1..N".
plan() {
	sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$WORK/$1"
}

# results NAME RE: how many KTAP result lines match "ok N RE" (a skipped
# test's line is "ok N # SKIP reason").
results() {
	grep -cE "^ok [0-9]+ $2" "$WORK/$1"
}

if [ ! -x "$BIN" ]; then
	not_ok "$BIN is built (make selftest on the host)"
	finish
fi

# 1. The bridge on (this test's kprint.ko parameter): everything passes.
check_eq "the printk bridge is on" "$(cat $BRIDGE)" Y
run_ksft on
n=$(plan on)
check_eq "bridge on: kprint_test exits 0" "$(cat "$WORK/on.rc")" 0
check_eq "bridge on: the KTAP header" "$(head -n 1 "$WORK/on")" "TAP version 13"
check_eq "bridge on: a plan of 14 tests" "$n" 14
check_eq "bridge on: every planned test ok, none skipped" \
	"$(results on '[^#]*$')" "$n"
check_eq "bridge on: no test not ok" "$(grep -c '^not ok' "$WORK/on")" 0
check "bridge on: totals pass:$n fail:0 skip:0" \
	grep -q "^# Totals: pass:$n fail:0 xfail:0 xpass:0 skip:0 error:0$" "$WORK/on"

# 2. The bridge off: no /dev/kmsg line becomes a record, and the test says
# so by skipping those two tests, not by failing them.
echo 0 >$BRIDGE
run_ksft off
echo 1 >$BRIDGE
check_eq "bridge off: kprint_test exits 0" "$(cat "$WORK/off.rc")" 0
check_eq "bridge off: the two /dev/kmsg tests skip" \
	"$(results off '# SKIP kmsg: ')" 2
check "bridge off: the other 12 pass" \
	grep -q "^# Totals: pass:12 fail:0 xfail:0 xpass:0 skip:2 error:0$" "$WORK/off"

# 3. No kprint family: the whole test skips.
rmmod kprint || { not_ok "rmmod kprint"; finish; }
run_ksft absent
# shellcheck disable=SC2086
insmod kernel/kprint.ko $KPRINT_MODPARAMS || not_ok "insmod kernel/kprint.ko again"
check_eq "kprint unloaded: kprint_test exits 4 (KSFT_SKIP)" "$(cat "$WORK/absent.rc")" 4
check "kprint unloaded: KTAP plan 1..0 # SKIP, no family" \
	grep -q '^1\.\.0 # SKIP family "kprint" not found' "$WORK/absent"
check_eq "kprint unloaded: no test ok or not ok" \
	"$(grep -cE '^(not )?ok ' "$WORK/absent")" 0
finish
