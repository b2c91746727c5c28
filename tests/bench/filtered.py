# SPDX-License-Identifier: GPL-2.0
"""B12: a kernel-filtered subscriber during a flood it does not want.

`kprint monitor --level err+ --source kprint` subscribes with a filter
(KPRINT_CMD_SUBSCRIBE, kprint(7) "Filtered subscribers"), and
kprint_test.ko's steady flood of info records follows: kprint.ko should
send it nothing, so it should not wake up.  Measured per repetition: its
voluntary context switches (each a wake-up) per 10,000 flood records, and
its CPU seconds per million; the same monitor with the filter left to user
space (--until, which keeps kprint.ko from filtering) is the reference.

Each side ends with one err record after the flood, which the monitor must
print: the kernel's worker sends records in order, so the whole flood has
been dealt with by then (no sleep stands for it).  That record's own
wake-up is counted in.

tests/bench/guest.py calls bench_filtered(a, res) with a.reps,
a.wakeup_rate and a.wakeup_seconds (its B6 flood); standalone:
python3 tests/bench/filtered.py [RATE SECONDS REPS].
"""
import os
import select
import subprocess
import sys
import time

TEST = "/sys/module/kprint_test/parameters"
CLK_TCK = os.sysconf("SC_CLK_TCK")
FILTER = ["--level", "err+", "--source", "kprint"]
# With --until, monitor filters in user space only; no record gets there.
USER_SPACE = ["--until", str(2 ** 64 - 1)]


def log(*a):
    print("#", *a, flush=True)


def _switches(pid):
    vol = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            for ln in f:
                if ln.startswith("voluntary_ctxt_switches:"):
                    vol += int(ln.split()[1])
    return vol


def _cpu(pid):
    """utime + stime of the process, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def _wait_line(proc, want, seconds, emit=False):
    """Read proc's output until a line containing want; with emit, send an
    err record now and then until one arrives (the monitor subscribes at
    some point after it starts, which nothing outside shows)."""
    end = time.monotonic() + seconds
    next_emit = 0
    fd = proc.stdout.fileno()
    while time.monotonic() < end:
        if emit and time.monotonic() >= next_emit:
            subprocess.run(["kprint", "emit", "--level", "err", want], check=True,
                           stdout=subprocess.DEVNULL)
            next_emit = time.monotonic() + 0.5
        # Raw reads: a buffered reader could hold the line select() waits for.
        if select.select([fd], [], [], 0.1)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            if want.encode() in chunk:
                return
    raise RuntimeError("kprint monitor did not show %r" % want)


def _one_side(extra, rate, secs):
    proc = subprocess.Popen(["kprint", "monitor", "--json", *FILTER, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        _wait_line(proc, "filtered bench ready", 60, emit=True)
        w0, c0 = _switches(proc.pid), _cpu(proc.pid)
        with open(TEST + "/steady", "w") as f:
            f.write("%d:%d" % (rate, secs))
        subprocess.run(["kprint", "emit", "--level", "err", "filtered bench end"], check=True,
                       stdout=subprocess.DEVNULL)
        _wait_line(proc, "filtered bench end", 120)
        w1, c1 = _switches(proc.pid), _cpu(proc.pid)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    n = rate * secs
    return {"wakeups_per_10k": (w1 - w0) * 10000 / n, "cpu_s_per_million": (c1 - c0) * 1e6 / n}


def bench_filtered(a, res):
    if not os.path.exists("/sys/module/kprint_test"):
        raise RuntimeError("kprint_test.ko is not loaded")
    rate, secs = a.wakeup_rate, a.wakeup_seconds
    rows = []
    for rep in range(a.reps):
        row = {"kernel": _one_side([], rate, secs), "user": _one_side(USER_SPACE, rate, secs)}
        rows.append(row)
        log("B12 rep %d: kernel-filtered subscriber %.2f wake-ups per 10,000 unwanted records, "
            "%.3f CPU s per million; filtered in user space %.2f wake-ups, %.3f CPU s"
            % (rep, row["kernel"]["wakeups_per_10k"], row["kernel"]["cpu_s_per_million"],
               row["user"]["wakeups_per_10k"], row["user"]["cpu_s_per_million"]))
    res["raw"]["filtered"] = {"rate": rate, "seconds": secs, "reps": rows}
    res["ratios"]["B12"] = [r["kernel"]["wakeups_per_10k"] for r in rows]
    res["ratios"]["B12_cpu"] = [r["kernel"]["cpu_s_per_million"] for r in rows]
    res["ratios"]["B12_user"] = [r["user"]["wakeups_per_10k"] for r in rows]
    res["ratios"]["B12_user_cpu"] = [r["user"]["cpu_s_per_million"] for r in rows]


if __name__ == "__main__":
    import json
    import types
    rate, secs, reps = (int(x) for x in (sys.argv[1:] or ["2000", "2", "2"]))
    res = {"ratios": {}, "raw": {}}
    bench_filtered(types.SimpleNamespace(reps=reps, wakeup_rate=rate, wakeup_seconds=secs), res)
    print(json.dumps(res["ratios"]))
