#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bridge=0 at load: no printk becomes a record (no backlog either), the
# stats say the bridge is off and count nothing; root switches it on at run
# time (records come), and off again (they stop).
. "$(dirname "$0")/../lib/lib.sh"

P=$PRINTK_TEST_PARAMS
BRIDGE=/sys/module/kprint/parameters/bridge

reload_kprint bridge=0 || { not_ok "insmod kernel/kprint.ko bridge=0"; finish; }
check_eq "the bridge parameter reads N" "$(cat $BRIDGE)" N
check_eq "kprint stats: bridge 0" "$(stat bridge)" 0
check_eq "no backlog taken" "$(stat bridge_backlog)" 0

start_monitor
wait_subscribers 1 || finish
load_printk_test_module
echo 1 >$P/table && echo 1 >$P/dev && echo 1 >$P/hexdump
echo "<6>kprint bridge-off: a /dev/kmsg line" >/dev/kmsg
# A kprint record of its own after them: the monitor has seen everything
# once it has that.
seq=$(kprint emit --level info "kprint bridge-off end %d" 1)
wait_for "the monitor has the end record" grep -q "\"seq\": *$seq\b" "$WORK/monitor.json"
kill -INT $monitor
wait $monitor
check_eq "the monitor stops with status 0" $? 0
check_eq "the monitor got no printk record" "$(grep -c '"source": *"printk"' "$WORK/monitor.json")" 0
check "and the kprint record" grep -q '"format": *"kprint bridge-off end %d"' "$WORK/monitor.json"
check "the messages are in the kernel log all the same" \
	eval 'dmesg | grep -q "kprint_printk_test: after no newline x"'
for s in bridged bridge_skipped bridge_backlog bridge_dropped_nmi bridge_dropped_recursion \
	bridge_dropped_scratch bridge_missed; do
	check_eq "kprint stats: $s 0" "$(stat $s)" 0
done
check_eq "the kernel stored one record (the emitted one)" "$(stat records)" 1

# Root switches it on at run time: the table comes as records.
size=$(grep -c '"trigger": "table"' $PRINTK_TEST_DEBUGFS/expected)
echo 1 >$BRIDGE
check_eq "on at run time: the parameter reads Y" "$(cat $BRIDGE)" Y
check_eq "and kprint stats: bridge 1" "$(stat bridge)" 1
echo 1 >$P/table
on=$(stat bridged)
check "the table is bridged ($on >= $size records)" [ "$on" -ge "$size" ]
echo 0 >$BRIDGE
check_eq "off again: kprint stats: bridge 0" "$(stat bridge)" 0
off=$(stat bridged)
echo 1 >$P/table
check_eq "and nothing more is bridged" "$(stat bridged)" "$off"
check_fails_with "bridge takes a boolean only" "Invalid argument" \
	eval 'echo maybe >'$BRIDGE
finish
