#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
# The BPF printk counters with the printk bridge: every printk message is
# counted once, at the return of vprintk_store(), under the key the bridge
# handed over (its record's format_id and module) while kprint.ko bridges,
# under its own when it does not; across bridge=0, rmmod and insmod of
# kprint.ko under a steady printk stream, the messages counted equal the
# messages printk stored (its sequence numbers); formats show as text in
# bpftool, escaped.
. "$(dirname "$0")/../lib/lib.sh"

PIN=/sys/fs/bpf/kprint
load_test_module
load_printk_test_module
kprint formats >/dev/null || { not_ok "kprint formats loads the counters"; finish; }
for f in printk_link printk_handoff_link printk_handoff; do
	check "$PIN/$f is pinned" [ -e $PIN/$f ]
done

snap() { kprint formats --json --top 0 --source printk >"$WORK/$1"; }
# kmsg_marker NAME: a line in the printk ring, and its seq in $WORK/seq.NAME,
# read at once (a long stream overwrites the ring).
kmsg_marker() {
	kmsg_mark "kprint bpf-bridge marker $1" >"$WORK/seq.$1"
	[ -s "$WORK/seq.$1" ] || not_ok "marker $1 found in /dev/kmsg"
}
# The printk messages counted under the plain key so far, read from the
# pinned totals (bpftool: no program is loaded for it).
plain() {
	bpftool -j map lookup pinned $PIN/kprint_counter_totals key 0 0 0 0 |
		sed -n 's/.*"printk_plain":\([0-9]*\).*/\1/p'
}

# Known printk calls, bridged: kprint_test's printk() and /dev/kmsg writes
# (one open per line: /dev/kmsg ratelimits each opener to 10 lines); and
# one kprint record, whose echo the bridge skips and the counter counts
# only in its echo total (the record counts per format; tests/e2e/bpf-echo.sh).
N=25 M=7 D=3
snap b0
kprint stats --json >"$WORK/stats.b0"
kmsg_marker a0
echo $N >$TEST_PARAMS/printk || not_ok "printk $N times"
echo $D >$PRINTK_TEST_PARAMS/dev || not_ok "dev_info/dev_err/dev_warn $D times"
for i in $(seq $M); do echo "kprint bpf-bridge kmsg line $i" >/dev/kmsg; done
kprint emit --level info "kprint bpf-bridge echo" >/dev/null || not_ok "emit a kprint record"
kmsg_marker b0
kprint stats --json >"$WORK/stats.a0"
snap a0
kprint dump --json >"$WORK/dump0"

# Bridge off at run time: the same calls counted under the plain key, no tags.
echo 0 >/sys/module/kprint/parameters/bridge || not_ok "bridge=0 at run time"
snap b1
kmsg_marker a1
echo $N >$TEST_PARAMS/printk || not_ok "printk $N times"
echo $D >$PRINTK_TEST_PARAMS/dev || not_ok "dev_info/dev_err/dev_warn $D times"
kmsg_marker b1
snap a1
echo 1 >/sys/module/kprint/parameters/bridge || not_ok "bridge=1 at run time"
rmmod kprint_printk_test || not_ok "rmmod kprint_printk_test"

# A steady stream across unloading and loading kprint.ko: each time
# kprint.ko is out, until the stream was counted under the plain key.
# A cycle takes about 8 s here (rmmod with the bridge hooked, 3 s of it);
# the smoke set on the other kernels asks for fewer (KPRINT_RELOAD_CYCLES).
CYCLES=${KPRINT_RELOAD_CYCLES:-$(sized 3 20)}
plain_moved() { [ "$(plain)" -gt "$1" ]; }
snap b2
kmsg_marker a2
(i=0; while [ ! -e "$WORK/stop" ]; do
	i=$((i + 1)); echo "kprint bpf-bridge stream $i" >/dev/kmsg
done; echo $i >"$WORK/written") &
writer=$!
cycles=0
for c in $(seq $CYCLES); do
	rmmod kprint_test && rmmod kprint || not_ok "rmmod kprint during the stream"
	p=$(plain)
	wait_for "the stream counted while kprint.ko is out" plain_moved "$p"
	insmod kernel/kprint.ko && insmod $TEST_MODULE || not_ok "insmod kprint during the stream"
	cycles=$((cycles + 1))
done
touch "$WORK/stop"
wait $writer
S=$(cat "$WORK/written")
kmsg_marker b2
snap a2
echo "# $cycles reload cycles during a stream of $S lines"

$PY - "$WORK" "$N" "$M" "$S" "$D" <<'PY'
import json, os, sys
work, n, m, s, dn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])

def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))

def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) % 2**64
    return f"{h:016x}"

