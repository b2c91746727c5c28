#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No two C files of the project import each other, directly or round about.

First kprint.ko, as the linker sees it: builds the module, then reads the
symbols of every object that goes into it (kprint-y in kernel/Kbuild) with
nm: a file "uses" another when it references a global symbol the other
one defines.  It also checks that kprint-y lists exactly the
kernel/kprint_*.c files, so that the in-tree build (kernel/Kbuild,
kernel/Kconfig) links every file.

Then all the C of the project, from the sources, so that it needs no
build: kernel/ with its test, bench and demo modules, bpf/, include/,
exporter/ (libkpc, the CLI, the daemon) and the C of tests/.  A file
imports another when it names something the other defines for others: a
function or variable that is not static, or, in a header, anything it
defines (macro, type, enumerator, static inline function).  Universal
Ctags finds the definitions.  The names a file uses are its identifiers
outside comments, strings and #include lines, member names after "." and
"->" left out; a name after struct, union or enum is a tag, looked up
among the tags only, as C does.  What the file defines or declares itself
(locals, parameters, prototypes, a "struct x;" ahead) shadows any other
file's: a header's prototype imports nothing, the caller imports the file
that defines the function, and a pointer to a struct declared ahead needs
nothing of the header that defines it.  A name defined in several files
(main(), a helper each test program has) is taken from the nearest one,
by the longest common path.  So that this cannot go blind, it first reads
a fixture of four files and finds the circle one more import closes there.

Any group of files that reach each other is a circle and fails the test,
except the pair generic netlink families are made of: the generated tables
(kprint_genl, whose ops name the handlers) and the handlers
(kprint_netlink, which register the family built from those tables); and,
from the sources, the circles in SOURCE_ALLOWED below, each with its reason.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNEL = os.path.join(ROOT, "kernel")
ALLOWED_CIRCLE = {"kprint_genl", "kprint_netlink"}

# The circles the project's sources keep, each with its reason: a circle is
# allowed when all its files are in one of these sets.
SOURCE_ALLOWED = [
    # A generic netlink family is two halves that name each other: the
    # generated tables (whose ops name the handlers) and the handlers
    # (which register the family built from those tables).
    ({"kernel/kprint_genl.c", "kernel/kprint_netlink.c"},
     "the genetlink ops and their handlers"),
]

# What a header defines for its includers; a .c file only its functions
# and variables with external linkage.
HEADER_KINDS = {"macro", "enumerator", "enum", "struct", "union", "typedef",
                "function", "variable"}
SOURCE_KINDS = {"function", "variable"}
# struct, union and enum names live in a namespace of their own.
TAG_KINDS = {"struct", "union", "enum"}

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


def c_files(root):
    """The C files git tracks, relative to root."""
    out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.c", "*.h"],
                         check=True, capture_output=True, text=True).stdout
    return sorted(f for f in out.split("\0") if f)


def tags(root, files):
    """Universal Ctags' tags of the files, as dicts, read as C (.h too,
    which ctags would otherwise read as C++)."""
    out = subprocess.run(["ctags", "--output-format=json", "--language-force=C",
                          "--fields=+nKf", "--kinds-C=+lzpx", "-f", "-", *files],
                         cwd=root, check=True, capture_output=True, text=True).stdout
    return [t for t in map(json.loads, out.splitlines()) if t.get("_type") == "tag"]


TOKEN = re.compile(r"""
      (?P<comment>/\*.*?\*/|//(?:\\\n|[^\n])*)
    | (?P<string>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
    | (?P<include>^[ \t]*\#[ \t]*include[^\n]*)
    | (?P<member>(?:\.|->)\s*[A-Za-z_]\w*)
    | (?:struct|union|enum)\s+(?P<tag>[A-Za-z_]\w*)
    | (?P<name>[A-Za-z_]\w*)
    """, re.S | re.M | re.X)


FORWARD = re.compile(r"^\s*(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*;", re.M)


def names_used(text):
    """The identifiers of C text outside comments, string and character
    literals, #include lines and member accesses, as (namespace, name):
    "tag" after struct, union or enum, else "name"."""
    used = set()
    for m in TOKEN.finditer(text):
        if m.lastgroup in ("tag", "name"):
            used.add((m.lastgroup, m.group(m.lastgroup)))
    return used


def common_prefix(a, b):
    n = 0
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        n += 1
    return n


