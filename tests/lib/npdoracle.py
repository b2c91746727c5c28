# SPDX-License-Identifier: GPL-2.0
"""node-problem-detector's kernel monitor, redone in Python as the oracle of
the problem tests' --npd-rules checks (tests/lib/problemcheck.py).

What NPD does with /dev/kmsg (pkg/systemlogmonitor: logwatchers/kmsg,
log_buffer.go, log_monitor.go; pkg/util's GetStartTime()): a message that
is empty, or stamped before the monitor's start time (the later of boot +
"delay" and now - "lookback"; now without a lookback) is passed over;
every other one, trimmed of white space, is pushed into a ring of
bufferSize messages, the ring is joined with "\\n" (empty slots too), and
each rule's PATTERN + "\\z" is searched in that string.  A temporary rule
that matches makes an event, counted in problem_counter{reason}; a
permanent one sets its condition True with its reason and makes an event,
counted, only when the condition's status or reason changes.  Python's re
with re.ASCII stands in for Go's RE2 (the rules of
tests/host/npd/kernel-monitor.json use nothing the two read differently).
Nothing here comes from the exporter's matcher (exporter/lib/kpc_npd.c,
PCRE2): the two are written apart.
"""
import collections
import json
import re

GO_UNITS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6,
            "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
GO_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def go_duration(text):
    """Nanoseconds of a Go duration ("5m", "1h30m", "0"); ValueError if none."""
    if text in ("0", "+0", "-0"):
        return 0
    s, total = text.lstrip("+"), 0
    if not s:
        raise ValueError(text)
    while s:
        m = GO_PART.match(s)
        if not m:
            raise ValueError(text)
        total += round(float(m.group(1)) * GO_UNITS[m.group(2)])
        s = s[m.end():]
    return total


class NpdMonitor:
    """One NPD rule file run over a list of kernel log records."""

    def __init__(self, path, lookback=None):
        with open(path) as f:
            cfg = json.load(f)
        self.source = cfg.get("source", "")
        self.size = cfg.get("bufferSize") or 10
        self.lookback = lookback if lookback is not None else cfg.get("lookback")
        self.delay = cfg.get("delay")
        self.rules = [(r["type"], r["reason"], r.get("condition"),
                       re.compile(r["pattern"] + r"\Z", re.ASCII)) for r in cfg["rules"]]
        self.reasons = {r[1] for r in self.rules}

    def start_ns(self, now_ns):
        """GetStartTime(): boot + delay, or now - lookback if later."""
        start = go_duration(self.delay) if self.delay else 0
        back = now_ns - go_duration(self.lookback) if self.lookback else now_ns
        return max(start, back)

    def run(self, records, now_ns):
        """What NPD, started at now_ns after boot, makes of records (dicts
        with text and usec, oldest first): hits {reason: n} (every match,
        as kprint_problem_total counts them), counter {reason: n} (NPD's
        problem_counter) and conditions {type: reason} (those set True)."""
        since = self.start_ns(now_ns)
        ring = collections.deque([""] * self.size, maxlen=self.size)
        hits, counter, conditions = {}, {}, {}
        for r in records:
            if not r["text"] or r["usec"] * 1000 < since:
                continue
            ring.append(r["text"].strip(" \t\n\v\f\r"))
            joined = "\n".join(ring)
            for kind, reason, cond, rx in self.rules:
                if not rx.search(joined):
                    continue
                hits[reason] = hits.get(reason, 0) + 1
                if kind == "permanent":
                    if conditions.get(cond) == reason:
                        continue
                    conditions[cond] = reason
                counter[reason] = counter.get(reason, 0) + 1
        return hits, counter, conditions
