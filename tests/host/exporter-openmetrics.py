#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""/metrics in OpenMetrics, on the host with --replay: what Accept asks for
decides the exposition (Prometheus 2.42's header, q values, garbage), both
carry Vary: Accept, the OpenMetrics one parses with python3-prometheus-client's
OpenMetrics parser and ends in # EOF, the text one still passes `promtool
check metrics`, and both hold the same samples.  Each per-format counter's
exemplar names the newest record of that series the exporter holds (seq and
module instance, the record's timestamp), within the spec's 128 characters,
and /records?format_id=F&after=SEQ-1&limit=1 gives that very record; a series
whose records the store no longer holds, and the overflow series, have none.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import (Exporter, Tap, line, parse_metrics, promtool_check,  # noqa: E402
                     record)
from prometheus_client.openmetrics.parser import \
    text_string_to_metric_families  # noqa: E402

t = Tap()
started = time.monotonic()
work = tempfile.mkdtemp(prefix="kpx-om.")

OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
TEXT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PROMETHEUS_2_42 = ("application/openmetrics-text;version=1.0.0,"
                   "application/openmetrics-text;version=0.0.1;q=0.75,"
                   "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")

# Accept -> OpenMetrics (True) or the text format (False).
NEGOTIATION = [
    (None, False),
    ("text/plain", False),
    ("text/plain;version=0.0.4", False),
    ("*/*", False),
    ("application/json", False),
    (PROMETHEUS_2_42, True),
    ("application/openmetrics-text", True),
    ("application/openmetrics-text; version=1.0.0; charset=utf-8", True),
    ("APPLICATION/OpenMetrics-Text;Version=0.0.1", True),
    ("application/openmetrics-text;version=0.0.1;q=0.75,text/plain;q=0.5", True),
    ("text/plain;q=0.2, application/openmetrics-text;q=0.3", True),
    ("application/openmetrics-text;q=0.5,text/plain;q=0.9", False),
    ("application/openmetrics-text;q=0.5,*/*", False),
    ("application/openmetrics-text;q=0", False),
    ("application/openmetrics-text;version=2.0.0", False),
    # Garbage: the range that does not parse is ignored, the text format served.
    ("garbage", False),
    (";;;,,,", False),
    ("application/openmetrics-text;q=abc", False),
    ("application/openmetrics-text;q=1.5", False),
    ("application/openmetrics-text;q", False),
    ("/openmetrics-text", False),
    ("application/openmetrics-text;q=0.9,garbage;;q=1", True),
]

# The replay: "disk %s failed" at two levels, newest at seq 21 and 19; "link
# %s down" newest at 13, which a store of 8 records no longer holds while
# --max-series 3 keeps its series; a printk of the bridge; a format of odd
# bytes.
recs = []
seq = 0


def add(fmt, n, **kw):
    global seq
    for _ in range(n):
        recs.append(record(seq, fmt, **kw))
        seq += 1


add("disk %s failed", 5, module="m1", args=["sda"], subsystem="block")
add("odd \"quote\" \\ \n é %d", 3, level="err", module="m2")
add("link %s down", 6, level="warn", module="net")
add("usb %d-%d: new device", 2, source="printk", module="")
add("disk %s failed", 4, level="err", module="m1", subsystem="block")
add("disk %s failed", 2, module="m1", subsystem="block")
path = os.path.join(work, "replay.json")
with open(path, "wb") as f:
    for r in recs:
        f.write(line(r))


def series_key(labels):
    return (labels["format_id"], labels["level"], labels["class"], labels["subsystem"],
            labels["module"])


def newest_in(rs):
    """series key -> the newest record of each among rs."""
    out = {}
    for r in rs:
        out[(r["format_id"], r["level"], r["class"], r["subsystem"], r["module"])] = r
    return out


def om_families(body):
    """(families, error) of an OpenMetrics body."""
    try:
        return list(text_string_to_metric_families(body.decode("utf-8"))), None
    except Exception as e:  # the parser raises ValueError and others
        return None, repr(e)


def check_exemplars(ex, fams, held, what):
    """Every per-format series: an exemplar exactly when held has a record
    of it, naming the newest; /records gives that record by it."""
    fam = [f for f in fams if f.name == "kprint_format_messages"]
    if not t.ok(len(fam) == 1 and fam[0].type == "counter",
                "%s: kprint_format_messages is one counter family (%r)"
                % (what, [(f.name, f.type) for f in fam])):
        return
    want = newest_in(held)
    bad, linked, n = [], 0, 0
    for s in fam[0].samples:
        if s.name != "kprint_format_messages_total":
            bad.append("sample %s" % s.name)
            continue
        r = want.get(series_key(s.labels))
        e = s.exemplar
        if r is None:
            if e is not None:
                bad.append("%s has an exemplar %r, no record held" % (s.labels["format"], e))
            continue
        n += 1
        if e is None:
            bad.append("%s has no exemplar" % s.labels["format"])
            continue
        chars = sum(len(k) + len(v) for k, v in e.labels.items())
        ts_ns = e.timestamp.sec * 10**9 + e.timestamp.nsec if e.timestamp else None
        if (sorted(e.labels) != ["kprint_instance", "seq"] or e.labels["seq"] != str(r["seq"])
                or not re.fullmatch(r"[0-9a-f]{8}", e.labels["kprint_instance"])
                or e.value != 1 or ts_ns != r["ts_real_ns"] or chars > 128):
            bad.append("%s: exemplar %r, wanted seq %d ts %d" % (
                s.labels["format"], e, r["seq"], r["ts_real_ns"]))
            continue
        q = urllib.parse.urlencode({"format_id": s.labels["format_id"],
                                    "after": r["seq"] - 1, "limit": 1})
        st, _, body = ex.get("/records?" + q)
        got = json.loads(body) if st == 200 else None
        if got and got[0]["seq"] == r["seq"] and got[0]["format"] == r["format"]:
            linked += 1
        else:
            bad.append("/records?%s gave %s %r" % (q, st, body[:200]))
    t.ok(not bad and n and linked == n,
         "%s: the %d series with records held each carry an exemplar of their newest"
         " (seq, kprint_instance, value 1, the record's timestamp, <= 128 chars), the"
         " others none, and /records?format_id=F&after=SEQ-1&limit=1 gives each exemplar's"
         " record (%d linked)%s" % (what, n, linked, "".join("; " + b for b in bad[:5])))


ex = Exporter(path)
try:
    # --- negotiation --------------------------------------------------------
    wrong = []
    for accept, om in NEGOTIATION:
        hdrs = {"Accept": accept} if accept is not None else {}
        for method in ("GET", "HEAD"):
            st, h, body = ex.get("/metrics", method=method, headers=hdrs)
            ctype = h.get("Content-Type")
            ends = body.endswith(b"\n# EOF\n")
            if (st != 200 or ctype != (OM_TYPE if om else TEXT_TYPE) or h.get("Vary") != "Accept"
                    or (method == "GET" and ends != om) or (method == "HEAD" and body)):
                wrong.append("%s Accept %r: %s %r Vary %r, # EOF at the end %s" % (
                    method, accept, st, ctype, h.get("Vary"), ends))
    t.ok(not wrong, "%d Accept headers, GET and HEAD: OpenMetrics exactly where a range of it"
         " has the highest q (Prometheus 2.42's header among them), the text format for none,"
         " text/plain, */* and garbage; Vary: Accept on every answer%s"
         % (len(NEGOTIATION), "".join("; " + w for w in wrong[:6])))

    # --- both expositions ------------------------------------------------------
    st, h, om = ex.get("/metrics", headers={"Accept": PROMETHEUS_2_42})
    st2, h2, text = ex.get("/metrics")
    fams, err = om_families(om)
    t.ok(fams is not None, "the OpenMetrics exposition parses with prometheus_client's"
         " OpenMetrics parser (%s)" % (err or "%d families" % len(fams)))
    passed, said = promtool_check(text)
    t.ok(passed, "the text exposition passes promtool check metrics (%s)"
         % (said[:300] or "no complaints"))
    om_lines = om.decode().split("\n")
    counters = [ln.split()[2] for ln in om_lines if ln.startswith("# TYPE ") and
                ln.endswith(" counter")]
    t.ok(counters and not [c for c in counters if c.endswith("_total")] and
         "# TYPE kprint_format_messages counter" in om_lines and
         "# HELP kprint_exporter_records_received " in om.decode(),
         "OpenMetrics: the %d counter families are named without _total in HELP and TYPE"
         % len(counters))

    def samples(body):
        """{(name, labels)} -> value, the scrape's own duration left out."""
        out = {}
        for name, labels, value in parse_metrics(body):
            if name != "kprint_exporter_scrape_duration_seconds":
                out[(name, tuple(labels))] = value
        return out
    om_plain = re.sub(r" # \{[^}]*\} \S+( \S+)?$", "", om.decode(), flags=re.M)
    a, b = samples(text.decode()), samples(om_plain)
    t.ok(a == b and len(a) > 20, "both expositions hold the same %d samples (%d differ)"
         % (len(a), len(set(a.items()) ^ set(b.items()))))
    t.ok(" # {" not in text.decode(), "the text format has no exemplars")
    if fams:
        check_exemplars(ex, fams, recs, "every record held")
finally:
    ex.stop()

# --- records no longer held have no exemplar ----------------------------------
ex = Exporter(path, "--records", "8", "--max-series", "3")
try:
    st, h, om = ex.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    fams, err = om_families(om)
    if t.ok(fams is not None, "--records 8 --max-series 3: OpenMetrics parses (%s)"
            % (err or "ok")):
        check_exemplars(ex, fams, recs[-8:], "the store holding the last 8 of %d records"
                        % len(recs))
        over = [s for f in fams for s in f.samples if s.labels.get("format") == "__overflow__"]
        t.ok(len(over) == 1 and over[0].exemplar is None and
             over[0].value == len(recs) - sum(s.value for f in fams for s in f.samples
                                              if f.name == "kprint_format_messages" and
                                              s.labels["format"] != "__overflow__"),
             "the overflow series sums the rest and carries no exemplar (%r)" % over)
finally:
    ex.stop()

shutil.rmtree(work, ignore_errors=True)
print("# exporter-openmetrics: %.1f s" % (time.monotonic() - started))
t.done()
