# SPDX-License-Identifier: GPL-2.0
"""A Server-Sent Events client for the tests of kprint_exporter's /events,
on the host (exporter-events.py) and in the guest (tests/e2e/
exporter-events.py): a raw socket, so that a test can stop reading, and
an HTTP/1.1 chunked body parsed by hand.  Every read has a deadline.
"""
import json
import socket
import time


class Stream:
    """GET path on host:port; .status, .headers, .body (non-200), then
    events from next_event()."""

    def __init__(self, host, port, path, headers=None, rcvbuf=None, timeout=10):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            # Before connect, so that the window stays small.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        req = "GET %s HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n" % path
        for k, v in (headers or {}).items():
            req += "%s: %s\r\n" % (k, v)
        self.sock.sendall((req + "\r\n").encode())
        self.raw = b""          # read, not yet de-chunked
        self.text = b""         # de-chunked, not yet parsed
        self.ended = False
        head = self._until(b"\r\n\r\n", time.monotonic() + timeout)
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split(" ")[1])
        self.headers = {k.strip().lower(): v.strip() for k, _, v in
                        (ln.partition(":") for ln in lines[1:] if ln)}
        self.body = b""
        if self.status != 200 and "content-length" in self.headers:
            n = int(self.headers["content-length"])
            while len(self.raw) < n:
                self._recv(time.monotonic() + timeout)
            self.body, self.raw = self.raw[:n], self.raw[n:]

    def _recv(self, end):
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("no data in time")
        self.sock.settimeout(left)
        got = self.sock.recv(65536)
        if not got:
            raise EOFError("the server closed the stream")
        self.raw += got

    def _until(self, sep, end):
        while sep not in self.raw:
            self._recv(end)
        head, _, self.raw = self.raw.partition(sep)
        return head

    def _dechunk(self, end):
        """Move one chunk from raw to text."""
        size = int(self._until(b"\r\n", end).split(b";")[0], 16)
        while len(self.raw) < size + 2:
            self._recv(end)
        self.text += self.raw[:size]
        self.raw = self.raw[size + 2:]
        if size == 0:
            self.ended = True

    def next_block(self, timeout=10):
        """The next event or comment block as text (without its blank
        line); raises TimeoutError, or EOFError when the stream ended."""
        end = time.monotonic() + timeout
        while b"\n\n" not in self.text:
            if self.ended:
                raise EOFError("the stream ended")
            self._dechunk(end)
        block, _, self.text = self.text.partition(b"\n\n")
        return block.decode("utf-8")

    def next_event(self, timeout=10, comments=False):
        """The next event as a dict: event (default "message"), id, data
        (parsed JSON); comments too when asked ({"comment": text})."""
        while True:
            block = self.next_block(timeout)
            ev = {"event": "message"}
            for ln in block.split("\n"):
                if ln.startswith(":"):
                    ev["comment"] = ln[1:].strip()
                    continue
                k, _, v = ln.partition(":")
                v = v[1:] if v.startswith(" ") else v
                ev[k] = json.loads(v) if k == "data" else v
            if "comment" in ev and len(ev) == 2:
                if comments:
                    return ev
                continue
            return ev

    def events_until(self, last_id, timeout=10, limit=100000):
        """Events up to and including the one whose id is last_id."""
        out = []
        while len(out) < limit:
            ev = self.next_event(timeout)
            out.append(ev)
            if ev.get("id") == last_id:
                break
        return out

    def close(self):
        self.sock.close()


def split_id(i):
    """(instance, seq) of an event id."""
    inst, _, seq = i.partition("-")
    return inst, int(seq)
