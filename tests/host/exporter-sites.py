#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter --sites.dir on a replay (no kernel needed): the running
kernel's call-site catalog (DIR/$(uname -r).jsonl, as kprint sites build
writes it) served on /sites, each entry seen or never seen by the
replayed records' counts, with count; the filters (module, level, kind,
source, function, format_id, q, seen, limit, offset), a 400 naming the
parameter for a bad one; ?summary=1; /formats?never=1; the metrics
kprint_sites_loaded, kprint_sites_entries{kernel},
kprint_sites_load_failures_total and kprint_formats_uncataloged{source}
(the replayed formats the catalog lacks); without a catalog a 404 saying
how to build one; a catalog written after the start is taken, and a
corrupt one is said with FILE:LINE, counted and served as absent.
"""
import atexit
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, fnv1a64, parse_metrics, promtool_check, record, temp_replay  # noqa: E402

KERNEL = os.uname().release
NASTY = 'sites "%s" at C:\\dev \u00e9t\u00e9 %d'   # a quote, a backslash, non-ASCII bytes
NASTY_NEVER = 'never "%s" \\ \u00fc'

t = Tap()
work = tempfile.mkdtemp(prefix="kpx-sites.")
atexit.register(shutil.rmtree, work, True)


def entry(fmt, level="info", module="vmlinux", function=None, kind="printk", source="image"):
    return {"format_id": "%016x" % fnv1a64(fmt.encode()), "format": fmt, "level": level,
            "module": module, "function": function, "kind": kind, "source": source}


# Seen by the records below: two functions print "sites alpha %d", two entries.
CATALOG = [entry("sites alpha %d", function="alpha_a"),
           entry("sites alpha %d", function="alpha_b"),
           entry(NASTY, level="warn", module="brd", function="brd_probe", kind="dev",
                 source="module"),
           entry("sites beta %s", level="err", module="e1000e", function="e1000_up",
                 kind="netdev", source="module"),
           # Never seen.
           entry(NASTY_NEVER, level="crit", module="brd", function="brd_exit", kind="dev",
                 source="module"),
           entry("sites oops at %px", level=None, kind="printk_bare"),
           entry("sites cont %d", level="cont", module="snd", function="snd_x"),
           entry("sites debug only", level="debug", module="snd", function="snd_y")]
RECORDS = [("sites alpha %d", "info"), ("sites alpha %d", "info"), (NASTY, "warn"),
           ("sites beta %s", "err"), ("sites beta %s", "err"), ("sites beta %s", "err"),
           # Not in the catalog: kprint's own API, an out-of-tree module.
           ("kprint api %s", "notice"), ("outoftree %d", "info"), ("outoftree %d", "info")]
replay = temp_replay("kpx-sites-r.", [
    record(i + 1, fmt, level=lv, source="printk" if i % 2 else "kprint")
    for i, (fmt, lv) in enumerate(RECORDS)])
counts = {}
for fmt, _ in RECORDS:
    counts[fmt] = counts.get(fmt, 0) + 1
cataloged = {e["format"] for e in CATALOG}
uncataloged = {fmt for fmt in counts if fmt not in cataloged}


def header(n):
    return {"kprint_sites": 1, "kernel": KERNEL, "built": "2026-12-06T04:30:00Z",
            "image": "/boot/vmlinuz-" + KERNEL, "modules": 3, "kallsyms": False,
            "printk_index": False, "entries": n, "seconds": 0.5}


def write_catalog(d, lines):
    """DIR/KVER.jsonl written as the build does: a temporary file renamed."""
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, ".%s.tmp" % KERNEL)
    with open(tmp, "w", encoding="utf-8") as f:
        for ln in lines:
            f.write((ln if isinstance(ln, str) else json.dumps(ln, ensure_ascii=False)) + "\n")
    os.rename(tmp, os.path.join(d, KERNEL + ".jsonl"))
    return os.path.join(d, KERNEL + ".jsonl")


def get_json(exp, path):
    status, headers, body = exp.get(path)
    try:
        return status, headers, json.loads(body)
    except ValueError:
        return status, headers, body


def metrics(exp):
    body = exp.get("/metrics")[2]
    return body, {(n, tuple(lb)): v for n, lb, v in parse_metrics(body.decode())}


def key(e):
    return (e["format_id"], e["module"], e["function"] or "", e["kind"], e["source"])


def want_seen(e):
    return e["format"] in counts


def q(**params):
    return "/sites?" + urllib.parse.urlencode(params)


# As the build writes them: by format_id, then module and function.
CATALOG.sort(key=lambda e: (e["format_id"], e["module"], e["function"] or ""))
full = os.path.join(work, "full")
write_catalog(full, [header(len(CATALOG))] + CATALOG)
exp = Exporter(replay, "--sites.dir", full)
atexit.register(exp.stop)

# Every entry as the file has it, plus seen and count.
status, headers, got = get_json(exp, "/sites?limit=100")
t.ok(status == 200 and headers.get("Content-Type") == "application/json" and
     isinstance(got, list) and len(got) == len(CATALOG),
     "GET /sites: 200, JSON, %d entries (%s, %d)" % (len(CATALOG), status, len(got)))
by_key = {key(e): e for e in got} if isinstance(got, list) else {}
t.ok(all(by_key.get(key(e), {}).get(k) == v for e in CATALOG for k, v in e.items()),
     "each entry's fields as the file has them: format with quote, backslash and UTF-8 intact,"
     " level and function null where the file has null")
t.ok(all(by_key.get(key(e), {}).get("seen") == want_seen(e) for e in CATALOG),
     "seen: true exactly for the formats the replayed records use (%s)" %
     sorted((e["format"], e["seen"]) for e in by_key.values()))
t.ok(all(by_key[key(e)].get("count") == counts[e["format"]] if want_seen(e) else
         "count" not in by_key.get(key(e), {}) for e in CATALOG),
     "count: the replayed records of the format when seen, absent when not")
t.ok([e["format_id"] for e in got] == sorted(e["format_id"] for e in got),
     "entries in format_id order")

# Filters.
FILTERS = [
    (dict(module="brd"), lambda e: e["module"] == "brd"),
    (dict(level="err+"), lambda e: e["level"] in ("emerg", "alert", "crit", "err")),
    (dict(level="warn,debug"), lambda e: e["level"] in ("warn", "debug")),
    (dict(level="none"), lambda e: e["level"] is None),
    (dict(level="cont"), lambda e: e["level"] == "cont"),
    (dict(kind="dev,netdev"), lambda e: e["kind"] in ("dev", "netdev")),
    (dict(source="image"), lambda e: e["source"] == "image"),
    (dict(function="alpha_b"), lambda e: e["function"] == "alpha_b"),
    (dict(q='"%s" at C:\\dev \u00e9'), lambda e: '"%s" at C:\\dev \u00e9' in e["format"]),
    (dict(q="\\ \u00fc"), lambda e: "\\ \u00fc" in e["format"]),
    (dict(format_id=CATALOG[0]["format_id"]), lambda e: e["format_id"] == CATALOG[0]["format_id"]),
    (dict(seen=1), want_seen),
    (dict(seen=0), lambda e: not want_seen(e)),
    (dict(seen=0, module="brd"), lambda e: not want_seen(e) and e["module"] == "brd"),
]
for params, pick in FILTERS:
    status, _, got = get_json(exp, q(**params))
    want = sorted(key(e) for e in CATALOG if pick(e))
    t.ok(status == 200 and isinstance(got, list) and sorted(key(e) for e in got) == want and
         want, "/sites?%s: the %d entries it selects (%s, %s)" %
         (urllib.parse.urlencode(params), len(want), status,
          got if not isinstance(got, list) else len(got)))

pages, offset = [], 0
while offset <= len(CATALOG):
    status, _, got = get_json(exp, q(limit=3, offset=offset))
    if status != 200 or not got:
        break
    pages.append(got)
    offset += 3
t.ok([len(p) for p in pages] == [3, 3, 2] and
     sorted(key(e) for p in pages for e in p) == sorted(key(e) for e in CATALOG),
     "limit=3 and offset page through every entry once (%r)" % [len(p) for p in pages])

for query, param in (("level=bogus", "level"), ("level=", "level"), ("level=cont%2B", "level"),
                     ("kind=printf", "kind"), ("source=disk", "source"), ("seen=2", "seen"),
                     ("limit=0", "limit"), ("limit=10001", "limit"), ("offset=-1", "offset"),
                     ("format_id=xyz", "format_id"), ("module=", "module"),
                     ("summary=yes", "summary"), ("never=1", "never"), ("color=red", "color"),
                     ("q=a%00b", "q")):
    status, _, err = get_json(exp, "/sites?" + query)
    t.ok(status == 400 and isinstance(err, dict) and err.get("parameter") == param and
         err.get("error"), "/sites?%s: 400 naming %s (%s %r)" % (query, param, status, err))

# The summary: the header's kernel and counts.
seen_n = sum(1 for e in CATALOG if want_seen(e))
status, _, s = get_json(exp, "/sites?summary=1")
t.ok(status == 200 and isinstance(s, dict) and s.get("kernel") == KERNEL and
     s.get("built") == "2026-12-06T04:30:00Z" and s.get("entries") == len(CATALOG) and
     s.get("seen") == seen_n and s.get("never_seen") == len(CATALOG) - seen_n,
     "/sites?summary=1: kernel, built, %d entries, %d seen, %d never seen (%r)" %
     (len(CATALOG), seen_n, len(CATALOG) - seen_n, s))
status, _, s = get_json(exp, "/sites?summary=1&module=brd")
t.ok(status == 200 and s.get("entries") == 2 and s.get("seen") == 1,
     "summary=1 with a filter counts what it selects (%r)" % s)

# /formats?never=1: the catalog's formats without a count.
status, _, got = get_json(exp, "/formats?never=1&limit=100")
t.ok(status == 200 and isinstance(got, list) and
     sorted(key(e) for e in got) == sorted(key(e) for e in CATALOG if not want_seen(e)) and
     all(e["seen"] is False for e in got),
     "/formats?never=1: the entries never seen (%s, %s)" % (status, got if status != 200 else len(got)))
status, _, got = get_json(exp, "/formats?never=1&module=snd")
t.ok(status == 200 and sorted(e["function"] for e in got) == ["snd_x", "snd_y"],
     "/formats?never=1&module=snd: the filters of /sites apply (%s)" % status)
for query, param in (("never=0", "never"), ("seen=1&never=1", "seen"), ("x=1", "x")):
    status, _, err = get_json(exp, "/formats?" + query)
    t.ok(status == 400 and isinstance(err, dict) and err.get("parameter") == param,
         "/formats?%s: 400 naming %s (%s %r)" % (query, param, status, err))
status, _, _ = exp.get("/formats")
t.ok(status == 503, "/formats without parameters as before: 503 on a replay (%s)" % status)

body, m = metrics(exp)
t.ok(m.get(("kprint_sites_loaded", ())) == 1 and
     m.get(("kprint_sites_entries", (("kernel", KERNEL),))) == len(CATALOG) and
     m.get(("kprint_sites_load_failures_total", ())) == 0,
     "kprint_sites_loaded 1, kprint_sites_entries{kernel=%s} %d, no load failures" %
     (KERNEL, len(CATALOG)))
t.ok(m.get(("kprint_formats_uncataloged", (("source", "replay"),))) == len(uncataloged),
     "kprint_formats_uncataloged{source=replay}: the %d replayed formats the catalog lacks (%r)"
     % (len(uncataloged), m.get(("kprint_formats_uncataloged", (("source", "replay"),)))))
ok, why = promtool_check(body)
t.ok(ok, "promtool check metrics: " + why)
t.ok(exp.alive(), "the exporter serves on")

# The page's toggle: the formats never fired, as text, asked for only when on.
from pagetest import Browser, By  # noqa: E402
REPLAY_503 = "/formats - Failed to load resource: the server responded with a status of 503"
never = [e for e in CATALOG if not want_seen(e)]
b = Browser()
try:
    b.get("http://%s:%d/" % (exp.host, exp.port))
    hidden = b.until(lambda: b.js("return document.getElementById('never').hidden"), 5)
    b.d.find_element(By.ID, "never-toggle").click()
    shown = b.until(lambda: [(li.get_attribute("data-format-id"),
                              li.find_element(By.CLASS_NAME, "fmt").text)
                             for li in b.d.find_elements(By.CSS_SELECTOR, "#never li")] ==
                    [(e["format_id"], e["format"]) for e in never], 5)
    status = b.js("return document.getElementById('never-status').textContent")
    t.ok(hidden and shown and "%d of the %d" % (len(never), len(CATALOG)) in status,
         "the page's toggle lists the %d formats never fired, quote, backslash and UTF-8 as"
         " text (%r)" % (len(never), status))
    b.d.find_element(By.ID, "never-toggle").click()
    t.ok(b.until(lambda: b.js("return document.getElementById('never').hidden &&"
                              " !document.querySelector('#never li')"), 5),
         "toggled off, the list goes")
    errors = b.errors(allowed=[REPLAY_503])
    t.ok(not errors, "no console errors but /formats' 503 (%r)" % errors[:3])
finally:
    b.quit()

# No catalog at the start: absent, not an error; then built, then corrupt.
empty = os.path.join(work, "empty")
os.makedirs(empty)
late = Exporter(replay, "--sites.dir", empty)
atexit.register(late.stop)
status, _, err = get_json(late, "/sites")
t.ok(status == 404 and isinstance(err, dict) and "kprint sites build" in err.get("error", "") and
     KERNEL in err.get("error", ""),
     "no catalog: /sites 404 naming the kernel and kprint sites build (%s %r)" % (status, err))
status, _, err = get_json(late, "/formats?never=1")
t.ok(status == 404, "no catalog: /formats?never=1 404 too (%s)" % status)
_, m = metrics(late)
t.ok(m.get(("kprint_sites_loaded", ())) == 0 and
     not any(n in ("kprint_sites_entries", "kprint_formats_uncataloged") for n, _ in m) and
     m.get(("kprint_sites_load_failures_total", ())) == 0,
     "no catalog: kprint_sites_loaded 0, no entries or uncataloged series, no failure")


def wait_for(check, deadline=20):
    """Poll check() until it holds; the exporter looks at the file every few seconds."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    return None


