#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every field of every record of the test table, as `kprint monitor --json`
receives it, against an expectation table written independently of the
module, and each text against what printk itself printed for the same
format and arguments."""
import json
import os
import re
import subprocess
import sys
import time

import jsonschema

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import (TEST_PARAMS as PARAMS, check, finish, kmsg_records, load_test_module,  # noqa: E402
                 rebuild, wait_subscribers, write_param)

TABLE = "kernel/test/kprint_test_table.h"


# index: (level, class, format, args); None args = checked by pattern below.
EXPECTED = [
    ("emerg", "none", "kprint_test emerg %d", ["-1"]),
    ("alert", "none", "kprint_test alert %i", ["42"]),
    ("crit", "none", "kprint_test crit %u", ["3000000000"]),
    ("err", "none", "kprint_test err %x", ["beef"]),
    ("warn", "none", "kprint_test warn %X", ["BEEF"]),
    ("notice", "none", "kprint_test notice %o", ["10"]),
    ("info", "none", "kprint_test info %#x", ["0xff"]),
    ("debug", "none", "kprint_test debug %-5d|", ["42   "]),
    ("warn", "none", "kprint_test default %05d", ["00042"]),
    ("info", "detected", "kprint_test detected %*d", ["    42"]),
    ("info", "registered", "kprint_test registered %.*s", ["abc"]),
    ("info", "setting", "kprint_test setting %hhd", ["-3"]),
    ("info", "copyright", "kprint_test copyright %hd", ["-1234"]),
    ("info", "none", "kprint_test long %ld", ["-1234567890123"]),
    ("info", "none", "kprint_test longlong %lld", ["-9000000000000000000"]),
    ("info", "none", "kprint_test ulong %lu", ["18446744073709551615"]),
    ("info", "none", "kprint_test size %zu", ["4096"]),
    ("info", "none", "kprint_test ssize %zd", ["-4096"]),
    ("info", "none", "kprint_test ptrdiff %td", ["-17"]),
    ("info", "none", "kprint_test char %c", ["K"]),
    ("info", "none", "kprint_test string %s", ["hello"]),
    ("info", "none", "kprint_test rpad [%10s]", ["     right"]),
    ("info", "none", "kprint_test lpad [%-10s]|", ["left      "]),
    ("info", "none", "kprint_test prec %.3s", ["abc"]),
    ("info", "none", "kprint_test percent 100%% %d%%", ["50"]),
    ("info", "none", "kprint_test hashed %p", None),
    ("info", "none", "kprint_test symbol %pS", None),
    ("info", "none", "kprint_test symname %ps", ["kprint_test_marker [kprint_test]"]),
    ("info", "none", "kprint_test ipv4 %pI4", ["192.0.2.1"]),
    ("info", "none", "kprint_test ipv6 %pI6c", ["2001:db8::1"]),
    ("info", "none", "kprint_test mac %pM", ["00:11:22:33:44:55"]),
    ("info", "none", "kprint_test uuid %pUb", ["00112233-4455-6677-8899-aabbccddeeff"]),
    ("info", "none", "kprint_test no args", []),
    ("info", "none", "kprint_test escape %s", ['tab\there "quote" back\\slash café ctl\x01end']),
    ("info", "none", "kprint_test multi %d %s %u %c", ["-7", "two", "3", "x"]),
    ("info", "none", "kprint_test newline %d\n", ["7"]),
    ("info", "none", "kprint_test pV <%pV>", ["inner 5 five"]),
    ("info", "none", "kprint_test signs %+d % d", ["+5", " 6"]),
    ("info", "none", "kprint_test long arg %s", None),
    # The conversions kprint renders without snprintf(): its fast path.
    ("info", "none", "kprint_test null %s", ["(null)"]),
    ("info", "none", "kprint_test efault %s", ["(efault)"]),
    ("info", "none", "kprint_test hex %lx %llx %llu %lli",
     ["deadbeef", "123456789abcdef", "18446744073709551615", "-9223372036854775808"]),
    ("info", "none", "kprint_test min %d %ld %zd",
     ["-2147483648", "-9223372036854775808", "0"]),
]
PATTERNS = {
    25: [r"[0-9a-f]{8,16}"],
    26: [r"kprint_test_marker\+0x0/0x[0-9a-f]+ \[kprint_test\]"],
}
LONG_ARG = "".join(chr(ord("a") + i % 26) for i in range(300))
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]

load_test_module()
size = int(open(f"{PARAMS}/table_size").read())
check(f"the test table has the {len(EXPECTED)} entries this test knows", size == len(EXPECTED),
      f"module says {size}")

write_param("reference", 1)
refs = {}
for km in kmsg_records():
    m = re.match(r"kprint_test ref (\d+): (.*)$", km["text"], re.S)
    if m:
        refs[int(m.group(1))] = m.group(2)

genl = kpnl.Genl()
# From the ring's next seq, taken now: kprint monitor without --from follows
# from the seq it reads once started, which can be after the table's first
# records in a loaded emulated guest (it joined the group before; the RT
# guest lost that race in make check, and a soak's guest did).
start = genl.stats()["next_seq"]
monitor = subprocess.Popen(["kprint", "monitor", "--json", "--from", str(start),
                            "--count", str(size)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check("kprint monitor joined the records group", wait_subscribers(genl.groups["records"], 1))
t0_mono, t0_real = time.monotonic_ns(), time.time_ns()
write_param("emit", 1)
t1_mono, t1_real = time.monotonic_ns(), time.time_ns()
out, err = monitor.communicate(timeout=120)
check("kprint monitor exited cleanly after the table", monitor.returncode == 0, err.strip())

# One validator for every record: jsonschema.validate() checks the schema
# itself again on each call, seconds per record in the guest.
validator = jsonschema.Draft202012Validator(json.load(open("schema/record.schema.json")))
records = [json.loads(line) for line in out.splitlines()]
check(f"received {size} records", len(records) == size, f"got {len(records)}")
seqs = [r.get("seq") for r in records]
check("sequence numbers are consecutive", seqs == list(range(seqs[0], seqs[0] + len(seqs))) if seqs else False)

table_lines = {}
for n, line in enumerate(open(TABLE), 1):
    m = re.search(r'"(kprint_test [^"]*)"', line)
    if m:
        table_lines.setdefault(m.group(1).encode().decode("unicode_escape"), n)

me = os.getpid()
comm = open("/proc/self/comm").read().strip()
dump = {r["seq"]: r for r in genl.dump(seqs[0] if seqs else None)}
for i, (rec, exp) in enumerate(zip(records, EXPECTED)):
    level, klass, fmt, args = exp
    tag = f"entry {i} ({fmt.strip()!r})"
    try:
        validator.validate(rec)
        check(f"{tag}: matches schema/record.schema.json", True)
    except jsonschema.ValidationError as e:
        check(f"{tag}: matches schema/record.schema.json", False, e.message)
    check(f"{tag}: level {level}", rec["level"] == level and LEVELS[rec["level_num"]] == level,
          (rec["level"], rec["level_num"]))
    check(f"{tag}: class {klass}", rec["class"] == klass, rec["class"])
    check(f"{tag}: format", rec["format"] == fmt, repr(rec["format"]))
    check(f"{tag}: format id is FNV-1a of the format",
          rec["format_id"] == "%016x" % kpnl.fnv1a64(fmt.encode()), rec["format_id"])
    if i in PATTERNS:
        ok = len(rec["args"]) == len(PATTERNS[i]) and all(
            re.fullmatch(p, a) for p, a in zip(PATTERNS[i], rec["args"]))
        check(f"{tag}: args look right", ok, rec["args"])
    elif i == 38:
        check(f"{tag}: the long arg is cut to 255 bytes", rec["args"] == [LONG_ARG[:255]])
        check(f"{tag}: the text keeps all of it", rec["text"] == f"kprint_test long arg {LONG_ARG}")
    else:
        check(f"{tag}: args {args}", rec["args"] == args, rec["args"])
    check(f"{tag}: flags", rec["flags"] == (1 if i == 38 else 0), rec["flags"])
    check(f"{tag}: text is the format with its args", rec["text"] == rebuild(fmt, rec["args"]).rstrip("\n")
          or i == 38, repr(rec["text"]))
    check(f"{tag}: text is what printk printed", refs.get(i) == rec["text"],
          f"printk: {refs.get(i)!r}, kprint: {rec['text']!r}")
    check(f"{tag}: subsystem and module", (rec["subsystem"], rec["module"]) ==
          ("kprint-test", "kprint_test"), (rec["subsystem"], rec["module"]))
    if i == 36:
        where = ("kernel/test/kprint_test.c", "kprint_test_pv")
        check(f"{tag}: location", (rec["file"], rec["function"]) == where and rec["line"] > 0,
              (rec["file"], rec["line"], rec["function"]))
    else:
        where = (TABLE, table_lines.get(fmt), "kprint_test_emit_one")
        check(f"{tag}: location", (rec["file"], rec["line"], rec["function"]) == where,
              (rec["file"], rec["line"], rec["function"]))
    check(f"{tag}: made by this process", (rec["pid"], rec["comm"]) == (me, comm),
          (rec["pid"], rec["comm"]))
    check(f"{tag}: cpu is online", 0 <= rec["cpu"] < os.cpu_count(), rec["cpu"])
    check(f"{tag}: monotonic clock within the emit",
          t0_mono <= rec["ts_mono_ns"] <= t1_mono, rec["ts_mono_ns"])
    check(f"{tag}: wall clock within the emit", t0_real <= rec["ts_real_ns"] <= t1_real,
          rec["ts_real_ns"])
    check(f"{tag}: not in a block", rec["block_id"] == 0)
    d = dump.get(rec["seq"], {})
    same = (d.get("text"), d.get("args"), d.get("format"), d.get("line")) == \
        (rec["text"], rec["args"], rec["format"], rec["line"])
    check(f"{tag}: the ring dump (raw netlink) has the same record", same)
finish()
