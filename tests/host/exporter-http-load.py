#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: alone (a load test: wrk and 100 clients, on both cores)
"""Concurrent HTTP clients against kprint_exporter --replay (no kernel):
every client within the limits is served, and past a limit the answer is
503 with Retry-After and a JSON error, never a reset (issue 26, defect 5).

- 40 clients from one address (127.0.0.1), all at once, a new connection
  per request: every request 200;
- the same 40 with keep-alive connections: every request 200;
- wrk (C, epoll) with 40 connections for 2 s, "Connection: close" on
  every request and then keep-alive: no socket error (a reset is a read
  error) and no answer but 2xx; with 100 connections, no socket error;
- 64 clients from one address (the per-address limit) with
  --web.max-requests 64, a new connection per request: every request 200,
  although connections their clients closed may not be cleaned up yet;
- 100 clients from one address holding a connection each (past the 64 per
  address): 64 are served, the other 36 answered 503 with Retry-After, and
  the refusals are counted in kprint_exporter_http_refused_total;
- with --web.max-requests 4, four requests whose answers (6.4 MB) are not
  taken stay in flight: a fifth from the same address is answered 503 with
  Retry-After on its connection while another address is served, and once
  the four are taken the address is served again.

Every exception a client meets is counted by kind: a reset, a close
without an answer and a timeout are all failures.  Other loopback
addresses (127.0.0.2 ...) stand for other clients.
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, bulky_replay, connect_from, parse_metrics  # noqa: E402

CLIENTS = 40            # node_exporter's --web.max-requests default
REQUESTS = 50           # per client and round
PER_IP = 64             # KPX_HTTP_PER_IP
PAST = 100              # clients of the round past the limit

t = Tap()
# 3 KB of text and an argument as long: /records?limit=1000 is 6.4 MB.
path = bulky_replay("kpx-load.", 1000, 3000)


class Source(http.client.HTTPConnection):
    """An HTTP connection from loopback address src."""

    def __init__(self, src, port, timeout=20):
        super().__init__("127.0.0.1", port, timeout=timeout, source_address=(src, 0))


def outcome(e):
    """What went wrong, by kind."""
    if isinstance(e, ConnectionResetError):
        return "reset"
    if isinstance(e, http.client.RemoteDisconnected):
        return "closed unanswered"
    if isinstance(e, socket.timeout):
        return "timeout"
    return type(e).__name__


def is_refusal(status, headers, body):
    """503 with Retry-After and a JSON error."""
    try:
        err = json.loads(body).get("error")
    except ValueError:
        err = None
    return status == 503 and headers.get("Retry-After") == "1" and bool(err)


def round_of(port, clients, keepalive, src="127.0.0.1"):
    """clients threads, REQUESTS GETs of /metrics each, all started at
    once: a Counter of statuses and failure kinds."""
    got = Counter()
    lock = threading.Lock()
    start = threading.Barrier(clients)

    def client():
        start.wait(30)
        c = None
        for _ in range(REQUESTS):
            try:
                if c is None:
                    c = Source(src, port)
                c.request("GET", "/metrics")
                r = c.getresponse()
                body = r.read()
                what = r.status if r.status != 503 else (
                    "503 refusal" if is_refusal(r.status, dict(r.getheaders()), body)
                    else "503 without Retry-After")
            except (OSError, http.client.HTTPException) as e:
                what = outcome(e)
                c.close()
                c = None
            with lock:
                got[what] += 1
            if not keepalive and c:
                c.close()
                c = None
        if c:
            c.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    return got


def refused_counts(ex):
    st, _, body = ex.get("/metrics")
    counts = dict.fromkeys(("connections", "address", "requests"))
    counts.update({dict(labels)["reason"]: v for name, labels, v in parse_metrics(body.decode())
                   if name == "kprint_exporter_http_refused_total"})
    return counts


ex = Exporter(path)
port = ex.port
try:
    for keepalive in (False, True):
        t0 = time.monotonic()
        got = round_of(port, CLIENTS, keepalive)
        t.ok(got == Counter({200: CLIENTS * REQUESTS}),
             "%d clients from 127.0.0.1, %s: all %d requests 200 (%s, %.1f s)"
             % (CLIENTS, "keep-alive" if keepalive else "a new connection per request",
                CLIENTS * REQUESTS, dict(got), time.monotonic() - t0))

    for conns, close in ((CLIENTS, True), (CLIENTS, False), (PAST, False)):
        p = subprocess.run(["wrk", "-t2", "-c%d" % conns, "-d2s", "--timeout", "5s",
                            "http://127.0.0.1:%d/metrics" % port] +
                           (["-H", "Connection: close"] if close else []),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        out = p.stdout.decode("utf-8", "replace")
        n = re.search(r"(\d+) requests in", out)
        errors = re.search(r"Socket errors:.*", out)
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        t.ok(p.returncode == 0 and n and int(n.group(1)) > 0 and not errors and
             (conns > PER_IP or not non2xx),
             "wrk, %d connections%s: %s requests, %s, %s non-2xx" %
             (conns, ", Connection: close" if close else "", n and n.group(1),
              errors.group(0) if errors else "no socket errors",
              non2xx.group(1) if non2xx else "no"))

    # Past the 64 per address: all connect first, then each asks once.
    before = refused_counts(ex)
    held = [connect_from("127.0.0.3", port) for _ in range(PAST)]
    answers = []
    for s in held:
        c = Source("127.0.0.3", port)
        c.sock = s
        try:
            c.request("GET", "/healthz")
            r = c.getresponse()
            answers.append((r.status, dict(r.getheaders()), r.read()))
        except (OSError, http.client.HTTPException) as e:
            answers.append((outcome(e), {}, b""))
    kinds = Counter(a[0] if a[0] != 503 else
                    ("503 refusal" if is_refusal(*a) else "503 without Retry-After")
                    for a in answers)
    t.ok(kinds == Counter({200: PER_IP, "503 refusal": PAST - PER_IP}),
         "%d connections held from 127.0.0.3: %d served, %d answered 503 with Retry-After"
         " and a JSON error, none reset (%s)" % (PAST, PER_IP, PAST - PER_IP, dict(kinds)))
    t.ok([a[0] for a in answers[:PER_IP]] == [200] * PER_IP,
         "the first %d to connect are the ones served" % PER_IP)
    for s in held:
        s.close()
    counts = {k: (v or 0) - (before[k] or 0) for k, v in refused_counts(ex).items()}
    t.ok(counts["address"] == PAST - PER_IP and counts["connections"] == 0,
         "kprint_exporter_http_refused_total counts %d more refusals for the address (%s)"
         % (PAST - PER_IP, counts))
finally:
    rc = ex.stop()
t.ok(rc == 0, "the exporter stops cleanly (%s)" % rc)

# At the per-address limit: only the connections whose clients have not
# closed count.
ex = Exporter(path, "--web.max-requests", str(PER_IP))
try:
    t0 = time.monotonic()
    got = round_of(ex.port, PER_IP, False)
    t.ok(got == Counter({200: PER_IP * REQUESTS}),
         "%d clients from 127.0.0.1 with --web.max-requests %d, a new connection per request:"
         " all %d requests 200 (%s, %.1f s)" % (PER_IP, PER_IP, PER_IP * REQUESTS, dict(got),
                                              time.monotonic() - t0))
finally:
    rc = ex.stop()

# Requests in flight: four connections each ask for an answer of 6.4 MB
# and take nothing, with a receive buffer of 4 KB: more than the sockets'
# buffers hold (4 MB at most for sending here), so each is in flight.
MAX = 4


def take_answer(s, out):
    """Read one whole answer from s, as (status, whole, length) into out."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    buf = b""
    while b"\r\n\r\n" not in buf:
        got = s.recv(65536)
        if not got:
            out.append(("closed after %d bytes: %r" % (len(buf), buf[:60]), False, 0))
            return
        buf += got
    head, _, buf = buf.partition(b"\r\n\r\n")
    length = int([h.split(b":")[1] for h in head.split(b"\r\n")
                  if h.lower().startswith(b"content-length:")][0])
    while len(buf) < length:
        got = s.recv(1 << 20)
        if not got:
            break
        buf += got
    out.append((head.split(b" ")[1], len(buf) == length, length))

