#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter --replay on the host: what it serves is valid whatever
the records hold, and a bad replay file is refused with its line number.

Records whose formats, args, tags, comm and text hold backslashes, quotes,
newlines and other control bytes, NUL (\\u0000 in the file: kept in a text or
an arg, U+FFFD elsewhere), every byte
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import (Exporter, F_BACKLOG, F_CONT, SERIES_LABELS, Tap, line,  # noqa: E402
                     parse_metrics, promtool_check, record, run_replay, validate)

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


def stored(s, data=False):
    """The bytes the exporter keeps for s as written in the file: raw bytes
    as they are; json-c makes an escaped lone surrogate U+FFFD, the replay
    a NUL, but in a text or an arg (data), where a NUL is the byte printk
    rendered for a "%c" of 0 (kprint(7))."""
    b = s.replace("\ud800", "\ufffd").encode()
    for k, v in RAW.items():
        b = b.replace(k.encode(), v)
    return b if data else b.replace(b"\0", "\ufffd".encode())


def expect(s, data=False):
    """What the exporter must serve for s: ill-formed bytes as U+FFFD."""
    return stored(s, data).decode("utf-8", "replace")


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
        # Odd formats as the printk bridge takes them, with a nasty device.
        r = record(seq, fmt, level=["err", "info", "debug"][i % 3],
                   cls=["none", "detected"][i % 2],
                   subsystem=TAGS[i % len(TAGS)], module=TAGS[(i + 1) % len(TAGS)],
                   args=[fmt, "@R8@", "\x00", "\\"], text="text " + fmt,
                   source="printk" if i % 2 else "kprint",
                   device=TAGS[(i + 2) % len(TAGS)] if i % 2 else "")
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
        for k in ("format", "subsystem", "device", "module", "comm", "text"):
            if g[k] != expect(r[k], k == "text"):
                bad.append("seq %d %s: %r != %r" % (r["seq"], k, g[k], expect(r[k], k == "text")))
        if g["args"] != [expect(a, True) for a in r["args"]]:
            bad.append("seq %d args" % r["seq"])
        for k in ("format_id", "source", "level", "level_num", "facility", "class",
                  "ts_mono_ns", "ts_real_ns", "flags", "continues"):
            if g.get(k) != r.get(k):
                bad.append("seq %d %s" % (r["seq"], k))
    t.ok(not bad, "every string of every record comes back as written, a NUL in a text or "
         "an arg as \\u0000, elsewhere and ill-formed bytes as U+FFFD (%s)" % "; ".join(bad[:3]))

    passed, said = validate(got)
    t.ok(passed, "every record of /records matches schema/record.schema.json (%s)"
         % (said[:200] or "no complaints"))

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

# The printk bridge's records: a boot's backlog, kprint records, dev_err()s
# of two devices, and pr_cont() fragments of two CPUs' lines interleaved.
bridge = [
    record(1, "", level="notice", source="printk", flags=F_BACKLOG, module="",
           text="Linux version 6.1.0-18-amd64"),
    record(2, "", level="info", source="printk", flags=F_BACKLOG, module="",
           text="Command line: console=ttyS0"),
    record(3, "kprint_demo %d", module="kprint_demo", subsystem="demo", args=["3"],
           text="kprint_demo 3"),
    record(4, "link %s", level="err", source="printk", subsystem="pci",
           device="+pci:0000:00:19.0", module="e1000e", args=["down"],
           text="e1000e 0000:00:19.0: link down", function="e1000_watchdog+0x1/0x2"),
    record(5, "Attached SCSI disk", level="notice", source="printk", subsystem="block",
           device="b8:0", module="sd_mod", text="sd 0:0:0:0: [sda] Attached SCSI disk"),
    record(6, "cpu0 says:", source="printk", module="vmlinux", text="cpu0 says:"),
    record(7, "cpu1 says:", source="printk", module="vmlinux", text="cpu1 says:"),
    record(8, " %d", source="printk", module="vmlinux", args=["1"], text=" 1",
           flags=F_CONT, continues=7),
    record(9, " %d", source="printk", module="vmlinux", args=["0"], text=" 0",
           flags=F_CONT, continues=6),
    record(10, " done", source="printk", module="vmlinux", text=" done",
           flags=F_CONT, continues=6),
    record(11, "link %s", level="err", source="printk", subsystem="pci",
           device="+pci:0000:00:19.0", module="e1000e", args=["up"],
           text="e1000e 0000:00:19.0: link up"),
    record(12, "kprint_demo %d", module="kprint_demo", subsystem="demo", args=["12"],
           text="kprint_demo 12"),
]
bpath = os.path.join(work, "bridge.jsonl")
with open(bpath, "wb") as f:
    f.writelines(line(r) for r in bridge)
