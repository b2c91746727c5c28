#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""The kernel's own printf test vectors through the printk bridge:
kprint_printf_vectors.ko printk()s every case of lib/test_printf.c (6.1)
that printk can take with constant arguments, "%c" of NUL and "*" widths
among them.  Each bridged record is checked field by field against the
string test_printf.c expects for it and against /dev/kmsg, as four readers
get it: `kprint monitor --json` (live), `kprint dump --json` (the ring),
kprint_exporter's /records, and the text of `kprint dump` for the NUL.
A record is never dropped for its bytes (issue 26): no "malformed", no
loss."""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import (DEBUGFS, PORT, check, finish, get, json_lines, kmsg_records,  # noqa: E402
                 kmsg_write, metric, rebuild, start_monitor, wait_for, wait_subscribers)

MODULE = "kprint_printf_vectors"
MARK = "kppv-test: "
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
# One conversion of a format, as the bridge splits its args.



if not os.path.ismount(DEBUGFS):
    subprocess.run(["mount", "-t", "debugfs", "none", DEBUGFS], check=True)
subprocess.run(["insmod", f"kernel/test/{MODULE}.ko"], check=True)
with open(f"{DEBUGFS}/{MODULE}/expected") as f:
    vectors = [json.loads(line) for line in f]
for v in vectors:
    v["text"] = bytes.fromhex(v["expected_hex"]).decode("utf-8", "surrogateescape")
nul = [v for v in vectors if "\0" in v["text"]]
check(f"{len(vectors)} vectors, the NUL one (\"xxx%cyyy\" of '\\0') among them",
      len(vectors) >= 80 and [v["format"] for v in nul] == ["xxx%cyyy"], len(vectors))
check("'*' widths and precisions among them",
      sum(1 for v in vectors if "*" in v["format"]) >= 8)

genl = kpnl.Genl()
check("the bridge is on", genl.stats().get("bridge") == 1)
exporter = subprocess.Popen(["kprint_exporter", "--no-bpf", "--listen", f"127.0.0.1:{PORT}",
                             "--records", "1000"], stderr=subprocess.PIPE, text=True)
MONITOR_OUT = "/tmp/printf-vectors.monitor.json"
monitor = start_monitor(MONITOR_OUT)
wait_subscribers(genl.groups["records"], 2)


def monitor_lines():
    return json_lines(MONITOR_OUT)


def exporter_has(text):
    try:
        st, body = get("/records?source=printk&limit=1000", timeout=5)
    except OSError:
        return False
    return st == 200 and any(r["text"] == text for r in json.loads(body))


# Each reader follows from the ring's next seq once it has started:
# say something until both show it (as bridge-table.py does).
READY = MARK + "are the readers there?"
next_ready = [0.0]


def readers_follow():
    if time.monotonic() >= next_ready[0]:
        kmsg_write(READY)
        next_ready[0] = time.monotonic() + 0.5
    return any(o.get("text") == READY for o in monitor_lines()) and exporter_has(READY)




def readers_state():
    """What each reader has, for a wait that ran out (CI keeps only this)."""
    try:
        st, body = get("/records?source=printk&limit=1000", timeout=5)
        recs = json.loads(body) if st == 200 else []
        page = get("/metrics", timeout=5)[1].decode()
        lost = [line for line in page.splitlines()
                if line.startswith(("kprint_exporter_records_lost", "kprint_exporter_resync"))]
        served = f"/records {st}: {len(recs)} printk, last {recs[-1]['text'][:60]!r}" \
            if recs else f"/records {st}: none"
    except OSError as e:
        served, lost = f"exporter unreachable: {e}", []
    mon = monitor_lines()
    return (f"monitor: {len(mon)} lines, last {mon[-1].get('text', mon[-1]) if mon else None!r}; "
            f"{served}; {lost}; exporter alive: {exporter.poll() is None}")


wait_for("the monitor and the exporter follow the ring", readers_follow, state=readers_state)
stats0 = genl.stats()
kmsg_write(MARK + "begin")
with open(f"/sys/module/{MODULE}/parameters/run", "w") as f:
    f.write("1")
kmsg_write(MARK + "end")
wait_for("the monitor received the end marker",
         lambda: any(o.get("text") == MARK + "end" for o in monitor_lines()), state=readers_state)
wait_for("the exporter received the end marker", lambda: exporter_has(MARK + "end"),
         state=readers_state)
stats1 = genl.stats()
monitor.send_signal(signal.SIGINT)
_, monitor_err = monitor.communicate(timeout=60)
live = monitor_lines()
dump = subprocess.run(["kprint", "dump", "--json"], capture_output=True, text=True, check=True)
ring = [json.loads(line) for line in dump.stdout.splitlines()]
try:
    st, body = get("/records?source=printk&limit=1000")
    served = json.loads(body) if st == 200 else []
    page = get("/metrics")[1].decode()
except OSError as e:
    served, page = [], ""
    check("the exporter answers after the run", False, f"{e}; {readers_state()}")
exporter.send_signal(signal.SIGTERM)
_, exporter_err = exporter.communicate(timeout=60)
kmsg = kmsg_records()

check("kprint monitor stopped cleanly", monitor.returncode == 0, monitor_err.strip())
for name, err, lines in (("monitor", monitor_err, live), ("dump", dump.stderr, ring),
                         ("exporter", exporter_err, served)):
    check(f"{name}: no record skipped as malformed, nothing lost",
          "malformed" not in err and not [o for o in lines if "lost" in o],
          (err.strip()[-300:], [o for o in lines if "lost" in o][:2]))
check("the exporter counts no malformed record, no lost one",
      metric(page, "kprint_exporter_records_malformed_total") == "0" and
      all(metric(page, f'kprint_exporter_records_lost_total{{reason="{r}"}}') == "0"
          for r in ("overwritten", "missing", "malformed")),
      [line for line in page.splitlines() if "malformed" in line or "records_lost" in line])
drops = {k: stats1[k] - stats0[k] for k in stats1 if k.startswith("bridge_dropped") or
         k == "bridge_missed"}
check("nothing dropped or missed by the bridge", not any(drops.values()), drops)


def window(items, text_of):
    """The items strictly between the begin and end markers."""
    out, inside = [], False
    for it in items:
        t = text_of(it)
        if t == MARK + "begin":
            inside = True
        elif t == MARK + "end":
            return out
        elif inside:
            out.append(it)
    return out


kms = window(kmsg, lambda k: k["text"])
check("/dev/kmsg has every vector between the markers", len(kms) >= len(vectors), len(kms))


def check_reader(name, records):
    """Every printk record between the markers against /dev/kmsg's line in
    the same place, and the module's against their vectors."""
    recs = window([r for r in records if r.get("source") == "printk"], lambda r: r["text"])
    ours = [(r, k) for r, k in zip(recs, kms) if r["module"] == MODULE]
    check(f"{name}: as many printk records as /dev/kmsg lines, {len(vectors)} of them the "
          "module's", len(recs) == len(kms) and len(ours) == len(vectors),
          f"{len(recs)} records, {len(kms)} kmsg lines, {len(ours)} of {MODULE}")
    bad = {}
    for i, (v, (rec, km)) in enumerate(zip(vectors, ours)):
        tag = f"{i} {v['format']!r}"
        fields = {
            "text is test_printf.c's": rec["text"] == v["text"],
            "text is /dev/kmsg's": rec["text"] == km["text"],
            "format is test_printf.c's": rec["format"] == v["format"],
            "format id": rec["format_id"] == "%016x" % kpnl.fnv1a64(v["format"].encode()),
            "args spell the text": rebuild(v["format"], rec["args"]) == rec["text"],
            "level info, as /dev/kmsg": rec["level"] == "info" == LEVELS[km["level"]] and
            rec["level_num"] == 6,
            "facility 0, as /dev/kmsg": rec["facility"] == km["facility"] == 0,
            "source printk, class none": (rec["source"], rec["class"]) == ("printk", "none"),
            "function kppv's": re.match(r"(test_|kppv_|null_|error_|invalid_|hex_|mac|ip4|"
                                        r"uuid|dentry|time_|large_|bitmap|flags|errptr|"
                                        r"fwnode_|fourcc_)", rec["function"]) is not None,
            "subsystem, device as /dev/kmsg": (rec["subsystem"], rec["device"]) ==
            (km.get("SUBSYSTEM", ""), km.get("DEVICE", "")) == ("", ""),
            "no flags": (rec["flags"], rec["continues"]) == (0, 0),
        }
        for what, ok in fields.items():
            if not ok:
                bad.setdefault(what, []).append((tag, rec["text"], km["text"], rec["args"],
                                                 rec["function"]))
    for what in ["text is test_printf.c's", "text is /dev/kmsg's", "format is test_printf.c's",
                 "format id", "args spell the text", "level info, as /dev/kmsg",
                 "facility 0, as /dev/kmsg", "source printk, class none", "function kppv's",
                 "subsystem, device as /dev/kmsg", "no flags"]:
        check(f"{name}: every vector: {what}", what not in bad, bad.get(what, [])[:3])
    n = [r for r, _ in ours if r["format"] == "xxx%cyyy" and r["args"] == ["\0"]]
    check(f"{name}: the NUL is in the text and the arg: \"xxx\\u0000yyy\", [\"\\u0000\"]",
          len(n) == 1 and n[0]["text"] == "xxx\0yyy", [r["text"] for r in n])


check_reader("monitor (live)", live)
check_reader("dump (ring)", ring)
check_reader("exporter /records", served)

# The text of kprint dump shows the NUL as /dev/kmsg does.
text = subprocess.run(["kprint", "dump", "--source", "printk"], capture_output=True,
                      check=True).stdout
check("kprint dump (text) shows the NUL as \\x00, like /dev/kmsg",
      b" xxx\\x00yyy\n" in text and b"xxx\0" not in text)
raw = open("/dev/kmsg", "rb")
os.set_blocking(raw.fileno(), False)
kmsg_raw = b""
while True:
    try:
        chunk = os.read(raw.fileno(), 8192)
    except BlockingIOError:
        break
    except BrokenPipeError:
        continue
    kmsg_raw += chunk + b"\n"
check("/dev/kmsg itself shows it as xxx\\x00yyy", b";xxx\\x00yyy\n" in kmsg_raw)
subprocess.run(["rmmod", MODULE], check=True)
finish()
