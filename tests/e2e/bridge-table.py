#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
"""The printk bridge, field by field: kprint_printk_test.ko's printk calls
(a table covering every conversion of kprint's own table, dev_*(),
pr_cont() from two CPUs interleaving, printk_ratelimited(), the
printk_deferred() path, print_hex_dump()) as `kprint monitor --json` receives
them, against the module's expected table and against what /dev/kmsg shows
for the same messages (text, level, facility, SUBSYSTEM, DEVICE)."""
import json
import os
import re
import signal
import sys
import time

import jsonschema

sys.path.insert(0, "tests/lib")
import kpnl  # noqa: E402
from lib import (CONVERSION, check, default_loglevel, finish, json_lines,  # noqa: E402
                 kmsg_records, kmsg_write, rebuild, start_monitor, load_printk_test_module, printk_test_expected, wait_for,
                 wait_subscribers, write_printk_param)

KPRINT_TABLE = "kernel/test/kprint_test_table.h"
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
MARK = "kppt-test: begin "
CONT_LINES = 4			# per thread
RL_BURST = 25			# calls in the printk_ratelimited() burst
F_TRUNCATED, F_BACKLOG, F_CONT = 1, 4, 8



def conversions(fmt):
    return {m.group() for m in CONVERSION.finditer(fmt)} - {"%%"}


load_printk_test_module()
expected = printk_test_expected()
by_trigger = {}
for e in expected:
    by_trigger.setdefault(e["trigger"], []).append(e)
default_level = LEVELS[default_loglevel()]

# Coverage: every conversion of kprint's own table is in this table.
theirs = set()
for line in open(KPRINT_TABLE):
    m = re.match(r'KPRINT_TEST_X\(\d+, \w+, "((?:[^"\\]|\\.)*)"', line)
    if m:
        theirs |= conversions(m.group(1))
theirs.add("%pV")		# kprint_test's entry 36, outside the table file
ours = set().union(*(conversions(e["format"]) for e in by_trigger["table"]))
check(f"the printk table covers the {len(theirs)} conversions of kprint's table",
      theirs <= ours and len(theirs) > 20, sorted(theirs - ours))

genl = kpnl.Genl()
stats0 = genl.stats()
check("the bridge is on", stats0.get("bridge") == 1, stats0.get("bridge"))
MONITOR_OUT = "/tmp/bridge-table.monitor.json"
monitor = start_monitor(MONITOR_OUT)
wait_subscribers(genl.groups["records"], 1)


def monitor_lines():
    return json_lines(MONITOR_OUT)


# kprint monitor follows from the ring's next seq as it is once it has
# started, which can be seconds after it joined the group in a loaded
# emulated guest: what is stored meanwhile is not its.  Say something until
# it shows, and count the bridge from there.
READY = "kppt-test: is the monitor there?"
next_ready = [0.0]


def monitor_follows():
    if time.monotonic() >= next_ready[0]:
        kmsg_write(READY)
        next_ready[0] = time.monotonic() + 0.5
    return any(o.get("text") == READY for o in monitor_lines())


wait_for("the monitor follows the ring", monitor_follows)
stats0 = genl.stats()

DEFERRED = "/sys/module/kprint/parameters/bridge_deferred"
# The conversions whose values the bridge keeps, to render them when the
# record is read (kprint_render_deferred()).
PLAIN = {"%s"} | {f"%{q}{c}" for q in ("", "l", "ll", "z") for c in "diux"}


def deferrable(e):
    """A table entry the bridge stores with its arguments as values: one of
    plain conversions, ending its line, not dev_*() nor cut."""
    if e["call"].endswith("_nonl") or e["device"] or e["truncated"]:
        return False
    convs = [m.group() for m in CONVERSION.finditer(e["format"]) if m.group() != "%%"]
    args = e.get("args", [""] * len(convs))
    strs = [a for c, a in zip(convs, args) if c == "%s"]
    # A string first could begin the text with a KERN_SOH, which printk
    # would take for a level.
    return set(convs) <= PLAIN and all(len(a.encode()) < 256 for a in strs) and \
        not e["format"].startswith("%s")


