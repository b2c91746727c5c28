#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run gives it a lane, a core, of its own)
"""The call-site catalog against what a real kernel prints (issue 28).

The catalog of the default kernel is built on the host from its image and
module files (`kprint sites build`).  A guest then boots that kernel with
the printk bridge on: the bridge's load backlog is the boot's messages,
and a workload of stock code paths prints more (block devices, SCSI,
device mapper, network devices, a bridge, a bond, tunnels, virtual Wi-Fi
radios, ext4, sysrq's memory and timer lists), each a bridged record with
its format.

Checked, with the kernel's own bytes as the judge and not our scanner:
- of the distinct formats the bridge recorded with a level fixed at
  compile time, at least 95% are in the catalog with the same format_id.
  A format has such a level when its bytes follow a KERN_SOH and a level
  in the module file or the decompressed image (found here with Python's
  lzma and re, not with libkpc), or when it came through dev_*() or
  netdev_*() (the record's text is its format's rendering with the
  device's names before it);
- of those from dev_*()/netdev_*() in modules, at least 95% as well;
- formats whose level came at run time (a "%s" given a KERN_SOH string)
  or that have none are reported apart, as are the misses, by name;
- of the boot backlog's lines (text only: printk kept no format), the
  share that some catalog format spells (each format made a pattern),
  and which lines none does.
"""
import json
import lzma
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from kpxtest import REPO, Tap, fnv1a64  # noqa: E402
from lib import rebuild  # noqa: E402

KPRINT = os.path.join(REPO, ".output/bin/kprint")
SITES = os.path.join(REPO, ".output/sites")
F_TRUNCATED, F_BACKLOG = 1, 4
# A format spells a line of the backlog only with this much text of its own.
LITERAL = 8
# Lines pieced together from pr_cont() fragments, or printed with a format
# of less text than LITERAL, are spelled by none: the share that must be.
BACKLOG_SPELLED = 0.90
tap = Tap()

# Stock code paths that log, each tolerated to fail (a missing tool is
# not the catalog's fault); the records are what counts.
WORKLOAD = r"""
exec 2>/dev/null
modprobe loop
modprobe brd rd_nr=1 rd_size=8192
modprobe null_blk nr_devices=1 && rmmod null_blk
modprobe zram num_devices=1 && zramctl -s 8M /dev/zram0 && zramctl -r /dev/zram0; rmmod zram
modprobe nbd nbds_max=1 && rmmod nbd
modprobe scsi_debug dev_size_mb=4
for i in $(seq 100); do ls -d /sys/class/scsi_device/*/device >/dev/null && break; sleep 0.1; done
modprobe dm-mod
echo "0 8192 zero" | dmsetup create kpzero && dmsetup remove kpzero
modprobe dummy && ip link add kpd0 type dummy && ip link set kpd0 up &&
	ip link add kpd1 type dummy
modprobe bridge && ip link add kpbr0 type bridge && ip link set kpd0 master kpbr0 &&
	ip link set kpbr0 up && ip link set kpd0 nomaster && ip link del kpbr0
modprobe bonding && ip link add kpbond0 type bond mode active-backup &&
	ip link set kpd1 master kpbond0 && ip link set kpbond0 up && ip link set kpd1 nomaster &&
	ip link del kpbond0
modprobe veth && ip link add kpv0 type veth peer name kpv1 && ip link set kpv0 up &&
	ip link set kpv1 up && ip link del kpv0
modprobe vxlan && ip link add kpvx0 type vxlan id 42 dstport 4789 && ip link del kpvx0
modprobe geneve && ip link add kpgn0 type geneve id 42 remote 192.0.2.1 && ip link del kpgn0
modprobe wireguard && ip link add kpwg0 type wireguard && ip link del kpwg0
modprobe tun && ip tuntap add kptap0 mode tap && ip tuntap del kptap0 mode tap
modprobe vcan && ip link add kpvcan0 type vcan && ip link del kpvcan0
modprobe ifb && rmmod ifb
modprobe mac80211_hwsim radios=2 && rmmod mac80211_hwsim
modprobe snd-dummy && rmmod snd-dummy
mkdir -p /tmp/kpmnt && mkfs.ext4 -q -F /dev/ram0 && mount /dev/ram0 /tmp/kpmnt &&
	umount /tmp/kpmnt
losetup -f /dev/ram0 && losetup -D
rmmod scsi_debug brd
echo m >/proc/sysrq-trigger
echo q >/proc/sysrq-trigger
echo "<6>kprint sites-coverage: done" >/dev/kmsg
echo @@records
kprint dump --json
"""


