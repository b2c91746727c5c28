#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""10,000 random requests against kprint_exporter (on a replay): none gets
a 5xx, and the exporter still serves afterwards.

The generator is seeded (KPX_RANDOM_SEED, default fixed), so a failure
replays exactly: random methods (real, made up, garbage), paths (the real
ones, near misses, %-escapes, NUL and high bytes, dot segments, long ones),
query strings (real and made-up parameters, good and bad values, no '=',
empty pieces), headers (random names and values, bad bytes, lying or huge
Content-Length, chunked bodies, Expect: 100-continue), HTTP versions, a few
pipelined requests and some plain garbage.  Each goes on its own
connection, which the client then half-closes; the answer is read until the
server closes, with a deadline.
"""
import collections
import os
import random
import re
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, line, promtool_check, record  # noqa: E402

N = int(os.environ.get("KPX_RANDOM_REQUESTS", "10000"))
SEED = int(os.environ.get("KPX_RANDOM_SEED", "20261203"))

t = Tap()
rng = random.Random(SEED)
work = tempfile.mkdtemp(prefix="kpx-random.")
path = os.path.join(work, "r.jsonl")
with open(path, "wb") as f:
    for seq in range(1, 301):
        # Every fourth a bridged printk record, every eighth with a device.
        f.write(line(record(seq, "random %d \\ \" \n" + "x" * (seq % 7), level=["err", "info"][seq % 2],
                            subsystem=["usb", "net", ""][seq % 3], args=[str(seq)],
                            source="printk" if seq % 4 == 0 else "kprint",
                            device="b8:0" if seq % 8 == 0 else "")))

PATHS = ["/", "/metrics", "/records", "/formats", "/healthz", "/metrics/", "//metrics",
         "/records/", "/RECORDS", "/index.html", "/../metrics", "/./records", "/%6detrics",
         "/records%00", "/\xff", "*", "http://127.0.0.1/metrics", ""]
PARAMS = ["level", "class", "source", "subsystem", "device", "module", "format_id", "q",
          "after", "limit", "bogus", "", "level[]", "a b"]
VALUES = ["err", "err+", "err%2B", "info", "loud", "detected", "none", "usb", "0", "1",
          "1000", "1001", "-1", "18446744073709551615", "18446744073709551616",
          "0123456789abcdef", "%00", "%ff", "%", "%zz", "+", "", "x" * 300,
          "printk", "kprint", "kprint,printk", "printk,", "%2Bpci:0000:00:19.0", "b8:0"]
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PATCH",
           "get", "G\x00T", "BREW", "GET GET"]
VERSIONS = ["HTTP/1.1", "HTTP/1.0", "HTTP/1.1", "HTTP/2.0", "HTTP/0.9", "HTTP/1.", "FOO", ""]


def rbytes(n):
    return bytes(rng.randrange(256) for _ in range(n))


def rtoken(n):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz-_0123456789") for _ in range(n))


def rpath():
    p = rng.choice(PATHS) if rng.random() < 0.8 else "/" + rtoken(rng.randrange(1, 20))
    if rng.random() < 0.05:
        p += "/" + "a" * rng.choice([100, 5000, 70000])
    if rng.random() < 0.6:
        parts = []
        for _ in range(rng.randrange(0, 5)):
            k = rng.choice(PARAMS) if rng.random() < 0.8 else rtoken(3)
            r = rng.random()
            if r < 0.1:
                parts.append(k)
            elif r < 0.15:
                parts.append("")
            else:
                v = rng.choice(VALUES) if rng.random() < 0.8 else \
                    "".join("%%%02x" % b for b in rbytes(rng.randrange(1, 8)))
                parts.append(k + "=" + v)
        p += "?" + "&".join(parts)
    return p.encode("latin-1", "replace")


def valid():
    """A request as a real client sends it."""
    p = rng.choice(["/", "/metrics", "/healthz", "/records", "/records?limit=3",
                    "/records?level=err%2B&q=random", "/records?after=100&limit=10",
                    "/records?subsystem=usb&class=none", "/formats"])
    return (rng.choice(["GET", "HEAD"]) + " " + p + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "User-Agent: random\r\n\r\n").encode()


def request():
    r = rng.random()
    if r < 0.03:
        return rbytes(rng.randrange(1, 300))
    if r < 0.25:
        return valid()
    method = rng.choice(METHODS) if rng.random() < 0.3 else rng.choice(["GET", "GET", "HEAD"])
    out = method.encode() + b" " + rpath() + b" " + rng.choice(VERSIONS).encode() + b"\r\n"
    body = b""
    if rng.random() < 0.8:
        out += b"Host: 127.0.0.1\r\n"
    for _ in range(rng.randrange(0, 6)):
        k = rng.choice(["Accept", "User-Agent", "X-" + rtoken(5), "Connection", "Cookie",
                        rtoken(rng.randrange(1, 10)), "Bad Name", "Accept-Encoding"])
        v = rng.choice(["*/*", "keep-alive", "close", "gzip", rtoken(20), "\x01\x7f",
                        "é", "a" * rng.choice([10, 1000, 70000])])
        out += k.encode() + b": " + v.encode("utf-8") + b"\r\n"
    r = rng.random()
    if r < 0.1:
        body = rbytes(rng.randrange(0, 200))
        out += b"Content-Length: %d\r\n" % rng.choice([len(body), len(body) + 10, 0])
    elif r < 0.15:
        body = b"5\r\nhello\r\n0\r\n\r\n" if rng.random() < 0.5 else b"zz\r\n" + rbytes(20)
        out += b"Transfer-Encoding: chunked\r\n"
    elif r < 0.17:
        out += b"Content-Length: " + rng.choice([b"-1", b"x", b"99999999999999999999",
                                                 b"1, 2"]) + b"\r\n"
    elif r < 0.19:
        out += b"Expect: 100-continue\r\nContent-Length: 4\r\n"
        body = b"abcd"
    if rng.random() < 0.03:
        out += b"\n"                     # a bare LF line end
    out += b"\r\n" + body
    if rng.random() < 0.05:
        out += request()                 # pipelined
    return out


STATUS = re.compile(rb"(?:^|\n)HTTP/1\.[01] (\d{3})")
VERSION = re.compile(rb" (HTTP/[^\r\n ]*)\r?\n")


def server_error(code, answer, data):
    """Whether a 5xx answer is a failure.  Two are not: 503 from /formats,
    which a replay always gives (no BPF counters: documented, and the same
    for every request), and 505 for a request line whose version is not
    HTTP/1.0 or 1.1 (RFC 9110 15.6.6: the answer to HTTP/2.0 or 0.9 on an
    HTTP/1 server; it says nothing about the server's health)."""
    if code == 503:
        return not (b"no BPF counters with --replay" in answer or
                    re.search(rb"HEAD /formats[ ?]", data))
    if code == 505:
        return all(v in (b"HTTP/1.0", b"HTTP/1.1") for v in VERSION.findall(data))
    return code >= 500


def send(data, deadline=15.0):
    """Statuses of every answer to data, or None when the deadline passed."""
    s = socket.create_connection(("127.0.0.1", ex.port), timeout=deadline)
    end = time.monotonic() + deadline
    got = b""
    try:
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass                         # cut off mid-send (414/431): read what came
        while time.monotonic() < end:
            s.settimeout(max(0.1, end - time.monotonic()))
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            got += b
        else:
            return None
    except socket.timeout:
        return None
    finally:
        s.close()
    return [(int(m.group(1)), got[m.end():m.end() + 400]) for m in STATUS.finditer(got)]


ex = Exporter(path)
try:
    hist = collections.Counter()
    fives, hung = [], []
    t0 = time.monotonic()
    for i in range(N):
        data = request()
        st = send(data)
        if st is None:
            hung.append(i)
            continue
        for code, answer in st:
            hist[code] += 1
            if server_error(code, answer, data):
                fives.append((i, code, data[:80]))
        if not st:
            hist["closed"] += 1
    took = time.monotonic() - t0
    print("# %d requests in %.1f s, seed %d: %s" % (N, took, SEED,
          ", ".join("%s: %d" % kv for kv in sorted(hist.items(), key=str))))
    t.ok(not fives, "no 5xx in %d random requests (but /formats' 503 and 505 for "
         "HTTP/2.0 and the like; seed %d)%s"
         % (N, SEED, ": %r" % fives[:3] if fives else ""))
    t.ok(not hung, "every one is answered or closed within 15 s (%d were not)" % len(hung))
    t.ok(hist[200] > N // 10 and hist[400] > 0 and hist[404] > 0 and hist[405] > 0,
         "the mix reaches real answers (200, 400, 404 and 405 all seen)")
    t.ok(ex.alive(), "the exporter still runs")
    st, _, body = ex.get("/metrics")
    t.ok(st == 200 and promtool_check(body)[0], "and still serves /metrics that passes promtool")
    st, _, body = ex.get("/records?level=err%2B&limit=5")
    t.ok(st == 200 and body.count(b'"seq"') == 5, "and /records")
finally:
    rc = ex.stop()
t.ok(rc == 0, "then stops cleanly on SIGTERM (%s)" % rc)
log = "\n".join(ex.stderr)
t.ok("out of memory" not in log and "AddressSanitizer" not in log,
     "its log tells of no failure")
os.unlink(path)
os.rmdir(work)
t.done()