def read_deferred():
    with open(DEFERRED) as f:
        return int(f.read())


TRIGGERS = [("table", 1), ("dev", 1), ("cont", CONT_LINES), ("ratelimited", RL_BURST),
            ("deferred", 1), ("hexdump", 1)]
windows = {}
for trigger, n in TRIGGERS:
    kmsg_write(MARK + trigger)
    t0 = time.monotonic_ns()
    if trigger == "table":
        deferred0, bridged0 = read_deferred(), genl.stats()["bridged"]
    write_printk_param(trigger, n)
    windows[trigger] = (t0, time.monotonic_ns())
    if trigger == "table":
        deferred1, bridged1 = read_deferred(), genl.stats()["bridged"]
kmsg_write(MARK + "end")

# The monitor has everything once it has the last marker.
wait_for("the monitor received the end marker",
         lambda: any(o.get("text") == MARK + "end" for o in monitor_lines()))
stats1 = genl.stats()
monitor.send_signal(signal.SIGINT)
_, err = monitor.communicate(timeout=60)
lines_out = monitor_lines()
check("kprint monitor stopped cleanly", monitor.returncode == 0, err.strip())
check("the monitor lost nothing", not [o for o in lines_out if "lost" in o],
      [o for o in lines_out if "lost" in o][:3])

records = [o for o in lines_out if "seq" in o]
kmsg = kmsg_records()


def sections(items, text_of):
    """Items between the markers, by trigger."""
    out, cur = {}, None
    for it in items:
        t = text_of(it)
        if t.startswith(MARK):
            cur = t[len(MARK):]
            out[cur] = []
        elif cur is not None and cur != "end":
            out[cur].append(it)
    return out


printk_recs = [r for r in records if r.get("source") == "printk"]
bridged = sections(printk_recs, lambda r: r["text"])
kmsgs = sections(kmsg, lambda k: k["text"])
check("every trigger's markers are bridged and in /dev/kmsg",
      set(bridged) >= {t for t, _ in TRIGGERS} and set(kmsgs) >= {t for t, _ in TRIGGERS},
      (sorted(bridged), sorted(kmsgs)))
markers = [r for r in printk_recs if r["text"].startswith(MARK)]
check("a /dev/kmsg write is bridged with its facility (1, user) and level",
      markers and all((r["facility"], r["level"]) == (1, "info") for r in markers),
      [(r["facility"], r["level"]) for r in markers[:2]])

# The bridged counter counted what the monitor received, no more, no less.
first, last = markers[0]["seq"] if markers else 0, markers[-1]["seq"] if markers else 0
window = [r for r in printk_recs if first <= r["seq"] <= last]
check("the bridged counter grew by the printk records the monitor received",
      stats1["bridged"] - stats0["bridged"] == len(window),
      f"counter +{stats1['bridged'] - stats0['bridged']}, records {len(window)}")
drops = {k: stats1[k] - stats0[k] for k in stats1 if k.startswith("bridge_dropped") or
         k == "bridge_missed"}
check("nothing dropped or missed by the bridge", not any(drops.values()), drops)

validator = jsonschema.Draft202012Validator(json.load(open("schema/record.schema.json")))
me, comm = os.getpid(), open("/proc/self/comm").read().strip()
sizes = {}			# function name -> the sizes its records show


def level_name(exp_level):
    return default_level if exp_level == "default" else exp_level


