#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
# The printk bridge on a stock kernel: /dev/kmsg writes and the messages of
# a stock Debian module (loop) become records of source printk with
# plausible fields (format, args, text, level, facility, module, function,
# format id), multicast to subscribers; dmesg still holds each line once;
# kprint's own echo is skipped, not bridged again; the bridge parameter
# switches the hook off and on at run time; and in a window with nothing
# else going on, the bridged counter moves exactly by the printk records
# stored.  The exhaustive table (every printk flavour, every field) is
# tests/e2e/bridge-table*; this is the quick check of the plumbing.
. "$(dirname "$0")/../lib/lib.sh"

# loop's init message is what we look for: make sure it is printed now.
modprobe -r loop 2>/dev/null

python3 - <<'EOF'
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import check, finish, reload_kprint  # noqa: E402

K = kpnl.K
PRINTK = K["KPRINT_SOURCE_PRINTK"]
BACKLOG = K["KPRINT_RECORD_F_BACKLOG"]
PARAM = "/sys/module/kprint/parameters/bridge"
token = "bridge-basic-%08x" % random.getrandbits(32)
g = kpnl.Genl()


def dump_from(seq):
    return [r for r in g.dump(seq) if r["seq"] >= seq]


def kmsg_lines():
    """(seq, text) of every line /dev/kmsg holds now."""
    out = []
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    try:
        while True:
            try:
                rec = os.read(fd, 8192).decode("utf-8", "replace")
            except BlockingIOError:
                break
            except BrokenPipeError:		# overwritten while reading: go on
                continue
            head, _, text = rec.partition(";")
            out.append((int(head.split(",")[1]), text.split("\n")[0]))
    finally:
        os.close(fd)
    return out


def kmsg(line):
    with open("/dev/kmsg", "w") as f:
        f.write(line + "\n")


def sync_point():
    """A kprint record of our own, emitted now: the ring's seq after it."""
    return g.emit(K["KPRINT_LEVEL_INFO"], "bridge-basic sync %s", [token])


def plausible(r, what):
    check(f"{what}: source printk, no backlog flag",
          r.get("source") == PRINTK and not r.get("flags", 0) & BACKLOG, r)
    check(f"{what}: format_id is FNV-1a 64 of the format",
          r.get("format_id") == kpnl.fnv1a64(r.get("format", "").encode()), r)
    check(f"{what}: no file or line", r.get("file") == "" and r.get("line") == 0, r)


# 1. /dev/kmsg writes, with and without a syslog prefix.
check("bridge parameter reads Y at load", open(PARAM).read().strip() == "Y")
start = g.stats()["next_seq"]
kmsg_first = kmsg_lines()[-1][0]
kmsg(f"<14>{token} with prefix")
kmsg(f"{token} plain %d")
# A subscriber of its own: notifications must not mix with dump replies.
sub = kpnl.Genl()
sub.join()
sub.sock.settimeout(30)
kmsg(f"{token} multicast")
multicast = None
try:
    for batch in sub.notifications():
        multicast = next((r for r in batch if r.get("text") == f"{token} multicast"), None)
        if multicast:
            break
except OSError as e:		# the timeout: reported below
    print(f"# no notification: {e}")
check("a subscriber receives the bridged /dev/kmsg record",
      multicast is not None and multicast.get("source") == PRINTK, multicast)
sub.close()
recs = [r for r in dump_from(start) if token in r.get("text", "")]
by_text = {r["text"]: r for r in recs}
r = by_text.get(f"{token} with prefix", {})
check("a /dev/kmsg write with <14> is a record", bool(r), [x["text"] for x in recs])
if r:
    plausible(r, "/dev/kmsg <14>")
    check("/dev/kmsg <14>: format %s, the line as its one arg",
          r["format"] == "%s" and r["args"] == [f"{token} with prefix\n"], r)
    check("/dev/kmsg <14>: level info, facility user (1)",
          r["level"] == 6 and r.get("facility") == 1, r)
    check("/dev/kmsg <14>: module vmlinux, function in devkmsg_*",
          r["module"] == "vmlinux" and r["function"].startswith("devkmsg_"), r)
    check("/dev/kmsg <14>: pid and comm of the writer",
          r["pid"] > 0 and r["comm"] == "python3", r)
r = by_text.get(f"{token} plain %d", {})
check("a plain /dev/kmsg write is a record, its %d not a conversion",
      bool(r) and r["args"] == [f"{token} plain %d\n"], r)
if r:
    default = int(open("/proc/sys/kernel/printk").read().split()[1])
    check("a plain /dev/kmsg write has the default message level",
          r["level"] == default, (r["level"], default))

# 2. A stock module that logs: loop's "loop: module loaded".
start = g.stats()["next_seq"]
kmsg_first = kmsg_lines()[-1][0]
subprocess.run(["modprobe", "loop"], check=True)
end = sync_point()
recs = [r for r in dump_from(start) if r["seq"] < end and r.get("source") == PRINTK]
loop = [r for r in recs if r["text"] == "loop: module loaded"]
check("modprobe loop: its message is one record", len(loop) == 1,
      [(r["module"], r["text"]) for r in recs])