KEY = ("format", "format_id", "level", "class", "subsystem", "module")
def load(name):
    lines = [json.loads(l) for l in open(os.path.join(work, name))]
    # The JSON has no tags_id: entries that differ only there (the plain
    # hook's empty tags, 0, and the bridge's "" "") add up.
    counts = {}
    for o in lines:
        if "count" in o:
            key = tuple(o[k] for k in KEY)
            counts[key] = counts.get(key, 0) + o["count"]
    summary = [o for o in lines if "total" in o][0]
    return counts, summary

def delta(i):
    (b, bs), (a, as_) = load(f"b{i}"), load(f"a{i}")
    d = {k: a[k] - b.get(k, 0) for k in a if a[k] != b.get(k, 0)}
    ds = {k: as_[k] - bs[k] for k in ("total", "plain", "bridged", "echo", "overflow",
                                     "handoff_torn", "handoff_switched")}
    return d, ds

def made(i):
    seq = lambda name: int(open(os.path.join(work, f"seq.{name}")).read())
    return seq(f"b{i}") - seq(f"a{i}") + 1

LEGACY = "kprint_test legacy printk %d"
# kprint_printk_test's dev_*() calls (kernel/test/kprint_printk_test.c):
# the caller's format inside dev_printk()'s "%s %s: %pV", and its level.
DEV = {"dev info %d %s": "info", "dev err %#x <%pI4>": "err", "dev warn no args": "warn"}

def check_dev(d, bridged):
    for fmt, level in DEV.items():
        got = {k: v for k, v in d.items() if k[0] == fmt}
        if bridged:
            ok = (sum(got.values()) == dn and len(got) == 1 and
                  all(k[1] == fnv(fmt.encode()) and k[2] == level and k[4] and
                      k[5] == "kprint_printk_test" for k in got))
            what = "with its device's subsystem and its module"
        else:
            ok = got == {(fmt, fnv(fmt.encode()), level, "none", "", ""): dn}
            what = "without tags"
        check(f"{dn} calls of dev_{level}(\"{fmt}\") counted once, under the caller's format, "
              f"{what}", ok, got)

d, ds = delta(0)
check_dev(d, True)
legacy = {k: v for k, v in d.items() if k[0] == LEGACY}
check(f"{n} bridged printk() calls counted exactly once", sum(legacy.values()) == n, legacy)
check("under one entry, with the record's module", [k[5] for k in legacy] == ["kprint_test"],
      list(legacy))
recs = [r for r in map(json.loads, open(os.path.join(work, "dump0")))
        if r.get("format") == LEGACY]
ids = {r["format_id"] for r in recs}
check("the BPF format_id is the records' and FNV-1a 64 of the format",
      [k[1] for k in legacy] == [fnv(LEGACY.encode())] and ids == {fnv(LEGACY.encode())},
      (list(legacy), ids))
kmsg = sum(v for k, v in d.items() if k[0] == "%s" and k[5])
check(f"{m} /dev/kmsg lines (and the 2 markers) counted under \"%s\", bridged", kmsg == m + 2, kmsg)
echo = sum(v for k, v in d.items() if k[0] == "%s" and not k[5])
check("kprint's echo of its record not counted as a printk \"%s\"", echo == 0, echo)
check("window 0: messages seen == messages printk stored", ds["total"] == made(0),
      (ds, made(0)))
check("window 0: all bridged but kprint's one echo, counted only as the echo",
      ds["bridged"] == ds["total"] - 1 and ds["plain"] == 0 and ds["echo"] == 1, ds)
st = {w: json.load(open(os.path.join(work, f"stats.{w}"))) for w in ("b0", "a0")}
sd = lambda k: st["a0"][k] - st["b0"][k]
handed = sum(sd(k) for k in ("bridged", "bridge_dropped_nmi", "bridge_dropped_recursion",
                             "bridge_dropped_scratch"))
check("window 0: every message the bridge handed over kept its key (kprint stats == BPF)",
      handed == ds["bridged"] and sd("bridge_skipped") == ds["echo"],
      (handed, sd("bridge_skipped"), ds))

d, ds = delta(1)
check_dev(d, False)
legacy = {k: v for k, v in d.items() if k[0] == LEGACY}
check(f"bridge=0: {n} printk() calls counted once under the plain key, without tags",
      legacy == {(LEGACY, fnv(LEGACY.encode()), "info", "none", "", ""): n}, legacy)
check("bridge=0: messages counted == messages stored, none by the bridge",
      ds["total"] == made(1) and ds["bridged"] == 0, (ds, made(1)))

