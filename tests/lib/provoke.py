# SPDX-License-Identifier: GPL-2.0
"""Kernel problems caused for real, in the guest (tests/e2e/problems-*.py).

Each provocation drives the kernel's own code path with the host's tools
(the guest runs them from the host's root): the OOM killer of a cgroup v2
memory.max, the hung task detector over a frozen file system, the page
fault handler's segfault line, ext4's error handling and remount
read-only, XFS's forced shutdown, SCSI's medium errors from scsi_debug,
bonding's MII monitor over a dummy slave, and the WARN() and oops of
kernel/test/kprint_problem_test.ko.  None prints a problem's format
itself.

Each one returns what the test can hold the records against: the task,
pid, cgroup or device the problem concerns, and waits, with a bound, until
the kernel has printed its last line, read from /dev/kmsg (the kernel's
own log, independent of kprint).  Each leaves nothing behind: mounts, loop
devices, links and modules are undone before it returns, whatever failed.
"""
import glob
import os
import re
import subprocess
import time

from lib import kmsg_records, kmsg_write

WORK = "/tmp/provoke"
PROBLEM_MODULE = "kernel/test/kprint_problem_test.ko"
PROBLEM_PARAMS = "/sys/module/kprint_problem_test/parameters"
WAIT = 60


class Failed(Exception):
    """A provocation that did not happen: the test says so and goes on."""


def run(*argv, ok=(0,), **kw):
    """Run argv; its stdout, or Failed with its stderr."""
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if r.returncode not in ok:
        raise Failed(f"{' '.join(argv)}: status {r.returncode}: {r.stderr.strip()[:300]}")
    return r.stdout


def quiet(*argv):
    """Run argv for its cleanup; a failure is no news."""
    subprocess.run(argv, capture_output=True)


def named(tool, name):
    """A symlink NAME to TOOL: a task takes its comm from the path it was
    executed by, so the task of each problem has a name of its own."""
    os.makedirs(f"{WORK}/bin", exist_ok=True)
    path = f"{WORK}/bin/{name}"
    if not os.path.lexists(path):
        os.symlink(tool, path)
    return path


def sysctl(path, value):
    """Write a /proc/sys file; its old value back."""
    with open(path) as f:
        old = f.read().strip()
    with open(path, "w") as f:
        f.write(str(value))
    return old


class Kmsg:
    """The kernel log from now on, read through /dev/kmsg: the oracle
    every provocation waits on, and the test counts problem lines with.
    history: what /dev/kmsg held before now too, kept apart in
    self.history."""

    def __init__(self, history=False):
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        if history:
            self.history = kmsg_records(self.fd)
        else:
            os.lseek(self.fd, 0, os.SEEK_END)
        self.lines = []

    def read(self):
        self.lines += kmsg_records(self.fd)
        return self.lines

    def matching(self, regex, since=0):
        rx = re.compile(regex)
        return [r for r in self.read()[since:] if rx.search(r["text"])]

    def wait(self, regex, since=0, count=1, seconds=WAIT):
        """The records from index since whose text matches regex, once
        there are count of them; Failed after seconds."""
        end = time.monotonic() + seconds
        while True:
            found = self.matching(regex, since)
            if len(found) >= count:
                return found
            if time.monotonic() > end:
                raise Failed(f"no {count} kernel line(s) /{regex}/ within {seconds} s "
                             f"({len(found)} seen)")
            time.sleep(0.05)

    def close(self):
        os.close(self.fd)


def wait_exit(proc, seconds=WAIT):
    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failed(f"{proc.args[0]} still running after {seconds} s") from None


