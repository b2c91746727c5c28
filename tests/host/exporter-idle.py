#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""An idle exporter does not wake up: no thread of kprint_exporter --replay
(no kernel) sleeps and wakes on a timer while nobody asks it anything.  The
slow-client watchdog sleeps until the first connection's deadline, or for
good when there is none; it ticks only while an event stream is open, whose
keepalives ride on its ticks.  Each wake-up is a voluntary context switch
of one of its threads (/proc/PID/task/*/status)."""
import http.client
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, record, temp_replay  # noqa: E402

IDLE_S = 3.0		# the watchdog ticked twice a second: 6 wake-ups in it


def wakeups(pid):
    """Voluntary context switches of every thread of pid so far."""
    n = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            for ln in f:
                if ln.startswith("voluntary_ctxt_switches:"):
                    n += int(ln.split()[1])
    return n


def settle(pid, quiet=0.6, deadline=10):
    """Until no thread of pid has woken for quiet seconds, at most
    deadline: the work a closed connection leaves (libmicrohttpd's
    cleanup, the watchdog's new deadline) may come after the client has
    its answer, on a slow host inside the measured seconds (CI,
    2026-12-07).  A timer of half a second or less never lets it settle,
    and the measurement after it then counts that timer."""
    end = time.monotonic() + deadline
    last, since = wakeups(pid), time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.05)
        now = wakeups(pid)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return


def idle_wakeups(pid):
    """Wake-ups over IDLE_S of doing nothing: the quantity measured."""
    before = wakeups(pid)
    time.sleep(IDLE_S)
    return wakeups(pid) - before


t = Tap()
path = temp_replay("kpx-idle.", [record(1, "idle %d", args=["1"], text="idle 1")])
ex = Exporter(path)
try:
    st, _, _ = ex.get("/records")
    t.ok(st == 200, "/records answered (%s), its connection closed" % st)
    settle(ex.proc.pid)
    n = idle_wakeups(ex.proc.pid)
    t.ok(n <= 1, "no connection: %d wake-ups in %.0f s (at most 1)" % (n, IDLE_S))

    # A stream open: the watchdog ticks for it, and stops once it is gone.
    c = http.client.HTTPConnection(ex.host, ex.port, timeout=20)
    c.request("GET", "/events")
    r = c.getresponse()
    t.ok(r.status == 200, "/events streams (%s)" % r.status)
    n = idle_wakeups(ex.proc.pid)
    t.ok(n >= IDLE_S, "with a stream open the watchdog ticks: %d wake-ups in %.0f s"
         % (n, IDLE_S))
    c.close()
    end = time.monotonic() + 10
    while time.monotonic() < end and "\nkprint_exporter_event_streams 0\n" not in \
            ex.get("/metrics")[2].decode():
        time.sleep(0.1)
    t.ok(time.monotonic() < end, "the exporter saw the stream go")
    # The watchdog's tick that was due when the stream went, and
    # libmicrohttpd's cleanup of its connection, may still come.
    settle(ex.proc.pid)
    n = idle_wakeups(ex.proc.pid)
    t.ok(n <= 2, "the stream closed: %d wake-ups in %.0f s (at most 2)" % (n, IDLE_S))
    t.ok(ex.alive(), "the exporter still runs")
finally:
    rc = ex.stop()
t.ok(rc == 0, "and stops cleanly on SIGTERM (%s)" % rc)
t.done()
