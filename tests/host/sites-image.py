#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel image part of the call-site catalog (kpc_sites_image.c), on
the installed images of every test kernel (tests/vm/kernels all), through
tests/unit/test_kpc_sites_image IMAGE [KALLSYMS].

The test reads each image itself: it unpacks the bzImage's payload with
Python's lzma or the zstd tool, finds the sections by the ELF section
headers, the printing functions by __ksymtab, and the formats' call sites
by their bytes.  It then checks that the catalog holds, with the
format_id computed here (FNV-1a 64, tests/lib/kpnl.py) and the right kind
and level: the oops header "BUG: kernel NULL pointer dereference,
address: %px" (pr_alert), the register dump's bare _printk() format, the
dev_*() format of a built-in driver (the firmware loader), every dev_*()
format found here whose string exists only as the tail of a longer one
(the linker's merging), and the KERN_SOH formats that start inside
another string.  It prints the count per kind (each must be non-empty)
and the seconds the scan took (under 10).  On the default kernel, a
kallsyms file written here with a KASLR offset gives the function of the
oops header's call site, and that format is then one entry, not two; one
with its addresses hidden (not root) gives none.  The vmlinux itself
reads as its bzImage does; a file that is neither is refused.
"""
import json
import lzma
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kpnl import fnv1a64  # noqa: E402
from kpxtest import Tap  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.join(REPO, ".output/exporter/tests/test_kpc_sites_image")
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
DEV_LEVEL = {"_dev_" + lv: lv for lv in LEVELS}
DEV_LEVEL["_dev_warn"] = "warn"
WINDOW = 256
MAX_SECONDS = 10

t = Tap()


def payload_elf(path):
    """The bzImage's payload (boot protocol header at 0x1f1), uncompressed."""
    bz = open(path, "rb").read()
    setup = (bz[0x1f1] or 4) + 1
    off, length = struct.unpack_from("<II", bz, 0x248)
    data = bz[setup * 512 + off:setup * 512 + off + length]
    if data.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMADecompressor().decompress(data)
    # zstd: the kernel appends the uncompressed size, which zstd refuses.
    return subprocess.run(["zstd", "-dc"], input=data[:-4], stdout=subprocess.PIPE,
                          check=True).stdout


class Elf:
    """The sections of a 64-bit little-endian ELF, by name."""

    def __init__(self, data):
        self.data = data
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
        heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
                 for i in range(shnum)]
        strtab = heads[shstrndx][4]
        self.sec = {}
        for name, _typ, _flags, addr, offset, size in heads:
            n = data[strtab + name:data.index(b"\0", strtab + name)].decode()
            self.sec[n] = (addr, data[offset:offset + size])

    def string(self, name, addr):
        base, body = self.sec[name]
        o = addr - base
        return body[o:body.index(b"\0", o)]

    def exports(self):
        """Exported symbols' addresses: struct kernel_symbol is 3 PREL32s."""
        out = {}
        for tab in ("__ksymtab", "__ksymtab_gpl"):
            base, body = self.sec[tab]
            for i in range(0, len(body) - 11, 12):
                value, name, _ns = struct.unpack_from("<iii", body, i)
                sym = self.string("__ksymtab_strings", base + i + 4 + name).decode()
                out[sym] = base + i + value
        return out


def strip(s):
    level = None
    while len(s) >= 2 and s[0] == 1 and (0x30 <= s[1] <= 0x37 or s[1] == ord("c")):
        if s[1] != ord("c") and level in (None, "cont"):
            level = LEVELS[s[1] - 0x30]
        elif s[1] == ord("c") and level is None:
            level = "cont"
        s = s[2:]
    return (s[:-1] if s.endswith(b"\n") else s), level


def call_sites(elf, printers, modrm):
    """(call address, string address, printer) of each `mov $str,%reg`
    (48 c7 MODRM imm32) followed within WINDOW bytes of its start by a
    call or jmp to a printer, with no other call or jump into .text and no
    other load of the register in between, the string in .rodata."""
    base, text = elf.sec[".text"]
    ro_base, ro = elf.sec[".rodata"]
    out = []
    for m in re.finditer(re.escape(b"\x48\xc7" + bytes([modrm])) + b"(....)", text, re.S):
        addr = struct.unpack("<i", m.group(1))[0] & 0xffffffffffffffff
        if not ro_base <= addr < ro_base + len(ro):
            continue
        for j in range(m.end(), min(m.start() + WINDOW + 1, len(text) - 5)):
            if text[j:j + 3] == m.group(0)[:3]:
                break           # the register loaded again
            if text[j] not in (0xe8, 0xe9):
                continue
            target = base + j + 5 + struct.unpack_from("<i", text, j + 1)[0]
            if target in printers:
                out.append((base + j, addr, printers[target]))
                break
            if base <= target < base + len(text):
                break
    return out