def loop_fs(kind, size, name, loop, populate=None, before=None):
    """An image file in WORK (tmpfs: a sparse file costs nothing) made by
    mkfs KIND, then before(image) if given, on /dev/loopLOOP: each file
    system its own loop device, so that a label naming the wrong one shows.
    Returns the device."""
    os.makedirs(WORK, exist_ok=True)
    run("modprobe", "loop")	# no udev in the guest to load it
    img = f"{WORK}/{name}.img"
    with open(img, "wb") as f:
        f.truncate(size)
    if kind == "ext4":
        run("mkfs.ext4", "-q", "-F", *(["-d", populate] if populate else []), img)
    else:
        # -K: no discard of the whole device, which costs seconds here.
        run("mkfs.xfs", "-q", "-f", "-K", img)
    if before:
        before(img)
    dev = f"/dev/loop{loop}"
    run("losetup", dev, img)
    return dev


def unloop(mnt, dev):
    quiet("umount", mnt)
    quiet("losetup", "-d", dev)


# The provocations.  Each returns a dict of facts about what it caused.

def oom_kill(log):
    """A cgroup v2 OOM kill: a task in a cgroup whose memory.max is 16 MiB
    reads 64 MiB of zeros into one buffer, and the memcg OOM killer kills
    it.  Its comm is kprint-oom (dd under another name)."""
    cg = "/sys/fs/cgroup"
    mounted = not os.path.exists(f"{cg}/cgroup.controllers")
    if mounted:
        run("mount", "-t", "cgroup2", "none", cg)
    with open(f"{cg}/cgroup.subtree_control", "w") as f:
        f.write("+memory")
    memcg = "/kprint-oom"
    os.makedirs(cg + memcg, exist_ok=True)
    try:
        with open(f"{cg}{memcg}/memory.max", "w") as f:
            f.write(str(16 << 20))
        dd = named("/usr/bin/dd", "kprint-oom")
        # The shell moves itself into the cgroup, then becomes dd.
        p = subprocess.Popen(["sh", "-c", f'echo $$ >{cg}{memcg}/cgroup.procs && exec "$0" "$@"',
                              dd, "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"],
                             stderr=subprocess.DEVNULL)
        st = wait_exit(p)
        if st != -9:
            raise Failed(f"kprint-oom ended with status {st}, not SIGKILL")
        log.wait(r"^Memory cgroup out of memory: Killed process %d " % p.pid)
        return {"task": "kprint-oom", "pid": p.pid, "memcg": memcg}
    finally:
        quiet("rmdir", cg + memcg)
        if mounted:
            quiet("umount", cg)


def hung_task(log):
    """Hung tasks: kprint-hung and docker (touch, under two names) each
    create a file on a frozen ext4 and wait in sb_start_write()
    uninterruptibly, and the hung task detector, at a 1-s timeout, reports
    both (a task named docker is also NPD's DockerHung, its condition
    KernelDeadlock: NPD's pattern wants the name exactly).  Then the file
    system is thawed, the timeout put back, and the tasks finish.  Returns
    {"tasks": {name: pid}}."""
    dev = loop_fs("ext4", 8 << 20, "hung", 3)
    mnt = f"{WORK}/hung"
    os.makedirs(mnt, exist_ok=True)
    old = None
    procs = {}
    try:
        run("mount", "-t", "ext4", dev, mnt)
        run("fsfreeze", "-f", mnt)
        for name in ("kprint-hung", "docker"):
            procs[name] = subprocess.Popen([named("/usr/bin/touch", name), f"{mnt}/{name}"])
        old = sysctl("/proc/sys/kernel/hung_task_timeout_secs", 1)
        for name, p in procs.items():
            log.wait(r"^INFO: task %s:%d blocked for more than \d+ seconds" % (name, p.pid))
        return {"tasks": {name: p.pid for name, p in procs.items()},
                "device": os.path.basename(dev)}
    finally:
        if old is not None:
            sysctl("/proc/sys/kernel/hung_task_timeout_secs", old)
        quiet("fsfreeze", "-u", mnt)
        for p in procs.values():
            wait_exit(p)
        unloop(mnt, dev)


