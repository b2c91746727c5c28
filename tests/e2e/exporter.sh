#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint_exporter: /metrics counts each format exactly and passes promtool;
# /records matches the schema, filters return exactly the matching subset
# and paging with after= loses and repeats nothing; bad queries get a 400
# with a JSON reason and the daemon keeps serving; 404, 405, shutdown.
. "$(dirname "$0")/lib.sh"

PORT=9464
URL=http://127.0.0.1:$PORT
load_test_module

# get PATH [CURL ARGS...]: the body in $WORK/body, the status on stdout.
get() {
	local path=$1
	shift
	curl -s -g --max-time 30 -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' "$@" "$URL$path"
}

kprint_exporter --listen 127.0.0.1:$PORT 2>"$WORK/exporter.err" &
exporter=$!
for ((i = 0; i < 3000; i++)); do
	[ "$(get /healthz 2>/dev/null)" = 200 ] && break
	kill -0 $exporter 2>/dev/null || break
	sleep 0.01
done
check_eq "/healthz answers 200" "$(get /healthz)" 200
check_eq "/healthz says ok" "$(cat "$WORK/body")" ok
wait_subscribers 1 || finish

# metric NAME_AND_LABELS: one sample's value from a /metrics page file.
metric() {
	$PY - "$1" "$2" <<'PY'
import sys
want, path = sys.argv[1], sys.argv[2]
for line in open(path, encoding="utf-8"):
    name, _, value = line.rstrip("\n").rpartition(" ")
    if name == want:
        print(value)
        break
else:
    print("absent")
PY
}

K=3
size=$(cat $TEST_PARAMS/table_size)
first=$(stat next_seq)
received0=$(get /metrics >/dev/null; metric kprint_exporter_records_received_total "$WORK/body")
cp "$WORK/body" "$WORK/metrics.before"
echo $K >$TEST_PARAMS/emit || not_ok "emit the table $K times"
want=$((received0 + K * size))
for ((i = 0; i < 3000; i++)); do
	get /metrics >/dev/null
	[ "$(metric kprint_exporter_records_received_total "$WORK/body")" -ge $want ] && break
	sleep 0.01
done
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

$PY - "$WORK/metrics.before" "$WORK/metrics.after" "$K" "$size" <<'PY'
import re, sys
before, after, k, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
series = re.compile(r'^kprint_format_messages_total\{source="kprint",format_id="([0-9a-f]{16})",level="(\w+)",format="((?:[^"\\]|\\.)*)"\} (\d+)$')
def counts(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        m = series.match(line.rstrip("\n"))
        if m:
            out[m.group(1, 2, 3)] = int(m.group(4))
    return out
b, a = counts(before), counts(after)
delta = {key: a[key] - b.get(key, 0) for key in a if a[key] != b.get(key, 0)}
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else f" ({detail})"))
check(f"/metrics: {size} kprint formats changed", len(delta) == size, len(delta))
check(f"/metrics: each by exactly {k}", set(delta.values()) == {k}, delta)
check("/metrics: a newline in a format is escaped as \\n",
      any(key[2] == "kprint_test newline %d\\n" for key in delta), sorted(delta))
PY

# Quotes, backslashes and invalid UTF-8 in a label value.
kprint emit --level err $'kpx "quoted" back\\slash \xff\xfe end %s' x >/dev/null ||
	not_ok "emit a record with an awkward format"
get /metrics >"$WORK/status"
cp "$WORK/body" "$WORK/metrics.odd"
check "/metrics escapes quotes and backslashes and replaces invalid UTF-8" \
	grep -qF 'format="kpx \"quoted\" back\\slash �� end %s"} 1' "$WORK/metrics.odd"
out=$(promtool check metrics <"$WORK/metrics.odd" 2>&1)
check "promtool check metrics accepts /metrics" [ $? -eq 0 ]
[ -n "$out" ] && echo "$out" | sed 's/^/# promtool: /' | head -10

# /records, all of the table's records, against the schema.
check_eq "/records?after=$((first - 1))&limit=1000 is 200" \
	"$(get "/records?after=$((first - 1))&limit=1000")" 200
cp "$WORK/body" "$WORK/all.json"
check "/records elements match schema/record.schema.json" $PY -c '
import json, sys, jsonschema
schema = json.load(open("schema/record.schema.json"))
recs = json.load(open(sys.argv[1]))
assert isinstance(recs, list) and recs
for r in recs:
    jsonschema.validate(r, schema)' "$WORK/all.json"
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
        ("subsystem=a%00b", "subsystem")]:
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
check "/formats elements match schema/formats.schema.json" $PY -c '
import json, sys, jsonschema
schema = json.load(open("schema/formats.schema.json"))
arr = json.load(open(sys.argv[1]))
assert any(o.get("format") == "kprint_test ipv4 %pI4" and o["count"] == int(sys.argv[2]) for o in arr)
for o in arr:
    jsonschema.validate(o, schema)' "$WORK/body" $K

kill -TERM $exporter
wait $exporter
check_eq "SIGTERM stops the exporter with status 0" $? 0
sed 's/^/# exporter: /' "$WORK/exporter.err" | head -20

# Without BPF the rest still serves, and says so.
kprint_exporter --no-bpf --listen 127.0.0.1:$PORT 2>"$WORK/exporter.err" &
exporter=$!
for ((i = 0; i < 3000; i++)); do
	[ "$(get /healthz 2>/dev/null)" = 200 ] && break
	kill -0 $exporter 2>/dev/null || break
	sleep 0.01
done
get /metrics >/dev/null
check_eq "--no-bpf: kprint_bpf_up is 0" "$(metric kprint_bpf_up "$WORK/body")" 0
check "--no-bpf: promtool accepts /metrics" promtool check metrics <"$WORK/body"
check_eq "--no-bpf: /formats is 503" "$(get /formats)" 503
kill -TERM $exporter
wait $exporter
check_eq "SIGTERM stops the exporter (--no-bpf) with status 0" $? 0
finish
