#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ratelimit counter through kprint.ko's kretprobe on ___ratelimit()
# (notrace on Debian's 6.1, so BPF cannot probe it itself): a burst of known
# refused calls is counted exactly, once, keyed by the caller's function,
# and bpftool, `kprint formats --ratelimit` and /metrics agree; the hook's
# stats lose nothing; it comes back after kprint.ko is reloaded and counts
# nothing while kprint.ko is out.
. "$(dirname "$0")/../lib/lib.sh"

PIN=/sys/fs/bpf/kprint
load_printk_test_module
N=50
# An empty burst names the function that passes its name to ___ratelimit().
echo 0 >$PRINTK_TEST_PARAMS/rl_burst || not_ok "rl_burst 0"
func=$(cat $PRINTK_TEST_PARAMS/rl_function)
check "the test module names its ratelimit caller" [ -n "$func" ]

check_eq "kprint stats: the ratelimit hook is on" "$(stat ratelimit)" 1
kprint stats | grep '^ratelimit ' | sed 's/^/# /'
check "kprint stats shows the hook on one line" eval \
	'kprint stats | grep -Eq "^ratelimit +on, queued [0-9]+, traced [0-9]+, lost [0-9]+ \(queue full\), missed [0-9]+ \(kretprobe\)$"'

kprint formats --ratelimit --json --top 0 >"$WORK/rl0" || not_ok "kprint formats --ratelimit"
$PY - "$WORK/rl0" <<'PY'
import json, sys
s = [o for o in map(json.loads, open(sys.argv[1])) if "ratelimit_calls" in o][0]
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
check("the hook counting is kprint:kprint_trace_ratelimit, attached",
      s["hook"] == "kprobe kprint:kprint_trace_ratelimit" and s["attached"], s)
check("the direct hook says why it is off",
      s["other_hook"] == "kretprobe ___ratelimit" and "kprint" in s["other_skipped"], s)
print("# other hook: " + s["other_skipped"])
PY
check "$PIN/ratelimit_kprint_link is pinned" [ -e $PIN/ratelimit_kprint_link ]
check "the direct ___ratelimit hooks are not attached" \
	eval "[ ! -e $PIN/ratelimit_link ] && [ ! -e $PIN/ratelimit_entry_link ]"

start_exporter --listen 127.0.0.1:$PORT || finish

