# SPDX-License-Identifier: GPL-2.0
"""Helpers for the Python end-to-end tests: tests/e2e/lib.sh's counterpart.

The tests run as root inside the guest from the checkout's root, and import
this with sys.path.insert(0, "tests/e2e").  Each check prints one TAP-style
line, "ok - what" or "not ok - what"; finish() exits non-zero on a failure.
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

TEST_MODULE = "kernel/test/kprint_test.ko"
TEST_PARAMS = "/sys/module/kprint_test/parameters"
# What kprint.ko was loaded with for this test (tests/vm/suite), for the
# tests that load it again themselves.
MODPARAMS = os.environ.get("KPRINT_MODPARAMS",
                           os.environ.get("KPRINT_VM_MODPARAMS", "")).split()
PORT = int(os.environ.get("PORT", "9464"))
URL = f"http://127.0.0.1:{PORT}"
WAIT_SECONDS = float(os.environ.get("WAIT_SECONDS", "60"))
failures = 0


def check(what, cond, detail=""):
    """One TAP line; detail is shown only when the check fails."""
    global failures
    print(("ok - " if cond else "not ok - ") + what + (f" ({detail})" if detail and not cond else ""),
          flush=True)
    failures += not cond
    return bool(cond)


def finish():
    sys.exit(1 if failures else 0)


def sized(ci, soak):
    """A loop's size: ci in make check, soak in make soak (KPRINT_SOAK=1)."""
    return soak if os.environ.get("KPRINT_SOAK") == "1" else ci


def wait_for(what, cond, seconds=WAIT_SECONDS):
    """Poll cond() until it is true, for at most seconds of wall time."""
    end = time.monotonic() + seconds
    while True:
        if cond():
            return True
        if time.monotonic() >= end:
            check(f"{what} within {seconds:g} s", False)
            return False
        time.sleep(0.01)


def load_test_module(*params):
    subprocess.run(["insmod", TEST_MODULE, *params], check=True)


def reload_kprint(*params):
    """kprint.ko unloaded (kprint_test with it) and loaded with params."""
    if os.path.isdir("/sys/module/kprint_test"):
        subprocess.run(["rmmod", "kprint_test"], check=True)
    subprocess.run(["rmmod", "kprint"], check=True)
    subprocess.run(["insmod", "kernel/kprint.ko", *MODPARAMS, *params], check=True)


def write_param(name, value):
    """Write one kprint_test parameter; the write returns once it is done."""
    with open(os.path.join(TEST_PARAMS, name), "w") as f:
        f.write(str(value))


def stats():
    """`kprint stats --json`, as a dict."""
    return json.loads(subprocess.run(["kprint", "stats", "--json"], check=True,
                                     capture_output=True, text=True).stdout)


def get(path, timeout=30):
    """GET URL + path: (HTTP status, body bytes)."""
    try:
        with urllib.request.urlopen(URL + path, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def metric(page, want):
    """One sample's value from a /metrics page (text), or None."""
    for line in page.splitlines():
        name, _, value = line.rpartition(" ")
        if name == want:
            return value
    return None
