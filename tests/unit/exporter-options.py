#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's options: the table in exporter/daemon/kpx_options.c,
--help (made from it) and the OPTIONS of kprint_exporter(8) (written by
hand) name the same options in the same order, with the same argument,
default and range.  A new option in the table fails here until the man
page says what it is.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import EXPORTER, REPO, Tap  # noqa: E402

t = Tap()
TABLE = os.path.join(REPO, "exporter/daemon/kpx_options.c")
PAGE = os.path.join(REPO, "docs/kprint_exporter.8")

table = re.findall(r'\.name = "([a-z][a-z.-]*)"', open(TABLE).read())
t.ok(len(table) >= 10, "kpx_options[] holds %d options" % len(table))

# --help: "  --name ARG" then the help, its range and default last.
p = subprocess.run([EXPORTER, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   timeout=10)
t.ok(p.returncode == 0 and not p.stderr, "--help exits 0, on standard output only")
usage = p.stdout.decode()
helps = []
for block in re.split(r"\n(?=  --)", usage.split("\n\n")[1]):
    m = re.match(r"  --(\S+)(?: (\S+))?\s+(.*)", block, re.S)
    text = " ".join(m.group(3).split())
    d = re.search(r"\(default (\S+)\)$", text)
    r = re.search(r"; (\d+s?)\.\.(\d+s?)(?: \(|$)", text)
    n = re.search(r"; at most (\d+) times", text)
    helps.append({"name": m.group(1), "arg": (m.group(2) or "").lower(),
                  "default": d and d.group(1), "range": r and (r.group(1), r.group(2)),
                  "times": n and n.group(1)})
t.ok([h["name"] for h in helps] == table,
     "--help lists the table's options, in its order (%s)" % " ".join(h["name"] for h in helps))


def roff_text(lines):
    """The words of man(7) lines: font macros' arguments joined as they render."""
    out = []
    for ln in lines:
        if ln.startswith(".") and not re.match(r"\.(B|I|BI|BR|IB|IR|RB|RI)\b", ln):
            continue
        if ln.startswith("."):
            args = re.findall(r'"([^"]*)"|(\S+)', ln.split(None, 1)[1] if " " in ln else "")
            ln = "".join(q or w for q, w in args)
            out.append(ln)
        else:
            out.append(ln)
    text = " ".join(out).replace("\\-", "-").replace("\\e", "\\")
    return " ".join(text.split())


page = open(PAGE).read().split("\n")
start = page.index(".SH OPTIONS")
end = next(i for i in range(start + 1, len(page)) if page[i].startswith(".SH "))
entries = []
for chunk in "\n".join(page[start + 1:end]).split("\n.TP\n")[1:]:
    lines = chunk.split("\n")
    tag = roff_text(lines[:1])
    m = re.match(r"--(\S+)(?: (.*))?$", tag)
    entries.append({"name": m.group(1), "arg": (m.group(2) or "").replace(" ", "").lower(),
                    "text": roff_text(lines[1:])})
t.ok([e["name"] for e in entries] == table,
     "kprint_exporter(8)'s OPTIONS describe the table's options, in its order (%s)" %
     " ".join(e["name"] for e in entries))

for h, e in zip(helps, entries):
    if h["name"] != e["name"]:
        break
    what = []
    if h["arg"] != e["arg"]:
        what.append("argument %r, the page's %r" % (h["arg"], e["arg"]))
    if h["default"] and "default " + h["default"] not in e["text"]:
        what.append("no 'default %s' in the page" % h["default"])
    if h["range"] and "%s to %s" % h["range"] not in e["text"]:
        what.append("no '%s to %s' in the page" % h["range"])
    if h["times"] and "up to %s times" % h["times"] not in e["text"]:
        what.append("no 'up to %s times' in the page" % h["times"])
    t.ok(not what, "--%s: --help and the page agree on argument, default and range%s" %
         (h["name"], " (%s)" % "; ".join(what) if what else ""))

# The SYNOPSIS names no option the exporter does not take.
synopsis = "\n".join(page[page.index(".SH SYNOPSIS"):page.index(".SH DESCRIPTION")])
named = set(re.findall(r"\\-\\-([a-z][a-z.\\-]*)", synopsis))
unknown = sorted(n.replace("\\-", "-") for n in named if n.replace("\\-", "-") not in table)
t.ok(not unknown, "the SYNOPSIS names only options of the table%s" %
     (" (not: %s)" % ", ".join(unknown) if unknown else ""))
t.done()
