#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's GET /events on a replay (no kernel needed): ids,
data as /records has it, resuming with Last-Event-ID or after=, lost
events for ids the store no longer holds and for ids of another module
instance, the filters of /records, 400s, the stream cap (503 while
/metrics answers within 1 s, the place freed when a client hangs up),
the keepalive comment (--web.events-keepalive 1s; none on a stream of the
default 15 s), and a clean stop with streams waiting.

Records that arrive while a stream is open, and a client that stops
reading during a burst, need a kernel: tests/e2e/exporter-events.py.
"""
import atexit
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import EXPORTER, Exporter, Tap, line, parse_metrics, promtool_check, record, validate  # noqa: E402
from ssetest import Stream, split_id  # noqa: E402

N = 30          # records in the file
KEEP = 19       # --records: the store holds seqs N-KEEP+1..N, 12..30
CAP = 3         # --web.max-streams
KEEPALIVE_S = 1    # --web.events-keepalive of exp; the default is 15 s

t = Tap()
work = tempfile.mkdtemp(prefix="kpx-events.")
path = os.path.join(work, "r.jsonl")
recs = []
for seq in range(1, N + 1):
    printk = seq % 3 == 0
    recs.append(record(seq, "events test %d of %s", level=["err", "info", "warn", "debug"][seq % 4],
                       subsystem="sub%d" % (seq % 2), args=[str(seq), "x"],
                       source="printk" if printk else "kprint", device="eth0" if printk else ""))
with open(path, "wb") as f:
    for r in recs:
        f.write(line(r))
held = [r for r in recs if r["seq"] > N - KEEP]
first_held = held[0]["seq"]

start = time.monotonic()
exp = Exporter(path, "--records", str(KEEP), "--web.events-keepalive", "%ds" % KEEPALIVE_S)
# The cap on an exporter of its own: elsewhere, a stream just closed may
# hold its place for up to half a second (until the watchdog's tick).
capped = Exporter(path, "--records", str(KEEP), "--web.max-streams", str(CAP))
# A check that raises must not leave them running.
atexit.register(capped.stop)
atexit.register(exp.stop)


def stream(query="", headers=None, e=exp):
    return Stream(e.host, e.port, "/events" + query, headers)


def metrics(e=exp):
    status, _, body = e.get("/metrics")
    return {(n, tuple(lb)): v for n, lb, v in parse_metrics(body.decode())}, body


def wait_streams(n, e=exp, deadline=5):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if metrics(e)[0].get(("kprint_exporter_event_streams", ())) == n:
            return True
    return False


# Held open to the end.
idle = stream()
t.ok(idle.status == 200 and idle.headers.get("content-type", "").startswith("text/event-stream"),
     "GET /events: 200, text/event-stream (%s %s)" % (idle.status, idle.headers.get("content-type")))
t.ok(wait_streams(1), "kprint_exporter_event_streams 1 with one stream open")

# An id of another instance: a lost event, then everything held, with ids.
s = stream("?after=00000000-0")
evs = [s.next_event(5) for _ in range(1 + len(held))]
s.close()
inst = split_id(evs[-1]["id"])[0] if evs and "id" in evs[-1] else "?"
if inst == "00000000":      # one chance in 2^32: the instance asked for is this one
    s = stream("?after=ffffffff-0")
    evs = [s.next_event(5) for _ in range(1 + len(held))]
    s.close()
t.ok(len(inst) == 8 and all(c in "0123456789abcdef" for c in inst),
     "ids name the instance in 8 hex digits (%s)" % inst)
t.ok(evs[0]["event"] == "lost" and evs[0]["data"] == {"reason": "reloaded"},
     "an id of another instance: first a lost event of reason reloaded (%r)" % evs[0])
body = exp.get("/records?limit=1000")[2]
t.ok([e.get("id") for e in evs[1:]] == ["%s-%d" % (inst, r["seq"]) for r in held],
     "then every record held, %d..%d, with ids INSTANCE-SEQ" % (first_held, N))
t.ok([e["data"] for e in evs[1:]] == json.loads(body),
     "their data is what /records serves, record for record")
ok, why = validate([e["data"] for e in evs[1:]])
t.ok(ok, "their data passes schema/record.schema.json: " + why)

# Resuming: exactly the rest, by header or by after=.
mid = "%s-%d" % (inst, 20)
for how, query, headers in (("Last-Event-ID", "", {"Last-Event-ID": mid}),
                            ("after=", "?after=" + mid, None),
                            ("Last-Event-ID over after=", "?after=%s-13" % inst,
                             {"Last-Event-ID": mid})):
    s = stream(query, headers)
    got = s.events_until("%s-%d" % (inst, N), timeout=5, limit=N)
    s.close()
    t.ok([e.get("id") for e in got] == ["%s-%d" % (inst, q) for q in range(21, N + 1)] and
         all(e["event"] == "message" for e in got),
         "resuming after %s with %s: exactly 21..%d (%d events)" % (mid, how, N, len(got)))

# An id whose successors the store no longer holds.
s = stream(headers={"Last-Event-ID": "%s-5" % inst})
got = s.events_until("%s-%d" % (inst, N), timeout=5, limit=N + 2)
s.close()
want_lost = {"reason": "overwritten", "count": first_held - 6, "first_seq": 6,
             "last_seq": first_held - 1}
t.ok(got[0]["event"] == "lost" and got[0]["data"] == want_lost and
     got[0].get("id") == "%s-%d" % (inst, first_held - 1),
     "resuming after seq 5: a lost event for 6..%d with the id of %d (%r)" %
     (first_held - 1, first_held - 1, got[0]))
t.ok([e.get("id") for e in got[1:]] == ["%s-%d" % (inst, r["seq"]) for r in held],
     "then exactly the records held")

# The filters of /records, source included.
for query in ("level=warn%2B&source=printk", "subsystem=sub1&q=events", "device=eth0&level=err+"):
    want = json.loads(exp.get("/records?limit=1000&" + query)[2])
    s = stream("?after=%s-0&%s" % (inst, query))
    got = s.events_until("%s-%d" % (inst, want[-1]["seq"]), timeout=5, limit=N + 2)
    s.close()
    if got and got[0]["event"] == "lost":
        got = got[1:]
    t.ok(want and [e["data"] for e in got] == want,
         "/events?%s sends what /records?%s has (%d records)" % (query, query, len(want)))

# Bad queries: 400 with a JSON error, as the other endpoints.
for query, headers, param in (("?after=20", None, "after"), ("?limit=5", None, "limit"),
                              ("?level=loud", None, "level"),
                              ("", {"Last-Event-ID": "20"}, "Last-Event-ID"),
                              ("?after=%s-x" % inst, None, "after")):
    s = stream(query, headers)
    s.close()
    try:
        err = json.loads(s.body)
    except ValueError:
        err = {}
    t.ok(s.status == 400 and err.get("parameter") == param and err.get("error"),
         "/events%s%s: 400 naming %s (%s %r)" % (query, " with Last-Event-ID" if headers else "",
                                                param, s.status, err))

m, page = metrics()
sent = m.get(("kprint_exporter_events_sent_total", ()))
lost_o = m.get(("kprint_exporter_events_lost_total", (("reason", "overwritten"),)))
lost_r = m.get(("kprint_exporter_events_lost_total", (("reason", "reloaded"),)))
# Overwritten: after seq 5, and the three filtered streams from seq 0.
t.ok(lost_o == 4 and lost_r == 1 and sent and sent > 0,
     "kprint_exporter_events_lost_total: overwritten 4, reloaded 1 (%s, %s); events sent %s" %
     (lost_o, lost_r, sent))
ok, why = promtool_check(page)
t.ok(ok, "promtool check metrics: " + why)
t.ok(wait_streams(1), "the streams above closed, their places free again")

# The cap: CAP streams, then 503, /metrics meanwhile.
capped_streams = [stream(e=capped) for _ in range(CAP)]
capped_opened = time.monotonic()
over = stream(e=capped)
over.close()
try:
    over_err = json.loads(over.body)
except ValueError:
    over_err = {}
t.ok(all(s.status == 200 for s in capped_streams) and over.status == 503 and
     "too many event streams" in over_err.get("error", ""),
     "stream %d of --web.max-streams %d: 503 with a JSON error (%s %r)" %
     (CAP + 1, CAP, over.status, over_err))
t0 = time.monotonic()
m, page = metrics(capped)
took = time.monotonic() - t0
t.ok(took < 1.0, "/metrics answers in %.3f s with the cap reached" % took)
t.ok(m.get(("kprint_exporter_event_streams", ())) == CAP and
     m.get(("kprint_exporter_event_streams_refused_total", ())) == 1,
     "kprint_exporter_event_streams %d, kprint_exporter_event_streams_refused_total 1" % CAP)
capped_streams.pop().close()
t.ok(wait_streams(CAP - 1, capped), "a client that hangs up frees its place within 5 s")
again = stream(e=capped)
t.ok(again.status == 200, "and the next stream is served (%s)" % again.status)
capped_streams.append(again)

status, headers, body = exp.get("/events", method="HEAD")
t.ok(status == 200 and headers.get("Content-Type", "").startswith("text/event-stream") and not body,
     "HEAD /events: 200, text/event-stream, no body")
t.ok(b'href="/events"' in exp.get("/")[2], "the / page links /events")

# The keepalive, on a stream of its own: idle streams are looked at twice
# a second, so it comes within half a second after KEEPALIVE_S, and again.
ka_stream = stream()
opened = time.monotonic()
kas = []
for _ in range(2):
    try:
        kas.append(ka_stream.next_event(timeout=KEEPALIVE_S + 5, comments=True))
    except (TimeoutError, EOFError) as e:
        kas.append({"error": str(e)})
    kas[-1]["after"] = round(time.monotonic() - opened, 2)
ka_stream.close()
t.ok([k.get("comment") for k in kas] == ["keepalive"] * 2 and
     KEEPALIVE_S - 0.1 <= kas[0]["after"] <= KEEPALIVE_S + 1.5 and
     2 * KEEPALIVE_S - 0.1 <= kas[1]["after"] <= 2 * KEEPALIVE_S + 3,
     "--web.events-keepalive %ds: an idle stream gets ': keepalive' every %d s (%r)" %
     (KEEPALIVE_S, KEEPALIVE_S, kas))
# The default, 15 s: said by --help, and none on the capped exporter's
# streams, idle for seconds by now.
usage = subprocess.run([EXPORTER, "--help"], stdout=subprocess.PIPE, timeout=10).stdout.decode()
t.ok("--web.events-keepalive DURATION" in usage and "(default 15s)" in
     usage.split("--web.events-keepalive", 1)[1].split("--", 1)[0],
     "--help: --web.events-keepalive's default is 15s")
try:
    early = capped_streams[0].next_event(timeout=0.3, comments=True)
except TimeoutError:
    early = None
t.ok(early is None, "no keepalive on a stream of the default, idle for %.1f s (%r)" %
     (time.monotonic() - capped_opened, early))

# Stopping with streams waiting (suspended) is clean.
for e, n in ((exp, 1), (capped, CAP)):
    rc = e.stop()
    t.ok(rc == 0, "SIGTERM with %d streams waiting: exit status %s" % (n, rc))
for s in capped_streams + [idle]:
    s.close()
print("# %.1f s" % (time.monotonic() - start))
t.done()
