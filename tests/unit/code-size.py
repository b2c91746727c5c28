#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No source file of kernel/ or exporter/ over 800 lines, and no function of
the project's C over 80, but those listed below with their reasons.

Files: every file git tracks under kernel/ and exporter/, by its lines.
Functions: the C of kernel/, bpf/, include/ and exporter/ (the C of tests/
is left out: a test function is a list of cases), from the line that names
the function to its closing brace, as Universal Ctags finds them.  Files
generated from the spec ("Generated from ... by schema/gen.py" in their
head) are left out of both: schema/gen.py writes their tables whole.

An exception that is no longer over its limit fails too, so that the list
only shrinks: drop it once its file or function is split.  So that the
test cannot go blind, it first measures a fixture with a file and a
function one line over their limits.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
FILE_MAX = 800
FUNCTION_MAX = 80
FILE_DIRS = ("kernel/", "exporter/")
FUNCTION_DIRS = ("kernel/", "bpf/", "include/", "exporter/")
GENERATED = "by schema/gen.py: do not edit"

# The long files that stay long, each with why.
FILE_EXCEPTIONS = {
    "kernel/test/kprint_printk_test.c":
        "the bridge tests' module: one trigger per case of tests/e2e/bridge-*",
}

# The long functions that stay long, (file, function): why.
FUNCTION_EXCEPTIONS = {
    ("exporter/lib/kpc_catalog_fmt.c", "kpc_fmt_token"):
        "one printf conversion: flags, width, precision, length, conversion",
    ("exporter/lib/kpc_catalog_fmt.c", "kpc_fmt_parse"):
        "a format's conversions, checked against the kernel's rules",
    ("exporter/lib/kpc_catalog.c", "kpc_po_line"):
        "one line of a .po file, by keyword",
}

# (passed, what, detail) per check, in order; printed as TAP at the end.
checks = []


def check(passed, what, detail=""):
    checks.append((passed, what, detail))


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                         check=True, capture_output=True, text=True).stdout
    return sorted(f for f in out.split("\0") if f)


def lines_of(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def generated(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return any(GENERATED in f.readline() for _ in range(10))
    except OSError:
        return False


def long_files(root, files):
    """{file: lines} of the files over FILE_MAX."""
    out = {}
    for f in files:
        if f.startswith(FILE_DIRS) and not generated(os.path.join(root, f)):
            n = lines_of(os.path.join(root, f))
            if n > FILE_MAX:
                out[f] = n
    return out


def long_functions(root, files):
    """{(file, function): lines} of the C functions over FUNCTION_MAX."""
    c = [f for f in files if f.endswith((".c", ".h")) and f.startswith(FUNCTION_DIRS)
         and not generated(os.path.join(root, f))]
    out = subprocess.run(["ctags", "--output-format=json", "--language-force=C",
                          "--fields=+neK", "--kinds-C=f", "-f", "-", *c],
                         cwd=root, check=True, capture_output=True, text=True).stdout
    found, seen = {}, 0
    for t in map(json.loads, out.splitlines()):
        if t.get("_type") != "tag" or t.get("kind") != "function":
            continue
        seen += 1
        if "end" not in t:
            found[(t["path"], t["name"])] = -1	# ctags found no end
            continue
        n = t["end"] - t["line"] + 1
        if n > FUNCTION_MAX:
            found[(t["path"], t["name"])] = n
    return found, seen


def check_fixture():
    """One line over each limit is found, the limits themselves are not;
    braces in strings, characters and comments do not end a function."""
    body = ['\tputs("}");', "\tputc('}', stdout);", "\t/* } */"]
    body += ["\tx++;"] * (FUNCTION_MAX - 3 - len(body))
    at_limit = ["void at_limit(void)", "{", *body, "}"]
    over = ["void over_limit(void)", "{", *body, "\tx++;", "}"]
    text = "\n".join(["int x;", *at_limit, *over]) + "\n"
    pad = FILE_MAX + 1 - text.count("\n")
    text += "\n" * pad
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "kernel"))
        with open(os.path.join(tmp, "kernel/fixture.c"), "w") as f:
            f.write(text)
        files = ["kernel/fixture.c"]
        check(long_files(tmp, files) == {"kernel/fixture.c": FILE_MAX + 1},
              "a fixture file of %d lines is found" % (FILE_MAX + 1),
              "found %s" % long_files(tmp, files))
        found, _ = long_functions(tmp, files)
        check(found == {("kernel/fixture.c", "over_limit"): FUNCTION_MAX + 1},
              "a fixture function of %d lines is found, one of %d is not"
              % (FUNCTION_MAX + 1, FUNCTION_MAX), "found %s" % found)


def main():
    if subprocess.run(["ctags", "--version"], capture_output=True).stdout[:9] != b"Universal":
        print("not ok - Universal Ctags is installed (make deps)")
        return 1
    check_fixture()
    files = tracked(ROOT)

    big = long_files(ROOT, files)
    bad = sorted(f for f in big if f not in FILE_EXCEPTIONS)
    check(not bad, "no file of kernel/ or exporter/ over %d lines but the exceptions"
          % FILE_MAX, "\n".join("%s: %d lines" % (f, big[f]) for f in bad))
    for f, why in sorted(FILE_EXCEPTIONS.items()):
        size = "%d lines" % big[f] if f in big else "not over the limit"
        check(f in big, "exception %s (%s): %s" % (f, size, why),
              "no longer over %d lines: drop it from FILE_EXCEPTIONS" % FILE_MAX)

    lengthy, seen = long_functions(ROOT, files)
    check(seen > 500, "Universal Ctags finds the project's C functions (%d)" % seen)
    bad = sorted(k for k in lengthy if k not in FUNCTION_EXCEPTIONS)
    check(not bad, "no C function over %d lines but the exceptions" % FUNCTION_MAX,
          "\n".join("%s: %s(): %s" % (f, n, "no end found" if lengthy[(f, n)] < 0
                                          else "%d lines" % lengthy[(f, n)]) for f, n in bad))
    for (f, n), why in sorted(FUNCTION_EXCEPTIONS.items()):
        size = "%d lines" % lengthy[(f, n)] if (f, n) in lengthy else "not over the limit"
        check((f, n) in lengthy, "exception %s: %s() (%s): %s" % (f, n, size, why),
              "no longer over %d lines: drop it from FUNCTION_EXCEPTIONS" % FUNCTION_MAX)

    for passed, what, detail in checks:
        print(("ok - " if passed else "not ok - ") + what)
        if not passed:
            print("".join("# %s\n" % line for line in detail.splitlines()), end="")
    return 0 if all(passed for passed, _, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