# hook_stats: queued traced lost missed, from one kprint stats.
hook_stats() {
	local out f v=
	out=$(kprint stats --json)
	for f in ratelimit_queued ratelimit_traced ratelimit_lost ratelimit_missed; do
		[[ $out =~ \"$f\":\ *([0-9]+) ]] && v+="${BASH_REMATCH[1]} "
	done
	echo $v
}
# drained: every queued call was handed to kprint_trace_ratelimit() (the
# irq_work ran): only then is the BPF count final.
drained() {
	local q t
	read -r q t _ <<<"$(hook_stats)"
	[ -n "$q" ] && [ "$q" = "$t" ]
}
# ours FUNCTION: the BPF count of FUNCTION, summed over its states, from
# kprint formats' table (SUPPRESSED first, FUNCTION last; no Python start).
ours() {
	kprint formats --ratelimit --top 0 |
		awk -v f="$1" '$NF == f && $1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }'
}

# probe_profile: hits and misses of the BPF probe on kprint_trace_ratelimit
# (tracefs names it after the pin directory, kpc_bpf_probe_name()).
probe_profile() { awk '$1 == "kprint_ratelimit" { print $2, $3 }' /sys/kernel/tracing/kprobe_profile; }

# burst: one burst of N from $func; the refused calls by the module's own
# count in $want, the state's in $missed; the BPF count before and after in
# $before and $after, the hook's stats (while kprint.ko is in) in $hb, $ha.
burst() {
	local in=false
	[ -d /sys/module/kprint ] && in=true
	$in && hb=$(hook_stats)
	before=$(ours "$func")
	echo $N >$PRINTK_TEST_PARAMS/rl_burst || not_ok "rl_burst $N"
	want=$(cat $PRINTK_TEST_PARAMS/rl_suppressed)
	missed=$(cat $PRINTK_TEST_PARAMS/rl_missed)
	if $in; then
		wait_for "the ratelimit queue drained" drained
		ha=$(hook_stats)
	fi
	after=$(ours "$func")
}

read -r hits0 misses0 <<<"$(probe_profile)"
burst
read -r hits1 misses1 <<<"$(probe_profile)"
echo "# the BPF probe on kprint_trace_ratelimit: hits $hits0 -> $hits1, misses $misses0 -> $misses1"
# Other refused calls of the kernel may fire it too: at least ours.
check "the BPF probe fired for each refused call and missed none (not inside a kprobe handler)" \
	eval "[ $((hits1 - hits0)) -ge $want ] && [ $misses0 = 0 ] && [ $misses1 = 0 ]"
echo "# burst of $N: $want refused (state's missed $missed) by $func; counted $before -> $after; hook $hb -> $ha"
check "the burst had refused calls, and the state agrees with the return values" \
	eval "[ $want -gt 0 ] && [ $want -lt $N ] && [ $want = $missed ]"
check_eq "the BPF count of $func moved by the refused calls exactly" $((after - before)) "$want"
read -r qb tb lb mb <<<"$hb"
read -r qa ta la ma <<<"$ha"
check "the hook queued at least the burst's refused calls, lost none, missed none" \
	eval "[ $((qa - qb)) -ge $want ] && [ $la = $lb ] && [ $ma = $mb ] && [ $la = 0 ]"
check_eq "every queued call was traced" "$ta" "$qa"

# bpftool: the pinned map, the function as text, the same count.
bpftool -j map dump pinned $PIN/ratelimit_suppressed >"$WORK/bpftool.json" ||
	not_ok "bpftool map dump pinned $PIN/ratelimit_suppressed"
bpftool map dump pinned $PIN/ratelimit_suppressed | grep -F "\"func\": \"$func\"" | sed 's/^/# /'
check "bpftool shows the function as text" grep -qF "\"func\": \"$func\"" \
	<(bpftool map dump pinned $PIN/ratelimit_suppressed)
check_eq "bpftool's count of $func equals kprint formats'" "$($PY -c 'import json, sys
entries = [e.get("formatted", e) for e in json.load(open(sys.argv[1]))]
print(sum(e["value"]["suppressed"] for e in entries if e["key"]["func"] == sys.argv[2]))' \
	"$WORK/bpftool.json" "$func")" "$after"
check_eq "kprint formats --ratelimit --json's count of $func equals its table's" "$(
	kprint formats --ratelimit --json --top 0 | $PY -c 'import json, sys
print(sum(o["suppressed"] for o in map(json.loads, sys.stdin) if o.get("function") == sys.argv[1]))' "$func")" "$after"
# /metrics: the same count under the function's label, and the hook's stats.
check_eq "/metrics kprint_ratelimit_suppressed_total{function=\"$func\"}" \
	"$(scrape "kprint_ratelimit_suppressed_total{function=\"$func\"}")" "$after"
check_eq "/metrics: the hook is enabled" "$(metric kprint_ratelimit_hook_enabled)" 1
check_eq "/metrics: the hook lost nothing" "$(metric kprint_ratelimit_hook_lost_total)" 0
check "/metrics: the hook's queued and traced as in kprint stats" eval \
	"[ $(metric kprint_ratelimit_hook_queued_total) -ge $qa ] && [ $(metric kprint_ratelimit_hook_traced_total) -ge $ta ]"

# kprint.ko out: no hook, nothing counted; back: the tracefs probe is armed
# again and counts, the pinned link untouched.
rmmod kprint || not_ok "rmmod kprint"
burst
check_eq "with kprint.ko out, the burst's $want refused calls are not counted" $((after - before)) 0
# shellcheck disable=SC2086
insmod kernel/kprint.ko $KPRINT_MODPARAMS || { not_ok "insmod kprint.ko"; finish; }
burst
check_eq "after reloading kprint.ko, the burst's refused calls are counted exactly" \
	$((after - before)) "$want"
check_eq "the reloaded hook lost nothing" "$(stat ratelimit_lost)" 0

# A second loader reuses the pinned choice: no second hook, no double count.
kprint formats --ratelimit --json --top 0 >"$WORK/rl1"
check "a second loader reuses the pinned kprint hook" $PY -c 'import json, sys
s = [o for o in map(json.loads, open(sys.argv[1])) if "ratelimit_calls" in o][0]
assert s["hook"] == "kprobe kprint:kprint_trace_ratelimit" and s["attached"], s' "$WORK/rl1"
check "kprint formats --ratelimit --json lines match schema/formats.schema.json" \
	$PY tests/lib/validate_json.py --schema schema/formats.schema.json <"$WORK/rl1"
burst
check_eq "and the count still moves by the refused calls exactly" $((after - before)) "$want"

# A long burst in a tight loop, which gives the worker on its CPU no
# turn: more refused calls than the queue holds.  Those that do not fit
# are counted as lost, none vanish: counted + lost = refused, exactly.
# (One size: a longer one risks outlasting the 5 s interval, -ETIME.)
N=5000
lost0=$(stat ratelimit_lost)
read -r hits0 misses0 <<<"$(probe_profile)"
burst
read -r hits1 misses1 <<<"$(probe_profile)"
lost=$(( $(stat ratelimit_lost) - lost0 ))
echo "# burst of $N: $want refused, counted $((after - before)), lost $lost (queue full); hook $hb -> $ha; probe hits $hits0 -> $hits1, misses $misses0 -> $misses1"
check_eq "a burst of $N: its $want refused calls are counted or counted as lost" \
	$((after - before + lost)) "$want"
check "a burst of $N: the queue overflowed (else this case tests nothing)" [ "$lost" -gt 0 ]
check_eq "a burst of $N: the BPF probe missed none of those handed on" "$misses1" 0

stop_exporter
finish
