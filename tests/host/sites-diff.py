#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint sites diff on the real catalogs of two installed kernels (6.1 and
6.12 of Debian, built here with kprint sites build): real changes of each
kind, each with its module, the JSON's totals matching its changes; a
rules file naming a format id that 6.1 prints and 6.12 does not (chosen
from the diff at run time) reported with FILE:LINE and exit status 1,
one naming only kept ids exit status 0; kprint formats --pot --sites
writing a template msgfmt --check-format takes, one msgid per distinct
format of the catalog (less those it says it left out).

SITES_DIFF_CATALOGS=DIR takes the two catalogs from DIR (DIR/KVER.jsonl)
instead of building them.
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from lib import check, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
KPRINT = os.environ.get("KPRINT_BIN", os.path.join(ROOT, ".output", "bin", "kprint"))
OLD, NEW = "6.1.0-57-amd64", "6.12.118+deb12-amd64"
KINDS = ("added", "removed", "changed", "moved")


def skip(what):
    print(f"ok - {what} # SKIP", flush=True)


def kprint(*args, **kw):
    return subprocess.run([KPRINT, *args], capture_output=True, text=True, **kw)


def catalogs(work):
    """The directory holding OLD's and NEW's catalogs, built unless given."""
    given = os.environ.get("SITES_DIFF_CATALOGS")
    if given:
        return given
    for kver in (OLD, NEW):
        r = kprint("sites", "build", "--kernel", kver, "--dir", work)
        check(f"kprint sites build --kernel {kver} (exit {r.returncode}): {r.stdout.strip()}",
              r.returncode == 0 and os.path.exists(os.path.join(work, kver + ".jsonl")),
              r.stderr.strip()[-500:])
    return work


