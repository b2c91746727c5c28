#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A steady rate of records with the exporter and a `kprint monitor`
# subscribed: nothing needs recovering.  Zero sequence gaps and overruns
# (the monitor reports them with -v), zero drops on any subscriber socket
# (/proc/net/netlink), and every count agrees exactly: what the monitor
# printed, what the exporter received, what the module stored, what the
# BPF hook counted.
#
# KPRINT_SUSTAINED_RATE (records/s, default 2000) and
# KPRINT_SUSTAINED_SECONDS (default 5 in make check, 120 in make soak) set
# the load; tests/load/knee.sh
# runs this at rising rates to find the highest one that holds.
. "$(dirname "$0")/../lib/lib.sh"

RATE=${KPRINT_SUSTAINED_RATE:-2000}
SECONDS_=${KPRINT_SUSTAINED_SECONDS:-$(sized 5 120)}
N=$((RATE * SECONDS_))
lsmod | grep -q '^kprint_test ' || load_test_module

# drops: the Drops column summed over the records group's members.
drops() {
	local id bit sum=0
	id=$(records_group_id)
	bit=$((1 << (id - 1)))
	while read -r _ eth _ groups _ _ _ _ drop _; do
		[ "$eth" = 16 ] && (( 16#$groups & bit )) && sum=$((sum + drop))
	done < <(tail -n +2 /proc/net/netlink)
	echo $sum
}

start_monitor -v
start_exporter --listen 127.0.0.1:$PORT || finish
wait_subscribers 2 || finish

counts_before
records0=$(stat records)
first=$(stat next_seq)
drops0=$(drops)

start=$(date +%s%N)
echo "$RATE:$SECONDS_" >$TEST_PARAMS/steady
check_eq "offered $RATE records/s for $SECONDS_ s" $? 0
took_ms=$((($(date +%s%N) - start) / 1000000))
check "the emitter kept the pace ($N records in $took_ms ms)" \
	[ $took_ms -lt $((SECONDS_ * 2000)) ]

# Everything was emitted; now wait for both readers to have it.
wait_for "both readers have every record" eval \
	'[ "$(scrape kprint_exporter_records_received_total)" -ge $((received0 + N)) ] &&
	 grep -q "\"seq\":$((first + N - 1))," "$WORK/monitor.json"'
get /metrics >/dev/null
check_eq "the module stored $N records" $(($(stat records) - records0)) $N
check_eq "the exporter received exactly them" \
	$(($(metric kprint_exporter_records_received_total) - received0)) $N
check_eq "the BPF hook counted exactly them" \
	$(($(metric 'kprint_bpf_messages_total{source="kprint"}') - bpf0)) $N
check_eq "the exporter resynced never" "$(metric kprint_exporter_resyncs_total)" 0
check_eq "no subscriber socket dropped a notification" $(($(drops) - drops0)) 0
check_eq "the kernel failed no multicast" "$(stat mcast_failed)" 0

kill -INT $monitor
wait $monitor
check_eq "the monitor stops with status 0" $? 0
check_eq "the monitor reported no gap, overrun or loss" "$(cat "$WORK/monitor.err")" ""
$PY - "$WORK/monitor.json" "$first" "$N" <<'PY'
import json, sys
path, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seqs, steady = [], 0
for line in open(path):
    o = json.loads(line)
    if "seq" in o:
        seqs.append(o["seq"])
        steady += o["format"] == "kprint_test steady %u"
want = list(range(first, first + n))
print(("ok" if seqs == want else "not ok") +
      f" - the monitor printed seqs {first}..{first + n - 1}, each once, in order (got {len(seqs)})")
print(("ok" if steady == n else "not ok") + f" - all {n} of them the steady records (got {steady})")
PY
stop_exporter "the exporter stops with status 0"
echo "# sustained: $RATE records/s for $SECONDS_ s held: $N records, 0 gaps, 0 drops" >&2
finish
