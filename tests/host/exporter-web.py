#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kprint_exporter's web side as node_exporter has it, on the host (--replay,
no kernel): --web.listen-address (twice), --web.telemetry-path, and a
--web.config.file in exporter-toolkit's format with TLS, client
certificates and basic auth.

A throwaway CA signs the server's and the clients' certificates (openssl);
a second CA signs a foreign client certificate.  Passwords are hashed with
`mkpasswd -m bcrypt` (Debian's whois).  Checked: basic auth (200 only with a
right password, 401 with the challenge otherwise), TLS versions, each
client_auth_type against what Go's crypto/tls does, refused files (exit 2,
FILE:LINE: reason), SIGHUP with a bad then a good file on the same listening
socket, and a real Prometheus scraping over TLS with basic auth.
"""
import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kpxtest import Exporter, Tap, free_port, line, record, run_replay, send_and_read  # noqa: E402

# TLS 1.0 and 1.1 are asked for on purpose: that they are refused is a check.
warnings.filterwarnings("ignore", category=DeprecationWarning)

t = Tap()
work = tempfile.mkdtemp(prefix="kpx-web.")
N = 7       # odd: a doubled count can never pass for it
FORMAT = "kprint web test %d"
REALM = 'Basic realm="kprint_exporter"'


def path(name):
    return os.path.join(work, name)


def run(*argv):
    subprocess.run(argv, check=True, cwd=work, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, timeout=60)


def make_ca(name):
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-nodes", "-keyout", name + ".key", "-out", name + ".crt", "-days", "2",
        "-subj", "/CN=kprint test " + name)


def make_cert(name, ca, ext):
    """A certificate for name signed by ca, with the extensions ext."""
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name)
    with open(path(name + ".ext"), "w") as f:
        f.write(ext + "\n")
    run("openssl", "x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey",
        ca + ".key", "-CAcreateserial", "-out", name + ".crt", "-days", "2",
        "-extfile", name + ".ext")


def bcrypt(password):
    # Cost 5: the checks are of the exporter, not of bcrypt's strength.
    p = subprocess.run(["mkpasswd", "-m", "bcrypt", "-R", "5", password],
                       stdout=subprocess.PIPE, check=True, timeout=30)
    return p.stdout.decode().strip()


make_ca("ca")
make_ca("ca2")
make_cert("server", "ca", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth")
make_cert("server2", "ca2", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth")
make_cert("client", "ca", "extendedKeyUsage=clientAuth")
make_cert("foreign", "ca2", "extendedKeyUsage=clientAuth")
# Signed by the right CA, but for servers only: crypto/tls refuses it.
make_cert("wrongeku", "ca", "extendedKeyUsage=serverAuth")

H_ALICE = bcrypt("alice-pw")
# $2y$ and $2b$ are the same algorithm; exporter-toolkit accepts both.
H_BOB = "$2y$" + bcrypt("bob:pw")[4:]
H_CAROL = bcrypt("carol-pw")
t.ok(H_ALICE.startswith("$2b$05$") and len(H_ALICE) == 60,
     "mkpasswd gives bcrypt hashes (%s)" % H_ALICE[:7])

recs = [line(record(i + 1, FORMAT, args=[str(i)], text=FORMAT % i)) for i in range(N)]
recs += [line(record(N + 1, "another format %s", args=["x"], text="another format x"))]
replay = path("replay.jsonl")
with open(replay, "wb") as f:
    f.writelines(recs)


def web_config(name, tls=None, users=None, extra=""):
    """Write a web config; tls: the keys of tls_server_config."""
    text = ""
    if tls is not None:
        text += "tls_server_config:\n" + "".join(
            "  %s: %s\n" % (k, v) for k, v in tls.items())
    if users:
        text += "basic_auth_users:\n" + "".join(
            "  %s: '%s'\n" % (u, h) for u, h in users.items())
    text += extra
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


TLS = {"cert_file": path("server.crt"), "key_file": path("server.key")}


def context(ca="ca", cert=None, version=None):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(path(ca + ".crt"))
    if cert:
        ctx.load_cert_chain(path(cert + ".crt"), path(cert + ".key"))
    if version:
        ctx.minimum_version = ctx.maximum_version = version
        # OpenSSL 3 allows TLS 1.0/1.1 only at security level 0.
        ctx.set_ciphers("DEFAULT@SECLEVEL=0")
    return ctx


def https(port, target="/healthz", auth=None, ctx=None, timeout=10):
    """(status, headers, body) over HTTPS, or (None, error, b"") when the
    server gives no answer (a refused handshake, a closed connection)."""
    headers = {}
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(
            ("%s:%s" % auth).encode()).decode()
    c = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout,
                                    context=ctx or context())
    try:
        c.request("GET", target, headers=headers)
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    except (OSError, http.client.HTTPException) as e:
        return None, repr(e), b""
    finally:
        c.close()


def addresses(ex):
    """The ports of the startup message, in order."""
    for ln in ex.stderr:
        m = re.search(r"listening on (.*?), HTTP", ln)
        if m:
            return [int(a.rsplit(":", 1)[1]) for a in m.group(1).split(", ")]
    return []


def wait_for(cond, deadline=20, step=0.05):
    end = time.monotonic() + deadline
    while True:
        v = cond()
        if v or time.monotonic() > end:
            return v
        time.sleep(step)


def listen_inodes(port):
    """Inodes of the sockets listening on 127.0.0.1:port (/proc/net/tcp)."""
    out = set()
    with open("/proc/net/tcp") as f:
        for ln in f.readlines()[1:]:
            fields = ln.split()
            if fields[1] == "0100007F:%04X" % port and fields[3] == "0A":
                out.add(fields[9])
    return out


def metric_count(body):
    """kprint_format_messages_total of FORMAT in a /metrics body."""
    for ln in body.decode("utf-8", "replace").split("\n"):
        if ln.startswith("kprint_format_messages_total{") and 'format="%s"' % FORMAT in ln:
            return float(ln.rsplit(" ", 1)[1])
    return None


# --- basic auth, TLS, two addresses, the telemetry path ---------------------
main_cfg = web_config("web.yml", dict(TLS, min_version="TLS12"),
                      {"alice": H_ALICE, "bob": H_BOB})
ex = Exporter(replay, "--web.listen-address", "127.0.0.1:0", "--web.telemetry-path", "/m",
              "--web.config.file", main_cfg)
try:
    ports = addresses(ex)
    t.ok(len(ports) == 2, "two --web.listen-address: two addresses in the startup message %r"
         % ports)
    port = ports[0]
    st, hdr, body = https(port, "/m", ("alice", "alice-pw"))
    t.ok(st == 200 and metric_count(body) == N,
         "HTTPS, right user and password: 200 at /m with the format's count %d (%r, %r)"
         % (N, st, metric_count(body)))
    st, _, _ = https(port, "/metrics", ("alice", "alice-pw"))
    t.ok(st == 404, "with --web.telemetry-path /m, /metrics is 404 (%r)" % st)
    st, _, body = https(port, "/", ("alice", "alice-pw"))
    t.ok(st == 200 and b'href="/m"' in body, "the index page links /m (%r)" % st)
    st, _, _ = https(ports[1], "/m", ("alice", "alice-pw"))
    t.ok(st == 200, "the second address serves too (%r)" % st)
    st, _, _ = https(port, "/m", ("bob", "bob:pw"))
    t.ok(st == 200, "a $2y$ hash and a password with ':' in it: 200 (%r)" % st)
    for what, auth in [("a wrong password", ("alice", "alice-pw2")),
                       ("an unknown user", ("mallory", "alice-pw")),
                       ("no credentials", None),
                       ("an empty password", ("alice", ""))]:
        st, hdr, body = https(port, "/m", auth)
        try:
            err = json.loads(body)["error"]
        except (ValueError, KeyError, TypeError):
            err = None
        t.ok(st == 401 and hdr.get("WWW-Authenticate") == REALM and err,
             "%s: 401, WWW-Authenticate: %s and a JSON error (%r, %r, %r)"
             % (what, REALM, st, hdr.get("WWW-Authenticate"), body[:80]))
    st, _, _ = https(port, "/healthz", ("alice", "alice-pw2"))
    t.ok(st == 401, "/healthz asks for credentials too (%r)" % st)
    # The cache of verified credentials must not let a wrong password in
    # after a right one, nor keep out a right one after a wrong one.
    got = [https(port, "/healthz", a)[0] for a in
           [("alice", "alice-pw"), ("alice", "alice-pwX"), ("alice", "alice-pw")]]
    t.ok(got == [200, 401, 200], "right, wrong, right again: 200, 401, 200 (%r)" % got)

    # Plain HTTP to the TLS port: no HTTP answer.
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        reply, _ = send_and_read(s, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    finally:
        s.close()
    t.ok(not reply.startswith(b"HTTP/"), "plain HTTP to the TLS port gets no HTTP page (%r)"
         % reply[:40])

    got = {v.name: https(port, "/healthz", ("alice", "alice-pw"),
                         context(version=v))[0]
           for v in (ssl.TLSVersion.TLSv1_1, ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3)}
    t.ok(got == {"TLSv1_1": None, "TLSv1_2": 200, "TLSv1_3": 200},
         "min_version TLS12: TLS 1.1 refused, 1.2 and 1.3 served (%r)" % got)
    t.ok(https(port, "/healthz", ("alice", "alice-pw"), context("ca2"))[0] is None,
         "a client trusting another CA does not get through (the server's cert is checked)")
finally:
    rc = ex.stop()
t.ok(rc == 0, "kprint_exporter stops on SIGTERM with status 0 (%r)" % rc)

# The other side of the version check: the same client gets through where
# the config allows TLS 1.0..1.2, and TLS 1.3 is then refused.
ex = Exporter(replay, "--web.config.file", web_config(
    "web-versions.yml", dict(TLS, min_version="TLS10", max_version="TLS12")))
try:
    got = {v.name: https(ex.port, ctx=context(version=v))[0]
           for v in (ssl.TLSVersion.TLSv1_1, ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3)}
    t.ok(got == {"TLSv1_1": 200, "TLSv1_2": 200, "TLSv1_3": None},
         "min_version TLS10, max_version TLS12: 1.1 and 1.2 served, 1.3 refused (%r)" % got)
finally:
    ex.stop()

# --- basic auth without TLS; what a bcrypt check costs, and when -----------
# Cost 12: a check takes a few hundred ms, far above a request's own time,
# so that the medians below tell a bcrypt check from none.
H_SLOW = subprocess.run(["mkpasswd", "-m", "bcrypt", "-R", "12", "slow-pw"],
                        stdout=subprocess.PIPE, check=True, timeout=60).stdout.decode().strip()
ex = Exporter(replay, "--web.config.file", web_config("web-plain.yml", None,
                                                      {"dave": H_SLOW}))
try:
    def basic(user, pw):
        return {"Authorization": "Basic " + base64.b64encode(
            ("%s:%s" % (user, pw)).encode()).decode()}

    def timed(user, pw):
        t0 = time.monotonic()
        st = ex.get("/healthz", headers=basic(user, pw))[0]
        return st, time.monotonic() - t0

    st, hdr, _ = ex.get("/healthz")
    t.ok(st == 401 and hdr.get("WWW-Authenticate") == REALM,
         "basic_auth_users without TLS: plain HTTP, 401 without credentials (%r)" % st)
    first = timed("dave", "slow-pw")
    right = [timed("dave", "slow-pw") for _ in range(3)]
    wrong = [timed("dave", "wrong-pw") for _ in range(3)]
    unknown = [timed("nobody", "slow-pw") for _ in range(3)]
    med = {k: sorted(d for _, d in v)[1] for k, v in
           [("right", right), ("wrong", wrong), ("unknown", unknown)]}
    t.ok(first[0] == 200 and all(s == 200 for s, _ in right) and
         all(s == 401 for s, _ in wrong + unknown),
         "without TLS: dave 200, a wrong password and an unknown user 401")
    t.ok(med["right"] < med["wrong"] / 4,
         "verified credentials are cached: %.3f s a request, %.3f s with a wrong password"
         % (med["right"], med["wrong"]))
    t.ok(med["unknown"] > med["wrong"] / 2,
         "an unknown user costs a bcrypt check too: %.3f s, a wrong password %.3f s"
         % (med["unknown"], med["wrong"]))
finally:
    ex.stop()

# --- client_auth_type, as crypto/tls has each ------------------------------
# Clients: no certificate, one the CA signed, one another CA signed, and
# one the CA signed for servers only (Go checks for ExtKeyUsageClientAuth).
CLIENTS = [None, "client", "foreign", "wrongeku"]
GO = {
    "NoClientCert": [True, True, True, True],
    "RequestClientCert": [True, True, True, True],
    "RequireAnyClientCert": [False, True, True, True],
    "VerifyClientCertIfGiven": [True, True, False, False],
    "RequireAndVerifyClientCert": [False, True, False, False],
}
for auth, want in GO.items():
    tls = dict(TLS, client_auth_type=auth)
    if auth != "NoClientCert":
        tls["client_ca_file"] = path("ca.crt")
    ex = Exporter(replay, "--web.config.file", web_config("web-%s.yml" % auth, tls))
    try:
        got = [https(ex.port, ctx=context(cert=c))[0] == 200 for c in CLIENTS]
    finally:
        ex.stop()
    t.ok(got == want, "client_auth_type %s: served for %s: %r, as Go: %r"
         % (auth, CLIENTS, got, want))
# Without client_ca_file, RequireAnyClientCert still asks for and needs one.
ex = Exporter(replay, "--web.config.file", web_config(
    "web-any.yml", dict(TLS, client_auth_type="RequireAnyClientCert")))
try:
    got = [https(ex.port, ctx=context(cert=c))[0] == 200 for c in (None, "foreign")]
finally:
    ex.stop()
t.ok(got == [False, True], "RequireAnyClientCert without client_ca_file: none refused,"
     " any served (%r)" % got)

# --- refused files: FILE:LINE: reason, exit status 2 ------------------------
with open(path("garbage.pem"), "w") as f:
    f.write("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n")
BAD = [
    ("malformed YAML", "tls_server_config:\n  cert_file: [a, b\n  key_file: x\n", 3, r""),
    ("an unknown key", "basic_auth_users:\n  alice: '%s'\nbasic_auth_user: {}\n" % H_ALICE,
     3, r"unknown key 'basic_auth_user'"),
    ("an unknown key in tls_server_config",
     "tls_server_config:\n  cert_file: %s\n  keyfile: x\n" % TLS["cert_file"], 3,
     r"unknown key 'keyfile'"),
    ("cipher_suites", "tls_server_config:\n  cert_file: a\n  key_file: b\n"
     "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n", 4, r"cipher_suites: not supported"),
    ("client_allowed_sans", "tls_server_config:\n  client_allowed_sans: [x]\n", 2,
     r"client_allowed_sans: not supported"),
    ("a hash that is not bcrypt", "basic_auth_users:\n  alice: '$6$salt$abc'\n", 2,
     r"not a bcrypt hash"),
    ("a $2x$ hash", "basic_auth_users:\n  alice: '$2x$" + H_ALICE[4:] + "'\n", 2,
     r"not a bcrypt hash"),
    ("a wrong type", "basic_auth_users:\n  - alice\n", 2, r"wants a mapping"),
    ("a cert_file that cannot be read", "tls_server_config:\n  cert_file: %s\n"
     "  key_file: %s\n" % (path("nonexistent.crt"), TLS["key_file"]), 2, r"cannot read"),
    ("a key_file that is no key", "tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
     % (TLS["cert_file"], path("garbage.pem")), 3, r"key_file"),
    ("a key that is not the certificate's", "tls_server_config:\n  cert_file: %s\n"
     "  key_file: %s\n" % (TLS["cert_file"], path("client.key")), 3, r"key_file"),
    ("an unknown client_auth_type", "tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
     "  client_auth_type: RequireSomething\n" % (TLS["cert_file"], TLS["key_file"]), 4,
     r"invalid ClientAuth"),
    ("client_ca_file with NoClientCert", "tls_server_config:\n  cert_file: %s\n"
     "  key_file: %s\n  client_ca_file: %s\n" % (TLS["cert_file"], TLS["key_file"],
                                                 path("ca.crt")), 4, r"Client Auth Policy"),
    ("client_auth_type without a certificate", "tls_server_config:\n"
     "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: %s\n" % path("ca.crt"),
     2, r"missing cert_file"),
    ("an unknown TLS version", "tls_server_config:\n  min_version: TLS14\n", 2,
     r"unknown TLS version"),
    ("http_server_config headers", "http_server_config:\n  headers:\n    X-Frame-Options: deny\n",
     2, r"headers: not supported"),
]
for what, text, lineno, reason in BAD:
    with open(path("bad.yml"), "w") as f:
        f.write(text)
    st, err = run_replay(replay, "--web.config.file", path("bad.yml"))
    m = re.search(re.escape(path("bad.yml")) + r":(\d+): (.*)", err)
    t.ok(st == 2 and m and int(m.group(1)) == lineno and re.search(reason, m.group(2)),
         "%s: exit 2 and bad.yml:%d: %s (%r, %r)" % (what, lineno, reason or "reason", st,
                                                      err.strip()[:200]))

# --- SIGHUP: a bad file keeps the old config, a good one takes over --------
hup_cfg = web_config("web-hup.yml", TLS, {"alice": H_ALICE})
ex = Exporter(replay, "--web.config.file", hup_cfg)
try:
    port = ex.port
    before = listen_inodes(port)
    t.ok(len(before) == 1, "one socket listens on the port (%r)" % before)
    alice, carol = ("alice", "alice-pw"), ("carol", "carol-pw")
    t.ok([https(port, auth=a)[0] for a in (alice, carol)] == [200, 401],
         "before SIGHUP: alice 200, carol 401")

    with open(hup_cfg, "w") as f:
        f.write("tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
                "basic_auth_users:\n  carol: 'nothash'\n" % (TLS["cert_file"], TLS["key_file"]))
    seen = len(ex.stderr)
    ex.proc.send_signal(signal.SIGHUP)
    said = ex.wait_log("refused", seen, 20)
    t.ok(any(re.search(re.escape(hup_cfg) + r":5: .*not a bcrypt hash", ln)
             for ln in ex.stderr[seen:]) and said,
         "SIGHUP with a bad file: FILE:LINE: reason and 'refused' (%r)" % ex.stderr[seen:])
    t.ok(ex.alive() and [https(port, auth=a)[0] for a in (alice, carol)] == [200, 401],
         "after the bad file: still serving the old config (alice 200, carol 401)")

    # New users, and new TLS material: a certificate of the other CA.
    with open(hup_cfg, "w") as f:
        f.write("tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
                "basic_auth_users:\n  carol: '%s'\n" % (path("server2.crt"),
                                                        path("server2.key"), H_CAROL))
    seen = len(ex.stderr)
    ex.proc.send_signal(signal.SIGHUP)
    ok = wait_for(lambda: https(port, auth=carol, ctx=context("ca2"))[0] == 200)
    t.ok(ok, "after SIGHUP with a good file: carol 200 over the new certificate (%r)"
         % ex.stderr[seen:])
    t.ok(https(port, auth=alice, ctx=context("ca2"))[0] == 401,
         "alice, no longer in the file, 401")
    t.ok(https(port, auth=carol)[0] is None, "the old certificate is no longer served")
    after = listen_inodes(port)
    t.ok(after == before, "the same listening socket throughout (inode %r, then %r)"
         % (before, after))
    # The reader thread takes stderr as it comes: the line may trail the reload.
    t.ok(ex.wait_log("SIGHUP: serving", seen),
         "the reload is said on stderr")
finally:
    rc = ex.stop()
t.ok(rc == 0, "kprint_exporter stops after the reloads with status 0 (%r)" % rc)

# --- a real Prometheus scraping over TLS with basic auth -------------------
def query(prom, expr):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (prom, urllib.parse.urlencode({"query": expr}))
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            res = json.loads(r.read())["data"]["result"]
    except (OSError, ValueError, KeyError):
        return None
    return res[0]["value"][1] if res else "none"


ex = Exporter(replay, "--web.telemetry-path", "/m", "--web.config.file", main_cfg)
prom_port = free_port()
with open(path("prometheus.yml"), "w") as f:
    f.write("""global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: kprint
    scheme: https
    metrics_path: /m
    tls_config:
      ca_file: %s
    basic_auth:
      username: bob
      password: 'bob:pw'
    static_configs:
      - targets: ['127.0.0.1:%d']
