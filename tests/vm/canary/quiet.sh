#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A canary fixture (tests/e2e/own-guest/splat-canary.sh): a test that passes and
# causes no splat, before and after the one that does.
. tests/lib/lib.sh

load_test_module
echo 1 >$TEST_PARAMS/flood || not_ok "flood 1 record"
check_eq "the fresh kprint.ko stored one record" "$(stat records)" 1
finish