ex = Exporter(path, "--web.max-requests", str(MAX))
port = ex.port
try:
    slow = []
    for _ in range(MAX):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.bind(("127.0.0.4", 0))
        s.settimeout(10)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /records?limit=1000 HTTP/1.1\r\nHost: t\r\n\r\n")
        slow.append(s)
    # The four are in flight once a fifth is refused: wait for that.
    refusal = None
    t0 = time.monotonic()
    while time.monotonic() - t0 < 10:
        c = Source("127.0.0.4", port)
        c.request("GET", "/healthz")
        r = c.getresponse()
        a = (r.status, dict(r.getheaders()), r.read())
        c.close()
        if a[0] == 503:
            refusal = a
            break
    t.ok(refusal is not None and is_refusal(*refusal)
         and b"--web.max-requests" in refusal[2],
         "with %d answers in flight from 127.0.0.4, its next request is 503 with Retry-After"
         " (%s)" % (MAX, refusal and (refusal[0], refusal[1].get("Retry-After"), refusal[2])))
    c = Source("127.0.0.5", port)
    c.request("GET", "/metrics")
    r = c.getresponse()
    r.read()
    c.close()
    t.ok(r.status == 200, "meanwhile 127.0.0.5 is served (%s)" % r.status)
    # All at once: one left untouched 10 s would be cut as idle.
    sizes = []
    readers = [threading.Thread(target=take_answer, args=(s, sizes)) for s in slow]
    for th in readers:
        th.start()
    for th in readers:
        th.join(60)
    for s in slow:
        s.close()
    t.ok(len(sizes) == MAX and all(code == b"200" and whole for code, whole, _ in sizes),
         "the %d slow readers get their whole answers, 200 (%s)" % (MAX, sizes))
    again = None
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5 and again != 200:
        c = Source("127.0.0.4", port)
        c.request("GET", "/healthz")
        r = c.getresponse()
        r.read()
        c.close()
        again = r.status
    t.ok(again == 200, "once they are taken, 127.0.0.4 is served again (%s)" % again)
    counts = refused_counts(ex)
    t.ok((counts["requests"] or 0) >= 1, "kprint_exporter_http_refused_total{reason=\"requests\"}"
         " counts it (%s)" % counts)
finally:
    rc = ex.stop()
t.ok(rc == 0, "the exporter stops cleanly (%s)" % rc)
t.done()
