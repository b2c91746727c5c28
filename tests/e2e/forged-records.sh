#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A forged record unicast to kprint_exporter's subscription socket by
# another process is rejected and counted, never shown.  The forgery is a
# well-formed KPRINT_CMD_RECORD_NTF datagram, family id and all, claiming
# the very sequence number the kernel will give its next record, sent from
# a raw AF_NETLINK socket (tests/lib/kpnl.py's, independent of libkpc) to
# the port id that /proc/net/netlink lists for the exporter's socket.  The
# kernel stamps the sender's port id on it, the exporter drops whatever
# does not come from port 0: its text never reaches /records,
# kprint_exporter_forged_datagrams_total grows by exactly the number sent,
# and the real record with that sequence number still arrives.
. "$(dirname "$0")/../lib/lib.sh"

N=5	# forged datagrams
TOKEN=forged-$$-$RANDOM

start_exporter --listen 127.0.0.1:$PORT || finish
wait_subscribers 1 || finish

# The exporter's subscription: its netlink socket that joined the records
# group, matched by inode between /proc/net/netlink and its descriptors.
group=$(records_group_id)
portid=$($PY - "$exporter" "$((group))" <<'PY'
import os, sys
pid, group = sys.argv[1], int(sys.argv[2])
inodes = set()
for fd in os.listdir(f"/proc/{pid}/fd"):
    try:
        link = os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        continue
    if link.startswith("socket:["):
        inodes.add(link[8:-1])
found = []
for line in open("/proc/net/netlink").read().splitlines()[1:]:
    f = line.split()
    # sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
    if f[1] == "16" and f[9] in inodes and int(f[3], 16) & (1 << (group - 1)):
        found.append(f[2])
print(" ".join(found))
PY
)
check_eq "the exporter has one socket in the records group in /proc/net/netlink (port id $portid)" \
	"$(wc -w <<<"$portid")" 1
[ "$(wc -w <<<"$portid")" = 1 ] || finish

get /metrics >/dev/null
forged0=$(metric kprint_exporter_forged_datagrams_total)
received0=$(metric kprint_exporter_records_received_total)
check_eq "kprint_exporter_forged_datagrams_total starts at 0" "$forged0" 0
next=$(stat next_seq)

# N forgeries of the record the kernel would send next.
$PY - "$portid" "$next" "$N" "$TOKEN" <<'PY'
import os, socket, struct, sys, time
sys.path.insert(0, "tests/lib")
from kpnl import Genl, K, nla, nla_nest, nla_str, nla_u32, nla_u64, fnv1a64

portid, seq, n, token = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
g = Genl()
fmt = "%s " + token
R = lambda name: K["KPRINT_RECORD_A_" + name]
rec = nla_nest(K["KPRINT_A_RECORD"],
               nla(R("PAD"), b""), nla_u64(R("SEQ"), seq),
               nla_u32(R("LEVEL"), K["KPRINT_LEVEL_ERR"]),
               nla_u32(R("CLASS"), K["KPRINT_CLASS_NONE"]),
               nla_u64(R("TS_MONO_NS"), time.monotonic_ns()),
               nla_u64(R("TS_REAL_NS"), time.time_ns()),
               nla_u32(R("CPU"), 0), nla_u32(R("PID"), 1), nla_str(R("COMM"), "init"),
               nla_str(R("FILE"), "kernel/fake.c"), nla_u32(R("LINE"), 1),
               nla_str(R("FUNCTION"), "fake"), nla_str(R("SUBSYSTEM"), "forged"),
               nla_str(R("MODULE"), "forged"), nla_str(R("FORMAT"), fmt),
               nla_u64(R("FORMAT_ID"), fnv1a64(fmt.encode())),
               nla_str(R("ARG"), "FORGED"), nla_str(R("TEXT"), "FORGED " + token),
               nla_u64(R("BLOCK_ID"), 0), nla_u32(R("FLAGS"), 0))
genl = struct.pack("=BBH", K["KPRINT_CMD_RECORD_NTF"], 1, 0) + rec
# As the kernel would send it: sequence 0, and our own port as sender
# (the kernel puts that in the sender's address whatever we claim here).
msg = struct.pack("=IHHII", 16 + len(genl), g.family, 0, 0, 0) + genl
for _ in range(n):
    g.sock.sendto(msg, (portid, 0))
print(f"ok - sent {n} forged record datagrams ({len(msg)} bytes) to port id {portid}")
PY
[ $? -eq 0 ] || not_ok "sending the forged datagrams"

# The real record with that sequence number, after the forgeries: once it
# shows, the exporter has read past them.
kprint emit --level info "real record after the forgeries %s" "$TOKEN" >/dev/null ||
	not_ok "kprint emit"
check_eq "the kernel gave the real record the forged sequence number" "$(stat next_seq)" $((next + 1))
wait_for "the real record reaches /records" \
	eval 'get "/records?after=$((next - 1))" >/dev/null; grep -q "real record after the forgeries" "$WORK/body"'

$PY - "$WORK/body" "$next" "$TOKEN" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))
seq, token = int(sys.argv[2]), sys.argv[3]
mine = [r for r in recs if r["seq"] == seq]
print(("ok" if len(mine) == 1 and mine[0]["module"] == "user" and
       mine[0]["text"] == "real record after the forgeries " + token else "not ok") +
      f" - seq {seq} in /records is the kernel's record, once ({mine})")
PY
get "/records?limit=1000" >/dev/null
if grep -q "FORGED \|\"subsystem\":\"forged\"" "$WORK/body"; then
	not_ok "no forged record in /records"
else
	ok "no forged record in /records"
fi
get "/records?q=$TOKEN&limit=1000" >/dev/null
check_eq "nor when asked for its format" "$(cat "$WORK/body")" "[]"

get /metrics >/dev/null
check_eq "kprint_exporter_forged_datagrams_total went up by exactly $N" \
	"$(metric kprint_exporter_forged_datagrams_total)" $((forged0 + N))
check_eq "kprint_exporter_records_received_total counts only the real record" \
	"$(metric kprint_exporter_records_received_total)" $((received0 + 1))
check_eq "nothing was taken for lost or malformed" \
	"$(metric 'kprint_exporter_records_lost_total{reason="missing"}')/$(metric kprint_exporter_records_malformed_total)/$(metric kprint_exporter_resyncs_total)" \
	0/0/0
if grep -q "$TOKEN" "$WORK/body"; then
	not_ok "the forged format is in no series of /metrics"
else
	ok "the forged format is in no series of /metrics"
fi

# Real records still flow.
load_test_module
size=$(cat $TEST_PARAMS/table_size)
first=$(stat next_seq)
echo 2 >$TEST_PARAMS/emit || not_ok "emit the test table twice"
want=$((received0 + 1 + 2 * size))
wait_for "the exporter receives the table" \
	eval '[ "$(scrape kprint_exporter_records_received_total)" = $want ]'
check_eq "real records still flow: all $((2 * size)) of the test table arrive" \
	"$(metric kprint_exporter_records_received_total)" $want

stop_exporter "SIGTERM stops it with status 0"
finish
