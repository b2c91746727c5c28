#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint_exporter killed with SIGKILL in the middle of a burst and started
# again: the in-kernel BPF counts (pinned maps and links) neither stop nor
# restart nor double: after the restart each table format has been counted
# exactly once per emission, and there is still exactly one link per hook.
. "$(dirname "$0")/../lib/lib.sh"

PIN=/sys/fs/bpf/kprint
K=40
load_test_module
size=$(cat $TEST_PARAMS/table_size)

# links: BPF links in the kernel (in this guest, only kprint's counters).
links() {
	bpftool -j link show | $PY -c 'import json, sys; print(len(json.load(sys.stdin)))'
}

start_exporter --listen 127.0.0.1:$PORT || finish
get /metrics >/dev/null
bpf0=$(metric 'kprint_bpf_messages_total{source="kprint"}')
links0=$(links)
check "the counter programs are linked ($links0 links)" [ "$links0" -ge 1 ]

# The burst runs while the exporter dies.
echo $K >$TEST_PARAMS/emit &
burst=$!
kill -KILL $exporter
wait $exporter 2>/dev/null
wait $burst
check_eq "the burst of $K tables finished" $? 0
check "the pins outlived the exporter" test -e $PIN/kprint_formats -a -e $PIN/kprint_record_link

start_exporter --listen 127.0.0.1:$PORT || finish
get /metrics >/dev/null
check_eq "the BPF hook counted the whole burst, once" \
	$(($(metric 'kprint_bpf_messages_total{source="kprint"}') - bpf0)) $((K * size))
check_eq "the restart reused the links rather than adding any" "$(links)" "$links0"
$PY - "$WORK/body" $K <<'PY'
import re, sys
path, want = sys.argv[1], int(sys.argv[2])
counts = {}
for line in open(path, encoding="utf-8"):
    m = re.match(r'^kprint_format_messages_total\{source="kprint",.*module="kprint_test",'
                 r'format="kprint_test no args"\} (\d+)$', line.rstrip("\n"))
    if m:
        counts[line] = int(m.group(1))
total = sum(counts.values())
print(("ok" if total == want else "not ok") +
      f" - 'kprint_test no args' counted {want} times, once per emission (got {total})")
PY
stop_exporter "the restarted exporter stops with status 0"
finish
