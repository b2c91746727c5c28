#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint's echo of its records to printk is counted once, as its record:
# over a window of N kprint records (kprint emit, kprint_test's records,
# block and hard-irq records) and M other printk messages (kprint_test's
# printk(), /dev/kmsg lines), the sum of every kprint_format_messages_total
# series on /metrics, and of both pinned maps read with bpftool, moves by
# exactly the messages made: the records, plus the printk messages printk
# stored that are not their echoes (each message in the window told apart
# by its text in /dev/kmsg, the witness nobody here wrote); the printk
# series "%s" without a module does not move for the echo; with the
# bridge off, and on with argument markers in the echo.
. "$(dirname "$0")/../lib/lib.sh"

PIN=/sys/fs/bpf/kprint
echo "# kernel $(uname -r)"
load_test_module
start_exporter --listen 127.0.0.1:$PORT || finish
for f in kprint_formats printk_formats kprint_counter_totals; do
	check "$PIN/$f is pinned" [ -e $PIN/$f ]
done

# snap NAME: /metrics, both maps and the totals, as they are now.
snap() {
	[ "$(get /metrics)" = 200 ] || not_ok "GET /metrics ($1)"
	cp "$WORK/body" "$WORK/metrics.$1"
	bpftool -j map dump pinned $PIN/kprint_formats >"$WORK/kprint.$1"
	bpftool -j map dump pinned $PIN/printk_formats >"$WORK/printk.$1"
	bpftool -j map lookup pinned $PIN/kprint_counter_totals key 0 0 0 0 >"$WORK/totals.$1"
}
# kmsg_marker NAME: a line in the printk ring, and its seq in $WORK/seq.NAME.
kmsg_marker() {
	kmsg_mark "kprint bpf-echo marker $1" >"$WORK/seq.$1"
	[ -s "$WORK/seq.$1" ] || not_ok "marker $1 found in /dev/kmsg"
}

# Records: E emitted, F kprint_info(), a block of B lines, and from hard
# irq I records and a block of I lines.  printk: P printk(), K /dev/kmsg
# lines (one open each: /dev/kmsg lets an opener write 10 in 5 s).
E=3 F=10 B=4 I=3 P=10 K=5
# phase NAME: the workload, between two markers and two snapshots.
phase() {
	local p=$1 i
	snap "$p.before"
	kmsg_marker "$p.a"
	for i in $(seq $E); do
		kprint emit --level info "kprint bpf-echo emit $p $i" >/dev/null ||
			not_ok "kprint emit ($p)"
	done
	echo $F >$TEST_PARAMS/flood || not_ok "flood $F ($p)"
	echo $B >$TEST_PARAMS/block || not_ok "block $B ($p)"
	echo $I >$TEST_PARAMS/emit_irq || not_ok "emit_irq $I ($p)"
	echo $P >$TEST_PARAMS/printk || not_ok "printk $P ($p)"
	for i in $(seq $K); do echo "kprint bpf-echo kmsg $p $i" >/dev/kmsg; done
	kmsg_marker "$p.b"
	dd if=/dev/kmsg iflag=nonblock bs=8192 2>/dev/null >"$WORK/kmsg.$p"
	snap "$p.after"
}

phase off
echo 1 >/sys/module/kprint/parameters/bridge || not_ok "bridge=1 at run time"
echo 1 >/sys/module/kprint/parameters/markers || not_ok "markers=1 at run time"
phase on
echo 0 >/sys/module/kprint/parameters/markers
echo 0 >/sys/module/kprint/parameters/bridge || not_ok "bridge=0 at run time"
stop_exporter

$PY - "$WORK" $E $F $B $I $P $K <<'PY'
import json, os, re, sys
work = sys.argv[1]
e, f, b, i, p, k = map(int, sys.argv[2:])
N = e + f + b + 2 * i		# kprint records made
M = p + k + 2			# other printk messages made, with the two markers

def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))

def path(name):
    return os.path.join(work, name)

LABELS = ("source", "format_id", "level", "class", "subsystem", "module", "format")
VALUE = r'"((?:[^"\\]|\\.)*)"'
SERIES = re.compile(r'^kprint_format_messages_total\{' +
                    ",".join(f"{l}={VALUE}" for l in LABELS) + r'\} (\d+)$')

def metrics(name):
    """{labels: value} of every kprint_format_messages_total series."""
    out = {}
    for line in open(path(name), encoding="utf-8"):
        if line.startswith("kprint_format_messages_total{"):
            m = SERIES.match(line.rstrip("\n"))
            if not m:
                raise ValueError(f"unexpected series {line!r}")
            out[m.groups()[:-1]] = int(m.group(len(LABELS) + 1))
    return out

