#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint_exporter with its receive buffer forced tiny (--rcvbuf 4096) and a
# burst far larger than that: the socket overruns, the exporter re-reads
# the ring, and in the end it has received exactly the emitted records,
# each once and in order, with its lost-records metric at 0 because the
# ring (16 MiB here) held them all.
. "$(dirname "$0")/../lib/lib.sh"

K=100	# table emissions in the burst

# A ring that certainly holds the whole burst.
reload_kprint ring_size=$((16 << 20))
check_eq "kprint.ko reloaded with a 16 MiB ring" $? 0
load_test_module
size=$(cat $TEST_PARAMS/table_size)

start_exporter --listen 127.0.0.1:$PORT --rcvbuf 4096 --records 100000 || finish
wait_subscribers 1 || finish

get /metrics >/dev/null
received0=$(metric kprint_exporter_records_received_total)
resyncs0=$(metric kprint_exporter_resyncs_total)
bpf0=$(metric 'kprint_bpf_messages_total{source="kprint"}')
first=$(stat next_seq)

echo $K >$TEST_PARAMS/emit || not_ok "emit the table $K times"
next=$(stat next_seq)
check_eq "the burst stored $((K * size)) records" $((next - first)) $((K * size))

want=$((received0 + next - first))
WAIT_SECONDS=120 wait_for "the exporter receives the burst" \
	eval '[ "$(scrape kprint_exporter_records_received_total)" -ge $want ]'
check_eq "the exporter received every record of the burst" \
	"$(metric kprint_exporter_records_received_total)" $want
resyncs=$(metric kprint_exporter_resyncs_total)
check "its socket overran and it re-read the ring ($((resyncs - resyncs0)) resyncs)" \
	[ "$resyncs" -gt "$resyncs0" ]
for reason in overwritten missing; do
	check_eq "lost ($reason) is 0: the ring held them all" \
		"$(metric "kprint_exporter_records_lost_total{reason=\"$reason\"}")" 0
done
check_eq "the BPF hook counted the burst" \
	"$(metric 'kprint_bpf_messages_total{source="kprint"}')" $((bpf0 + next - first))
check_eq "kprint_kernel_overwritten_total is 0" \
	"$(metric kprint_kernel_overwritten_total)" 0

# Page through the burst with after=: each record once, in order.
after=$((first - 1))
: >"$WORK/seqs"
for ((page = 0; page < 1000; page++)); do
	[ "$(get "/records?after=$after&limit=1000")" = 200 ] || { not_ok "page after $after"; break; }
	$PY -c 'import json, sys
for r in json.load(open(sys.argv[1])): print(r["seq"])' "$WORK/body" >"$WORK/page"
	[ -s "$WORK/page" ] || break
	cat "$WORK/page" >>"$WORK/seqs"
	after=$(tail -n 1 "$WORK/page")
done
check_eq "/records pages hold seqs $first..$((next - 1)), each once" \
	"$(md5sum <"$WORK/seqs")" "$(seq "$first" $((next - 1)) | md5sum)"

stop_exporter
check "the exporter said it overran" grep -q "socket overrun" "$WORK/exporter.err"
finish
