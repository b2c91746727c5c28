#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's /records?after=SEQ&wait=S with a kernel: an answer
that has no records yet is held while records that do not match come, and
answered by the first that does, byte for byte what /records answers then;
one record answers every answer held for it.  Everything that needs no
record to come (400s, [] once the wait is over, --web.max-requests, a
stop): tests/host/exporter-records-wait.py.
"""
import http.client
import json
import subprocess
import sys
import threading

sys.path.insert(0, "tests/lib")
from lib import PORT, check, finish, get, metric, wait_for  # noqa: E402

HOST = "127.0.0.1"

exporter = subprocess.Popen(["kprint_exporter", "--no-bpf", "--listen", "%s:%d" % (HOST, PORT)])


def healthy():
    try:
        return get("/healthz", timeout=2)[0] == 200
    except OSError:
        return False


def emit(text):
    """kprint emit: the record's seq."""
    out = subprocess.run(["kprint", "emit", "--level", "err", text], check=True,
                         capture_output=True, text=True).stdout
    return int(out.split()[-1])


def waiting():
    return int(float(metric(get("/metrics")[1].decode(), "kprint_exporter_records_waiting") or -1))


def newest():
    return json.loads(get("/records?limit=1")[1])[-1]["seq"]


class Held(threading.Thread):
    """One GET in a thread: status, headers and body, once done."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.status, self.body, self.error = path, None, None, None
        self.start()

    def run(self):
        try:
            c = http.client.HTTPConnection(HOST, PORT, timeout=60)
            c.request("GET", self.path)
            r = c.getresponse()
            self.status, self.headers, self.body = r.status, r.headers, r.read()
            c.close()
        except (OSError, http.client.HTTPException) as e:
            self.error = repr(e)

    def result(self, seconds=60):
        self.join(seconds)
        return (self.status, self.body, self.error)


try:
    if not wait_for("the exporter answers /healthz", healthy):
        raise SystemExit(finish())

    # Held through a record that does not match, answered by one that does.
    base = emit("wait e2e base")
    held = Held(f"/records?after={base}&q=wait%20e2e%20match&wait=30")
    wait_for("kprint_exporter_records_waiting 1", lambda: waiting() == 1)
    other = emit("wait e2e other")
    wait_for("/records has the record that does not match",
             lambda: other in [r["seq"] for r in json.loads(get(f"/records?after={base}")[1])])
    check("a record that does not match leaves the answer held",
          held.is_alive() and waiting() == 1, held.result(0))
    match = emit("wait e2e match")
    status, body, err = held.result()
    check("the first record that matches answers it, as /records does then",
          status == 200 and [r["seq"] for r in json.loads(body)] == [match] and
          body == get(f"/records?after={base}&q=wait%20e2e%20match")[1] and
          held.headers.get("content-type") == "application/json" and
          held.headers.get("content-length") == str(len(body)), (status, body, err))

    # One record answers all that wait for it.
    after = newest()
    held = [Held(f"/records?after={after}&q=wait%20e2e%20all&wait=30") for _ in range(3)]
    wait_for("kprint_exporter_records_waiting 3", lambda: waiting() == 3)
    woke = emit("wait e2e all")
    results = [h.result() for h in held]
    check("one record that matches answers all 3 held for it",
          all(s == 200 and [r["seq"] for r in json.loads(b)] == [woke] for s, b, _ in results),
          results)
    check("and none is held any more", waiting() == 0)
    exporter.terminate()
    check("the exporter exits 0", exporter.wait(60) == 0)
finally:
    if exporter.poll() is None:
        exporter.kill()
        exporter.wait()

finish()
