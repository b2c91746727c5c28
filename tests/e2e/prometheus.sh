#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A real Prometheus server (Debian's prometheus) scrapes kprint_exporter
# every second, and its query API returns exactly the number of records
# emitted with a test format; promtool accepts the page in the text format.
# Prometheus 2.42 asks for OpenMetrics first and gets it: with exemplar
# storage on, its exemplar API returns the test format's newest record, by
# a seq the exporter's /records knows (only an OpenMetrics scrape carries
# exemplars).
. "$(dirname "$0")/../lib/lib.sh"

EXPORTER=127.0.0.1:$PORT
PROM=127.0.0.1:9090
N=7	# odd: a doubled count can never pass for it
FORMAT="kprint prometheus test $$ %d"
STARTUP_TIMEOUT=300	# the Go binary comes over 9p into an emulated CPU
QUERY_TIMEOUT=120

exporter=
prometheus=
# alive PID: running, not just an unreaped zombie.
alive() {
	case $(ps -o stat= -p "$1" 2>/dev/null) in
	''|Z*) return 1 ;;
	esac
}
# stop PID NAME: SIGTERM, then its exit status, 10 s at most.
stop() {
	local pid=$1 name=$2 i rc
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		alive "$pid" || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	check_eq "$name stops on SIGTERM with status 0" $rc 0
}
# Nothing of ours may outlive the test, even when it ends early.
trap '[ -n "$prometheus" ] && kill -KILL "$prometheus" 2>/dev/null
      [ -n "$exporter" ] && kill -KILL "$exporter" 2>/dev/null' EXIT

# wait_http URL PID TIMEOUT: until URL answers 200, PID dies or TIMEOUT s.
wait_http() {
	local url=$1 pid=$2 deadline=$((SECONDS + $3))
	while [ $SECONDS -lt $deadline ]; do
		[ "$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$url")" = 200 ] &&
			return 0
		alive "$pid" || return 1
		sleep 0.2
	done
	return 1
}

WAIT_SECONDS=120 start_exporter --listen $EXPORTER || finish
wait_subscribers 1 || finish

# Prometheus writes only below $WORK (tmpfs): the guest's root is the
# host's, read-only.  scrape_timeout may not exceed scrape_interval.  The
# server checks the file itself: a bad one fails the readiness wait.
mkdir -p "$WORK/tsdb"
cat >"$WORK/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: kprint
    static_configs:
      - targets: ['$EXPORTER']
EOF
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
	--web.listen-address=$PROM --enable-feature=exemplar-storage \
	>"$WORK/prometheus.log" 2>&1 &
prometheus=$!
t0=$SECONDS
if wait_http "http://$PROM/-/ready" $prometheus $STARTUP_TIMEOUT; then
	ok "prometheus is ready ($((SECONDS - t0)) s)"
else
	not_ok "prometheus is ready within ${STARTUP_TIMEOUT} s"
	tail -20 "$WORK/prometheus.log" | sed 's/^/# prometheus: /'
	finish
fi

# query EXPR: an instant query's value, "none" when it selects no series,
# "error: ..." otherwise.  EXPR selects one series at most (a sum() or a
# single target's metric), so sed reads the answer: a Python start per poll
# costs seconds in the emulated guest.
query() {
	local body value
	body=$(curl -s -g --max-time 10 --get --data-urlencode "query=$1" \
		"http://$PROM/api/v1/query") || { echo "error: curl status $?"; return; }
	case $body in
	*'"status":"success"'*'"result":[]'*) echo none ;;
	*'"status":"success"'*)
		value=$(sed -n 's/.*"value":\[[0-9.e+]*,"\([^"]*\)"\].*/\1/p' <<<"$body")
		echo "${value:-error: $body}" ;;
	*) echo "error: $body" ;;
	esac
}

# poll EXPR WANT TIMEOUT: until EXPR's value is WANT; the last value on
# stdout.  A value past WANT ends it early: counters do not come back down.
poll() {
	local expr=$1 want=$2 deadline=$((SECONDS + $3)) got
	while :; do
		got=$(query "$expr")
		[ "$got" = "$want" ] && break
		[[ $got =~ ^[0-9]+$ ]] && [ "$got" -gt "$want" ] && break
		[ $SECONDS -lt $deadline ] || break
		sleep 0.5
	done
	echo "$got"
}

