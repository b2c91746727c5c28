#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmarks themselves, run as root in the guest (tests/bench/run).

Every comparison runs its two sides in turn, A B A B ..., --reps times, so a
slow phase of the emulated machine hits both sides alike; each repetition
yields one ratio.  The raw measurements and the ratios go to --out as JSON;
tests/bench/report.py turns them into the table.

The console log level is set to 1 first: the guest's serial console costs
tens of microseconds per line under emulation and would otherwise be most
of what both printk() and kprint_*() cost (both go through printk).
"""
import argparse
import gc
import http.client
import io
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
from kpxtest import line, record, stop_process  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import filtered  # noqa: E402
import npd  # noqa: E402

BENCH = "/sys/module/kprint_bench/parameters"
TEST = "/sys/module/kprint_test/parameters"
EXPORTER = "kprint_exporter"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(*a):
    print("#", *a, flush=True)


def write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def read(path):
    with open(path) as f:
        return f.read()


def kernel_run(mode, n):
    """ns per call of N kprint_bench calls of MODE (kprint or printk)."""
    write(BENCH + "/run", "%s:%d" % (mode, n))
    return int(read(BENCH + "/last_ns")) / n


def cpu_busy_seconds():
    """CPU time of the whole guest, every CPU and every mode but idle."""
    fields = [int(x) for x in read("/proc/stat").split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / CLK_TCK


def ctx_switches(pid):
    """(voluntary, involuntary) context switches of every thread of PID.
    A voluntary one is the thread going to sleep, i.e. one wake-up; an
    involuntary one is a preemption, which says more about the scheduler
    and who shares the CPU than about batching."""
    vol = invol = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        for ln in read("/proc/%d/task/%s/status" % (pid, tid)).splitlines():
            if ln.startswith("voluntary_ctxt_switches:"):
                vol += int(ln.split()[1])
            elif ln.startswith("nonvoluntary_ctxt_switches:"):
                invol += int(ln.split()[1])
    return vol, invol


def kstats():
    out = subprocess.run(["kprint", "stats", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


class Daemon:
    """A process whose stdout and stderr are drained for as long as it runs."""

    def __init__(self, argv, ready=None, deadline=120):
        self.lines = []
        self.ready = threading.Event()
        self.match = ready
        self.found = None
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if ready and not self.ready.wait(deadline):
            self.stop()
            raise RuntimeError("%s did not start: %r" % (argv[0], self.lines[-5:]))
        if ready and self.found is None:
            self.stop()
            raise RuntimeError("%s exited: %r" % (argv[0], self.lines[-5:]))

    def _read(self):
        for raw in self.proc.stdout:
            text = raw.decode("utf-8", "replace").rstrip("\n")
            if len(self.lines) < 10000:
                self.lines.append(text)
            if self.match and self.found is None:
                m = re.search(self.match, text)
                if m:
                    self.found = m
                    self.ready.set()
        self.ready.set()

    def stop(self, sig=signal.SIGTERM, deadline=60):
        return stop_process(self.proc, self.reader, sig, deadline)


class Exporter(Daemon):
    def __init__(self, *args):
        super().__init__([EXPORTER, "--listen", "127.0.0.1:0", *args],
                         ready=r"listening on \[?([0-9.]+)\]?:(\d+),")
        self.port = int(self.found.group(2))
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def get(self, path):
        """(seconds the request took, body) on a kept-alive connection."""
        t0 = time.monotonic()
        self.conn.request("GET", path)
        r = self.conn.getresponse()
        body = r.read()
        t1 = time.monotonic()
        if r.status != 200:
            raise RuntimeError("GET %s: %d %r" % (path, r.status, body[:200]))
        return t1 - t0, body

    def last_seq(self):
        recs = json.loads(self.get("/records?limit=1")[1])
        return recs[-1]["seq"] if recs else 0

    def wait_seq(self, seq, deadline=300, pause=0.02):
        """Poll until the newest record kept is SEQ or later: its time."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.last_seq() >= seq:
                return time.monotonic()
            time.sleep(pause)
        raise RuntimeError("the exporter never reached seq %d" % seq)

    def caught_up(self):
        """Wait until it holds everything the ring holds; the ring's next seq."""
        nxt = kstats()["next_seq"]
        self.wait_seq(nxt - 1)
        return nxt


def exporter_across(probe, make, count, pause):
    """probe(exporter) of a fresh exporter before make() and again once the
    exporter holds the count records that make() wrote: (before, after)."""
    ex = Exporter()
    try:
        base = ex.caught_up() - 1
        before = probe(ex)
        make()
        ex.wait_seq(base + count, pause=pause)
        return before, probe(ex)
    finally:
        ex.stop()


# --- B1, B3: the cost of one call ------------------------------------------

def bpf_attach():
    subprocess.run(["kprint", "formats", "--top", "1"], check=True,
                   stdout=subprocess.DEVNULL)


