#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter --replay on the host: what it serves is valid whatever
the records hold, and a bad replay file is refused with its line number.

Records whose formats, args, tags, comm and text hold backslashes, quotes,
newlines and other control bytes, NUL (\\u0000 in the file), every byte
0x80-0xff and invalid UTF-8 (raw bytes in the file, as the kernel's would be)
are replayed; /metrics must pass `promtool check metrics`, /records must be
strict UTF-8 JSON, and both must say exactly what the file said, with each
ill-formed byte sequence made U+FFFD the way Python's "replace" does it.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kpxtest import (Exporter, SERIES_LABELS, Tap, line, parse_metrics,  # noqa: E402
                     promtool_check, record, run_replay)

t = Tap()
work = tempfile.mkdtemp(prefix="kpx-replay.")

# Raw bytes JSON cannot carry, put into lines in place of these markers.
RAW = {
    "@R1@": b"\x80",                # a lone continuation byte
    "@R2@": b"\xff\xfe",            # never in UTF-8
    "@R3@": b"\xc3(",               # a 2-byte sequence cut short
    "@R4@": b"\xc0\x80",            # an overlong NUL
    "@R5@": b"\xed\xa0\x80",        # a surrogate
    "@R6@": b"\xf4\x90\x80\x80",    # past U+10FFFF
    "@R7@": b"\xe6\xbc",            # a 3-byte sequence cut by the string's end
    "@R8@": bytes(range(0x80, 0x100)),
    "@V@": "é€😀".encode(),         # valid, as raw bytes
}


def stored(s):
    """The bytes the exporter keeps for s as written in the file: raw bytes
    as they are; json-c makes an escaped lone surrogate U+FFFD, the replay
    a NUL."""
    b = s.replace("\ud800", "\ufffd").encode()
    for k, v in RAW.items():
        b = b.replace(k.encode(), v)
    return b.replace(b"\0", "\ufffd".encode())


def expect(s):
    """What the exporter must serve for s: ill-formed bytes as U+FFFD."""
    return stored(s).decode("utf-8", "replace")


def expect_label(s):
    """What a series label holds: as a BPF entry, at most 255 bytes, not
    cutting a character (the cut backs off continuation bytes)."""
    b = stored(s)
    if len(b) > 255:
        n = 255
        while n and (b[n] & 0xc0) == 0x80:
            n -= 1
        b = b[:n]
    return b.decode("utf-8", "replace")


NASTY = [
    "back\\slash %s \\\\ two",
    'quote " %d ""',
    "new\nline\n",
    "cr\r tab\t bell\x07 esc\x1b del\x7f c1\u0085",
    "nul \x00 inside\x00",
    "raw @R1@ @R2@ @R3@",
    "raw @R4@ @R5@ @R6@ end@R7@",
    "all high @R8@",
    "valid é 漢 😀 @V@",
    "\\\"\n\\n mixed \x00 @R2@ \"",
    "",
    "lone \ud800 surrogate",
    "é" * 200,          # longer than a BPF format: cut whole in the label
]
TAGS = ["sub\\sys", 'mo"d', "n\nl", "@R2@x", "nul\x00", "é@R1@"]

recs, lines, seq = [], [], 0
for i, fmt in enumerate(NASTY):
    # Format i is seen i + 1 times, so each series has its own value.
    for _ in range(i + 1):
        seq += 1
        r = record(seq, fmt, level=["err", "info", "debug"][i % 3],
                   cls=["none", "detected"][i % 2],
                   subsystem=TAGS[i % len(TAGS)], module=TAGS[(i + 1) % len(TAGS)],
                   args=[fmt, "@R8@", "\x00", "\\"], text="text " + fmt)
        r["comm"] = "c@R2@\x00\n"[: 1 + i % 8]
        recs.append(r)
        lines.append(line(r, RAW))
# A lost line and module lines: counted or skipped, never records.
lines.insert(3, b'{"lost":7,"reason":"overwritten","cause":"gap","first_seq":100,"last_seq":106}\n')
lines.insert(5, b'{"module":"unloaded","next_seq":5}\n')
lines.insert(6, b'{"module":"loaded","first_seq":1}\n')
lines.insert(7, b"   \n")
path = os.path.join(work, "nasty.jsonl")
with open(path, "wb") as f:
    f.writelines(lines)