def check_record(tag, rec, exp, km, window, text=None, level=None, args=True,
                 pid=me, comm=comm):
    """Every field of one bridged record against its expected entry and its
    /dev/kmsg record."""
    try:
        validator.validate(rec)
        check(f"{tag}: matches schema/record.schema.json", True)
    except jsonschema.ValidationError as e:
        check(f"{tag}: matches schema/record.schema.json", False, e.message)
    level = level or level_name(exp["level"])
    check(f"{tag}: source printk, class none", (rec["source"], rec["class"]) == ("printk", "none"),
          (rec["source"], rec["class"]))
    check(f"{tag}: format", rec["format"] == exp["format"], repr(rec["format"]))
    check(f"{tag}: format id is FNV-1a of the format",
          rec["format_id"] == "%016x" % kpnl.fnv1a64(exp["format"].encode("utf-8", "surrogateescape")),
          rec["format_id"])
    if args and "args" in exp:
        check(f"{tag}: args {exp['args']}", rec["args"] == exp["args"], rec["args"])
    elif args:
        check(f"{tag}: args match {exp['args_re']}", len(rec["args"]) == len(exp["args_re"]) and
              all(re.fullmatch(p, a) for p, a in zip(exp["args_re"], rec["args"])), rec["args"])
    check(f"{tag}: level {level}, as /dev/kmsg has it",
          rec["level"] == level == LEVELS[km["level"]] and LEVELS[rec["level_num"]] == level,
          (rec["level"], rec["level_num"], LEVELS[km["level"]]))
    check(f"{tag}: facility {km['facility']}, as /dev/kmsg has it",
          rec["facility"] == km["facility"] == 0, rec["facility"])
    want = text if text is not None else km["text"]
    check(f"{tag}: text is what /dev/kmsg shows", rec["text"] == want == km["text"],
          f"record {rec['text']!r}, kmsg {km['text']!r}")
    if text is None:
        # printk takes the level from the text: print_hex_dump()'s "%s".
        spelled = re.sub("^(\x01[0-7cd])+", "", rebuild(exp["format"], rec["args"]))
        spelled = exp["text_prefix"] + spelled
        check(f"{tag}: text is the format with its args", exp["truncated"] or rec["text"] == spelled,
              repr(spelled))
    check(f"{tag}: module {exp['module']}", rec["module"] == exp["module"], rec["module"])
    # %pS names GCC's parts and clones of a function as such: fn.cold.
    m = re.fullmatch(re.escape(exp["function"]) + r"((?:\.(?:cold|constprop|isra|part)(?:\.\d+)?)*)"
                     r"\+0x([0-9a-f]+)/0x([0-9a-f]+)", rec["function"])
    check(f"{tag}: function {exp['function']}+0xOFF/0xSIZE", m and int(m[2], 16) < int(m[3], 16),
          rec["function"])
    if m:
        sizes.setdefault(exp["function"] + m[1], set()).add(m[3])
    check(f"{tag}: no file or line", (rec["file"], rec["line"]) == ("", 0), (rec["file"], rec["line"]))
    check(f"{tag}: subsystem and device as /dev/kmsg's SUBSYSTEM and DEVICE",
          (rec["subsystem"], rec["device"]) == (exp["subsystem"], exp["device"]) ==
          (km.get("SUBSYSTEM", ""), km.get("DEVICE", "")),
          (rec["subsystem"], rec["device"], km.get("SUBSYSTEM"), km.get("DEVICE")))
    flags = F_TRUNCATED if exp["truncated"] else 0
    if exp["level"] != "cont":
        check(f"{tag}: flags {flags}, continues 0", (rec["flags"], rec["continues"]) == (flags, 0),
              (rec["flags"], rec["continues"]))
    check(f"{tag}: made by {comm} ({pid})", (rec["pid"], rec["comm"]) == (pid, comm),
          (rec["pid"], rec["comm"]))
    check(f"{tag}: cpu is online", 0 <= rec["cpu"] < os.cpu_count(), rec["cpu"])
    check(f"{tag}: monotonic clock within the trigger",
          window[0] <= rec["ts_mono_ns"] <= window[1], (window, rec["ts_mono_ns"]))
    check(f"{tag}: not in a block", rec["block_id"] == 0, rec["block_id"])


