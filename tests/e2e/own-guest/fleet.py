#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run gives it a lane, a core, of its own)
"""kprint's counters across hosts (docs/fleet.md), with the real programs:
two exporters on --replay files standing for two hosts, and one live
exporter in a guest (tests/vm/run --forward, tests/lib/pageagent.py
emitting records there), scraped by a real Prometheus (OpenMetrics
negotiated, --enable-feature=exemplar-storage, docs/fleet/kprint.rules.yml
loaded) that remote_writes into Debian's victoria-metrics.

- VictoriaMetrics' `sum by (format_id)` of the shared format is exactly the
  three hosts' total, one series: the format_id is the same on every host
  (FNV-1a 64 of the format: the kernel's equals the replay files').
- Prometheus' /api/v1/query_exemplars gives the live exporter's series an
  exemplar whose seq is the newest record emitted, and the live exporter's
  /records?format_id=F&after=SEQ-1&limit=1 gives that record.
- Prometheus scraped all three in OpenMetrics, and loaded the rules.

Nothing sleeps to synchronise: each wait polls with a deadline.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from prometheus_client.openmetrics.parser import \
    text_string_to_metric_families  # noqa: E402
from kpxtest import (REPO, AgentGuest, Exporter, Tap, fnv1a64, free_port, line,  # noqa: E402
                     record)

BOOT_TIMEOUT = 240
FMT = "kprint fleet %s shared"
FMT_ID = "%016x" % fnv1a64(FMT.encode())
COUNTS = {"a": 7, "b": 11, "live": 5}
RULES = os.path.join(REPO, "docs/fleet/kprint.rules.yml")

t = Tap()
t0 = time.monotonic()
work = tempfile.mkdtemp(prefix="kpx-fleet.")
procs = []


def get_json(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def wait_for(what, deadline, step=0.2):
    """what()'s first true value within deadline seconds, else the last."""
    end = time.monotonic() + deadline
    while True:
        try:
            v = what()
        except (OSError, ValueError, KeyError, IndexError):
            v = None
        if v or time.monotonic() > end:
            return v
        time.sleep(step)


def start(argv, name):
    log = open(os.path.join(work, name + ".log"), "wb")
    p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=work)
    procs.append((name, p))
    return p