def kernel():
    return subprocess.run([os.path.join(REPO, "tests/vm/kernels"), "default"],
                          capture_output=True, text=True, check=True).stdout.split()[0]


def catalog(kver):
    """The default kernel's catalog, built here (a second or two)."""
    subprocess.run([KPRINT, "sites", "build", "--kernel", kver, "--dir", SITES], check=True)
    with open(os.path.join(SITES, kver + ".jsonl")) as f:
        head = json.loads(f.readline())
        return head, [json.loads(line) for line in f]


def guest_records():
    t0 = time.monotonic()
    run = subprocess.run([os.path.join(REPO, "tests/vm/run"), "--modparams", "bridge=1",
                          "--timeout", "900", "--", "bash", "-c", WORKLOAD],
                         capture_output=True, text=True, cwd=REPO)
    out = run.stdout.split("@@records\n", 1)
    tap.ok(run.returncode == 0 and len(out) == 2,
           f"the guest ran the workload and dumped its records ({time.monotonic() - t0:.0f} s)")
    if run.returncode or len(out) != 2:
        print(run.stderr[-3000:])
        tap.done()
    return [json.loads(line) for line in out[1].splitlines() if line.startswith("{")]


def image_bytes(kver):
    """The decompressed kernel image: the xz payload of the bzImage."""
    with open(f"/boot/vmlinuz-{kver}", "rb") as f:
        data = f.read()
    start = data.find(b"\xfd7zXZ\x00")
    if start < 0:
        return b""
    return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[start:])


class Binaries:
    """Module files and the image, read once, for the bytes of a format."""

    def __init__(self, kver):
        self.kver, self.cache = kver, {}
        self.paths = {}
        for root, _, files in os.walk(f"/lib/modules/{kver}/kernel"):
            for f in files:
                if ".ko" in f:
                    self.paths[f.split(".ko")[0].replace("-", "_")] = os.path.join(root, f)

    def in_tree(self, module):
        return module == "vmlinux" or module in self.paths

    def data(self, module):
        if module not in self.cache:
            if module == "vmlinux":
                self.cache[module] = image_bytes(self.kver)
            else:
                path = self.paths[module]
                with open(path, "rb") as f:
                    raw = f.read()
                self.cache[module] = lzma.decompress(raw) if path.endswith(".xz") else raw
        return self.cache[module]

    def soh_level(self, module, fmt, cut=False):
        """Whether the format's bytes follow a KERN_SOH and a level there,
        ending the string (a newline allowed before its NUL) unless the
        record cut the format."""
        needle = re.escape(fmt.encode("utf-8", "surrogateescape"))
        end = b"" if cut else b"\n?\x00"
        return re.search(b"\x01[0-7c]" + needle + end, self.data(module)) is not None


CONV = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+)?)?(?:hh|h|ll|l|z|t|L|j)?"
                  r"(?:p[a-zA-Z0-9]*|[diouxXcsSeEfgGaAn]))")


def pattern(fmt):
    out, pos = [], 0
    for m in CONV.finditer(fmt):
        out.append(re.escape(fmt[pos:m.start()]))
        out.append("%" if m.group() == "%%" else ".*?")
        pos = m.end()
    out.append(re.escape(fmt[pos:]))
    return "".join(out)


class Speller:
    """Which catalog format spells a line, of those with at least LITERAL
    characters of their own ("%s" alone spells any line, so it proves
    nothing): formats indexed by their first 4 literal bytes, those that
    begin with a conversion tried on every line."""

    def __init__(self, formats):
        self.by_prefix, self.loose = {}, []
        for fmt in formats:
            if len(CONV.sub("", fmt)) < LITERAL:
                continue
            lit = re.match(r"[^%]*", fmt).group()
            if len(lit) >= 4:
                self.by_prefix.setdefault(lit[:4], []).append(fmt)
            else:
                self.loose.append((fmt, re.compile(pattern(fmt), re.S)))

    def spell(self, text):
        for fmt in self.by_prefix.get(text[:4], []):
            if re.fullmatch(pattern(fmt), text, re.S):
                return fmt
        return next((fmt for fmt, r in self.loose if r.fullmatch(text)), None)


# A backlog line of dev_*() or netdev_*() has the device's names before
# the format's text ("pci 0000:00:02.0: ", "eth0: "); the backlog keeps
# no SUBSYSTEM or DEVICE to tell, so a line no format spells whole is
# tried once more without such a prefix, against those formats alone.
DEV_PREFIX = re.compile(r"^(?:\S+ \S+|\S+): (.+)$", re.S)


