#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint.ko loaded and unloaded 20 times (500 in make soak;
# KPRINT_RELOAD_CYCLES sets it) under a
# live `kprint monitor` and a running exporter, one record emitted in
# each life: both see every record exactly once and every unload and
# load, the exporter counts every reload, the BPF hook every record, and
# nobody is restarted.  (The console is scanned for splats by tests/vm/suite.)
. "$(dirname "$0")/../lib/lib.sh"

CYCLES=${KPRINT_RELOAD_CYCLES:-$(sized 20 500)}
FMT="kprint reload cycle %d"

start_monitor
start_exporter --listen 127.0.0.1:$PORT || finish
wait_subscribers 2 || finish
counts_before

failed=0
for ((c = 1; c <= CYCLES; c++)); do
	kprint emit --level info "$FMT" "$c" >/dev/null &&
		rmmod kprint && insmod kernel/kprint.ko $KPRINT_MODPARAMS || { failed=$c; break; }
done
check_eq "$CYCLES cycles of emit, rmmod, insmod" $failed 0
echo "# reload-cycles: $((c - 1)) reload cycles done"

# The last life's record, then wait until both readers have it.
kprint emit --level info "$FMT" $((CYCLES + 1)) >/dev/null
if ! WAIT_SECONDS=120 wait_for "both readers have the last life's record" eval \
	'received_is $((received0 + CYCLES + 1)) &&
	 grep -q "\"args\":\[\"$((CYCLES + 1))\"\]" "$WORK/monitor.json"'; then
	echo "# exporter: $(tail -n 5 "$WORK/exporter.err")" >&2
	echo "# monitor: $(tail -n 5 "$WORK/monitor.err"; tail -n 3 "$WORK/monitor.json")" >&2
fi
get /metrics >/dev/null
check_eq "the exporter received one record per life" \
	$(($(metric kprint_exporter_records_received_total) - received0)) $((CYCLES + 1))
check_eq "and counted every reload" "$(metric kprint_exporter_module_reloads_total)" $CYCLES
check_eq "the BPF hook counted every record" \
	$(($(metric 'kprint_bpf_messages_total{source="kprint"}') - bpf0)) $((CYCLES + 1))
for reason in overwritten missing; do
	check_eq "the exporter lost nothing ($reason)" \
		"$(metric "kprint_exporter_records_lost_total{reason=\"$reason\"}")" 0
done
check_eq "/healthz is 200" "$(get /healthz)" 200
check_eq "/records holds the last life's record only" \
	"$(get '/records?q=reload%20cycle' >/dev/null; $PY -c 'import json, sys
print([r["args"] for r in json.load(open(sys.argv[1]))])' "$WORK/body")" "[['$((CYCLES + 1))']]"

kill -INT $monitor
wait $monitor
check_eq "the monitor stops with status 0" $? 0
$PY - "$WORK/monitor.json" "$CYCLES" <<'PY'
import json, sys
path, cycles = sys.argv[1], int(sys.argv[2])
lines = [json.loads(l) for l in open(path)]
args = [int(o["args"][0]) for o in lines if o.get("format") == "kprint reload cycle %d"]
events = [o["module"] for o in lines if "seq" not in o and "module" in o]
lost = [o for o in lines if "lost" in o]
print(("ok" if args == list(range(1, cycles + 2)) else "not ok") +
      f" - the monitor showed each life's record once, in order (got {len(args)})")
print(("ok" if events == ["unloaded", "loaded"] * cycles else "not ok") +
      f" - and {cycles} unloads and loads, alternating (got {len(events)})")
print(("ok" if not lost else "not ok") + f" - and no loss ({lost[:2]})")
PY
stop_exporter "the exporter stops with status 0"
finish
