#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A canary fixture (tests/e2e/own-guest/splat-canary.sh): a test that makes
# the kernel WARN but declares only the WARN's call trace, not its
# "WARNING:" line: tests/vm/suite must still fail it, for that line.
# kprint-test: splats ^(RIP: 00(10|33):|Call Trace:)
. tests/lib/lib.sh

load_test_module
echo 3 >$TEST_PARAMS/canary
check_eq "kprint_test's canary parameter took the write" $? 0
finish
