#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run gives it a lane, a core, of its own)
#
# What `make run` promises, checked from the host: the guest's exporter is
# reachable through the forward on 127.0.0.1 and serves the demo's per-format
# counters.  Boots tests/vm/run --forward FREEPORT:9464 with the same
# scripts/run-demo that `make run` uses, told to stop by a file instead of
# Ctrl-C, so that the guest also shuts down cleanly and the run's status
# (and its splat check) count.  Every wait has a deadline; qemu never
# outlives the test.
set -u
cd "$(dirname "$0")/../../.." || exit 1
repo=$(pwd)

BOOT_TIMEOUT=300	# from start to the demo's counters on the host
STOP_TIMEOUT=120	# from the stop file to the guest's poweroff
VM_TIMEOUT=$((BOOT_TIMEOUT + STOP_TIMEOUT + 60))	# tests/vm/run's own bound

. tests/lib/tap.sh

for f in kernel/kprint.ko kernel/demo/kprint_demo.ko .output/bin/kprint_exporter; do
	[ -f "$f" ] || { not_ok "$f is built (make)"; exit 1; }
done

# Under .output, not /tmp: the guest sees the host's root (read-only) but
# has its own tmpfs on /tmp, and has to see the stop file appear.
work=$(mktemp -d "$repo/.output/make-run-forward.XXXXXX") || exit 1
log=$work/run.log
vm=
qemu=
cleanup() {
	if [ -n "$vm" ] && kill -0 "$vm" 2>/dev/null; then
		# tests/vm/run's own trap kills its qemu on SIGTERM.
		kill -TERM "$vm" 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			kill -0 "$vm" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$vm" 2>/dev/null
	fi
	[ -n "$qemu" ] && kill -KILL "$qemu" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# start: boot the demo guest in the background on a free port.  Another
# program may take the port between our probe and QEMU's bind; QEMU then
# exits at once and we try another one.
start() {
	local _
	for _ in 1 2 3; do
		port=$(free_port) || return 1
		tests/vm/run --timeout $VM_TIMEOUT --forward "$port:9464" -- \
			scripts/run-demo --stop-file "$work/stop" >"$log" 2>&1 &
		vm=$!
		# QEMU is a child of tests/vm/run: remember it in case that dies.
		for ((i = 0; i < 100; i++)); do
			qemu=$(ps -o pid=,comm= --ppid "$vm" | awk '/qemu-system/ {print $1}')
			[ -n "$qemu" ] && break
			kill -0 "$vm" 2>/dev/null || break
			sleep 0.1
		done
		for ((i = 0; i < 20; i++)); do
			kill -0 "$vm" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$vm" 2>/dev/null && return 0
		grep -q 'Could not set up host forwarding' "$log" || return 1
		wait "$vm"
		vm=''
		qemu=''
	done
	return 1
}

if ! start; then
	not_ok "tests/vm/run --forward PORT:9464 boots the demo"
	sed 's/^/# /' "$log" | tail -40
	exit 1
fi
echo "# guest booting, exporter forwarded to 127.0.0.1:$port"

# demo_counted METRICS_FILE: the demo's per-format series have come.  Label
# sets are parsed, not matched as text, so that more labels (or another
# order) do not matter.
demo_counted() {
	python3 - "$1" <<'PY'
import re, sys
series = re.compile(r'^kprint_format_messages_total\{(.*)\} (\d+)$')
label = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)",?')
counts = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = series.match(line.rstrip("\n"))
    if not m:
        continue
    labels = dict(label.findall(m.group(1)))
    if labels.get("source") == "kprint":
        key = labels.get("format")
        counts[key] = counts.get(key, 0) + int(m.group(2))
# The RFC's own example, made by kprint_demo's usb-storage source only, and
# the demo's copyright line, printed once when it is loaded.
usb = counts.get("cheesy flash drive detected at %d", 0)
copyright = counts.get("kprint demo traffic, copyright (c) %d %s", 0)
print(f"cheesy={usb} copyright={copyright}")
sys.exit(0 if usb > 0 and copyright == 1 else 1)
PY
}

start_time=$SECONDS
deadline=$((SECONDS + BOOT_TIMEOUT))
counted=0
got="no answer"
while :; do
	rm -f "$work/metrics"
	if curl -s --max-time 10 -o "$work/metrics" "http://127.0.0.1:$port/metrics" 2>/dev/null; then
		got=$(demo_counted "$work/metrics") && { counted=1; break; }
	fi
	kill -0 "$vm" 2>/dev/null || { got="$got, the guest stopped"; break; }
	[ $SECONDS -lt $deadline ] || break
	sleep 0.5
done
what="host: 127.0.0.1:$port/metrics has the demo's per-format counters"
if [ $counted = 1 ]; then
	ok "$what ($got, after $((SECONDS - start_time))s)"
else
	not_ok "$what ($got, after $((SECONDS - start_time))s)"
	sed 's/^/# /' "$log" | tail -40
	exit 1
fi

if grep -q "^kprint_format_messages_total{.*} [0-9]" "$work/metrics" &&
	promtool check metrics <"$work/metrics" >"$work/promtool" 2>&1; then
	ok "host: promtool check metrics accepts the forwarded /metrics"
else
	not_ok "host: promtool check metrics accepts the forwarded /metrics"
	sed 's/^/# promtool: /' "$work/promtool" | head -10
fi

curl -s --max-time 10 -o "$work/records" \
	"http://127.0.0.1:$port/records?q=cheesy&limit=5" 2>/dev/null
if python3 - "$work/records" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))
assert recs and all(r["format"] == "cheesy flash drive detected at %d" for r in recs), recs
PY
then
	ok "host: /records?q=cheesy through the forward returns the demo's records"
else
	not_ok "host: /records?q=cheesy through the forward returns the demo's records"
	head -c 300 "$work/records" | sed 's/^/# /'
fi

check_url() {
	if grep -qF "http://127.0.0.1:$port/$1" "$log"; then
		ok "the guest printed http://127.0.0.1:$port/$1"
	else
		not_ok "the guest printed http://127.0.0.1:$port/$1"
	fi
}
check_url metrics
check_url records
check_url formats
# The monitor's lines travel over the guest's serial port and may trail
# the HTTP answers: give them a bounded while.
for ((i = 0; i < 600; i++)); do
	grep -q 'usb-storage.*cheesy flash drive detected at' "$log" && break
	sleep 0.1
done
if grep -q 'usb-storage.*cheesy flash drive detected at' "$log"; then
	ok "kprint monitor shows the demo's records"
else
	not_ok "kprint monitor shows the demo's records"
fi

# The clean way out: run-demo unloads the demo, stops the monitor and the
# exporter, and the guest powers off with run-demo's status.
: >"$work/stop"
deadline=$((SECONDS + STOP_TIMEOUT))
while kill -0 "$vm" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
	sleep 0.2
done
if kill -0 "$vm" 2>/dev/null; then
	not_ok "the guest stops within ${STOP_TIMEOUT}s of the stop file"
else
	wait "$vm"
	rc=$?
	vm=
	if [ $rc -eq 0 ]; then
		ok "the guest stopped cleanly (exporter, monitor and demo unloaded, no splat)"
	else
		not_ok "the guest stopped cleanly (tests/vm/run status $rc)"
		sed 's/^/# /' "$log" | tail -40
	fi
fi
if [ -n "$qemu" ] && kill -0 "$qemu" 2>/dev/null; then
	not_ok "qemu ($qemu) is gone"
else
	ok "qemu is gone"
fi
tap_exit
