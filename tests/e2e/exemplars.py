#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""The OpenMetrics exemplars with a kernel, both sources: a record emitted
(source kprint) and a /dev/kmsg line the printk bridge made a record
(source printk) each give their per-format series an exemplar that names
them.  The series come from the BPF maps, keyed by the kernel's format id,
tags id, level and class; the exemplars from the exporter's store, keyed
by the same computed from the record: that the two keys agree is what this
checks, for both hooks.  /records?after=SEQ-1&limit=1 gives each exemplar's
record.
"""
import json
import random
import re
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import URL, check, finish, get, kmsg_write, wait_for  # noqa: E402

OM = "application/openmetrics-text"
token = "exemplars-%08x" % random.getrandbits(32)
exporter = subprocess.Popen(["kprint_exporter", "--listen", URL[len("http://"):]],
                            stderr=open("/tmp/exemplars.exporter.err", "w"))


def healthy():
    try:
        return exporter.poll() is not None or get("/healthz")[0] == 200
    except OSError:
        return False


def om_page():
    req = urllib.request.Request(URL + "/metrics", headers={"Accept": OM})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers.get("Content-Type"), r.read().decode()


def exemplar_of(page, source, rec):
    """The seq of the exemplar of rec's series of source, or None.  By the
    whole key: other series of the same format and level may differ in class,
    subsystem or module ("%s" is every /dev/kmsg line's format)."""
    head = ('kprint_format_messages_total{source="%s",format_id="%s",level="%s",class="%s",'
            'subsystem="%s",module="%s",' % (source, rec["format_id"], rec["level"],
                                              rec["class"], rec["subsystem"], rec["module"]))
    for ln in page.splitlines():
        if ln.startswith(head):
            m = re.search(r' # \{seq="(\d+)",kprint_instance="[0-9a-f]{8}"\} 1 \d+\.\d{9}$', ln)
            return int(m.group(1)) if m else None
    return None


def record_at(seq):
    st, body = get("/records?after=%d&limit=1" % (seq - 1))
    recs = json.loads(body) if st == 200 else []
    return recs[0] if recs and recs[0]["seq"] == seq else None


wait_for("the exporter answers /healthz", healthy)
check("the exporter runs", exporter.poll() is None)

seq = kpnl.Genl().emit(4, "exemplars kprint %s", [token], subsystem="exemplars")
kmsg_write("%s printk line" % token, level=4)
want = {}
# The bridged line's record: its format id and seq, from the store.
for source in ("kprint", "printk"):
    found = []

    def stored(source=source, found=found):
        st, body = get("/records?source=%s&limit=1000" % source)
        recs = [r for r in json.loads(body) if token in r["text"]] if st == 200 else []
        found[:] = recs
        return len(recs) == 1
    wait_for("the %s record is in the exporter's store" % source, stored, 30)
    if found:
        want[source] = found[0]
check("the emitted record is seq %d" % seq, want.get("kprint", {}).get("seq") == seq,
      repr(want.get("kprint")))

for source, rec in sorted(want.items()):
    got = [None]

    def has_exemplar(source=source, rec=rec, got=got):
        ctype, page = om_page()
        got[0] = exemplar_of(page, source, rec)
        # A newer record of the same series may have come since: not older.
        return ctype.startswith(OM) and got[0] is not None and got[0] >= rec["seq"]
    t0 = time.monotonic()
    wait_for("the %s series of format %s has an exemplar" % (source, rec["format_id"]),
             has_exemplar, 30)
    named = record_at(got[0]) if got[0] is not None else None
    check("source %s: the series of format_id %s (%r) carries an exemplar, seq %s, %.1f s after"
          " the record; /records gives it, of that format and source"
          % (source, rec["format_id"], rec["format"], got[0], time.monotonic() - t0),
          named is not None and named["format_id"] == rec["format_id"] and
          named["source"] == source and named["level"] == rec["level"],
          "exemplar %r, record %r" % (got[0], named))

exporter.terminate()
check("the exporter stops with status 0", exporter.wait(30) == 0)
finish()
