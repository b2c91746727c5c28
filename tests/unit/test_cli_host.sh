# SPDX-License-Identifier: GPL-2.0
# The kprint CLI on a host: help, version, usage errors and their exit
# status, --catalog's checks (made before the kernel is asked), and a
# clear message when the kprint module is not loaded.
# Run by `make -C exporter test` (KPRINT is the binary), which tests/run
# runs as `make -C exporter test TESTS=test_cli_host`; not executable on
# purpose, so tests/run does not also run it without KPRINT.

KPRINT=${KPRINT:-$(dirname "$0")/../../.output/bin/kprint}
. "$(dirname "$0")/../lib/tap.sh"

expect "--help exits 0 and documents the exit status" 0 'Exit status' --help
expect "--help lists the commands" 0 'monitor.*' --help
expect "-h works after a command too" 0 'Usage: kprint' dump -h
expect "--version" 0 '^kprint [0-9]+\.[0-9]+' --version
expect "no command is a usage error" 2 'no command' 
expect "an unknown command is a usage error" 2 "unknown command 'formatz'" formatz
expect "a bad --level is a usage error" 2 "bad --level 'error'" dump --level error
expect "a bad --class is a usage error" 2 "bad --class" dump --class hardware
expect "a bad --source is a usage error" 2 "bad --source 'kernel' \(kprint, printk or all\)" dump --source kernel
expect "--source printk, is a usage error" 2 "bad --source" monitor --source printk,
expect "formats keeps its own --source (its own message)" 2 "^kprint: --source is kprint, printk or all, not 'bogus'" formats --source bogus
expect "--help documents --source and --device" 0 '--source SOURCES.*' --help
expect "--help shows the printk text line" 0 'level \[printk SUBSYSTEM DEVICE\] text' --help
expect "a bad --color is a usage error" 2 'auto, always or never' --color=sometimes dump
expect "a bad --level-color is a usage error" 2 'bad --level-color' --level-color err=purple dump
expect "--count 0 is a usage error" 2 'positive number' monitor --count 0
expect "--count -1 is a usage error" 2 'positive number' monitor --count -1
expect "--from takes a number" 2 'sequence number' dump --from 12x
expect "an unknown option is a usage error" 2 'Try' dump --bogus
expect "emit needs --level" 2 'emit needs --level' emit "hello"
expect "emit needs a FORMAT" 2 'emit needs a FORMAT' emit --level err
expect "emit rejects an unknown level" 2 "unknown level 'loud'" emit --level loud x
expect "monitor takes no operands" 2 'takes no arguments' monitor now

# --catalog: read and checked before the kernel is asked for anything.
po=$(mktemp --suffix=.po)
bad=$(mktemp --suffix=.po)
trap 'rm -f "$po" "$bad"' EXIT
printf '%s\n' 'msgid ""' 'msgstr "Content-Type: text/plain; charset=UTF-8\n"' '' \
	'msgid "%s: port %d reset"' 'msgstr "%2$d: Port von %1$s zurückgesetzt"' >"$po"
printf '%s\n' 'msgid ""' 'msgstr "Content-Type: text/plain; charset=UTF-8\n"' '' \
	'msgid "from %pI4"' '' 'msgstr "von %pI6"' >"$bad"
expect "--help documents --catalog" 0 '--catalog FILE.po' --help
expect "--help documents formats --pot" 0 '--pot writes a gettext template' --help
expect "a mismatched catalog is refused with FILE:LINE: reason, exit 1" 1 \
	"^kprint: --catalog $bad:6: msgstr's conversion 1 is %pI6 where the msgid's is %pI4 \(refused\)\$" \
	dump --catalog "$bad"
expect "a missing catalog says so, exit 1" 1 "^kprint: --catalog /nonexistent.po: No such file" \
	monitor --catalog /nonexistent.po
expect "--catalog is refused by commands that show no records" 2 \
	'--catalog translates the records of monitor and dump; stats shows none' --catalog "$po" stats
expect "--catalog after formats too" 2 'formats shows none' formats --catalog "$po"
expect "one --catalog at a time" 2 'one --catalog at a time' dump --catalog "$po" --catalog "$po"
expect "formats --pot is no JSON" 2 'not with --json' formats --pot --json

# The rest needs a host without the kprint family (this one: no modules).
"$KPRINT" stats >/dev/null 2>&1
if [ $? -ne 3 ]; then
	ok "module-not-loaded messages # SKIP the kprint family exists here"
	tap_exit
fi
nomod="the kprint module is not loaded \(generic netlink family 'kprint' not found\)"
expect "stats without the module: exit 3 and says so" 3 "^kprint: $nomod\$" stats
expect "dump without the module: exit 3" 3 "$nomod" dump --json --level err+ --from 5
expect "monitor without the module: exit 3" 3 "$nomod" monitor --count 1
expect "emit without the module: exit 3" 3 "$nomod" emit --level err --class detected "hello %d" 5
expect "global options before the command work too" 3 "$nomod" --json --color=never --level-color warn=0x0e stats
expect "--source and --device parse (then exit 3)" 3 "$nomod" dump --source kprint,printk --source all --device +pci:0000:00:19.0
expect "--source before the command parses too" 3 "$nomod" --source printk monitor --count 1
expect "a good --catalog loads, then dump exits 3" 3 "^kprint: $nomod\$" --catalog "$po" dump
expect "-v counts the catalog's entries" 3 "catalog $po: 1 translations" -v monitor --catalog "$po"
tap_exit
