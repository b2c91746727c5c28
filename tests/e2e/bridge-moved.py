#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""A printing task moved to another CPU between the bridge's hook and
printk's commit.  The hook builds the record at vprintk_store()'s entry in
a slot of its CPU; printk disables interrupts a few instructions later and
commits there.  A task preempted in between and moved commits on the other
CPU, which must find the slot on the CPU the task left
(kprint_bridge_pending_find()).  kprint_preempt_test.ko forces it for
every message: an ftrace callback on vprintk_store() wakes a real-time
kthread on the task's CPU, which preempts the task as ftrace turns
preemption back on and moves it to the other CPU.

Checked: the module saw each message's hook and commit on different CPUs;
the bridge counted each (bridge_order: moved); every message is a kprint
record, by printk_seq and text against /dev/kmsg, in printk's order;
nothing late, unread, overtaken, uncommitted or dropped.

It needs a kernel that preempts where preemption is turned back on: 6.1-rt
(PREEMPT_RT) and the nested group's 6.1 (preempt=full, KPRINT_PREEMPT_FULL=1
there, so that the case cannot skip itself).  On a kernel with voluntary
preemption (6.12's smoke guest) the module refuses (EOPNOTSUPP), and that
is what is checked."""
import errno
import os
import subprocess
import sys

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import DEBUGFS, check, finish, kmsg_records  # noqa: E402

MODULE = "kprint_preempt_test"
PARAMS = f"/sys/module/{MODULE}/parameters"
ORDER = "/sys/module/kprint/parameters/bridge_order"
PRINTK = kpnl.K["KPRINT_SOURCE_PRINTK"]
N = 40


def order_counts():
    with open(ORDER) as f:
        words = f.read().split()
    return dict(zip(words[::2], map(int, words[1::2])))


def preempt_model():
    """full, voluntary, none or rt: how this kernel preempts."""
    if "PREEMPT_RT" in os.uname().version:
        return "rt"
    if not os.path.ismount(DEBUGFS):
        subprocess.run(["mount", "-t", "debugfs", "none", DEBUGFS], check=True)
    with open(f"{DEBUGFS}/sched/preempt") as f:
        return next(w.strip("()") for w in f.read().split() if w.startswith("("))


model = preempt_model()
subprocess.run(["insmod", f"kernel/test/{MODULE}.ko"], check=True)
if os.environ.get("KPRINT_PREEMPT_FULL") == "1":
    check("this guest preempts fully (preempt=full, or PREEMPT_RT)", model in ("full", "rt"),
          model)
if model not in ("full", "rt"):
    try:
        with open(f"{PARAMS}/run", "w") as f:
            f.write("1")
        err = 0
    except OSError as e:
        err = e.errno
    check(f"preemption {model}: the module refuses to run (EOPNOTSUPP)",
          err == errno.EOPNOTSUPP, os.strerror(err) if err else "it ran")
    subprocess.run(["rmmod", MODULE], check=True)
    finish()

kfd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
os.lseek(kfd, 0, os.SEEK_END)
genl = kpnl.Genl()
stats0, before = genl.stats(), order_counts()
with open(f"{PARAMS}/run", "w") as f:
    f.write(str(N))
after, stats1 = order_counts(), genl.stats()
with open(f"{PARAMS}/moved") as f:
    moved = int(f.read())
kmsg = [k for k in kmsg_records(kfd) if f"{MODULE}: message " in k["text"]]
os.close(kfd)
counts = {k: after[k] - before[k] for k in after}
dropped = {k: stats1[k] - stats0[k] for k in stats1
           if k.startswith("bridge_dropped") and stats1[k] != stats0[k]}
print(f"# preemption {model}: {moved} of {N} messages moved; bridge_order moved by {counts}")

check(f"preemption {model}: each of the {N} messages had its hook on one CPU and its commit "
      "on the other", moved == N, moved)
check("the bridge found each on the CPU its task left (bridge_order: moved)",
      counts.get("moved") == moved, counts)
check("nothing late, unread, overtaken, uncommitted or dropped",
      not any(v for k, v in counts.items() if k != "moved") and not dropped, (counts, dropped))
check(f"/dev/kmsg has the {N} messages, in order",
      [k["text"].split(": ", 1)[1] for k in kmsg] == [f"message {i} of {N}"
                                                        for i in range(1, N + 1)],
      [k["text"] for k in kmsg][:3])
recs = sorted((r for r in genl.dump() if r.get("source") == PRINTK and
               r.get("module") == MODULE), key=lambda r: r["seq"])
got = [(r["printk_seq"], r["text"]) for r in recs]
want = [(k["seq"], k["text"]) for k in kmsg]
check("kprint has every one, by printk_seq and text, in printk's order", got == want,
      (got[:3], want[:3], len(got), len(want)))
check("each record names the function that printed it",
      recs and all(r["function"].startswith("kpmt_one+") for r in recs),
      sorted({r["function"] for r in recs}))
subprocess.run(["rmmod", MODULE], check=True)
finish()
