#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Cardinality: 10,000 distinct formats replayed into kprint_exporter.

/metrics must hold at most --max-series series per source plus exactly one
overflow series, keep the largest counts, and the overflow series' value must
be exactly the sum of the series it stands for; the page must still pass
promtool.  The file is generated here, so every count is known beforehand.
"""
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, SERIES_LABELS, Tap, line, parse_metrics, promtool_check, record  # noqa: E402

FORMATS = 10000
t = Tap()
work = tempfile.mkdtemp(prefix="kpx-cardinality.")
rng = random.Random(20261203)

# Format i is seen 1..9 times; records in a shuffled order.
counts = {}
order = []
for i in range(FORMATS):
    fmt = "format %05d says %%d" % i
    counts[fmt] = rng.randint(1, 9)
    order += [fmt] * counts[fmt]
rng.shuffle(order)
total = len(order)
path = os.path.join(work, "formats.jsonl")
with open(path, "wb") as f:
    for seq, fmt in enumerate(order, 1):
        f.write(line(record(seq, fmt, level="warn", subsystem="card", module="test")))
ids = {record(0, fmt)["format_id"]: fmt for fmt in counts}


def series_of(ex):
    body = ex.get("/metrics")[2]
    samples = parse_metrics(body.decode("utf-8"))
    return body, [s for s in samples if s[0] == "kprint_format_messages_total"]


for max_series in (100, 5000, 0, 10000, 20000):
    args = [] if max_series == 5000 else ["--max-series", str(max_series)]
    ex = Exporter(path, "--records", "1000", *args)
    try:
        body, series = series_of(ex)
    finally:
        ex.stop()
    what = "--max-series %d" % max_series if args else "the default --max-series (5000)"
    kept = [s for s in series if dict(s[1])["format"] != "__overflow__"]
    over = [s for s in series if dict(s[1])["format"] == "__overflow__"]
    want_kept = min(max_series, FORMATS)
    t.ok(len(kept) == want_kept and len(over) == (1 if FORMATS > max_series else 0),
         "%s, %d formats: %d series and %d overflow series (want %d and %d)"
         % (what, FORMATS, len(kept), len(over), want_kept, 1 if FORMATS > max_series else 0))
    t.ok(all(dict(s[1])["source"] == "replay" for s in series) and
         all([k for k, _ in s[1]] == SERIES_LABELS for s in series),
         "%s: every series is source=\"replay\" with the labels of the BPF series" % what)
    kept_fmts = set()
    right = True
    for s in kept:
        fmt = ids.get(dict(s[1])["format_id"])
        right &= fmt is not None and dict(s[1])["format"] == fmt and s[2] == counts[fmt]
        kept_fmts.add(fmt)
    t.ok(right, "%s: each kept series has its format's exact count" % what)
    dropped = [c for fmt, c in counts.items() if fmt not in kept_fmts]
    t.ok(not kept or not dropped or min(s[2] for s in kept) >= max(dropped),
         "%s: the largest counts keep their series" % what)
    if over:
        labels = dict(over[0][1])
        t.ok(over[0][2] == sum(dropped) and all(labels[k] == "" for k in
                                                ("format_id", "level", "class",
                                                 "subsystem", "module")),
             "%s: the overflow series is exactly the sum of the %d dropped (%d == %d), "
             "its other labels empty" % (what, len(dropped), over[0][2], sum(dropped)))
    t.ok(sum(s[2] for s in series) == total,
         "%s: all series together count all %d records" % (what, total))
    if max_series in (100, 10000):
        passed, said = promtool_check(body)
        t.ok(passed, "%s: promtool check metrics passes (%s)" % (what, said[:200] or "ok"))

shutil.rmtree(work)
t.done()