def stop(p, deadline=20):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(deadline)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def tail(name, n=15):
    try:
        with open(os.path.join(work, name + ".log"), "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return
    for ln in lines[-n:]:
        print("# %s: %s" % (name, ln[:200]))


# --- the guest first: its boot is the long part, the rest starts meanwhile ---
guest = AgentGuest(os.path.join(work, "guest.log"), BOOT_TIMEOUT)
live_port = guest.web

hosts = {}
for host in ("a", "b"):
    path = os.path.join(work, host + ".json")
    with open(path, "wb") as f:
        seq = 0
        for _ in range(COUNTS[host]):
            f.write(line(record(seq, FMT, args=[host], module="fleet")))
            seq += 1
        # A format of this host alone, so that the sum is not just every series.
        for _ in range(3):
            f.write(line(record(seq, "fleet only on %s" % host, module="fleet")))
            seq += 1
    hosts[host] = Exporter(path)

vm_port, prom_port = free_port(), free_port()
victoria = start(["victoria-metrics", "-httpListenAddr=127.0.0.1:%d" % vm_port,
                  "-storageDataPath=" + os.path.join(work, "vmdata"), "-retentionPeriod=1d",
                  "-search.latencyOffset=1s", "-search.disableCache", "-loggerLevel=ERROR"],
                 "victoria-metrics")
with open(os.path.join(work, "prometheus.yml"), "w") as f:
    f.write("""global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - %s
scrape_configs:
  - job_name: kprint
    static_configs:
      - targets: ['127.0.0.1:%d']
        labels: {host: a}
      - targets: ['127.0.0.1:%d']
        labels: {host: b}
      - targets: ['127.0.0.1:%d']
        labels: {host: live}
remote_write:
  - url: http://127.0.0.1:%d/api/v1/write
    queue_config:
      batch_send_deadline: 1s
      min_backoff: 100ms
      max_backoff: 1s
""" % (RULES, hosts["a"].port, hosts["b"].port, live_port, vm_port))
prom = start(["prometheus", "--config.file=" + os.path.join(work, "prometheus.yml"),
              "--storage.tsdb.path=" + os.path.join(work, "tsdb"),
              "--web.listen-address=127.0.0.1:%d" % prom_port,
              "--enable-feature=exemplar-storage"], "prometheus")
PROM = "http://127.0.0.1:%d" % prom_port
VM = "http://127.0.0.1:%d" % vm_port


def prom_query(expr):
    return get_json(PROM + "/api/v1/query?" + urllib.parse.urlencode({"query": expr}))["data"]["result"]


def vm_query(expr):
    return get_json(VM + "/api/v1/query?" + urllib.parse.urlencode({"query": expr}))["data"]["result"]


emitted = []
try:
    if not t.ok(guest.up(), "the guest's exporter and agent answer through the forwards (%.1f s)"
                % (time.monotonic() - t0)):
        raise RuntimeError("no guest")
    emitted = guest.emit("err", FMT, ["live"], COUNTS["live"], subsystem="fleet")
    t.ok(len(emitted) == COUNTS["live"], "%d records of the shared format emitted in the guest"
         " (seqs %r)" % (COUNTS["live"], emitted))
    t_live = time.monotonic()

    def ready():
        with urllib.request.urlopen(PROM + "/-/ready", timeout=5) as r:
            return r.status == 200

    def all_up():
        tg = get_json(PROM + "/api/v1/targets")["data"]["activeTargets"]
        return tg if len(tg) == 3 and all(x["health"] == "up" for x in tg) else None
    targets = wait_for(ready, 60) and wait_for(all_up, 60)
    t.ok(targets, "prometheus scrapes the three exporters: up (%r)"
         % [(x["labels"]["host"], x["health"], x["lastError"]) for x in
            get_json(PROM + "/api/v1/targets")["data"]["activeTargets"]])

    # Prometheus asks OpenMetrics first; what the exporters answered its header.
    with urllib.request.urlopen(urllib.request.Request(
            "http://127.0.0.1:%d/metrics" % live_port, headers={"Accept": (
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")}),
            timeout=10) as r:
        ctype = r.headers.get("Content-Type")
    t.ok(ctype.startswith("application/openmetrics-text; version=1.0.0"),
         "the live exporter answers Prometheus 2.42's Accept in OpenMetrics (%s)" % ctype)

    # The fleet's total of the shared format, from VictoriaMetrics.
    total = sum(COUNTS.values())
    expr = 'sum by (format_id) (kprint_format_messages_total{format="%s"})' % FMT

    def vm_total():
        res = vm_query(expr)
        return res if len(res) == 1 and res[0]["value"][1] == str(total) else None
    res = wait_for(vm_total, 60, 0.3)
    t.ok(res and res[0]["metric"] == {"format_id": FMT_ID},
         "victoria-metrics (remote_write): %s is one series, format_id %s, value %d, the sum"
         " of %r (%r, %.1f s after the emit)" % (expr, FMT_ID, total, COUNTS, vm_query(expr),
                                                  time.monotonic() - t_live))
    per_host = vm_query('kprint_format_messages_total{format="%s"}' % FMT)
    t.ok(sorted((s["metric"]["host"], s["metric"]["format_id"], s["value"][1]) for s in per_host)
         == sorted((h, FMT_ID, str(n)) for h, n in COUNTS.items()),
         "per host: the same format_id on every host, the kernel's too, each host its count (%r)"
         % [(s["metric"].get("host"), s["metric"].get("format_id"), s["value"][1])
            for s in per_host])
    # Among the test's formats only: the guest's own printk may print more.
    top = vm_query('topk(1, sum by (format_id, format) '
                   '(kprint_format_messages_total{format=~"(kprint )?fleet .*"}))')
    t.ok(len(top) == 1 and top[0]["metric"].get("format_id") == FMT_ID,
         "docs/fleet.md's top formats across the fleet puts the shared one first (%r)" % top)

    # Exemplars: the live exporter's newest record, as Prometheus stored it.
    def exemplars():
        now = time.time()
        q = urllib.parse.urlencode({"query": 'kprint_format_messages_total{host="live",'
                                             'format="%s"}' % FMT,
                                    "start": "%.3f" % (now - 86400), "end": "%.3f" % (now + 86400)})
        data = get_json(PROM + "/api/v1/query_exemplars?" + q)["data"]
        seqs = [int(e["labels"]["seq"]) for s in data for e in s["exemplars"]]
        return data if emitted and max(emitted) in seqs else None
    data = wait_for(exemplars, 30, 0.3)
    ex = [e for s in (data or []) for e in s["exemplars"]]
    t.ok(data and all(set(e["labels"]) == {"seq", "kprint_instance"} for e in ex),
         "prometheus' exemplar API returns the live series' exemplars, the newest with seq %s"
         " (%r)" % (max(emitted) if emitted else None, ex[-3:]))
    if ex:
        newest = max(int(e["labels"]["seq"]) for e in ex)
        recs = get_json("http://127.0.0.1:%d/records?%s" % (live_port, urllib.parse.urlencode(
            {"format_id": FMT_ID, "after": newest - 1, "limit": 1})))
        t.ok(len(recs) == 1 and recs[0]["seq"] == newest and recs[0]["format"] == FMT,
             "the live exporter's /records?format_id=%s&after=%d&limit=1 gives the exemplar's"
             " record (%r)" % (FMT_ID, newest - 1, [(r["seq"], r["format"]) for r in recs]))

    # docs/fleet.md's figures: what one scrape of a (nearly idle) host costs.
    for fmt_name, accept in (("text", "text/plain"), ("OpenMetrics", "application/openmetrics-text")):
        with urllib.request.urlopen(urllib.request.Request(
                "http://127.0.0.1:%d/metrics" % live_port, headers={"Accept": accept}),
                timeout=10) as r:
            body = r.read()
        series = [ln for ln in body.decode().splitlines() if ln and not ln.startswith("#")]
        per_format = [ln for ln in series if ln.startswith("kprint_format_messages_total{")]
        print("# fleet: the live exporter's /metrics in %s: %d bytes, %d series (%d per-format)"
              % (fmt_name, len(body), len(series), len(per_format)))
        if fmt_name == "OpenMetrics":
            try:
                fams = list(text_string_to_metric_families(body.decode()))
                err = None
            except Exception as e:  # the parser raises ValueError and others
                fams, err = [], repr(e)
            kernel = [f.name for f in fams if f.name.startswith(("kprint_kernel", "kprint_bpf"))]
            t.ok(not err and kernel, "the live exporter's OpenMetrics, with the kernel's and BPF's"
                 " families, parses with prometheus_client's OpenMetrics parser (%s)"
                 % (err or "%d families" % len(fams)))
    for q in ('scrape_samples_scraped{host="live"}', 'scrape_duration_seconds{host="live"}'):
        print("# fleet: prometheus %s = %s" % (q, [r["value"][1] for r in prom_query(q)]))

    def rules():
        rs = [r for g in get_json(PROM + "/api/v1/rules")["data"]["groups"] for r in g["rules"]]
        return rs if rs and all(r["health"] == "ok" for r in rs) else None
    rs = wait_for(rules, 15)
    t.ok(rs, "prometheus loaded docs/fleet/kprint.rules.yml and evaluates its rules without"
         " error (%r)" % [(r["name"], r["health"], r.get("lastError")) for g in
                          get_json(PROM + "/api/v1/rules")["data"]["groups"] for r in g["rules"]
                          if not rs])
except Exception as e:          # a failed check must still stop the guest
    t.ok(False, "the fleet checks ran to their end (%s: %s)" % (type(e).__name__, e))
finally:
    for _, p in procs:
        stop(p)
    for ex_ in hosts.values():
        ex_.stop()
    st, rc = guest.stop()
    t.ok(st == 0 and rc == 0, "the guest's exporter stopped cleanly (%r) and the guest too (%r)"
         % (st, rc))
    if t.failed:
        for name in ("prometheus", "victoria-metrics", "guest"):
            tail(name)
    shutil.rmtree(work, ignore_errors=True)
    print("# fleet: %.1f s" % (time.monotonic() - t0))
t.done()
