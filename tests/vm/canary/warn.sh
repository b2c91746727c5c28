#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A canary fixture (tests/e2e/own-guest/splat-canary.sh): a test whose own checks
# pass but that makes the kernel WARN.  tests/vm/suite must charge the
# splat to this test, and to no other.
. tests/lib/lib.sh

load_test_module
echo 1 >$TEST_PARAMS/canary
check_eq "kprint_test's canary parameter took the write" $? 0
finish