d, ds = delta(2)
stream = sum(v for k, v in d.items() if k[0] == "%s")
print(f"# stream window: {ds}, printk stored {made(2)}")
for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:6]:
    print(f"#   {v:6d} {k}")
check(f"reloads under a stream: the {s} lines written and 2 markers counted exactly once",
      stream == s + 2, stream)
check("reloads under a stream: messages counted == messages printk stored",
      ds["total"] == made(2), (ds, made(2)))
check("reloads under a stream: both keys counted (the handover happened)",
      ds["plain"] > 0 and ds["bridged"] > 0, ds)
check("no handoff torn, nothing uncounted",
      ds["handoff_torn"] == 0 and ds["overflow"] == 0, ds)
PY

# Formats as text in bpftool: escaped in the map, raw in kprint formats.
FMT=$'kpb tab\there back\\slash'
kprint emit --level info "$FMT" >/dev/null || not_ok "emit a format with a tab and a backslash"
bpftool -j map dump pinned $PIN/kprint_formats >"$WORK/bpftool.kprint"
bpftool -j map dump pinned $PIN/printk_formats >"$WORK/bpftool.printk"
kprint formats --json --top 0 --source kprint >"$WORK/kprint.json"
$PY - "$WORK" "$FMT" <<'PY'
import json, sys
work, fmt = sys.argv[1], sys.argv[2]
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
def entries(name):
    return [e.get("formatted", e) for e in json.load(open(f"{work}/{name}"))]
k = entries("bpftool.kprint")
# bpftool 7.1's JSON writer prints a backslash as "\n" (json_writer.c:
# case '\\': fputs("\\n")), in both of its output modes; the map holds
# the backslash (docs/bpf-counters.md).
want = "kpb tab\\x09here back\\x5cslash"
shown = [e["value"]["format"] for e in k]
check("bpftool shows a format with a tab and a backslash escaped, as text",
      want in shown or want.replace("\\", "\n") in shown, shown[:5])
raw = [o for o in map(json.loads, open(f"{work}/kprint.json")) if o.get("format") == fmt]
check("kprint formats shows it raw", len(raw) == 1, raw)
p = entries("bpftool.printk")
check("every printk format prints as text in bpftool", p and all(isinstance(e["value"]["format"], str) for e in p),
      [e["value"]["format"] for e in p if not isinstance(e["value"]["format"], str)][:3])
check("no printk format keeps its trailing newline or KERN_ prefix",
      not any(e["value"]["format"].endswith("\\n") or e["value"]["format"].startswith("\\x01")
              for e in p), [e["value"]["format"] for e in p if e["value"]["format"].endswith("\\n")][:3])
PY

# Ratelimit: one /dev/kmsg opener writes past its burst (10 lines in 5 s);
# the lines refused are those written less those printk stored, and the
# counter of that state (func: the writer's comm) must equal them.
kprint formats --ratelimit --json >"$WORK/rl0"
$PY - "$WORK" <<'PY'
import json, os, subprocess, sys, time
work = sys.argv[1]
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
summary = [o for o in map(json.loads, open(f"{work}/rl0")) if "ratelimit_calls" in o][0]
if not summary["attached"]:
    check("the ratelimit hook says why it does not count # SKIP " + summary.get("skipped", ""),
          "not traceable" in summary.get("skipped", ""), summary)
    sys.exit(0)
def ours():
    out = subprocess.run(["kprint", "formats", "--ratelimit", "--json", "--top", "0"],
                         capture_output=True, text=True, check=True).stdout
    return {o["state"]: o["suppressed"] for o in map(json.loads, out.splitlines())
            if o.get("function") == "python3"}
before = ours()
W = 40
with open("/dev/kmsg", "w") as f:
    for i in range(W):
        f.write(f"kprint bpf-bridge ratelimit {i}\n")
        f.flush()
stored = subprocess.run(["dmesg"], capture_output=True, text=True).stdout.count("kprint bpf-bridge ratelimit ")
# kprint.ko's hook hands refused calls to BPF from a lazy irq_work: the
# count is final once every queued call was traced (kprint stats).
def drained():
    st = json.loads(subprocess.run(["kprint", "stats", "--json"], capture_output=True,
                                   text=True, check=True).stdout)
    return st.get("ratelimit_queued") == st.get("ratelimit_traced")
if summary["hook"] == "kprobe kprint:kprint_trace_ratelimit":
    end = time.monotonic() + 60
    while not drained() and time.monotonic() < end:
        time.sleep(0.01)
    check("the ratelimit hook's queue drained", drained())
after = ours()
got = sum(after.values()) - sum(before.values())
check(f"ratelimit: the {W - stored} /dev/kmsg lines refused are counted exactly", got == W - stored and stored < W,
      (got, W, stored))
PY
finish
