#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""A printk nested inside another printk's formatting (kprint_printk_test's
nested trigger: a kprobe on vscnprintf(), which printk calls after
reserving the outer message's record).  printk reserves the nested
message after the outer one and commits it first.  Where the kprobe's
handler runs as an NMI (an int3 kprobe on x86: Debian's 6.1 here), the
bridge stores no record for it and counts it (dropped-nmi); where it runs
in the printing task (a kprobe on ftrace), the bridge cannot make the
nested record wait for the outer one it interrupted, commits it ahead of
its turn and counts it (bridge_order: overtook).  Checked: every outer
message is kprint's, text for text with /dev/kmsg by printk_seq; each
nested one is either kprint's too, just ahead of its outer one and counted
as overtook, or absent and counted as dropped-nmi: never silent."""
import os
import sys

sys.path.insert(0, "tests/e2e")
import kpnl  # noqa: E402
from lib import (check, finish, kmsg_records, kmsg_write, load_printk_test_module,  # noqa: E402
                 write_printk_param)

ORDER = "/sys/module/kprint/parameters/bridge_order"
PAIRS = 5
START, END = "kprint bridge-nested: start", "kprint bridge-nested: end"
PRINTK = kpnl.K["KPRINT_SOURCE_PRINTK"]


def order_counts():
    with open(ORDER) as f:
        words = f.read().split()
    return dict(zip(words[::2], map(int, words[1::2])))


load_printk_test_module()
kfd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
os.lseek(kfd, 0, os.SEEK_END)
genl = kpnl.Genl()
stats0 = genl.stats()
before = order_counts()
kmsg_write(START)
write_printk_param("nested", PAIRS)
kmsg_write(END)
after = order_counts()
stats1 = genl.stats()
moved = {k: stats1[k] - stats0[k] for k in stats1 if k.startswith("bridge") and stats1[k] != stats0[k]}
print(f"# bridge counters moved: {moved}")
kmsg = kmsg_records(kfd)
os.close(kfd)

texts = [k["text"] for k in kmsg]
window = kmsg[texts.index(START):texts.index(END) + 1] if START in texts and END in texts else []
outer = [k for k in window if "nested outer" in k["text"]]
inner = [k for k in window if "nested inside printk" in k["text"]]
check(f"/dev/kmsg has the {PAIRS} outer messages and the {PAIRS} nested ones",
      len(outer) == PAIRS and len(inner) == PAIRS, (len(outer), len(inner)))
check("printk gave each nested message the seq after its outer one's",
      [k["seq"] + 1 for k in outer] == [k["seq"] for k in inner],
      ([k["seq"] for k in outer], [k["seq"] for k in inner]))

recs = sorted((r for r in kpnl.Genl().dump() if r.get("source") == PRINTK and
               window and window[0]["seq"] <= r.get("printk_seq", 0) <= window[-1]["seq"]),
              key=lambda r: r["seq"])
by_pseq = {r["printk_seq"]: r["text"] for r in recs}
wrong = [(k["seq"], k["text"], by_pseq.get(k["seq"])) for k in window
         if by_pseq.get(k["seq"], k["text"]) != k["text"] or
         (k not in inner and k["seq"] not in by_pseq)]
check(f"every /dev/kmsg record but the nested ones is kprint's, by printk_seq, text for text "
      f"({len(window)} records)", window and not wrong, wrong[:3])
pseqs = [r["printk_seq"] for r in recs]
ahead = [(a, b) for a, b in zip(pseqs, pseqs[1:]) if b < a]
bridged = [k for k in inner if k["seq"] in by_pseq]
print(f"# nested messages: {len(bridged)} bridged, {len(inner) - len(bridged)} not; {moved}")
check("each bridged nested record came just ahead of its outer one",
      ahead == [(k["seq"], k["seq"] - 1) for k in bridged], (ahead, pseqs))
check(f"the {PAIRS} nested messages are counted: overtook for the bridged, dropped-nmi for the rest",
      after["overtook"] - before["overtook"] == len(bridged) and
      moved.get("bridge_dropped_nmi", 0) == PAIRS - len(bridged), (before, after, moved))
check("and no wait for a turn ran out, no commit went unread",
      after["late"] == before["late"] and after["unread"] == before["unread"], (before, after))
finish()
