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
as overtook, or absent and counted as dropped-nmi: never silent.

Then the same in the printing task itself, as deep as printk goes
(kprint_printk_test's recurse trigger: a "%pfwP" argument whose name
callback prints the next level's message while printk renders the outer
one): one level, then five.  printk stores four levels and refuses the
fifth (its recursion limit); the bridge commits each inner record ahead of
its outer one (overtook, one per level) and counts the refused message as
uncommitted, keeping no record of it; every stored level is kprint's, text
for text with /dev/kmsg by printk_seq, innermost first.  Last, with one
slot per CPU and context (bridge_slots=1), where the inner message finds
the table full: the outer message's slot is taken back for it, and its
record is counted as dropped-scratch, not lost silently; the inner one,
finding nothing of its outer one pending, waits out its turn (late), which
must end even where local_clock() stands still with interrupts off."""
import os
import sys

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import (check, finish, kmsg_records, kmsg_write, load_printk_test_module,  # noqa: E402
                 reload_kprint, write_printk_param)

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


def recurse(depth, stored, bridged=None, expect=None, dropped=None):
    """kprint_printk_test's recurse trigger, depth levels under the outer
    printk, of which printk stores the outer and stored - 1 more; bridged,
    the levels kprint has (all stored ones), expect the bridge_order counts
    and dropped the bridge_dropped_* counts that must move."""
    bridged = list(range(stored)) if bridged is None else bridged
    kfd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    os.lseek(kfd, 0, os.SEEK_END)
    stats0, before = genl.stats(), order_counts()
    write_printk_param("recurse", depth)
    after, stats1 = order_counts(), genl.stats()
    kmsg = kmsg_records(kfd)
    os.close(kfd)
    levels = [k for k in kmsg if "recurse level" in k["text"]]
    done = [k for k in kmsg if k["text"].endswith("recurse done")]
    what = f"recurse {depth}"
    check(f"{what}: /dev/kmsg has levels 0..{stored - 1}, in that order and in a row, and "
          f"nothing of level {stored}",
          [k["text"].split("recurse level ")[1] for k in levels] ==
          [f"{i} kppt" for i in range(stored)] and
          [k["seq"] for k in levels] == list(range(levels[0]["seq"], levels[0]["seq"] + stored))
          and len(done) == 1, [(k["seq"], k["text"]) for k in levels])
    if not levels or not done:
        return
    recs = [r for r in genl.dump() if r.get("source") == PRINTK and
            levels[0]["seq"] <= r.get("printk_seq", 0) <= done[0]["seq"]]
    recs.sort(key=lambda r: r["seq"])
    got = [(r["printk_seq"], r["text"]) for r in recs]
    want = [(k["seq"], k["text"]) for i, k in reversed(list(enumerate(levels))) if i in bridged]
    want.append((done[0]["seq"], done[0]["text"]))
    check(f"{what}: kprint has levels {bridged}, by printk_seq and text, innermost first, then "
          f"the line after", got == want, (got, want))
    refused = 1 if depth >= stored else 0
    counts = {k: after[k] - before[k] for k in after}
    moved = {k: stats1[k] - stats0[k] for k in stats1
             if k.startswith("bridge_dropped") and stats1[k] != stats0[k]}
    if expect is None:
        check(f"{what}: overtook counts the {stored - 1} inner records, uncommitted the "
              f"{refused} refused message, nothing late, unread or dropped",
              counts == {"overtook": stored - 1, "uncommitted": refused, "late": 0,
                         "unread": 0, "live": 0, "moved": 0} and not moved, (counts, moved))
    else:
        check(f"{what}: bridge_order moved by {expect}, the drop counters by {dropped}",
              counts == expect and moved == dropped, (counts, moved))


recurse(1, 2)
recurse(5, 4)
# The inner message waits out its turn with interrupts off: where the TSC
# is unstable (its group boots with tsc=unstable), local_clock() stops a
# tick past the last tick there, and a wait timed by it never ended.
if os.environ.get("KPRINT_NESTED_TSC_UNSTABLE") == "1":
    with open("/sys/kernel/debug/sched/debug") as f:
        stable = [line.split(":")[1].strip() for line in f if "sched_clock_stable()" in line]
    check("the guest's sched_clock is unstable (tsc=unstable)", stable == ["0"], stable)
reload_kprint("bridge=1", "bridge_slots=1", "backlog=0")
genl = kpnl.Genl()
recurse(1, 2, bridged=[1], expect={"overtook": 0, "uncommitted": 0, "late": 1, "unread": 0,
                                   "live": 0, "moved": 0}, dropped={"bridge_dropped_scratch": 1})
finish()
