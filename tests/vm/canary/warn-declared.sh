#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A canary fixture (tests/e2e/own-guest/splat-canary.sh): a test that makes
# the kernel WARN and declares every line of it, so that tests/vm/suite
# charges the splat to it without failing it.
# kprint-test: splats ^WARNING: CPU: [0-9]+ PID: [0-9]+ at .*kprint_test
# kprint-test: splats ^(RIP: 00(10|33):|Call Trace:)
. tests/lib/lib.sh

load_test_module
echo 2 >$TEST_PARAMS/canary
check_eq "kprint_test's canary parameter took the write" $? 0
finish
