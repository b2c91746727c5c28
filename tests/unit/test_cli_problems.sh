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

# Without --problems: the installed catalog, else the tree's that kprint
# was built in (.output/bin/kprint is two levels below it).
tree=$(cd "$(dirname "$KPRINT")/../.." && pwd)
if [ -e /usr/share/kprint/problems.yaml ]; then
	ok "the default catalog # SKIP /usr/share/kprint/problems.yaml is installed here"
elif [ -e "$tree/problems/problems.yaml" ]; then
	expect "no --problems: the tree's problems/problems.yaml, then the kernel is asked" 3 \
		"module is not loaded" problems
	expect "no --problems: -v names the tree's catalog" 3 \
		"$tree/problems/problems.yaml: [0-9]+ problems" problems -v
else
	expect "no --problems and no catalog anywhere: status 1, what to do" 1 \
		"no problem catalog \(/usr/share/kprint/problems.yaml\): give one with --problems FILE" \
		problems
fi

tap_exit
