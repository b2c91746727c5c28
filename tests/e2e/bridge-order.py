#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""The printk bridge's records in /dev/kmsg's order, with /dev/kmsg's seq,
levels and texts, while both CPUs print at once.

Three races, each between two markers written to /dev/kmsg, on every
online CPU at once (kprint_printk_test.ko): flood_cpus (whole lines),
cont_race (a line of a level of its CPU's own continued by pr_cont()
fragments without one, which printk appends to the line or stores as
records of their own at the default level, by which CPU came first: the
test asserts only that the CPUs' lines interleaved) and
cont_long (a line continued past what printk keeps in one record, which
printk then splits); and cont, whose two CPUs take turns in a fixed
order, so that printk surely stores some fragments apart.  For each, the records of the bridge, as delivered
live to a subscriber and as dumped from the ring, against /dev/kmsg's
between the markers: every record carries printk_seq, the seq /dev/kmsg
shows for the record printk stored it in; the records printk stored come
in printk's seq order (a fragment printk appended comes after the record
it was appended to); the records of each printk seq, joined, are
/dev/kmsg's text, at /dev/kmsg's level and facility; every /dev/kmsg
record between the markers has its records, and no more.  The bridge
never timed out waiting for printk's order, and read every seq."""
import os
import select
import socket
import sys

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import (check, finish, kmsg_records, kmsg_write,  # noqa: E402
                 load_printk_test_module, wait_subscribers, write_printk_param)

SO_RCVBUFFORCE = 33
PRINTK = kpnl.K["KPRINT_SOURCE_PRINTK"]
ORDER = "/sys/module/kprint/parameters/bridge_order"
RACES = [("flood_cpus", 300), ("cont", 8), ("cont_race", 60), ("cont_long", 3)]


def order_counts():
    with open(ORDER) as f:
        words = f.read().split()
    return dict(zip(words[::2], map(int, words[1::2])))


def live_until(sock, text):
    """Records received live, up to the one whose text is text."""
    recs = []
    while True:
        ready, _, _ = select.select([sock.sock], [], [], 60)
        if not ready:
            check(f"live records up to {text!r} within 60 s", False)
            return recs
        for batch in sock.notifications():
            recs += batch
            if any(r.get("text") == text for r in batch):
                return recs
            break


def compare(name, how, kmsg, recs):
    """recs (kprint's, in delivery order) against kmsg (between markers)."""
    first, last = kmsg[0]["seq"], kmsg[-1]["seq"]
    recs = [r for r in recs if r.get("source") == PRINTK and
            first <= r.get("printk_seq", 0) <= last]
    groups, order, late = {}, [], []
    for r in recs:
        ps = r["printk_seq"]
        if ps not in groups:
            if order and ps < order[-1]:
                late.append((order[-1], ps))
            groups[ps] = []
            order.append(ps)
        groups[ps].append(r)
    check(f"{name} {how}: records in printk's seq order ({len(order)} printk records)",
          not late, f"{len(late)} came after a later seq, first {late[:3]}")
    want = {k["seq"]: k for k in kmsg}
    check(f"{name} {how}: the printk seqs are /dev/kmsg's, each once",
          set(groups) == set(want),
          f"missing {sorted(set(want) - set(groups))[:5]}, "
          f"extra {sorted(set(groups) - set(want))[:5]}")
    bad_text, bad_level = [], []
    for ps, rs in groups.items():
        k = want.get(ps)
        if k is None:
            continue
        text = "".join(r["text"] for r in rs)
        if text != k["text"]:
            bad_text.append((ps, text[:60], k["text"][:60]))
        if any(r["level"] != k["level"] or r["facility"] != k["facility"] for r in rs):
            bad_level.append((ps, [r["level"] for r in rs], k["level"]))
    check(f"{name} {how}: each printk record's text is /dev/kmsg's", not bad_text,
          f"{len(bad_text)} differ, first {bad_text[:2]}")
    check(f"{name} {how}: level and facility are /dev/kmsg's", not bad_level,
          f"{len(bad_level)} differ, first {bad_level[:3]}")
    return groups


load_printk_test_module()
g = kpnl.Genl()
live = kpnl.Genl()
live.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
live.join()
wait_subscribers(live.groups["records"], 1)
kfd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
os.lseek(kfd, 0, os.SEEK_END)
before = order_counts()

for name, n in RACES:
    start, end = f"kprint bridge-order: {name} start", f"kprint bridge-order: {name} end"
    kmsg_write(start)
    write_printk_param(name, n)
    kmsg_write(end)
    got = live_until(live, end)
    kmsg = kmsg_records(kfd)
    texts = [k["text"] for k in kmsg]
    if not check(f"{name}: both markers in /dev/kmsg", start in texts and end in texts):
        continue
    kmsg = kmsg[texts.index(start):texts.index(end) + 1]
    seqs = [k["seq"] for k in kmsg]
    check(f"{name}: /dev/kmsg read without a gap ({len(kmsg)} records)",
          seqs == list(range(seqs[0], seqs[-1] + 1)))
    groups = compare(name, "live", kmsg, got)
    compare(name, "from the ring", kmsg, g.dump())
    if name.startswith("cont_race") or name == "cont":
        split = sum(1 for k in kmsg if k["text"].startswith(" "))
        joined = sum(1 for rs in groups.values() if len(rs) > 1)
        print(f"# {name}: {joined} lines printk joined, {split} fragments it stored apart")
    if name == "cont":
        # Interleaved in a fixed order: printk surely appends some
        # fragments to their line and stores others apart, at the default
        # level, and the bridge must say the same of both.
        check("cont: printk joined fragments into lines", joined > 0)
        check("cont: printk stored fragments apart", split > 0)
    if name == "cont_race":
        # How the race ends is the scheduler's: on PREEMPT_RT in a guest
        # every fragment may come after the other CPU's record (nothing
        # joined).  What the race needs is both CPUs' lines interleaved.
        cpus = [int(k["text"].split("cont_race cpu ", 1)[1].split()[0]) for k in kmsg
                if "cont_race cpu " in k["text"]]
        switches = sum(1 for a, b in zip(cpus, cpus[1:]) if a != b)
        check(f"cont_race: the CPUs' lines interleaved ({switches} switches)", switches > 1)
    if name == "cont_long":
        check("cont_long: printk split each line past its record size",
              sum(1 for k in kmsg if " end" in k["text"] and "cont_long" not in k["text"]) >= 3)

after = order_counts()
check("the bridge read printk's seq at every commit", after["unread"] == before["unread"],
      f"{after}")
check("no wait for printk's order timed out", after["late"] == before["late"], f"{after}")
check("no nested printk's record overtook its turn", after["overtook"] == before["overtook"],
      f"{after}")
os.close(kfd)
finish()
