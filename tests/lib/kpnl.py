# SPDX-License-Identifier: GPL-2.0
"""A deliberately independent generic-netlink client for kprint tests.

It shares no code with exporter/lib: tests use it as a second opinion on what
the kernel sends, and to send requests the real CLI never would (unknown
attributes, wrong sizes, junk) to check that the kernel rejects them with an
extack message.  Constants are read from the UAPI header, not copied.
"""
import os
import re
import socket
import struct

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_EXT_ACK = 11
NETLINK_GET_STRICT_CHK = 12
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_DUMP = 1, 2, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS = 1, 2
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
CTRL_ATTR_OPS, CTRL_ATTR_MCAST_GROUPS = 6, 7
CTRL_ATTR_OP_ID, CTRL_ATTR_OP_FLAGS = 1, 2
CTRL_ATTR_MCAST_GRP_NAME, CTRL_ATTR_MCAST_GRP_ID = 1, 2
NLA_F_NESTED = 1 << 15

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "include", "uapi", "linux", "kprint.h")


def _uapi():
    """Enum values of the UAPI header, counted the way C counts them."""
    consts = {}
    text = re.sub(r"/\*.*?\*/", "", open(HEADER).read(), flags=re.S)
    for body in re.findall(r"enum\s+\w+\s*{(.*?)}", text, re.S):
        nxt = 0
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, val = item.partition("=")
            name = name.strip()
            if val.strip():
                nxt = eval(val.strip(), {}, dict(consts))
            consts[name] = nxt
            nxt += 1
    for name, val in re.findall(r"#define\s+(KPRINT_\w+)\s+(\S+)", text):
        consts.setdefault(name, val.strip('"'))
    return consts


K = _uapi()


class NetlinkError(Exception):
    def __init__(self, errno, msg):
        super().__init__(f"errno {errno}: {msg}")
        self.errno = errno
        self.msg = msg


def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * ((4 - len(payload) % 4) % 4)


def nla_u32(atype, v):
    return nla(atype, struct.pack("=I", v))


def nla_u64(atype, v):
    return nla(atype, struct.pack("=Q", v))


def nla_str(atype, s):
    return nla(atype, (s.encode() if isinstance(s, str) else s) + b"\0")


def nla_nest(atype, *attrs):
    return nla(atype | NLA_F_NESTED, b"".join(attrs))


def parse_attrs(data):
    """List of (type, payload) in order; type keeps no flag bits."""
    out = []
    off = 0
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4:
            break
        out.append((atype & 0x3fff, data[off + 4:off + alen]))
        off += (alen + 3) & ~3
    return out


def _str(b):
    return b.rstrip(b"\0").decode("utf-8", "surrogateescape")


