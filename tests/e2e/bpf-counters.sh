#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF counters count every kprint record and every printk() per format,
# exactly; bpftool shows them readably; a full map overflows into a visible
# count; restarting the loader or reloading kprint.ko keeps counting right.
. "$(dirname "$0")/lib.sh"

PIN=/sys/fs/bpf/kprint
load_test_module

# count SOURCE FORMAT [PIN_DIR]: the count of one format (0 if absent).
count() {
	kprint formats --json --top 0 --source "$1" ${3:+--pin-dir "$3"} |
		$PY -c 'import json, sys
fmt = sys.argv[1]
print(sum(o["count"] for o in map(json.loads, sys.stdin) if o.get("format") == fmt))' "$2"
}
summary() {
	kprint formats --json --source "$1" ${3:+--pin-dir "$3"} | $PY -c 'import json, sys
print([o for o in map(json.loads, sys.stdin) if "total" in o][0][sys.argv[1]])' "$2"
}

out=$(kprint formats 2>&1)
check "kprint formats loads the counters" [ $? -eq 0 ]
echo "$out" | sed 's/^/# /' | head -5
for f in kprint_formats printk_formats kprint_counter_totals kprint_record_link printk_link; do
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
$PY - "$WORK/before" "$WORK/after" "$WORK/mon" "$K" "$size" <<'PY'
import collections, json, sys
before, after, mon, k, size = sys.argv[1:4] + [int(sys.argv[4]), int(sys.argv[5])]
def counts(path):
    return {(o["format"], o["level"]): o["count"] for o in map(json.loads, open(path)) if "count" in o}
b, a = counts(before), counts(after)
delta = {key: a[key] - b.get(key, 0) for key in a if a[key] != b.get(key, 0)}
seen = collections.Counter((r["format"], r["level"]) for r in map(json.loads, open(mon)) if "seq" in r)
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
check(f"{size} formats (by format and level) were counted", len(delta) == size, len(delta))
check(f"each counted exactly {k} times", set(delta.values()) == {k}, sorted(set(delta.values())))
check("the counts equal what the subscriber received", delta == dict(seen),
      set(delta.items()) ^ set(seen.items()))
PY

check "kprint formats --json lines match schema/formats.schema.json" $PY -c '
import json, sys, jsonschema
schema = json.load(open("schema/formats.schema.json"))
for path in sys.argv[1:]:
    for line in open(path):
        jsonschema.validate(json.loads(line), schema)' "$WORK/formats.json" "$WORK/after"

# Legacy printk() and /dev/kmsg, counted by format.
n=25
before=$(count printk $'kprint_test legacy printk %d\n')
echo $n >$TEST_PARAMS/printk || not_ok "printk $n times"
check_eq "printk() of one format counted exactly $n times" \
	"$(count printk $'kprint_test legacy printk %d\n')" $((before + n))
before=$(count printk "%s")
for i in $(seq 7); do echo "kprint bpf test kmsg line $i" >/dev/kmsg; done
check_eq "/dev/kmsg writes counted under \"%s\"" "$(count printk "%s")" $((before + 7))

# Stock tools: bpftool shows the format as text, with its count.
bpftool map dump pinned $PIN/kprint_formats >"$WORK/bpftool" 2>&1
check "bpftool dump shows a format as text" grep -q '"format": "kprint_test ipv4 %pI4"' "$WORK/bpftool"
check "bpftool dump shows its count" grep -q "\"count\": $K\b" "$WORK/bpftool"

# The loader exits and comes back: same maps, no second attachment.
before=$(count kprint "kprint_test flood %u")
kprint formats >/dev/null || not_ok "kprint formats again"
echo 10 >$TEST_PARAMS/flood
check_eq "after reloading the loader, counts go on and nothing counts twice" \
	"$(count kprint "kprint_test flood %u")" $((before + 10))

# kprint.ko unloaded and loaded again: the kprobe comes back by itself.
before=$(count kprint "kprint_test flood %u")
rmmod kprint_test && rmmod kprint || not_ok "rmmod kprint while counted"
insmod kernel/kprint.ko && insmod $TEST_MODULE || not_ok "insmod kprint again"
echo 4 >$TEST_PARAMS/flood
check_eq "after kprint.ko is reloaded, records are counted again" \
	"$(count kprint "kprint_test flood %u")" $((before + 4))

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
