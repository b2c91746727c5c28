#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A small ring flooded far past its size: the oldest records are overwritten
# and counted, sequence numbers stay contiguous, and a dump that asks for
# overwritten records reports exactly how many it lost.
. "$(dirname "$0")/../lib/lib.sh"

reload_kprint ring_size=65536 printk=0 ||
	{ not_ok "reload kprint with a 64 KiB ring"; finish; }
load_test_module
flood=20000
echo $flood >$TEST_PARAMS/flood || not_ok "flood $flood records"

kprint stats --json >"$WORK/stats" || not_ok "kprint stats --json"
read -r records overwritten held first next ring_bytes < <($PY -c '
import json, sys
s = json.load(open(sys.argv[1]))
print(s["records"], s["overwritten"], s["ring_records"], s["first_seq"], s["next_seq"], s["ring_bytes"])
' "$WORK/stats")
check_eq "the ring has the size asked for" "$ring_bytes" 65536
check_eq "every flooded record was stored" "$records" $flood
check "the ring overwrote records (overwritten=$overwritten)" [ "$overwritten" -gt 0 ]
check_eq "held + overwritten = stored" $((held + overwritten)) "$records"
check_eq "first..next spans exactly the records held" $((next - first)) "$held"

origin=$((next - records))	# the sequence number of the first record ever
kprint dump --json --from $origin >"$WORK/dump" 2>"$WORK/dump.err" || not_ok "kprint dump --json"
$PY - "$WORK/dump" "$first" "$next" "$overwritten" <<'PY'
import json, sys
path, first, nxt, lost_want = sys.argv[1], *map(int, sys.argv[2:])
recs, lost = [], []
for line in open(path):
    o = json.loads(line)
    (lost if "lost" in o else recs).append(o)
def check(what, cond):
    print(("ok - " if cond else "not ok - ") + what)
seqs = [r["seq"] for r in recs]
check(f"the dump returns every held record, in order ({len(seqs)})", seqs == list(range(first, nxt)))
check("the flood counters in the dump are consecutive",
      all(int(b["args"][0]) == int(a["args"][0]) + 1 for a, b in zip(recs, recs[1:])))
check(f"the dump reports {lost_want} records lost before the first one",
      len(lost) == 1 and lost[0]["lost"] == lost_want)
PY
kprint dump --from $origin >/dev/null 2>"$WORK/text.err"
check "the text dump says how many records were lost" grep -q "$overwritten" "$WORK/text.err"
finish