def segfault(log):
    """A user-space segfault: kprint-segv (python3) reads address 0;
    show_unhandled_signals on, so that the page fault handler prints it."""
    old = sysctl("/proc/sys/debug/exception-trace", 1)
    try:
        p = subprocess.Popen([named("/usr/bin/python3", "kprint-segv"), "-c",
                              "import ctypes; ctypes.string_at(0)"])
        st = wait_exit(p)
        if st != -11:
            raise Failed(f"kprint-segv ended with status {st}, not SIGSEGV")
        log.wait(r"^kprint-segv\[%d\]: segfault at 0 " % p.pid)
        return {"task": "kprint-segv", "pid": p.pid}
    finally:
        sysctl("/proc/sys/debug/exception-trace", old)


def problem_module():
    if not os.path.isdir(PROBLEM_PARAMS):
        run("insmod", PROBLEM_MODULE)


def warn(log, n=1):
    """A WARN() from kprint_problem_test.ko, in the writing task."""
    problem_module()
    with open(f"{PROBLEM_PARAMS}/warn", "w") as f:
        f.write(str(n))
    log.wait(r"^WARNING: CPU: \d+ PID: %d at " % os.getpid())
    log.wait(r"^---\[ end trace ")
    return {"pid": os.getpid()}


def oops(log, n=1):
    """An oops: kprint_problem_test.ko's kthread kprint_oops/N writes
    through NULL; the write returns once the kthread is dead."""
    problem_module()
    with open(f"{PROBLEM_PARAMS}/oops", "w") as f:
        f.write(str(n))
    log.wait(r"^Oops: ")
    log.wait(r"^---\[ end trace ")
    return {"task": f"kprint_oops/{n}"}


WATCHDOG_THRESH = "/proc/sys/kernel/watchdog_thresh"
RCU_STALL_TIMEOUT = "/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout"
SPIN_CPU = 1
SPIN_SECONDS = 5


def spin(log, param, thresh=None, stall=None):
    """kprint_problem_test.ko's kthread kprint_spin/SPIN_CPU loops
    SPIN_SECONDS with preemption (param spin) or interrupts too
    (spin_irqoff) off, a shell busy on CPU 0 meanwhile, so that its tick
    runs; kernel.watchdog_thresh and rcupdate.rcu_cpu_stall_timeout
    lowered only for the spin, since at watchdog_thresh 1 a busy host's
    vCPUs report lockups of their own.  Its task and pid, from the
    module's line."""
    problem_module()
    first = len(log.read())
    busy = subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"])
    old = {}
    try:
        if stall is not None:
            old[RCU_STALL_TIMEOUT] = sysctl(RCU_STALL_TIMEOUT, stall)
        if thresh is not None:
            old[WATCHDOG_THRESH] = sysctl(WATCHDOG_THRESH, thresh)
        with open(f"{PROBLEM_PARAMS}/{param}", "w") as f:
            f.write(f"{SPIN_CPU} {SPIN_SECONDS}")
    except OSError as e:
        raise Failed(f"{param}: {e}") from None
    finally:
        for path, value in reversed(old.items()):
            sysctl(path, value)
        busy.kill()
        busy.wait()
    m = re.match(r"kprint_problem_test: (\S+)\[(\d+)\] spinning",
                 log.wait(r"^kprint_problem_test: \S+\[\d+\] spinning", first)[0]["text"])
    log.wait(r"^kprint_problem_test: spin on CPU \d+ over", first)
    return {"task": m.group(1), "pid": int(m.group(2)), "cpu": SPIN_CPU, "first": first}


def soft_lockup(log):
    """A soft lockup: a spin with preemption off past 2 * watchdog_thresh
    (1, the floor; the report comes when the whole seconds of the
    watchdog's clock differ by more than 2).  RCU's stall timeout stays
    as it is: its report would touch the soft lockup watchdog (the
    console's touch_nmi_watchdog()) before that."""
    facts = spin(log, "spin", thresh=1)
    log.wait(r"BUG: soft lockup - CPU#%d stuck for " % SPIN_CPU, facts["first"])
    return facts


# How many spins with preemption off rcu_stall tries for a self-detected stall.
SELF_DETECT_TRIES = 3


