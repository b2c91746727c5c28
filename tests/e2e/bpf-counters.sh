#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF counters count every kprint record (per format, level, class,
# subsystem and module) and every printk() per format, exactly; one format
# from two modules is two counts; bpftool shows them readably; a full map overflows into a visible
# count; restarting the loader or reloading kprint.ko keeps counting right.
. "$(dirname "$0")/../lib/lib.sh"

PIN=/sys/fs/bpf/kprint
load_test_module
# The printk bridge's records would share the seq range the subscriber
# below waits for; its counting is tests/e2e/bpf-bridge.sh's.
echo 0 >/sys/module/kprint/parameters/bridge || not_ok "bridge=0"

# count SOURCE FORMAT [PIN_DIR]: the count of one format (0 if absent).
count() {
	kprint formats --json --top 0 --source "$1" ${3:+--pin-dir "$3"} |
		$PY -c 'import json, sys
fmt = sys.argv[1]
print(sum(o["count"] for o in map(json.loads, sys.stdin) if o.get("format") == fmt))' "$2"
}
# fnv1a64 STRING: the format id of a format, 16 hex digits.
fnv1a64() {
	$PY -c 'import sys
h = 0xcbf29ce484222325
for c in sys.argv[1].encode():
    h = ((h ^ c) * 0x100000001b3) % 2**64
print(f"{h:016x}")' "$1"
}
summary() {
	kprint formats --json --source "$1" ${3:+--pin-dir "$3"} | $PY -c 'import json, sys
print([o for o in map(json.loads, sys.stdin) if "total" in o][0][sys.argv[1]])' "$2"
}

out=$(kprint formats 2>&1)
check "kprint formats loads the counters" [ $? -eq 0 ]
echo "$out" | sed 's/^/# /' | head -5
for f in kprint_formats printk_formats kprint_counter_totals ratelimit_suppressed \
	kprint_record_link printk_link; do
	check "$PIN/$f is pinned" [ -e $PIN/$f ]
done
kprint formats --json >"$WORK/formats.json"
check_eq "both hooks are attached" "$(summary kprint attached),$(summary printk attached)" "True,True"

# The table, K times, with a subscriber as the second witness.
K=3
size=$(cat $TEST_PARAMS/table_size)
first=$(stat next_seq)
kprint monitor --json --until $((first + K * size - 1)) >"$WORK/mon" &
mon=$!
wait_subscribers 1 || finish
kprint formats --json --top 0 --source kprint >"$WORK/before"
echo $K >$TEST_PARAMS/emit || not_ok "emit the table $K times"
wait $mon || not_ok "monitor"
kprint formats --json --top 0 --source kprint >"$WORK/after"
# A count is keyed like a record: format (and its id), level, class and tags.
$PY - "$WORK/before" "$WORK/after" "$WORK/mon" "$K" "$size" <<'PY'
import collections, json, sys
before, after, mon, k, size = sys.argv[1:4] + [int(sys.argv[4]), int(sys.argv[5])]
FIELDS = ("format", "format_id", "level", "class", "subsystem", "module")
def counts(path):
    return {tuple(o[f] for f in FIELDS): o["count"] for o in map(json.loads, open(path)) if "count" in o}
b, a = counts(before), counts(after)
delta = {key: a[key] - b.get(key, 0) for key in a if a[key] != b.get(key, 0)}
recs = [r for r in map(json.loads, open(mon)) if "seq" in r]
seen = collections.Counter(tuple(r[f] for f in FIELDS) for r in recs)
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
check(f"{size} formats were counted", len(delta) == size, len(delta))
check(f"each counted exactly {k} times", set(delta.values()) == {k}, sorted(set(delta.values())))
check("the counts, by format, level, class, subsystem and module, equal what the subscriber received",
      delta == dict(seen), set(delta.items()) ^ set(seen.items()))
check("the table's counts carry all five classes",
      {key[3] for key in delta} == {"none", "detected", "registered", "setting", "copyright"},
      sorted({key[3] for key in delta}))
check("the table's counts carry its subsystem and module",
      {key[4:] for key in delta} == {("kprint-test", "kprint_test")}, {key[4:] for key in delta})
PY

check "kprint formats --json lines match schema/formats.schema.json" \
	$PY tests/lib/validate_json.py --schema schema/formats.schema.json \
	< <(cat "$WORK/formats.json" "$WORK/after")

# Legacy printk() and /dev/kmsg, counted by format (without its newline).
n=25
before=$(count printk 'kprint_test legacy printk %d')
echo $n >$TEST_PARAMS/printk || not_ok "printk $n times"
check_eq "printk() of one format counted exactly $n times" \
	"$(count printk 'kprint_test legacy printk %d')" $((before + n))
