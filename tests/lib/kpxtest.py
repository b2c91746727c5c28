# SPDX-License-Identifier: GPL-2.0
"""What the exporter's host tests share: TAP lines, replay files, and a
kprint_exporter on one, on a free loopback port, talked to over HTTP.

No kernel is needed: `kprint_exporter --replay FILE` serves the records of
FILE instead of subscribing.  Every wait has a deadline; nothing sleeps to
let something happen.
"""
import atexit
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORTER = os.environ.get("KPRINT_EXPORTER",
                          os.path.join(REPO, ".output/bin/kprint_exporter"))

# The labels of every kprint_format_messages_total series, in order.
SERIES_LABELS = ["source", "format_id", "level", "class", "subsystem", "module", "format"]
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]


class Tap:
    def __init__(self):
        self.failed = 0

    def ok(self, cond, what):
        print(("ok - " if cond else "not ok - ") + what, flush=True)
        if not cond:
            self.failed += 1
        return cond

    def done(self):
        sys.exit(1 if self.failed else 0)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xffffffffffffffff
    return h


# Bits of a record's flags (enum kprint_record_flags).
F_TRUNCATED, F_USER, F_BACKLOG, F_CONT = 1, 2, 4, 8


def record(seq, fmt, level="info", cls="none", subsystem="", module="m",
           args=(), text=None, source="kprint", device="", flags=0, continues=0,
           function="", printk_seq=None):
    """A record as `kprint dump --json` prints it (str fields); source
    "printk" for one the printk bridge took, which has a printk_seq
    (printk_seq, or seq + 100)."""
    rec = {
        "seq": seq, "source": source, "level": level, "level_num": LEVELS.index(level),
        "facility": 0, "class": cls,
        "ts_mono_ns": 1000 * seq, "ts_real_ns": 1700000000000000000 + seq,
        "cpu": 0, "pid": 1, "comm": "test", "file": "", "line": 0, "function": function,
        "subsystem": subsystem, "device": device, "module": module, "format": fmt,
        "format_id": "%016x" % fnv1a64(fmt.encode("utf-8", "surrogatepass")),
        "args": list(args), "text": fmt if text is None else text,
        "block_id": 0, "flags": flags, "continues": continues,
    }
    if source == "printk":
        rec["printk_seq"] = seq + 100 if printk_seq is None else printk_seq
    return rec


def validate(objs, array=True):
    """(passed, what tests/lib/validate_json.py said) for JSON values
    against schema/record.schema.json: one array (an HTTP answer), or
    lines."""
    data = objs if isinstance(objs, bytes) else json.dumps(objs).encode()
    p = subprocess.run([sys.executable, os.path.join(REPO, "tests/lib/validate_json.py")] +
                       (["--array"] if array else []), input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    return p.returncode == 0, p.stdout.decode("utf-8", "replace").strip()


def problems_schema_errors(doc):
    """The first three ways doc (a /problems answer) breaks
    schema/problems.schema.json; [] when valid."""
    import jsonschema
    with open(os.path.join(REPO, "schema/problems.schema.json")) as f:
        schema = json.load(f)
    with open(os.path.join(REPO, "schema/record.schema.json")) as f:
        rec_schema = json.load(f)
    # Debian 12's jsonschema (4.10) resolves the record's $ref with a RefResolver.
    resolver = jsonschema.RefResolver.from_schema(schema, store={
        "https://kprint.invalid/schema/record.schema.json": rec_schema})
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    return ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message)
            for e in validator.iter_errors(doc)][:3]


def line(rec, raw=None):
    """One JSON line (bytes); raw maps placeholder text to raw bytes put
    into the line as they are, which JSON itself cannot carry."""
    out = json.dumps(rec, separators=(",", ":")).encode()
    for k, v in (raw or {}).items():
        out = out.replace(k.encode(), v)
    return out + b"\n"


def temp_replay(prefix, records):
    """A replay file of records in a folder of its own, both removed when
    the test exits: its path."""
    work = tempfile.mkdtemp(prefix=prefix)
    path = os.path.join(work, "r.jsonl")
    with open(path, "wb") as f:
        for rec in records:
            f.write(line(rec))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    return path


def bulky_replay(prefix, n, size):
    """A temporary replay file of n records, each with a text and an
    argument of size bytes, for tests that need large answers: its path."""
    return temp_replay(prefix, (record(seq, "record %d of many: %s", args=[str(seq), "x" * size],
                                       text="record %d of many: %s" % (seq, "x" * size))
                                for seq in range(1, n + 1)))


