#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A compile-time filtered level leaves no call and no format string in the
# object: build the same file with and without KPRINT_FILTER_DEBUG.
cd "$(dirname "$0")/../.." || exit 1
out=$(make -s -C kernel filter-check 2>&1) || {
	echo "not ok - make -C kernel filter-check"
	echo "$out" | sed 's/^/# /'
	exit 1
}
plain=kernel/test/kprint_filter_check.o
filtered=kernel/test/kprint_filter_check_nodebug.o
count() { grep -c -a "$1" "$2"; }
calls() { objdump -dr "$1" | grep -c 'R_X86_64_PLT32.*kprint_emit'; }
result() { if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1 (got $2, want $3)"; fi; }
result "unfiltered object has the debug format" "$(count kprint-filter-canary-debug $plain)" 1
result "unfiltered object has the info format" "$(count kprint-filter-canary-info $plain)" 1
result "filtered object has no debug format" "$(count kprint-filter-canary-debug $filtered)" 0
result "filtered object keeps the info format" "$(count kprint-filter-canary-info $filtered)" 1
result "filtered object makes one call fewer" "$(( $(calls $plain) - $(calls $filtered) ))" 1
