# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the end-to-end tests, which run as root inside the guest
# (tests/vm/run) from the checkout's root.  Each check prints one TAP-style
# line, "ok - what" or "not ok - what"; finish exits non-zero on a failure.

set -u
KPRINT_FAILS=0
TEST_MODULE=kernel/test/kprint_test.ko
TEST_PARAMS=/sys/module/kprint_test/parameters
PY=/usr/bin/python3
WORK=$(mktemp -d)

ok() { echo "ok - $*"; }
not_ok() {
	echo "not ok - $*"
	KPRINT_FAILS=$((KPRINT_FAILS + 1))
}

# check WHAT CMD...: CMD's exit status decides.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# check_eq WHAT GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1 (got '$2', want '$3')"
	fi
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

load_test_module() {
	insmod "$TEST_MODULE" "$@" || { not_ok "insmod $TEST_MODULE"; finish; }
}

# stat NAME: one counter of `kprint stats --json`.
stat() {
	kprint stats --json | $PY -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}

# The id of the kprint "records" group, from the genetlink controller.
records_group_id() {
	genl ctrl get name kprint | sed -n 's/.*ID-\(0x[0-9a-f]*\) *name: records.*/\1/p'
}

# wait_subscribers N: wait until N sockets have joined the records group,
# so that what is emitted next is certainly seen by them.  Membership is
# visible in /proc/net/netlink (Groups is the bitmap of groups 1..32).
wait_subscribers() {
	local want=$1 id bit n i
	id=$(records_group_id)
	bit=$((1 << (id - 1)))
	for ((i = 0; i < 3000; i++)); do
		n=0
		while read -r _ eth _ groups _; do
			[ "$eth" = 16 ] && (( 16#$groups & bit )) && n=$((n + 1))
		done < <(tail -n +2 /proc/net/netlink)
		[ "$n" -ge "$want" ] && return 0
		sleep 0.01
	done
	not_ok "$want subscriber(s) joined the records group within 30 s (saw $n)"
	return 1
}

# notified: how many records the notification worker has dealt with since
# load (sent, failed or skipped).
notified() {
	kprint stats --json | $PY -c 'import json, sys
s = json.load(sys.stdin)
print(s["mcast_sent"] + s["mcast_failed"] + s["mcast_skipped"])'
}

# wait_notified TOTAL: wait until notified reaches TOTAL, so that a stopped
# reader's socket has certainly been offered every record.
wait_notified() {
	local want=$1 seen i
	for ((i = 0; i < 3000; i++)); do
		seen=$(notified)
		[ "$seen" -ge "$want" ] && return 0
		sleep 0.01
	done
	not_ok "the kernel notified $want records within 30 s (saw $seen)"
	return 1
}