class Exporter:
    """kprint_exporter --replay PATH on 127.0.0.1, a free port."""

    def __init__(self, path, *args, listen="127.0.0.1:0", deadline=20,
                 stdin=subprocess.DEVNULL):
        self.stderr = []
        self.ready = threading.Event()
        self.host = self.port = None
        self.proc = subprocess.Popen([EXPORTER, "--replay", path, "--listen", listen, *args],
                                     stdin=stdin, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        # Drained for as long as it runs, so that its log never blocks it.
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.ready.wait(deadline):
            self.stop()
            raise RuntimeError("kprint_exporter did not start: %r" % self.stderr)

    def _read(self):
        for raw in self.proc.stderr:
            text = raw.decode("utf-8", "replace").rstrip("\n")
            self.stderr.append(text)
            m = re.search(r"listening on \[?([0-9a-f.:]+?)\]?:(\d+),", text)
            if m and not self.ready.is_set():
                self.host, self.port = m.group(1), int(m.group(2))
                self.ready.set()
        self.ready.set()

    def alive(self):
        return self.proc.poll() is None

    def wait_log(self, what, since, deadline=10):
        """Whether a line of its log from line since on contains what
        within deadline seconds: the log is read by a thread of its own,
        so a line the exporter wrote may not be in self.stderr yet."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if any(what in ln for ln in self.stderr[since:]):
                return True
            time.sleep(0.05)
        return False

    def get(self, path, method="GET", headers=None, timeout=20):
        """(status, headers, body bytes)."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            c.request(method, path, headers=headers or {})
            r = c.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            c.close()

    def stop(self, deadline=20):
        return stop_process(self.proc, self.reader, deadline=deadline)


def stop_process(proc, reader, sig=signal.SIGTERM, deadline=20):
    """Stop proc with sig, killed if it has not exited after deadline
    seconds, and join reader, the thread that drains its output: its exit
    status (tests/bench/guest.py stops its programs so too)."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(deadline)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    reader.join(deadline)
    return proc.returncode


def run_replay(path, *args, deadline=20):
    """Run the exporter on a file that must not start: (status, stderr)."""
    try:
        p = subprocess.run([EXPORTER, "--replay", path, "--listen", "127.0.0.1:0", *args],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=deadline)
    except subprocess.TimeoutExpired as e:
        return None, "still running after %ds: %s" % (
            deadline, (e.stderr or b"").decode("utf-8", "replace"))
    return p.returncode, p.stderr.decode("utf-8", "replace")


def unescape_label(v):
    """A label value of the text format, unescaped (\\\\, \\", \\n)."""
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def parse_metrics(text):
    """[(name, [(label, value)...], float)] of every sample line."""
    out = []
    for ln in text.split("\n"):
        if not ln or ln.startswith("#"):
            continue
        m = SAMPLE.match(ln)
        if not m:
            raise ValueError("not a sample line: %r" % ln)
        labels = [(k, unescape_label(v)) for k, v in LABEL.findall(m.group(2) or "")]
        out.append((m.group(1), labels, float(m.group(3))))
    return out


def promtool_check(body):
    """(passed, what promtool said) for a /metrics body."""
    p = subprocess.run(["promtool", "check", "metrics"], input=body,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    return p.returncode == 0, p.stdout.decode("utf-8", "replace").strip()


def connect_from(src, port, timeout=10):
    """A TCP connection to 127.0.0.1:port from loopback address src."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def read_until(sock, enough=None, buf=b""):
    """Read from sock onto buf until enough(buf) holds or the peer closes
    (enough None: until it closes): (buf, the OSError that ended the
    reading, or None)."""
    try:
        while enough is None or not enough(buf):
            got = sock.recv(4096)
            if not got:
                break
            buf += got
    except OSError as e:
        return buf, e
    return buf, None


def send_and_read(sock, data, enough=None):
    """Send data, then read_until(sock, enough)."""
    try:
        sock.sendall(data)
    except OSError as e:
        return b"", e
    return read_until(sock, enough)


def free_port():
    """A TCP port on 127.0.0.1 free now (another program may take it before use)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class AgentGuest:
    """A guest (tests/vm/run) running tests/lib/pageagent.py: its
    kprint_exporter forwarded to 127.0.0.1:self.web, its agent (/emit,
    /stop) to 127.0.0.1:self.agent.  For the host tests that boot one
    ("# kprint-test: boots a guest")."""

    def __init__(self, log_path, boot_timeout=240):
        self.boot_timeout = boot_timeout
        self.log_path = log_path
        self.vm = None
        for _ in range(3):      # another program may take a port between probe and bind
            self.web, self.agent = free_port(), free_port()
            log = open(log_path, "wb")
            self.vm = subprocess.Popen(
                ["tests/vm/run", "--timeout", str(boot_timeout + 300),
                 "--forward", "%d:9464" % self.web, "--forward", "%d:9465" % self.agent,
                 "--", "/usr/bin/python3", "tests/lib/pageagent.py"],
                cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
            log.close()
            try:                # a port taken makes QEMU exit at once
                self.vm.wait(1)
            except subprocess.TimeoutExpired:
                break

    def call(self, path, obj=None, timeout=30):
        """The agent's JSON answer to GET path (obj None) or POST obj."""
        data = None if obj is None else json.dumps(obj).encode()
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.agent, path), data=data)
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def up(self):
        """Whether the guest's exporter and agent answer, polled until the boot timeout."""
        end = time.monotonic() + self.boot_timeout
        while self.vm.poll() is None and time.monotonic() < end:
            try:
                return self.call("/", timeout=5)["exporter"]
            except OSError:
                time.sleep(0.3)
        return False

    def emit(self, level, fmt, args=(), n=1, subsystem=None):
        """Emit n records in the guest: their seqs."""
        return self.call("/emit", {"level": level, "format": fmt, "args": list(args), "n": n,
                                   "subsystem": subsystem})["seqs"]

    def stop(self):
        """(the exporter's exit status or why not, the guest's): stops both."""
        try:
            st = self.call("/stop", {})["status"]
        except OSError as e:
            st = str(e)
        try:
            rc = self.vm.wait(120)
        except subprocess.TimeoutExpired:
            self.vm.terminate()
            rc = self.vm.wait(30)
        return st, rc

    def log_tail(self, n=30):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace").splitlines()[-n:]
