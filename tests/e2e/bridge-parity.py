#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""The printk bridge against /dev/kmsg over stock Debian modules that log.

A workload loads, uses and unloads real modules between two markers written
to /dev/kmsg: brd with ext4 on it, loop on a file there with ext4 again,
scsi_debug with two hosts, device-mapper zero and linear, null_blk, zram,
bonding, bridge and tun, and sysrq's pr_cont() lines (help, show-memory).
Then every /dev/kmsg line between the markers has exactly one kprint record
(pr_cont() fragments joined to the record before where they continue its
line, as printk's ring joins them), with the same text, level, facility,
SUBSYSTEM and DEVICE, in /dev/kmsg's order; and the module each record names
is one whose own file holds its format: the .rodata of the module's .ko
(found through modules.dep), or for vmlinux the kernel's rodata as
/proc/kcore shows it.  Where only one of them holds the format, that one is
named.  The function named is a symbol of that module (the .ko's symbol
table, /proc/kallsyms), and in a module one whose code refers to the format
(the .ko's relocations).  brd's exit function ends in a tail call to printk
(checked with objdump): its "brd: module unloaded" names brd, and no
function.  The BPF printk counter has a series for every record's format
id, module, subsystem and level.

The workload runs KPRINT_PARITY_RUNS times in a row (3, 10 in make soak):
printk's order between CPUs is raced, so a single run proves little.
"""
import json
import lzma
import os
import re
import struct
import subprocess
import sys
import time

sys.path.insert(0, "tests/lib")
from lib import between, check, finish, kmsg_records, kmsg_write, printk_lines, sized  # noqa: E402

RUNS = int(os.environ.get("KPRINT_PARITY_RUNS", sized(3, 10)))
MARK = "kprint bridge-parity:"
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
FORMAT_MAX = 256		# KPRINT_FORMAT_MAX: a longer format is cut
WORK = "/tmp/bridge-parity"
KVER = os.uname().release
MODDIR = f"/lib/modules/{KVER}"

# The workload: load, use, unload.  Each step waits for what it started
# (scsi_debug's scan runs in a kthread), so that its lines are in before
# the end marker; set -e: a step that fails fails the run.
WORKLOAD = r"""
W=$1
L=
# Whatever fails, nothing is left held: the suite must unload it all.
undo() {
	ip link del kptap0; ip link del kpbr0; ip link del kpbond0
	[ -e /sys/block/zram0 ] && echo 1 >/sys/block/zram0/reset
	dmsetup remove --noudevsync kplin; dmsetup remove --noudevsync kpzero
	umount $W/b; [ -n "$L" ] && losetup -d $L; umount $W/a
} 2>/dev/null
trap 'st=$?; [ $st = 0 ] || undo; exit $st' EXIT
PS4='+ $EPOCHREALTIME '
set -ex
shopt -s nullglob
mkdir -p $W/a $W/b
modprobe brd rd_nr=1 rd_size=16384
mkfs.ext4 -q -F /dev/ram0
mount -t ext4 /dev/ram0 $W/a
dd if=/dev/zero of=$W/a/img bs=1M count=8 status=none
modprobe loop
L=$(losetup -f --show $W/a/img)
mkfs.ext4 -q -F $L
mount -t ext4 $L $W/b
umount $W/b
# No udev in the guest: sd_mod is not loaded for the disks by itself.
modprobe sd_mod
modprobe scsi_debug add_host=2 dev_size_mb=4
end=$((SECONDS + 60))
until disks=(/sys/class/scsi_disk/*); [ ${#disks[@]} -ge 2 ]; do
	[ $SECONDS -lt $end ] || { echo "scsi_debug's disks: ${disks[*]}" >&2; exit 1; }
	sleep 0.1
done
modprobe dm_zero
dmsetup create --noudevsync kpzero --table "0 8192 zero"
dmsetup create --noudevsync kplin --table "0 8192 linear $L 0"
modprobe null_blk nr_devices=1
modprobe zram num_devices=1
echo 4M >/sys/block/zram0/disksize
modprobe bonding max_bonds=0
ip link add kpbond0 type bond
ip link set kpbond0 up
modprobe bridge
modprobe tun
ip link add kpbr0 type bridge
ip tuntap add dev kptap0 mode tap
ip link set kptap0 master kpbr0
ip link set kptap0 up
ip link set kpbr0 up
echo h >/proc/sysrq-trigger
echo m >/proc/sysrq-trigger
cut -d' ' -f1 /proc/modules >$W/modules
ip link del kptap0
ip link del kpbr0
ip link del kpbond0
rmmod tun bridge stp llc bonding
echo 1 >/sys/block/zram0/reset
rmmod zram null_blk
dmsetup remove --noudevsync kplin
dmsetup remove --noudevsync kpzero
rmmod dm_zero
rmmod scsi_debug
losetup -d $L
L=
umount $W/a
rmmod loop brd
"""


# Independent oracles: what the modules' files and the running kernel hold.

def module_paths():
    paths = {}
    for line in open(f"{MODDIR}/modules.dep"):
        rel = line.split(":", 1)[0]
        name = re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", os.path.basename(rel)).replace("-", "_")
        paths[name] = f"{MODDIR}/{rel}"
    return paths


MODPATHS = module_paths()
_ko = {}


def elf_sections(elf):
    """An ELF file's sections: (name, type, flags, link, info, data), by index."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
    secs = [struct.unpack_from("<IIQQQQII", elf, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]
    return [(elf[names + name:elf.index(b"\0", names + name)], stype, flags, link, info,
             elf[off:off + size]) for name, stype, flags, _, off, size, link, info in secs]


def elf_rodata(elf):
    """The .rodata sections of an ELF file (a .ko), one after the other."""
    return b"\0".join(sec[5] for sec in elf_sections(elf)
                      if sec[1] == 1 and re.match(rb"(\.init)?\.rodata", sec[0]))


def unprefixed(b):
    return re.sub(rb"^(?:\x01[0-7cd])+", b"", b)


def elf_referrers(elf):
    """Which functions of a relocatable ELF file (a .ko) refer to each string
    of its rodata: {string without KERN_ prefix: {function}}, from the
    relocations of its code (a string the linker shares the tail of is
    found at its own offset)."""
    secs = elf_sections(elf)
    symtab = next((sec for sec in secs if sec[1] == 2), None)	# SHT_SYMTAB
    if not symtab:
        return {}
    strtab = secs[symtab[3]][5]
    syms = [struct.unpack_from("<IBBHQQ", symtab[5], i) for i in range(0, len(symtab[5]), 24)]
    funcs = {}						# text section -> [(start, end, name)]
    for name, info, _, shndx, value, size in syms:
        if info & 0xf == 2 and name:			# STT_FUNC
            funcs.setdefault(shndx, []).append(
                (value, value + size, strtab[name:strtab.index(b"\0", name)].decode()))
    out = {}
    for _, stype, _, _, target, data in secs:
        # SHT_RELA of an executable section (SHF_EXECINSTR).
        if stype != 4 or not secs[target][2] & 4 or target not in funcs:
            continue
        for i in range(0, len(data), 24):
            offset, rinfo, addend = struct.unpack_from("<QQq", data, i)
            _, _, _, shndx, value, _ = syms[rinfo >> 32]
            if rinfo & 0xffffffff in (2, 4):			# PC32, PLT32: from the next insn
                addend += 4
            if not 0 < shndx < len(secs) or not secs[shndx][0].startswith(b".rodata"):
                continue
            sdata, at = secs[shndx][5], value + addend
            if not 0 <= at < len(sdata):
                continue
            string = unprefixed(sdata[at:sdata.find(b"\0", at)])
            for lo, hi, fn in funcs[target]:
                if lo <= offset < hi:
                    out.setdefault(string, set()).add(fn)
    return out


def elf_symbols(elf):
    """The names of the symbols an ELF file (a .ko) defines."""
    secs = elf_sections(elf)
    out = set()
    for _, stype, _, link, _, data in secs:
        if stype != 2:					# SHT_SYMTAB
            continue
        strtab = secs[link][5]
        for i in range(0, len(data), 24):
            name, _, _, shndx = struct.unpack_from("<IBBH", data, i)
            if shndx and name:
                out.add(strtab[name:strtab.index(b"\0", name)].decode())
    return out


def ko_file(name):
    path = MODPATHS.get(name)
    data = open(path, "rb").read() if path else b""
    return lzma.decompress(data) if path and path.endswith(".xz") else data


def ko_strings(name):
    """The strings of a module's .rodata, from its .ko file."""
    if name not in _ko:
        elf = ko_file(name)
        _ko[name] = Strings(elf_rodata(elf) if elf else b"")
    return _ko[name]


_syms = {}
_refs = {}


def ko_referrers(name, fmt):
    """The functions of a module's .ko whose code refers to the format."""
    if name not in _refs:
        _refs[name] = elf_referrers(ko_file(name))
    b = fmt.encode("utf-8", "surrogateescape")
    return _refs[name].get(b + b"\n", set()) | _refs[name].get(b, set())


def ko_symbols(name):
    """The symbols of a module's .ko (the file, not the kernel)."""
    if name not in _syms:
        _syms[name] = elf_symbols(ko_file(name))
    return _syms[name]


def kallsyms():
    syms, addr = set(), {}
    for line in open("/proc/kallsyms"):
        parts = line.split()
        if len(parts) == 3:			# vmlinux: no [module]
            syms.add(parts[2])
            if parts[2] in ("__start_rodata", "__end_rodata"):
                addr[parts[2]] = int(parts[0], 16)
    return syms, addr


def kcore_read(start, end):
    """Bytes [start, end) of the kernel's memory, from /proc/kcore's ELF."""
    with open("/proc/kcore", "rb") as f:
        hdr = f.read(64)
        phoff, = struct.unpack_from("<Q", hdr, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", hdr, 0x36)
        f.seek(phoff)
        phdrs = f.read(phentsize * phnum)
        for i in range(phnum):
            ptype, _, off, vaddr, _, filesz, _, _ = struct.unpack_from(
                "<IIQQQQQQ", phdrs, i * phentsize)
            if ptype == 1 and vaddr <= start and end <= vaddr + filesz:
                f.seek(off + start - vaddr)
                return f.read(end - start)
    return b""


class Strings:
    """The NUL-terminated strings of a file or of memory, their KERN_
    prefixes taken off as the bridge takes them off a format."""

    def __init__(self, data):
        self.data = data
        self.set = {unprefixed(t) if t[:1] == b"\x01" else t for t in data.split(b"\0")}

    def holds(self, fmt, scan=False):
        """Does it hold the format (one newline taken off by the bridge)?  A
        string the linker folded into the tail of another is found only by
        a scan; a format the record cut, only as a prefix."""
        b = fmt.encode("utf-8", "surrogateescape")
        if len(b) >= FORMAT_MAX - 1:
            return scan and b in self.data
        return b + b"\n" in self.set or b in self.set or \
            (scan and (b + b"\n\0" in self.data or b + b"\0" in self.data))


def function_name(fn):
    return fn.split("+", 1)[0]


os.makedirs(WORK, exist_ok=True)
t0 = time.monotonic()
vm_syms, vm_addr = kallsyms()
t_syms = time.monotonic()
rodata = b""
if len(vm_addr) == 2:
    rodata = kcore_read(vm_addr["__start_rodata"], vm_addr["__end_rodata"])
check("the kernel's rodata read from /proc/kcore", len(rodata) > 1 << 20, len(rodata))
t_kcore = time.monotonic()
vmlinux = Strings(rodata)
t_strings = time.monotonic()
with open(f"{WORK}/brd.ko", "wb") as f:
    f.write(ko_file("brd"))
check("brd's exit function ends in a tail call to _printk (objdump of brd.ko)",
      re.search(r"jmp\s.*\n\s*\S+: R_X86_64_PLT32\s+_printk-0x4\s*$",
                subprocess.run(["objdump", "-dr", "-j", ".exit.text", f"{WORK}/brd.ko"],
                               capture_output=True, text=True).stdout) is not None)
print(f"# bridge-parity: {len(rodata)} bytes of rodata; oracles ready in "
      f"{time.monotonic() - t0:.1f} s (kallsyms {t_syms - t0:.1f} s, "
      f"kcore {t_kcore - t_syms:.1f} s, strings {t_strings - t_kcore:.1f} s)")

for m in ("brd", "loop", "scsi_debug", "null_blk", "zram", "bonding", "bridge", "tun", "dm_zero"):
    if os.path.isdir(f"/sys/module/{m}/sections"):
        check(f"{m} is not loaded before the test", False)
        finish()

# The BPF printk counter, whose series count each message under the key the
# bridge hands over with it: module and all, as the record has them.
check("kprint formats loads the BPF counters",
      subprocess.run(["kprint", "formats"], capture_output=True).returncode == 0)
keys = set()
order_bad = 0
for run in range(RUNS):
    t1 = time.monotonic()
    first = json.loads(subprocess.run(["kprint", "stats", "--json"], check=True,
                                      capture_output=True, text=True).stdout)["next_seq"]
    kmsg_write(f"{MARK} begin {run}")
    wl = subprocess.run(["bash", "-c", WORKLOAD, "workload", WORK], capture_output=True, text=True)
    kmsg_write(f"{MARK} end {run}")
    if not check(f"run {run}: the workload ran", wl.returncode == 0,
               [ln for ln in wl.stderr.splitlines() if not ln.startswith("+")][-5:]):
        break
    t2 = time.monotonic()
    steps = [(float(m[1]), m[2]) for m in re.finditer(r"^\++ (\d+\.\d+) (.*)$", wl.stderr, re.M)]
    slow = sorted(((b[0] - a[0], a[1][:40]) for a, b in zip(steps, steps[1:])), reverse=True)
    print(f"# run {run}: slowest steps {[(round(t, 1), c) for t, c in slow[:6]]}")
    dump = subprocess.run(["kprint", "dump", "--json", "--from", str(first)], capture_output=True,
                          text=True)
    out = [json.loads(line) for line in dump.stdout.splitlines()]
    check(f"run {run}: kprint dump lost nothing", dump.returncode == 0 and
          not [o for o in out if "lost" in o], [o for o in out if "lost" in o][:3])
    begin, end = f"{MARK} begin {run}", f"{MARK} end {run}"
    recs, rec_end = between([o for o in out if o.get("source") == "printk"], begin, end,
                            lambda r: r["text"])
    kms, km_end = between(kmsg_records(), begin, end, lambda k: k["text"])
    check(f"run {run}: both markers bridged and in /dev/kmsg", rec_end and km_end)
    lines = printk_lines(recs)
    conts = sum(len(ln["recs"]) - 1 for ln in lines)
    loaded = set(open(f"{WORK}/modules").read().split())
    print(f"# run {run}: {len(kms)} /dev/kmsg lines, {len(recs)} records ({conts} joined "
          f"fragments), workload {t2 - t1:.1f} s; modules: "
          f"{sorted(set(r['module'] for r in recs))}")
    check(f"run {run}: the workload logged (over 50 lines, pr_cont fragments among them)",
          len(kms) > 50 and conts > 0, (len(kms), conts))

    # One record (line) per /dev/kmsg line: by text, then in order.
    want = sorted(k["text"] for k in kms)
    got = sorted(ln["text"] for ln in lines)
    check(f"run {run}: each /dev/kmsg line is exactly one bridged line", want == got,
          ([t for t in want if t not in got][:3], [t for t in got if t not in want][:3]))
    ordered = [ln["text"] for ln in lines] == [k["text"] for k in kms]
    if not ordered:
        order_bad += 1
        i = next((i for i, (a, b) in enumerate(zip(lines, kms)) if a["text"] != b["text"]),
                 min(len(lines), len(kms)) - 1)
        print(f"# run {run}: first out of order at {i}: record seq {lines[i]['recs'][0]['seq']} "
              f"{lines[i]['text'][:60]!r}, /dev/kmsg seq {kms[i]['seq']} "
              f"{kms[i]['text'][:60]!r}")
    check(f"run {run}: in /dev/kmsg's order", ordered)

    # Fields, line by line (paired by text where the order differs).
    pending = {}
    for ln in lines:
        pending.setdefault(ln["text"], []).append(ln)
    bad = []
    for k in kms:
        ln = pending.get(k["text"], [None]).pop(0) if pending.get(k["text"]) else None
        if ln is None:
            continue
        fields = {(r["level"], r["facility"], r["subsystem"], r["device"]) for r in ln["recs"]}
        if fields != {(LEVELS[k["level"]], k["facility"], k.get("SUBSYSTEM", ""),
                       k.get("DEVICE", ""))}:
            bad.append((k["text"][:50], fields, k))
    check(f"run {run}: level, facility, SUBSYSTEM and DEVICE as /dev/kmsg has them", not bad,
          bad[:3])

    # The module: one whose file holds the format; the only one if so.
    wrong, fn_wrong, unique, empty_fn, referred = [], [], 0, [], 0
    strings = {m: ko_strings(m) for m in loaded}
    strings["vmlinux"] = vmlinux
    for r in recs:
        # Exact for the module named; the others only by their strings.
        holders = {m for m, st in strings.items() if st.holds(r["format"])}
        unique += len(holders) == 1
        named = vmlinux if r["module"] == "vmlinux" else ko_strings(r["module"])
        if named.holds(r["format"], scan=True):
            holders.add(r["module"])
        if r["module"] not in holders:
            wrong.append((r["text"][:50], r["format"][:40], r["module"], sorted(holders)[:5]))
        fn = function_name(r["function"])
        if not fn:
            empty_fn.append((r["module"], r["text"][:40]))
        elif fn not in (vm_syms if r["module"] == "vmlinux" else ko_symbols(r["module"])):
            fn_wrong.append((r["text"][:50], r["module"], r["function"]))
        elif r["module"] != "vmlinux":
            # The function whose code refers to the format printed it.
            refs = ko_referrers(r["module"], r["format"])
            referred += bool(refs)
            if refs and fn not in refs:
                fn_wrong.append((r["text"][:50], r["module"], r["function"], sorted(refs)))
    print(f"# run {run}: {unique} of {len(recs)} formats held by one module only; "
          f"{referred} functions of modules checked against the code referring to the format; "
          f"no function: {empty_fn}")
    check(f"run {run}: each record names a module whose file holds its format", not wrong,
          wrong[:4])
    check(f"run {run}: and a function of that module, one whose code refers to the format",
          not fn_wrong, fn_wrong[:4])
    check(f"run {run}: most module records' functions checked against the code",
          referred * 2 > sum(r["module"] != "vmlinux" for r in recs),
          (referred, sum(r["module"] != "vmlinux" for r in recs)))
    check(f"run {run}: most formats decide their module (held by one only)",
          unique * 2 > len(recs), (unique, len(recs)))
    brd = [r for r in recs if r["text"] == "brd: module unloaded"]
    check(f"run {run}: \"brd: module unloaded\" (a tail call) names brd and no function",
          [(r["module"], r["function"]) for r in brd] == [("brd", "")],
          [(r["module"], r["function"]) for r in brd])
    loop = [r for r in recs if r["text"] == "loop: module loaded"]
    check(f"run {run}: \"loop: module loaded\" names loop, loop_init()",
          len(loop) == 1 and loop[0]["module"] == "loop" and
          function_name(loop[0]["function"]) == "loop_init",
          [(r["module"], r["function"]) for r in loop])
    keys |= {(r["format_id"], r["module"], r["subsystem"], r["level"]) for r in recs}
    print(f"# run {run}: {time.monotonic() - t1:.1f} s")

formats = [json.loads(ln) for ln in subprocess.run(
    ["kprint", "formats", "--json", "--top", "0", "--source", "printk"],
    capture_output=True, text=True).stdout.splitlines()]
series = {(f["format_id"], f["module"], f["subsystem"], f["level"]) for f in formats
          if "format_id" in f}
check("every bridged record's format id, module, subsystem and level is a BPF counter series",
      keys and keys <= series, sorted(keys - series)[:4])
check(f"\"brd: module unloaded\" counted {RUNS} times by the BPF counter, under module brd",
      [(f["module"], f["count"]) for f in formats if f.get("format") == "brd: module unloaded"] ==
      [("brd", RUNS)], [f for f in formats if f.get("format") == "brd: module unloaded"])

print(f"# bridge-parity: {RUNS} runs, {order_bad} out of /dev/kmsg's order, "
      f"{time.monotonic() - t0:.1f} s")
finish()
