#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A subscriber whose socket buffer overflows (here: stopped with SIGSTOP
# while records flood) is told so and resyncs from the ring: with a ring
# large enough it still gets every record exactly once; with a ring too
# small, what it got plus what it was told it lost is exactly what was
# emitted.
. "$(dirname "$0")/../lib/lib.sh"

# overrun_run NAME N: a stopped monitor with a 4 KiB receive buffer while N
# records flood, then let it catch up.
overrun_run() {
	local name=$1 n=$2 first pid before
	first=$(stat next_seq)
	before=$(notified)
	# Nothing else emits: the flood is exactly first .. first + n - 1.
	kprint monitor -v --json --rcvbuf 4096 --until $((first + n - 1)) \
		>"$WORK/$name" 2>"$WORK/$name.err" &
	pid=$!
	wait_subscribers 1 || return 1
	kill -STOP $pid
	echo $n >$TEST_PARAMS/flood || not_ok "flood $n records"
	wait_notified $((before + n))
	kill -CONT $pid
	wait $pid || not_ok "$name: monitor failed: $(head -c 300 "$WORK/$name.err")"
	$PY - "$WORK/$name" "$first" "$n" "$name" <<'PY'
import json, sys
path, first, n, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
lines = [json.loads(l) for l in open(path)]
recs = [o["seq"] for o in lines if "seq" in o]
lost = [o for o in lines if "lost" in o]
covered = sorted(recs + [s for o in lost for s in range(o["first_seq"], o["last_seq"] + 1)])
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + f"{name}: {what}" + ("" if cond else f" ({detail})"))
check("no record delivered twice", len(recs) == len(set(recs)))
check("records are in sequence order", recs == sorted(recs))
check(f"received + reported lost == {n} emitted, no overlap",
      covered == list(range(first, first + n)), f"{len(recs)} received, {sum(o['lost'] for o in lost)} lost")
if name == "big-ring":
    check("with the ring holding everything, nothing is lost", not lost and len(recs) == n,
          f"{len(recs)} received, {len(lost)} loss reports")
else:
    check("with a small ring, loss is reported as overwritten",
          lost and all(o["reason"] == "overwritten" for o in lost), lost[:2])
PY
	# With the ring holding everything, the stopped reader's socket must
	# have overflowed; with a small one the worker may instead have
	# skipped what the ring overwrote before sending it (a gap).
	if [ "$name" = big-ring ]; then
		check "$name: with -v, the overrun is reported on stderr ($(grep -c 'overran' "$WORK/$name.err") reports)" \
			grep -q 'overran' "$WORK/$name.err"
	else
		check "$name: the loss is reported on stderr" grep -q 'lost' "$WORK/$name.err"
	fi
}

reload_kprint ring_size=4194304 printk=0 ||
	{ not_ok "reload kprint with a 4 MiB ring"; finish; }
load_test_module
overrun_run big-ring 5000

reload_kprint ring_size=65536 printk=0 ||
	{ not_ok "reload kprint with a 64 KiB ring"; finish; }
load_test_module
overrun_run small-ring 20000
finish
