#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
# kprint-test: splats ^INFO: task (kprint-hung|docker):[0-9]+ blocked for more than [0-9]+ seconds
# kprint-test: splats ^(Call Trace:|RIP: 00(10|33):)
"""Kernel problems recognised by format (issue 29), caused for real through
the kernel's own code paths with stock code: a link down (bonding's MII
monitor over a dummy slave), block I/O errors (scsi_debug's medium errors,
a direct and a buffered read), a user-space segfault, a cgroup v2 OOM kill,
two hung tasks (writes to a frozen ext4; one named docker, which is also
NPD's KernelDeadlock condition, the other not), an ext4 error and remount
read-only (a cleared inode looked up), an XFS shutdown (xfs_io).  The WARN
and the oops, which taint the kernel, are problems-oops.py's, last in the
guest.

kprint_exporter runs with the tree's catalog (--problems.file=
problems/problems.yaml), /events is read and `kprint problems --follow
--json` runs, all from before the first problem.  For each problem: the
count the kernel's own log gives (tests/lib/problemcheck.py's oracle), one
series with the right labels on /problems and /metrics, its exemplar the
latest record with the attribution (task, pid, cgroup, sector), the
condition gauge of a permanent one, as many problem events on /events
each right after its record, and the same hits from the CLI, live and over
the ring.  Then no false positive: /problems?seen=1 and every channel list
exactly the problems caused, as often as the kernel printed them.  The OOM
report's and the hung task's call traces are declared above: charged to
this test, not failing it.
"""
import sys

sys.path.insert(0, "tests/lib")
import provoke as pv  # noqa: E402
from lib import finish  # noqa: E402
from problemcheck import run  # noqa: E402

WORK = "/tmp/problems"


def sector_of_record(value, hit):
    return value is not None and f", sector {value} op " in hit["record"]["text"]


# What each provocation causes: (problem, labels, attribution, condition),
# each from the facts the provocation returns.  The attribution names are
# the catalog's; those issue 29 fixes (task, pid, memcg, sector, error) and
# a few that only a wrapper's inner format gives (ext4's message, XFS's
# reason).
CAUSES = [
    ("link_down", pv.link_down, lambda f: [
        ("LinkDown", {"device": f["device"]}, {}, None)]),
    ("block_io_error", pv.block_io_error, lambda f: [
        ("BlockIOError", {"device": f["device"]},
         {"error": "critical medium", "sector": sector_of_record}, None),
        ("IOError", {"device": f["device"]}, {}, None)]),
    ("segfault", pv.segfault, lambda f: [
        ("Segfault", {}, {"task": f["task"], "pid": str(f["pid"]), "address": "0"}, None)]),
    ("oom_kill", pv.oom_kill, lambda f: [
        ("OOMKilling", {}, {"task": f["task"], "pid": str(f["pid"]),
                            ("task_memcg", "memcg"): f["memcg"]}, None)]),
    ("hung_task", pv.hung_task, lambda f: [
        ("TaskHung", {}, {"task": lambda v, h: v in f["tasks"],
                          "pid": lambda v, h: v == str(f["tasks"].get(
                              h["attribution"].get("task")))}, None),
        ("DockerHung", {}, {"task": "docker",
                            "pid": str(f["tasks"]["docker"])}, "KernelDeadlock")]),
    ("ext4_error", pv.ext4_error, lambda f: [
        ("Ext4Error", {"device": f["device"]},
         {"task": "stat", "function": "ext4_lookup", "inode": "2",
          "message": "deleted inode referenced: 12"}, None),
        ("FilesystemIsReadOnly", {"device": f["device"]}, {}, "ReadonlyFilesystem")]),
    ("xfs_shutdown", pv.xfs_shutdown, lambda f: [
        ("XfsHasShutdown", {"device": f["device"]},
         {"why": "Log I/O Error", "file": "fs/xfs/xfs_fsops.c"}, "XfsShutdown")]),
]

# NPD's kernel-monitor.json rules that these problems fire, as NPD matches
# them (tests/lib/npdoracle.py); its NULL-pointer and divide-error rules
# are problems-oops.py's.
NPD_FIRED = ("OOMKilling", "TaskHung", "DockerHung", "Ext4Error", "IOError", "XfsHasShutdown",
             "FilesystemIsReadOnly")

run("problems", WORK, CAUSES, catalog=True, npd_fired=NPD_FIRED)
finish()