def import_graph(root, files):
    """{file: {imported file: [names]}} over the files."""
    provided, own = {}, {f: set() for f in files}
    for t in tags(root, files):
        f, kind = t["path"], t["kind"]
        name = ("tag" if kind in TAG_KINDS else "name", t["name"])
        own[f].add(name)
        exported = (kind in HEADER_KINDS) if f.endswith(".h") else \
            (kind in SOURCE_KINDS and not t.get("file"))
        if exported:
            provided.setdefault(name, set()).add(f)
    graph = {f: {} for f in files}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as src:
            text = src.read()
        used = names_used(text)
        # "struct x;": the file declares the tag itself, and uses it only
        # through pointers, which needs nothing of the file defining it.
        own[f].update(("tag", m.group(1)) for m in FORWARD.finditer(text))
        for name in sorted(used - own[f]):
            owners = provided.get(name, set()) - {f}
            if not owners:
                continue
            best = max(common_prefix(f, o) for o in owners)
            for o in owners:
                if common_prefix(f, o) == best:
                    graph[f].setdefault(o, []).append(name[1])
    return graph


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

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(graph) + 100))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def describe(graph, comp):
    lines = []
    for a in sorted(comp):
        for b in sorted(set(graph[a]) & comp):
            lines.append("%s -> %s: %s" % (a, b, " ".join(graph[a][b][:8])))
    return "\n".join(lines)


FIXTURE = {
    "a.h": "struct a_thing { int n; };\nint a_count(void);\n",
    "a.c": '#include "a.h"\n#include "b.h"\n'
           "int a_count(void)\n{\n\treturn b_total(); /* b_gone() */\n}\n",
    "b.h": "int b_total(void);\n",
    "b.c": '#include "a.h"\n#include "b.h"\n'
           "int b_total(void)\n{\n\tstruct a_thing t = { 0 };\n"
           '\tconst char *s = "a_count()";\n\treturn t.n + sizeof(s);\n}\n'
           "static int b_local(void)\n{\n\treturn 0;\n}\n",
    "c.c": '#include "b.h"\nstruct a_thing;\n'
           "int c_main(struct a_thing *t)\n"
           "{\n\tint b_local = 1;\n\treturn b_total() + b_local;\n}\n",
}


def check_fixture():
    """The reader sees what it must in a tree of its own: a.c calls b.c
    (and not b_gone(), named in a comment; b.h only declares what it
    calls), b.c takes a.h's struct (and not a_count(), named in a string),
    c.c calls b.c (its own b_local is a variable, not b.c's function) and
    declares a.h's struct ahead, for a pointer.
    Then one more import, b.c -> a.c, must close a circle."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in FIXTURE.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        graph = import_graph(tmp, sorted(FIXTURE))
        got = {f: sorted(graph[f]) for f in graph if graph[f]}
        want = {"a.c": ["b.c"], "b.c": ["a.h"], "c.c": ["b.c"]}
        result(got == want, "the fixture's imports are read as written",
               "got %s\nwant %s" % (got, want))
        # b.c calling back into a.c closes a circle, which must be found.
        graph["b.c"]["a.c"] = ["a_count"]
        found = circles(graph)
        result(found == [{"a.c", "b.c"}], "a circle in the fixture is found",
               "found %s" % found)


def project_circles():
    """The circles among all the C files of the project, from the sources."""
    if subprocess.run(["ctags", "--version"], capture_output=True).stdout[:9] != b"Universal":
        result(False, "Universal Ctags is installed (make deps)")
        return
    check_fixture()

    files = c_files(ROOT)
    graph = import_graph(ROOT, files)
    edges = sum(len(v) for v in graph.values())
    result(len(files) > 100 and edges > 2 * len(files),
           "the %d C files of the project import each other (%d file-to-file imports)"
           % (len(files), edges))

    found = circles(graph)
    for allowed, why in SOURCE_ALLOWED:
        result(any(len(c & allowed) > 1 for c in found),
               "the allowed circle of %s is still there (%s)"
               % (", ".join(sorted(allowed)), why),
               "not a circle any more: drop it from SOURCE_ALLOWED")
    bad = [c for c in found if not any(c <= allowed for allowed, _ in SOURCE_ALLOWED)]
    result(not bad, "no other circle among the project's C files",
           "\n".join(describe(graph, c) for c in bad))


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

    project_circles()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
