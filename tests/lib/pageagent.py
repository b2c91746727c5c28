# SPDX-License-Identifier: GPL-2.0
"""The guest's half of tests/e2e/own-guest/page-live.py (run there by tests/vm/run,
not a test of its own): starts kprint_exporter with its BPF counters on
GUEST_ADDR:9464 and answers the host on GUEST_ADDR:9465, forwarded both:

	POST /emit  {"level": "err", "format": "...", "args": [...], "n": 1,
	             "subsystem": "..."}  ->  {"seqs": [...]}
	POST /stop  ->  the exporter stopped (SIGTERM), this script exits with
	             its status

Records are emitted with the tests' own netlink client (tests/lib/kpnl.py)
rather than `kprint emit`: a process start costs tens of milliseconds in
the emulated guest, and the page's chart wants bursts of them.
"""
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kpnl import Genl  # noqa: E402

LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
ADDR = os.environ.get("KPRINT_VM_ADDR", "127.0.0.1")
EXPORTER_PORT, AGENT_PORT = 9464, 9465

exporter = subprocess.Popen(["kprint_exporter", "--listen", "%s:%d" % (ADDR, EXPORTER_PORT)])
genl = Genl()
lock = threading.Lock()
done = threading.Event()
status = [1]


def healthy():
    try:
        with urllib.request.urlopen("http://%s:%d/healthz" % (ADDR, EXPORTER_PORT), timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


class Agent(BaseHTTPRequestHandler):
    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(200 if healthy() else 503, {"exporter": exporter.poll() is None})

    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path == "/emit":
            with lock:         # one netlink socket, one request at a time
                seqs = [genl.emit(LEVELS.index(req["level"]), req["format"],
                                  req.get("args", []), subsystem=req.get("subsystem"))
                        for _ in range(req.get("n", 1))]
            self.reply(200, {"seqs": seqs})
        elif self.path == "/stop":
            exporter.terminate()
            status[0] = exporter.wait(20)
            self.reply(200, {"status": status[0]})
            done.set()
        else:
            self.reply(404, {})

    def log_message(self, *args):
        pass


end = time.monotonic() + 120
while not healthy() and exporter.poll() is None and time.monotonic() < end:
    time.sleep(0.1)
print("# pageagent: exporter %s" % ("up" if healthy() else "NOT up"), flush=True)
server = ThreadingHTTPServer((ADDR, AGENT_PORT), Agent)
threading.Thread(target=server.serve_forever, daemon=True).start()
# The host stops us; a host that died does not leave the guest for ever.
done.wait(600)
server.shutdown()
if exporter.poll() is None:
    exporter.kill()
sys.exit(status[0])
