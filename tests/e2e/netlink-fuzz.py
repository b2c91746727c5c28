#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A seeded random generic-netlink request storm against the kprint family.

Requests are built from valid ones and mutated: any command, version,
reserved field and flags; attributes of any type (known and unknown),
wrong sizes, strings without their NUL, nests that are not nests or hold
junk, truncated TLVs, over-long values, up to 40 arguments, trailing junk.
Several requests go in one datagram, as netlink allows, each with
NLM_F_ACK, followed by a sentinel stats request: the sentinel's answer
proves the kernel processed the whole batch and is still answering.
Dumps with random starts go alone and are read to their end.  A few
datagrams are pure random bytes.

The oracle: every batch's sentinel is answered with sane stats, every
refusal carries a known errno, the module's counters stay consistent,
and (checked by tests/vm/run) the console shows no splat.  Then
tests/e2e/sustained.sh runs in the same guest: the module must still
deliver everything at a steady rate.

KPRINT_NLFUZZ_N requests (default 20000 in make check, 250000 in make soak),
KPRINT_NLFUZZ_SEED (default 1).
"""
import collections
import errno
import os
import random
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import check, finish, reload_kprint, sized  # noqa: E402
from kpnl import K, nla  # noqa: E402

N = int(os.environ.get("KPRINT_NLFUZZ_N", sized("20000", "250000")))
SEED = int(os.environ.get("KPRINT_NLFUZZ_SEED", "1"))
BATCH = 32
rng = random.Random(SEED)



# Records are echoed to printk; a storm of accepted emits would only slow
# the console down, so the module is reloaded without the echo.
reload_kprint("printk=0")

# Acks without the echoed request, and room for a whole batch of them.
g = kpnl.Genl(rcvbuf=4 << 20)
g.sock.setsockopt(kpnl.SOL_NETLINK, 10, 1)	# NETLINK_CAP_ACK
g.sock.settimeout(30)
FAMILY = g.family
RA = [v for k, v in K.items() if k.startswith("KPRINT_RECORD_A_") and isinstance(v, int)]
TOP = [v for k, v in K.items() if k.startswith("KPRINT_A_") and isinstance(v, int)]
CMDS = [v for k, v in K.items() if k.startswith("KPRINT_CMD_") and isinstance(v, int)]
STR_LIMITS = [0, 1, 15, 16, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4000]


ALPHABET = b"abc %dsuxpI4\\\"\n\x00\xff"


def rand_bytes(n):
    return rng.randbytes(n)


def rand_string():
    # Mostly short; the limits and their neighbours now and then.
    n = rng.choice(STR_LIMITS) if rng.random() < 0.2 else rng.randrange(0, 24)
    s = bytes(rng.choices(ALPHABET, k=n))
    return s + (b"\0" if rng.random() < 0.8 else b"")


def rand_format():
    parts = [rng.choice(["fuzz", "%d", "%s", "%u", "%x", "%llu", "%pI4", "%*d",
                         "%%", "%p", "%n", "%c", "%-5d", "%.3s", "%", "\n", "é"])
             for _ in range(rng.randrange(0, 8))]
    return "".join(parts).encode() + b"\0"


def rand_value(atype):
    kind = rng.random()
    if kind < 0.35:
        return struct.pack("=I", rng.choice([0, 1, 3, 7, 8, 255, 0xFFFFFFFF, rng.getrandbits(32)]))
    if kind < 0.5:
        return struct.pack("=Q", rng.getrandbits(64))
    if kind < 0.8:
        return rand_string()
    if kind < 0.9:
        return rand_bytes(rng.randrange(0, 40))
    return b"".join(rand_attr(depth=1) for _ in range(rng.randrange(0, 4)))


def rand_attr(depth=0):
    atype = rng.choice(RA + [0, rng.randrange(0, 64)])
    if rng.random() < 0.05:
        atype |= kpnl.NLA_F_NESTED
    return nla(atype, rand_value(atype)) if depth < 2 else nla(atype, rand_bytes(4))


def good_record():
    """A valid-looking emit record: level, format, matching args."""
    attrs = [kpnl.nla_u32(K["KPRINT_RECORD_A_LEVEL"], rng.randrange(0, 9)),
             nla(K["KPRINT_RECORD_A_FORMAT"], rand_format())]
    size = 0
    for _ in range(rng.choice([0, 1, 2, 3, 16, 17, 40])):
        attrs.append(nla(K["KPRINT_RECORD_A_ARG"], rand_string()))
        size += len(attrs[-1])
        if size > 40000:	# a nest's length is 16 bits
            break
    if rng.random() < 0.3:
        attrs.append(kpnl.nla_u32(K["KPRINT_RECORD_A_CLASS"], rng.randrange(0, 7)))
    if rng.random() < 0.3:
        attrs.append(nla(K["KPRINT_RECORD_A_SUBSYSTEM"], rand_string()))
    return attrs


def mutate(attrs):
    attrs = list(attrs)
    for _ in range(rng.randrange(0, 4)):
        op = rng.random()
        if op < 0.3 and attrs:
            attrs.pop(rng.randrange(len(attrs)))
        elif op < 0.6:
            attrs.insert(rng.randrange(len(attrs) + 1), rand_attr())
        elif attrs:
            i = rng.randrange(len(attrs))
            a = bytearray(attrs[i])
            if len(a) > 4 and rng.random() < 0.5:
                a[rng.randrange(len(a))] = rng.getrandbits(8)
            elif a:
                del a[rng.randrange(len(a)):]
            attrs[i] = bytes(a)
    return attrs


def payload():
    top = []
    r = rng.random()
    if r < 0.6:
        rec = b"".join(mutate(good_record()))
        top.append(nla(K["KPRINT_A_RECORD"] | (kpnl.NLA_F_NESTED if rng.random() < 0.5 else 0), rec))
    elif r < 0.8:
        top.append(nla(rng.choice(TOP + [0, 99]), rand_value(0)))
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        top.append(rand_attr())
    body = b"".join(top)
    if rng.random() < 0.05:
        body += rand_bytes(rng.randrange(1, 8))
    return body


def message(seq, cmd, body, flags, version=1, reserved=0, family=None):
    gen = struct.pack("=BBH", cmd, version, reserved) + body
    msg = struct.pack("=IHHII", 16 + len(gen), FAMILY if family is None else family,
                      flags, seq, 0) + gen
    # The next message of a batch starts NLMSG_ALIGN()ed.
    return msg + b"\0" * (-len(msg) % 4)


def random_request(seq):
    # Mostly emit, the op with the most to validate.
    r = rng.random()
    cmd = K["KPRINT_CMD_EMIT"] if r < 0.6 else rng.choice(CMDS + [0, 5, 200, 255])
    flags = kpnl.NLM_F_REQUEST | kpnl.NLM_F_ACK
    if rng.random() < 0.05:
        flags |= rng.getrandbits(12) & ~0x300  # never a dump inside a batch
    version = 1 if rng.random() < 0.9 else rng.getrandbits(8)
    reserved = 0 if rng.random() < 0.9 else rng.getrandbits(16)
    # Other families are left alone: as root, a random request to them
    # could change the guest.  Types below NLMSG_MIN_TYPE are control
    # messages the core must ignore.
    family = None if rng.random() < 0.97 else rng.choice([0, 1, 2, 3, 4, 15])
    return message(seq, cmd, payload(), flags, version, reserved, family)


errnos = collections.Counter()
sent = answered = stored_claims = 0
seq = 1000


def read_until(want_seq, dump=False):
    """Read replies until the sentinel's ack (or a dump's end); tally errnos."""
    global answered
    while True:
        data = g.sock.recv(1 << 20)
        off = 0
        while off < len(data):
            mlen, mtype, mflags, mseq, mpid = struct.unpack_from("=IHHII", data, off)
            if mlen < 16:
                raise RuntimeError("kernel sent a short message")
            if mtype == kpnl.NLMSG_ERROR:
                err = struct.unpack_from("=i", data, off + 16)[0]
                errnos[-err] += 1
                answered += 1
                if mseq == want_seq:
                    return -err
            elif mtype == kpnl.NLMSG_DONE and dump and mseq == want_seq:
                answered += 1
                return 0
            off += (mlen + 3) & ~3


t0 = time.monotonic()
batches = dumps = raw = 0
before = g.stats()
while sent < N:
    r = rng.random()
    if r < 0.03:
        # A dump, alone, from a random place (and sometimes with junk).
        seq += 1
        body = b""
        if rng.random() < 0.8:
            body = nla(K["KPRINT_A_START_SEQ"], struct.pack("=Q", rng.choice(
                [0, 1, 2**63, 2**64 - 1, rng.getrandbits(64), rng.randrange(0, 5000)])))
        if rng.random() < 0.2:
            body += rand_attr()
        g.sock.send(message(seq, K["KPRINT_CMD_RECORD_GET"], body,
                            kpnl.NLM_F_REQUEST | kpnl.NLM_F_DUMP))
        read_until(seq, dump=True)
        sent += 1
        dumps += 1
        continue
    if r < 0.04:
        # Pure junk: the kernel may answer or not; a sentinel follows.
        g.sock.send(rand_bytes(rng.randrange(1, 64)))
        raw += 1
    msgs = []
    for _ in range(rng.randrange(1, BATCH)):
        seq += 1
        msgs.append(random_request(seq))
    seq += 1
    msgs.append(message(seq, K["KPRINT_CMD_STATS_GET"], b"",
                        kpnl.NLM_F_REQUEST | kpnl.NLM_F_ACK))
    g.sock.send(b"".join(msgs))
    sent += len(msgs) - 1
    batches += 1
    try:
        status = read_until(seq)
    except socket.timeout:
        # Keep the batch for a reproducer; the test fails below.
        path = os.path.join(os.environ.get("KPRINT_VM_SCRATCH", "/tmp"), "nlfuzz-stuck.bin")
        open(path, "wb").write(b"".join(msgs))
        check(f"batch ending with sentinel {seq} answered within 30 s", False, path)
        break
    if status != 0:
        check(f"sentinel stats request {seq} answered", False, "it failed")
        break
elapsed = time.monotonic() - t0
after = g.stats()

known = {0, errno.EINVAL, errno.ENOENT, errno.EOPNOTSUPP, errno.EPERM, errno.ERANGE,
         errno.EMSGSIZE, errno.E2BIG, errno.ENOBUFS, errno.EBADMSG, errno.ENODATA,
         errno.EPROTO, errno.ESHUTDOWN}
print(f"# {sent} requests in {batches} batches, {dumps} dumps, {raw} junk datagrams,"
      f" {elapsed:.1f} s ({sent / elapsed:.0f}/s), seed {SEED}")
print("# answers by errno: " + ", ".join(f"{errno.errorcode.get(e, e) if e else 'ok'} {n}"
                                         for e, n in errnos.most_common()))
check(f"{sent} random requests sent (wanted {N}), every batch's sentinel answered",
      sent >= N)
check("only known errnos came back", set(errnos) <= known, sorted(set(errnos) - known))
stored = after["records"] - before["records"]
accepted = errnos[0] - batches
check(f"records stored ({stored}) never exceed requests accepted ({accepted})",
      0 <= stored <= accepted)
check("the ring's counters are consistent",
      after["next_seq"] - after["first_seq"] == after["ring_records"] and
      after["records"] == after["next_seq"] - 1 and
      after["records"] == after["ring_records"] + after["overwritten"], after)
# The kernel still does its job: a real emit, read back by a dump.
s = g.emit(3, "nlfuzz done %d", ["1"])
check("a well-formed emit still works and dumps back",
      any(r["seq"] == s and r["text"] == "nlfuzz done 1" for r in g.dump(s)))
g.close()

# Back to the module as the suite loads it, and hold a steady rate.
reload_kprint(*os.environ.get("KPRINT_VM_MODPARAMS", "").split())
env = dict(os.environ, KPRINT_SUSTAINED_RATE=os.environ.get("KPRINT_SUSTAINED_RATE", "1000"),
           KPRINT_SUSTAINED_SECONDS=os.environ.get("KPRINT_SUSTAINED_SECONDS", sized("3", "60")))
rc = subprocess.run(["tests/e2e/sustained.sh"], env=env).returncode
check("afterwards the module passes tests/e2e/sustained.sh", rc == 0, f"status {rc}")
finish()
