#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Emit requests are strictly validated: every malformed one is refused with
an errno and an extack message that says what is wrong, nothing is stored,
and a good one is stored as sent."""
import errno
import struct
import subprocess
import sys

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import check, finish  # noqa: E402
from kpnl import K, nla, nla_nest, nla_str, nla_u32, nla_u64  # noqa: E402




g = kpnl.Genl()
R = lambda name: K["KPRINT_RECORD_A_" + name]  # noqa: E731
level = nla_u32(R("LEVEL"), 3)
fmt = nla_str(R("FORMAT"), "validation %s")
arg = nla_str(R("ARG"), "x")


def refused(what, payload, want_errno, want_msg, **kw):
    before = g.stats()["records"]
    try:
        g.kprint("KPRINT_CMD_EMIT", payload, **kw)
        check(f"{what}: refused", False, "the kernel accepted it")
        return
    except kpnl.NetlinkError as e:
        check(f"{what}: refused with {errno.errorcode[want_errno]}", e.errno == want_errno,
              f"got {errno.errorcode.get(e.errno, e.errno)} '{e.msg}'")
        check(f"{what}: extack says '{want_msg or 'why'}'",
              e.msg and want_msg.lower() in e.msg.lower(), f"got '{e.msg}'")
    check(f"{what}: nothing stored", g.stats()["records"] == before)


rec = lambda *a: nla_nest(K["KPRINT_A_RECORD"], *a)  # noqa: E731
refused("no record nest", b"", errno.EINVAL, "")
refused("missing format", rec(level, arg), errno.EINVAL, "format")
refused("missing level", rec(fmt, arg), errno.EINVAL, "level")
refused("level out of range", rec(nla_u32(R("LEVEL"), 8), fmt, arg), errno.ERANGE, "range")
refused("class out of range", rec(level, nla_u32(R("CLASS"), 5), fmt, arg), errno.ERANGE, "range")
refused("level of the wrong size", rec(nla(R("LEVEL"), b"\x03"), fmt, arg), errno.EINVAL, "length")
refused("format too long", rec(level, nla_str(R("FORMAT"), "%s" + "y" * 300), arg),
        errno.EINVAL, "")
refused("format without its NUL", rec(level, nla(R("FORMAT"), b"validation %s"), arg),
        errno.EINVAL, "")
refused("arg too long", rec(level, fmt, nla_str(R("ARG"), "z" * 300)), errno.EINVAL, "")
refused("more args than conversions", rec(level, fmt, arg, arg), errno.EINVAL, "arg")
refused("fewer args than conversions", rec(level, fmt), errno.EINVAL, "arg")
refused("too many args", rec(level, nla_str(R("FORMAT"), "%s" * 17), *[arg] * 17),
        errno.EINVAL, "arg")
refused("star width", rec(level, nla_str(R("FORMAT"), "%*d"), arg, arg), errno.EINVAL, "")
refused("a kernel-owned attribute (seq)", rec(level, fmt, arg, nla_u64(R("SEQ"), 5)),
        errno.EINVAL, "")
refused("a kernel-owned attribute (text)", rec(level, fmt, arg, nla_str(R("TEXT"), "t")),
        errno.EINVAL, "")
refused("an unknown record attribute", rec(level, fmt, arg, nla_u32(99, 1)), errno.EINVAL, "")
refused("an unknown top-level attribute", rec(level, fmt, arg) + nla_u32(99, 1), errno.EINVAL, "")
refused("record attributes outside the nest", level + fmt + arg, errno.EINVAL, "")
refused("trailing junk after the attributes", rec(level, fmt, arg) + b"\x01\x02", errno.EINVAL, "")
refused("a non-zero reserved header field", rec(level, fmt, arg), errno.EINVAL, "", reserved=1)

before = g.stats()
seq = g.emit(4, "validated %s at %u%%", ["input", "7"], klass=1, subsystem="val-test")
check("a valid emit returns the next sequence number", seq == before["next_seq"])
r = [x for x in g.dump(seq) if x["seq"] == seq]
check("the emitted record is in the ring", len(r) == 1)
if r:
    r = r[0]
    check("its text substitutes the args", r["text"] == "validated input at 7%", r["text"])
    check("its args are kept apart", r["args"] == ["input", "7"], r["args"])
    check("its level, class and subsystem are as sent",
          (r["level"], r["class"], r["subsystem"]) == (4, 1, "val-test"), r)
    check("it is flagged as injected from userspace",
          r["flags"] & K["KPRINT_RECORD_F_USER"] != 0, r["flags"])
    check("its format id is the FNV-1a of the format",
          r["format_id"] == kpnl.fnv1a64(b"validated %s at %u%%"), hex(r["format_id"]))

out = subprocess.run(["kprint", "emit", "--level", "err", "two %d %d", "1"],
                     capture_output=True, text=True)
check("the CLI fails on a refused emit", out.returncode != 0)
check("the CLI prints the kernel's extack message", "arg" in out.stderr.lower(), out.stderr.strip())
finish()