path = write_catalog(empty, [header(len(CATALOG))] + CATALOG)
got = wait_for(lambda: get_json(late, "/sites?summary=1")[0] == 200 and
               get_json(late, "/sites?summary=1")[2])
t.ok(got and got.get("entries") == len(CATALOG) and got.get("seen") == seen_n,
     "a catalog written after the start is taken (%r)" % got)
_, m = metrics(late)
t.ok(m.get(("kprint_sites_loaded", ())) == 1 and
     m.get(("kprint_formats_uncataloged", (("source", "replay"),))) == len(uncataloged),
     "then kprint_sites_loaded 1 and the uncataloged count")

# Line 3 is not an entry.
n = len(late.stderr)
write_catalog(empty, [header(len(CATALOG)), CATALOG[0], '{"format_id":"zz","format":',
                      CATALOG[1]])
got = wait_for(lambda: get_json(late, "/sites")[0] == 404 and get_json(late, "/sites")[2])
t.ok(got and "%s:3:" % path in got.get("error", ""),
     "a corrupt catalog is served as absent, /sites saying FILE:3 (%r)" % got)
t.ok(late.wait_log("%s:3:" % path, n),
     "and the exporter warns with FILE:3 (%r)" % late.stderr[n:])
_, m = metrics(late)
t.ok(m.get(("kprint_sites_loaded", ())) == 0 and
     m.get(("kprint_sites_load_failures_total", ())) == 1 and
     ("kprint_sites_entries", (("kernel", KERNEL),)) not in m,
     "kprint_sites_loaded 0, kprint_sites_load_failures_total 1, no entries series")
write_catalog(empty, [header(2)] + CATALOG[:2])
got = wait_for(lambda: get_json(late, "/sites?summary=1")[0] == 200 and
               get_json(late, "/sites?summary=1")[2])
t.ok(got and got.get("entries") == 2, "a good catalog again is taken (%r)" % got)
_, m = metrics(late)
t.ok(m.get(("kprint_sites_load_failures_total", ())) == 1,
     "the failure stays counted once")
os.unlink(path)
status = wait_for(lambda: get_json(late, "/sites")[0] == 404)
t.ok(status, "the catalog removed: /sites 404 again")

t.ok(exp.stop() == 0 and late.stop() == 0, "both exporters stop cleanly")
t.done()
