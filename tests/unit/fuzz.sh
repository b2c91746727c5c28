#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The libFuzzer harnesses of tests/fuzz/ (ASan+UBSan), as a host test:
# build them, replay every regression input and seed, then fuzz each for
# $KPRINT_FUZZ_SECONDS (default 60 s in CI, CI=true; 10 s otherwise).
# tests/fuzz/run prints the TAP lines, with the executions per harness.

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

if [ "${CI:-}" = true ]; then
	default=60
else
	default=10
fi
exec tests/fuzz/run --seconds "${KPRINT_FUZZ_SECONDS:-$default}"
