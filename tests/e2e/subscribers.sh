#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two subscribers both receive every record, in order, each exactly once.
. "$(dirname "$0")/../lib/lib.sh"

load_test_module
n=3000
first=$(stat next_seq)
last=$((first + n - 1))
kprint monitor --json --until $last >"$WORK/a" 2>"$WORK/a.err" &
a=$!
kprint monitor --json --until $last >"$WORK/b" 2>"$WORK/b.err" &
b=$!
wait_subscribers 2 || finish
echo $n >$TEST_PARAMS/flood || not_ok "flood $n records"
wait $a || not_ok "first monitor exited with an error: $(cat "$WORK/a.err")"
wait $b || not_ok "second monitor exited with an error: $(cat "$WORK/b.err")"

for who in a b; do
	$PY - "$WORK/$who" "$first" "$n" "$who" <<'PY'
import json, sys
path, first, n, who = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
recs = [json.loads(l) for l in open(path)]
recs = [r for r in recs if "seq" in r]
seqs = [r["seq"] for r in recs]
ok = seqs == list(range(first, first + n))
print(("ok - " if ok else "not ok - ") + f"subscriber {who} got all {n} records once, in order"
      + ("" if ok else f" (got {len(seqs)}, first {seqs[:3]})"))
ok = [int(r["args"][0]) for r in recs] == list(range(len(recs)))
print(("ok - " if ok else "not ok - ") + f"subscriber {who} got the flood's counters 0..{n - 1}")
PY
done
finish
