#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
# kprint-test: splats ^watchdog: BUG: soft lockup - CPU#[0-9]+ stuck for [0-9]+s! \[kprint_spin/[0-9]+:[0-9]+\]
# kprint-test: splats ^(Call Trace:|RIP: 00(10|33):)
"""Kernel problems recognised by format (issue 30), the hard ones, caused
for real: a machine check (mce-inject.ko's software injection: mce_log()
and __print_mce(), a corrected error), a soft lockup and RCU stalls, from
a kthread of kernel/test/kprint_problem_test.ko that loops on CPU 1 with
preemption off (the watchdog's report, then RCU's self-detected stall)
and then with interrupts off too (RCU's stall as another CPU's tick finds
it), with kernel.watchdog_thresh and rcupdate.rcu_cpu_stall_timeout
lowered for each spin only.  A hard lockup cannot be caused under TCG (no PMU for the
NMI watchdog): its rule stays untested here (docs/problems.md).

Checked as tests/e2e/problems.py checks issue 29's: the /dev/kmsg oracle's
counts, /problems, /metrics with its exemplar, /events, `kprint problems`
live and over the ring, and nothing else recognised.  A guest of its own
(tests/vm/groups): the splats are large and the watchdog settings global.
"""
import sys

sys.path.insert(0, "tests/lib")
import provoke as pv  # noqa: E402
from lib import finish  # noqa: E402
from problemcheck import run  # noqa: E402

WORK = "/tmp/problems-hard"


def flavor(value, hit):
    return value in ("rcu_sched", "rcu_preempt")


def status_of(want):
    return lambda v, h: v is not None and int(v, 16) == want


CAUSES = [
    ("machine_check", pv.machine_check, lambda f: [
        ("HardwareError", {}, {"cpu": str(f["cpu"]), "bank": str(f["bank"]),
                               "status": status_of(f["status"])}, None)]),
    ("soft_lockup", pv.soft_lockup, lambda f: [
        ("SoftLockup", {}, {"cpu": str(f["cpu"]), "task": f["task"], "pid": str(f["pid"])},
         None)]),
    ("rcu_stall", pv.rcu_stall, lambda f: [("RCUStall", {}, {"flavor": flavor}, None)]),
]

# NPD's kernel-monitor.json has no rule for these.  Its lookback of 5 min
# reaches back to the problems of problems.py before in this guest, in the
# printk backlog kprint.ko took at load: the exporter counts them there as
# NPD restarted would, and the oracle with it (problems-oops.py, at 0 s,
# does not).
run("problems-hard", WORK, CAUSES)
finish()
