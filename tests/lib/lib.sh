# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the end-to-end tests, which run as root inside the guest
# (tests/vm/run, tests/vm/suite) from the checkout's root.  Each check
# prints one TAP-style line, "ok - what" or "not ok - what"; finish exits
# non-zero on a failure.  tests/lib/lib.py is the Python counterpart.
#
# Every process start costs tens of milliseconds in the emulated guest
# (a Python start, most of a second), so what runs often here is shell.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# What kprint.ko was loaded with for this test (tests/vm/suite), for the
# tests that load it again themselves.
KPRINT_MODPARAMS=${KPRINT_MODPARAMS-${KPRINT_VM_MODPARAMS:-}}
TEST_MODULE=kernel/test/kprint_test.ko
TEST_PARAMS=/sys/module/kprint_test/parameters
PY=/usr/bin/python3
WORK=$(mktemp -d)
PORT=${PORT:-9464}		# the exporter's, on the guest's loopback
URL=http://127.0.0.1:$PORT
exporter=			# the pid start_exporter started

# kmsg_mark TEXT: writes TEXT as a line of the printk ring and prints its
# seq.  /dev/kmsg is read from its end, written, then read on to the line:
# under a printk stream, a reader from the ring's start meets records
# overwritten under it (EPIPE) and may never get to the line.
kmsg_mark() {
	$PY - "$1" <<'PYEOF'
import os, sys
text = sys.argv[1]
fd = os.open("/dev/kmsg", os.O_RDWR | os.O_NONBLOCK)
os.lseek(fd, 0, os.SEEK_END)
os.write(fd, (text + "\n").encode())
while True:
    try:
        rec = os.read(fd, 8192).decode("utf-8", "replace")
    except BrokenPipeError:
        continue	# overwritten meanwhile: read on from the oldest kept
    except BlockingIOError:
        break		# read to the end: the line itself was overwritten
    head, _, body = rec.partition(";")
    if body.split("\n", 1)[0] == text:
        print(head.split(",")[1])
        break
PYEOF
}

# check_fails_with WHAT PATTERN CMD...: CMD fails and says PATTERN.
check_fails_with() {
	local what=$1 pattern=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qiE -- "$pattern" <<<"$out"; then
		ok "$what"
	else
		not_ok "$what (status $rc, output: $(head -c 300 <<<"$out"))"
	fi
}

finish() {
	rm -rf "$WORK"
	[ "$KPRINT_FAILS" -eq 0 ]
	exit $?
}

# sized CI SOAK: the size of a loop, CI in make check, SOAK in make soak
# (KPRINT_SOAK=1).  A sized test asserts that what it exists to provoke
# (an overrun, an overwrite, a reload...) really happened at its size, and
# prints the count, so that a size too small fails instead of passing.
sized() {
	if [ "${KPRINT_SOAK:-0}" = 1 ]; then echo "$2"; else echo "$1"; fi
}

# wait_for WHAT CMD...: poll CMD until it succeeds, for at most
# $WAIT_SECONDS (60) of wall time: a curl alone can take seconds in the
# emulated guest.  Like the selftests' busywait.
WAIT_SECONDS=${WAIT_SECONDS:-60}
wait_for() {
	local what=$1 end=$((SECONDS + WAIT_SECONDS))
	shift
	while :; do
		"$@" && return 0
		((SECONDS < end)) || break
		sleep 0.01
	done
	not_ok "$what within $WAIT_SECONDS s"
	return 1
}

load_test_module() {
	insmod "$TEST_MODULE" "$@" || { not_ok "insmod $TEST_MODULE"; finish; }
}

# reload_kprint PARAMS...: kprint.ko unloaded (kprint_test with it) and
# loaded again with PARAMS.
reload_kprint() {
	if [ -d /sys/module/kprint_test ]; then rmmod kprint_test || return 1; fi
	# shellcheck disable=SC2086
	rmmod kprint && insmod kernel/kprint.ko $KPRINT_MODPARAMS "$@"
}

