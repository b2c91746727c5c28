# SPDX-License-Identifier: GPL-2.0
# kprint problems on a host: its usage errors, the catalog read and
# refused (FILE:LINE: reason, exit status 1) before the kernel is asked
# for anything, and with a good catalog the kprint module's absence said
# as every command says it.  What it shows of real records is tested in a
# guest.  Run by `make -C exporter test` (KPRINT is the binary), as
# test_cli_host.sh is; not executable on purpose.

KPRINT=${KPRINT:-$(dirname "$0")/../../.output/bin/kprint}
FIXTURES=$(dirname "$0")/problems
. "$(dirname "$0")/../lib/tap.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# expect WHAT STATUS PATTERN ARGS...: kprint ARGS exits STATUS, says PATTERN.
expect() {
	local what=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$("$KPRINT" "$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
		ok "$what"
	else
		not_ok "$what (status $rc, want $want; output: $(head -c 300 <<<"$out"))"
	fi
}

printf 'kprint-problems: 1\nproblems:\n  - problem: A\n    kinds: event\n' >"$WORK/bad.yaml"

expect "--help lists problems" 0 'problems \[--follow\|-f\] \[--problems FILE\]' --help
expect "problems takes no operands" 2 "problems takes no arguments \('x'\)" problems x
expect "an unknown option is a usage error" 2 "unrecognized option '--probems'" problems --probems f
expect "--problems wants a file" 2 "requires an argument" problems --problems
expect "--catalog is not for problems" 2 "--catalog translates" problems --catalog x.po
expect "a catalog that breaks its format: FILE:LINE: reason, status 1" 1 \
	"^kprint: $WORK/bad.yaml:4: problem: unknown key 'kinds'\$" problems --problems "$WORK/bad.yaml"
expect "a missing catalog: FILE: why, status 1" 1 \
	"^kprint: $WORK/none.yaml: No such file or directory\$" problems -f --problems "$WORK/none.yaml"
expect "a good catalog, then the kernel is asked: no module, status 3" 3 \
	"module is not loaded" problems --problems "$FIXTURES/good.yaml"
expect "-f and --json with it" 3 "module is not loaded" problems -f --json --problems "$FIXTURES/good.yaml"
expect "-v says what the catalog has" 3 "good.yaml: 9 problems, 9 formats" problems -v --problems "$FIXTURES/good.yaml"

tap_exit