def hook(name, which):
    """kprint_bpf_printk_hook_messages_total{hook=which} of a /metrics page."""
    want = f'kprint_bpf_printk_hook_messages_total{{hook="{which}"}} '
    return sum(int(l.split()[-1]) for l in open(path(name)) if l.startswith(want))

def dump(name):
    """{(format_id, tags_id, level, class): count} of a pinned map."""
    out = {}
    for ent in json.load(open(path(name))):
        ent = ent.get("formatted", ent)
        key = ent["key"]
        out[(key["format_id"], key["tags_id"], key["level"], key["class"])] = ent["value"]["count"]
    return out

def totals(name):
    o = json.load(open(path(name)))
    return o.get("formatted", o)["value"]

def moved(before, after):
    return {key: after[key] - before.get(key, 0) for key in after if after[key] != before.get(key, 0)}

def window(phase):
    """The printk messages stored in the window, told apart by their text."""
    seq = lambda m: int(open(path(f"seq.{phase}.{m}")).read())
    a, z = seq("a"), seq("b")
    texts = {}
    for line in open(path(f"kmsg.{phase}"), encoding="utf-8", errors="replace"):
        if line.startswith(" ") or ";" not in line:
            continue
        head, text = line.rstrip("\n").split(";", 1)
        s = int(head.split(",")[1])
        if a <= s <= z:
            texts[s] = text
    echo = re.compile(rf"^kprint bpf-echo emit {phase} \d+$|^kprint_test (flood|block line|irq) ")
    ours = re.compile(rf"^kprint bpf-echo (kmsg {phase} \d+|marker {phase}\.[ab])$|"
                      r"^kprint_test legacy printk \d+$")
    echoes = sum(1 for t in texts.values() if echo.search(t))
    plain = sum(1 for t in texts.values() if ours.search(t))
    other = [t for t in texts.values() if not echo.search(t) and not ours.search(t)]
    return z - a + 1, len(texts), echoes, plain, other

def drop_moved(d):
    """Of a /metrics delta: the printk series "%s" without a module."""
    return sum(v for key, v in d.items()
               if key[0] == "printk" and key[6] == "%s" and key[5] == "")

for phase, what in (("off", "bridge off"), ("on", "bridge on, markers on")):
    stored, read, echoes, plain, other = window(phase)
    for t in other:
        print(f"# {what}: another printk message in the window: {t!r}")
    check(f"{what}: /dev/kmsg has every message of the window ({stored})", read == stored,
          (read, stored))
    check(f"{what}: printk stored the {N} records' echoes and the {M} other messages",
          echoes == N and plain == M, (echoes, plain))
    made = N + plain + len(other)
    m = moved(metrics(f"metrics.{phase}.before"), metrics(f"metrics.{phase}.after"))
    by_source = {src: sum(v for key, v in m.items() if key[0] == src) for src in ("kprint", "printk")}
    top = sorted(m.items(), key=lambda kv: -kv[1])[:5]
    check(f"{what}: /metrics, the sum over all kprint_format_messages_total series moved by "
          f"the {made} messages made", sum(m.values()) == made,
          (sum(m.values()), by_source, top))
    check(f"{what}: /metrics, source kprint by the {N} records, source printk by the "
          f"{made - N} others", by_source == {"kprint": N, "printk": made - N}, by_source)
    s = drop_moved(m)
    want, why = (0, "the /dev/kmsg lines count with a module") if phase == "on" else \
        (k + 2, "the /dev/kmsg lines")
    check(f"{what}: /metrics, the printk series \"%s\" without a module moved by {want} "
          f"({why}), not for the echo", s == want, (s, top))
    km = sum(moved(dump(f"kprint.{phase}.before"), dump(f"kprint.{phase}.after")).values())
    pm = sum(moved(dump(f"printk.{phase}.before"), dump(f"printk.{phase}.after")).values())
    check(f"{what}: bpftool, both pinned maps moved by the {made} messages made, "
          f"{N} in kprint_formats", km == N and km + pm == made, (km, pm))
    he = hook(f"metrics.{phase}.after", "echo") - hook(f"metrics.{phase}.before", "echo")
    check(f"{what}: /metrics, kprint_bpf_printk_hook_messages_total{{hook=\"echo\"}} moved by "
          f"the {N} echoes", he == N, he)
    ta, tb = totals(f"totals.{phase}.after"), totals(f"totals.{phase}.before")
    dt = {key: ta[key] - tb[key] for key in ("kprint_records", "printk_plain", "printk_bridged",
                                             "printk_echo", "printk_unreadable")}
    check(f"{what}: the totals count the {N} echoes as printk_echo, apart from the "
          f"{made - N} other printk messages",
          dt["printk_echo"] == N and dt["kprint_records"] == N and
          dt["printk_plain"] + dt["printk_bridged"] == made - N and
          (dt["printk_bridged"] == 0) == (phase == "off"), dt)
PY
finish
