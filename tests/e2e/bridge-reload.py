#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""kprint.ko loaded and unloaded 100 times (500 in make soak; a cycle takes
about a second in the emulated guest under the flood, the backlog of a
printk ring full of flood lines taken at every load) with its
printk bridge on, under a printk flood on every CPU
(kprint_printk_test.ko's flood_cpus), a running exporter and a reader of
/dev/kmsg; then an NMI backtrace of every CPU (sysrq l) during the flood.

Per life: the hook saw the flood (bridged > 0); kprint's own echo of one
emitted record is skipped, exactly once; every other life switches the
bridge off at run time before the unload, so that its counters are final:
records stored == bridged + backlog + the emitted one, nothing dropped, and
the exporter received or counted lost exactly those; the other lives
unload with the bridge on, under the flood.  At the end every flood line
is in the kernel log exactly once (none lost or doubled by the bridge),
and nothing in the log is a splat (tests/vm/suite checks the console too).
The reader of /dev/kmsg runs at a real-time priority, yet with both vCPUs
on one host thread it can still fall more than printk's ring behind: the
lines printk overwrote before it read them are known by their sequence
numbers, and a flood line may be missing only where such a hole is.
NMI: no deadlock (the write returns, the flood goes on), the backtrace of
the CPU that wrote the sysrq is bridged, those made in NMI on the other
CPUs are counted as dropped-nmi, at least one per line the kernel log
shows (printk joins KERN_CONT pieces; the bridge counts calls).

One Python process: insmod and rmmod are syscalls here, a process start
costs half a second in the emulated guest."""
import bisect
import ctypes
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import (PRINTK_TEST_DEBUGFS, check, finish, get, kmsg_write,  # noqa: E402
                 load_printk_test_module, metric, sized, wait_for, write_printk_param, URL)

CYCLES = int(os.environ.get("KPRINT_RELOAD_CYCLES", sized(100, 500)))
KPRINT_KO = "kernel/kprint.ko"
BRIDGE = "/sys/module/kprint/parameters/bridge"
MARK = "kprint bridge-reload:"
FLOOD_RE = re.compile(r"kprint_printk_test flood cpu (\d+) n (\d+)$")
# A flood line in kprint --json dump: groups text, cpu, n, flags.
FLOOD_JSON_RE = re.compile(b'"text":"(' + FLOOD_RE.pattern.rstrip("$").encode() + b')",.*"flags":(\\d+)')
F_BACKLOG = 4
SPLAT_RE = re.compile(r"BUG:|WARNING:|Oops|general protection|blocked for more than|"
                      r"unreferenced object")
libc = ctypes.CDLL(None, use_errno=True)
SYS_FINIT_MODULE, SYS_DELETE_MODULE = 313, 176	# x86_64
O_NONBLOCK = os.O_NONBLOCK


# A ring that holds a life's backlog (a printk ring full of flood lines)
# and what the bridge adds until the life's dump has read it back.
RING = b"ring_size=8388608"


def insmod(params=b""):
    fd = os.open(KPRINT_KO, os.O_RDONLY)
    try:
        if libc.syscall(SYS_FINIT_MODULE, fd, RING + b" " + params, 0):
            raise OSError(ctypes.get_errno(), "finit_module kprint.ko")
    finally:
        os.close(fd)


def rmmod():
    if libc.syscall(SYS_DELETE_MODULE, b"kprint", O_NONBLOCK):
        raise OSError(ctypes.get_errno(), "delete_module kprint")


def connect():
    """A generic netlink socket on the family of the kprint.ko loaded now."""
    end = time.monotonic() + 30
    while True:
        try:
            return kpnl.Genl()
        except (kpnl.NetlinkError, OSError):
            if time.monotonic() > end:
                raise
            time.sleep(0.01)


def exporter_counts():
    status, body = get("/metrics")
    page = body.decode()
    lost = sum(int(float(metric(page, f'kprint_exporter_records_lost_total{{reason="{r}"}}') or 0))
               for r in ("overwritten", "missing"))
    return int(float(metric(page, "kprint_exporter_records_received_total") or 0)), lost


# The reader of /dev/kmsg: a process of its own, so that it keeps up with
# the flood; it starts at the end of the log and writes one record a line,
# "GAP n" where records were overwritten before it read them ("GAP" alone
# for the read that told it so).
READER = r"""
import os, sys
# Ahead of the flood's kworkers, so that it falls behind as little as it can.
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
fd = os.open("/dev/kmsg", os.O_RDONLY)
os.lseek(fd, 0, os.SEEK_END)
out = open(sys.argv[1], "wb", buffering=1 << 16)
out.write(b"READY\n")
out.flush()
last = None
while True:
    try:
        raw = os.read(fd, 8192)
    except BrokenPipeError:
        out.write(b"GAP\n")
        continue
    head, _, rest = raw.partition(b";")
    seq = int(head.split(b",")[1])
    if last is not None and seq != last + 1:
        out.write(b"GAP %d\n" % (seq - last - 1))
    last = seq
    out.write(head + b";" + rest.split(b"\n", 1)[0] + b"\n")
    if rest.startswith(sys.argv[2].encode()):
        out.flush()
"""
KMSG_OUT = "/tmp/bridge-reload.kmsg"
reader = subprocess.Popen([sys.executable, "-c", READER, KMSG_OUT, MARK])


def kmsg_has(text):
    try:
        with open(KMSG_OUT, "rb") as f:
            return text.encode() in f.read()
    except FileNotFoundError:	# the reader is not up yet
        return False


wait_for("the /dev/kmsg reader is up", lambda: kmsg_has("READY"))
kmsg_write(f"{MARK} reader up")
wait_for("the /dev/kmsg reader reads", lambda: kmsg_has(f"{MARK} reader up"))
exporter = subprocess.Popen(["kprint_exporter", "--listen", URL[len("http://"):]],
                            stderr=open("/tmp/bridge-reload.exporter.err", "w"))


def healthy():
    try:
        return exporter.poll() is not None or get("/healthz")[0] == 200
    except OSError:
        return False


wait_for("the exporter answers /healthz", healthy)
check("the exporter runs", exporter.poll() is None)
load_printk_test_module()
# The flood's pace, a 1 ms pause after every line per CPU: the reader must
# see every line of it and still leave the test some CPU.
write_printk_param("flood_pause_every", 1)
flood = threading.Thread(target=write_printk_param, args=("flood_cpus", 4000000000))
flood.start()

# Life 1 is loaded with bridge=0, like every odd life.
rmmod()
insmod(b"bridge=0")
genl = connect()
t0 = time.monotonic()
failed, lives, behind, reloads = None, [], [], 1
doubled, backlogged = [], 0
for c in range(1, CYCLES + 1):
    exact = c % 2 == 1
    try:
        if exact:
            # Loaded with bridge=0: nothing made yet.  Once the exporter
            # has seen the reload, the lives before are settled in its
            # counters, and this life's records are what they gain.
            wait_for(f"life {c}: the exporter saw {reloads} reloads", lambda: int(float(metric(
                get("/metrics")[1].decode(), "kprint_exporter_module_reloads_total") or 0)) >= reloads)
            base = sum(exporter_counts())
            with open(BRIDGE, "w") as f:
                f.write("1")
        # The hook sees the flood in this life.
        if not wait_for(f"life {c}: the bridge took some of the flood",
                        lambda: genl.stats()["bridged"] > 0, 30):
            raise OSError(0, "no flood bridged")
        # kprint's own record is echoed to printk, and that echo skipped.
        genl.emit(6, "kprint bridge-reload life %d", [str(c)])
        if exact:
            with open(BRIDGE, "w") as f:
                f.write("0")
        s = genl.stats()
        lives.append((c, exact, s))
        if not exact and c <= 6:
            # Loaded with the bridge on: the backlog was taken while the
            # hook already ran.  No message may be in both.  The bridge
            # is off for the dump (three lives; on again after it, so the
            # life still ends with it on): under the flood it bridges
            # thousands of records a second, more than a dump reads, and
            # the ring would overwrite the backlog before the dump got
            # there (23,000 records in one dump's time on 6.12).
            # Through the CLI: the tests' own decoder in Python took 28 s
            # for a life's 4,869 records on 6.1-rt.
            with open(BRIDGE, "w") as f:
                f.write("0")
            out = subprocess.run(["kprint", "--json", "dump"], check=True,
                                 stdout=subprocess.PIPE).stdout
            with open(BRIDGE, "w") as f:
                f.write("1")
            lines = out.splitlines()
            seqs = [int(m[1]) if m else None
                    for m in (re.match(rb'\{"seq":(\d+),', line) for line in lines)]
            if seqs != list(range(1, len(seqs) + 1)):
                doubled.append((c, "the dump is not the whole life", len(seqs),
                                [line for line, q in zip(lines, seqs) if q is None][:1]))
            # The flood's lines, text and flags (json.loads() of a life's
            # thousands of records took seconds here).
            ring = [(m[1].decode(), int(m[4])) for m in (FLOOD_JSON_RE.search(line) for line in lines)
                    if m]
            backlog = {t for t, flags in ring if flags & F_BACKLOG}
            live = [t for t, flags in ring if not flags & F_BACKLOG]
            twice = [t for t in live if t in backlog]
            if twice:
                doubled.append((c, twice[:3], len(twice)))
            backlogged += len(backlog)
        if exact and not wait_for(f"life {c}: the exporter received or lost its {s['records']} records",
                                  lambda: sum(exporter_counts()) >= base + s["records"], 30) or \
                exact and sum(exporter_counts()) != base + s["records"]:
            behind.append((c, s["records"], sum(exporter_counts()) - base))
        if c % 10 == 0:
            print(f"# bridge-reload: {c} cycles, {time.monotonic() - t0:.1f} s", flush=True)
        genl.close()
        rmmod()
        insmod(b"" if exact else b"bridge=0")
        reloads += 1
        genl = connect()
    except (OSError, kpnl.NetlinkError, KeyError) as e:
        failed = f"cycle {c}: {e}"
        break
took = time.monotonic() - t0
check(f"{CYCLES} load/unload cycles under the flood", failed is None, failed)
print(f"# bridge-reload: {len(lives)} cycles in {took:.1f} s")

# Each life's books balance.
bad = []
for c, exact, s in lives:
    made = s["bridged"] + s["bridge_backlog"] + 1
    dropped = sum(v for k, v in s.items() if k.startswith("bridge_dropped") or k == "bridge_missed")
    if s["bridge_skipped"] != 1 or (exact and (s["records"] != made or dropped)) or \
            s["bridged"] == 0 or (exact and s["bridge_backlog"]):
        bad.append((c, {k: v for k, v in s.items() if k.startswith("bridge") or k == "records"}))
check("every life: bridged > 0, skipped == 1 (its one echo); those loaded with bridge=0 and "
      "switched off before unload: records == bridged + 1, nothing dropped", not bad, bad[:3])
check("the exporter received or counted lost exactly the records of those lives",
      not behind and lives, behind[:3])
check(f"no flood line both in the backlog and bridged live ({backlogged} in backlogs)",
      not doubled and backlogged > 0, doubled[:3])
total = {k: sum(s[k] for _, _, s in lives) for k in ("bridged", "bridge_backlog", "records",
                                                    "bridge_skipped")}
print(f"# bridge-reload: over all lives {total}")

with open(f"{PRINTK_TEST_DEBUGFS}/flood_stop", "w") as f:
    f.write("1")
flood.join(60)
check("the flood stops when told", not flood.is_alive())

# An NMI backtrace of every CPU while a flood runs, the bridge on.
with open(BRIDGE, "w") as f:
    f.write("1")
with open("/proc/sys/kernel/printk") as f:
    printk_levels = f.read().split()
# The backtraces are no splat: keep them off the console, which
# tests/vm/suite scans; this test looks at them in the log instead.
with open("/proc/sys/kernel/printk", "w") as f:
    f.write("1")
flood = threading.Thread(target=write_printk_param, args=("flood_cpus", 4000000000))
flood.start()
wait_for("the flood runs again", lambda: genl.stats()["bridged"] > 0)
s0 = genl.stats()
latest = json.loads(get("/records?limit=1")[1] or b"[]")
nmi_after = latest[-1]["seq"] if latest else 0
kmsg_write(f"{MARK} nmi begin")
t_nmi = time.monotonic()
with open("/proc/sysrq-trigger", "w") as f:
    f.write("l")
t_nmi = time.monotonic() - t_nmi
kmsg_write(f"{MARK} nmi end")
wait_for("the reader has the NMI backtraces", lambda: kmsg_has(f"{MARK} nmi end"))
s1 = genl.stats()
check("the flood still runs after the backtraces (no deadlock)",
      wait_for("more flood", lambda: genl.stats()["bridged"] > s1["bridged"], 30))
with open(f"{PRINTK_TEST_DEBUGFS}/flood_stop", "w") as f:
    f.write("1")
flood.join(60)
check("and stops when told", not flood.is_alive())


def printk_order(after):
    """Records of printk from kprint seq after on, up to the NMI's end
    marker; and those whose printk_seq goes back.  An appended fragment
    (flag 8, cont) carries the seq of the line it joined, which may lie
    before records committed meanwhile: only whole records must follow
    printk's order."""
    recs, back, top = [], [], 0
    while True:
        status, body = get(f"/records?source=printk&after={after}&limit=1000")
        page = json.loads(body or b"[]") if status == 200 else []
        for r in page:
            if r.get("source") != "printk" or not r.get("printk_seq"):
                continue	# kprint's own, or a seq the bridge could not read
            recs.append(r)
            if r["flags"] & 8 and r["printk_seq"] <= top:
                continue
            if r["printk_seq"] <= top:
                back.append((r["seq"], r["printk_seq"], top))
            top = max(top, r["printk_seq"])
        if not page or any(r["text"] == f"{MARK} nmi end" for r in page):
            return recs, back
        after = page[-1]["seq"]


order_recs, order_back = printk_order(nmi_after)
check(f"around the NMI backtraces, {len(order_recs)} records in printk's order "
      "(an NMI's commit lets no later record overtake)", order_recs and not order_back,
      order_back[:3])
status, body = get("/records?q=NMI%20backtrace%20for%20cpu")
nmi_records = [r["text"] for r in json.loads(body)] if status == 200 else None
with open("/proc/sys/kernel/printk", "w") as f:
    f.write(" ".join(printk_levels))
print(f"# bridge-reload: sysrq l took {t_nmi:.2f} s")

# The exporter has every record the last life made once it has the
# final emit.
seq = genl.emit(6, "kprint bridge-reload final %d", ["0"])
wait_for("the exporter has the final record", lambda: any(
    r["seq"] == seq for r in json.loads(get("/records?q=bridge-reload%20final")[1] or b"[]")))

# The kernel log: every flood line once, each CPU's numbers 0, 1, ...
kmsg_write(f"{MARK} end")
wait_for("the reader has the end marker", lambda: kmsg_has(f"{MARK} end"))
reader.kill()
reader.wait()
exporter.terminate()
check("the exporter stops with status 0", exporter.wait(30) == 0)

lines = open(KMSG_OUT, "rb").read().decode("utf-8", "replace").split("\n")
gaps = [line for line in lines if line.startswith("GAP ")]
per_cpu, texts, seqs = {}, [], []
for line in lines:
    if ";" not in line:
        continue
    head, text = line.split(";", 1)
    seq = int(head.split(",")[1])
    texts.append(text)
    seqs.append(seq)
    m = FLOOD_RE.match(text)
    if m:
        per_cpu.setdefault(int(m[1]), []).append((int(m[2]), seq))
n_flood = sum(len(v) for v in per_cpu.values())
span = seqs[-1] - seqs[0] + 1 if seqs else 0
unseen = span - len(seqs)
print(f"# bridge-reload: {n_flood} flood lines read, per CPU "
      f"{ {c: len(v) for c, v in sorted(per_cpu.items())} }; {len(seqs)} of the {span} "
      f"records printk stored meanwhile, {unseen} overwritten before the reader came "
      f"({len(gaps)} holes)")
check("the reader read most of the log (>= 90 %), and the flood's lines",
      span and len(seqs) >= 0.9 * span and n_flood > CYCLES, (len(seqs), span, n_flood))


def unread(q1, q2):
    """Records printk stored between seqs q1 and q2 that the reader missed."""
    return (q2 - q1 - 1) - (bisect.bisect_left(seqs, q2) - bisect.bisect_right(seqs, q1))


# Per CPU, the flood's numbers go up by one from line to line, except
# where the second flood (the NMI's) starts again from 0, and across a
# hole of the reader, which may hide at most as many lines as it is long:
# a line lost or doubled by printk (or by the bridge) shows.
wrong, hidden, floods = [], 0, {}
for cpu, v in sorted(per_cpu.items()):
    floods[cpu] = 1
    for (n1, q1), (n2, q2) in zip(v, v[1:]):
        if n2 == n1 + 1:
            continue
        if n2 <= n1:	# the next flood, its lines before n2 in a hole
            floods[cpu] += 1
            missing = n2
        else:
            missing = n2 - n1 - 1
        if missing > unread(q1, q2):
            wrong.append((cpu, n1, n2, q1, q2, unread(q1, q2)))
        hidden += missing
check(f"every flood line once, in order, on every CPU ({len(per_cpu)} CPUs, two floods each; "
      f"{hidden} behind the reader's holes)",
      len(per_cpu) == os.cpu_count() and set(floods.values()) == {2} and not wrong and
      hidden <= unseen, (floods, wrong[:3]))
splats = [t for t in texts if SPLAT_RE.search(t)]
check("no splat in the kernel log", not splats, splats[:3])

# The NMI backtraces: those of the CPUs the NMI reached, made in NMI,
# are dropped-nmi, one per line; the writer's own is bridged.
begin, end = (texts.index(f"{MARK} nmi {w}") if f"{MARK} nmi {w}" in texts else None
              for w in ("begin", "end"))
window = texts[begin + 1:end] if begin is not None and end is not None else []
check("the reader read every record of the backtraces' time",
      window and seqs[end] - seqs[begin] == end - begin, (begin, end))
window = [t for t in window if not FLOOD_RE.match(t)]
heads = [i for i, t in enumerate(window) if re.match(r"NMI backtrace for cpu \d+", t)]
# A backtrace prints "Call Trace:" and "RIP:", which tests/vm/run takes for
# a splat wherever it finds them in the log.  These are this test's own,
# deliberate ones (a real splat fails the check above): listed as accounted
# for in $KPRINT_VM_SCRATCH/splats-charged, the file tests/vm/run documents
# for exactly that and tests/vm/suite writes the same way.  They never reach
# the console (loglevel=5), so the suite's own scan has nothing to charge.
scratch = os.environ.get("KPRINT_VM_SCRATCH")
if scratch and heads:
    with open(os.path.join(scratch, "splats-charged"), "a") as f:
        for t in window[heads[0]:]:
            if re.search(r"RIP:|Call Trace:", t):
                f.write(t + "\n")
print(f"# bridge-reload: sysrq l: {len(window)} lines, backtrace heads {[window[i] for i in heads]}")
check(f"every CPU's backtrace is in the log ({os.cpu_count()})", len(heads) == os.cpu_count(),
      [window[i] for i in heads])
local = [window[i] for i in heads if nmi_records and window[i] in nmi_records]
check("the backtrace of the CPU that wrote the sysrq is bridged, the others not",
      nmi_records is not None and len(nmi_records) == 1 and len(local) == 1,
      (nmi_records, [window[i] for i in heads]))
in_nmi = 0
for a, b in zip(heads, heads[1:] + [len(window)]):
    if window[a] not in (nmi_records or []):
        in_nmi += b - a
drops = {k: s1[k] - s0[k] for k in s1 if k.startswith("bridge_dropped") or k == "bridge_missed"}
print(f"# bridge-reload: NMI lines in the log {in_nmi}, bridge drops {drops}")
# A printk call per count, a line per record: printk may have joined
# KERN_CONT pieces made in NMI into one line, so the count may be more.
check("the lines made in NMI are counted as dropped-nmi (at least one per line)",
      drops.get("bridge_dropped_nmi", 0) >= in_nmi > 0, (in_nmi, drops))
check("and nothing else dropped", not any(v for k, v in drops.items() if k != "bridge_dropped_nmi"),
      drops)
finish()