before=$(count printk "%s")
for i in $(seq 7); do echo "kprint bpf test kmsg line $i" >/dev/kmsg; done
check_eq "/dev/kmsg writes counted under \"%s\"" "$(count printk "%s")" $((before + 7))

# One format, several modules and subsystems: one count each.  The table
# emitted "kprint_test no args" K times from kprint_test; kprint emit
# injects the same text as module "user" with other tags and classes.
NOARGS="kprint_test no args"
for i in 1 2; do kprint emit --level info "$NOARGS" >/dev/null || not_ok "emit '$NOARGS'"; done
for i in 1 2 3; do
	kprint emit --level info --subsystem kpb-other "$NOARGS" >/dev/null || not_ok "emit '$NOARGS'"
done
kprint emit --level info --class detected --subsystem kpb-other "$NOARGS" >/dev/null ||
	not_ok "emit '$NOARGS' --class detected"
kprint emit --level err --subsystem kpb-other "$NOARGS" >/dev/null || not_ok "emit '$NOARGS' at err"
kprint formats --json --top 0 --source kprint >"$WORK/noargs"
$PY - "$WORK/noargs" "$NOARGS" "$K" <<'PY'
import json, sys
path, fmt, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
got = sorted((o["level"], o["class"], o["subsystem"], o["module"], o["count"])
             for o in map(json.loads, open(path)) if o.get("format") == fmt)
want = sorted([("info", "none", "kprint-test", "kprint_test", k), ("info", "none", "", "user", 2),
               ("info", "none", "kpb-other", "user", 3), ("info", "detected", "kpb-other", "user", 1),
               ("err", "none", "kpb-other", "user", 1)])
ids = {o["format_id"] for o in map(json.loads, open(path)) if o.get("format") == fmt}
ok = got == want
print(("ok - " if ok else "not ok - ") + "one format from two modules and three tag sets and classes is "
      "counted separately, exactly" + ("" if ok else f" (got {got}, want {want})"))
ok = len(ids) == 1
print(("ok - " if ok else "not ok - ") + "all of them under the one format_id" + ("" if ok else f" ({ids})"))
PY

# A second kernel module: the demo's copyright line, emitted once at load
# (its work item is kept from emitting again by a long interval), counted
# under the tags its record has.
insmod kernel/demo/kprint_demo.ko interval_ms=4000000000 || not_ok "insmod kprint_demo"
kprint formats --json --top 0 --source kprint >"$WORK/demo"
kprint dump --json >"$WORK/demo.dump"
$PY - "$WORK/demo" "$WORK/demo.dump" <<'PY'
import json, sys
fmt = "kprint demo traffic, copyright (c) %d %s"
got = [(o["level"], o["class"], o["subsystem"], o["module"], o["count"])
       for o in map(json.loads, open(sys.argv[1])) if o.get("format") == fmt]
recs = [r for r in map(json.loads, open(sys.argv[2])) if r.get("format") == fmt]
want = [(r["level"], r["class"], r["subsystem"], r["module"], 1) for r in recs]
ok = len(recs) == 1 and got == want and want[0][:3] == ("info", "copyright", "kprint-demo") \
    and want[0][3].endswith("kprint_demo")
print(("ok - " if ok else "not ok - ") + "kprint_demo's copyright line counted once, with its record's "
      "class and tags" + ("" if ok else f" (got {got}, want {want})"))
PY
rmmod kprint_demo || not_ok "rmmod kprint_demo"

check "kprint formats shows class, module and subsystem columns" $PY -c '
import subprocess, sys
out = subprocess.run(["kprint", "formats", "--top", "0", "--source", "kprint"], capture_output=True,
                     text=True, check=True).stdout.splitlines()
assert out[0].split() == ["COUNT", "SOURCE", "LEVEL", "CLASS", "FORMAT_ID", "MODULE", "SUBSYSTEM", "FORMAT"], out[0]
rows = [l.split(None, 7) for l in out[1:] if not l.startswith("#")]
want = ["1", "kprint", "info", "detected", sys.argv[1], "user", "kpb-other", "kprint_test no args"]
assert want in rows, [r for r in rows if r[-1] == want[-1]]' "$(fnv1a64 "$NOARGS")"

# Stock tools: bpftool shows every field of key and value by name, strings
# as text.  tags_id is FNV-1a 64 of "subsystem\0module\0".
bpftool map dump pinned $PIN/kprint_formats >"$WORK/bpftool" 2>&1
check "bpftool dump shows a format as text" grep -q '"format": "kprint_test ipv4 %pI4"' "$WORK/bpftool"
check "bpftool dump shows its count" grep -q "\"count\": $K\b" "$WORK/bpftool"
bpftool -j map dump pinned $PIN/kprint_formats >"$WORK/bpftool.json"
$PY - "$WORK/bpftool.json" "$K" <<'PY'
import json, sys
k = int(sys.argv[2])
def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) % 2**64
    return h
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
try:
    entries = json.load(open(sys.argv[1]))