check_eq "prometheus scrapes the exporter: up{job=\"kprint\"}" \
	"$(poll 'up{job="kprint"}' 1 $QUERY_TIMEOUT)" 1
check_eq "prometheus reads kprint_bpf_up 1" \
	"$(poll 'kprint_bpf_up{job="kprint"}' 1 $QUERY_TIMEOUT)" 1

# Selected by source and format and summed, so that further labels on the
# per-format series (class, subsystem, module) change nothing here.
expr="sum(kprint_format_messages_total{job=\"kprint\",source=\"kprint\",format=\"$FORMAT\"})"
check_eq "the test format has no count before it is emitted" "$(query "$expr")" none
for ((i = 0; i < N; i++)); do
	kprint emit --level warn "$FORMAT" "$i" >/dev/null || not_ok "kprint emit #$i"
done
t0=$SECONDS
check_eq "prometheus: $expr is $N, the number emitted" "$(poll "$expr" $N $QUERY_TIMEOUT)" $N
echo "# the last query was $((SECONDS - t0)) s after the last emit"
# The same through the exporter's own received-records counter would also
# count the records of other tests: the per-format count is the exact one.

# One series of the test format with the count; wherever its labels are.
curl -s --max-time 30 -o "$WORK/metrics" "http://$EXPORTER/metrics"
check_eq "the exporter's own /metrics has the test format's count" "$(awk -v f="format=\"$FORMAT\"" \
	'/^kprint_format_messages_total\{/ && index($0, f) { n++; v = $NF } END { print n "x" v }' \
	"$WORK/metrics")" "1x$N"
out=$(promtool check metrics <"$WORK/metrics" 2>&1)
check "promtool check metrics accepts /metrics" [ $? -eq 0 ]
[ -n "$out" ] && echo "$out" | sed 's/^/# promtool: /' | head -10

# What Prometheus 2.42 asks for, and what it got.
ACCEPT='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
check_eq "the exporter answers Prometheus' Accept in OpenMetrics" "$(curl -s --max-time 30 \
	-o /dev/null -w '%{content_type}' -H "Accept: $ACCEPT" "http://$EXPORTER/metrics")" \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"
# exemplar_seq: the newest seq among the test series' stored exemplars, or "".
exemplar_seq() {
	curl -s -g --max-time 10 --get \
		--data-urlencode "query=kprint_format_messages_total{job=\"kprint\",format=\"$FORMAT\"}" \
		--data-urlencode "start=$(($(date +%s) - 3600))" \
		--data-urlencode "end=$(($(date +%s) + 3600))" \
		"http://$PROM/api/v1/query_exemplars" |
		grep -o '"seq":"[0-9]*"' | tr -dc '0-9\n' | sort -n | tail -1
}
seq=
deadline=$((SECONDS + QUERY_TIMEOUT))
while [ -z "$seq" ] && [ $SECONDS -lt $deadline ]; do
	seq=$(exemplar_seq)
	[ -n "$seq" ] || sleep 0.5
done
check "prometheus' exemplar API has the test series' exemplar (seq ${seq:-none})" [ -n "$seq" ]
if [ -n "$seq" ]; then
	rec=$(curl -s --max-time 30 "http://$EXPORTER/records?after=$((seq - 1))&limit=1")
	check "/records?after=$((seq - 1))&limit=1 is that record, of the test format" \
		grep -qF "\"seq\":$seq,\"source\":\"kprint\"" <<<"$rec"
	check_eq "... of the test format" \
		"$(grep -c "\"format\":\"$FORMAT\"" <<<"$rec")" 1
fi

stop "$prometheus" prometheus
prometheus=
stop "$exporter" kprint_exporter
exporter=
if [ "$KPRINT_FAILS" -gt 0 ]; then
	sed 's/^/# exporter: /' "$WORK/exporter.err" | head -20
	grep -iE 'level=(error|warn)' "$WORK/prometheus.log" | sed 's/^/# prometheus: /' | head -20
fi
finish
