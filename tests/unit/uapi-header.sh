#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The UAPI header compiles on its own, as strict C90 and as C++, with no warning.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <linux/kprint.h>\nint kprint_uapi_probe = KPRINT_A_MAX + KPRINT_RECORD_A_MAX + KPRINT_CMD_MAX;\n' >"$tmp/t.c"
check() {
	what=$1
	shift
	if "$@" -Iinclude/uapi -Werror -Wall -Wextra -c -o "$tmp/t.o" "$tmp/t.c" 2>"$tmp/err"; then
		echo "ok - uapi header compiles alone: $what"
	else
		echo "not ok - uapi header compiles alone: $what"
		sed 's/^/# /' "$tmp/err"
	fi
}
check "gcc -std=c90 -pedantic-errors" gcc -std=c90 -pedantic-errors
check "clang -std=c90 -pedantic-errors" clang -std=c90 -pedantic-errors
check "g++ -std=c++11" g++ -x c++ -std=c++11 -pedantic-errors
