#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's /records?after=SEQ&wait=S on a replay (no kernel
needed; no record comes after the file's, so every held answer waits):

- wait= out of 0..30, not a number, without after=, or on /events: 400
  naming wait;
- an answer that has records comes at once, the same bytes and
  Content-Length as without wait=, and HEAD never waits;
- one that has none is held (kprint_exporter_records_waiting 1) and
  answered [] once its 1 s is over, not before, with a Content-Length as
  any answer; one whose client hangs up is let go within a tick;
- held answers are requests in flight: --web.max-requests 2 held from one
  address get the third from it a 503 with Retry-After, while another
  address is served;
- an exporter stopping, or reloading its web config (SIGHUP), answers its
  held requests [] at once (not reset, not after their 30 s); it exits 0.

Records that come while an answer is held, and wake it: tests/e2e/records-wait.py.
"""
import http.client
import json
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, connect_from, parse_metrics, record, temp_replay  # noqa: E402

N = 20
MAX_REQUESTS = 2

t = Tap()
path = temp_replay("kpx-wait.", (record(seq, "wait test %d", args=[str(seq)])
                                 for seq in range(1, N + 1)))
exp = Exporter(path)


class Held(threading.Thread):
    """One GET from loopback address src, in a thread: status, headers,
    body, what ended it and the seconds it took, once done."""

    def __init__(self, e, query, src="127.0.0.1", method="GET"):
        super().__init__(daemon=True)
        self.e, self.query, self.src, self.method = e, query, src, method
        self.status = self.headers = self.body = self.error = None
        self.start()

    def run(self):
        t0 = time.monotonic()
        try:
            c = http.client.HTTPConnection(self.e.host, self.e.port, timeout=60,
                                           source_address=(self.src, 0))
            c.request(self.method, "/records?" + self.query)
            r = c.getresponse()
            self.status, self.headers, self.body = r.status, r.headers, r.read()
            c.close()
        except (OSError, http.client.HTTPException) as err:
            self.error = repr(err)
        self.seconds = time.monotonic() - t0

    def done(self, deadline=60):
        self.join(deadline)
        return not self.is_alive()


def waiting(e):
    body = e.get("/metrics")[2].decode()
    return {n: v for n, lb, v in parse_metrics(body)}.get("kprint_exporter_records_waiting")


def wait_waiting(e, n, deadline=10):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if waiting(e) == n:
            return True
        time.sleep(0.01)
    return False


for query in ("wait=5", "after=1&wait=31", "after=1&wait=x", "after=1&wait=-1", "after=1&wait="):
    status, _, body = exp.get("/records?" + query)
    t.ok(status == 400 and json.loads(body).get("parameter") == "wait",
         "/records?%s is 400 naming wait (%s %s)" % (query, status, body[:100]))
status, _, body = exp.get("/events?wait=1")
t.ok(status == 400 and json.loads(body).get("parameter") == "wait",
     "/events?wait=1 is 400 naming wait: a stream waits by itself (%s)" % status)

h = Held(exp, "after=%d&wait=30" % (N - 5))
plain = exp.get("/records?after=%d" % (N - 5))[2]
t.ok(h.done(10) and h.status == 200 and h.body == plain and
     h.headers.get("content-length") == str(len(plain)) and len(json.loads(plain)) == 5,
     "with records to give, the answer comes at once, as without wait= (%s)" % h.status)
h = Held(exp, "after=%d&wait=30" % N, method="HEAD")
t.ok(h.done(10) and h.status == 200 and h.seconds < 5,
     "HEAD does not wait (%s in %.2f s)" % (h.status, h.seconds or 0))

h = Held(exp, "after=%d&wait=1" % N)
t.ok(wait_waiting(exp, 1), "held: kprint_exporter_records_waiting 1")
t.ok(h.done(10) and h.status == 200 and h.body == b"[]" and 1.0 <= h.seconds < 5 and
     h.headers.get("content-type") == "application/json" and
     h.headers.get("content-length") == "2",
     "with nothing to give, [] once the 1 s of wait=1 is over, as any answer is sent"
     " (%s %r in %.2f s, %s)" % (h.status, h.body, h.seconds or 0, h.headers))
t.ok(wait_waiting(exp, 0), "answered: kprint_exporter_records_waiting 0")

# A client that hangs up while held: let go on the watchdog's next tick.
sock = connect_from("127.0.0.2", exp.port)
sock.sendall(b"GET /records?after=%d&wait=30 HTTP/1.1\r\nHost: x\r\n\r\n" % N)
t.ok(wait_waiting(exp, 1), "held for a raw client")
sock.close()
t0 = time.monotonic()
t.ok(wait_waiting(exp, 0), "it hangs up: let go in %.2f s, not after its 30 s" %
     (time.monotonic() - t0))
exp.stop()

# A reload of the web config stops the daemons that hold answers.
cfg = os.path.join(os.path.dirname(path), "web.yml")
with open(cfg, "w") as f:
    f.write("http_server_config:\n  http2: false\n")
reloading = Exporter(path, "--web.config.file", cfg)
h = Held(reloading, "after=%d&wait=30" % N)
t.ok(wait_waiting(reloading, 1), "held before SIGHUP")
seen = len(reloading.stderr)
reloading.proc.send_signal(signal.SIGHUP)
t.ok(h.done(10) and h.status == 200 and h.body == b"[]" and h.seconds < 10,
     "SIGHUP answers the held request [] rather than cut it (%s %r %s)" % (h.status, h.body, h.error))
reloading.wait_log("SIGHUP: serving", seen)
t.ok(reloading.get("/records?after=%d&wait=0" % (N - 1))[0] == 200,
     "and the new daemons serve (%r)" % reloading.stderr[seen:])
reloading.stop()

capped = Exporter(path, "--web.max-requests", str(MAX_REQUESTS))
held = [Held(capped, "after=%d&wait=30" % N, src="127.0.0.2") for _ in range(MAX_REQUESTS)]
t.ok(wait_waiting(capped, MAX_REQUESTS), "%d answers held from 127.0.0.2" % MAX_REQUESTS)
over = Held(capped, "after=%d&wait=30" % N, src="127.0.0.2")
t.ok(over.done(10) and over.status == 503 and over.headers.get("retry-after") and
     "max-requests" in json.loads(over.body).get("error", ""),
     "the next from that address: 503 with Retry-After (%s %r)" % (over.status, over.body))
other = Held(capped, "limit=1", src="127.0.0.3")
t.ok(other.done(10) and other.status == 200, "another address is served (%s)" % other.status)
t0 = time.monotonic()
code = capped.stop()
t.ok(all(h.done(10) and h.status == 200 and h.body == b"[]" for h in held) and
     time.monotonic() - t0 < 10,
     "stopping answers the held requests [] at once (%s in %.2f s)" %
     ([(h.status, h.body, h.error) for h in held], time.monotonic() - t0))
t.ok(code == 0, "and exits 0 (%s)" % code)
t.done()
