#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: alone (a load test, whose scrapes must each answer within 2 s)
"""Slow HTTP clients from one address while another scrapes: Debian's
slowhttptest against kprint_exporter --replay (no kernel).

- slowloris (headers a byte at a time, 300 connections at 300/s) from
  127.0.0.1: the exporter holds 64 of them and answers the others 503; a
  plain request from 127.0.0.1 meanwhile is answered 503 with Retry-After
  (not reset, not left unanswered);
- slow read (answers of 2.4 MB taken 32 bytes a second, 3 pipelined
  requests per connection, 300 connections) from 127.0.0.1: the exporter
  holds 64 connections and 40 requests in flight, and answers 503 past them;
- throughout both, a client at 127.0.0.2 scrapes /metrics with a new
  connection each time: every scrape is 200 within 2 s;
- the refusals are counted, and afterwards /metrics passes promtool.
"""
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, bulky_replay, parse_metrics, promtool_check  # noqa: E402

PER_IP = 64             # KPX_HTTP_PER_IP
ATTACK_S = 8            # each attack's length
SCRAPE_MAX_S = 2.0

t = Tap()
path = bulky_replay("kpx-slow.", 1000, 1000)


def get_from(src, port, path, timeout=10):
    """(status, headers, body) of one GET on a new connection from src."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                   source_address=(src, 0))
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


class Scraper(threading.Thread):
    """/metrics from 127.0.0.2 again and again until stopped: each
    (status or exception, seconds)."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.results = []
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            t0 = time.monotonic()
            try:
                st = get_from("127.0.0.2", self.port, "/metrics", timeout=10)[0]
            except (OSError, http.client.HTTPException) as e:
                st = type(e).__name__
            self.results.append((st, time.monotonic() - t0))
            self.done.wait(0.1)     # a scrape every 0.1 s, not a flood

    def stop(self):
        self.done.set()
        self.join(30)
        return self.results


def refused(port):
    """kprint_exporter_http_refused_total by reason, asked from 127.0.0.2."""
    _, _, body = get_from("127.0.0.2", port, "/metrics")
    return {dict(lb)["reason"]: v for n, lb, v in parse_metrics(body.decode())
            if n == "kprint_exporter_http_refused_total"}


def slowhttptest(port, mode, url, *opts):
    return subprocess.Popen(["slowhttptest", mode, "-c", "300", "-r", "300", "-l", str(ATTACK_S),
                             "-p", "2", "-u", "http://127.0.0.1:%d%s" % (port, url), *opts],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def connected_max(out):
    """The most connections slowhttptest held at once, from its reports."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out.decode("utf-8", "replace"))
    return max((int(n) for n in re.findall(r"connected:\s+(\d+)", text)), default=None)


def scraped(name, results):
    bad = [r for r in results if r[0] != 200 or r[1] > SCRAPE_MAX_S]
    slowest = max((r[1] for r in results), default=0)
    t.ok(len(results) >= ATTACK_S and not bad,
         "during the %s, 127.0.0.2's %d scrapes are all 200 within %.0f s (slowest %.2f s%s)"
         % (name, len(results), SCRAPE_MAX_S, slowest, ", failed: %s" % bad[:3] if bad else ""))


ex = Exporter(path)
port = ex.port
try:
    # Slowloris: the held connections stay until the 10-s request deadline.
    before = refused(port)
    sc = Scraper(port)
    sc.start()
    attack = slowhttptest(port, "-H", "/metrics", "-i", "1", "-x", "8")
    t0 = time.monotonic()
    now = before
    while time.monotonic() - t0 < ATTACK_S and \
            now.get("address", 0) - before.get("address", 0) < 300 - PER_IP - 10:
        now = refused(port)
        time.sleep(0.05)    # a poll's pace, under the deadline above
    try:
        st, heads, body = get_from("127.0.0.1", port, "/healthz", timeout=5)
        err = json.loads(body).get("error") if st == 503 else None
        what = "%s, Retry-After %s, %r" % (st, heads.get("Retry-After"), err)
        ok = st == 503 and heads.get("Retry-After") == "1" and err
    except (OSError, http.client.HTTPException, ValueError) as e:
        what, ok = repr(e), False
    t.ok(ok, "while the slowloris holds 127.0.0.1's %d places, a request from 127.0.0.1 is"
         " answered 503 with Retry-After (%s)" % (PER_IP, what))
    out, _ = attack.communicate(timeout=ATTACK_S + 30)
    scraped("slowloris", sc.stop())
    held = connected_max(out)
    t.ok(held == PER_IP, "slowhttptest held %s connections at most (want %d)" % (held, PER_IP))
    after = refused(port)
    t.ok(after.get("address", 0) - before.get("address", 0) >= 300 - PER_IP,
         "kprint_exporter_http_refused_total{reason=\"address\"} counts at least the %d"
         " connections past %d (%s)" % (300 - PER_IP, PER_IP, after))

    # Slow read: the held connections' answers sit in flight.
    before = after
    sc = Scraper(port)
    sc.start()
    attack = slowhttptest(port, "-X", "/records?limit=1000", "-k", "3", "-n", "1",
                          "-w", "1", "-y", "16", "-z", "32")
    out, _ = attack.communicate(timeout=ATTACK_S + 30)
    scraped("slow read", sc.stop())
    # slowhttptest counts a slow-read connection as connected even once
    # answered 503: the exporter's counts tell what it held.
    after = refused(port)
    d = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    t.ok(d.get("address", 0) >= 300 - PER_IP and d.get("requests", 0) >= 1,
         "%d connections past %d answered 503, and %d requests past --web.max-requests"
         " (%s)" % (d.get("address", 0), PER_IP, d.get("requests", 0), d))

    st, _, body = get_from("127.0.0.1", port, "/metrics")
    passed, said = promtool_check(body)
    t.ok(st == 200 and passed, "afterwards 127.0.0.1 is served, /metrics passes promtool (%s)"
         % st)
    t.ok(ex.alive(), "the exporter still runs")
finally:
    rc = ex.stop()
t.ok(rc == 0, "and stops cleanly on SIGTERM (%s)" % rc)
t.done()