def rcu_stall(log):
    """RCU stalls, as the stalled CPU finds it (a spin with preemption off,
    its tick running) and as another CPU's tick does (a spin with
    interrupts off too), each past rcu_cpu_stall_timeout (3 s, the floor).
    With its tick running, which CPU reports the stall is a race: the
    stalled CPU from the stall's time on, any other two jiffies later
    (RCU_STALL_RAT_DELAY), and one report stops the others for 3 timeouts.
    When a busy host keeps the stalled vCPU from its tick for longer, the
    other CPU's report comes first: the spin is tried again then, up to
    SELF_DETECT_TRIES times."""
    for _ in range(SELF_DETECT_TRIES):
        facts = spin(log, "spin", stall=3)
        if not log.matching(r"^rcu: INFO: \S+ detected stalls on CPUs/tasks:",
                            facts["first"]):
            break
    log.wait(r"^rcu: INFO: \S+ self-detected stall on CPU", facts["first"])
    facts = spin(log, "spin_irqoff", stall=3)
    log.wait(r"^rcu: INFO: \S+ detected stalls on CPUs/tasks:", facts["first"])
    return facts


MCE_INJECT = "/sys/kernel/debug/mce-inject"
# A corrected error (VAL and EN, no UC, PCC or ADDRV): mce_log() takes it
# without a severity to panic on, and without an address no corrected-
# error filter (RAS_CEC) keeps it from __print_mce().
MCE_STATUS = 0x9000000000000001
MCE_BANK = 1


def machine_check(log):
    """A machine check through mce-inject.ko's software injection: the
    record goes to mce_log() and out through __print_mce(), as a bank's
    status read in the machine check handler would.  debugfs is mounted
    for it if it was not, and undone after."""
    mounted = False
    if not os.path.isdir(MCE_INJECT):
        if not os.path.ismount("/sys/kernel/debug"):
            run("mount", "-t", "debugfs", "debugfs", "/sys/kernel/debug")
            mounted = True
        run("modprobe", "mce-inject")
    first = len(log.read())
    try:
        for name, value in (("flags", "sw\n"), ("cpu", "0"), ("status", hex(MCE_STATUS)),
                            ("misc", "0"), ("addr", "0"), ("bank", str(MCE_BANK))):
            if name == "cpu" and not os.path.exists(f"{MCE_INJECT}/cpu"):
                continue
            # flags_write() drops the last byte, as if a newline.
            with open(f"{MCE_INJECT}/{name}", "w") as f:
                f.write(value)
        log.wait(r"^mce: \[Hardware Error\]: CPU 0: Machine Check: ", first)
        log.wait(r"^mce: \[Hardware Error\]: PROCESSOR ", first)
    except OSError as e:
        raise Failed(f"mce-inject: {e}") from None
    finally:
        quiet("rmmod", "mce_inject")
        if mounted:
            quiet("umount", "/sys/kernel/debug")
    return {"cpu": 0, "bank": MCE_BANK, "status": MCE_STATUS}


def ext4_error(log):
    """An ext4 error and remount read-only: a file's inode cleared with
    debugfs, the file system mounted errors=remount-ro, the file looked up:
    ext4_lookup() finds a deleted inode referenced."""
    src = f"{WORK}/ext4-src"
    os.makedirs(src, exist_ok=True)
    with open(f"{src}/victim", "w") as f:
        f.write("kprint\n")
    dev = loop_fs("ext4", 8 << 20, "ext4err", 1, populate=src,
                  before=lambda img: run("debugfs", "-w", "-R", "clri /victim", img))
    mnt = f"{WORK}/ext4err"
    os.makedirs(mnt, exist_ok=True)
    try:
        run("mount", "-t", "ext4", "-o", "errors=remount-ro", dev, mnt)
        run("stat", f"{mnt}/victim", ok=(1,))
        name = os.path.basename(dev)
        log.wait(r"^EXT4-fs error \(device %s\): ext4_lookup:\d+: inode #2: comm stat: "
                 r"deleted inode referenced: 12$" % name)
        log.wait(r"^EXT4-fs \(%s\): Remounting filesystem read-only" % name)
        return {"device": name, "task": "stat"}
    finally:
        unloop(mnt, dev)