except ValueError as e:
    entries = []
    check("bpftool dump of kprint_formats is JSON", False, e)
entries = [e.get("formatted", e) for e in entries]
def find(fmt, module):
    return [e for e in entries if e["value"].get("format") == fmt and e["value"].get("module") == module]
got = find("kprint_test ipv4 %pI4", "kprint_test")
want = [{"key": {"format_id": fnv(b"kprint_test ipv4 %pI4"), "tags_id": fnv(b"kprint-test\0kprint_test\0"),
                 "level": 6, "class": 0},
         "value": {"count": k, "format": "kprint_test ipv4 %pI4", "subsystem": "kprint-test",
                   "module": "kprint_test"}}]
check("bpftool dump: key {format_id, tags_id, level, class}, value {count, format, subsystem, module}",
      got == want, (got, want))
got = [(e["key"]["class"], e["key"]["tags_id"], e["value"]["subsystem"], e["value"]["count"])
       for e in find("kprint_test no args", "user") if e["key"]["level"] == 6]
want = sorted([(0, fnv(b"\0user\0"), "", 2), (0, fnv(b"kpb-other\0user\0"), "kpb-other", 3),
               (1, fnv(b"kpb-other\0user\0"), "kpb-other", 1)])
check("bpftool dump: one entry per tags and class, tags_id as defined", sorted(got) == want, (got, want))
PY
bpftool -j map dump pinned $PIN/printk_formats >"$WORK/bpftool.printk"
check "bpftool dump of printk_formats (the bridge off): no tags, class 0" $PY -c '
import json, sys
entries = [e.get("formatted", e) for e in json.load(open(sys.argv[1]))]
assert entries
for e in entries:
    assert e["key"]["tags_id"] == 0 and e["key"]["class"] == 0, e
    assert e["value"]["subsystem"] == "" and e["value"]["module"] == "", e' "$WORK/bpftool.printk"

# The loader exits and comes back: same maps, no second attachment.
before=$(count kprint "kprint_test flood %u")
kprint formats >/dev/null || not_ok "kprint formats again"
echo 10 >$TEST_PARAMS/flood
check_eq "after reloading the loader, counts go on and nothing counts twice" \
	"$(count kprint "kprint_test flood %u")" $((before + 10))

# kprint.ko unloaded and loaded again: the kprobe comes back by itself.
before=$(count kprint "kprint_test flood %u")
rmmod kprint_test && rmmod kprint || not_ok "rmmod kprint while counted"
insmod kernel/kprint.ko $KPRINT_MODPARAMS && insmod $TEST_MODULE || not_ok "insmod kprint again"
echo 4 >$TEST_PARAMS/flood
check_eq "after kprint.ko is reloaded, records are counted again" \
	"$(count kprint "kprint_test flood %u")" $((before + 4))

# Counters an older kprint pinned, of another layout: refused, and said
# what to do, rather than libbpf's bare "Invalid argument".
OLD=/sys/fs/bpf/kpold
mkdir -p $OLD
bpftool map create $OLD/kprint_formats type hash key 16 value 264 entries 16 name kprint_formats ||
	not_ok "pin a map of the old layout"
check_fails_with "a pinned map of an older layout is refused, saying how to remove it" \
	"older layout.*formats --unload --pin-dir $OLD" kprint formats --pin-dir $OLD
kprint formats --pin-dir $OLD --unload || not_ok "unload the old counters"
kprint formats --pin-dir $OLD --top 1 >/dev/null
check_eq "after --unload, the counters load there again" $? 0
kprint formats --pin-dir $OLD --unload || not_ok "unload the new counters"

# A small map, filled past its size: the excess is an overflow count.
SMALL=/sys/fs/bpf/kptest
kprint formats --pin-dir $SMALL --max-formats 16 >/dev/null || not_ok "load a 16-entry map"
for i in $(seq 26); do
	kprint emit --level info "kprint bpf overflow format $i" >/dev/null
done
check_eq "a full map holds 16 formats" "$(summary kprint formats $SMALL)" 16
check_eq "10 more formats than fit went to the overflow count" \
	"$(summary kprint overflow $SMALL)" 10
kprint emit --level info "kprint bpf overflow format 3" >/dev/null
check_eq "known formats still count when the map is full" \
	"$(count kprint "kprint bpf overflow format 3" $SMALL)" 2
kprint formats --pin-dir $SMALL --unload || not_ok "unload the small counters"
check "--unload removes the pins" [ ! -e $SMALL ]
finish