def entries(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    return lines[0], lines[1:]


def places(names, most=4):
    more = f" (+{len(names) - most})" if len(names) > most else ""
    return " ".join(names[:most]) + more


def show(change):
    place = change["module"] + ":" + (change["function"] or "-")
    if change["change"] == "changed":
        return f'{place} "{change["old_format"]}" -> "{change["new_format"]}"' \
               f' ({change["similarity"]})'
    if change["change"] == "moved":
        return f'"{change["new_format"]}" {places(change["old_places"])} ->' \
               f' {places(change["new_places"])}'
    return f'{place} "{change["old_format"] or change["new_format"]}"'


def test_diff(cdir):
    """The diff as JSON: its changes and totals; returns the changes."""
    r = kprint("sites", "diff", OLD, NEW, "--dir", cdir, "--json")
    if not check(f"kprint sites diff {OLD} {NEW} --json exits 0", r.returncode == 0,
                 r.stderr.strip()):
        return []
    objs = [json.loads(line) for line in r.stdout.splitlines()]
    changes, total = objs[:-1], objs[-1]
    count = {k: sum(c["change"] == k for c in changes) for k in KINDS}
    print(f"# {OLD} -> {NEW}: " + ", ".join(f"{count[k]} {k}" for k in KINDS) +
          f"; {total.get('unchanged')} unchanged of {total.get('old_formats')} and"
          f" {total.get('new_formats')} formats", flush=True)
    for k in KINDS:
        for c in [c for c in changes if c["change"] == k][:5]:
            print(f"#   {k}: {show(c)}", flush=True)
    check("the totals are the number of changes of each kind",
          all(total.get(k) == count[k] for k in KINDS), f"{total} vs {count}")
    check("real changes of each kind: added, removed and changed formats",
          count["added"] > 0 and count["removed"] > 0 and count["changed"] > 0, str(count))
    check("each change has its module, each changed one two ids and a similarity >= 0.6",
          all(c["module"] for c in changes) and
          all(c["old_id"] and c["new_id"] and c["old_id"] != c["new_id"] and
              c["similarity"] >= 0.6 for c in changes if c["change"] == "changed"))
    _, old = entries(os.path.join(cdir, OLD + ".jsonl"))
    _, new = entries(os.path.join(cdir, NEW + ".jsonl"))
    old_ids, new_ids = {e["format_id"] for e in old}, {e["format_id"] for e in new}
    check("removed ids are of 6.1 alone, added ones of 6.12 alone",
          all(c["old_id"] in old_ids and c["old_id"] not in new_ids
              for c in changes if c["change"] in ("removed", "changed")) and
          all(c["new_id"] in new_ids and c["new_id"] not in old_ids
              for c in changes if c["change"] in ("added", "changed")))
    text = kprint("sites", "diff", OLD, NEW, "--dir", cdir)
    last = text.stdout.splitlines()[-1] if text.stdout else ""
    check("the text output ends with the same totals",
          all(f"{count[k]} {k}" in last for k in KINDS), last)
    return changes


RULES = """groups:
  - name: kernel
    rules:
      - alert: KernelFormatKept
        expr: rate(kprint_format_messages_total{{format_id="{kept}"}}[5m]) > 0
      - alert: KernelFormatGone
        expr: |
          sum by (format_id) (
            rate(kprint_format_messages_total{{format_id=~"{kept}|{gone}"}}[5m])) > 0
"""


def test_rules(cdir, work, changes):
    """A rules file naming one id 6.12 lost, then one naming only kept ids."""
    # A format of some length: a real message, not a stray fragment.
    gone = next((c for c in changes if c["change"] == "removed" and len(c["old_format"]) >= 12),
                None)
    _, new = entries(os.path.join(cdir, NEW + ".jsonl"))
    _, old = entries(os.path.join(cdir, OLD + ".jsonl"))
    new_ids = {e["format_id"] for e in new}
    kept = next((e for e in old if e["format_id"] in new_ids), None)
    if not gone or not kept:
        check("a removed id and a kept one to name in a rules file", False)
        return
    path = os.path.join(work, "rules.yml")
    with open(path, "w") as f:
        f.write(RULES.format(kept=kept["format_id"], gone=gone["old_id"]))
    r = kprint("sites", "diff", OLD, NEW, "--dir", cdir, "--rules", path)
    for line in r.stdout.splitlines():
        print(line if line.startswith("#") else "# " + line, flush=True)
    hits = [line for line in r.stdout.splitlines() if not line.startswith("#")]
    check(f"--rules: the id 6.12 no longer prints ({gone['old_id']}) is reported with"
          " FILE:LINE and its rule, exit status 1",
          r.returncode == 1 and len(hits) == 1 and
          hits[0].startswith(f"{path}:9: alert KernelFormatGone: format_id {gone['old_id']}"),
          f"exit {r.returncode}: {r.stdout} {r.stderr}")
    with open(path, "w") as f:
        f.write(RULES.format(kept=kept["format_id"], gone=kept["format_id"]))
    r = kprint("sites", "diff", OLD, NEW, "--dir", cdir, "--rules", path)
    check("--rules naming only kept ids: nothing reported, exit status 0",
          r.returncode == 0 and not [x for x in r.stdout.splitlines() if not x.startswith("#")],
          f"exit {r.returncode}: {r.stdout} {r.stderr}")
    with open(path, "w") as f:
        f.write("groups:\n  - name: x\n    rules:\n\t- alert: Y\n")
    r = kprint("sites", "diff", OLD, NEW, "--dir", cdir, "--rules", path)
    check("--rules: bad YAML refused with FILE:LINE, exit status 1",
          r.returncode == 1 and f"{path}:4: " in r.stderr, f"exit {r.returncode}: {r.stderr}")


def test_pot(cdir, work):
    """formats --pot --sites FILE: a template of every distinct format."""
    catalog = os.path.join(cdir, NEW + ".jsonl")
    pot = os.path.join(work, "sites.pot")
    with open(pot, "w") as out:
        r = subprocess.run([KPRINT, "formats", "--pot", "--sites", catalog], stdout=out,
                           stderr=subprocess.PIPE, text=True)
    if not check("kprint formats --pot --sites FILE exits 0", r.returncode == 0, r.stderr):
        return
    if not shutil.which("msgfmt"):
        skip("msgfmt --check-format takes the template (no msgfmt: apt-get install gettext)")
        return
    m = subprocess.run(["msgfmt", "--check-format", "--statistics", "-o", "/dev/null", pot],
                       capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    check("msgfmt --check-format takes the template", m.returncode == 0, m.stderr[-800:])
    stat = re.search(r"(\d+) untranslated message", m.stderr)
    left = re.search(r"left out (\d+) format", r.stderr)
    _, sites = entries(catalog)
    distinct = {e["format"][:-1] if e["format"].endswith("\n") else e["format"] for e in sites}
    want = len(distinct) - (int(left.group(1)) if left else 0)
    got = int(stat.group(1)) if stat else -1
    print(f"# {NEW}: {len(sites)} entries, {len(distinct)} distinct formats, {got} msgids,"
          f" {left.group(1) if left else 0} left out", flush=True)
    check("one msgid per distinct format of the catalog, less those said left out",
          got == want and got > 0, f"{got} msgids, {want} expected")


def main():
    if not os.access(KPRINT, os.X_OK):
        check(f"{KPRINT} built", False)
        finish()
    missing = [k for k in (OLD, NEW) if not os.path.exists(f"/boot/vmlinuz-{k}") or
               not os.path.isdir(f"/lib/modules/{k}")]
    if missing and not os.environ.get("SITES_DIFF_CATALOGS"):
        skip(f"kprint sites diff {OLD} {NEW} (not installed: {' '.join(missing)})")
        finish()
    work = tempfile.mkdtemp(prefix="kprint-sites-diff.")
    atexit.register(shutil.rmtree, work, True)
    cdir = catalogs(work)
    if all(os.path.exists(os.path.join(cdir, k + ".jsonl")) for k in (OLD, NEW)):
        changes = test_diff(cdir)
        test_rules(cdir, work, changes)
        test_pot(cdir, work)
    finish()


main()
