#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1 markers=1
# Argument markers: with markers=1 kprint's printk echo carries 0x1f around
# each argument, which /dev/kmsg shows as \x1f.  Records of `kprint emit`
# (an arg with spaces, an empty one, a %%) and of the test module's whole
# table and a block: every echo line, markers taken out, is the record's
# text, and its marked spans are the record's args from `kprint --json
# dump`; the record's text has no marker; only records that cannot be
# marked faithfully (cut, no args) are echoed without.  The printk bridge
# skips the marked echo as kprint's own and keeps a printk line holding
# 0x1f byte for byte.  markers=0, switched at run time: no 0x1f.  A saved
# /dev/kmsg and a saved dmesg translate to German with `kprint translate
# --catalog`.
. "$(dirname "$0")/../lib/lib.sh"

export LC_ALL=C.UTF-8
tag=mk$$
PARAM=/sys/module/kprint/parameters/markers

check_eq "markers=1 as loaded" "$(cat $PARAM)" Y

# /dev/kmsg from its start, everything printk holds, without blocking.
read_kmsg() {
	$PY - "$1" <<'EOF'
import os, sys
fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
out = open(sys.argv[1], "wb")
while True:
    try:
        b = os.read(fd, 8192)
    except BlockingIOError:
        break
    except BrokenPipeError:     # overwritten under us: go on from the next
        continue
    out.write(b.rstrip(b"\n") + b"\n")
EOF
}

before_skipped=$(stat bridge_skipped)
first=$(kprint emit --level warn --subsystem markers \
	"markers %s: port %s reset by %s [%s]" "usb hub $tag" 3 hub "")
kprint emit --level info "markers %s is 100%% full" "$tag" >/dev/null
kprint emit --level info "markers plain line" >/dev/null
last=$(kprint emit --level err "markers untranslated %s%s" "$tag" "x y")
check "four records emitted (seqs $first..$last)" [ "$((last - first))" -eq 3 ]
after_skipped=$(stat bridge_skipped)

load_test_module
echo 1 >$TEST_PARAMS/emit
echo 3 >$TEST_PARAMS/block
printf 'markers bridged %s \037raw\037 line\n' "$tag" >/dev/kmsg

wait_for "the bridged /dev/kmsg line is a record" \
	eval 'kprint --source printk dump 2>/dev/null | grep -q "markers bridged $tag"'
read_kmsg "$WORK/kmsg"
kprint --json --source kprint dump --from "$first" >"$WORK/records.json"
kprint --json --source printk dump >"$WORK/printk.json"

$PY - "$WORK/kmsg" "$WORK/records.json" "$WORK/printk.json" "$tag" \
	>"$WORK/result" <<'EOF'
import json, re, sys

tag = sys.argv[4]
M = "\x1f"


def unescape(b):
    """/dev/kmsg's \\xNN are bytes (UTF-8 is escaped byte by byte)."""
    b = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), b)
    return b.decode("utf-8", "replace")


# /dev/kmsg: "PRI,SEQ,USEC,FLAGS;TEXT", then " KEY=VALUE" lines.
lines = []
for raw in open(sys.argv[1], "rb").read().split(b"\n"):
    if raw and not raw.startswith(b" ") and b";" in raw:
        lines.append((raw.decode("utf-8", "replace"), unescape(raw.split(b";", 1)[1])))
recs = [json.loads(l) for l in open(sys.argv[2])]
printk = [json.loads(l) for l in open(sys.argv[3])]

res = {"marked": 0, "unmarked": 0, "bad": [], "missing": [], "textmarker": 0,
       "unmarked_ok": 0}
pos = 0
for r in recs:
    text = r["text"]
    if M in text:
        res["textmarker"] += 1
    if "\0" in text:
        continue                # printk's "%s" stops at the NUL
    # printk keeps 991 bytes of a line, newline included: a longer text
    # (the table's long arg) is in the log only as far as that.
    long = len(text.encode()) > 990
    for i in range(pos, len(lines)):
        line = lines[i][1].replace(M, "")
        if line == text or (long and len(line) > 900 and text.startswith(line)):
            break
    else:
        res["missing"].append((r["seq"], r["text"][:60], len(r["text"])))
        continue
    pos = i + 1
    msg = lines[i][1]
    parts = msg.split(M)
    if len(parts) > 1:
        res["marked"] += 1
        if len(parts) % 2 == 0 or parts[1::2] != r["args"]:
            res["bad"].append((r["seq"], r["args"], parts))
    else:
        res["unmarked"] += 1
        # Only what cannot be marked faithfully goes without markers.
        if (not r["args"] or r["flags"] & 1 or M in text or
                len(text.encode()) + 2 * len(r["args"]) > 990):
            res["unmarked_ok"] += 1
        else:
            res["bad"].append((r["seq"], r["args"], parts))

