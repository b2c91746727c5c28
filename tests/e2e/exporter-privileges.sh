#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint_exporter gives up its privileges once it is set up: every thread
# runs with no effective capability, only CAP_SYS_ADMIN stays permitted
# (libkpc raises it around the calls the kernel checks against the caller:
# dumps, stats, re-joining the group after a reload), the bounding set holds
# nothing else and no_new_privs is set.  It listens on 127.0.0.1 only by
# default.
# And it still does its whole job without them: /metrics with the BPF
# counters and the module's counters, /records, a resync from the ring after
# its socket overran (a dump, which the kernel checks against the caller's
# capabilities), and following kprint.ko through a reload.
. "$(dirname "$0")/../lib/lib.sh"

SYS_ADMIN=0000000000200000	# 1 << CAP_SYS_ADMIN (21)
K=40	# table emissions in the burst

# A ring that certainly holds the whole burst: nothing is lost for good.
reload_kprint ring_size=$((16 << 20))
check_eq "kprint.ko loaded with a 16 MiB ring" $? 0
load_test_module
size=$(cat $TEST_PARAMS/table_size)

# caps_of PID: "CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs" of every
# thread, one line each.
caps_of() {
	local t
	for t in /proc/"$1"/task/*; do
		awk '/^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):/ { printf "%s ", $2 }
			END { print "" }' "$t/status"
	done
}

# check_caps WHEN: the exporter's threads hold what they should.
check_caps() {
	local lines n bad
	lines=$(caps_of $exporter)
	n=$(wc -l <<<"$lines")
	bad=$(grep -vxF "0000000000000000 $SYS_ADMIN 0000000000000000 $SYS_ADMIN 0000000000000000 1 " <<<"$lines")
	check_eq "$1: all $n threads have CapEff 0, CapPrm and CapBnd only CAP_SYS_ADMIN, no inheritable or ambient, NoNewPrivs 1" \
		"$bad" ""
	[ "$n" -ge 6 ] || not_ok "$1: the exporter has its threads (main, ingest, watchdog, 4 HTTP; saw $n)"
}

# The default address: no --listen.
start_exporter --rcvbuf 4096 --records 100000 || finish
wait_subscribers 1 || finish

check_caps "after setup"
listening=$(ss -Hltnp | grep "pid=$exporter," | awk '{ print $4 }' | sort)
check_eq "it listens on 127.0.0.1:9464 and nowhere else by default" "$listening" "127.0.0.1:$PORT"

# Its whole job, without privileges.
get /metrics >/dev/null
received0=$(metric kprint_exporter_records_received_total)
resyncs0=$(metric kprint_exporter_resyncs_total)
first=$(stat next_seq)
# Stopped while the burst comes, the exporter's 4 KiB socket overruns (one
# that drains fast enough may not, otherwise), and is let go once it has:
# it must re-read the ring without capabilities once it runs again.
drops=$(netlink_drops $exporter)
kill -STOP $exporter
echo $K >$TEST_PARAMS/emit || not_ok "emit the table $K times"
wait_for "the stopped exporter's socket overruns" netlink_dropped_more $exporter "$drops"
kill -CONT $exporter
next=$(stat next_seq)
want=$((received0 + next - first))
wait_for "the exporter receives the burst" received_is $want
check_eq "with a 4 KiB buffer, a burst of $((next - first)) records all arrive" \
	"$(metric kprint_exporter_records_received_total)" $want
check "its socket overran and it re-read the ring, without capabilities" \
	[ "$(metric kprint_exporter_resyncs_total)" -gt "$resyncs0" ]
check_eq "nothing lost" "$(metric 'kprint_exporter_records_lost_total{reason="overwritten"}')/$(metric 'kprint_exporter_records_lost_total{reason="missing"}')" 0/0
check_eq "kprint_kernel_up is 1: the module's counters read without capabilities" \
	"$(metric kprint_kernel_up)" 1
check_eq "kprint_kernel_records_total is the module's count" \
	"$(metric kprint_kernel_records_total)" "$(stat records)"
check_eq "kprint_bpf_up is 1" "$(metric kprint_bpf_up)" 1
check "the BPF per-format counters read without capabilities" \
	grep -q '^kprint_format_messages_total{source="kprint",.*module="kprint_test"' "$WORK/body"
check_eq "/records answers" "$(get "/records?after=$((next - 2))")" 200
check "with the burst's last record" grep -q "\"seq\":$((next - 1))," "$WORK/body"
check_caps "after serving"

# A reload: re-joining the group is the one thing CAP_SYS_ADMIN is kept for.
reload_kprint ring_size=$((16 << 20))
check_eq "kprint.ko unloaded and loaded again" $? 0
wait_for "/healthz is 200 again after the reload" healthy
wait_subscribers 1
kprint emit --level info "after the reload, caps dropped %d" 42 >/dev/null ||
	not_ok "kprint emit after the reload"
wait_for "the exporter shows a record of the new instance" \
	eval 'get "/records?q=caps%20dropped" >/dev/null; grep -q "after the reload, caps dropped 42" "$WORK/body"'
get /metrics >/dev/null
check_eq "kprint_exporter_module_reloads_total is 1" "$(metric kprint_exporter_module_reloads_total)" 1
check_eq "and the new module's counters read (kprint_kernel_up 1)" "$(metric kprint_kernel_up)" 1
check_caps "after the reload"

stop_exporter "SIGTERM stops it with status 0"
if grep -qi "permission\|not permitted" "$WORK/exporter.err"; then
	not_ok "its log tells of no permission error: $(grep -i "permission\|not permitted" "$WORK/exporter.err" | head -3)"
else
	ok "its log tells of no permission error"
fi
finish