""" % (path("ca.crt"), ex.port))
plog = open(path("prometheus.log"), "wb")
prom = subprocess.Popen(["prometheus", "--config.file=" + path("prometheus.yml"),
                         "--storage.tsdb.path=" + path("tsdb"),
                         "--web.listen-address=127.0.0.1:%d" % prom_port],
                        stdout=plog, stderr=subprocess.STDOUT)
try:
    def ready():
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % prom_port,
                                        timeout=5) as r:
                return r.status == 200
        except OSError:
            return prom.poll() is not None
    t.ok(wait_for(ready, 60, 0.2) and prom.poll() is None, "prometheus is ready")
    up = wait_for(lambda: query(prom_port, 'up{job="kprint"}') == "1" and "1", 30, 0.3)
    t.ok(up == "1", "prometheus scrapes the exporter over TLS with basic auth: up 1 (%r)"
         % query(prom_port, 'up{job="kprint"}'))
    expr = 'sum(kprint_format_messages_total{job="kprint",format="%s"})' % FORMAT
    got = wait_for(lambda: query(prom_port, expr) == str(N) and str(N), 30, 0.3)
    t.ok(got == str(N), "prometheus: %s is %d, the count in the replay file (%r)"
         % (expr, N, query(prom_port, expr)))
finally:
    prom.send_signal(signal.SIGTERM)
    try:
        prom.wait(20)
    except subprocess.TimeoutExpired:
        prom.kill()
        prom.wait()
    plog.close()
    ex.stop()
if t.failed:
    with open(path("prometheus.log"), "rb") as f:
        for ln in f.read().decode("utf-8", "replace").splitlines():
            if "level=error" in ln or "level=warn" in ln:
                print("# prometheus: " + ln[:200])

shutil.rmtree(work, ignore_errors=True)
t.done()
