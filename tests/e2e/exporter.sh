#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint_exporter: /metrics counts each format exactly and passes promtool;
# /records matches the schema, filters return exactly the matching subset
# and paging with after= loses and repeats nothing; bad queries get a 400
# with a JSON reason and the daemon keeps serving; 404, 405, shutdown.
. "$(dirname "$0")/../lib/lib.sh"

load_test_module

start_exporter --listen 127.0.0.1:$PORT || finish
check_eq "/healthz answers 200" "$(get /healthz)" 200
check_eq "/healthz says ok" "$(cat "$WORK/body")" ok
wait_subscribers 1 || finish

K=3
size=$(cat $TEST_PARAMS/table_size)
first=$(stat next_seq)
received0=$(get /metrics >/dev/null; metric kprint_exporter_records_received_total "$WORK/body")
cp "$WORK/body" "$WORK/metrics.before"
kprint monitor --json --until $((first + K * size - 1)) >"$WORK/mon" &
mon=$!
wait_subscribers 2 || finish
echo $K >$TEST_PARAMS/emit || not_ok "emit the table $K times"
wait $mon || not_ok "monitor"
want=$((received0 + K * size))
wait_for "the exporter receives the table" \
	eval '[ "$(scrape kprint_exporter_records_received_total)" -ge $want ]'
cp "$WORK/body" "$WORK/metrics.after"
check_eq "the exporter received all $((K * size)) records" \
	"$(metric kprint_exporter_records_received_total "$WORK/metrics.after")" $want
check_eq "/metrics has the exposition content type" \
	"$(sed -n 's/^[Cc]ontent-[Tt]ype: *//p' "$WORK/headers" | tr -d '\r')" \
	"text/plain; version=0.0.4; charset=utf-8"
check_eq "kprint_bpf_up is 1" "$(metric kprint_bpf_up "$WORK/metrics.after")" 1
check_eq "nothing lost (overwritten)" \
	"$(metric 'kprint_exporter_records_lost_total{reason="overwritten"}' "$WORK/metrics.after")" 0
check_eq "nothing lost (missing)" \
	"$(metric 'kprint_exporter_records_lost_total{reason="missing"}' "$WORK/metrics.after")" 0
check_eq "kprint_kernel_records_total is the module's count" \
	"$(metric kprint_kernel_records_total "$WORK/metrics.after")" "$(stat records)"

# The per-format series of /metrics: {labels: value} of one source.
cat >"$WORK/series.py" <<'PY'
import re
LABELS = ("source", "format_id", "level", "class", "subsystem", "module", "format")
VALUE = r'"((?:[^"\\]|\\.)*)"'
SERIES = re.compile(r'^kprint_format_messages_total\{' + ",".join(f"{l}={VALUE}" for l in LABELS) +
                    r'\} (\d+)$')
def unescape(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)
def series(path, source="kprint"):
    """Every series of the family; a line of it with other labels is an error."""
    out = {}
    for line in open(path, encoding="utf-8"):
        if not line.startswith("kprint_format_messages_total{"):
            continue
        m = SERIES.match(line.rstrip("\n"))
        if not m:
            raise ValueError(f"labels are not {LABELS}: {line!r}")
        key = dict(zip(LABELS, map(unescape, m.groups()[:-1])))
        if key["source"] == source:
            out[tuple(key.items())] = int(m.group(len(LABELS) + 1))
    return out
PY
$PY - "$WORK/metrics.before" "$WORK/metrics.after" "$K" "$size" "$WORK/mon" <<'PY'
import collections, json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[5]))
from series import series
before, after, k, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
try:
    b, a = series(before), series(after)
except ValueError as e:
    b, a = {}, {}
    check("/metrics: every per-format series has the labels source, format_id, level, class, "
          "subsystem, module, format", False, e)
delta = {key: a[key] - b.get(key, 0) for key in a if a[key] != b.get(key, 0)}
check(f"/metrics: {size} kprint formats changed", len(delta) == size, len(delta))
check(f"/metrics: each by exactly {k}", set(delta.values()) == {k}, delta)
check("/metrics: a newline in a format is escaped as \\n",
      any(dict(key)["format"] == "kprint_test newline %d\n" for key in delta), sorted(delta))
# What the exporter received, labelled the same way, counted the same.
recs = [r for r in map(json.loads, open(sys.argv[5])) if "seq" in r]
want = collections.Counter(
    (("source", "kprint"), ("format_id", r["format_id"]), ("level", r["level"]), ("class", r["class"]),
     ("subsystem", r["subsystem"]), ("module", r["module"]), ("format", r["format"])) for r in recs)
check("/metrics: class, subsystem and module labels are those of the records counted",
      delta == dict(want), set(delta.items()) ^ set(want.items()))
PY

