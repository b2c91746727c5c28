#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""B10: kprint's whole path against journald, in a guest booted with systemd
(tests/bench/run's second boot: tests/vm/run --systemd).

Every machine already runs journald, which reads every kernel message from
/dev/kmsg and stores it.  One printk flood (kprint_bench's B1 formats, the
printk bridge on) is consumed by both at once, and each side's CPU time
comes from its own cgroup's cpu.stat (usage_usec, never negative):

  journald: systemd-journald.service's cgroup, from the flood's start until
            a marker written to /dev/kmsg after it is in the journal.
  kprint:   the exporter, a transient service of its own (its BPF counters
            attached, receiving and storing every record), until it holds
            the marker;
            plus every kernel thread's CPU time over the same window
            (kprint's notification worker runs on system_unbound_wq; the
            other kernel threads' time is counted to kprint too, so this
            errs against kprint);
            plus what the bridge and the BPF counter cost in the printing
            task: ns per printk() of the flood (the bridge on, the exporter
            subscribed, the counters attached) less ns per printk() of a
            settled pass with the bridge off and no counters, both timed by
            kprint_bench as B9 is; a difference that is not positive stops
            the bench rather than be a figure.

B10_journal: the same with the exporter's --journal (kprint's records into
the journal namespace "kprint", as the package's unit writes them): kprint's
side then also has systemd-journald@kprint.service's cgroup, which stores
them; against system journald's in the same flood.  Its floods come first
and are smaller (main() says why); its bridge part is B10's of the same
repetition.

The results go to $KPRINT_VM_SCRATCH/journald.json ("# results in PATH").
"""
import argparse
import http.client
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guest import read, write  # noqa: E402

BENCH = "/sys/module/kprint_bench/parameters"
BRIDGE = "/sys/module/kprint/parameters/bridge"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PORT = 9471
NS_CONF = "/etc/systemd/journald@kprint.conf"


def log(*a):
    print("#", read("/proc/uptime").split()[0], "s:", *a, flush=True)


def sh(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def cgroup_usec(unit):
    """usage_usec of a unit's cgroup (cpu.stat is there without the cpu controller)."""
    path = sh("systemctl", "show", "-p", "ControlGroup", "--value", unit).strip()
    if not path:
        raise RuntimeError("%s has no cgroup" % unit)
    for ln in read("/sys/fs/cgroup%s/cpu.stat" % path).splitlines():
        k, v = ln.split()
        if k == "usage_usec":
            return int(v)
    raise RuntimeError("no usage_usec for %s" % unit)


def kthreads_s():
    """CPU seconds of every kernel thread (kthreadd and its children) so far,
    from schedstat's run time in ns (stat's utime and stime are in ticks).
    A kworker that exits inside the window takes its time with it."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = read("/proc/%s/stat" % pid)
            if pid != "2" and stat[stat.rindex(")") + 2:].split()[1] != "2":
                continue
            total += int(read("/proc/%s/schedstat" % pid).split()[0])
        except OSError:
            continue
    return total / 1e9


def http_json(path):
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    try:
        c.request("GET", path)
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError("GET %s: %d" % (path, r.status))
        return json.loads(body)
    finally:
        c.close()


def busywait(what, cond, deadline=600, pause=0.1):
    end = time.monotonic() + deadline
    while not cond():
        if time.monotonic() > end:
            raise RuntimeError("B10: %s did not happen in %d s" % (what, deadline))
        time.sleep(pause)


def next_seq():
    return json.loads(sh("kprint", "stats", "--json"))["next_seq"]


def exporter_seq():
    try:
        recs = http_json("/records?limit=1")
    except OSError:
        return -1
    return recs[-1]["seq"] if recs else 0


def journal_has(marker, *ns):
    out = subprocess.run(["journalctl", *ns, "-q", "--no-pager", "-o", "cat", "-n", "20"],
                         capture_output=True, text=True).stdout
    return marker in out


def start_exporter(unit, journal):
    props = ["-p", "Type=exec"]
    args = ["--listen", "127.0.0.1:%d" % PORT]
    if journal:
        props += ["-p", "LogNamespace=kprint", "-p", "LogRateLimitIntervalSec=0"]
        args += ["--journal"]
    exe = sh("sh", "-c", "command -v kprint_exporter").strip()
    sh("systemd-run", "--quiet", "--unit", unit, *props, exe, *args)
    busywait("the exporter answering", lambda: exporter_seq() >= 0, 120)
    busywait("the exporter catching up", lambda: exporter_seq() >= next_seq() - 1, 120)


def stop_exporter(unit):
    subprocess.run(["systemctl", "stop", unit], check=True)
    subprocess.run(["systemctl", "reset-failed", unit], stderr=subprocess.DEVNULL)
    subprocess.run(["kprint", "formats", "--unload"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def printk_ns(n):
    write(BENCH + "/run", "printk:%d" % n)
    return int(read(BENCH + "/last_ns")) / n


def quiesce(tag, *ns):
    """Wait until journald (of namespace ns) has stored everything printed
    so far (a marker after it), so that a timed pass does not share the
    emulator with the end of the one before."""
    marker = "kprint-b10-quiet-%s-%d" % (tag, time.monotonic_ns())
    with open("/dev/kmsg", "w") as k:
        k.write("<6>%s\n" % marker)
    busywait("journald storing %s" % marker, lambda: journal_has(marker, *ns), pause=0.2)


def timed_pass(n, tag):
    """ns per printk() of a settled, timed pass, journald quiet before each.
    The settling pass is a whole one: switching the bridge or the counters
    patches kernel text, which the emulator translates again (B9)."""
    printk_ns(n)
    quiesce(tag + "-settled")
    ns = printk_ns(n)
    quiesce(tag + "-timed")
    return ns


def kernel_part(n):
    """What the bridge and the BPF counter add to each printk() in the
    printing task: a pass with both on (no subscriber: the exporter's own
    time is in its cgroup, and on the emulator's one thread it would slow
    the printing vCPU too) less one with both off.  A pair whose difference
    is not positive is noise: it is measured again, three times at most."""
    for attempt in range(3):
        subprocess.run(["kprint", "formats", "--top", "1"], check=True,
                       stdout=subprocess.DEVNULL)
        write(BRIDGE, "1")
        try:
            ns_on = timed_pass(n, "on")
        finally:
            subprocess.run(["kprint", "formats", "--unload"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        write(BRIDGE, "0")
        try:
            ns_off = timed_pass(n, "off")
        finally:
            write(BRIDGE, "1")
        if ns_on > ns_off:
            return ns_on, ns_off, attempt
        log("B10: bridge and counters %.0f ns, off %.0f ns: measured again" % (ns_on, ns_off))
    raise RuntimeError("B10: the bridge and counters timed as free three times (%.0f ns on,"
                       " %.0f off): noise, not a cost" % (ns_on, ns_off))


def flood(rep, journal, n, kernel=None):
    """One flood of n messages consumed by both: the CPU seconds of each side,
    per million.  kernel: the bridge's and counters' (ns_on, ns_off, retries)
    of an earlier flood of this repetition, which --journal does not change."""
    unit = "kprint-b10-%d-%s" % (rep, "journal" if journal else "plain")
    marker = "kprint-b10-marker-%s" % unit
    start_exporter(unit, journal)
    try:
        write(BRIDGE, "1")
        printk_ns(n // 10)                      # settle, and the exporter sees it
        busywait("the exporter holding the settling pass",
                 lambda: exporter_seq() >= next_seq() - 1)
        quiesce(unit)
        if journal:
            # At its start the exporter writes the ring's records the
            # namespace does not have: not this flood's work.
            quiesce(unit + "-namespace", "--namespace", "kprint")
        ns_units = ["systemd-journald@kprint.service"] if journal else []
        before = (cgroup_usec(unit + ".service"), cgroup_usec("systemd-journald.service"),
                  [cgroup_usec(u) for u in ns_units], kthreads_s())
        printk_ns(n)
        with open("/dev/kmsg", "w") as k:
            k.write("<6>%s\n" % marker)
        last = next_seq() - 1
        busywait("the exporter holding the marker", lambda: exporter_seq() >= last, pause=0.05)
        busywait("journald storing the marker", lambda: journal_has(marker), pause=0.2)
        if journal:
            busywait("the namespace kprint storing the marker",
                     lambda: journal_has(marker, "--namespace", "kprint"), pause=0.2)
        after = (cgroup_usec(unit + ".service"), cgroup_usec("systemd-journald.service"),
                 [cgroup_usec(u) for u in ns_units], kthreads_s())
    finally:
        stop_exporter(unit)
    ns_on, ns_off, retries = kernel or kernel_part(n)
    row = {"exporter_s": (after[0] - before[0]) / 1e6,
           "journald_s": (after[1] - before[1]) / 1e6,
           "namespace_s": sum(x - y for x, y in zip(after[2], before[2])) / 1e6,
           "kthreads_s": after[3] - before[3],
           "kernel_s": (ns_on - ns_off) * n / 1e9, "messages": n,
           "printk_ns_on": ns_on, "printk_ns_off": ns_off, "kernel_retries": retries}
    kprint = row["exporter_s"] + row["kthreads_s"] + row["kernel_s"] + row["namespace_s"]
    row["kprint_cpu_s_per_M"] = kprint * 1e6 / n
    row["journald_cpu_s_per_M"] = row["journald_s"] * 1e6 / n
    if row["journald_s"] <= 0:
        raise RuntimeError("B10: journald took no CPU time over the flood: %r" % row)
    log("B10%s rep %d: kprint %.1f (exporter %.2f s, kernel threads %.2f s, bridge and BPF"
        " %.2f s, namespace journald %.2f s), journald %.1f CPU s per million messages"
        % ("_journal" if journal else "", rep, row["kprint_cpu_s_per_M"], row["exporter_s"],
           row["kthreads_s"], row["kernel_s"], row["namespace_s"], row["journald_cpu_s_per_M"]))
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", help="default: journald.json in $KPRINT_VM_SCRATCH")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--reps", type=int)
    a = p.parse_args()
    # A smoke run (make check) checks that it works: one repetition of
    # each, in a guest of its own (tests/e2e/own-guest/bench-smoke-journald.sh).
    a.reps = a.reps or (1 if a.smoke else 5)
    # The namespace's journald took 4 ms of CPU per record here (2,000 records
    # a flood: 20,000 took two minutes a repetition), and the kernel part's
    # four timed passes wait for journald after each.
    a.plain_messages = 2000 if a.smoke else 10000
    a.journal_messages = 1000 if a.smoke else 2000
    a.out = a.out or os.path.join(os.environ["KPRINT_VM_SCRATCH"], "journald.json")
    if not os.path.exists("/sys/module/kprint_bench"):
        subprocess.run(["insmod", os.path.join(REPO, "kernel", "bench", "kprint_bench.ko")],
                       check=True)
    write("/proc/sys/kernel/printk", "1 4 1 7")
    # The namespace as the package configures it (debian/journald@kprint.conf):
    # no rate limit of its own.
    os.makedirs(os.path.dirname(NS_CONF), exist_ok=True)
    write(NS_CONF, "[Journal]\nRateLimitIntervalSec=0\n")
    rows = {"plain": [], "journal": []}
    log("B10: %d repetitions of %d messages, %d with --journal"
        % (a.reps, a.plain_messages, a.journal_messages))
    # The --journal floods first, on a ring that holds little but the boot:
    # each exporter with --journal writes, as it starts, the ring's records
    # the namespace does not have yet, and after B10's floods and timed
    # passes that would be tens of thousands (4 ms each here).  Each flood
    # still has both sides at once; the bridge's part is B10's of the same
    # repetition.
    for rep in range(a.reps):
        rows["journal"].append(flood(rep, True, a.journal_messages, (1, 0, 0)))
    for rep in range(a.reps):
        plain = flood(rep, False, a.plain_messages)
        rows["plain"].append(plain)
        j = rows["journal"][rep]
        j["printk_ns_on"], j["printk_ns_off"] = plain["printk_ns_on"], plain["printk_ns_off"]
        kernel_s = (plain["printk_ns_on"] - plain["printk_ns_off"]) * j["messages"] / 1e9
        j["kprint_cpu_s_per_M"] += (kernel_s - j["kernel_s"]) * 1e6 / j["messages"]
        j["kernel_s"] = kernel_s
        log("B10_journal rep %d: kprint %.1f CPU s per million messages with B10's bridge part"
            % (rep, j["kprint_cpu_s_per_M"]))
    res = {"smoke": a.smoke, "reps": a.reps,
           "env": {"kernel": os.uname().release, "guest_cpus": os.cpu_count()},
           "raw": {"journald": {"messages_per_run": a.plain_messages,
                               "journal_messages_per_run": a.journal_messages, "reps": rows}},
           "ratios": {
               "B10": [r["kprint_cpu_s_per_M"] / r["journald_cpu_s_per_M"] for r in rows["plain"]],
               "B10_journal": [r["kprint_cpu_s_per_M"] / r["journald_cpu_s_per_M"]
                               for r in rows["journal"]],
               "B10_kprint": [r["kprint_cpu_s_per_M"] for r in rows["plain"]],
               "B10_journald": [r["journald_cpu_s_per_M"] for r in rows["plain"]]}}
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print("# results in %s" % a.out, flush=True)      # what tests/bench/run looks for


if __name__ == "__main__":
    main()