def check_plain(trigger, exps, per_exp=1):
    """A trigger whose calls make one record and one /dev/kmsg line each."""
    recs, kms = bridged.get(trigger, []), kmsgs.get(trigger, [])
    n = len(exps) * per_exp
    check(f"{trigger}: {n} bridged records and /dev/kmsg lines", len(recs) == len(kms) == n,
          f"{len(recs)} records, {len(kms)} kmsg lines")
    for i, (rec, km) in enumerate(zip(recs, kms)):
        exp = exps[i % len(exps)]
        check_record(f"{trigger} {exp['index']} ({exp['format']!r})", rec, exp, km, windows[trigger])
    return recs


# The table and dev_*().
recs = check_plain("table", by_trigger["table"])
# Both ways of storing a record are the ones checked above: with the text
# rendered at once, and with plain arguments kept as values.
plain = sum(1 for e in by_trigger["table"] if deferrable(e))
others = bridged1 - bridged0 - len(by_trigger["table"])	# the kernel's own meanwhile
print(f"# table: {plain} of {len(by_trigger['table'])} records plain, "
      f"{deferred1 - deferred0} kept as values by the bridge, {others} other messages")
check("table: the bridge kept the arguments of every plain record as values, and only those",
      plain <= deferred1 - deferred0 <= plain + others and plain >= 10 and
      len(by_trigger["table"]) - plain >= 10,
      (deferred1 - deferred0, plain, others, len(by_trigger["table"])))
offsets = {r["function"] for r in recs if r["function"].startswith("kppt_table_one")}
check("table: each call site has an offset of its own",
      len(offsets) == len(by_trigger["table"]) - 1, f"{len(offsets)} offsets")
check_plain("dev", by_trigger["dev"])

# printk_ratelimited(): the first burst calls through, the rest suppressed.
rl = by_trigger["ratelimited"][0]
recs = bridged.get("ratelimited", [])
check_plain("ratelimited", [rl] * rl["burst"])
check(f"ratelimited: the first {rl['burst']} of {RL_BURST} calls, in order",
      [r["args"] for r in recs] == [[str(i), "0"] for i in range(rl["burst"])],
      [r["args"] for r in recs])
print(f"# ratelimited: {RL_BURST} calls, {len(recs)} printed, {RL_BURST - len(recs)} suppressed")

# The printk_deferred() path, and lib/ratelimit.c's printk_deferred().
d = by_trigger["deferred"]
recs, kms = bridged.get("deferred", []), kmsgs.get("deferred", [])
check("deferred: 3 bridged records and /dev/kmsg lines", len(recs) == len(kms) == 3,
      f"{len(recs)} records, {len(kms)} kmsg lines")
for rec, km, exp in zip(recs, kms, d):
    check_record(f"deferred {exp['index']} ({exp['format']!r})", rec, exp, km, windows["deferred"])
check("deferred: the args", [r["args"] for r in recs] == [["0"], ["0"], d[2]["args"]],
      [r["args"] for r in recs])

# print_hex_dump(): its level reaches printk as a "%s" argument.
check_plain("hexdump", by_trigger["hexdump"])