ex = Exporter(path)
try:
    st, hdr, body = ex.get("/metrics")
    t.ok(st == 200 and hdr.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
         "/metrics of the replay is 200, text format 0.0.4")
    passed, said = promtool_check(body)
    t.ok(passed, "promtool check metrics passes (%s)" % (said[:300] or "no complaints"))
    try:
        text = body.decode("utf-8", "strict")
        t.ok(True, "/metrics is valid UTF-8")
    except UnicodeDecodeError as e:
        text = body.decode("utf-8", "replace")
        t.ok(False, "/metrics is valid UTF-8 (%s)" % e)
    samples = parse_metrics(text)
    series = [s for s in samples if s[0] == "kprint_format_messages_total"]
    t.ok(all([k for k, _ in s[1]] == SERIES_LABELS for s in series),
         "every per-format series has exactly the labels %s" % ",".join(SERIES_LABELS))
    replay = {dict(s[1])["format_id"]: s for s in series if dict(s[1])["source"] == "replay"}
    t.ok(len(replay) == len(NASTY) and len(series) == len(NASTY),
         "one series per replayed format, all with source=\"replay\" (%d of %d)"
         % (len(replay), len(NASTY)))
    bad = []
    for i, fmt in enumerate(NASTY):
        r = record(0, fmt)
        s = replay.get(r["format_id"])
        want = {"format": expect_label(fmt), "subsystem": expect(TAGS[i % len(TAGS)]),
                "module": expect(TAGS[(i + 1) % len(TAGS)]),
                "level": ["err", "info", "debug"][i % 3], "class": ["none", "detected"][i % 2]}
        if not s:
            bad.append("format %d: no series" % i)
            continue
        got = dict(s[1])
        for k, v in want.items():
            if got[k] != v:
                bad.append("format %d %s: %r != %r" % (i, k, got[k], v))
        if s[2] != i + 1:
            bad.append("format %d: value %g != %d" % (i, s[2], i + 1))
    t.ok(not bad, "each series says its format, tags, level and class as the file did, "
         "ill-formed bytes as U+FFFD, and counts its records (%s)" % "; ".join(bad[:4]))
    values = {s[0]: s[2] for s in samples if not s[1]}
    lost = [s[2] for s in samples if s[0] == "kprint_exporter_records_lost_total"
            and dict(s[1]).get("reason") == "overwritten"]
    t.ok(values.get("kprint_exporter_records_received_total") == len(recs) and lost == [7],
         "received_total counts the %d records, lost_total{overwritten} the lost line's 7"
         % len(recs))
    t.ok("kprint_kernel_up" not in values and values.get("kprint_bpf_up") == 0,
         "a replay has no kernel series and kprint_bpf_up 0")

    st, hdr, body = ex.get("/records?limit=1000")
    t.ok(st == 200 and hdr.get("Content-Type") == "application/json", "/records is 200 JSON")
    try:
        got = json.loads(body.decode("utf-8", "strict"))
        t.ok(isinstance(got, list), "/records is strict UTF-8 JSON (RFC 8259, no raw controls)")
    except (UnicodeDecodeError, ValueError) as e:
        got = []
        t.ok(False, "/records is strict UTF-8 JSON (%s)" % e)
    t.ok([r["seq"] for r in got] == [r["seq"] for r in recs],
         "/records holds every replayed record in file order (%d)" % len(got))
    bad = []
    by_seq = {r["seq"]: r for r in got}
    for r in recs:
        g = by_seq.get(r["seq"])
        if not g:
            continue
        for k in ("format", "subsystem", "module", "comm", "text"):
            if g[k] != expect(r[k]):
                bad.append("seq %d %s: %r != %r" % (r["seq"], k, g[k], expect(r[k])))
        if g["args"] != [expect(a) for a in r["args"]]:
            bad.append("seq %d args" % r["seq"])
        for k in ("format_id", "level", "level_num", "class", "ts_mono_ns", "ts_real_ns", "flags"):
            if g[k] != r[k]:
                bad.append("seq %d %s" % (r["seq"], k))
    t.ok(not bad, "every string of every record comes back as written, "
         "NUL and ill-formed bytes as U+FFFD (%s)" % "; ".join(bad[:3]))

    st, _, body = ex.get("/healthz")
    t.ok(st == 200, "/healthz is 200 for a replay (%d %r)" % (st, body[:60]))
    st, _, body = ex.get("/formats")
    t.ok(st == 503 and b"--replay" in body, "/formats is 503 with --replay (%d)" % st)
    st, _, body = ex.get("/records?q=" + "%22")
    want = [r["seq"] for r in recs if '"' in r["format"]]
    t.ok(st == 200 and [r["seq"] for r in json.loads(body)] == want,
         "/records?q=%%22 finds the %d records whose format holds a quote" % len(want))