class Genl:
    def __init__(self, family=K["KPRINT_GENL_NAME"], rcvbuf=None):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 1
        self.family = self.resolve(family) if family else None

    def close(self):
        self.sock.close()

    def send(self, family_id, cmd, payload=b"", flags=NLM_F_REQUEST | NLM_F_ACK,
             version=1, reserved=0):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, reserved) + payload
        msg = struct.pack("=IHHII", 16 + len(body), family_id, flags, self.seq, 0) + body
        self.sock.send(msg)
        return self.seq

    def messages(self):
        """Yield (type, flags, genl cmd, attrs) until DONE or an ack."""
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off < len(data):
                mlen, mtype, mflags, mseq, mpid = struct.unpack_from("=IHHII", data, off)
                payload = data[off + 16:off + mlen]
                off += (mlen + 3) & ~3
                if mtype == NLMSG_DONE:
                    return
                if mtype == NLMSG_ERROR:
                    err = struct.unpack_from("=i", payload)[0]
                    if err == 0:
                        return
                    inner_len = struct.unpack_from("=I", payload, 4)[0]
                    # The request comes back whole (or capped to its header
                    # with NLM_F_CAPPED); the extack TLVs follow, aligned.
                    tlv_off = 4 + (16 if mflags & 0x100 else (inner_len + 3) & ~3)
                    msg = ""
                    for t, v in parse_attrs(payload[tlv_off:]):
                        if t == NLMSGERR_ATTR_MSG:
                            msg = _str(v)
                    raise NetlinkError(-err, msg)
                yield mtype, mflags, payload[0], parse_attrs(payload[4:])

    def request(self, family_id, cmd, payload=b"", **kw):
        self.send(family_id, cmd, payload, **kw)
        return list(self.messages())

    def resolve(self, name):
        msgs = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                            nla_str(CTRL_ATTR_FAMILY_NAME, name))
        attrs = dict(msgs[0][3])
        self.ctrl = msgs[0][3]
        self.groups = {}
        for _, grp in parse_attrs(attrs.get(CTRL_ATTR_MCAST_GROUPS, b"")):
            g = dict(parse_attrs(grp))
            self.groups[_str(g[CTRL_ATTR_MCAST_GRP_NAME])] = \
                struct.unpack("=I", g[CTRL_ATTR_MCAST_GRP_ID])[0]
        self.ops = {}
        for _, op in parse_attrs(attrs.get(CTRL_ATTR_OPS, b"")):
            o = dict(parse_attrs(op))
            self.ops[struct.unpack("=I", o[CTRL_ATTR_OP_ID])[0]] = \
                struct.unpack("=I", o[CTRL_ATTR_OP_FLAGS])[0]
        return struct.unpack("=H", attrs[CTRL_ATTR_FAMILY_ID])[0]

    def join(self, group=K["KPRINT_MCGRP_RECORDS"]):
        self.sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, self.groups[group])

    def kprint(self, cmd, payload=b"", **kw):
        return self.request(self.family, K[cmd], payload, **kw)

    def dump(self, start_seq=None):
        payload = b"" if start_seq is None else nla_u64(K["KPRINT_A_START_SEQ"], start_seq)
        records = []
        for _, _, _, attrs in self.kprint("KPRINT_CMD_RECORD_GET", payload,
                                          flags=NLM_F_REQUEST | NLM_F_DUMP):
            records += [decode_record(v) for t, v in attrs if t == K["KPRINT_A_RECORD"]]
        return records

    def stats(self):
        msgs = self.kprint("KPRINT_CMD_STATS_GET")
        nest = dict(msgs[0][3])[K["KPRINT_A_STATS"]]
        names = {v: k for k, v in K.items() if k.startswith("KPRINT_STATS_A_")}
        return {names[t][len("KPRINT_STATS_A_"):].lower(): struct.unpack("=Q", v)[0]
                for t, v in parse_attrs(nest) if t != K["KPRINT_STATS_A_PAD"]}

    def emit(self, level, fmt, args=(), klass=None, subsystem=None):
        attrs = [nla_u32(K["KPRINT_RECORD_A_LEVEL"], level),
                 nla_str(K["KPRINT_RECORD_A_FORMAT"], fmt)]
        if klass is not None:
            attrs.append(nla_u32(K["KPRINT_RECORD_A_CLASS"], klass))
        if subsystem is not None:
            attrs.append(nla_str(K["KPRINT_RECORD_A_SUBSYSTEM"], subsystem))
        attrs += [nla_str(K["KPRINT_RECORD_A_ARG"], a) for a in args]
        msgs = self.kprint("KPRINT_CMD_EMIT", nla_nest(K["KPRINT_A_RECORD"], *attrs))
        return struct.unpack("=Q", dict(msgs[0][3])[K["KPRINT_A_SEQ"]])[0]

    def notifications(self):
        """Records from the next multicast message(s) (blocks)."""
        for _, _, cmd, attrs in self.messages():
            if cmd == K["KPRINT_CMD_RECORD_NTF"]:
                yield [decode_record(v) for t, v in attrs if t == K["KPRINT_A_RECORD"]]


_U64 = {"SEQ", "TS_MONO_NS", "TS_REAL_NS", "FORMAT_ID", "BLOCK_ID", "CONTINUES", "PRINTK_SEQ"}
_U32 = {"LEVEL", "CLASS", "CPU", "PID", "LINE", "FLAGS", "SOURCE", "FACILITY"}


# What the kernel sends only when set (schema/kprint.yaml: "sent as absent").
_ABSENT = {"block_id": 0, "device": "", "facility": 0, "continues": 0, "printk_seq": 0}


def decode_record(nest):
    names = {v: k[len("KPRINT_RECORD_A_"):] for k, v in K.items()
             if k.startswith("KPRINT_RECORD_A_") and isinstance(v, int)}
    rec = {"args": [], **_ABSENT}
    for t, v in parse_attrs(nest):
        name = names.get(t, str(t))
        if name == "PAD":
            continue
        if name in _U64:
            rec[name.lower()] = struct.unpack("=Q", v)[0]
        elif name in _U32:
            rec[name.lower()] = struct.unpack("=I", v)[0]
        elif name == "ARG":
            rec["args"].append(_str(v))
        else:
            rec[name.lower()] = _str(v)
    return rec


def fnv1a64(data):
    h = int(K["KPRINT_FNV1A64_OFFSET"].rstrip("ULL"), 16)
    prime = int(K["KPRINT_FNV1A64_PRIME"].rstrip("ULL"), 16)
    for b in data:
        h = ((h ^ b) * prime) & 0xFFFFFFFFFFFFFFFF
    return h
