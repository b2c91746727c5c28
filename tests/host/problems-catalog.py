#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tests/host/problems-catalog.py [PROBLEMS.yaml] - the problem catalog
against what the kernels print

problems/problems.yaml (or the file named) is checked against the
call-site catalog (kprint sites build, docs/sites.md) of every kernel of
tests/vm/kernels all, built under .output/problems/sites/ and reused while
newer than the kprint binary and the kernel's files:

- every format of a rule is in the catalog of each kernel its "kernels"
  names, by format id (FNV-1a 64 of the format) and by the exact string;
  "6.1" names 6.1 and 6.1-rt, "6.12" names 6.12;
- an inner format (a %pV's) is in the bytes of the module that prints
  the outer one, as a C string;
- no kernel prints a rule's format without the rule naming it;
- every rule has a format on 6.1 and on 6.12;
- problem names and message-ids are unique, message-ids 32 lowercase hex
  digits, "args" as many as the format's conversions, every label and
  attribution bound, no bare "%s" without an inner format, each source a
  "path/file.c: function()";
- scripts/problems-catalog's journal catalog compiles with journalctl
  and lists every problem's message-id.

A format changed by one character fails it: the id is no longer found.
"""
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from lib import CONVERSION, check, finish  # noqa: E402
from kpnl import fnv1a64  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
KPRINT = os.environ.get("KPRINT", os.path.join(REPO, ".output/bin/kprint"))
SITES = os.path.join(REPO, ".output/problems/sites")
SERIES = ("6.1", "6.12")	# the kernels every rule must have a format for
SOURCE = re.compile(r"^[\w./-]+\.[ch]: \w+\(\)$")
MESSAGE_ID = re.compile(r"^[0-9a-f]{32}$")
RECORD_FIELDS = {"device", "comm", "pid", "module"}
ID_PREFIX = '{"format_id":"'


def series(kver):
    return ".".join(kver.split(".")[:2])


def kernels():
    out = subprocess.run([os.path.join(REPO, "tests/vm/kernels"), "all"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def fid(fmt):
    return "%016x" % fnv1a64(fmt.encode())


def conversions(fmt):
    return [m.group() for m in CONVERSION.finditer(fmt) if m.group() != "%%"]


def stale(path, kver):
    """Whether a catalog is older than what it was built from."""
    if not os.path.exists(path):
        return True
    inputs = [KPRINT, f"/boot/vmlinuz-{kver}", f"/lib/modules/{kver}/modules.dep"]
    newest = max(os.path.getmtime(p) for p in inputs if os.path.exists(p))
    return os.path.getmtime(path) < newest


def catalog(kver):
    path = os.path.join(SITES, kver + ".jsonl")
    if stale(path, kver):
        os.makedirs(SITES, exist_ok=True)
        start = time.monotonic()
        r = subprocess.run([KPRINT, "sites", "build", "--kernel", kver, "--dir", SITES],
                           capture_output=True, text=True)
        print(f"# {kver}: built in {time.monotonic() - start:.1f} s: {r.stdout.strip()}")
        if not check(f"{kver}: kprint sites build exits 0", r.returncode == 0, r.stderr[-800:]):
            return None
    else:
        print(f"# {kver}: reusing {os.path.relpath(path, REPO)}")
    return path


def load_entries(path, wanted):
    """The catalog's entries whose format_id is wanted: id -> [entry]."""
    found = {}
    with open(path) as f:
        next(f)
        for line in f:
            if not line.startswith(ID_PREFIX):
                continue
            i = line[len(ID_PREFIX):len(ID_PREFIX) + 16]
            if i in wanted:
                found.setdefault(i, []).append(json.loads(line))
    return found


MODULES = {}	# (kernel, module) -> the module file's bytes, decompressed


def module_bytes(kver, module):
    key = (kver, module)
    cache = MODULES
    if key not in cache:
        r = subprocess.run(["modinfo", "-k", kver, "-n", module], capture_output=True, text=True)
        name = r.stdout.strip()
        data = b""
        if r.returncode == 0 and os.path.exists(name):
            with open(name, "rb") as f:
                data = f.read()
            if name.endswith(".xz"):
                data = lzma.decompress(data)
        cache[key] = data
    return cache[key]


def check_shape(doc):
    """What the file must be whatever the kernels print."""
    rules = doc["problems"]
    names = [r["problem"] for r in rules]
    ids = [r["message-id"] for r in rules]
    check(f"{len(names)} problem names, each once", len(set(names)) == len(names),
          sorted(n for n in names if names.count(n) > 1))
    check(f"{len(ids)} message-ids, each once", len(set(ids)) == len(ids),
          sorted(i for i in ids if ids.count(i) > 1))
    bad = [r["problem"] for r in rules if not MESSAGE_ID.match(str(r["message-id"]))]
    check("each message-id is 32 lowercase hex digits", not bad, bad)
    bad = [r["problem"] for r in rules
           if r["kind"] not in ("event", "condition")
           or (r["kind"] == "condition") != bool(r.get("condition"))]
    check("each kind is event, or condition with a condition's name", not bad, bad)
    bad = [r["problem"] for r in rules if not r.get("summary") or not r.get("description")]
    check("each problem has a summary and a description", not bad, bad)
    wrong = []
    for r in rules:
        bound = {"-"}
        for f in r["formats"]:
            if len(conversions(f["format"])) != len(f["args"]):
                wrong.append(f"{r['problem']}: args of {f['format']!r}")
            if "inner" in f and len(conversions(f["inner"])) != len(f.get("inner-args", [])):
                wrong.append(f"{r['problem']}: inner-args of {f['inner']!r}")
            if f["format"].strip() == "%s" and "inner" not in f:
                wrong.append(f"{r['problem']}: a bare %s")
            if not SOURCE.match(f.get("source", "")):
                wrong.append(f"{r['problem']}: source {f.get('source')!r}")
            if not f.get("kernels") or set(f["kernels"]) - set(SERIES):
                wrong.append(f"{r['problem']}: kernels {f.get('kernels')}")
            if set(f.get("record", {}).values()) - RECORD_FIELDS:
                wrong.append(f"{r['problem']}: record {f['record']}")
            bound |= set(f["args"]) | set(f.get("inner-args", [])) | set(f.get("record", {}))
            for name in f.get("where", {}):
                if name not in set(f["args"]) | set(f.get("inner-args", [])):
                    wrong.append(f"{r['problem']}: where {name}")
        bound |= set(r.get("context", {}).get("keys", []))
        for name in list(r.get("labels", [])) + list(r.get("attribution", [])):
            if name not in bound:
                wrong.append(f"{r['problem']}: {name} bound by no format")
        if not set(SERIES) <= {k for f in r["formats"] for k in f["kernels"]}:
            wrong.append(f"{r['problem']}: not on every one of {SERIES}")
    check("args match each format's conversions, names are bound, sources are"
          " \"file: function()\", every rule has a format on 6.1 and 6.12", not wrong, wrong)


def check_kernel(kver, path, doc):
    """Every format the rules give this kernel is in its catalog."""
    formats = [(r, f) for r in doc["problems"] for f in r["formats"]]
    wanted = {fid(f["format"]) for _, f in formats}
    found = load_entries(path, wanted)
    ok = missing = 0
    for r, f in formats:
        i = fid(f["format"])
        here = [e for e in found.get(i, []) if e["format"] == f["format"]]
        named = series(kver) in f["kernels"]
        if named and not here:
            check(f"{kver}: {r['problem']}: {f['format']!r} ({f['source']}) is printed",
                  False, f"no format_id {i}")
            missing += 1
            continue
        if not named and here:
            twin = [g for g in r["formats"] if g["format"] == f["format"]
                    and series(kver) in g["kernels"]]
            if not twin:
                check(f"{kver}: {r['problem']}: {f['format']!r} is printed here too, and"
                      " named for this kernel", False, [(e["module"], e["function"]) for e in here])
                missing += 1
            continue
        if not named:
            continue
        ok += 1
        if "inner" in f:
            inner = f["inner"].encode()
            modules = sorted({e["module"] for e in here})
            hit = [m for m in modules if m != "vmlinux"
                   and re.search(re.escape(inner) + rb"\n?\0", module_bytes(kver, m))]
            check(f"{kver}: {r['problem']}: inner {f['inner']!r} is in {'/'.join(modules)}",
                  hit, "not found in the module's strings")
    print(f"# {kver}: {ok} formats of the rules found, {missing} missing")
    check(f"{kver}: every format named for {series(kver)} is printed ({ok})", not missing)


def check_journal(path, doc):
    with tempfile.TemporaryDirectory() as root:
        cat = os.path.join(root, "usr/lib/systemd/catalog/kprint-problems.catalog")
        r = subprocess.run([os.path.join(REPO, "scripts/problems-catalog"), path, cat],
                           capture_output=True, text=True)
        if not check("scripts/problems-catalog writes the journal catalog", r.returncode == 0,
                     r.stderr):
            return
        r = subprocess.run(["journalctl", f"--root={root}", "--update-catalog"],
                           capture_output=True, text=True)
        check("journalctl --update-catalog compiles it", r.returncode == 0, r.stderr)
        listed = subprocess.run(["journalctl", f"--root={root}", "--list-catalog"],
                                capture_output=True, text=True).stdout.split("\n")
        want = sorted(f"{p['message-id']} kprint: {p['problem']}: {p['summary']}"
                      for p in doc["problems"])
        check(f"journalctl --list-catalog lists each problem's message-id ({len(want)})",
              sorted(x for x in listed if x) == want,
              set(want) ^ {x for x in listed if x})


def main(argv):
    path = argv[0] if argv else os.path.join(REPO, "problems/problems.yaml")
    with open(path) as f:
        doc = yaml.safe_load(f)
    nformats = sum(len(r["formats"]) for r in doc["problems"])
    print(f"# {os.path.relpath(path, REPO)}: {len(doc['problems'])} problems, {nformats} formats,"
          f" {sum('inner' in f for r in doc['problems'] for f in r['formats'])} with an inner")
    check_shape(doc)
    start = time.monotonic()
    kvers = kernels()
    check(f"tests/vm/kernels all names 6.1 and 6.12 ({' '.join(kvers)})",
          set(SERIES) <= {series(k) for k in kvers})
    for kver in kvers:
        cat = catalog(kver)
        if cat:
            check_kernel(kver, cat, doc)
    print(f"# the kernels took {time.monotonic() - start:.1f} s")
    check_journal(path, doc)
    finish()


if __name__ == "__main__":
    main(sys.argv[1:])