# pr_cont() from two CPUs.
begin_e, frag_e, end_e = by_trigger["cont"]
nfrag = begin_e["fragments"]
recs, kms = bridged.get("cont", []), kmsgs.get("cont", [])
n = 2 * CONT_LINES * (nfrag + 2)
check(f"cont: {n} bridged records, a line start or a fragment each", len(recs) == n, len(recs))
kinds = {begin_e["format"]: begin_e, frag_e["format"]: frag_e, end_e["format"]: end_e}
current, pids, runs, prev = {}, {}, [], None
for i, rec in enumerate(recs):
    exp = kinds.get(rec["format"])
    tag = f"cont record {i} ({rec['text']!r})"
    if not check(f"{tag}: a format of the cont table", exp is not None, repr(rec["format"])):
        continue
    t = rec["args"][0] if rec["args"] else "?"
    pids.setdefault(t, set()).add(rec["pid"])
    if exp is begin_e:
        check(f"{tag}: a line start: no cont flag, continues 0",
              not rec["flags"] & F_CONT and rec["continues"] == 0, (rec["flags"], rec["continues"]))
        current[t] = rec["seq"]
    else:
        check(f"{tag}: a fragment: cont flag, continues the seq of its thread's line start",
              rec["flags"] & F_CONT and rec["continues"] == current.get(t),
              (rec["flags"], rec["continues"], current.get(t)))
    # printk's ring appends a fragment to the newest record if that is an
    # open line of the same caller, else stores it as a record of its own.
    if exp is begin_e or prev is None or prev["pid"] != rec["pid"] or prev_exp is end_e:
        runs.append([])
    runs[-1].append(rec)
    prev, prev_exp = rec, exp

check("cont: each thread's records have one pid, the two differ",
      len(pids) == 2 and all(len(p) == 1 for p in pids.values()) and
      len(set().union(*pids.values())) == 2, pids)
merged = sum(len(r) - 1 for r in runs)
alone = sum(1 for r in runs if r and r[0]["flags"] & F_CONT)
print(f"# cont: {len(recs)} records, {merged} fragments printk merged into the record before, "
      f"{alone} it stored as records of their own; {len(kms)} /dev/kmsg records")
check("cont: the fragments really interleave (some merged by printk, some not)",
      merged > 0 and alone > 0, (merged, alone))
check("cont: /dev/kmsg has one record per run of one thread's records",
      [("".join(r["text"] for r in run)) for run in runs] == [k["text"] for k in kms],
      f"{len(runs)} runs, {len(kms)} kmsg records")
for run, km in zip(runs, kms):
    for rec in run:
        exp = kinds.get(rec["format"], frag_e)
        check_record(f"cont record {rec['seq']} ({rec['text']!r})", rec, exp,
                     dict(km, text=rec["text"]), windows["cont"], text=rec["text"],
                     level=LEVELS[km["level"]], pid=rec["pid"], comm=rec["comm"])
        check(f"cont record {rec['seq']}: /dev/kmsg flags it cont iff it starts a fragment run",
              km["cont"] == bool(run[0]["flags"] & F_CONT))

# The lines a reader rebuilds from continues, those dmesg shows, and
# those the calls made, thread by thread.
starts = [r for r in recs if not r["flags"] & F_CONT]
rebuilt = {}
for s in starts:
    frags = [r for r in recs if r["flags"] & F_CONT and r["continues"] == s["seq"]]
    rebuilt.setdefault(s["args"][0] if s["args"] else "?", []).append(
        s["text"] + "".join(f["text"] for f in frags))
made = {str(t): [rebuild(begin_e["format"], [str(t), str(line)]) +
                 "".join(rebuild(frag_e["format"], [str(t), str(j)]) for j in range(nfrag)) +
                 rebuild(end_e["format"], [str(t)]) for line in range(CONT_LINES)]
        for t in range(2)}
dmesg = {}
for k in kms:
    m = re.search(r"cont t(\d) line \d+:", k["text"]) if not k["cont"] else \
        re.match(r" t(\d)[. ]", k["text"])
    t = m[1] if m else "?"
    if k["cont"] and dmesg.get(t):
        dmesg[t][-1] += k["text"]
    else:
        dmesg.setdefault(t, []).append(k["text"])
check(f"cont: the lines rebuilt from continues are the {2 * CONT_LINES} lines made",
      rebuilt == made, (rebuilt, made))
check("cont: and the lines dmesg shows, its fragments joined to their line",
      dmesg == made, (dmesg, made))

for fn, s in sizes.items():
    check(f"{fn}: every record names the same function size", len(s) == 1, s)
finish()
