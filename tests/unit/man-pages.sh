#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The documentation still holds together: each man page in docs/ passes
# mandoc's lint at warning level and renders with man(1) without a troff
# warning; kprint(1) names every long option the code parses (so a new
# option cannot ship undocumented: exporter-options.py holds
# kprint_exporter(8) against the exporter's table); docs/benchmarks.md
# shows the newest dated table of docs/bench/; README.md stays a README:
# at most 250 lines of at most 100 columns.
set -u
cd "$(dirname "$0")/../.." || exit 1

. tests/lib/tap.sh

pages=(docs/kprint.1 docs/kprint_exporter.8 docs/kprint.7)
for page in "${pages[@]}"; do
	if [ ! -f "$page" ]; then
		not_ok "$page exists"
		continue
	fi
	if lint=$(mandoc -T lint -W warning "$page" 2>&1); then
		ok "$page: mandoc -T lint -W warning exits 0"
	else
		not_ok "$page: mandoc -T lint -W warning exits 0"
		printf '%s\n' "$lint" | sed 's/^/# /'
	fi

	out=$(mktemp)
	err=$(mktemp)
	MANWIDTH=80 MAN_KEEP_FORMATTING= man -l "$page" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ -s "$out" ] && ! grep -qiE 'warning|error' "$err" &&
	   head -n1 "$out" | grep -q '^KPRINT'; then
		ok "$page: man -l renders it ($(wc -l <"$out") lines at 80 columns, no troff warning)"
	else
		not_ok "$page: man -l renders it (status $rc, $(wc -c <"$out") bytes)"
		sed 's/^/# /' "$err"
	fi
	rm -f "$out" "$err"
done

# documents_options PAGE WHERE SOURCE...: every { "name", ... } of the
# sources' getopt tables appears in PAGE as \-\-name.
documents_options() {
	local page=$1 where=$2 name names=0 missing="" documented
	shift 2
	# The page's options, \-\-max\-formats read as --max-formats, the
	# dotted ones of node_exporter's style too (--web.listen-address).
	documented=" $(grep -o '\\-\\-[a-z][a-z.\\-]*' "$page" | sed 's/\\-/-/g; s/\.$//' | sort -u | tr '\n' ' ')"
	for name in $(sed -n 's/^[[:space:]]*{[[:space:]]*"\([a-z][a-z.-]*\)",.*_argument.*/\1/p' "$@" |
		      sort -u); do
		names=$((names + 1))
		[[ $documented == *" --$name "* ]] || missing="$missing --$name"
	done
	# No option found means the tables moved: say so rather than pass.
	if [ "$names" -gt 0 ] && [ -z "$missing" ]; then
		ok "$page documents all $names long options of $where"
	else
		not_ok "$page documents all $names long options of $where (missing:${missing:- none found})"
	fi
}
documents_options docs/kprint.1 exporter/cli/ exporter/cli/*.c

# Every command of the CLI's table has its entry under COMMANDS.
missing=""
for cmd in $(sed -n 's/^[[:space:]]*{ "\([a-z]*\)",[[:space:]]*kprint_cmd_.*/\1/p' exporter/cli/kprint.c); do
	sed -n '/^\.SH COMMANDS/,/^\.SH /p' docs/kprint.1 | grep -qx "\.B $cmd" ||
		missing="$missing $cmd"
done
check "kprint(1) describes every command of exporter/cli/kprint.c${missing:+ (missing:$missing)}" \
	test -z "$missing"

# make bench keeps its dated tables in docs/bench/ and shows the newest in
# docs/benchmarks.md: a table committed without the write-up's block (or
# the block edited by hand) would show stale figures as the latest.
latest=$(ls docs/bench/results-*.md 2>/dev/null | sort | tail -n1)
if [ -z "$latest" ]; then
	not_ok "docs/bench/ holds a dated benchmark table"
else
	block=$(sed -n '/^<!-- latest run: written by tests\/bench\/report.py/,/^<!-- end of latest run -->/p' \
		docs/benchmarks.md)
	check "docs/benchmarks.md shows the newest table, ${latest#docs/}" \
		grep -qF "](${latest#docs/})" <<<"$block"
	check "its latest-run block has that table's rows, unchanged" \
		cmp -s <(grep '^| ' "$latest") <(grep '^| ' <<<"$block")
fi

lines=$(wc -l <README.md)
check "README.md has at most 250 lines ($lines)" test "$lines" -le 250
# Columns, not bytes: the README has a few non-ASCII characters.
widest=$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' README.md)
check "README.md has no line over 100 columns (widest $widest)" test "$widest" -le 100

tap_exit