# stat NAME: one counter of `kprint stats --json`.
stat() {
	local out
	out=$(kprint stats --json)
	[[ $out =~ \"$1\":\ *([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

# netlink_drops PID: the datagrams dropped on PID's generic netlink sockets
# because they were full, from /proc/net/netlink (Eth 16; Drops and Inode
# its last two columns).  kprint's mcast_failed does not tell: a broadcast
# tells its sender of an overrun only for NETLINK_BROADCAST_ERROR sockets.
netlink_drops() {
	local inodes
	inodes=$(find "/proc/$1/fd" -lname 'socket:*' -printf '%l ' 2>/dev/null | tr -dc '0-9 ')
	awk -v list=" $inodes " '$2 == 16 && index(list, " " $10 " ") { n += $9 }
		END { print n + 0 }' /proc/net/netlink
}

# netlink_dropped_more PID N: whether PID's sockets dropped more than N.
netlink_dropped_more() { [ "$(netlink_drops "$1")" -gt "$2" ]; }

# The id of the kprint "records" group, from the genetlink controller.
records_group_id() {
	genl ctrl get name kprint | sed -n 's/.*ID-\(0x[0-9a-f]*\) *name: records.*/\1/p'
}

# subscribers: how many sockets have joined the records group.  Membership
# is visible in /proc/net/netlink (Groups is the bitmap of groups 1..32).
subscribers() {
	local bit=$1 n=0 eth groups
	while read -r _ eth _ groups _; do
		[ "$eth" = 16 ] && (( 16#$groups & bit )) && n=$((n + 1))
	done < <(tail -n +2 /proc/net/netlink)
	echo $n
}

# wait_subscribers N: wait until N sockets have joined the records group,
# so that what is emitted next is certainly seen by them.
wait_subscribers() {
	local bit
	bit=$((1 << ($(records_group_id) - 1)))
	WAIT_SECONDS=30 wait_for "$1 subscriber(s) joined the records group" \
		eval '[ "$(subscribers '$bit')" -ge '"$1"' ]'
}

# notified: how many records the notification worker has dealt with since
# load (sent, failed or skipped).
notified() {
	local out sum=0 f
	out=$(kprint stats --json)
	for f in mcast_sent mcast_failed mcast_skipped; do
		[[ $out =~ \"$f\":\ *([0-9]+) ]] && sum=$((sum + BASH_REMATCH[1]))
	done
	echo $sum
}

# wait_notified TOTAL: wait until notified reaches TOTAL, so that a stopped
# reader's socket has certainly been offered every record.
wait_notified() {
	WAIT_SECONDS=30 wait_for "the kernel notified $1 records" eval '[ "$(notified)" -ge '"$1"' ]'
}

# get PATH [CURL ARGS...]: GET $URL$PATH; the body in $WORK/body, the
# headers in $WORK/headers, the HTTP status on stdout.
get() {
	local path=$1
	shift
	curl -s -g --max-time 30 -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' "$@" "$URL$path"
}

# metric NAME_AND_LABELS [FILE]: one sample's value from a /metrics page
# (the last get's body by default), "absent" when there is none.
metric() {
	awk -v want="$1" '{ v = $NF; sub(/ [^ ]*$/, "") } $0 == want { print v; f = 1; exit }
		END { if (!f) print "absent" }' "${2:-$WORK/body}"
}

# scrape NAME_AND_LABELS: GET /metrics, then that sample's value.
scrape() {
	get /metrics >/dev/null
	metric "$1"
}

# received_is N: the exporter's received-records counter is N.
received_is() {
	[ "$(scrape kprint_exporter_records_received_total)" = "$1" ]
}

# healthy: /healthz answers 200.
healthy() {
	[ "$(get /healthz 2>/dev/null)" = 200 ]
}

# start_exporter [ARGS...]: kprint_exporter ARGS in the background, its
# stderr appended to $WORK/exporter.err, its pid in $exporter; checks that
# /healthz comes to answer 200 within $WAIT_SECONDS.
start_exporter() {
	local end=$((SECONDS + WAIT_SECONDS))
	kprint_exporter "$@" 2>>"$WORK/exporter.err" &
	exporter=$!
	until healthy; do
		if ! kill -0 "$exporter" 2>/dev/null || ((SECONDS >= end)); then
			not_ok "the exporter answers /healthz ($(tail -n 3 "$WORK/exporter.err"))"
			return 1
		fi
		sleep 0.01
	done
	ok "the exporter answers /healthz"
}

# start_monitor [ARGS...]: `kprint monitor --json ARGS` in the background,
# its lines in $WORK/monitor.json, its stderr in $WORK/monitor.err, its pid
# in $monitor.
start_monitor() {
	kprint monitor --json "$@" >"$WORK/monitor.json" 2>"$WORK/monitor.err" &
	monitor=$!
}

# counts_before: $received0 and $bpf0, the exporter's received records and
# the BPF hook's kprint count now, that a test compares with later.
counts_before() {
	get /metrics >/dev/null
	received0=$(metric kprint_exporter_records_received_total)
	bpf0=$(metric 'kprint_bpf_messages_total{source="kprint"}')
}

# stop_exporter [WHAT]: SIGTERM, and its exit status must be 0.
stop_exporter() {
	kill -TERM "$exporter"
	wait "$exporter"
	check_eq "${1:-SIGTERM stops the exporter with status 0}" $? 0
	exporter=
}

# The printk bridge's tests: kprint_printk_test.ko makes known printk()
# calls (kernel/test/kprint_printk_test.c); its expected table is in
# debugfs, mounted here if it is not (tests/vm/suite unmounts it after).
PRINTK_TEST_MODULE=kernel/test/kprint_printk_test.ko
PRINTK_TEST_PARAMS=/sys/module/kprint_printk_test/parameters
PRINTK_TEST_DEBUGFS=/sys/kernel/debug/kprint_printk_test
load_printk_test_module() {
	{ mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; } &&
		insmod "$PRINTK_TEST_MODULE" "$@" || { not_ok "insmod $PRINTK_TEST_MODULE"; finish; }
}
