#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
# kprint-test: splats ^WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel/test/kprint_problem_test\.c:
# kprint-test: splats ^(BUG: kernel NULL pointer dereference, address: 0+|(Oops: )?Oops: 0002 \[#1\] .*)$
# kprint-test: splats ^(Call Trace:|RIP: 00(10|33):)
"""Kernel problems recognised by format (issue 29), the two that need code
that goes wrong on purpose: a WARN() and an oops from
kernel/test/kprint_problem_test.ko (the kernel's own __warn() and
page_fault_oops()/die() print them; the oops is a kthread's NULL pointer
write).  The oops taints the kernel for good, so this test runs last in
its guest (tests/vm/groups).  Checked as tests/e2e/problems.py checks the
others: /problems, /metrics with its exemplar, /events, `kprint problems`
live and over the ring, and nothing else recognised.  The WARN's and the
oops's splats are declared above: charged to this test, not failing it
(6.12 prefixes the oops header with "Oops: ": the test passes there too).
"""
import sys

sys.path.insert(0, "tests/lib")
import provoke as pv  # noqa: E402
from lib import finish  # noqa: E402
from problemcheck import run  # noqa: E402

WORK = "/tmp/problems-oops"

CAUSES = [
    ("warn", pv.warn, lambda f: [
        ("KernelWarning", {}, {"pid": str(f["pid"]),
                               "file": "kernel/test/kprint_problem_test.c"}, None)]),
    ("oops", pv.oops, lambda f: [
        ("KernelOops", {}, {"task": f["task"]}, None)]),
]

# NPD's KernelOops patterns ("BUG: unable to handle kernel NULL pointer
# dereference at", "divide error: 0000 [#N] SMP") are stale: no kernel we
# test prints them (kprint problems --check-npd says so too), so the oops
# fires none of NPD's rules, as it would not in NPD.  The rule file's
# lookback is 0 s here: the problems of the tests before, in the printk
# backlog kprint.ko took at load, are older than the exporter, and not
# NPD's (problems-hard.py, at 5 min, counts them).
run("problems-oops", WORK, CAUSES, npd_stale=("KernelOops",), npd_lookback="0s")
finish()