finally:
    rc = ex.stop()
t.ok(rc == 0, "SIGTERM stops it with status 0 (%s)" % rc)

# --records keeps the most recent; everything is still counted.
ex = Exporter(path, "--records", "5", "--max-series", "3")
try:
    got = json.loads(ex.get("/records")[2])
    samples = parse_metrics(ex.get("/metrics")[2].decode())
    series = [s for s in samples if s[0] == "kprint_format_messages_total"]
    t.ok([r["seq"] for r in got] == [r["seq"] for r in recs[-5:]],
         "--records 5 keeps the 5 most recent")
    over = [s for s in series if dict(s[1])["format"] == "__overflow__"]
    t.ok(len(series) == 4 and len(over) == 1 and sum(s[2] for s in series) == len(recs),
         "--max-series 3: 3 series and an overflow, summing to all %d" % len(recs))
finally:
    ex.stop()

# From stdin.
with open(path, "rb") as f:
    ex = Exporter("-", stdin=f)
try:
    got = json.loads(ex.get("/records?limit=1000")[2])
    t.ok(len(got) == len(recs), "--replay - reads stdin (%d records)" % len(got))
finally:
    ex.stop()

# A bad line stops it at startup with FILE:LINE and status 2.
good = [line(record(1, "one")), line(record(2, "two"))]
r3 = record(3, "three")


def mutate(**kw):
    r = dict(r3)
    for k, v in kw.items():
        if v is None:
            del r[k]
        else:
            r[k] = v
    return line(r)


BAD = [
    ("not JSON", b"{seq: 3}\n"),
    ("cut short", line(r3)[:40] + b"\n"),
    ("junk after the object", line(r3)[:-1] + b" x\n"),
    ("two objects", line(r3)[:-1] + line(r3)),
    ("an array", b"[1, 2]\n"),
    ("no format", mutate(format=None)),
    ("no args", mutate(args=None)),
    ("seq a string", mutate(seq="3")),
    ("seq negative", mutate(seq=-3)),
    ("seq a fraction", mutate(seq=3.5)),
    ("seq past 2^64", line(r3).replace(b'"seq":3', b'"seq":18446744073709551616')),
    ("cpu past 2^32", mutate(cpu=4294967296)),
    ("an unknown level", mutate(level="loud")),
    ("level_num not the level", mutate(level_num=2)),
    ("an unknown class", mutate(**{"class": "weird"})),
    ("format_id not hex", mutate(format_id="xyz")),
    ("format_id upper case", mutate(format_id=r3["format_id"].upper())),
    ("17 args", mutate(args=["a"] * 17)),
    ("an arg not a string", mutate(args=[1])),
    ("a raw NUL byte", line(r3).replace(b"three", b"th\0ree")),
    ("neither a record nor a lost line", b'{"hello": 1}\n'),
    ("a lost line with a bad reason", b'{"lost":1,"reason":"eaten","cause":"gap","first_seq":1,"last_seq":1}\n'),
]
for what, bad_line in BAD:
    p = os.path.join(work, "bad.jsonl")
    with open(p, "wb") as f:
        f.writelines(good + [bad_line] + good)
    rc, err = run_replay(p)
    t.ok(rc == 2 and (p + ":3: ") in err,
         "a line with %s: status 2, '%s:3: why' (%d, %s)"
         % (what, os.path.basename(p), rc, err.strip().splitlines()[-1][:120] if err.strip() else ""))

rc, err = run_replay(os.path.join(work, "missing.jsonl"))
t.ok(rc == 1 and "No such file" in err, "a missing file: status 1 (%d)" % rc)
rc, err = run_replay(path, "--listen", "127.0.0.1")
t.ok(rc == 2, "a --listen without a port: status 2 (%d)" % rc)

# Help names the option.
out = subprocess.run([os.environ.get("KPRINT_EXPORTER") or
                      os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
                          os.path.abspath(__file__)))), ".output/bin/kprint_exporter"),
                      "--help"], stdout=subprocess.PIPE, timeout=10).stdout.decode()
t.ok("--replay FILE" in out and 'source="replay"' in out, "--help documents --replay")

subprocess.run(["rm", "-rf", work])
t.done()
