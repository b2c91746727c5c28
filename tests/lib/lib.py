# SPDX-License-Identifier: GPL-2.0
"""Helpers for the Python end-to-end tests: tests/lib/lib.sh's counterpart.

The tests run as root inside the guest from the checkout's root, and import
this with sys.path.insert(0, "tests/lib").  Each check prints one TAP-style
line, "ok - what" or "not ok - what"; finish() exits non-zero on a failure.
"""
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

TEST_MODULE = "kernel/test/kprint_test.ko"
TEST_PARAMS = "/sys/module/kprint_test/parameters"
# What kprint.ko was loaded with for this test (tests/vm/suite), for the
# tests that load it again themselves.
MODPARAMS = os.environ.get("KPRINT_MODPARAMS",
                           os.environ.get("KPRINT_VM_MODPARAMS", "")).split()
PORT = int(os.environ.get("PORT", "9464"))
URL = f"http://127.0.0.1:{PORT}"
WAIT_SECONDS = float(os.environ.get("WAIT_SECONDS", "60"))
failures = 0


def check(what, cond, detail=""):
    """One TAP line; detail is shown only when the check fails."""
    global failures
    print(("ok - " if cond else "not ok - ") + what + (f" ({detail})" if detail and not cond else ""),
          flush=True)
    failures += not cond
    return bool(cond)


def finish():
    sys.exit(1 if failures else 0)


# One printf conversion of a kernel format (or "%%"): flags, width and
# precision (digits or *), length, and %p with its extension letters.
CONVERSION = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+)?)?(?:hh|h|ll|l|z|t|L)?"
                        r"(?:p[A-Za-z0-9?]*|[cdiuoxXs]))")


def rebuild(fmt, args):
    """The text a format and its rendered args spell, %% being a %."""
    out, pos, it = [], 0, iter(args)
    for m in CONVERSION.finditer(fmt):
        out.append(fmt[pos:m.start()])
        out.append("%" if m.group() == "%%" else next(it, "<missing>"))
        pos = m.end()
    out.append(fmt[pos:])
    return "".join(out)


def start_monitor(path):
    """kprint monitor --json writing to path; json_lines(path) reads it."""
    return subprocess.Popen(["kprint", "monitor", "--json"], stdout=open(path, "w"),
                            stderr=subprocess.PIPE, text=True)


def json_lines(path):
    """The whole JSON lines written to path so far (a last partial one left)."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n")]

def sized(ci, soak):
    """A loop's size: ci in make check, soak in make soak (KPRINT_SOAK=1)."""
    return soak if os.environ.get("KPRINT_SOAK") == "1" else ci


def wait_for(what, cond, seconds=WAIT_SECONDS, state=None):
    """Poll cond() until it is true, for at most seconds of wall time;
    state(), if given, says in the failure what there was instead."""
    end = time.monotonic() + seconds
    while True:
        if cond():
            return True
        if time.monotonic() >= end:
            check(f"{what} within {seconds:g} s", False, state() if state else "")
            return False
        time.sleep(0.01)


def load_test_module(*params):
    subprocess.run(["insmod", TEST_MODULE, *params], check=True)


def reload_kprint(*params):
    """kprint.ko unloaded (kprint_test with it) and loaded with params."""
    if os.path.isdir("/sys/module/kprint_test"):
        subprocess.run(["rmmod", "kprint_test"], check=True)
    subprocess.run(["rmmod", "kprint"], check=True)
    subprocess.run(["insmod", "kernel/kprint.ko", *MODPARAMS, *params], check=True)


def write_param(name, value):
    """Write one kprint_test parameter; the write returns once it is done."""
    with open(os.path.join(TEST_PARAMS, name), "w") as f:
        f.write(str(value))


def stats():
    """`kprint stats --json`, as a dict."""
    return json.loads(subprocess.run(["kprint", "stats", "--json"], check=True,
                                     capture_output=True, text=True).stdout)