def scan(image, kallsyms=None):
    args = [BIN, image] + ([kallsyms] if kallsyms else [])
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if not t.ok(p.returncode == 0, f"{os.path.basename(image)}: scanned"
                f"{' with kallsyms' if kallsyms else ''}"
                f"{'' if p.returncode == 0 else ': ' + p.stderr.decode(errors='replace')}"):
        return [], None
    secs = float(re.search(rb"seconds ([0-9.]+)", p.stderr).group(1))
    return [json.loads(line) for line in p.stdout.splitlines()], secs


def has(entries, fmt, kind, level):
    want = "%016x" % fnv1a64(fmt)
    return any(e["format_id"] == want and e["kind"] == kind and e["level"] == level
               for e in entries)


def check_known(kver, elf, entries):
    exports = elf.exports()
    ro_base, ro = elf.sec[".rodata"]
    printk = {exports["_printk"]: "_printk"}
    devs = {exports[n]: n for n in DEV_LEVEL if n in exports}

    m = re.search(rb"\x01([0-7])(BUG: kernel NULL pointer dereference, address: %px)\n?\0", ro)
    t.ok(m and has(entries, m.group(2), "printk", LEVELS[int(m.group(1))])
         and LEVELS[int(m.group(1))] == "alert",
         f"{kver}: the oops header {m.group(2) if m else None!r}: printk, alert")

    sites = call_sites(elf, printk, 0xc7)
    bare = [(elf.string(".rodata", a)) for _c, a, _p in sites]
    regs = [s for s in bare if s.startswith(b"%sRAX: ")]
    fmt = strip(regs[0])[0] if regs else None
    t.ok(fmt is not None and has(entries, fmt, "printk_bare", None),
         f"{kver}: the register dump's {fmt!r}, a _printk() call site's: printk_bare, no level")

    dsites = call_sites(elf, devs, 0xc6)
    fw = [(elf.string(".rodata", a), p) for _c, a, p in dsites
          if elf.string(".rodata", a).startswith(b"Direct firmware load for ")]
    t.ok(fw and has(entries, strip(fw[0][0])[0], "dev", DEV_LEVEL[fw[0][1]]),
         f"{kver}: the firmware loader's {fw[0][0] if fw else None!r} "
         f"({fw[0][1] if fw else '?'}): dev, {DEV_LEVEL[fw[0][1]] if fw else '?'}")

    # An entry is (format, module, function, kind): without functions the
    # same format printed at two levels is one entry, of either level.
    levels, merged = {}, set()
    for _c, a, p in dsites:
        s = elf.string(".rodata", a)
        levels.setdefault(strip(s)[0], set()).add(DEV_LEVEL[p])
        whole = [o for o in (mm.start() for mm in re.finditer(re.escape(s + b"\0"), ro))
                 if o == 0 or ro[o - 1] == 0]
        if ro[a - ro_base - 1] != 0 and not whole:
            merged.add(strip(s)[0])
    found = [f for f in merged if any(has(entries, f, "dev", lv) for lv in levels[f])]
    t.ok(merged and len(found) == len(merged),
         f"{kver}: dev_*() formats only stored as another string's tail: "
         f"{len(found)} of {len(merged)} found (e.g. {max(merged, key=len) if merged else None!r})")

    inner = set()
    for mm in re.finditer(rb"(?<=[\x20-\x7e])((?:\x01[0-7c])+)([\x20-\x7e]{4,}?)\n?\0", ro):
        fmt, level = strip(mm.group(1) + mm.group(2))
        inner.add((fmt, level))
    found = [f for f, lv in inner if has(entries, f, "printk", lv)]
    t.ok(len(found) == len(inner),
         f"{kver}: KERN_SOH formats starting inside another string: "
         f"{len(found)} of {len(inner)} found (e.g. {max(inner)[0] if inner else None!r})")
    return sites


