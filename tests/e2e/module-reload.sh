#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint.ko unloaded and loaded again under a live `kprint monitor` and a
# running kprint_exporter: a burst stored just before the unload reaches
# both in full, before they hear the family go; both report the unload,
# follow the new instance from its first record without being restarted,
# even when records are emitted before they re-joined; the exporter keeps
# serving throughout, says so in /healthz and /metrics, and the BPF counts
# go on across the reload.
. "$(dirname "$0")/../lib/lib.sh"

K1=20	# table emissions right before the unload
K2=3	# table emissions right after the load
load_test_module
size=$(cat $TEST_PARAMS/table_size)

monitor_has() { grep -qF "$1" "$WORK/monitor.json"; }

start_monitor
start_exporter --listen 127.0.0.1:$PORT || finish
wait_subscribers 2 || finish

counts_before
first1=$(stat next_seq)

# A burst, then the unload at once: whatever the notification worker had
# not sent yet must still go out before the family is unregistered.
next1=$((first1 + K1 * size))
echo $K1 >$TEST_PARAMS/emit && rmmod kprint_test && rmmod kprint
check_eq "emit $K1 tables, then rmmod kprint_test and kprint at once" $? 0

wait_for "the monitor reports the unload" monitor_has '{"module":"unloaded"'
wait_for "the exporter got the whole burst" received_is $((received0 + next1 - first1))

$PY - "$WORK/monitor.json" "$first1" "$next1" <<'PY' || not_ok "monitor output before the unload"
import json, sys
path, first, nxt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = [json.loads(l) for l in open(path)]
end = next(i for i, o in enumerate(lines) if o.get("module") == "unloaded")
seqs = [o["seq"] for o in lines[:end] if "seq" in o]
others = [o for o in lines[:end] if "seq" not in o]
print(("ok" if seqs == list(range(first, nxt)) else "not ok") +
      f" - the monitor showed every record {first}..{nxt - 1} before the unload, in order, once"
      f" (got {len(seqs)}, {seqs[:1]}..{seqs[-1:]})")
print(("ok" if not others else "not ok") + f" - and reported nothing lost ({others[:2]})")
print(("ok" if lines[end] == {"module": "unloaded", "next_seq": nxt} else "not ok") +
      f" - the unload line names next_seq {nxt} ({lines[end]})")
PY

check_eq "/healthz says 503 while kprint.ko is away" "$(get /healthz)" 503
check "and why" grep -q "not loaded" "$WORK/body"
get /metrics >/dev/null
check_eq "kprint_module_loaded is 0" "$(metric kprint_module_loaded)" 0
check_eq "kprint_kernel_up is 0" "$(metric kprint_kernel_up)" 0
check_eq "/records still serves the old records" "$(get '/records?limit=1')" 200

# Load again and emit at once, without waiting for anybody to re-join:
# what the subscribers miss as notifications they read from the new ring.
check "insmod kprint.ko again" insmod kernel/kprint.ko $KPRINT_MODPARAMS
load_test_module
echo $K2 >$TEST_PARAMS/emit || not_ok "emit the table $K2 times"
next2=$(stat next_seq)
first2=$(kprint stats --json | $PY -c 'import json, sys; s = json.load(sys.stdin); print(s["next_seq"] - s["records"])')
check_eq "the new instance numbers from 1" "$first2" 1

wait_for "the monitor shows the new instance's last record" \
	monitor_has "\"seq\":$((next2 - 1)),"
wait_for "the exporter counts the new records" \
	received_is $((received0 + next1 - first1 + next2 - first2))

$PY - "$WORK/monitor.json" "$first2" "$next2" <<'PY' || not_ok "monitor output after the load"
import json, sys
path, first, nxt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = [json.loads(l) for l in open(path)]
start = next(i for i, o in enumerate(lines) if o.get("module") == "loaded")
print(("ok" if lines[start] == {"module": "loaded", "first_seq": first} else "not ok") +
      f" - the load line names first_seq {first} ({lines[start]})")
seqs = [o["seq"] for o in lines[start + 1:] if "seq" in o]
print(("ok" if seqs == list(range(first, nxt)) else "not ok") +
      f" - then every record of the new instance {first}..{nxt - 1}, once (got {len(seqs)})")
PY
check "every monitor line matches schema/record.schema.json" \
	$PY tests/lib/validate_json.py <"$WORK/monitor.json"

check_eq "/healthz is 200 again" "$(get /healthz)" 200
check_eq "/records answers" "$(get '/records?limit=1000')" 200
$PY - "$WORK/body" "$first2" "$next2" <<'PY' || not_ok "/records after the load"
import json, sys
recs = json.load(open(sys.argv[1]))
first, nxt = int(sys.argv[2]), int(sys.argv[3])
seqs = [r["seq"] for r in recs]
print(("ok" if seqs == list(range(first, nxt)) else "not ok") +
      f" - /records holds exactly the new instance's records (got {len(seqs)}: {seqs[:1]}..{seqs[-1:]})")
PY
get /metrics >/dev/null
check_eq "kprint_module_loaded is 1" "$(metric kprint_module_loaded)" 1
check_eq "kprint_exporter_module_reloads_total is 1" \
	"$(metric kprint_exporter_module_reloads_total)" 1
check_eq "kprint_kernel_records_total is the new instance's count" \
	"$(metric kprint_kernel_records_total)" $((next2 - first2))
check_eq "the BPF hook counted on across the reload" \
	"$(metric 'kprint_bpf_messages_total{source="kprint"}')" \
	$((bpf0 + next1 - first1 + next2 - first2))
for reason in overwritten missing; do
	check_eq "nothing lost ($reason)" \
		"$(metric "kprint_exporter_records_lost_total{reason=\"$reason\"}")" 0
done

check "the monitor is still running" kill -0 $monitor
kill -INT $monitor
wait $monitor
check_eq "SIGINT stops the monitor with status 0" $? 0
check "the monitor said so on stderr" grep -q "loaded again" "$WORK/monitor.err"
stop_exporter
check "the exporter logged the unload and the load" \
	grep -q "loaded again" "$WORK/exporter.err"
finish
