#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's HTTP limits, on a replay (no kernel needed).

- a URI past the 64 KiB connection memory gets 414, headers past it 431;
- a client that sends half a request and goes silent, one that trickles a
  byte every half second (which resets libmicrohttpd's own idle timer) and
  one that trickles a body are all cut about 10 s after they connect, while
  normal scrapes meanwhile answer at once;
- 64 connections from one address are served and the 65th is answered 503
  with Retry-After and a JSON error (not reset), while another address
  still is served; of 320 from 5 addresses 256 are served and the other
  64 answered 503;
- after all of it, a scrape still succeeds and passes promtool.

Other loopback addresses (127.0.0.2 ...) stand for other clients.  Every
wait has a deadline; the slow clients are measured, not slept on.
"""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import (Exporter, Tap, connect_from, promtool_check, record,  # noqa: E402
                     read_until, send_and_read, temp_replay)

TIMEOUT_S = 10          # the idle timeout and the request deadline
PER_IP = 64             # KPX_HTTP_PER_IP
CONNECTIONS = 256       # KPX_HTTP_CONNECTIONS

t = Tap()
path = temp_replay("kpx-limits.", (record(seq, "record %d of many", args=[str(seq)])
                                   for seq in range(1, 201)))


def status_of(sock, data, deadline=10.0):
    """Send data, read the answer's status line: its code, or None when
    the connection closes (or stays silent) without one."""
    sock.settimeout(deadline)
    buf, e = send_and_read(sock, data, lambda b: b"\r\n" in b)
    if e or b"\r\n" not in buf:
        return None
    return int(buf.split(b" ", 2)[1])


def keepalive_get(sock, path="/healthz", deadline=10.0):
    """One whole keep-alive GET on sock: its status, or None."""
    sock.settimeout(deadline)
    buf, e = send_and_read(sock, b"GET " + path.encode() + b" HTTP/1.1\r\nHost: t\r\n\r\n",
                           lambda b: b"\r\n\r\n" in b)
    if e or b"\r\n\r\n" not in buf:
        return None
    head, rest = buf.split(b"\r\n\r\n", 1)
    try:
        length = 0
        for h in head.split(b"\r\n")[1:]:
            k, _, v = h.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v)
        rest, e = read_until(sock, lambda b: len(b) >= length, rest)
        if e or len(rest) < length:
            return None
        return int(head.split(b" ", 2)[1])
    except ValueError:
        return None


def refused(sock, deadline=5.0):
    """Whether a connection past a limit is answered 503 with Retry-After
    and a JSON error, then closed: (bool, what came)."""
    sock.settimeout(deadline)
    buf, e = send_and_read(sock, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
    if e:
        return False, "%r after %r" % (e, buf[:80])
    head, _, body = buf.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    heads = {k.strip().lower(): v.strip() for k, _, v in (h.partition(b":") for h in lines[1:])}
    try:
        err = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        err = None
    ok = lines[0].startswith(b"HTTP/1.1 503 ") and heads.get(b"retry-after") == b"1" and err
    return bool(ok), "%s, Retry-After %s, %r" % (lines[0][:40], heads.get(b"retry-after"), err)


def served_again(src, port, seconds=5):
    """Whether a new connection from src is served within seconds, once
    the connections that held a limit have closed."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s = connect_from(src, port)
        status = keepalive_get(s, deadline=2)
        s.close()
        if status == 200:
            return True
    return False


ex = Exporter(path)
port = ex.port
try:
    # Oversized requests.
    s = connect_from("127.0.0.1", port)
    st = status_of(s, b"GET /metrics?" + b"a" * 70000 + b" HTTP/1.1\r\nHost: t\r\n\r\n")
    s.close()
    t.ok(st == 414, "a 70 KB URI gets 414 (%s)" % st)
    s = connect_from("127.0.0.1", port)
    st = status_of(s, b"GET /metrics HTTP/1.1\r\nHost: t\r\nX-Big: " + b"b" * 70000 + b"\r\n\r\n")
    s.close()
    t.ok(st == 431, "a 70 KB header gets 431 (%s)" % st)
    s = connect_from("127.0.0.1", port)
    st = status_of(s, b"GET /metrics HTTP/1.1\r\nHost: t\r\n" + b"X-Many: 12345678\r\n" * 8000
                   + b"\r\n")
    s.close()
    t.ok(st == 431, "8000 headers (140 KB) get 431 (%s)" % st)

    # Slow clients, all at once, each timed from its connect to its cut.
    slow = {
        "silent after half a request": [b"GET /metrics HTTP/1.1\r\nHost: t\r\n"],
        "trickling a header a byte every 0.5 s": [b"GET /metrics HTTP/1.1\r\nX-Slow: "]
        + [b"s"] * 200,
        "trickling a body a byte every 0.5 s":
            [b"POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n"] + [b"x"] * 200,
    }
    cut = {}
    started = threading.Barrier(len(slow) + 1)

    def slow_client(name, chunks):
        s = connect_from("127.0.0.1", port, timeout=0.5)
        t0 = time.monotonic()
        s.sendall(chunks[0])
        started.wait()
        for c in chunks[1:] + [None] * 60:
            try:
                if c:
                    s.send(c)
                got = s.recv(4096)     # waits 0.5 s: the trickle's pace
                if not got or got.startswith(b"HTTP/"):
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        cut[name] = time.monotonic() - t0
        s.close()

    threads = [threading.Thread(target=slow_client, args=(n, c)) for n, c in slow.items()]
    for th in threads:
        th.start()
    started.wait(10)
    scrapes = []
    for _ in range(3):
        t0 = time.monotonic()
        st, _, body = ex.get("/metrics", timeout=5)
        scrapes.append((st, time.monotonic() - t0))
    t.ok(all(st == 200 and dt < 2 for st, dt in scrapes),
         "scrapes while slow clients hang on answer at once (%s)"
         % ", ".join("%d in %.2fs" % s for s in scrapes))
    for th in threads:
        th.join(60)
    for name in slow:
        dt = cut.get(name)
        t.ok(dt is not None and TIMEOUT_S - 1 <= dt <= TIMEOUT_S + 4,
             "a client %s is cut after %s s (want about %d)"
             % (name, "%.1f" % dt if dt is not None else "never", TIMEOUT_S))

    # Per address: 64 held, the 65th refused, another address served.
    held = [connect_from("127.0.0.2", port) for _ in range(PER_IP)]
    served = [keepalive_get(s) for s in held]
    t.ok(served == [200] * PER_IP, "%d keep-alive connections from 127.0.0.2 are served"
         % PER_IP)
    extra = connect_from("127.0.0.2", port)
    ok, what = refused(extra)
    extra.close()
    t.ok(ok, "the %dth from 127.0.0.2 is answered 503 with Retry-After, then closed (%s)"
         % (PER_IP + 1, what))
    other = connect_from("127.0.0.3", port)
    st = keepalive_get(other)
    other.close()
    t.ok(st == 200, "meanwhile 127.0.0.3 is served (%s)" % st)
    for s in held:
        s.close()
    t.ok(served_again("127.0.0.2", port), "once they close, 127.0.0.2 is served again")

    # 256 in all, counted for the whole exporter (not per thread of the
    # pool).  Connections the test closed just before do not count once
    # their clients closed, even before libmicrohttpd cleans them up.
    held = []
    for i in range(5):
        held += [connect_from("127.0.0.%d" % (10 + i), port) for _ in range(PER_IP)]
    served = [keepalive_get(s, deadline=3) for s in held[:CONNECTIONS]]
    rest = [refused(s) for s in held[CONNECTIONS:]]
    t.ok(served == [200] * CONNECTIONS,
         "of %d keep-alive connections from 5 addresses, the first %d are served (%d)"
         % (len(held), CONNECTIONS, served.count(200)))
    t.ok(all(ok for ok, _ in rest), "and the other %d are answered 503 with Retry-After (%s)"
         % (len(rest), sorted(set(w for ok, w in rest if not ok)) or rest[0][1]))
    for s in held:
        s.close()
    t.ok(served_again("127.0.0.20", port), "once they close, a new client is served")

    st, _, body = ex.get("/metrics")
    passed, said = promtool_check(body)
    t.ok(st == 200 and passed, "after all that, /metrics is served and passes promtool")
    t.ok(ex.alive(), "the exporter still runs")
finally:
    rc = ex.stop()
t.ok(rc == 0, "and stops cleanly on SIGTERM (%s)" % rc)
t.done()