def check_kallsyms(kver, image, elf, sites):
    """A kallsyms of our own: _text moved by a KASLR offset, a function
    just before the oops header's call site and one just after it, and a
    module's symbol and a data symbol in between that must not count."""
    text_base = elf.sec[".text"][0]
    slide = 0x1e600000
    oops = [c for c, a, _p in sites
            if b"BUG: kernel NULL pointer dereference" in elf.string(".rodata", a)]
    if not t.ok(oops, f"{kver}: the oops header's call site found here"):
        return
    call = oops[0]
    with tempfile.NamedTemporaryFile("w", prefix="kallsyms.", suffix=".txt") as f:
        for addr, typ, name in ((text_base, "T", "_text"), (text_base, "T", "_stext"),
                                (call - 0x40, "t", "kpc_before_site"),
                                (call - 0x8, "t", "kpc_module_sym\t[kpc_mod]"),
                                (call - 0x4, "d", "kpc_data_sym"),
                                (call + 1, "T", "kpc_after_site")):
            f.write("%016x %s %s\n" % (addr + slide, typ, name))
        f.flush()
        entries, _secs = scan(image, f.name)
    want = "%016x" % fnv1a64(b"BUG: kernel NULL pointer dereference, address: %px")
    hits = [e for e in entries if e["format_id"] == want]
    t.ok([e["function"] for e in hits] == ["kpc_before_site"],
         f"{kver}: with kallsyms the oops header is one entry, of the function at or "
         f"below its call site: {[e['function'] for e in hits]}")
    # Read without CAP_SYSLOG, every address is 0: no functions, no failure.
    with tempfile.NamedTemporaryFile("w", prefix="kallsyms.", suffix=".txt") as f:
        f.write("0000000000000000 T _text\n0000000000000000 t kpc_before_site\n")
        f.flush()
        entries, _secs = scan(image, f.name)
    hits = [e for e in entries if e["format_id"] == want]
    t.ok([e["function"] for e in hits] == [None],
         f"{kver}: a kallsyms with its addresses hidden gives no functions: "
         f"{[e['function'] for e in hits]}")


def check_other_files(kver, elf, entries):
    """A vmlinux given as it is gives what its bzImage gives; a file that is
    neither is refused, by name."""
    with tempfile.NamedTemporaryFile(prefix="vmlinux.") as f:
        f.write(elf.data)
        f.flush()
        plain, _secs = scan(f.name)
    t.ok(plain == entries, f"{kver}: the unpacked vmlinux itself gives the same "
         f"{len(plain)} entries")
    with tempfile.NamedTemporaryFile(prefix="notakernel.") as f:
        f.write(b"MZ" + bytes(4096))
        f.flush()
        p = subprocess.run([BIN, f.name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, check=False)
        t.ok(p.returncode == 1 and f.name + ": neither a bzImage nor an ELF" in p.stderr,
             f"a file that is no kernel is refused: {p.stderr.strip()}")


def main():
    subprocess.run(["make", "-s", "-C", os.path.join(REPO, "exporter"), BIN], check=True)
    kernels = subprocess.run([os.path.join(REPO, "tests/vm/kernels"), "all"],
                             stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    for kver in kernels:
        image = f"/boot/vmlinuz-{kver}"
        entries, secs = scan(image)
        if not entries:
            continue
        kinds = {k: sum(e["kind"] == k for e in entries)
                 for k in ("printk", "printk_bare", "dev", "netdev")}
        print(f"# {kver}: {len(entries)} entries in {secs:.2f} s: "
              + ", ".join(f"{k} {n}" for k, n in kinds.items()))
        t.ok(all(kinds.values()), f"{kver}: every kind has entries: {kinds}")
        t.ok(secs < MAX_SECONDS, f"{kver}: the image scanned in {secs:.2f} s (< {MAX_SECONDS})")
        bad = [e for e in entries
               if e["format_id"] != "%016x" % fnv1a64(e["format"].encode("utf-8", "surrogateescape"))]
        t.ok(not bad, f"{kver}: every format_id is the FNV-1a 64 of its format ({len(bad)} not)")
        t.ok(all(e["module"] == "vmlinux" and e["source"] == "image" and e["function"] is None
                 for e in entries), f"{kver}: module vmlinux, source image, no function")
        elf = Elf(payload_elf(image))
        sites = check_known(kver, elf, entries)
        if kver == kernels[0]:
            check_kallsyms(kver, image, elf, sites)
            check_other_files(kver, elf, entries)
    t.done()


main()
