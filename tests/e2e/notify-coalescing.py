#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""notify_usecs: records are sent to subscribers together, a coalescing time
after the first one not yet sent.  Two records emitted within the time reach
a subscriber in one datagram, no sooner than the time after the first; with
0 a record goes out alone, without waiting; a value out of range is refused;
and a record still waiting for the timer when kprint.ko is unloaded is sent
before the family goes."""
import errno
import os
import select
import subprocess
import sys
import time

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import MODPARAMS, check, finish  # noqa: E402

PARAM = "/sys/module/kprint/parameters/notify_usecs"
WINDOW = 1.0		# long enough that two emits 0.1 s apart fall in it


def set_usecs(value):
    with open(PARAM, "w") as f:
        f.write(str(value))


def usecs():
    with open(PARAM) as f:
        return int(f.read())


def datagram(sub, seconds):
    """(receive time, records) of sub's next notification, or (None, [])."""
    if not select.select([sub.sock], [], [], seconds)[0]:
        return None, []
    for recs in sub.notifications():
        return time.monotonic(), recs


check("notify_usecs is 4000 by default", usecs() == 4000, "read %d" % usecs())
for bad in ("1000001", "-1", "soon"):
    try:
        set_usecs(bad)
        check(f"notify_usecs={bad} refused", False, "accepted")
    except OSError as e:
        check(f"notify_usecs={bad} refused with EINVAL", e.errno == errno.EINVAL,
              os.strerror(e.errno))
check("a refused value leaves notify_usecs as it was", usecs() == 4000, "read %d" % usecs())

ctl = kpnl.Genl()
sub = kpnl.Genl()
sub.join()

# Two records within the window: one datagram, sent once the window is over.
set_usecs(int(WINDOW * 1e6))
a = ctl.emit(6, "coalesced %s", ["a"])
time.sleep(0.1)		# the second record's time, inside the window: the stimulus
b = ctl.emit(6, "coalesced %s", ["b"])
when, recs = datagram(sub, 30)
seqs = [r["seq"] for r in recs]
check("two records emitted 0.1 s apart come in one datagram", seqs == [a, b],
      "got seqs %r for %d, %d" % (seqs, a, b))
if recs:
    waited = when - recs[0]["ts_mono_ns"] / 1e9
    check("that datagram left no sooner than notify_usecs after the first record",
          waited >= WINDOW, "after %.3f s" % waited)

# Without coalescing, a record does not wait for the window it had before.
set_usecs(0)
c = ctl.emit(6, "alone %s", ["c"])
when, recs = datagram(sub, 30)
check("with notify_usecs=0 the record comes in a datagram of its own",
      [r["seq"] for r in recs] == [c], "got %r" % [r["seq"] for r in recs])
if recs:
    waited = when - recs[0]["ts_mono_ns"] / 1e9
    check("and without waiting for the earlier window", waited < WINDOW,
          "after %.3f s" % waited)

# A record waiting for its timer at unload still reaches the subscriber.
set_usecs(int(WINDOW * 1e6))
d = ctl.emit(6, "last %s", ["d"])
ctl.close()
subprocess.run(["rmmod", "kprint"], check=True)
when, recs = datagram(sub, 0)
check("a record waiting for the timer at unload was sent before the family went",
      [r["seq"] for r in recs] == [d], "got %r" % [r["seq"] for r in recs])
sub.close()
subprocess.run(["insmod", "kernel/kprint.ko", *MODPARAMS], check=True)
finish()
