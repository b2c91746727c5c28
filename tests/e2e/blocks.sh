#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A flushed block reaches the ring whole: consecutive sequence numbers, one
# shared block id, never interleaved with records from other CPUs; an
# aborted block leaves nothing.
. "$(dirname "$0")/../lib/lib.sh"

load_test_module
before=$(stat records)
echo 7 >$TEST_PARAMS/block_abort || not_ok "abort a block of 7 lines"
check_eq "an aborted block stores nothing" "$(stat records)" "$before"

# Blocks flushed while every CPU floods records.
echo 4000 >$TEST_PARAMS/flood_cpus &
flooder=$!
for i in $(seq 20); do
	echo 5 >$TEST_PARAMS/block || not_ok "flush block $i"
done
wait $flooder || not_ok "concurrent flood"

kprint dump --json >"$WORK/dump" || not_ok "kprint dump --json"
$PY - "$WORK/dump" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
recs = [r for r in recs if "seq" in r]
blocks = {}
for i, r in enumerate(recs):
    if r["block_id"]:
        blocks.setdefault(r["block_id"], []).append((i, r))
def check(what, cond):
    print(("ok - " if cond else "not ok - ") + what)
check(f"20 blocks with distinct ids reached the ring (saw {len(blocks)})", len(blocks) == 20)
whole = all(len(lines) == 5 and
            [i for i, _ in lines] == list(range(lines[0][0], lines[0][0] + 5)) and
            [r["seq"] for _, r in lines] == list(range(lines[0][1]["seq"], lines[0][1]["seq"] + 5))
            for lines in blocks.values())
check("each block's 5 lines are adjacent with consecutive sequence numbers", whole)
check("each block's lines are in order",
      all([r["text"] for _, r in lines] == [f"kprint_test block line {k} of 5" for k in range(1, 6)]
          for lines in blocks.values()))
flood = sum(1 for r in recs if r["format"].startswith("kprint_test flood"))
check(f"the concurrent flood is in the ring too ({flood} records)", flood > 0)
PY
finish