passed, said = validate(b"".join(line(r) for r in bridge), array=False)
t.ok(passed, "the bridge fixture itself matches the schema (%s)" % (said[:200] or "ok"))


def seqs_of(ex, query):
    st, _, body = ex.get("/records?limit=1000" + query)
    return st, [r["seq"] for r in json.loads(body)] if st == 200 else json.loads(body)


ex = Exporter(bpath)
try:
    st, hdr, body = ex.get("/records?limit=1000")
    got = json.loads(body)
    t.ok(st == 200 and got == bridge,
         "/records gives back every field of the bridge's records as the file has them "
         "(source, device, facility, flags, continues, printk_seq)")
    passed, said = validate(body)
    t.ok(passed, "/records of printk records matches the schema (%s)" % (said[:200] or "ok"))
    printk = [r["seq"] for r in bridge if r["source"] == "printk"]
    kprint = [r["seq"] for r in bridge if r["source"] == "kprint"]
    for query, want, what in [
            ("&source=printk", printk, "source=printk: the %d printk records" % len(printk)),
            ("&source=kprint", kprint, "source=kprint: the %d kprint records" % len(kprint)),
            ("&source=kprint,printk", [r["seq"] for r in bridge], "source=kprint,printk: all"),
            ("&device=%2Bpci:0000:00:19.0", [4, 11], "device=+pci:0000:00:19.0: its two dev_err()s"),
            ("&device=b8:0&source=printk", [5], "device=b8:0&source=printk: the disk's line"),
            ("&device=", [r["seq"] for r in bridge if not r["device"]],
             "device= (empty): the records of no device"),
            ("&source=printk&module=vmlinux&level=info", [6, 7, 8, 9, 10],
             "source=printk&module=vmlinux&level=info: the core kernel's lines"),
            ("&source=printk&limit=2", [10, 11], "source=printk&limit=2: the 2 most recent"),
            ("&source=printk&after=5&limit=3", [6, 7, 8], "source=printk&after=5&limit=3 pages"),
    ]:
        st, seqs = seqs_of(ex, query.replace("limit=1000&", ""))
        t.ok(st == 200 and seqs == want, "%s (%d %s)" % (what, st, seqs))
    # dmesg's lines rebuilt from the fragments: each names its line's start.
    by_seq = {r["seq"]: r for r in got}
    lines = {}
    for r in got:
        if r["flags"] & F_CONT:
            lines[r["continues"]] += r["text"]
        elif r["source"] == "printk":
            lines[r["seq"]] = r["text"]
    t.ok(lines[6] == "cpu0 says: 0 done" and lines[7] == "cpu1 says: 1" and
         all(by_seq[r["continues"]]["source"] == "printk" for r in got if r["flags"] & F_CONT),
         "the interleaved fragments rebuild both CPUs' lines by continues (%r, %r)"
         % (lines.get(6), lines.get(7)))
    for query, param, what in [
            ("source=kernel", "source", "source=kernel"),
            ("source=", "source", "an empty source="),
            ("source=all", "source", "source=all (the CLI's word, not /records')"),
            ("source=printk,", "source", "source=printk,"),
            ("device=" + "d" * 48, "device", "a device of 48 bytes"),
            ("device", "device", "device without a value"),
    ]:
        st, hdr, body = ex.get("/records?" + query)
        try:
            err = json.loads(body)
        except ValueError:
            err = {}
        t.ok(st == 400 and hdr.get("Content-Type") == "application/json" and
             err.get("parameter") == param and err.get("error"),
             "%s is 400 with a JSON error naming the parameter (%d %s)" % (what, st, body[:100]))
    st, _, body = ex.get("/metrics")
    passed, said = promtool_check(body)
    t.ok(st == 200 and passed, "/metrics of a replay with printk records passes promtool (%s)"
         % (said[:200] or "no complaints"))
    series = [s for s in parse_metrics(body.decode()) if s[0] == "kprint_format_messages_total"]
    link = [s for s in series if dict(s[1])["format"] == "link %s"]
    t.ok(len(link) == 1 and link[0][2] == 2 and dict(link[0][1])["module"] == "e1000e",
         "the replay's per-format series counts the bridged format with its module (%r)" % link)
finally:
    ex.stop()

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
    ("no source (a dump from before the printk bridge)", mutate(source=None)),
    ("an unknown source", mutate(source="kernel")),
    ("a kprint record with a device", mutate(device="b8:0")),
    ("no continues", mutate(continues=None)),
    ("a facility past 2^32", mutate(facility=4294967296)),
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