first = [l for l in lines if l[1].replace(M, "").startswith("markers usb hub %s: port 3" % tag)]
res["first"] = first[-1][0].split(";", 1)[1] if first else ""
mine = [r for r in recs if r["text"].startswith("markers ")]
res["emit_args"] = [r["args"] for r in mine]
# The bridge: the marked echo is not a printk record; the raw line is, as written.
res["bridged_echo"] = sum(1 for p in printk if p["text"].replace(M, "").startswith("markers usb hub"))
raw = [p["text"] for p in printk if ("markers bridged %s" % tag) in p["text"]]
res["bridged_raw"] = raw
for k, v in res.items():
    print("%s=%s" % (k, v if k == "first" else json.dumps(v)))
EOF
sed 's/^/# /' "$WORK/result" | cut -c1-400
r() { sed -n "s/^$1=//p" "$WORK/result"; }

check_eq "/dev/kmsg shows the args between escaped markers" "$(r first)" \
	"markers \\x1fusb hub $tag\\x1f: port \\x1f3\\x1f reset by \\x1fhub\\x1f [\\x1f\\x1f]"
check_eq "the emitted records' args (spaces, empty, none)" "$(r emit_args)" \
	"[[\"usb hub $tag\", \"3\", \"hub\", \"\"], [\"$tag\"], [], [\"$tag\", \"x y\"]]"
check_eq "every echo found in /dev/kmsg" "$(r missing)" "[]"
check_eq "every marked echo splits into the record's args, the text without markers" \
	"$(r bad)" "[]"
n_marked=$(r marked)
echo "# $n_marked marked echoes, $(r unmarked) without markers ($(r unmarked_ok) with no args or cut)"
check "the test module's table and block echoed with markers ($n_marked lines)" \
	[ "$n_marked" -ge 40 ]
check_eq "no record's text has a marker" "$(r textmarker)" 0
check_eq "the bridge did not take the marked echo" "$(r bridged_echo)" 0
check_eq "the bridge skipped the four echoes of emit as kprint's own" \
	"$((after_skipped - before_skipped))" 4
check_eq "a printk line with 0x1f of its own is bridged byte for byte" "$(r bridged_raw)" \
	"[\"markers bridged $tag \\u001fraw\\u001f line\"]"

# markers=0 at run time: the same record, no 0x1f anywhere in its echo.
echo 0 >$PARAM
check_eq "markers switched off at run time" "$(cat $PARAM)" N
kprint emit --level warn "markers off %s and %s" "$tag" "b c" >/dev/null
read_kmsg "$WORK/kmsg0"
check_eq "markers=0: the echo is the plain text" \
	"$(grep -a "markers off $tag" "$WORK/kmsg0" | sed 's/^[^;]*;//')" "markers off $tag and b c"
check "markers=0: no 0x1f in the echo" \
	bash -c "! grep -a 'markers off $tag' '$WORK/kmsg0' | grep -aq -e '\\\\x1f' -e \$'\\x1f'"
echo 1 >$PARAM

# The CLI: a saved /dev/kmsg and a saved dmesg, in German.
cat >"$WORK/de.po" <<'EOF'
msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"

#, c-format
msgid "markers %s: port %s reset by %s [%s]\n"
msgstr "Marker: %3$s setzte Port %2$s von %1$s zurück [%4$s]\n"

#, c-format
msgid "markers %s is 100%% full"
msgstr "Marker %s ist zu 100%% voll"

msgid "markers plain line"
msgstr "Marker ohne Argumente"
EOF
grep -a "markers " "$WORK/kmsg" >"$WORK/saved.kmsg"
dmesg | grep -a "markers " >"$WORK/saved.dmesg"
check "dmesg shows the markers as \\x1f" grep -q "port \\\\x1f3\\\\x1f" "$WORK/saved.dmesg"
for f in kmsg dmesg; do
	kprint translate --catalog "$WORK/de.po" "$WORK/saved.$f" >"$WORK/de.$f" 2>&1
	check "translate a saved $f exits 0" [ $? -eq 0 ]
	check "translate $f: reordered args, one with spaces, an empty one" \
		grep -q "Marker: hub setzte Port 3 von usb hub $tag zurück \[\]\$" "$WORK/de.$f"
	check "translate $f: %% as %" grep -q "Marker $tag ist zu 100% voll\$" "$WORK/de.$f"
	check "translate $f: a line without args" grep -q "Marker ohne Argumente\$" "$WORK/de.$f"
	check "translate $f: untranslated keeps its text, markers out" \
		grep -q "markers untranslated ${tag}x y\$" "$WORK/de.$f"
	check_eq "translate $f: one line out per line in" "$(wc -l <"$WORK/de.$f")" \
		"$(wc -l <"$WORK/saved.$f")"
done
check "translate keeps the /dev/kmsg prefix" \
	grep -qE "^[0-9]+,[0-9]+,[0-9]+,[^;]*;Marker ohne Argumente\$" "$WORK/de.kmsg"
check "translate keeps dmesg's timestamp" \
	grep -qE "^\[ *[0-9.]+\] Marker ohne Argumente\$" "$WORK/de.dmesg"
finish
