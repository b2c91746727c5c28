#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tests/host/check-npd.py - kprint problems --check-npd against
node-problem-detector's kernel monitor rules

tests/host/npd/kernel-monitor.json is NPD's config/kernel-monitor.json as
its repository ships it.  Each of its rules is held against the problem
catalog (problems/problems.yaml) and against the call-site catalogs of
every kernel of tests/vm/kernels all (built or reused under
.output/problems/sites/ as tests/host/problems-catalog.py does):

- the NULL-pointer rule and the divide-error rule are stale on 6.1 and
  6.12 (they print "BUG: kernel NULL pointer dereference, address: %px"
  and "[#1] PREEMPT SMP"), the OOM kill and hung task rules are not;
- each rule the catalog has by format names that catalog rule
  (OOMKilling, TaskHung, Ext4Error, ...);
- each rule's line is the line of its pattern in the file;
- a pattern PCRE2 refuses, and a backreference RE2 would, are refused
  with FILE:LINE and exit status 1 or 2;
- --json writes one object per rule, and the text says the same.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from lib import check, finish  # noqa: E402

spec = importlib.util.spec_from_file_location("problems_catalog",
                                              os.path.join(HERE, "problems-catalog.py"))
pc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pc)

REPO = pc.REPO
KPRINT = pc.KPRINT
NPD = os.path.join(HERE, "npd", "kernel-monitor.json")
NULL_RULE = "BUG: unable to handle kernel NULL pointer dereference at .*"
DIVIDE_RULE = r"divide error: 0000 \[#\d+\] SMP"
# NPD reason -> the catalog rule that must cover it by format.
COVERED = {
    "OOMKilling": "OOMKilling", "TaskHung": "TaskHung", "DockerHung": "DockerHung",
    "UnregisterNetDevice": "UnregisterNetDevice", "Ext4Error": "Ext4Error",
    "Ext4Warning": "Ext4Warning", "IOError": "IOError", "XfsHasShutdown": "XfsHasShutdown",
    "FilesystemIsReadOnly": "FilesystemIsReadOnly",
}
PRINTED = ("OOMKilling", "TaskHung", "Ext4Error", "IOError")	# on every kernel


def run(*args):
    return subprocess.run([KPRINT, "problems", *args], capture_output=True, text=True)


def check_report(sites, kvers):
    r = run("--check-npd", NPD, "--json", *[a for s in sites for a in ("--sites", s)])
    if not check("kprint problems --check-npd --json exits 0", r.returncode == 0, r.stderr):
        return
    rules = [json.loads(line) for line in r.stdout.splitlines()]
    with open(NPD) as f:
        text = f.read()
        want = json.loads(text)["rules"]
    check(f"one object per rule ({len(want)})", [x["pattern"] for x in rules]
          == [w["pattern"] for w in want], r.stdout[:400])
    lines = text.split("\n")
    bad = [x["reason"] for x in rules
           if json.dumps(x["pattern"]) not in lines[x["line"] - 1]]
    check("each rule's line is its pattern's", not bad, bad)
    by_pattern = {x["pattern"]: x for x in rules}
    for pattern in (NULL_RULE, DIVIDE_RULE):
        x = by_pattern.get(pattern, {"kernels": []})
        stale = {k["kernel"] for k in x["kernels"] if k["stale"]}
        for kver in kvers:
            if pc.series(kver) in pc.SERIES:
                check(f"{kver}: {pattern!r} is stale", kver in stale, x["kernels"])
    for x in rules:
        if x["reason"] in PRINTED:
            printed = [k["kernel"] for k in x["kernels"] if not k["stale"]]
            check(f"{x['reason']}: printed by every kernel", sorted(printed) == sorted(kvers),
                  x["kernels"])
        if x["reason"] in COVERED:
            check(f"{x['reason']}: covered by the catalog's {COVERED[x['reason']]}",
                  COVERED[x["reason"]] in x["catalog"], x["catalog"])
    check("the NULL-pointer rule is covered by no catalog format",
          by_pattern.get(NULL_RULE, {}).get("catalog") == [])
    # The text of one kernel's check (each kernel costs seconds): the same verdicts.
    t = run("--check-npd", NPD, "--sites", sites[0])
    stale = [line for line in t.stdout.splitlines() if ": stale: " in line]
    want = sum(k["stale"] for x in rules for k in x["kernels"] if k["kernel"] == kvers[0])
    check(f"the text says stale as often as the JSON on {kvers[0]} ({want})",
          t.returncode == 0 and want > 0 and len(stale) == want, t.stdout[-800:])


def check_refused():
    cases = (("a(b", "missing closing parenthesis"), (r"(a)\1", "backreference"))
    for pattern, why in cases:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            doc = {"rules": [{"type": "temporary", "reason": "Good", "pattern": "x"},
                             {"type": "temporary", "reason": "Bad", "pattern": pattern}]}
            f.write(json.dumps(doc, indent="\t"))
            f.flush()
            with open(f.name) as g:
                line = 1 + next(i for i, t in enumerate(g) if json.dumps(pattern) in t)
            r = run("--check-npd", f.name, "--sites", sites_any())
            check(f"{pattern!r} ({why}) is refused with FILE:{line}: and status 1 or 2",
                  r.returncode in (1, 2) and f"{f.name}:{line}: " in r.stderr
                  and not r.stdout, (r.returncode, r.stderr))


def check_words():
    """A rule that wants a task's name (like NPD's former AUFSUmountHung rule)
    is printed by the hung task format with that name for its
    %s; a \\b, which PCRE2 counts as a lookbehind, is no lookaround."""
    rule = {"type": "temporary", "reason": "AUFSUmountHung",
            "pattern": r"\btask umount\.aufs:\w+ blocked for more than \w+ seconds\."}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        f.write(json.dumps({"rules": [rule]}))
        f.flush()
        r = run("--check-npd", f.name, "--json", "--sites", sites_any())
        x = json.loads(r.stdout or "{}")
        check("a rule that wants a task named umount.aufs is printed, \\b accepted",
              r.returncode == 0 and not x["kernels"][0]["stale"]
              and "TaskHung" in x["catalog"], (r.returncode, r.stderr, r.stdout))


SITES = []


def sites_any():
    return SITES[0]


def main():
    kvers = pc.kernels()
    for kver in kvers:
        path = pc.catalog(kver)
        if path:
            SITES.append(path)
    if not check(f"a call-site catalog of each kernel ({' '.join(kvers)})",
                 len(SITES) == len(kvers) and kvers):
        finish()
    check_report(SITES, kvers)
    check_refused()
    check_words()
    finish()


if __name__ == "__main__":
    main()
