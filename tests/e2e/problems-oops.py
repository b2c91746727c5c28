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
import os
import sys
import time

sys.path.insert(0, "tests/lib")
import provoke as pv  # noqa: E402
from lib import check, finish  # noqa: E402
from problemcheck import Outcome, Watch, no_false_positive, verify  # noqa: E402

WORK = "/tmp/problems-oops"
os.makedirs(WORK, exist_ok=True)

CAUSES = [
    ("warn", pv.warn, lambda f: [
        ("KernelWarning", {}, {"pid": str(f["pid"]),
                               "file": "kernel/test/kprint_problem_test.c"}, None)]),
    ("oops", pv.oops, lambda f: [
        ("KernelOops", {}, {"task": f["task"]}, None)]),
]

start = time.monotonic()
watch = Watch(WORK)
caused, times = [], {}
for name, fn, what in CAUSES:
    facts, took, _ = pv.provoke(name, fn, watch.log)
    times[name] = took
    if check(f"{name}: caused ({took:.1f} s)", facts is not None):
        caused += what(facts)
watch.settle("problems-oops.py done")
expected = watch.expected()
watch.wait_cli(sum(expected.values()))
print(f"# problems-oops: the kernel's log has {expected}", flush=True)
out = Outcome(watch)
for problem, labels, attrs, condition in caused:
    verify(out, problem, expected.get(problem, 0), labels, attrs, condition)
no_false_positive(out, expected)
watch.close()
print("# problems-oops: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()) +
      f"; the whole test {time.monotonic() - start:.1f} s", flush=True)
finish()
