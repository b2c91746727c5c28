#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's /events with a kernel: records emitted after a stream
opened arrive as events with their ids; resuming with the first id gives
exactly the other two; a client that stops reading during a burst gets a
lost event while a second client receives every record; after kprint.ko is
reloaded, an old id resumes with a lost event of reason reloaded, then the
new instance's records under a new instance id.

The burst comes in rounds, each waited for until the fast client has it
all, so that the fast client is never further behind than a round while
the slow one, which reads nothing, falls behind by more than the exporter
keeps (--records).
"""
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, "tests/lib")
from lib import (PORT, check, finish, get, load_test_module, metric,  # noqa: E402
                 reload_kprint, wait_for, write_param)
from ssetest import Stream, split_id  # noqa: E402

KEEP = 1000             # --records
ROUND = 250             # records per flood round
ROUNDS = 12             # 3000 in all: the slow client falls 3x KEEP behind
HOST = "127.0.0.1"

exporter = subprocess.Popen(["kprint_exporter", "--no-bpf", "--listen", "%s:%d" % (HOST, PORT),
                             "--records", str(KEEP)])


def healthy():
    try:
        return get("/healthz", timeout=2)[0] == 200
    except OSError:
        return False


def streams_open():
    return int(float(metric(get("/metrics")[1].decode(), "kprint_exporter_event_streams") or -1))


def emit(text):
    """kprint emit: the record's seq."""
    out = subprocess.run(["kprint", "emit", "--level", "err", text], check=True,
                         capture_output=True, text=True).stdout
    return int(out.split()[-1])


try:
    if not wait_for("the exporter answers /healthz", healthy):
        raise SystemExit(finish())

    # Three records emitted after connecting: three events, with their ids.
    a = Stream(HOST, PORT, "/events?q=events%20e2e")
    check("GET /events: 200, text/event-stream",
          a.status == 200 and a.headers.get("content-type", "").startswith("text/event-stream"))
    seqs = [emit("events e2e %d" % i) for i in range(3)]
    got = [a.next_event(30) for _ in seqs]
    inst = split_id(got[0].get("id", "?-0"))[0]
    check("three records emitted arrive as three events with ids %s-%s" % (inst, seqs),
          [e.get("id") for e in got] == ["%s-%d" % (inst, s) for s in seqs] and
          [e["data"]["seq"] for e in got] == seqs and
          all(e["data"]["text"].startswith("events e2e") for e in got), repr(got))
    a.close()

    # Resuming with the first id: exactly the other two.
    b = Stream(HOST, PORT, "/events?q=events%20e2e", {"Last-Event-ID": got[0]["id"]})
    rest = [b.next_event(30) for _ in range(2)]
    check("resuming after the first id gives exactly the other two",
          [e.get("id") for e in rest] == [e["id"] for e in got[1:]], repr(rest))
    emit("events e2e marker")
    after = b.next_event(30)
    check("and nothing before the next record", after["data"]["text"] == "events e2e marker",
          repr(after))
    b.close()

    # A burst: a client that reads nothing, and one that reads all.
    load_test_module()
    slow = Stream(HOST, PORT, "/events?q=flood", rcvbuf=4096)
    fast = Stream(HOST, PORT, "/events?q=flood")
    fast_got = []

    def read_fast():
        try:
            while True:
                fast_got.append(fast.next_event(60))
        except (TimeoutError, EOFError, OSError):
            pass

    reader = threading.Thread(target=read_fast, daemon=True)
    reader.start()
    start = time.monotonic()
    for r in range(ROUNDS):
        write_param("flood", ROUND)
        if not wait_for("the fast client has round %d" % r,
                        lambda: len(fast_got) >= (r + 1) * ROUND, seconds=60):
            break
    flood = [e for e in fast_got if e["event"] == "message"]
    fseqs = [e["data"]["seq"] for e in flood]
    check("the fast client received all %d records of the burst, in order, none lost (%.1f s)" %
          (ROUNDS * ROUND, time.monotonic() - start),
          len(flood) == ROUNDS * ROUND == len(fast_got) and
          fseqs == list(range(fseqs[0], fseqs[0] + len(fseqs))),
          "%d events, %d records" % (len(fast_got), len(flood)))
    lost = None
    n = 0
    try:
        while n < ROUNDS * ROUND:
            e = slow.next_event(30)
            n += 1
            if e["event"] == "lost":
                lost = e
                break
    except (TimeoutError, EOFError) as err:
        lost = {"error": str(err)}
    check("the client that stopped reading gets a lost event after %d events" % n,
          lost and lost.get("data", {}).get("reason") == "overwritten" and n < ROUNDS * ROUND,
          repr(lost))
    slow.close()
    page = get("/metrics")[1].decode()
    check("kprint_exporter_events_lost_total{reason=\"overwritten\"} counts it",
          float(metric(page, 'kprint_exporter_events_lost_total{reason="overwritten"}') or 0) >= 1)

    # After a reload, an old id: a lost event, then the new instance's records.
    old_id = flood[-1]["id"]
    reloads = float(metric(page, "kprint_exporter_module_reloads_total") or 0)
    reload_kprint()
    wait_for("the exporter follows the new kprint.ko", lambda: float(metric(
        get("/metrics")[1].decode(), "kprint_exporter_module_reloads_total") or 0) > reloads)
    wait_for("the exporter is healthy again", healthy)
    seq = emit("events e2e after reload")
    c = Stream(HOST, PORT, "/events?q=events%20e2e", {"Last-Event-ID": old_id})
    first = c.next_event(30)
    nxt = c.next_event(30)
    c.close()
    check("an id of the old instance resumes with a lost event of reason reloaded",
          first["event"] == "lost" and first["data"] == {"reason": "reloaded"}, repr(first))
    new_inst, new_seq = split_id(nxt.get("id", "?-0"))
    check("then the new instance's record, under a new instance id (%s, was %s)" %
          (new_inst, inst),
          nxt["event"] == "message" and new_inst != inst and new_seq == seq and
          nxt["data"]["text"] == "events e2e after reload", repr(nxt))
    fast.close()
finally:
    exporter.terminate()
    try:
        rc = exporter.wait(20)
    except subprocess.TimeoutExpired:
        exporter.kill()
        rc = exporter.wait()
    check("the exporter stops cleanly (status %s)" % rc, rc == 0)
finish()