def get(path, timeout=30):
    """GET URL + path: (HTTP status, body bytes)."""
    try:
        with urllib.request.urlopen(URL + path, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def metric(page, want):
    """One sample's value from a /metrics page (text), or None."""
    for line in page.splitlines():
        name, _, value = line.rpartition(" ")
        if name == want:
            return value
    return None


# The printk bridge's tests: kprint_printk_test.ko makes known printk()
# calls; its debugfs file "expected" has the record each call site must
# become (kernel/test/kprint_printk_test.c).
PRINTK_TEST_MODULE = "kernel/test/kprint_printk_test.ko"
PRINTK_TEST_PARAMS = "/sys/module/kprint_printk_test/parameters"
DEBUGFS = "/sys/kernel/debug"
PRINTK_TEST_DEBUGFS = f"{DEBUGFS}/kprint_printk_test"


def load_printk_test_module(*params):
    """kprint_printk_test.ko loaded, debugfs mounted for its expected table
    (tests/vm/suite unmounts it after the test)."""
    if not os.path.ismount(DEBUGFS):
        subprocess.run(["mount", "-t", "debugfs", "none", DEBUGFS], check=True)
    subprocess.run(["insmod", PRINTK_TEST_MODULE, *params], check=True)


def printk_test_expected():
    """The expected table: one dict per call site, in the module's order."""
    with open(f"{PRINTK_TEST_DEBUGFS}/expected") as f:
        return [json.loads(line) for line in f]


def write_printk_param(name, value):
    """Write one kprint_printk_test trigger; returns once it is done."""
    with open(os.path.join(PRINTK_TEST_PARAMS, name), "w") as f:
        f.write(str(value))


def kmsg_unescape(raw):
    """/dev/kmsg's \\xNN escapes undone, as text."""
    raw = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), raw)
    return raw.decode("utf-8", "surrogateescape")


def kmsg_records(fd=None):
    """Every record /dev/kmsg has (or has left for an open fd), each a dict:
    seq, level, facility, usec (its timestamp), cont (its flags field is
    "c"), text and the
    dictionary lines (SUBSYSTEM, DEVICE), all unescaped; a record lost to
    the ring while reading shows as a gap in seq."""
    own = fd is None
    if own:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    records = []
    try:
        while True:
            try:
                raw = os.read(fd, 8192)
            except BlockingIOError:
                break
            except BrokenPipeError:		# overwritten before read
                continue
            head, _, rest = raw.partition(b";")
            fields = head.split(b",")
            lines = rest.split(b"\n")
            prio = int(fields[0])
            rec = {"seq": int(fields[1]), "level": prio & 7, "facility": prio >> 3,
                   "usec": int(fields[2]), "cont": fields[3:4] == [b"c"],
                   "text": kmsg_unescape(lines[0])}
            for line in lines[1:]:
                if line.startswith(b" ") and b"=" in line:
                    k, _, v = line[1:].partition(b"=")
                    rec[k.decode()] = kmsg_unescape(v)
            records.append(rec)
    finally:
        if own:
            os.close(fd)
    return records


def between(items, begin, end, text_of):
    """The items after the one whose text_of() is begin, up to the one whose
    text_of() is end: (those items, whether end came)."""
    out, on = [], False
    for it in items:
        t = text_of(it)
        if t == begin:
            on = True
        elif t == end:
            return out, True
        elif on:
            out.append(it)
    return out, False


def printk_lines(recs):
    """printk's ring records, rebuilt from bridged records in seq order: a
    pr_cont() fragment (flags bit 3) that continues the line of the record
    just before it (its line start, or a fragment of the same line) is part
    of that ring record, as printk appends it there; any other record is a
    ring record of its own.  Each: {"line": the seq of its line's start,
    "recs": its records, "text": their texts joined}, as /dev/kmsg shows."""
    lines = []
    for r in recs:
        line = r["continues"] if r["flags"] & 8 else None
        if line and lines and lines[-1]["line"] == line:
            lines[-1]["recs"].append(r)
        else:
            lines.append({"line": line or r["seq"], "recs": [r]})
    for ln in lines:
        ln["text"] = "".join(r["text"] for r in ln["recs"])
    return lines


def kmsg_write(text, level=6):
    """One line into the kernel log, as a marker between a test's steps."""
    with open("/dev/kmsg", "w") as f:
        f.write(f"<{level}>{text}\n")


def default_loglevel():
    """The level a printk without one gets (default_message_loglevel)."""
    with open("/proc/sys/kernel/printk") as f:
        return int(f.read().split()[1])


def subscribers(group_id):
    """How many sockets have joined generic netlink group group_id."""
    bit = 1 << (group_id - 1)
    with open("/proc/net/netlink") as f:
        rows = [line.split() for line in f.readlines()[1:]]
    return sum(1 for r in rows if r[1] == "16" and int(r[3], 16) & bit)


def wait_subscribers(group_id, count, seconds=30):
    """Wait until count sockets have joined group group_id (a kpnl.Genl's
    groups["records"]), so that what is made next reaches them."""
    return wait_for(f"{count} subscriber(s) joined the records group",
                    lambda: subscribers(group_id) >= count, seconds)