def xfs_shutdown(log):
    """An XFS shutdown: xfs_io's shutdown command on a 300-MB XFS (the
    least mkfs.xfs makes) in a sparse file on a loop device."""
    dev = loop_fs("xfs", 300 << 20, "xfs", 2)
    mnt = f"{WORK}/xfs"
    os.makedirs(mnt, exist_ok=True)
    try:
        run("mount", "-t", "xfs", dev, mnt)
        run("xfs_io", "-x", "-c", "shutdown", mnt)
        name = os.path.basename(dev)
        log.wait(r"^XFS \(%s\): Please unmount the filesystem" % name)
        return {"device": name}
    finally:
        unloop(mnt, dev)


def scsi_disk():
    """scsi_debug's one disk, once its scan (a kthread) has attached it."""
    end = time.monotonic() + WAIT
    pattern = "/sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*"
    while time.monotonic() < end:
        disks = glob.glob(pattern)
        if disks:
            return os.path.basename(disks[0])
        time.sleep(0.05)
    raise Failed("scsi_debug attached no disk")


def block_io_error(log):
    """Block I/O errors: scsi_debug with opts=2 fails reads of LBA 4660 to
    4669 with MEDIUM ERROR.  One direct read of sector 4660 is one failed
    request ("critical medium error"); a buffered read of the page that
    holds it fails buffer heads too ("Buffer I/O error")."""
    run("modprobe", "sd_mod")	# no udev in the guest to load it
    run("modprobe", "scsi_debug", "opts=2", "dev_size_mb=8")
    try:
        disk = scsi_disk()
        first = len(log.read())
        run("dd", f"if=/dev/{disk}", "of=/dev/null", "bs=512", "skip=4660", "count=1",
            "iflag=direct", ok=(1,))
        log.wait(r"^critical medium error, dev %s, sector 4660 " % disk, since=first)
        run("dd", f"if=/dev/{disk}", "of=/dev/null", "bs=4096", "skip=582", "count=1", ok=(1,))
        log.wait(r"^Buffer I/O error on dev %s, logical block \d+" % disk, since=first)
        return {"device": disk, "sector": "4660"}
    finally:
        quiet("rmmod", "scsi_debug")


def link_down(log):
    """A link down: bonding's MII monitor (every 10 ms) over a dummy slave
    whose carrier is switched off."""
    run("modprobe", "dummy", "numdummies=0")
    run("modprobe", "bonding", "max_bonds=0")
    try:
        run("ip", "link", "add", "kpbond0", "type", "bond", "mode", "active-backup",
            "miimon", "10")
        run("ip", "link", "add", "kpdummy0", "type", "dummy")
        run("ip", "link", "set", "kpdummy0", "master", "kpbond0")
        run("ip", "link", "set", "kpbond0", "up")
        first = len(log.read())
        run("ip", "link", "set", "kpdummy0", "carrier", "off")
        log.wait(r"^kpbond0: \(slave kpdummy0\): link status definitely down", since=first)
        return {"device": "kpdummy0", "bond": "kpbond0"}
    finally:
        quiet("ip", "link", "del", "kpbond0")
        quiet("ip", "link", "del", "kpdummy0")
        quiet("rmmod", "bonding", "dummy")


def provoke(name, fn, log):
    """fn(log) between two /dev/kmsg markers; (facts or None, seconds,
    the index of log's first record of it)."""
    first = len(log.read())
    kmsg_write(f"kprint provoke: {name} begins")
    start = time.monotonic()
    try:
        facts = fn(log)
    except Failed as e:
        print(f"# provoke: {name} failed: {e}", flush=True)
        facts = None
    took = time.monotonic() - start
    kmsg_write(f"kprint provoke: {name} ends")
    print(f"# provoke: {name} took {took:.1f} s", flush=True)
    return facts, took, first
