#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""Kernel-side filters, per subscriber (KPRINT_CMD_SUBSCRIBE): a mixed burst
(every level and class, both sources, several modules, subsystems and
formats: kprint_test.ko's table and flood, emit requests, the test module's
printk() and /dev/kmsg writes through the printk bridge) reaches four
filtered subscribers and an unfiltered one at once.  Each filtered one gets
exactly the records of the unfiltered one's copy that match its filter, and
no others; each record says how many records right before it the filter
refused, which adds up to no gap at all; the printk ones agree with
/dev/kmsg.  `kprint monitor --level err+ --source kprint` gets the same as
the kernel-filtered subscriber with that filter, reporting no gap.  Bad
filters are refused with their extack message, and a closed socket's
registration is released."""
import errno
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from kpnl import K, nla, nla_nest, nla_str, nla_u32, nla_u64  # noqa: E402
from lib import (check, finish, json_lines, kmsg_records, kmsg_write,  # noqa: E402
                 load_test_module, reload_kprint, subscribers, wait_for, wait_subscribers,
                 write_param)

kpnl._U64.add("FILTERED")
F = lambda name: K["KPRINT_FILTER_A_" + name]  # noqa: E731
SOURCE_KPRINT, SOURCE_PRINTK = 0, 1
FLOOD_FMT = "kprint_test flood %u"


def filt(*attrs):
    return nla_nest(K["KPRINT_A_FILTER"], *attrs)


def subscribe(g, payload):
    """KPRINT_CMD_SUBSCRIBE on g: the reply's seq (the filter's start) and
    any record that came before the acknowledgement."""
    g.send(g.family, K["KPRINT_CMD_SUBSCRIBE"], payload)
    start, early = None, []
    for _, _, cmd, attrs in g.messages():
        if cmd == K["KPRINT_CMD_SUBSCRIBE"]:
            start = kpnl.struct.unpack("=Q", dict(attrs)[K["KPRINT_A_SEQ"]])[0]
        elif cmd == K["KPRINT_CMD_RECORD_NTF"]:
            early += [kpnl.decode_record(v) for t, v in attrs if t == K["KPRINT_A_RECORD"]]
    return start, early


# The filters, as the kernel gets them and as Python decides them.
FILTERS = {
    "err+ of kprint": (filt(nla_u32(F("LEVEL"), 3), nla_u32(F("SOURCE"), SOURCE_KPRINT)),
                       lambda r: r["level"] <= 3 and r["source"] == SOURCE_KPRINT),
    "kprint_test's flood, warn and detected formats":
        (filt(nla_str(F("MODULE"), "kprint_test"),
              *[nla_u64(F("FORMAT_ID"), kpnl.fnv1a64(f.encode()))
                for f in (FLOOD_FMT, "kprint_test warn %X", "kprint_test detected %*d")]),
         lambda r: r.get("module") == "kprint_test" and r.get("format") in
         (FLOOD_FMT, "kprint_test warn %X", "kprint_test detected %*d")),
    "warning+ of printk": (filt(nla_u32(F("SOURCE"), SOURCE_PRINTK), nla_u32(F("LEVEL"), 4)),
                           lambda r: r["level"] <= 4 and r["source"] == SOURCE_PRINTK),
    "class detected, subsystem sub1": (filt(nla_u32(F("CLASS"), 1), nla_str(F("SUBSYSTEM"), "sub1")),
                                       lambda r: r["class"] == 1 and r.get("subsystem") == "sub1"),
}

load_test_module()
ctl = kpnl.Genl()
unf = kpnl.Genl(rcvbuf=8 << 20)
unf.join()
subs = {}
for name, (payload, pred) in FILTERS.items():
    g = kpnl.Genl(rcvbuf=8 << 20)
    start, early = subscribe(g, payload)
    check(f"{name}: subscribed, the filter applies from seq {start}", start is not None)
    subs[name] = {"g": g, "pred": pred, "start": start, "recs": early}
wait_subscribers(unf.groups["records"], 1)

# kprint monitor's kernel-filtered subscription, as the CLI makes it.
cli_out = os.path.join(os.environ.get("WORK", "/tmp"), "filtered-cli.json")
cli = subprocess.Popen(["kprint", "monitor", "-v", "--json", "--level", "err+", "--source", "kprint"],
                       stdout=open(cli_out, "w"), stderr=subprocess.PIPE, text=True)
# The monitor anchors at next_seq once subscribed, which nothing outside
# shows: a record matching its filter every half second until one arrives.
ready = []


def cli_ready():
    if not ready or time.monotonic() - ready[-1][1] > 0.5:
        ready.append((ctl.emit(3, "filtered test: monitor ready"), time.monotonic()))
    seen = {s for s, _ in ready}
    return any(r.get("seq") in seen for r in json_lines(cli_out))


wait_for("kprint monitor got a first record", cli_ready)
first_seq = ready[-1][0]

# And one with the second filter, --module and --format-id.
cli2_out = os.path.join(os.environ.get("WORK", "/tmp"), "filtered-cli2.json")
cli2 = subprocess.Popen(["kprint", "monitor", "-v", "--json", "--module", "kprint_test"] +
                        [a for f in (FLOOD_FMT, "kprint_test warn %X", "kprint_test detected %*d")
                         for a in ("--format-id", "%016x" % kpnl.fnv1a64(f.encode()))],
                        stdout=open(cli2_out, "w"), stderr=subprocess.PIPE, text=True)
ready2 = []


def cli2_ready():
    if not ready2 or time.monotonic() - ready2[-1] > 0.5:
        write_param("flood", 1)
        ready2.append(time.monotonic())
    return any("seq" in r for r in json_lines(cli2_out))


wait_for("kprint monitor --module --format-id got a first record", cli2_ready)
first2 = max(r["seq"] for r in json_lines(cli2_out) if "seq" in r)
# Both are kernel-filtered: neither joined the group, only `unf` did.
check("the filtered kprint monitors did not join the records group",
      subscribers(unf.groups["records"]) == 1, f"{subscribers(unf.groups['records'])} members")

# The burst.
kmsg_write("filtered test: burst begins", 6)
write_param("emit", 2)
for i in range(40):
    ctl.emit(i % 8, "filtered emit %d", [str(i)], klass=i % 5, subsystem=f"sub{i % 3}")
write_param("printk", 50)
for i in range(30):
    kmsg_write(f"filtered kmsg {i}", (3, 4, 6)[i % 3])
write_param("flood", 300)
write_param("emit", 1)
# One last record for each filter, in this order.
mark_a = ctl.emit(3, "filtered test: end A")
write_param("flood", 1)
kmsg_write("filtered test: end C", 4)
mark_d = ctl.emit(6, "filtered test: end D", klass=1, subsystem="sub1")

# The unfiltered copy, up to the last marker and the printk one.
unf.sock.settimeout(60)
every = []
try:
    for batch in unf.notifications():
        every += batch
        if any(r["seq"] == mark_d for r in batch) and \
                any(r.get("text") == "filtered test: end C" for r in every):
            break
except socket.timeout:
    check("the unfiltered subscriber got the whole burst", False, f"{len(every)} records")
seqs = [r["seq"] for r in every]
check("the unfiltered subscriber got every record once, in order, no gap",
      seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"{len(seqs)} records from {seqs[:1]}")
check("no record sent to the unfiltered subscriber carries a filtered count",
      all("filtered" not in r for r in every))
by_seq = {r["seq"]: r for r in every}
mark_b = max(r["seq"] for r in every if r.get("format") == FLOOD_FMT and r["seq"] > mark_a)
mark_c = next(r["seq"] for r in every if r.get("text") == "filtered test: end C")
marks = dict(zip(FILTERS, (mark_a, mark_b, mark_c, mark_d)))

for name, s in subs.items():
    g, pred, mark = s["g"], s["pred"], marks[name]
    g.sock.settimeout(60)
    try:
        while not any(r["seq"] >= mark for r in s["recs"]):
            s["recs"] += next(g.notifications())
    except socket.timeout:
        check(f"{name}: got its marker {mark}", False, f"{len(s['recs'])} records")
        continue
    recs = s["recs"]
    check(f"{name}: every record it got matches its filter ({len(recs)})",
          all(pred(r) for r in recs), str([r for r in recs if not pred(r)][:2]))
    lo = max(s["start"], seqs[0])
    want = [by_seq[q] for q in range(lo, mark + 1) if pred(by_seq[q])]
    got = [r for r in recs if lo <= r["seq"] <= mark]
    strip = lambda r: {k: v for k, v in r.items() if k != "filtered"}  # noqa: E731
    check(f"{name}: exactly the {len(want)} matching records of the unfiltered copy, field by field",
          [strip(r) for r in got] == want,
          f"got {len(got)}, seqs {[r['seq'] for r in got][:5]} want {[r['seq'] for r in want][:5]}")
    # seq - filtered is always the seq after the previous record: no gap,
    # and what was refused in between is what does not match.
    prev, bad, wrong = s["start"], [], []
    for r in recs:
        if r["seq"] - r.get("filtered", -1) != prev:
            bad.append((r["seq"], r.get("filtered"), prev))
        wrong += [q for q in range(max(prev, seqs[0]), r["seq"]) if q in by_seq and pred(by_seq[q])]
        prev = r["seq"] + 1
    check(f"{name}: each record's filtered count closes the gap before it exactly", not bad, str(bad[:3]))
    check(f"{name}: the refused records are the ones that do not match", not wrong, str(wrong[:5]))

# The printk ones, against /dev/kmsg.
printk = subs["warning+ of printk"]["recs"]
kmsg = {k["seq"]: k for k in kmsg_records()}
begin = next(r["printk_seq"] for r in every if r.get("text") == "filtered test: burst begins")
# kprint's own records reach the log too, as echoes the bridge leaves out.
echoes = {r["text"] for r in every if r["source"] == SOURCE_KPRINT}
want_k = sorted(q for q, k in kmsg.items() if begin <= q <= by_seq[mark_c]["printk_seq"]
                and k["level"] <= 4 and k["text"] not in echoes)
got_k = [r["printk_seq"] for r in printk if r["seq"] <= mark_c and r["printk_seq"] >= begin]
check(f"warning+ of printk: the {len(want_k)} /dev/kmsg records at warning or above, in order",
      got_k == want_k, f"only got {sorted(set(got_k) - set(want_k))[:5]}, "
      f"only want {[(q, kmsg[q]) for q in sorted(set(want_k) - set(got_k))][:3]}")
check("warning+ of printk: texts and levels as /dev/kmsg has them",
      all(kmsg[r["printk_seq"]]["text"] == r["text"] and kmsg[r["printk_seq"]]["level"] == r["level"]
          for r in printk if r["printk_seq"] in kmsg and not r["flags"] & 8))

# kprint monitor with the same filter as "err+ of kprint".
wait_for("kprint monitor showed marker A",
         lambda: any(r.get("seq") == mark_a for r in json_lines(cli_out)))
cli.send_signal(signal.SIGINT)
_, cli_err = cli.communicate(timeout=30)
shown = [r["seq"] for r in json_lines(cli_out) if "seq" in r and first_seq < r["seq"] <= mark_a]
want = [r["seq"] for r in subs["err+ of kprint"]["recs"] if first_seq < r["seq"] <= mark_a]
check(f"kprint monitor --level err+ --source kprint: the same {len(want)} records", shown == want,
      f"got {len(shown)}, want {len(want)}")
check("kprint monitor reported no gap, loss or overrun", cli_err.strip() == "", cli_err[:300])

wait_for("kprint monitor --module --format-id showed marker B",
         lambda: any(r.get("seq") == mark_b for r in json_lines(cli2_out)))
cli2.send_signal(signal.SIGINT)
_, cli2_err = cli2.communicate(timeout=30)
pred_b = FILTERS["kprint_test's flood, warn and detected formats"][1]
shown = [r["seq"] for r in json_lines(cli2_out) if "seq" in r and first2 < r["seq"] <= mark_b]
want = [r["seq"] for r in subs["kprint_test's flood, warn and detected formats"]["recs"]
        if first2 < r["seq"] <= mark_b]
check(f"kprint monitor --module kprint_test --format-id x3: the same {len(want)} records",
      shown == want, f"got {len(shown)}, want {len(want)}")
check("kprint monitor --module --format-id reported no gap, loss or overrun",
      cli2_err.strip() == "", cli2_err[:300])

# The kernel did the filtering: nothing that does not match reached the CLI.
check("kprint monitor: every record shown is err+ of kprint",
      all(r["level_num"] <= 3 and r["source"] == "kprint" for r in json_lines(cli_out) if "seq" in r))


def refused(what, payload, want_errno, want_msg):
    g = kpnl.Genl()
    try:
        subscribe(g, payload)
        check(f"bad filter {what}: refused", False, "the kernel accepted it")
    except kpnl.NetlinkError as e:
        check(f"bad filter {what}: {errno.errorcode[want_errno]}, '{want_msg}'",
              e.errno == want_errno and want_msg.lower() in e.msg.lower(),
              f"got {errno.errorcode.get(e.errno, e.errno)} '{e.msg}'")
    g.close()


refused("unknown level 8", filt(nla_u32(F("LEVEL"), 8)), errno.ERANGE, "out of range")
refused("unknown source 2", filt(nla_u32(F("SOURCE"), 2)), errno.ERANGE, "out of range")
refused("empty module", filt(nla_str(F("MODULE"), "")), errno.EINVAL, "empty module")
refused("empty subsystem", filt(nla_str(F("SUBSYSTEM"), "")), errno.EINVAL, "empty subsystem")
refused("17 format ids", filt(*[nla_u64(F("FORMAT_ID"), i) for i in range(17)]),
        errno.EINVAL, "more than KPRINT_FORMAT_IDS_MAX")
refused("format id of 4 bytes", filt(nla_u32(F("FORMAT_ID"), 1)), errno.EINVAL, "length")
refused("unknown attribute", filt(nla_u32(F("FORMAT_ID") + 1, 1)), errno.EINVAL, "unknown attribute")
refused("no filter", b"", errno.EINVAL, "missing KPRINT_A_FILTER")
r = subprocess.run(["kprint", "monitor", "--module", "x" * 64, "--count", "1"],
                   capture_output=True, text=True, timeout=30)
check("kprint monitor --module of 64 bytes: refused by the kernel, its message shown",
      r.returncode != 0 and "subscribe" in r.stderr, r.stderr.strip()[:200])

# Registrations end with their sockets: fill every place, close, again.
for s in subs.values():
    s["g"].close()
more, full = [], None
for i in range(40):
    g = kpnl.Genl()
    try:
        subscribe(g, filt(nla_u32(F("LEVEL"), 0)))
        more.append(g)
    except kpnl.NetlinkError as e:
        full = e
        g.close()
        break
check(f"filtered subscriber number {len(more) + 1} refused: 'too many filtered subscribers'",
      full is not None and full.errno == errno.ENOSPC and "too many" in full.msg, str(full))
for g in more:
    g.close()
g = kpnl.Genl()
try:
    subscribe(g, filt(nla_u32(F("LEVEL"), 0)))
    check(f"after {len(more)} sockets closed, subscribing works again", True)
except kpnl.NetlinkError as e:
    check(f"after {len(more)} sockets closed, subscribing works again", False, str(e))
g.close()

r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    "--inh-caps=-all", "--bounding-set=-all", "--",
                    "kprint", "monitor", "--level", "err+", "--count", "1"],
                   capture_output=True, text=True, timeout=30)
check("an unprivileged filtered subscribe is refused: CAP_SYS_ADMIN",
      r.returncode != 0 and "CAP_SYS_ADMIN" in r.stderr, r.stderr.strip()[:200])

# An overrun stays an overrun: a subscriber too slow for its own records
# gets ENOBUFS, and the records lost show as a gap the filtered counts do
# not cover.
slow = kpnl.Genl(rcvbuf=4096)
payload, pred = FILTERS["kprint_test's flood, warn and detected formats"]
start, got = subscribe(slow, payload)
write_param("flood", 3000)
# Read what was queued: the overrun shows, and the socket is drained.
slow.sock.setblocking(False)
enobufs = False
while True:
    try:
        got += next(slow.notifications())
    except OSError as e:
        if e.errno == errno.ENOBUFS:
            enobufs = True
            continue
        if e.errno == errno.EAGAIN:
            break
        raise
# The worker may still be sending the flood's tail into a full socket: one
# more matching record at a time until one arrives past the marker.
mark = ctl.emit(3, "filtered test: after the overrun")
slow.sock.settimeout(2)
for _ in range(30):
    write_param("flood", 1)
    try:
        while not any(r["seq"] > mark for r in got):
            got += next(slow.notifications())
        break
    except OSError as e:
        if e.errno == errno.ENOBUFS:
            enobufs = True
        elif not isinstance(e, socket.timeout):
            raise
check("the slow filtered subscriber got a record after the flood", any(r["seq"] > mark for r in got),
      f"{len(got)} records")
prev, holes = start, 0
for r in got:
    holes += r["seq"] - r["filtered"] != prev
    prev = r["seq"] + 1
check("a filtered subscriber that overran gets ENOBUFS on its socket", enobufs)
check(f"what it lost shows as gaps ({holes}), its records all match ({len(got)} of 3001)",
      holes > 0 and len(got) < 3001 and all(pred(r) for r in got))
slow.close()

# kprint.ko reloaded under a filtered kprint monitor: it subscribes again.
cli = subprocess.Popen(["kprint", "monitor", "--json", "--level", "err+", "--source", "kprint"],
                       stdout=open(cli_out, "w"), stderr=subprocess.PIPE, text=True)
ready.clear()
wait_for("the second kprint monitor got a first record", cli_ready)
ctl.close()
reload_kprint()
ctl = kpnl.Genl()
ready.clear()
wait_for("after kprint.ko's reload, the filtered monitor gets records again", cli_ready)
cli.send_signal(signal.SIGINT)
_, cli_err = cli.communicate(timeout=30)
shown = json_lines(cli_out)
check("after the reload, still only err+ of kprint",
      all(r["level_num"] <= 3 and r["source"] == "kprint" for r in shown if "seq" in r))
check("kprint monitor said kprint.ko was unloaded and loaded again, and nothing else failed",
      cli.returncode == 0 and "unloaded" in cli_err, cli_err[:300])
finish()
