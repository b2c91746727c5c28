# SPDX-License-Identifier: GPL-2.0
# kprint catalog --journal on a host: the systemd catalog it writes from PO
# files is one that journalctl itself compiles (--update-catalog into a
# root of this test's own) and lists with the MESSAGE_IDs derived here
# again in Python (docs/journal.md's), one per module of a "#:" line, in
# English and in each catalog's language; and its refusals.
# Run by `make -C exporter test TESTS=test_cli_catalog` (KPRINT is the
# binary), as tests/run runs it; not executable on
# purpose, as test_cli_host.sh.

KPRINT=${KPRINT:-$(dirname "$0")/../../.output/bin/kprint}
. "$(dirname "$0")/../lib/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# po FILE LANGUAGE: a catalog with two modules for "%s up", one without any.
po() {
	cat >"$1" <<EOF2
msgid ""
msgstr ""
"Language: $2\n"
"Content-Type: text/plain; charset=UTF-8\n"

#. kprint: counted 2 times
#: usb_storage e1000e
#: drivers/net/x.c:12
#, c-format
msgid "%s up"
msgstr "$2: %s an"

#, c-format
msgid "no module %d"
msgstr "$2: kein Modul %d"
EOF2
}

message_id() { python3 "$(dirname "$0")/../lib/message_id.py" "$1" "$2"; }

po "$tmp/de.po" de
po "$tmp/fr.po" fr
mkdir -p "$tmp/root/usr/lib/systemd/catalog"
"$KPRINT" catalog --journal "$tmp/de.po" "$tmp/fr.po" \
	>"$tmp/root/usr/lib/systemd/catalog/kprint.catalog" 2>"$tmp/err"
check_eq "kprint catalog --journal de.po fr.po: status 0, the entry without a module counted" \
	"$? $(cat "$tmp/err")" \
	"0 kprint: catalog: left out 2 translations without a module (no #: reference; -v names them, --default-module gives one)"
check "journalctl --update-catalog compiles it" \
	journalctl --root="$tmp/root" --update-catalog
usb=$(message_id '%s up' usb_storage)
e1000e=$(message_id '%s up' e1000e)
want=$(printf '%s kprint: <KPRINT_ARG_0> up\n' "$usb" "$e1000e" | sort)
check_eq "journalctl --list-catalog: an entry per module of \"#:\", not the source file's" \
	"$(journalctl --root="$tmp/root" --list-catalog | sort)" "$want"
check_eq "each in English, German and French" \
	"$(grep -c "^-- $usb\( de\| fr\)\?$" "$tmp/root/usr/lib/systemd/catalog/kprint.catalog")" 3
check "the German Subject places the argument" \
	grep -qx 'Subject: de: <KPRINT_ARG_0> an' "$tmp/root/usr/lib/systemd/catalog/kprint.catalog"

"$KPRINT" catalog --journal --default-module m "$tmp/de.po" >"$tmp/dflt" 2>&1
check "--default-module gives the entry without one its module" \
	grep -q "^-- $(message_id 'no module %d' m)$" "$tmp/dflt"

expect_fail() {
	local what=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$("$KPRINT" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
		ok "$what"
	else
		not_ok "$what (status $rc, want $want: $out)"
	fi
}
expect_fail "without --journal: a usage error" 2 'catalog --journal' catalog "$tmp/de.po"
expect_fail "without a file: a usage error" 2 'catalog --journal' catalog --journal
expect_fail "two catalogs of one language: refused with FILE:LINE" 2 \
	"de2.po:[0-9]+: a second catalog of language de" \
	catalog --journal "$tmp/de.po" "$(cp "$tmp/de.po" "$tmp/de2.po"; echo "$tmp/de2.po")"
sed '/^"Language/d' "$tmp/de.po" >"$tmp/none.po"
expect_fail "a catalog without Language: refused" 2 'none.po:[0-9]+: no Language:' \
	catalog --journal "$tmp/none.po"
printf 'msgid "a %%d"\nmsgstr "b %%s"\n' >"$tmp/bad.po"
expect_fail "a bad catalog: FILE:LINE: reason, status 1" 1 'bad.po:2: .*refused' \
	catalog --journal "$tmp/bad.po"

tap_exit
