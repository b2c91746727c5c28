#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Message catalogs in the guest: records emitted here come out of
# `kprint dump --catalog de.po` and `kprint monitor --catalog de.po` in
# German, their args reordered by the catalog's positional conversions,
# an untranslated format as it was; --json adds text_translated and still
# matches schema/record.schema.json; a mismatched catalog is refused with
# FILE:LINE: reason before anything is read; `kprint formats --pot`
# writes a template of the formats counted that GNU msgfmt --check takes,
# and a catalog made from it translates.
. "$(dirname "$0")/../lib/lib.sh"

# kprint escapes bytes above 0x7f outside a UTF-8 locale; glibc has C.UTF-8.
export LC_ALL=C.UTF-8
tag=$$

# msgfmt --check FILE; its warnings (a template's header defaults) only
# shown when it fails.
msgfmt_check() {
	msgfmt --check -o /dev/null "$1" 2>"$WORK/msgfmt.err" && return 0
	sed 's/^/# /' "$WORK/msgfmt.err"
	return 1
}

cat >"$WORK/de.po" <<'EOF'
# German messages of the catalog test.
msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"

#, c-format
msgid "catalog %s: port %s reset by %s\n"
msgstr "Katalog: %3$s setzte Port %2$s von "
"%1$s zurück\n"

#, c-format
msgid "catalog %s is 100%% full"
msgstr "Katalog %s ist zu 100%% voll"

#, fuzzy, c-format
msgid "catalog fuzzy %s"
msgstr "Katalog unscharf %s"
EOF
check "msgfmt --check takes the German catalog" msgfmt_check "$WORK/de.po"

# The counters first, so that they count what is emitted below (--pot).
kprint formats >/dev/null 2>&1 || not_ok "kprint formats loads the counters"

first=$(kprint emit --level warn "catalog %s: port %s reset by %s" "usb$tag" 3 hub)
kprint emit --level info "catalog %s is 100%% full" sda >/dev/null
kprint emit --level info "catalog fuzzy %s" x >/dev/null
last=$(kprint emit --level err "catalog untranslated %s" "$tag")
check "four records emitted (seqs $first..$last)" [ "$((last - first))" -eq 3 ]

kprint dump --from "$first" --until "$last" --catalog "$WORK/de.po" >"$WORK/text" 2>&1
check "dump --catalog: reordered positional args, continued msgstr, newline dropped" \
	grep -qx '\[ *[0-9.]*\] warn   Katalog: hub setzte Port 3 von usb'"$tag"' zurück' "$WORK/text"
check "dump --catalog: %% as %" grep -q 'Katalog sda ist zu 100% voll$' "$WORK/text"
check "dump --catalog: a fuzzy entry is not used" grep -q '] info   catalog fuzzy x$' "$WORK/text"
check "dump --catalog: an untranslated format keeps its text" \
	grep -q "] err    catalog untranslated $tag\$" "$WORK/text"
check_eq "dump --catalog: four lines" "$(wc -l <"$WORK/text")" 4

kprint --json dump --from "$first" --until "$last" --catalog "$WORK/de.po" >"$WORK/json"
check "--json --catalog: the lines match schema/record.schema.json" \
	$PY tests/lib/validate_json.py <"$WORK/json"
$PY - "$WORK/json" "$tag" >"$WORK/json.check" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
tag = sys.argv[2]
want = ["Katalog: hub setzte Port 3 von usb%s zurück" % tag, "Katalog sda ist zu 100% voll",
        "catalog fuzzy x", "catalog untranslated %s" % tag]
got = [r.get("text_translated") for r in recs]
print("ok" if got == want else "got %r" % got)
print("ok" if all(list(r)[-1] == "text_translated" for r in recs) else "not last")
print("ok" if [r["text"] for r in recs][3] == want[3] and recs[0]["args"] == ["usb" + tag, "3", "hub"]
      else "text or args changed")
EOF
check_eq "--json --catalog: text_translated per record (untranslated: the text)" \
	"$(sed -n 1p "$WORK/json.check")" ok
check_eq "--json --catalog: text_translated is the last field" "$(sed -n 2p "$WORK/json.check")" ok
check_eq "--json --catalog: text and args are as without a catalog" \
	"$(sed -n 3p "$WORK/json.check")" ok

# monitor: a record emitted after it subscribed, in German.
kprint monitor --count 1 --catalog "$WORK/de.po" >"$WORK/monitor" 2>&1 &
mon=$!
wait_subscribers 1
kprint emit --level warn "catalog %s: port %s reset by %s" eth0 7 switch >/dev/null
wait "$mon"
check "monitor --catalog: the live record in German" \
	grep -q 'warn   Katalog: switch setzte Port 7 von eth0 zurück$' "$WORK/monitor"

# Refused: the line of the msgstr and the conversion that differs.
printf '%s\n' 'msgid "catalog %s: port %s reset by %s"' '' \
	'msgstr "Katalog %1$s %2$s %1$s"' >"$WORK/bad.po"
check_fails_with "a mismatched catalog is refused with FILE:LINE: reason" \
	"^kprint: --catalog $WORK/bad.po:3: msgstr shows argument 1 twice \(%1\\\$s\) \(refused\)" \
	kprint dump --catalog "$WORK/bad.po"

# formats --pot: the formats just counted, in a template msgfmt takes.
kprint formats --pot --source kprint >"$WORK/kernel.pot" 2>"$WORK/pot.err"
check "formats --pot exits 0" [ $? -eq 0 ]
check "msgfmt --check takes the template" msgfmt_check "$WORK/kernel.pot"
check "the template has the emitted format once, c-format, module user" \
	grep -qzP '#\. kprint: counted 2 times\n#: user\n#, c-format\nmsgid "catalog %s: port %s reset by %s"\nmsgstr ""\n' \
	"$WORK/kernel.pot"
# Translated by hand from the template, as a translator would.
sed '/^msgid "catalog %s is 100%% full"$/{n;s/.*/msgstr "Voll zu 100%%: %s"/}' \
	"$WORK/kernel.pot" >"$WORK/from-pot.po"
kprint dump --from "$first" --until "$last" --catalog "$WORK/from-pot.po" >"$WORK/text2" 2>&1
check "a catalog made from the template translates" grep -q 'Voll zu 100%: sda$' "$WORK/text2"
finish
