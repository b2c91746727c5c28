#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""kprint.ko loaded with its printk bridge while both CPUs print
(kprint_printk_test.ko's flood_cpus): every /dev/kmsg record from a marker
written before the load to one written after it is in kprint's ring
exactly once, either as a backlog record (taken from printk's ring at
load) or as a live one, by its printk_seq; none in neither, none in both.
A reader thread drains /dev/kmsg meanwhile, so that the flood cannot
overwrite a record before it is read (a gap fails the test: it could not
judge).  Then a line left open across the load: its beginning is
not lost."""
import os
import select
import subprocess
import sys
import threading

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import (PRINTK_TEST_DEBUGFS, PRINTK_TEST_PARAMS, check, finish,  # noqa: E402
                 kmsg_records, kmsg_write, load_printk_test_module, wait_for,
                 write_printk_param)

F_BACKLOG = 4
PRINTK = kpnl.K["KPRINT_SOURCE_PRINTK"]
START, END = "kprint bridge-load: start", "kprint bridge-load: end"

load_printk_test_module()
with open(f"{PRINTK_TEST_PARAMS}/flood_pause_every", "w") as f:
    f.write("2")
subprocess.run(["rmmod", "kprint"], check=True)

kfd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
os.lseek(kfd, 0, os.SEEK_END)
kmsg, stop = [], threading.Event()


def reader():
    while not stop.is_set():
        select.select([kfd], [], [], 0.1)
        kmsg.extend(kmsg_records(kfd))


def seen(text):
    return any(k["text"] == text for k in list(kmsg))


def flood_lines():
    return sum(1 for k in list(kmsg) if "flood cpu" in k["text"])


t = threading.Thread(target=reader)
t.start()
flood = threading.Thread(target=write_printk_param, args=("flood_cpus", 4000000000))
flood.start()
wait_for("the flood began", lambda: flood_lines() > 0)
kmsg_write(START)
subprocess.run(["insmod", "kernel/kprint.ko", "bridge=1", "ring_size=8388608"], check=True)
kmsg_write(END)
n = flood_lines()
wait_for("the flood went on after the load", lambda: flood_lines() > n + 100)
with open(f"{PRINTK_TEST_DEBUGFS}/flood_stop", "w") as f:
    f.write("1")
flood.join()
wait_for("the end marker read", lambda: seen(END))
stop.set()
t.join()
kmsg.extend(kmsg_records(kfd))
os.close(kfd)

texts = [k["text"] for k in kmsg]
if check("both markers in /dev/kmsg", START in texts and END in texts):
    window = kmsg[texts.index(START):texts.index(END) + 1]
    seqs = [k["seq"] for k in window]
    check(f"/dev/kmsg read without a gap ({len(window)} records from the load's start)",
          seqs == list(range(seqs[0], seqs[-1] + 1)))
    recs = [r for r in kpnl.Genl().dump() if r.get("source") == PRINTK]
    backlog = [r["printk_seq"] for r in recs if r["flags"] & F_BACKLOG]
    live = {r["printk_seq"] for r in recs if not r["flags"] & F_BACKLOG}
    check("no backlog record twice", len(backlog) == len(set(backlog)))
    backlog = set(backlog)
    neither = [s for s in seqs if s not in backlog and s not in live]
    both = [s for s in seqs if s in backlog and s in live]
    nb = sum(1 for s in seqs if s in backlog)
    print(f"# {nb} records from the load's start came as backlog, {len(seqs) - nb} live")
    check("every record from the load's start is backlog or live", not neither,
          f"{len(neither)} in neither, first {neither[:5]}")
    check("none is both", not both, f"{len(both)} in both, first {both[:5]}")
    check("the load fell inside the flood: both kinds in the window",
          0 < nb < len(seqs))
    with open("/sys/module/kprint/parameters/bridge_order") as f:
        print("# bridge_order:", f.read().strip())

# A line left open (no newline) when kprint.ko loads, ended after: printk
# can store it whole only if nothing else was stored in between, and the
# backlog cannot read it while it is open.  Every /dev/kmsg record around
# the load must have kprint's records of its printk_seq, texts joined.
START2, END2 = "kprint bridge-load: open line start", "kprint bridge-load: open line end"
subprocess.run(["rmmod", "kprint"], check=True)
kfd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
os.lseek(kfd, 0, os.SEEK_END)
kmsg_write(START2)
write_printk_param("cont_open", 1)
subprocess.run(["insmod", "kernel/kprint.ko", "bridge=1"], check=True)
write_printk_param("cont_open", 2)
kmsg_write(END2)
around = []
wait_for("the open line's end marker read",
         lambda: around.extend(kmsg_records(kfd)) or any(k["text"] == END2 for k in around))
os.close(kfd)
texts = [k["text"] for k in around]
window = around[texts.index(START2):texts.index(END2) + 1] if START2 in texts else []
joined = {}
for r in sorted(kpnl.Genl().dump(), key=lambda r: r["seq"]):
    if r.get("source") == PRINTK and r.get("printk_seq"):
        joined[r["printk_seq"]] = joined.get(r["printk_seq"], "") + r["text"]
print(f"# the open line's window: {[(k['seq'], k['text']) for k in window]}")
check("the line begun before the load is in /dev/kmsg",
      any("cont_open begin" in k["text"] for k in window))
wrong = [(k["seq"], k["text"], joined.get(k["seq"])) for k in window
         if joined.get(k["seq"]) != k["text"]]
check(f"each of the {len(window)} records around the load is kprint's, text for text "
      "(the open line's beginning not lost)", window and not wrong, wrong[:3])
finish()
