#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""B11: recognising kernel problems, kprint's catalog against NPD's regexes.

tests/bench/npd.py [--smoke] [--reps N] --boot BOOT.jsonl --out OUT.json

Runs on the host, after the bench guest (tests/bench/run): both sides are
user-space programs over a file, and under the guest's emulation mtail took
70-130 s per million lines (a repetition), which would have made B11 most
of make bench.  The guest's part is save_boot(), the first step of
tests/bench/guest.py, which keeps the records of its boot before the other
steps' floods overwrite them in the ring.

kprint's side is tests/bench/problem_match.c (kprint-problem-bench): libkpc's
catalog matcher, problems/problems.yaml, over records already decoded, timed
by its own CPU time around a known number of records.  The other side is
what a node-problem-detector user runs: NPD's kernel-monitor.json rules
(tests/host/npd/kernel-monitor.json) as one mtail program, one counter per
reason, each pattern end-anchored as NPD anchors it, over the same records'
text, one line each, in `mtail --one_shot` (its whole CPU time, the
program's compilation and start included, from wait4()).  mtail matches
lines, not NPD's buffer of the last bufferSize lines joined (so it does not
do NPD's multi-line matching, which costs NPD more, not less).

The records: what the guest's ring holds of its boot (`kprint dump --json`,
the bridged printk lines of the modules loaded and the tests' set-up, the
benchmark modules' own records left out) and the problems the problem tests
cause for real, as their kernels print them (an OOM kill with its summary
line in fragments, hung tasks, one of them docker's, an oops and a divide
error, a WARNING, a soft lockup, RCU stalls, a segfault, ext4's error and
remount read-only, an XFS shutdown, block and buffer I/O errors, a link
down, a machine check), repeated until each side has seen a_count records.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NPD_RULES = os.path.join(REPO, "tests", "host", "npd", "kernel-monitor.json")
CATALOG = os.path.join(REPO, "problems", "problems.yaml")
MATCHER = os.path.join(REPO, ".output", "bin", "kprint-problem-bench")
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
from kpxtest import F_CONT, record  # noqa: E402


def log(*a):
    print("#", *a, flush=True)


def rendered(fmt, args):
    """The text printk makes of fmt and args (every conversion as a string)."""
    return re.sub(r"%(?:\*pbl|p[A-Za-z]|[-0-9.*]*(?:ll|l|h|z|L)?[a-zA-Z])", "%s", fmt) % tuple(args)


class Records:
    """Records as `kprint dump --json` writes them, seq after seq."""

    def __init__(self):
        self.recs = []

    def add(self, fmt, args=(), text=None, level="info", flags=0, continues=0, **kw):
        seq = len(self.recs) + 1
        rec = record(seq, fmt, level=level, module=kw.get("module", ""),
                     device=kw.get("device", ""), args=[str(x) for x in args],
                     text=rendered(fmt, args) if text is None else text, source="printk",
                     flags=flags, continues=continues)
        rec.update(pid=100 + seq % 50, comm=kw.get("comm", "kworker/0:1"))
        self.recs.append(rec)
        return seq

    def cont(self, fmt, head, args=()):
        return self.add(fmt, args, flags=F_CONT, continues=head)


KILLED = ("%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, "
          "shmem-rss:%lukB, UID:%u pgtables:%lukB oom_score_adj:%hd")
HUNG = "INFO: task %s:%d blocked for more than %ld seconds."
OOPS = "%s: %04lx [#%d]%s%s%s%s%s"
BLK = "%s error, dev %s, sector %llu op 0x%x:(%s) flags 0x%x phys_seg %u prio class %u"


def problem_records(r):
    """The problems tests/e2e/problems*.py cause, as 6.1 prints them."""
    head = r.add("oom-kill:constraint=%s,nodemask=%*pbl", ["CONSTRAINT_MEMCG", "(null)"])
    for fmt, args in ((",cpuset=%s", ["/"]), (",mems_allowed=%*pbl", ["0"]),
                      (",oom_memcg=", []), ("%s", ["/kprint-oom"]), (",task_memcg=", []),
                      ("%s", ["/kprint-oom"]), (",task=%s,pid=%d,uid=%d", ["python3", 4242, 0])):
        r.cont(fmt, head, args)
    r.add(KILLED, ["Memory cgroup out of memory", 4242, "python3", 108540, 99652, 0, 0, 0,
                   236, 0], level="err")
    r.add(HUNG, ["kprint-hung", 321, 3], level="err")
    r.add("\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
          level="err")
    r.add(HUNG, ["docker", 322, 3], level="err")
    r.add("BUG: kernel NULL pointer dereference, address: %px", ["0000000000000000"],
          level="alert")
    r.add(OOPS, ["Oops", "0002", 1, " PREEMPT", " SMP", "", " NOPTI", ""], level="emerg")
    r.add(OOPS, ["divide error", "0000", 2, " PREEMPT", " SMP", "", " NOPTI", ""],
          level="emerg")
    r.add("WARNING: CPU: %d PID: %d at %s:%d %pS",
          [1, 4321, "kernel/test/kprint_problem_test.c", 42,
           "kprint_problem_warn+0x15/0x20 [kprint_problem_test]"], level="warn")
    r.add("watchdog: BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]",
          [1, 4, "kprint-spin", 555], level="emerg")
    r.add("rcu: INFO: %s self-detected stall on CPU", ["rcu_preempt"], level="err")
    r.add("rcu: INFO: %s detected stalls on CPUs/tasks:", ["rcu_preempt"], level="err")
    r.add("%s%s[%d]: segfault at %lx ip %px sp %px error %lx",
          ["\0016", "crash", 777, 0, "000055d0c0de1139", "00007ffc2c3b9e40", 6],
          text="crash[777]: segfault at 0 ip 000055d0c0de1139 sp 00007ffc2c3b9e40 error 6")
    r.add("EXT4-fs error (device %s): %s:%d: inode #%lu: comm %s: %pV",
          ["loop0", "ext4_lookup", 1855, 12, "ls", "deleted inode referenced: 12"],
          level="crit")
    r.add("%sEXT4-fs (%s): %pV", ["\0012", "loop0", "Remounting filesystem read-only"],
          text="EXT4-fs (loop0): Remounting filesystem read-only", level="crit")
    r.add("%sXFS (%s): %pV",
          ["\0011", "loop1", "User initiated shutdown (0x2) detected at "
           "xfs_fs_goingdown+0x57/0xa0 [xfs] (fs/xfs/xfs_fsops.c:450).  "
           "Shutting down filesystem."],
          text="XFS (loop1): User initiated shutdown (0x2) detected at "
          "xfs_fs_goingdown+0x57/0xa0 [xfs] (fs/xfs/xfs_fsops.c:450).  "
          "Shutting down filesystem.", level="alert")
    for dev, sector in (("sda", 2048), ("sda", 2056), ("sdb", 8)):
        r.add(BLK, ["critical medium", dev, sector, 0, "READ", 0, 1, 2], level="err")
    r.add("Buffer I/O error on dev %pg, logical block %llu%s", ["sda", 256, ", async page read"],
          level="err")
    r.add("(slave %s): link status definitely down, disabling slave", ["dummy0"],
          text="bond0: (slave dummy0): link status definitely down, disabling slave",
          level="info", device="bond0")
    r.add("mce: [Hardware Error]: CPU %d: Machine Check%s: %Lx Bank %d: %016Lx",
          [0, "", 0, 1, "9000000000000000"], level="emerg")


def save_boot(path):
    """In the guest: the ring's records of the boot and set-up, as dumped."""
    out = subprocess.run(["kprint", "dump", "--json"], check=True, capture_output=True,
                         text=True).stdout
    with open(path, "w") as f:
        f.write(out)


def boot_records(r, path):
    """The boot's records of save_boot(), the benchmarks' own left out."""
    with open(path) as f:
        out = f.read()
    for ln in out.splitlines():
        rec = json.loads(ln)
        if "format" not in rec or rec.get("module", "").startswith("kprint_"):
            continue
        head = rec.get("continues", 0)
        r.add(rec["format"], rec["args"], text=rec["text"], level=rec["level"],
              flags=rec.get("flags", 0) & F_CONT,
              continues=head - rec["seq"] + len(r.recs) + 1 if head else 0,
              module=rec.get("module", ""), device=rec.get("device", ""),
              comm=rec.get("comm", ""))


def text_lines(recs):
    """The records as the kernel log has them: a line each, fragments joined."""
    lines = []
    for rec in recs:
        text = rec["text"].replace("\0", "")
        if rec["flags"] & F_CONT and lines:
            lines[-1] += text
        else:
            lines.extend(text.split("\n"))
    return lines


def mtail_program(rules_path):
    """NPD's rules as one mtail program: a counter per reason, each pattern
    anchored at the end as NPD's log_buffer.go anchors it (`\\z`)."""
    with open(rules_path) as f:
        rules = json.load(f)["rules"]
    prog, declared = [], set()
    for rule in rules:
        name = "npd_" + rule["reason"]
        if name not in declared:
            prog.append("counter %s" % name)
            declared.add(name)
    for rule in rules:
        prog.append("/%s$/ {\n  npd_%s++\n}" % (rule["pattern"].replace("/", "\\/"),
                                               rule["reason"]))
    return "\n".join(prog) + "\n", len(rules)


def mtail_run(progs, logfile, port):
    """mtail --one_shot over logfile: (CPU seconds of the process, its counters)."""
    proc = subprocess.Popen(["mtail", "--one_shot", "--one_shot_format", "json",
                             "--progs", progs, "--logs", logfile, "--logtostderr",
                             "--port", str(port), "--address", "127.0.0.1"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError("mtail --one_shot exited %d" % proc.returncode)
    counts = {}
    for name, metrics in json.loads(out).items():
        if name.startswith("npd_"):
            counts[name[4:]] = sum(int(v["Value"]["Value"]) for m in metrics
                                   for v in m.get("LabelValues") or [])
    return ru.ru_utime + ru.ru_stime, counts


def kprint_run(recfile, count):
    out = subprocess.run([MATCHER, CATALOG, recfile, str(count)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def bench_npd(a, res, work, boot):
    r = Records()
    if boot:
        boot_records(r, boot)
    booted = len(r.recs)
    problem_records(r)
    recfile = os.path.join(work, "npd-records.jsonl")
    with open(recfile, "w") as f:
        for rec in r.recs:
            f.write(json.dumps(rec) + "\n")
    lines = text_lines(r.recs)
    passes = -(-a.problem_records // len(r.recs))
    count = passes * len(r.recs)
    logfile = os.path.join(work, "npd-kmsg.log")
    with open(logfile, "w") as f:
        f.write("\n".join(lines * passes) + "\n")
    progs = os.path.join(work, "npd-mtail")
    os.makedirs(progs, exist_ok=True)
    prog, nrules = mtail_program(NPD_RULES)
    with open(os.path.join(progs, "npd.mtail"), "w") as f:
        f.write(prog)
    log("B11: %d records (%d of the boot, %d of problems) in %d lines, %d passes: %d records"
        % (len(r.recs), booted, len(r.recs) - booted, len(lines), passes, count))
    rows = []
    for rep in range(a.reps):
        t0 = time.monotonic()
        k = kprint_run(recfile, count)
        t1 = time.monotonic()
        m_cpu, m_counts = mtail_run(progs, logfile, a.mtail_port)
        t2 = time.monotonic()
        if k["records"] != count or not k["hits"] or not any(m_counts.values()):
            raise RuntimeError("B11: a side recognised nothing: kprint %r, mtail %r"
                               % (k, m_counts))
        row = {"kprint_cpu_s_per_M": k["cpu_s"] * 1e6 / count,
               "mtail_cpu_s_per_M": m_cpu * 1e6 / count,
               "kprint_hits": k["hits"], "mtail_counts": m_counts,
               "wall_s": [round(t1 - t0, 2), round(t2 - t1, 2)]}
        if row["kprint_cpu_s_per_M"] <= 0 or row["mtail_cpu_s_per_M"] <= 0:
            raise RuntimeError("B11: a side took no CPU time: %r" % row)
        rows.append(row)
        log("B11 rep %d: kprint %.3f, mtail %.2f CPU s per million records"
            % (rep, row["kprint_cpu_s_per_M"], row["mtail_cpu_s_per_M"]))
    os.unlink(logfile)
    res["raw"]["npd"] = {"records_per_run": count, "distinct_records": len(r.recs),
                         "boot_records": booted, "lines_per_pass": len(lines),
                         "npd_rules": nrules, "reps": rows}
    res["ratios"]["B11"] = [x["kprint_cpu_s_per_M"] / x["mtail_cpu_s_per_M"] for x in rows]
    res["ratios"]["B11_kprint"] = [x["kprint_cpu_s_per_M"] for x in rows]
    res["ratios"]["B11_mtail"] = [x["mtail_cpu_s_per_M"] for x in rows]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--reps", type=int)
    p.add_argument("--boot", help="the guest's records (save_boot()); none: problems only")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    a.reps = a.reps or (2 if a.smoke else 5)
    a.problem_records = 20000 if a.smoke else 1000000
    a.mtail_port = 3904
    res = {"raw": {}, "ratios": {}}
    with tempfile.TemporaryDirectory(prefix="kprint-bench-npd.") as work:
        bench_npd(a, res, work, a.boot)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