# Quotes, backslashes and invalid UTF-8 in a label value.
kprint emit --level err $'kpx "quoted" back\\slash \xff\xfe end %s' x >/dev/null ||
	not_ok "emit a record with an awkward format"
# One format from two modules (the table's, and injected ones as "user"),
# with an awkward subsystem and another class: a series each.
NOARGS="kprint_test no args"
for i in 1 2; do
	kprint emit --level info --subsystem 'kpx "sub"\x' "$NOARGS" >/dev/null ||
		not_ok "emit '$NOARGS' with a subsystem"
done
kprint emit --level info --class registered "$NOARGS" >/dev/null || not_ok "emit '$NOARGS' --class registered"
# A plain printk, for a printk series: the records' echoes count as the
# records, not as printk messages (tests/e2e/bpf-echo.sh).
echo "kpx plain printk line" >/dev/kmsg
get /metrics >"$WORK/status"
cp "$WORK/body" "$WORK/metrics.odd"
check "/metrics escapes quotes and backslashes and replaces invalid UTF-8" \
	grep -qF 'format="kpx \"quoted\" back\\slash �� end %s"} 1' "$WORK/metrics.odd"
id=$(kprint formats --json --top 0 --source kprint | $PY -c 'import json, sys
print({o["format_id"] for o in map(json.loads, sys.stdin) if o.get("format") == sys.argv[1]}.pop())' "$NOARGS")
pre="kprint_format_messages_total{source=\"kprint\",format_id=\"$id\",level=\"info\""
check "/metrics: '$NOARGS' from kprint_test, with its subsystem and module" \
	grep -qxF "$pre,class=\"none\",subsystem=\"kprint-test\",module=\"kprint_test\",format=\"$NOARGS\"} $K" \
	"$WORK/metrics.odd"
check "/metrics: '$NOARGS' injected with a subsystem: its own series, escaped" \
	grep -qxF "$pre,class=\"none\",subsystem=\"kpx \\\"sub\\\"\\\\x\",module=\"user\",format=\"$NOARGS\"} 2" \
	"$WORK/metrics.odd"
check "/metrics: '$NOARGS' injected as registered: its own series" \
	grep -qxF "$pre,class=\"registered\",subsystem=\"\",module=\"user\",format=\"$NOARGS\"} 1" \
	"$WORK/metrics.odd"
check_eq "/metrics: '$NOARGS' has exactly these three series" \
	"$(grep -cF "format=\"$NOARGS\"}" "$WORK/metrics.odd")" 3
check "/metrics: printk series have class none and empty subsystem and module, like all the labels" $PY -c '
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from series import series
printk = series(sys.argv[2], "printk")
assert printk and series(sys.argv[2], "kprint")
for key in printk:
    key = dict(key)
    assert (key["class"], key["subsystem"], key["module"]) == ("none", "", ""), key' \
	"$WORK/series.py" "$WORK/metrics.odd"
# The records just emitted reach /records before it is read below.
want=$((want + 4))
wait_for "the exporter receives the injected records" \
	eval '[ "$(scrape kprint_exporter_records_received_total)" -ge $want ]'
check_eq "the exporter received the injected records too" \
	"$(metric kprint_exporter_records_received_total "$WORK/body")" $want
out=$(promtool check metrics <"$WORK/metrics.odd" 2>&1)
check "promtool check metrics accepts /metrics" [ $? -eq 0 ]
[ -n "$out" ] && echo "$out" | sed 's/^/# promtool: /' | head -10

# /records, all of the table's records, against the schema.
check_eq "/records?after=$((first - 1))&limit=1000 is 200" \
	"$(get "/records?after=$((first - 1))&limit=1000")" 200
cp "$WORK/body" "$WORK/all.json"
check "/records elements match schema/record.schema.json" \
	$PY tests/lib/validate_json.py --array <"$WORK/all.json"
check "/records has the table's records, in order, none twice" $PY -c '
import json, sys
first, n = int(sys.argv[2]), int(sys.argv[3])
seqs = [r["seq"] for r in json.load(open(sys.argv[1]))]
assert seqs[:n] == list(range(first, first + n)), seqs' "$WORK/all.json" "$first" $((K * size))

# Filters, paging and malformed queries in one Python run: the guest is
# emulated, and a Python start per check would take minutes.
$PY - "$URL" "$WORK/all.json" "$first" <<'PY'
import json, sys, urllib.error, urllib.request
url, allpath, first = sys.argv[1], sys.argv[2], int(sys.argv[3])
allr = json.load(open(allpath))
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"), flush=True)
def get(path):
    try:
        with urllib.request.urlopen(url + path, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())
