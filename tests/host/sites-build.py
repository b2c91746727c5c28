#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint sites build on the host, for each kernel of tests/vm/kernels all
that is installed: it exits 0 with its summary line within 30 s (the time
and the entries per kind and source are printed; it takes 1 to 6 s, so
the test shares the machine with the others rather than running alone), its catalog lists as
JSON whose every format_id is the FNV-1a 64 of its format computed here,
a few entries every build must find are there (brd's "module unloaded"
in brd_exit, libahci's dev_info() banner (6.1's, 6.12's), e1000e's netdev_info() link
line, panic()'s pr_emerg() in the image), the filters of sites list
keep what they say, and a corrupt catalog is refused with FILE:LINE.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from lib import check, finish  # noqa: E402
from kpnl import fnv1a64  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KPRINT = os.environ.get("KPRINT", os.path.join(REPO, ".output/bin/kprint"))
LIMIT_SECONDS = 30

# (kernels it must be found on, what): entries any build has to find.
KNOWN = [
    (("6.1", "6.12"), dict(format="brd: module unloaded", level="info", module="brd",
                           function="brd_exit", kind="printk", source="module")),
    # 6.12 reworded the banner: each kernel has its own, and only its own.
    (("6.1",), dict(format="AHCI %02x%02x.%02x%02x %u slots %u ports %s Gbps 0x%x impl %s mode",
                    level="info", module="libahci", function="ahci_print_info", kind="dev",
                    source="module")),
    (("6.12",), dict(format="AHCI vers %02x%02x.%02x%02x, %u command slots, %s Gbps, %s mode",
                     level="info", module="libahci", function="ahci_print_info", kind="dev",
                     source="module")),
    (("6.1", "6.12"), dict(format="NIC Link is Up %d Mbps %s Duplex, Flow Control: %s",
                           level="info", module="e1000e", kind="netdev", source="module")),
    (("6.1", "6.12"), dict(format="Kernel panic - not syncing: %s", level="emerg",
                           module="vmlinux", kind="printk", source="image")),
]


def kernels():
    out = subprocess.run([os.path.join(REPO, "tests/vm/kernels"), "all"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def series(kver):
    return ".".join(kver.split(".")[:2])


def sites(*args):
    return subprocess.run([KPRINT, "sites", *args], capture_output=True, text=True)


def build(kver, tmp):
    start = time.monotonic()
    r = sites("build", "--kernel", kver, "--dir", tmp)
    seconds = time.monotonic() - start
    path = os.path.join(tmp, kver + ".jsonl")
    check(f"{kver}: sites build exits 0", r.returncode == 0, r.stderr.strip()[-2000:])
    print(f"# {kver}: {seconds:.1f} s: {r.stdout.strip()}")
    check(f"{kver}: built in at most {LIMIT_SECONDS} s ({seconds:.1f} s)",
          seconds <= LIMIT_SECONDS)
    check(f"{kver}: its summary line names the file",
          r.stdout.startswith(f"kprint sites: {kver}: ") and r.stdout.rstrip().endswith(path),
          r.stdout)
    check(f"{kver}: nothing but the catalog left in the directory",
          sorted(os.listdir(tmp)) == [kver + ".jsonl"], os.listdir(tmp))
    return path


def list_json(kver, tmp, *filters):
    r = sites("list", "--kernel", kver, "--dir", tmp, "--json", *filters)
    if r.returncode != 0:
        check(f"{kver}: sites list --json {' '.join(filters)} exits 0", False, r.stderr)
        return []
    return [json.loads(line) for line in r.stdout.splitlines()]


def check_ids(kver, entries, header):
    """Every format_id against an FNV-1a 64 of our own; U+FFFD formats were
    sanitized from ill-formed bytes, whose hash we cannot redo."""
    wrong = [e for e in entries if "\ufffd" not in e["format"]
             and e["format_id"] != "%016x" % fnv1a64(e["format"].encode())]
    sanitized = sum("\ufffd" in e["format"] for e in entries)
    check(f"{kver}: sites list --json gives the header's {header['entries']} entries",
          len(entries) == header["entries"] and entries, len(entries))
    check(f"{kver}: each format_id is the FNV-1a 64 of its format"
          f" ({len(entries) - sanitized} checked, {sanitized} with U+FFFD left out)",
          entries and not wrong, wrong[:3])


def print_counts(kver, entries):
    for field in ("source", "kind", "level"):
        c = collections.Counter(str(e[field]) for e in entries)
        print(f"# {kver}: by {field}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    named = sum(e["function"] is not None for e in entries)
    print(f"# {kver}: with a function: {named} of {len(entries)}")


def check_known(kver, entries):
    for where, want in KNOWN:
        if series(kver) not in where:
            continue
        found = [e for e in entries if all(e.get(k) == v for k, v in want.items())]
        near = [e for e in entries if e["format"] == want["format"]]
        check(f"{kver}: {want['module']} {want['kind']} \"{want['format'][:40]}\" at"
              f" {want['level']}" + (f" in {want['function']}" if "function" in want else ""),
              found, near[:3] or "no entry of that format")


def check_filters(kver, tmp):
    brd = list_json(kver, tmp, "--module", "brd")
    check(f"{kver}: sites list --module brd keeps brd's alone ({len(brd)})",
          brd and all(e["module"] == "brd" for e in brd))
    errs = list_json(kver, tmp, "--level", "err+", "--kind", "dev")
    check(f"{kver}: --level err+ --kind dev keeps dev_* at err or worse ({len(errs)})",
          errs and all(e["level"] in ("emerg", "alert", "crit", "err") and e["kind"] == "dev"
                       for e in errs))


def check_list_speed(kver, tmp, count):
    start = time.monotonic()
    r = sites("list", "--kernel", kver, "--dir", tmp)
    seconds = time.monotonic() - start
    lines = r.stdout.count("\n")
    print(f"# {kver}: sites list: {lines} lines in {seconds:.2f} s")
    check(f"{kver}: sites list prints a line per entry in at most 2 s ({seconds:.2f} s)",
          r.returncode == 0 and lines == count and seconds <= 2, r.stderr)


def check_corrupt(path, tmp):
    with open(path) as f:
        lines = f.readlines()
    bad = os.path.join(tmp, "corrupt.jsonl")
    lines[2] = lines[2][: len(lines[2]) // 2] + "\n"
    with open(bad, "w") as f:
        f.writelines(lines)
    r = sites("list", "--file", bad)
    check("a catalog with a line cut in half is refused with FILE:3, exit 1",
          r.returncode == 1 and f"{bad}:3: " in r.stderr, (r.returncode, r.stderr))
    del lines[2]
    with open(bad, "w") as f:
        f.writelines(lines)
    r = sites("list", "--file", bad)
    check("a catalog short of an entry is refused, exit 1",
          r.returncode == 1 and f"{bad}:" in r.stderr, (r.returncode, r.stderr))


def main():
    if not os.access(KPRINT, os.X_OK):
        check(f"{KPRINT} is built", False)
        finish()
    built = None
    for kver in kernels():
        if not os.path.exists(f"/boot/vmlinuz-{kver}"):
            print(f"ok - {kver}: not installed # SKIP")
            continue
        tmp = tempfile.mkdtemp(prefix="kprint-sites.")
        try:
            path = build(kver, tmp)
            if not os.path.exists(path):
                continue
            with open(path) as f:
                header = json.loads(f.readline())
            entries = list_json(kver, tmp)
            print_counts(kver, entries)
            check_ids(kver, entries, header)
            check_known(kver, entries)
            check_filters(kver, tmp)
            check_list_speed(kver, tmp, len(entries))
            if built is None:
                built = tempfile.mkdtemp(prefix="kprint-sites-corrupt.")
                check_corrupt(path, built)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if built:
        shutil.rmtree(built, ignore_errors=True)
    check("at least one kernel's catalog was built", built is not None)
    finish()


if __name__ == "__main__":
    main()
