#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The libFuzzer harnesses of tests/fuzz/ (ASan+UBSan), as a host test:
# build them, replay every regression input and seed, then fuzz each for
# $KPRINT_FUZZ_SECONDS: 15 s in make check, 300 s in make soak
# (KPRINT_SOAK=1); `make fuzz` keeps its own 60 s default.  tests/fuzz/run
# prints the TAP lines, with the executions per harness.

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

if [ "${KPRINT_SOAK:-0}" = 1 ]; then
	default=300
else
	default=15
fi
exec tests/fuzz/run --seconds "${KPRINT_FUZZ_SECONDS:-$default}"