def bpf_detach():
    subprocess.run(["kprint", "formats", "--unload"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def subscriber():
    """A `kprint monitor` that has seen a record, so it surely listens."""
    mon = Daemon(["kprint", "monitor", "--json"])
    end = time.monotonic() + 60
    while time.monotonic() < end and not any("kprint_bench" in x for x in mon.lines):
        kernel_run("kprint", 1)
        time.sleep(0.05)
    if not any("kprint_bench" in x for x in mon.lines):
        mon.stop()
        raise RuntimeError("kprint monitor showed nothing: %r" % mon.lines[-5:])
    return mon


BRIDGE = "/sys/module/kprint/parameters/bridge"
BPF_STATS = "/proc/sys/kernel/bpf_stats_enabled"
# The programs that run per printk message (bpf/kprint_counter.bpf.c).
PRINTK_PROGS = ("printk_count",)
HOOK_COST_OBJ = os.path.join(REPO, ".output", "bpf", "hook_cost.bpf.o")


class EmptyHook:
    """tests/bench/hook_cost.bpf.c attached (libbpf through ctypes: bpftool
    7.1 loads but does not attach), for as long as the with block."""

    def __enter__(self):
        import ctypes
        lib = ctypes.CDLL("libbpf.so.1", use_errno=True)
        for fn, res, args in (("bpf_object__open_file", ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_void_p]),
                              ("bpf_object__load", ctypes.c_int, [ctypes.c_void_p]),
                              ("bpf_object__find_program_by_name", ctypes.c_void_p,
                               [ctypes.c_void_p, ctypes.c_char_p]),
                              ("bpf_program__attach", ctypes.c_void_p, [ctypes.c_void_p]),
                              ("bpf_link__destroy", ctypes.c_int, [ctypes.c_void_p]),
                              ("bpf_object__close", None, [ctypes.c_void_p])):
            getattr(lib, fn).restype = res
            getattr(lib, fn).argtypes = args
        self.lib, self.link = lib, None
        self.obj = lib.bpf_object__open_file(HOOK_COST_OBJ.encode(), None)
        if not self.obj or lib.bpf_object__load(self.obj):
            raise RuntimeError("cannot load %s: %s" % (HOOK_COST_OBJ, os.strerror(ctypes.get_errno())))
        prog = lib.bpf_object__find_program_by_name(self.obj, b"bench_hook_cost")
        self.link = lib.bpf_program__attach(prog) if prog else None
        if not self.link:
            lib.bpf_object__close(self.obj)
            raise RuntimeError("cannot attach bench_hook_cost: %s" % os.strerror(ctypes.get_errno()))
        return self

    def __exit__(self, *exc):
        self.lib.bpf_link__destroy(self.link)
        self.lib.bpf_object__close(self.obj)


def bpf_prog_stats(names):
    """{name: (run_cnt, run_time_ns)} of our loaded BPF programs (the
    kernel keeps 15 bytes of a program's name; bpftool shows the whole one
    from BTF when it has it)."""
    out = subprocess.run(["bpftool", "-j", "prog", "show"], check=True,
                         capture_output=True, text=True).stdout
    short = {n[:15]: n for n in names}
    short.update({n: n for n in names})
    stats = {}
    for p in json.loads(out):
        name = short.get(p.get("name"))
        if name:
            cnt, ns = stats.get(name, (0, 0))
            stats[name] = (cnt + p.get("run_cnt", 0), ns + p.get("run_time_ns", 0))
    return stats


def bpf_run_ns(mode, n):
    """ns per call of MODE run with the counters attached, and the BPF
    programs' own run time per printk message then (kernel.bpf_stats_enabled:
    the kernel's clock around each program run, never negative)."""
    write(BPF_STATS, "1")
    try:
        before = bpf_prog_stats(PRINTK_PROGS + ("kprint_count_record",))
        ns = kernel_run(mode, n)
        after = bpf_prog_stats(PRINTK_PROGS + ("kprint_count_record",))
    finally:
        write(BPF_STATS, "0")
    run = {k: (after[k][0] - before.get(k, (0, 0))[0], after[k][1] - before.get(k, (0, 0))[1])
           for k in after}
    return ns, run


# kernel/kprint_main.c's default ring_size (the bench loads 16 MiB).
DEFAULT_RING = 1 << 20


def bridged_ring_use(n):
    """Fill the whole ring with bridged records of B1's formats (printk with
    the bridge on) and read, from the kernel's ring statistics, how many of
    them it holds: its bytes over that count is what one takes, alignment
    and the unused end included."""
    write(BRIDGE, "1")
    start = kstats()["next_seq"]
    for _ in range(100):
        kernel_run("printk", n)
        st = kstats()
        # Everything the ring holds came after start: only these records.
        if st["first_seq"] > start:
            return {"ring_bytes": st["ring_bytes"], "ring_records": st["ring_records"],
                    "first_seq": st["first_seq"], "next_seq": st["next_seq"]}
    raise RuntimeError("the ring never filled with bridged records: %r" % st)


# Calls of the empty hook's loop per printk call of the others, and the
# passes of each side it is timed in.
HOOK_CALLS = 5
HOOK_PASSES = 3


def bench_emit(a, res):
    n = a.calls
    for mode in ("printk", "kprint"):
        kernel_run(mode, n)             # warm caches and the format ids
    rows = []
    for rep in range(a.reps):
        row = {}
        # Switching the bridge patches kernel text (ftrace), and the calls
        # right after pay for it: the emulator translates the patched code
        # again.  The first printk pass after turning the bridge off read
        # 8,000-11,000 ns against 6,800-7,500 for the next ones, which made
        # B9 look better than it is.  A pass after each switch settles it.
        write(BRIDGE, "0")
        try:
            kernel_run("printk", n)
            row["printk_nobridge"] = kernel_run("printk", n)
            row["kprint_nobridge"] = kernel_run("kprint", n)
        finally:
            write(BRIDGE, "1")
        kernel_run("printk", n)
        row["printk"] = kernel_run("printk", n)
        row["kprint"] = kernel_run("kprint", n)
        row["clock_read"] = kernel_run("clock", n)
        write("/sys/module/kprint/parameters/printk", "N")
        try:
            row["kprint_noecho"] = kernel_run("kprint", n)
        finally:
            write("/sys/module/kprint/parameters/printk", "Y")
        bpf_attach()
        row["kprint_bpf"] = kernel_run("kprint", n)
        row["printk_bpf"], run = bpf_run_ns("printk", n)
        bpf_detach()
        # Per printk message: the programs that ran for it, by the kernel's
        # own run-time statistics; the calls made are the messages.
        row["bpf_ns_per_printk"] = sum(v[1] for k, v in run.items() if k in PRINTK_PROGS) / n
        row["bpf_runs_per_printk"] = sum(v[0] for k, v in run.items() if k in PRINTK_PROGS) / n
        # And what the hook itself costs, which those statistics leave out:
        # an empty fentry's trampoline (the counter's kind of hook), timed
        # on a call that costs little besides, so that the difference
        # stands far above the noise.  Each side is the fastest of
        # HOOK_PASSES alternating passes: the host's other load only ever
        # adds time, and one slow pass on either side moved the difference
        # by half (B3_hook_ns 236..431 ns in one run of single passes).
        bare, hooked = [], []
        for _ in range(HOOK_PASSES):
            bare.append(kernel_run("hook", n * HOOK_CALLS))
            with EmptyHook():
                hooked.append(kernel_run("hook", n * HOOK_CALLS))
        row["hook_bare"], row["hook_fentry"] = min(bare), min(hooked)
        row["hook_ns"] = row["hook_fentry"] - row["hook_bare"]
        if row["hook_ns"] <= 0:
            raise RuntimeError("an empty hook timed as free (%r): noise, not a cost" % row)
        rows.append(row)
        log("B1 rep %d: %s" % (rep, ", ".join("%s %.1f" % kv for kv in row.items())))
    # With a subscriber, after all the others: when it leaves, the notification
    # worker still multicasts what the pass made, on the other CPU, and a pass
    # timed then paid for it (B1 with the bridge off read 2.6 instead of 1.5
    # in the repetitions that followed one).  One subscriber for all passes.
    mon = subscriber()
    try:
        for rep, row in enumerate(rows):
            row["kprint_sub"] = kernel_run("kprint", n)
            log("B1 rep %d: kprint_sub %.1f" % (rep, row["kprint_sub"]))
    finally:
        mon.stop()
    ring = bridged_ring_use(n)
    res["raw"]["emit"] = {"calls_per_run": n, "reps": rows, "ring": ring}
    res["ratios"]["B9_ring_bytes"] = [ring["ring_bytes"] / ring["ring_records"]]
    res["ratios"]["B9_ring_default"] = [ring["ring_records"] * DEFAULT_RING / ring["ring_bytes"]]
    res["ratios"]["B1"] = [r["kprint_nobridge"] / r["printk_nobridge"] for r in rows]
    res["ratios"]["B1_bridge"] = [r["kprint"] / r["printk"] for r in rows]
    res["ratios"]["B9"] = [r["printk"] / r["printk_nobridge"] for r in rows]
    res["ratios"]["B1_subscriber"] = [r["kprint_sub"] / r["printk"] for r in rows]
    res["ratios"]["B1_bpf"] = [r["kprint_bpf"] / r["printk"] for r in rows]
    res["ratios"]["B1_noecho"] = [r["kprint_noecho"] / r["printk"] for r in rows]
    res["ratios"]["B1_clock"] = [r["clock_read"] / r["printk"] for r in rows]
    res["ratios"]["B3"] = [(r["bpf_ns_per_printk"] + r["bpf_runs_per_printk"] * r["hook_ns"])
                           / r["printk"] for r in rows]
    res["ratios"]["B3_run_time"] = [r["bpf_ns_per_printk"] / r["printk"] for r in rows]
    res["ratios"]["B3_hook_ns"] = [r["hook_ns"] for r in rows]
    res["ratios"]["B3_runs"] = [r["bpf_runs_per_printk"] for r in rows]
    res["ratios"]["B3_timed"] = [(r["printk_bpf"] - r["printk"]) / r["printk"] for r in rows]
    res["ratios"]["B3_kprint_timed"] = [(r["kprint_bpf"] - r["kprint"]) / r["printk"] for r in rows]


# --- B2, B6: ingest -------------------------------------------------------

def proc_cpu(pid):
    """(user, system) CPU seconds of every thread of PID so far."""
    f = read("/proc/%d/stat" % pid).rsplit(")", 1)[1].split()
    return int(f[11]) / CLK_TCK, int(f[12]) / CLK_TCK


def ingest_exporter(n):
    """One flood of n records into an exporter alone on the group:
    (records/s, user and system CPU s).  Its own log gives the time it
    stored the last record, as the bare receiver's gives its last
    datagram's: it is asked over HTTP only once the flood is written."""
    ex = Exporter("--records", str(max(n, 10000)))
    try:
        base = ex.caught_up() - 1
        c0 = proc_cpu(ex.proc.pid)
        t0 = time.monotonic()
        write(TEST + "/flood", n)
        # After the flood, rarely: each question costs the guest's CPU.
        ex.wait_seq(base + n, pause=0.25)
        c1 = proc_cpu(ex.proc.pid)
        extra = ex.last_seq() - (base + n)
    finally:
        ex.stop()
    m = [re.search(r"received (\d+) records, the last stored at (\d+) ns", x)
         for x in ex.lines]
    m = [x for x in m if x]
    if not m:
        raise RuntimeError("B2: the exporter did not log its last record: %r" % ex.lines[-5:])
    if extra:
        # A record after the flood's last moves the time later: against kprint.
        log("B2: %d records after the flood's last" % extra)
    # A resync re-reads the ring: what it costs is in the figure, said here.
    for x in ex.lines:
        if re.search(r"socket overrun|gap of|lost \d+ records", x):
            log("B2: the exporter said: %s" % x)
    return (n / (int(m[-1].group(2)) / 1e9 - t0),
            c1[0] - c0[0], c1[1] - c0[1])


def ingest_bare(n):
    """The same flood into kprint-bare-recv: (records/s, its rusage line)."""
    bare = Daemon(["kprint-bare-recv", str(n), "2000"], ready="^ready$")
    t0 = time.monotonic()
    write(TEST + "/flood", n)
    bare.proc.wait(300)
    bare.reader.join(10)
    out = json.loads(bare.lines[-1])
    return out["records"] / (out["last_ns"] / 1e9 - t0), out


def bench_ingest(a, res):
    """B2.  Both sides are timed alike: from the flood's start to their
    own clock reading once they have the last record, nobody asking them
    meanwhile (under single-threaded TCG whatever runs in the guest during
    the flood is taken from it).  The order alternates: the side that runs
    second after the other has been seen to be faster, whichever it is."""
    n = a.ingest_records
    rows = []
    # Each exporter starts with the ring's records in its store: with at
    # least n of them there, every rep measures a store that recycles its
    # oldest records, as a running exporter's does, and none the one-time
    # filling of a fresh store (a page fault per few records), which
    # otherwise only the first rep after boot would pay.
    write(TEST + "/flood", n)
    # One pass of each side first, not counted: in the three full runs
    # of 2026-12-06 evening the first repetition, right after B1's passes
    # (BPF attached and detached, the bridge switched, a subscriber gone),
    # was the lowest ratio every time (0.72, 0.81, 0.62 against medians
    # of 0.76, 0.89, 0.81).  Logged, so that it can be compared.
    rps, _, _ = ingest_exporter(n)
    bare_rps, _ = ingest_bare(n)
    log("B2 warm-up, not counted: exporter %.0f rec/s, bare %.0f rec/s (%.3f)"
        % (rps, bare_rps, rps / bare_rps))
    for rep in range(a.reps):
        row = {}
        for side in (("exporter", "bare") if rep % 2 == 0 else ("bare", "exporter")):
            if side == "exporter":
                rps, user, system = ingest_exporter(n)
                row["exporter_rps"] = rps
                row["exporter_user_us"] = user * 1e6 / n
                row["exporter_system_us"] = system * 1e6 / n
                continue
            rps, out = ingest_bare(n)
            row["bare_rps"] = rps
            row["bare_records"] = out["records"]
            row["bare_overruns"] = out["overruns"]
            row["bare_user_us"] = out["user_us"] / n
            row["bare_system_us"] = out["system_us"] / n
        rows.append(row)
        log("B2 rep %d: exporter %.0f rec/s (%.1f us user, %.1f us system per record), "
            "bare %.0f rec/s (%.1f, %.1f; %d of %d, %d overruns)"
            % (rep, row["exporter_rps"], row["exporter_user_us"], row["exporter_system_us"],
               row["bare_rps"], row["bare_user_us"], row["bare_system_us"],
               row["bare_records"], n, row["bare_overruns"]))
    res["raw"]["ingest"] = {"records_per_run": n, "reps": rows}
    res["ratios"]["B2"] = [r["exporter_rps"] / r["bare_rps"] for r in rows]
    # What the host did meanwhile shows in the bare receiver's own spread:
    # its work is the same every time.  The host's other load only ever
    # slows a flood down, so each side's fastest repetition is the nearest
    # to what a quiet host gives, and their ratio the figure least moved.
    res["ratios"]["B2_bare_rps"] = [r["bare_rps"] for r in rows]
    res["ratios"]["B2_best"] = [max(r["exporter_rps"] for r in rows) /
                                max(r["bare_rps"] for r in rows)]


QUESTIONS = 5


def exporter_wakeups(rate, secs):
    """(wake-ups, preemptions, wake-ups of one question) of a fresh exporter
    while kprint_test's steady load writes rate*secs records, less those of
    the bench's own questions.  Whether it has them all is asked over HTTP,
    and each question wakes its HTTP threads too (0.6 to 1.2 times, on
    average, in the bench guest): what one costs is measured on the idle
    exporter first, and taken off for each asked.  They were about 0.02 of
    B6's 5.0 per 1,000 records."""
    ex = Exporter()
    try:
        base = ex.caught_up() - 1
        q0 = ctx_switches(ex.proc.pid)
        for _ in range(QUESTIONS):
            ex.last_seq()
        q1 = ctx_switches(ex.proc.pid)
        per_question = (q1[0] - q0[0]) / QUESTIONS
        c0 = ctx_switches(ex.proc.pid)
        write(TEST + "/steady", "%d:%d" % (rate, secs))
        asked = 1
        # Few questions: after the flood, twice a second.
        while ex.last_seq() < base + rate * secs:
            time.sleep(0.5)
            asked += 1
        c1 = ctx_switches(ex.proc.pid)
    finally:
        ex.stop()
    return c1[0] - c0[0] - asked * per_question, c1[1] - c0[1], per_question


def bench_wakeups(a, res):
    rate, secs = a.wakeup_rate, a.wakeup_seconds
    rows = []
    for rep in range(a.reps):
        row = {}
        woke, preempted, per_question = exporter_wakeups(rate, secs)
        row["exporter"] = woke * 1000 / (rate * secs)
        row["exporter_preempted"] = preempted * 1000 / (rate * secs)
        row["question_wakeups"] = per_question
        # It reports its own context switches (getrusage) as it exits.
        bare = Daemon(["kprint-bare-recv", str(rate * secs), "2000"], ready="^ready$")
        write(TEST + "/steady", "%d:%d" % (rate, secs))
        bare.proc.wait(300)
        bare.reader.join(10)
        out = json.loads(bare.lines[-1])
        row["bare"] = out["voluntary_switches"] * 1000 / (rate * secs)
        row["bare_datagrams"] = out["datagrams"] * 1000 / (rate * secs)
        rows.append(row)
        log("B6 rep %d: %.2f wake-ups (and %.2f preemptions) per 1000 records, "
            "%.1f per question taken off; bare receiver %.2f wake-ups, %.2f datagrams"
            % (rep, row["exporter"], row["exporter_preempted"], row["question_wakeups"],
               row["bare"], row["bare_datagrams"]))
    res["raw"]["wakeups"] = {"rate": rate, "seconds": secs, "reps": rows}
    res["ratios"]["B6"] = [r["exporter"] for r in rows]
    res["ratios"]["B6_preempted"] = [r["exporter_preempted"] for r in rows]
    res["ratios"]["B6_bare"] = [r["bare"] for r in rows]
    res["ratios"]["B6_datagrams"] = [r["bare_datagrams"] for r in rows]


# --- B4, B5: HTTP ------------------------------------------------------------

def replay_file(path, formats, seed):
    import random
    rng = random.Random(seed)
    order = []
    for i in range(formats):
        order += ["bench format %05d says %%d" % i] * rng.randint(1, 5)
    rng.shuffle(order)
    with open(path, "wb") as f:
        for seq, fmt in enumerate(order, 1):
            f.write(line(record(seq, fmt, level="warn", subsystem="bench", module="replay",
                                args=[str(seq)], text=fmt.replace("%d", str(seq)))))
    return len(order)


def bench_http(a, res, work):
    small, big = a.formats // 10, a.formats
    f1 = os.path.join(work, "formats-small.jsonl")
    f2 = os.path.join(work, "formats-big.jsonl")
    n1 = replay_file(f1, small, 1)
    replay_file(f2, big, 2)
    common = ["--no-bpf", "--max-series", str(2 * big), "--records", str(max(n1, 1000))]
    e1 = Exporter("--replay", f1, *common)
    e2 = Exporter("--replay", f2, *common)
    rows = []
    try:
        for e in (e1, e2):
            e.get("/metrics")
            e.get("/records?limit=1000")
        series = []
        for e in (e1, e2):
            body = e.get("/metrics")[1].decode()
            series.append(sum(1 for ln in body.splitlines()
                              if ln.startswith("kprint_format_messages_total{")))
        for rep in range(a.reps):
            row = {"metrics_small": [], "metrics_big": [], "records_1000": []}
            for _ in range(a.http_requests):
                row["metrics_small"].append(e1.get("/metrics")[0])
                row["metrics_big"].append(e2.get("/metrics")[0])
                row["records_1000"].append(e1.get("/records?limit=1000")[0])
            row = {k: statistics.median(v) for k, v in row.items()}
            rows.append(row)
            log("B4/B5 rep %d: /metrics %d series %.2f ms, %d series %.2f ms, "
                "/records?limit=1000 %.2f ms" % (rep, series[0], row["metrics_small"] * 1e3,
                                                series[1], row["metrics_big"] * 1e3,
                                                row["records_1000"] * 1e3))
    finally:
        e1.stop()
        e2.stop()
    res["raw"]["http"] = {"formats": [small, big], "series": series, "reps": rows}
    res["ratios"]["B4"] = [r["metrics_big"] / r["metrics_small"] for r in rows]
    res["ratios"]["B4_ns_per_series"] = [(r["metrics_big"] - r["metrics_small"]) * 1e9 /
                                         (series[1] - series[0]) for r in rows]
    res["ratios"]["B5"] = [r["records_1000"] / r["metrics_small"] for r in rows]


# --- B7: against mtail -------------------------------------------------------

def format_regex(fmt):
    """The regex an mtail user writes for a printf format (RE2 syntax)."""
    conv = {"d": r"-?\d+", "u": r"\d+", "x": r"[0-9a-f]+", "s": r"\S+"}

    def esc(text):
        return re.sub(r"([\\.+*?()|\[\]{}^$/])", r"\\\1", text)

    out, pos = "^", 0
    for m in re.finditer(r"%[-0-9.]*(?:ll|l|h|z)?([dusx])", fmt):
        out += esc(fmt[pos:m.start()]) + conv[m.group(1)]
        pos = m.end()
    return out + esc(fmt[pos:]) + "$"


def mtail_count(port, name=r"kprint_bench_format_\d+"):
    """The sum of mtail's counters called NAME (a regex)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request("GET", "/metrics")
        body = c.getresponse().read().decode()
    finally:
        c.close()
    return sum(int(float(m.group(1))) for m in
               re.finditer(r"^%s\{[^}]*\} (\S+)$" % name, body, re.M))


class TextPipeline:
    """printk's text as users count it today: /dev/kmsg through dmesg into
    a log file that mtail tails, one regex per format.  (A FIFO is read a
    buffer per poll interval by mtail 3.0.0-rc50: too slow to keep up.)"""

    MARKER = "kprint_bench_marker"

    def __init__(self, work, progs, port):
        self.port = port
        self.log = os.path.join(work, "kmsg.log")
        open(self.log, "w").close()
        self.mtail = Daemon(["mtail", "--progs", progs, "--logs", self.log, "--address",
                             "127.0.0.1", "--port", str(port), "--logtostderr"],
                            ready=r"Listening on")
        self.dmesg = subprocess.Popen("exec dmesg --follow-new --notime >> %s" % self.log,
                                      shell=True, stdin=subprocess.DEVNULL)
        # dmesg follows only what comes after it opened /dev/kmsg, so count
        # only once a marker has gone all the way through.
        end = time.monotonic() + 120
        while True:
            try:
                if mtail_count(port, self.MARKER):
                    break
            except OSError:
                pass
            if time.monotonic() > end:
                self.stop()
                raise RuntimeError("the text pipeline never passed a marker through")
            with open("/dev/kmsg", "w") as k:
                k.write("<6>%s\n" % self.MARKER)
            time.sleep(0.1)

    def count(self):
        return mtail_count(self.port)

    def stop(self):
        self.dmesg.terminate()
        self.dmesg.wait(60)
        self.mtail.stop()
        os.unlink(self.log)


def bench_mtail(a, res, work):
    n = a.messages
    formats = read(BENCH + "/formats").splitlines()
    progs = os.path.join(work, "mtail")
    os.makedirs(progs, exist_ok=True)
    with open(os.path.join(progs, "kprint_bench.mtail"), "w") as f:
        for i, fmt in enumerate(formats):
            f.write("counter kprint_bench_format_%d\n/%s/ {\n  kprint_bench_format_%d++\n}\n"
                    % (i, format_regex(fmt), i))
        f.write("counter %s\n/^%s$/ {\n  %s++\n}\n" % ((TextPipeline.MARKER,) * 3))
    rows = []
    for rep in range(a.reps):
        row = {}
        # A: kprint counts: the module, the BPF counters, the exporter.
        c0, c1 = exporter_across(lambda ex: cpu_busy_seconds(),
                                 lambda: write(BENCH + "/run", "kprint:%d" % n), n, pause=0.05)
        bpf_detach()
        row["kprint_cpu_s_per_M"] = (c1 - c0) * 1e6 / n
        # B: the same messages by printk(), counted by the text pipeline.
        text = TextPipeline(work, progs, a.mtail_port)
        try:
            before = text.count()
            c0 = cpu_busy_seconds()
            write(BENCH + "/run", "printk:%d" % n)
            end = time.monotonic() + 60 + n / 500
            while text.count() < before + n:
                if time.monotonic() > end:
                    raise RuntimeError("mtail counted %d of %d" % (text.count() - before, n))
                time.sleep(0.05)
            c1 = cpu_busy_seconds()
        finally:
            text.stop()
        row["mtail_cpu_s_per_M"] = (c1 - c0) * 1e6 / n
        rows.append(row)
        log("B7 rep %d: kprint %.2f, mtail %.2f CPU s per million messages"
            % (rep, row["kprint_cpu_s_per_M"], row["mtail_cpu_s_per_M"]))
    res["raw"]["mtail"] = {"messages_per_run": n, "formats": len(formats), "reps": rows}
    res["ratios"]["B7"] = [r["kprint_cpu_s_per_M"] / r["mtail_cpu_s_per_M"] for r in rows]


# --- B8: latency ----------------------------------------------------------------

class RawHTTP:
    """GET on a kept-alive connection of its own, read by hand, so that an
    answer's time is when its last byte came in: http.client parses the
    status line and headers (email.parser) before it gives the body, and
    that took 4 to 5 ms of the guest's CPU per answer after the prober had
    woken (traced on 2026-12-07): the prober's time, not kprint's."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.buf = b""
        self.t_in = None

    def send(self, path):
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % path).encode())

    def _recv(self):
        data = self.sock.recv(65536)
        self.t_in = time.monotonic()
        if not data:
            raise RuntimeError("the exporter closed the connection")
        self.buf += data

    def receive(self):
        """(when the whole answer was in, its bytes): one answer with a
        Content-Length, as every /records answer is."""
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        end = self.buf.index(b"\r\n\r\n") + 4
        m = re.search(rb"(?im)^content-length:[ \t]*(\d+)[ \t]*\r$", self.buf[:end])
        if not m:
            raise RuntimeError("an answer without Content-Length: %r" % self.buf[:300])
        while len(self.buf) < end + int(m.group(1)):
            self._recv()
        answer, self.buf = self.buf[:end + int(m.group(1))], self.buf[end + int(m.group(1)):]
        return self.t_in, answer

    def close(self):
        self.sock.close()