def spelled(entries, lines):
    """The distinct formats that spell the lines, and the lines none does."""
    whole = Speller({e["format"] for e in entries})
    dev = Speller({e["format"] for e in entries if e["kind"] in ("dev", "netdev")})
    formats, unspelled = set(), []
    for text in lines:
        m = DEV_PREFIX.match(text)
        fmt = whole.spell(text) or (dev.spell(m.group(1)) if m else None)
        if fmt is None:
            unspelled.append(text)
        else:
            formats.add(fmt)
    return formats, unspelled


def prefixed(r):
    """dev_*() and netdev_*() put the device's names before the text: the
    text ends with the format's rendering and is longer (a pr_cont() line
    instead begins with it)."""
    own = rebuild(r["format"], r["args"])
    return r["text"] != own and r["text"].endswith(own)


def covered(rs):
    return [r for r in rs if int(r["format_id"], 16) in ids]


def ratio(what, rs, floor):
    got = covered(rs)
    miss = [(r["module"], r["function"], r["format"]) for r in rs if r not in got]
    share = len(got) / len(rs) if rs else 0.0
    print(f"# {what}: {len(got)} of {len(rs)} in the catalog ({100 * share:.1f}%)")
    for m in miss:
        print(f"#   missed: {m}")
    if floor is not None:
        tap.ok(rs and share >= floor, f"{what}: at least {100 * floor:.0f}% in the catalog "
               f"({len(got)} of {len(rs)})")


kver = kernel()
t0 = time.monotonic()
head, entries = catalog(kver)
print(f"# catalog of {kver}: {len(entries)} entries ({time.monotonic() - t0:.1f} s to build "
      "and read)")
ids = {int(e["format_id"], 16) for e in entries}
recs = guest_records()
bins = Binaries(kver)

live = {}
for r in recs:
    if r.get("source") != "printk" or r["flags"] & F_BACKLOG:
        continue
    live.setdefault(r["format_id"], r)
# A record's format past KPRINT_FORMAT_MAX is cut (flag truncated); its
# id is still the whole format's.
wrong_id = [(i, r["format"]) for i, r in live.items() if not r["flags"] & F_TRUNCATED and
            int(i, 16) != fnv1a64(r["format"].encode("utf-8", "surrogateescape"))]
tap.ok(not wrong_id, "every bridged format_id is FNV-1a 64 of its format (those cut aside)" +
       (f": {wrong_id[:3]}" if wrong_id else ""))
groups = {"level": [], "dev": [], "runtime": [], "none": [], "out-of-tree": []}
for fid, r in sorted(live.items()):
    if not bins.in_tree(r["module"]):
        groups["out-of-tree"].append(r)
    elif r["args"] and r["args"][0].startswith("\x01"):
        groups["runtime"].append(r)
    elif r["device"] or prefixed(r):
        groups["dev"].append(r)
    elif bins.soh_level(r["module"], r["format"], r["flags"] & F_TRUNCATED):
        groups["level"].append(r)
    else:
        groups["none"].append(r)

ratio("distinct bridged formats with a compile-time level", groups["level"] + groups["dev"],
      0.95)
ratio("of them dev_*/netdev_* formats of modules",
      [r for r in groups["dev"] if r["module"] != "vmlinux"], 0.95)
ratio("formats whose level came at run time (not counted)", groups["runtime"], None)
ratio("formats without a level (not counted)", groups["none"], None)
print(f"# out-of-tree formats (kprint's own modules, not in any catalog): "
      f"{len(groups['out-of-tree'])}")

backlog = [r["text"] for r in recs if r["flags"] & F_BACKLOG and "\n" not in r["text"] and
           not r["text"].startswith("kprint")]
t0 = time.monotonic()
formats, unspelled = spelled(entries, backlog)
share = 1 - len(unspelled) / len(backlog) if backlog else 0.0
print(f"# boot backlog: {len(backlog) - len(unspelled)} of {len(backlog)} lines spelled by "
      f"{len(formats)} catalog formats with at least {LITERAL} characters of text "
      f"({100 * share:.1f}%, {time.monotonic() - t0:.1f} s); not spelled:")
for text in unspelled:
    print(f"#   {text!r}")
tap.ok(backlog and share >= BACKLOG_SPELLED, f"the boot backlog: at least "
       f"{100 * BACKLOG_SPELLED:.0f}% of its lines spelled by a catalog format "
       f"({len(backlog) - len(unspelled)} of {len(backlog)})")
tap.done()