base = f"/records?after={first - 1}&limit=1000&"
fid = [r for r in allr if r["format"] == "kprint_test mac %pM"][0]["format_id"]
for query, pred in [
        ("level=err", lambda r: r["level"] == "err"),
        ("level=err%2B", lambda r: r["level_num"] <= 3),
        ("level=err+", lambda r: r["level_num"] <= 3),
        ("class=detected", lambda r: r["class"] == "detected"),
        ("subsystem=kprint-test", lambda r: r["subsystem"] == "kprint-test"),
        ("module=kprint_test", lambda r: r["module"] == "kprint_test"),
        ("module=user&level=err", lambda r: r["module"] == "user" and r["level"] == "err"),
        ("q=ipv", lambda r: "ipv" in r["format"]),
        ("q=%25pI4", lambda r: "%pI4" in r["format"]),
        (f"format_id={fid}", lambda r: r["format_id"] == fid)]:
    status, body = get(base + query)
    got = [r["seq"] for r in body] if status == 200 else status
    want = [r["seq"] for r in allr if pred(r)]
    check(f"/records?{query} returns exactly the matching records",
          want and got == want, (got, want))

after, paged = first - 1, []
for page in range(100):
    status, body = get(f"/records?after={after}&limit=7")
    if status != 200 or not body:
        break
    paged += [r["seq"] for r in body]
    after = body[-1]["seq"]
check("paging by after= loses and repeats nothing", paged == [r["seq"] for r in allr],
      (len(paged), len(allr)))
status, body = get("/records?limit=5")
check("without after=, the most recent records come, oldest first",
      [r["seq"] for r in body] == [r["seq"] for r in allr][-5:], body)

for query, param in [
        ("bogus=1", "bogus"), ("limit=0", "limit"), ("limit=1001", "limit"),
        ("limit=-1", "limit"), ("limit=99999999999999999999999", "limit"),
        ("limit=", "limit"), ("after=12x", "after"), ("after=-1", "after"),
        ("after=%2012", "after"), ("format_id=xyz", "format_id"),
        ("format_id=0123456789abcdef0", "format_id"), ("level=loud", "level"),
        ("level=", "level"), ("class=sparkly", "class"), ("b", "b"),
        ("limit=5&limit", "limit"), ("level=err%00x", "level"),
        ("subsystem=a%00b", "subsystem"), ("q=" + "x" * 10240, "q"),
        ("subsystem=" + "s" * 10240, "subsystem"), ("module=" + "m" * 64, "module"),
        ("level=err&" * 1024 + "bogus=1", "bogus")]:
    status, body = get("/records?" + query)
    check(f"/records?{query} is 400 naming '{param}'",
          status == 400 and body.get("parameter") == param and body.get("error"),
          (status, body))
PY
check_eq "/metrics?x=1 is 400" "$(get '/metrics?x=1')" 400
check_eq "still serving after bad requests" "$(get /healthz)" 200

check_eq "unknown path is 404" "$(get /nope)" 404
check_eq "POST /metrics is 405" "$(get /metrics -X POST)" 405
check "405 says Allow: GET, HEAD" grep -qi '^Allow: GET, HEAD' "$WORK/headers"
check_eq "HEAD /metrics is 200" "$(get /metrics -I)" 200
check_eq "/ is 200" "$(get /)" 200
check "/ links /metrics" grep -q 'href="/metrics"' "$WORK/body"
check_eq "/formats is 200" "$(get /formats)" 200
check "/formats elements match schema/formats.schema.json" \
	$PY tests/lib/validate_json.py --array --schema schema/formats.schema.json <"$WORK/body"
check "/formats counts kprint_test ipv4 %pI4 $K times" $PY -c '
import json, sys
arr = json.load(open(sys.argv[1]))
assert any(o.get("format") == "kprint_test ipv4 %pI4" and o["count"] == int(sys.argv[2]) for o in arr)' \
	"$WORK/body" $K
check "/formats: one entry per class, subsystem and module, like /metrics" $PY -c '
import json, sys
got = sorted((o["class"], o["subsystem"], o["module"], o["count"])
             for o in json.load(open(sys.argv[1])) if o.get("format") == "kprint_test no args")
want = sorted([("none", "kprint-test", "kprint_test", int(sys.argv[2])),
               ("none", "kpx \"sub\"\\x", "user", 2), ("registered", "", "user", 1)])
assert got == want, (got, want)' "$WORK/body" $K

stop_exporter
sed 's/^/# exporter: /' "$WORK/exporter.err" | head -20

# Without BPF the rest still serves, and says so.
start_exporter --no-bpf --listen 127.0.0.1:$PORT
get /metrics >/dev/null
check_eq "--no-bpf: kprint_bpf_up is 0" "$(metric kprint_bpf_up "$WORK/body")" 0
check "--no-bpf: promtool accepts /metrics" promtool check metrics <"$WORK/body"
check_eq "--no-bpf: /formats is 503" "$(get /formats)" 503
stop_exporter "SIGTERM stops the exporter (--no-bpf) with status 0"
finish