class _Bytes:
    """An answer's bytes as the socket http.client.HTTPResponse reads."""

    def __init__(self, data):
        self.data = data

    def makefile(self, mode):
        return io.BytesIO(self.data)


def parse_answer(answer, what):
    """The records of an answer, parsed as http.client parses one."""
    r = http.client.HTTPResponse(_Bytes(answer))
    r.begin()
    body = r.read()
    if r.status != 200:
        raise RuntimeError("B8: GET %s: %d %r" % (what, r.status, body[:200]))
    return json.loads(body)


def latency_probe(ex, raw, held):
    """One kprint_info() until /records shows it: (s from the record's own
    stamp to the answer's last byte, s from before the write that makes
    it, s from the stamp until the prober had parsed the answer as
    http.client does).  held: asked once, with wait=, before the record is
    written, as a client following the records is always waiting; else
    asked every millisecond after it, as a client without wait= must,
    with http.client (B8 as measured until 2026-12-07)."""
    after = ex.last_seq()
    path = "/records?q=kprint_bench%%20sd&limit=1&after=%d" % after
    if held:
        raw.send(path + "&wait=30")
    t0 = time.monotonic()
    write(BENCH + "/run", "kprint:1")
    while True:
        if held:
            t1, answer = raw.receive()
            recs = parse_answer(answer, path)
        else:
            recs = json.loads(ex.get(path)[1])
            t1 = time.monotonic()
        t2 = time.monotonic()
        if recs:
            break
        if t1 - t0 > 60:
            raise RuntimeError("B8: a probe after seq %d not in /records in 60 s; kprint "
                               "stats %r, exporter at seq %d" % (after, kstats(), ex.last_seq()))
        if held:
            raw.send(path + "&wait=30")
        else:
            time.sleep(0.001)
    # The record's stamp is CLOCK_MONOTONIC, as time.monotonic(): within
    # the write, or the clocks disagree and neither figure means anything.
    stamp = recs[0]["ts_mono_ns"] / 1e9
    if not t0 - CLOCK_SLACK_S <= stamp <= t1 + CLOCK_SLACK_S:
        raise RuntimeError("B8: the record's stamp %.6f is not between the write's start %.6f "
                           "and its answer %.6f" % (stamp, t0, t1))
    return t1 - stamp, t1 - t0, t2 - stamp