if loop:
    r = loop[0]
    plausible(r, "loop")
    check("loop: module loop, function loop_init+off/size",
          r["module"] == "loop" and r["function"].startswith("loop_init+")
          and "/" in r["function"], r)
    check("loop: format and text \"loop: module loaded\", no args",
          r["format"] == "loop: module loaded" and r["args"] == [], r)
    check("loop: level info, facility kern", r["level"] == 6 and r.get("facility") == 0, r)
lines = [t for s, t in kmsg_lines() if s > kmsg_first]
check("dmesg has loop's line once", lines.count("loop: module loaded") == 1, lines)
check("dmesg has each /dev/kmsg line of ours once",
      all(sum(t == f"{token} {w}" for s, t in kmsg_lines()) == 1
          for w in ("with prefix", "plain %d", "multicast")))

# 3. kprint's own echo is skipped, and dmesg has it once.
before = g.stats()
start = before["next_seq"]
seq = g.emit(K["KPRINT_LEVEL_WARNING"], "bridge-basic echo %s", [token])
after = g.stats()
check("kprint's echo of its own record is counted as skipped",
      after["bridge_skipped"] - before["bridge_skipped"] == 1,
      (before["bridge_skipped"], after["bridge_skipped"]))
recs = [r for r in dump_from(start) if token in r.get("text", "")]
check("the echo is not bridged again: one record, source kprint",
      [r.get("source") for r in recs] == [K["KPRINT_SOURCE_KPRINT"]], recs)
check("dmesg has the echo once",
      [t for s, t in kmsg_lines()].count(f"bridge-basic echo {token}") == 1)

# 4. In a quiet window, bridged moves by exactly the printk records stored.
n = 50
before = g.stats()
for i in range(n):
    kmsg(f"{token} window {i}")
end = sync_point()
after = g.stats()
recs = [r for r in dump_from(before["next_seq"]) if r["seq"] < end]
printk = [r for r in recs if r.get("source") == PRINTK]
ours = [r for r in printk if r["text"].startswith(f"{token} window ")]
check(f"{n} /dev/kmsg writes, {n} records", len(ours) == n, len(ours))
check("bridged grew by the printk records stored in the window",
      after["bridged"] - before["bridged"] == len(printk),
      (after["bridged"] - before["bridged"], len(printk)))
check("nothing dropped, missed or overwritten in the window",
      all(after[k] == before[k] for k in ("bridge_dropped_nmi", "bridge_dropped_recursion",
                                          "bridge_dropped_scratch", "bridge_missed",
                                          "dropped", "overwritten")),
      {k: (before[k], after[k]) for k in after if k.startswith(("bridge", "drop"))})
check("backlog was taken at load (boot messages)", after["bridge_backlog"] > 0,
      after["bridge_backlog"])

# 5. bridge=0 at run time: no bridged record; bridge=1: back.
with open(PARAM, "w") as f:
    f.write("0")
st = g.stats()
check("writing 0 to the bridge parameter turns the bridge off",
      open(PARAM).read().strip() == "N" and st["bridge"] == 0, st["bridge"])
kmsg(f"{token} while off")
end = sync_point()
recs = [r for r in dump_from(st["next_seq"]) if r["seq"] < end]
check("with the bridge off, a /dev/kmsg write is no record",
      not any(token in r.get("text", "") and r.get("source") == PRINTK for r in recs), recs)
check("with the bridge off, bridged does not move", g.stats()["bridged"] == st["bridged"])
check("with the bridge off, dmesg still has the line",
      f"{token} while off" in [t for s, t in kmsg_lines()])
with open(PARAM, "w") as f:
    f.write("1")
st = g.stats()
check("writing 1 turns it on again", open(PARAM).read().strip() == "Y" and st["bridge"] == 1)
kmsg(f"{token} on again")
end = sync_point()
check("with the bridge on again, a /dev/kmsg write is a record again",
      any(r.get("text") == f"{token} on again" and r.get("source") == PRINTK
          for r in dump_from(st["next_seq"])))

# 6. bridge=0 at load: off from the start, no backlog, no printk record.
g.close()
reload_kprint("bridge=0")
g = kpnl.Genl()
st = g.stats()
check("loaded with bridge=0: off, no backlog",
      st["bridge"] == 0 and st["bridge_backlog"] == 0 and open(PARAM).read().strip() == "N", st)
kmsg(f"{token} loaded off")
end = sync_point()
check("loaded with bridge=0: no record of source printk at all",
      not any(r.get("source") == PRINTK for r in g.dump() if r["seq"] < end))
g.close()
reload_kprint()
finish()
EOF
status=$?
modprobe -r loop 2>/dev/null
exit $status
