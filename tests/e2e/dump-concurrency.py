#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Dumps and notifications under fire.

While every CPU floods records into a ring too small to hold them (so the
ring overwrites under the readers' feet), at the same time:
- 6 threads dump the ring again and again from random start sequence
  numbers, each on its own socket;
- one thread opens a socket, starts a dump, reads one datagram and closes
  the socket, 200 times;
- a subscriber reads the multicast records.
Every record any of them sees must be whole: its format_id is the FNV-1a
of its format, its text is its format with its arguments, it was emitted
on the CPU its text names.  Within one dump or one subscription, sequence
numbers only go up, never repeat, and a dump starts at its start (or at
the ring's first record if that was overwritten).  Afterwards the kernel
answers as before (and tests/vm/run fails the run on any splat).
"""
import random
import socket
import sys
import threading

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import check, finish, load_test_module  # noqa: E402
from kpnl import K  # noqa: E402

PER_CPU = 4000
lock = threading.Lock()
problems = []



def whole(rec):
    """Is this flood record consistent in itself?"""
    if rec.get("format") != "kprint_test flood_cpus cpu %u n %u":
        return True		# not ours; other checks cover other records
    a = rec["args"]
    return (rec["format_id"] == kpnl.fnv1a64(rec["format"].encode()) and len(a) == 2 and
            rec["text"] == f"kprint_test flood_cpus cpu {a[0]} n {a[1]}" and
            str(rec["cpu"]) == a[0])


def problem(msg):
    with lock:
        problems.append(msg)


load_test_module()
stop = threading.Event()
counts = {"dumps": 0, "dumped": 0, "closed": 0, "notified": 0}


def dumper(seed):
    rng = random.Random(seed)
    g = kpnl.Genl()
    while not stop.is_set():
        st = g.stats()
        start = rng.randrange(max(1, st["first_seq"] - 100), st["next_seq"] + 100)
        recs = g.dump(start)
        seqs = [r["seq"] for r in recs]
        if any(b <= a for a, b in zip(seqs, seqs[1:])):
            problem(f"dump from {start}: sequence went back or repeated")
        if seqs and seqs[0] < start:
            problem(f"dump from {start} began at {seqs[0]}")
        for r in recs:
            if not whole(r):
                problem(f"torn record {r}")
        with lock:
            counts["dumps"] += 1
            counts["dumped"] += len(recs)
    g.close()


def closer():
    for _ in range(200):
        g = kpnl.Genl(rcvbuf=4096)
        g.send(g.family, K["KPRINT_CMD_RECORD_GET"], b"",
               flags=kpnl.NLM_F_REQUEST | kpnl.NLM_F_DUMP)
        g.sock.recv(65536)
        g.close()
        with lock:
            counts["closed"] += 1


def subscriber(g):
    last = 0
    g.sock.settimeout(0.5)
    while True:
        try:
            data = g.sock.recv(1 << 20)
        except socket.timeout:
            if stop.is_set():
                return
            continue
        except OSError:		# ENOBUFS: notifications dropped; fine here
            continue
        off = 0
        while off < len(data):
            mlen = int.from_bytes(data[off:off + 4], "little")
            attrs = kpnl.parse_attrs(data[off + 20:off + mlen])
            for t, v in attrs:
                if t == K["KPRINT_A_RECORD"]:
                    r = kpnl.decode_record(v)
                    if r["seq"] <= last:
                        problem(f"notification seq {r['seq']} after {last}")
                    last = r["seq"]
                    if not whole(r):
                        problem(f"torn notified record {r}")
                    with lock:
                        counts["notified"] += 1
            off += (mlen + 3) & ~3


sub = kpnl.Genl(rcvbuf=8 << 20)
sub.join()
threads = [threading.Thread(target=dumper, args=(i,)) for i in range(6)]
threads += [threading.Thread(target=closer), threading.Thread(target=subscriber, args=(sub,))]
for t in threads:
    t.start()
before = kpnl.Genl().stats()
with open("/sys/module/kprint_test/parameters/flood_cpus", "w") as f:
    f.write(str(PER_CPU))
threads[-2].join()		# the closer has done its 200
stop.set()
for t in threads:
    t.join()

after = kpnl.Genl().stats()
print(f"# {counts['dumps']} dumps returned {counts['dumped']} records, "
      f"{counts['closed']} sockets closed mid-dump, {counts['notified']} records notified, "
      f"{after['overwritten'] - before['overwritten']} overwritten meanwhile")
check("the flood stored what it emitted",
      after["records"] - before["records"] >= PER_CPU * 2, after["records"] - before["records"])
check("the dumpers ran concurrently with the flood", counts["dumps"] >= 6, counts["dumps"])
check("200 sockets closed in the middle of a dump", counts["closed"] == 200, counts["closed"])
check("the subscriber got records", counts["notified"] > 0)
check("every record seen was whole, and sequences never went back",
      not problems, problems[:3])
g = kpnl.Genl()
s = g.emit(6, "after the storm %d", ["1"])
check("the kernel still stores and dumps", [r["text"] for r in g.dump(s)] == ["after the storm 1"])
finish()
