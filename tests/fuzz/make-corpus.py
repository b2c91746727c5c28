#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpora of tests/fuzz/ (committed; run again after a UAPI change).

tests/fuzz/make-corpus.py [DIR]   (DIR defaults to tests/fuzz/corpus)

Seeds are what the harnesses meet in real use, so the fuzzer starts from
the interesting paths instead of having to guess netlink framing:
 - fuzz_record_decode: records as kprint.ko builds them (the test table's
   and the demo's formats, every attribute, u64s after a PAD), batched
   and in whole datagrams, plus each malformation the decoder rejects.
   Attribute numbers are read from include/uapi/linux/kprint.h.
 - fuzz_query: the /records queries of tests/e2e/exporter.sh, as
   libmicrohttpd hands them over (unescaped), good and bad.
 - fuzz_escape: strings with what the escapers must handle: \\, ", newline,
   controls, C1, valid and ill-formed UTF-8.
 - fuzz_catalog: PO files (comments, escapes, continued strings, positional,
   fuzzy, msgctxt, plurals, a mismatch of each kind) and msgid/msgstr pairs.
 - fuzz_webconfig: web configs as tests/host/exporter-web.py writes them.
"""
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
UAPI = os.path.join(HERE, "..", "..", "include", "uapi", "linux", "kprint.h")
NLA_F_NESTED = 1 << 15


def uapi_enums():
    """name -> value for the enums and #defines of the UAPI header."""
    text = open(UAPI).read()
    vals = {}
    for m in re.finditer(r"#define\s+(KPRINT_\w+)\s+(\d+)\b", text):
        vals[m.group(1)] = int(m.group(2))
    for body in re.findall(r"enum \w+ \{(.*?)\};", text, re.S):
        n = -1
        for line in body.splitlines():
            m = re.match(r"\s*(\w+)\s*(?:=\s*([^,/]+))?,?", line)
            if not m or not m.group(1).startswith(("KPRINT_", "__KPRINT_")):
                continue
            n = eval(m.group(2), {}, dict(vals)) if m.group(2) else n + 1
            vals[m.group(1)] = n
    return vals


E = uapi_enums()


def R(name):
    return E["KPRINT_RECORD_A_" + name]


def attr(typ, payload):
    hdr = struct.pack("=HH", 4 + len(payload), typ)
    return hdr + payload + b"\0" * (-len(payload) % 4)


def u32(typ, v):
    return attr(R(typ), struct.pack("=I", v))


def u64(typ, v):
    return attr(R(typ), struct.pack("=Q", v))


def string(typ, s):
    if isinstance(s, str):
        s = s.encode()
    return attr(R(typ), s + b"\0")


def fnv1a64(b):
    h = 0xcbf29ce484222325		# KPRINT_FNV1A64_OFFSET
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def record(seq, level, fmt, args=(), text=None, cls=0, subsystem="kprint-test",
           module="kprint_test", comm="insmod", file="kernel/test/kprint_test.c",
           line=42, function="kprint_test_init", block=0, flags=0, pad=True,
           device=None, continues=0):
    """The attributes of one record, in the kernel's order; with a device,
    a record of the printk bridge (source printk, facility, continues)."""
    if isinstance(fmt, str):
        fmt = fmt.encode()
    if text is None:
        text = fmt
    a = attr(R("PAD"), b"") if pad else b""
    a += u64("SEQ", seq) + u32("LEVEL", level) + u32("CLASS", cls)
    a += u64("TS_MONO_NS", 12345678901 + seq) + u64("TS_REAL_NS", 1700000000123456789)
    a += u32("CPU", 1) + u32("PID", 4242) + string("COMM", comm)
    a += string("FILE", file) + u32("LINE", line) + string("FUNCTION", function)
    a += string("SUBSYSTEM", subsystem) + string("MODULE", module)
    a += string("FORMAT", fmt) + u64("FORMAT_ID", fnv1a64(fmt))
    for x in args:
        a += string("ARG", x)
    a += string("TEXT", text) + u64("BLOCK_ID", block) + u32("FLAGS", flags)
    if device is not None:
        a += u32("SOURCE", E["KPRINT_SOURCE_PRINTK"]) + string("DEVICE", device)
        a += u32("FACILITY", 0) + u64("CONTINUES", continues)
    return a


def nest(payload, nested_flag=True):
    typ = E["KPRINT_A_RECORD"] | (NLA_F_NESTED if nested_flag else 0)
    return attr(typ, payload)


def genl_msg(attrs, cmd=None, seq=1):
    """A whole netlink message: nlmsghdr, genlmsghdr, attributes."""
    if cmd is None:
        cmd = E["KPRINT_CMD_RECORD_NTF"]
    body = struct.pack("=BBH", cmd, E["KPRINT_GENL_VERSION"], 0) + attrs
    return struct.pack("=IHHII", 16 + len(body), 0x2a, 0, seq, 0) + body


# Harness flags byte (fuzz_record_decode.c).
ATTRS, DATAGRAM, STOP, INTO, STARVE = 0, 1, 2, 4, 8


def record_seeds():
    s = {}
    test = [
        record(10, 6, "kprint_test ipv4 %pI4", ["10.0.0.1"], "kprint_test ipv4 10.0.0.1"),
        record(11, 3, "kprint_test mac %pM", ["00:01:02:03:04:05"],
               "kprint_test mac 00:01:02:03:04:05", cls=1),
        record(12, 4, "kprint_test flood %u", ["7"], "kprint_test flood 7", block=3),
        record(13, 7, "kprint_test pV <%pV>", ["inner 5"], "kprint_test pV <inner 5>"),
    ]
    demo = [
        record(20, 6, "cheesy flash drive detected at %d", ["0"],
               "cheesy flash drive detected at 0", cls=1, subsystem="usb-storage",
               module="kprint_demo", file="", line=0, function=""),
        record(21, 5, "EXT4-fs (sd%c1): mounted filesystem with %s data mode",
               ["a", "ordered"], "EXT4-fs (sda1): mounted filesystem with ordered data mode",
               subsystem="ext4", module="kprint_demo"),
        record(22, 6, "kprint demo traffic, copyright (c) %d %s", ["2007", "the kprint authors"],
               "kprint demo traffic, copyright (c) 2007 the kprint authors", cls=4,
               subsystem="kprint-demo", module="kprint_demo"),
        record(23, 4, "%s", ["user text\n"], "user text\n", subsystem="", module="user",
               flags=E["KPRINT_RECORD_F_USER"]),
    ]
    bridged = [
        record(40, 3, "link %s", ["down"], "e1000e 0000:00:19.0: link down", subsystem="pci",
               module="e1000e", file="", line=0, function="e1000_watchdog+0x1c/0x2a0",
               device="+pci:0000:00:19.0"),
        record(41, 6, " %d", ["7"], " 7", subsystem="", module="vmlinux", file="", line=0,
               function="show_cpuinfo+0x1/0x2", device="", continues=39,
               flags=E["KPRINT_RECORD_F_CONT"]),
        record(42, 5, "", [], "Linux version 6.1.0", subsystem="", module="", file="",
               line=0, function="", device="", flags=E["KPRINT_RECORD_F_BACKLOG"]),
    ]
    for i, r in enumerate(bridged):
        s[f"bridged-{i}"] = bytes([ATTRS]) + nest(r)
    minimal_ = u64("SEQ", 5) + u32("LEVEL", 4) + string("FORMAT", "f") + string("TEXT", "t")
    s["source-2"] = bytes([ATTRS]) + nest(minimal_ + u32("SOURCE", 2))
    s["device-too-long"] = bytes([ATTRS]) + nest(minimal_ + string("DEVICE", "d" * 48))
    for i, r in enumerate(test):
        s[f"test-table-{i}"] = bytes([ATTRS]) + nest(r)
    for i, r in enumerate(demo):
        s[f"demo-{i}"] = bytes([ATTRS]) + nest(r)
    s["batch-of-4"] = bytes([ATTRS]) + b"".join(nest(r) for r in test)
    s["batch-stop"] = bytes([ATTRS | STOP]) + b"".join(nest(r) for r in demo)
    s["batch-into"] = bytes([ATTRS | INTO]) + b"".join(nest(r) for r in test + demo)
    s["batch-into-starved"] = bytes([DATAGRAM | INTO | STARVE]) + genl_msg(
        b"".join(nest(r) for r in demo + test))
    s["no-nested-flag"] = bytes([ATTRS]) + nest(test[0], nested_flag=False)
    s["datagram-2-msgs"] = bytes([DATAGRAM]) + genl_msg(nest(test[0])) + \
        genl_msg(nest(demo[0]) + nest(demo[1]), seq=2)
    s["datagram-dump-reply"] = bytes([DATAGRAM]) + genl_msg(
        nest(test[1]), cmd=E["KPRINT_CMD_RECORD_GET"])
    s["datagram-short"] = bytes([DATAGRAM]) + struct.pack("=IHHII", 18, 0x2a, 0, 1, 0) + b"\1\1"

    minimal = u64("SEQ", 5) + u32("LEVEL", 4) + string("FORMAT", "f") + string("TEXT", "t")
    s["minimal"] = bytes([ATTRS]) + nest(minimal)
    s["args-16"] = bytes([ATTRS]) + nest(minimal + b"".join(string("ARG", str(i)) for i in range(16)))
    s["args-17"] = bytes([ATTRS]) + nest(minimal + b"".join(string("ARG", str(i)) for i in range(17)))
    s["strings-at-limits"] = bytes([ATTRS]) + nest(
        u64("SEQ", 1) + u32("LEVEL", 0) + string("COMM", "c" * 15) + string("FILE", "f" * 63) +
        string("FORMAT", "F" * 255) + string("ARG", "a" * 255) + string("TEXT", "t" * 1023))
    s["text-too-long"] = bytes([ATTRS]) + nest(
        u64("SEQ", 1) + u32("LEVEL", 0) + string("FORMAT", "f") + string("TEXT", "t" * 1024))
    s["odd-bytes"] = bytes([ATTRS]) + nest(record(
        30, 2, b"a\\b\"c\nd\x1b[31m\xc2\x9b\xff\xfe %s", [b"\xe2\x82", "\u20ac\U0001F600", b"\xed\xa0\x80"],
        b"bad \xc0\x80 text\r\n", subsystem="s\"\\", module="m\n"))
    s["seq-twice"] = bytes([ATTRS]) + nest(minimal + u64("SEQ", 6))
    s["seq-as-u32"] = bytes([ATTRS]) + nest(
        u32("SEQ", 5) + u32("LEVEL", 4) + string("FORMAT", "f") + string("TEXT", "t"))
    s["format-no-nul"] = bytes([ATTRS]) + nest(
        u64("SEQ", 5) + u32("LEVEL", 4) + attr(R("FORMAT"), b"fmt") + string("TEXT", "t"))
    s["text-inner-nul"] = bytes([ATTRS]) + nest(
        u64("SEQ", 5) + u32("LEVEL", 4) + string("FORMAT", "f") + string("TEXT", b"a\0b"))
    s["level-8"] = bytes([ATTRS]) + nest(
        u64("SEQ", 5) + u32("LEVEL", 8) + string("FORMAT", "f") + string("TEXT", "t"))
    s["class-5"] = bytes([ATTRS]) + nest(minimal + u32("CLASS", 5))
    s["unknown-attr"] = bytes([ATTRS]) + nest(minimal + attr(E["__KPRINT_RECORD_A_CNT"], b"\1\2\3\4"))
    s["trailing-junk"] = bytes([ATTRS]) + nest(minimal + b"\1\2")
    s["cut-short"] = bytes([ATTRS]) + nest(test[0])[:-7]
    s["other-top-attrs"] = bytes([ATTRS]) + attr(E["KPRINT_A_START_SEQ"], struct.pack("=Q", 9)) + \
        attr(E["KPRINT_A_PAD"], b"") + nest(minimal)
    return s


def query_seeds():
    good = [
        "", "after=99&limit=1000", "limit=5", "after=100&limit=7", "level=err",
        "level=err+", "level=debug,err+", "class=detected", "class=none,copyright",
        "subsystem=kprint-test", "module=kprint_test", "module=user&level=err",
        "q=ipv", "q=%pI4", "format_id=0123456789abcdef", "format_id=ABCDEF0123456789",
        "level=warning&class=setting&subsystem=usb-storage&module=kprint_demo"
        "&q=cheesy&after=0&limit=1000",
        "source=printk", "source=kprint,printk&module=vmlinux",
        "device=+pci:0000:00:19.0&source=printk", "device=",
    ]
    bad = [
        "bogus=1", "limit=0", "limit=1001", "limit=-1", "limit=99999999999999999999999",
        "limit=", "after=12x", "after=-1", "after= 12", "format_id=xyz",
        "format_id=0123456789abcdef0", "level=loud", "level=", "class=sparkly", "b",
        "limit=5&limit", "level=err\0x", "subsystem=a\0b", "q=" + "x" * 300,
        "subsystem=" + "s" * 64, "module=" + "m" * 64, "level=err&" * 20 + "bogus=1",
        "after=+1", "format_id=+123456789abcdef", "level=err++", "class=detected+",
        "source=all", "source=", "source=printk,", "device=" + "d" * 48,
    ]
    s = {}
    for i, q in enumerate(good):
        s[f"good-{i:02d}"] = q.encode()
    for i, q in enumerate(bad):
        s[f"bad-{i:02d}"] = q.encode()
    return s


def escape_seeds():
    items = [
        b"plain ascii", b"back\\slash", b'quo"te', b"new\nline", b"tab\tcr\r",
        b"\x1b[31mred\x1b[0m", b"del\x7f", b"c1 csi \xc2\x9b31m", b"nbsp \xc2\xa0",
        "euro \u20ac emoji \U0001F600 umlaut \u00e4".encode(),
        b"cut \xe2\x82", b"overlong \xc0\x80 \xe0\x80\x80", b"surrogate \xed\xa0\x80",
        b"past max \xf4\x90\x80\x80", b"lone \x80\xbf\xfe\xff", b"f0 \xf0\x9f\x98",
        b"kprint_test ipv4 %pI4\n", b"\\x41 is not an escape", b"\\\\\\",
    ]
    return {f"seed-{i:02d}": b for i, b in enumerate(items)}


HEADER = b'msgid ""\nmsgstr ""\n"Language: de\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def catalog_seeds():
    """Raw PO files (first byte even) and msgid/msgstr pairs (odd)."""
    raw = [
        HEADER + b'#, c-format\nmsgid "%s: port %d reset by %s"\n'
        b'msgstr "%3$s setzte Port %2$d von %1$s zur\xc3\xbcck"\n',
        HEADER + b'# comment\n#. extracted\n#: usb_storage\n#, fuzzy, c-format\n'
        b'msgid "link %pI4 up\\n"\nmsgstr ""\n"Verbindung %pI4 steht\\n"\n',
        HEADER + b'msgid "tab\\t\\"q\\" \\101\\x42 %*d %.*s %-5lu %%"\n'
        b'msgstr "%2$*1$d %4$.*3$s %5$-5lu %%"\n',
        HEADER + b'msgctxt "menu"\nmsgid "%s"\nmsgstr "%s"\n#~ msgid "old"\n#~ msgstr "alt"\n',
        HEADER + b'msgid "%pI4"\nmsgstr "%pI6"\n',
        HEADER + b'msgid "%*d"\nmsgstr "%d %d"\n',
        HEADER + b'msgid "%s %d"\nmsgstr "%1$s %d"\n',
        HEADER + b'msgid "%d file"\nmsgid_plural "%d files"\nmsgstr[0] "%d Datei"\n',
        b'msgid ""\nmsgstr "Content-Type: text/plain; charset=ISO-8859-1\\n"\n',
        b'msgid "a %s"\r\nmsgstr "b %s"\r\n',
    ]
    pairs = [
        (b"cheesy %s drive detected at %d", b"%2$d: K\xc3\xa4se-%1$s"),
        (b"pad %*d of %s\n", b"%3$s: %2$*1$d\n"),
        (b"%pI4 %pI6c %pM %pUb %pe %pS %pV %ptRd %phN", b"%pI4 %pI6c %pM %pUb %pe %pS %pV %ptRd %phN"),
        (b"two\nlines \"q\" \\ \t\x01", b"zwei\nZeilen %%"),
        (b"%s", b"%2$s"),
        (b"100%% of %s", b"100%% von %s"),
    ]
    s = {}
    for i, po in enumerate(raw):
        s[f"po-{i:02d}"] = b"\0" + po
    for i, (msgid, msgstr) in enumerate(pairs):
        s[f"entry-{i:02d}"] = b"\1" + msgid + b"\0" + msgstr + b"\0"
    return s


def webconfig_seeds():
    """Web configs as tests/host/exporter-web.py writes them; the PEM names
    are those fuzz_webconfig.c serves from memory."""
    h = "$2y$04$" + "a" * 53
    tls = "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"
    items = [
        "",
        tls + "  min_version: TLS12\n",
        tls + "  min_version: TLS10\n  max_version: TLS12\n",
        tls + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.pem\n",
        tls + "  client_auth_type: RequireAnyClientCert\n",
        "basic_auth_users:\n  alice: '%s'\n  bob: '%s'\n" % (h, h),
        tls + "basic_auth_users:\n  alice: '%s'\nhttp_server_config:\n  http2: true\n" % h,
        "tls_server_config:\n  cert_file: [a, b\n  key_file: x\n",
        "basic_auth_users:\n  - alice\n",
        tls + "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
        "tls_server_config: ~\nbasic_auth_users: {}\n---\nx: 1\n",
        "tls_server_config:\n  cert_file: \"cert.pem\"\n  key_file: 'key.pem'\n"
        "  client_auth_type: VerifyClientCertIfGiven\n",
    ]
    return {f"seed-{i:02d}": t.encode() for i, t in enumerate(items)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    for harness, seeds in [("fuzz_record_decode", record_seeds()),
                           ("fuzz_query", query_seeds()),
                           ("fuzz_escape", escape_seeds()),
                           ("fuzz_catalog", catalog_seeds()),
                           ("fuzz_webconfig", webconfig_seeds())]:
        d = os.path.join(out, harness)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"{d}: {len(seeds)} seeds")


if __name__ == "__main__":
    main()