# How far the record's stamp (kprint's clock, interpolated from the
# scheduler clock between ticks) may stray from CLOCK_MONOTONIC.
CLOCK_SLACK_S = 0.001


def percentiles(lat):
    lat = sorted(lat)
    return {"probes": len(lat), "p50_ms": 1e3 * lat[len(lat) // 2],
            "p99_ms": 1e3 * lat[min(len(lat) - 1, int(len(lat) * 0.99))]}


def latency_row(probes):
    """Percentiles from the stamps, those from before the writes, and
    those until the answer was parsed."""
    return dict(percentiles([p[0] for p in probes]),
                from_write=percentiles([p[1] for p in probes]),
                parsed=percentiles([p[2] for p in probes]))


def bench_latency(a, res):
    """B8: probes held by wait= (the row) and polled (beside it) take
    turns, so that both see the same load and the same host.  Each is
    timed from the record's own stamp, when kprint_info() stored it: the
    write that makes it (the prober's Python and a sysfs write, 1 to 10 ms
    under the load) is not kprint's way, and is logged apart."""
    ex = Exporter()
    raw = RawHTTP(ex.port)
    out = {}
    # The prober's own pauses are not kprint's: by B8 this process holds
    # every earlier step's objects, and a full collection of them in the
    # middle of a probe would be timed as kprint's latency.
    gc.collect()
    gc.disable()
    try:
        for name, rate in (("low", 0), ("high", a.latency_rate)):
            load = None
            if rate:
                # Runs until a signal interrupts the write (steady -EINTR).
                load = subprocess.Popen(["sh", "-c", "echo %d:3600 > %s/steady" % (rate, TEST)])
            held, polled = [], []
            try:
                for _ in range(a.probes):
                    held.append(latency_probe(ex, raw, True))
                    time.sleep(0.02)
                    polled.append(latency_probe(ex, raw, False))
                    time.sleep(0.02)
            finally:
                if load:
                    load.terminate()
                    load.wait(60)
            L = out[name] = dict(latency_row(held), rate=rate, polled=latency_row(polled))
            log("B8 %s rate (%d/s): p50 %.2f ms, p99 %.2f ms (from the write: %.2f, %.2f; "
                "parsed by http.client: %.2f, %.2f); "
                "polled every ms: p50 %.2f ms, p99 %.2f ms (from the write: %.2f, %.2f)"
                % (name, rate, L["p50_ms"], L["p99_ms"], L["from_write"]["p50_ms"],
                   L["from_write"]["p99_ms"], L["parsed"]["p50_ms"], L["parsed"]["p99_ms"],
                   L["polled"]["p50_ms"], L["polled"]["p99_ms"],
                   L["polled"]["from_write"]["p50_ms"], L["polled"]["from_write"]["p99_ms"]))
    finally:
        gc.enable()
        raw.close()
        ex.stop()
    res["raw"]["latency"] = out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", help="default: bench.json in $KPRINT_VM_SCRATCH")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--reps", type=int)
    p.add_argument("--only", default="")
    a = p.parse_args()
    smoke = a.smoke
    a.reps = a.reps or (2 if smoke else 5)
    a.calls = 2000 if smoke else 20000
    a.ingest_records = 2000 if smoke else 40000
    a.wakeup_rate, a.wakeup_seconds = (2000, 1) if smoke else (20000, 3)
    a.formats = 1000 if smoke else 10000
    a.http_requests = 2 if smoke else 5
    a.messages = 2000 if smoke else 100000
    a.mtail_port = 3903
    a.latency_rate = 2000 if smoke else 10000
    # A p99 wants a hundred samples or more: of 50 it is the slowest.
    a.probes = 5 if smoke else 200

    if not a.out:
        a.out = os.path.join(os.environ["KPRINT_VM_SCRATCH"], "bench.json")
    for mod in ("kprint_test", "kprint_bench"):
        if not os.path.exists("/sys/module/" + mod):
            subprocess.run(["insmod", os.path.join(REPO, "kernel", mod.split("_")[1],
                                                   mod + ".ko")], check=True)
    write("/proc/sys/kernel/printk", "1 4 1 7")
    res = {"smoke": smoke, "reps": a.reps, "ratios": {}, "raw": {},
           "env": {"kernel": os.uname().release, "guest_cpus": os.cpu_count()}}
    work = tempfile.mkdtemp(prefix="kprint-bench.")
    only = set(a.only.split(",")) - {""}
    # B11's records of the boot first, before the floods of the other steps
    # overwrite them in the ring; tests/bench/npd.py measures on the host.
    steps = [("npd", lambda: npd.save_boot(os.path.join(os.path.dirname(a.out),
                                                        "npd-boot.jsonl"))),
             ("emit", lambda: bench_emit(a, res)),
             ("ingest", lambda: bench_ingest(a, res)),
             ("wakeups", lambda: bench_wakeups(a, res)),
             ("http", lambda: bench_http(a, res, work)),
             ("mtail", lambda: bench_mtail(a, res, work)),
             ("latency", lambda: bench_latency(a, res)),
             ("filtered", lambda: filtered.bench_filtered(a, res))]
    for name, step in steps:
        if only and name not in only:
            continue
        t0 = time.monotonic()
        step()
        res["raw"].setdefault("seconds", {})[name] = round(time.monotonic() - t0, 1)
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    log("results in %s" % a.out)


if __name__ == "__main__":
    main()
