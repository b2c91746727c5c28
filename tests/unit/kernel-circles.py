#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The files of kprint.ko import each other without circles.

Builds the module, then reads the symbols of every object that goes into
kprint.ko (kprint-y in kernel/Kbuild) with nm: a file "uses" another when it
references a global symbol the other one defines.  Any group of files that
reach each other through such uses is a circle, and fails the test, except
the one pair generic netlink families are made of: the generated tables
(kprint_genl.o, whose ops name the handlers) and the handlers
(kprint_netlink.o, which register the family built from those tables).

It also checks that kprint-y lists exactly the kernel/kprint_*.c files, so
that the in-tree build (kernel/Kbuild, kernel/Kconfig) links every file.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNEL = os.path.join(ROOT, "kernel")
ALLOWED_CIRCLE = {"kprint_genl", "kprint_netlink"}

failed = False


def result(ok, what, detail=None):
    global failed
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failed = True
        for line in (detail or "").splitlines():
            print("# " + line)


def kbuild_objects():
    """The object names of kprint-y, in the order Kbuild lists them."""
    with open(os.path.join(KERNEL, "Kbuild")) as f:
        text = f.read().replace("\\\n", " ")
    objs = []
    for m in re.finditer(r"^kprint-y\s*[:+]?=(.*)$", text, re.M):
        objs += [o[:-2] for o in m.group(1).split() if o.endswith(".o")]
    return objs


def symbols(obj):
    """(defined globals, undefined references) of one object file."""
    out = subprocess.run(["nm", os.path.join(KERNEL, obj + ".o")],
                         check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "U":
            used.add(fields[1])
        elif len(fields) == 3 and fields[1].isupper() and fields[1] != "U":
            defined.add(fields[2])
    return defined, used


def circles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    build = subprocess.run(["make", "-s", "-C", KERNEL],
                           capture_output=True, text=True)
    result(build.returncode == 0, "make -C kernel builds kprint.ko",
           build.stdout + build.stderr)
    if build.returncode:
        return 1

    objs = kbuild_objects()
    sources = sorted(f[:-2] for f in os.listdir(KERNEL)
                     if re.fullmatch(r"kprint_\w+\.c", f))
    result(sorted(objs) == sources,
           "kprint-y in kernel/Kbuild lists every kernel/kprint_*.c",
           "kprint-y: %s\nsources: %s" % (" ".join(sorted(objs)),
                                          " ".join(sources)))

    syms = {o: symbols(o) for o in objs}
    owner = {}
    for o, (defined, _) in syms.items():
        for s in defined:
            owner[s] = o
    graph = {o: set() for o in objs}
    uses = {}
    for o, (_, used) in syms.items():
        for s in used:
            d = owner.get(s)
            if d and d != o:
                graph[o].add(d)
                uses.setdefault((o, d), []).append(s)
    edges = sum(len(v) for v in graph.values())
    result(edges >= len(objs) - 1,
           "the %d objects of kprint.ko use each other (%d file-to-file uses)"
           % (len(objs), edges))

    bad = [c for c in circles(graph) if c != ALLOWED_CIRCLE]
    detail = []
    for comp in bad:
        for a in sorted(comp):
            for b in sorted(graph[a] & comp):
                detail.append("%s -> %s: %s" % (a, b,
                              " ".join(sorted(uses[(a, b)]))))
    result(not bad, "no circle between kprint.ko's files but %s <-> %s"
           % tuple(sorted(ALLOWED_CIRCLE)), "\n".join(detail))

    for o in objs:
        print("# %s uses %s" % (o, " ".join(sorted(graph[o])) or "nothing"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
