#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run gives it a lane, a core, of its own)
#
# A kernel splat is charged to the test during which it appeared, and to no
# other: tests/run runs the canary group of tests/vm/canary/groups, [a
# passing test, one that makes the kernel WARN (kprint_test's canary
# parameter), the passing test again] in one guest, and only the middle one
# may fail, for that splat; the guest as a whole must not fail for it
# again.  Then two more that WARN: one declares every line of its splat
# ("# kprint-test: splats ERE", as the kernel problem tests do) and passes,
# its lines still charged to it; one declares only the call trace, and
# fails for its "WARNING:" line.  The inner run's lines are shown as
# comments, so that its own "ok"/"not ok" are not counted as ours.
cd "$(dirname "$0")/../../.." || exit 1

# The e2e helpers (check, finish) serve here too: nothing in them needs
# the guest.
. tests/lib/lib.sh

log=$WORK/canary.log
tests/run --vm --groups tests/vm/canary/groups >"$log" 2>&1
rc=$?
sed 's/^/# canary: /' "$log"

check "the inner tests/run fails (status $rc)" [ $rc -eq 1 ]
check "the three fixtures ran in one guest" grep -q '^# guest canary: 1 boot(s)' "$log"
check "the first passing test is not charged" \
	grep -qx '# tests/vm/canary/quiet.sh: 1 ok, 0 not ok, .* s' "$log"
check "the canary test is charged with one failure" \
	grep -qx '# tests/vm/canary/warn.sh: 1 ok, 1 not ok, .* s' "$log"
check "its failure is the splat, WARNING and all" \
	grep -qE '^not ok - tests/vm/canary/warn.sh: kernel splat during the test .*(WARNING:|kprint_test canary)' "$log"
check "the splat is the canary's own WARN()" \
	grep -q '^# console: .*kprint_test canary 1' "$log"
check "the passing test after the splat is not charged" \
	grep -qx '# tests/vm/canary/quiet-after.sh: 1 ok, 0 not ok, .* s' "$log"
check "a test that declares its splat passes" \
	grep -qx '# tests/vm/canary/warn-declared.sh: 1 ok, 0 not ok, .* s' "$log"
check "its WARNING line is charged to it, as declared" \
	grep -qE '^# kprint-suite: tests/vm/canary/warn-declared.sh: declared splat: WARNING: CPU: .*kprint_test' "$log"
check "a test that declares only part of its splat is charged with one failure" \
	grep -qx '# tests/vm/canary/warn-partly.sh: 1 ok, 1 not ok, .* s' "$log"
check "for the line it did not declare, the WARNING" \
	grep -qE '^not ok - tests/vm/canary/warn-partly.sh: kernel splat during the test \(1 lines\): .*WARNING: CPU: ' "$log"
check "and its declared call trace is not among the failing lines" \
	bash -c "! grep -qE '^# splat: .*Call Trace:' <(sed -n '/begin tests\/vm\/canary\/warn-partly.sh/,/end tests\/vm\/canary\/warn-partly.sh/p' '$log')"
check "the guest is not failed again for a splat already charged" \
	bash -c "! grep -q 'outside any test' '$log'"
check "the totals: 5 passed, 2 failed" grep -qx '5 passed, 2 failed' "$log"
finish
