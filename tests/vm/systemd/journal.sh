# SPDX-License-Identifier: GPL-2.0
#
# kprint_exporter --journal in the installed unit, sourced by
# tests/e2e/own-guest/vm-systemd.sh's guest half (its check, busywait, stage and
# tests/lib/lib.sh's scrape), in the same guest, after the unit's own
# checks and before the purge (docs/journal.md says what is checked):
#
#   - ARGS="--journal": the unit writes into its journal namespace "kprint"
#     (LogNamespace=kprint), and says so in /metrics;
#   - two records of one format (kprint_test's flood, 2) land there with
#     every field, checked against the exporter's /records and against
#     MESSAGE_ID derived here again, independently, in Python;
#     "journalctl MESSAGE_ID=..." finds exactly those two, and
#     journalctl -x explains them from a catalog that "kprint catalog
#     --journal" made of a PO file;
#   - a record made while the unit is stopped is written once it runs
#     again, from the ring, and nothing the journal had is written twice;
#   - a real segfault is one more entry, problem Segfault with its own
#     MESSAGE_ID, which journalctl -x explains from the installed catalog;
#   - a bridged printk message and a kprint record are each stored once in
#     the system journal (journald's /dev/kmsg) and once in namespace kprint;
#   - systemd-journal-upload reads the namespace's directory and sends it
#     to a systemd-journal-remote on this guest: the two records arrive
#     with every KPRINT_ field as written;
#   - a burst of 20,000 records (flood_cpus on each CPU) arrives whole: as
#     many entries of its MESSAGE_ID, each seq once, the journal loss
#     counters 0, and the ingest ones.

# The MESSAGE_ID of format and module, derived apart from libkpc.
message_id() { python3 tests/lib/message_id.py "$1" "$2"; }

# jcount ARGS...: entries of the namespace kprint matching ARGS.
jcount() { journalctl --namespace kprint -q --no-pager -o cat "$@" 2>/dev/null | wc -l; }
# seqs ARGS...: the distinct KPRINT_SEQ of the namespace's entries matching ARGS.
seqs() {
	journalctl --namespace kprint -q --no-pager -o cat --output-fields=KPRINT_SEQ "$@" 2>/dev/null |
		sort -u | wc -l
}
# syscount ARGS...: entries of the system journal matching ARGS.
syscount() { journalctl -q --no-pager -o cat "$@" 2>/dev/null | wc -l; }

# fields_ok JSON_LINES RECORDS_JSON ID: every field of each journal entry
# against the record of the same seq in /records, and MESSAGE_ID.
fields_ok() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
entries = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
records = {r["seq"]: r for r in json.load(open(sys.argv[2]))}
want_id = sys.argv[3]
bad = []
def eq(name, got, want):
    if got != want:
        bad.append("%s: %r, not %r" % (name, got, want))
for e in entries:
    seq = int(e.get("KPRINT_SEQ", -1))
    r = records.get(seq)
    if r is None:
        bad.append("seq %d: not in /records" % seq)
        continue
    eq("MESSAGE", e.get("MESSAGE"), r["text"])
    eq("PRIORITY", e.get("PRIORITY"), str(r["level_num"]))
    eq("SYSLOG_FACILITY", e.get("SYSLOG_FACILITY"), "0")
    eq("SYSLOG_IDENTIFIER", e.get("SYSLOG_IDENTIFIER"), "kprint")
    eq("MESSAGE_ID", e.get("MESSAGE_ID"), want_id)
    eq("CODE_FILE", e.get("CODE_FILE"), r["file"])
    eq("CODE_LINE", e.get("CODE_LINE"), str(r["line"]))
    eq("CODE_FUNC", e.get("CODE_FUNC"), r["function"])
    eq("KPRINT_FORMAT", e.get("KPRINT_FORMAT"), r["format"])
    eq("KPRINT_FORMAT_ID", e.get("KPRINT_FORMAT_ID"), r["format_id"])
    for i, a in enumerate(r["args"]):
        eq("KPRINT_ARG_%d" % i, e.get("KPRINT_ARG_%d" % i), a)
    eq("KPRINT_ARG_%d (none)" % len(r["args"]), e.get("KPRINT_ARG_%d" % len(r["args"])), None)
    eq("KPRINT_SUBSYSTEM", e.get("KPRINT_SUBSYSTEM"), r["subsystem"])
    eq("KPRINT_MODULE", e.get("KPRINT_MODULE"), r["module"])
    eq("KPRINT_DEVICE", e.get("KPRINT_DEVICE"), r.get("device", ""))
    eq("KPRINT_SOURCE", e.get("KPRINT_SOURCE"), r.get("source", "kprint"))
    eq("KPRINT_TS_MONO_NS", e.get("KPRINT_TS_MONO_NS"), str(r["ts_mono_ns"]))
    eq("KPRINT_TS_REAL_NS", e.get("KPRINT_TS_REAL_NS"), str(r["ts_real_ns"]))
for b in bad:
    print("# " + b)
print("%d entries, %d differences" % (len(entries), len(bad)))
sys.exit(1 if bad or not entries else 0)
EOF
}

# same_fields LOCAL REMOTE: every KPRINT_*, MESSAGE* and CODE_* field of
# each local entry equal in the remote entry of the same KPRINT_SEQ.
same_fields() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
def load(p):
    return {e["KPRINT_SEQ"]: e for e in map(json.loads, filter(str.strip, open(p)))}
local, remote = load(sys.argv[1]), load(sys.argv[2])
bad = 0
for seq, e in local.items():
    r = remote.get(seq)
    keys = [k for k in e if k.startswith(("KPRINT_", "MESSAGE", "CODE_", "PRIORITY", "SYSLOG_"))]
    if r is None or any(r.get(k) != e[k] for k in keys):
        bad += 1
        print("# seq %s: %s" % (seq, "missing" if r is None else
              [k for k in keys if r.get(k) != e[k]]))
print("%d entries, %d KPRINT_ fields each at least, %d differ" %
      (len(local), min(sum(k.startswith("KPRINT_") for k in e) for e in local.values()) if local else 0, bad))
sys.exit(1 if bad or not local else 0)
EOF
}

journal_written() { scrape kprint_exporter_journal_records_written_total; }
is_at_least() { [ "$("${@:2}")" -ge "$1" ] 2>/dev/null; }

# problem_field NAME KEY: KEY (message-id, summary) of problem NAME in the
# catalog the package installed.
problem_field() {
	python3 -c 'import sys, yaml
for p in yaml.safe_load(open("/usr/share/kprint/problems.yaml"))["problems"]:
    if p["problem"] == sys.argv[1]:
        print(p[sys.argv[2]].strip())' "$1" "$2"
}

# A problem in the journal: a real segfault (arch/x86/mm/fault.c prints it
# while show_unhandled_signals is on) is one more entry, with problem
# Segfault's own MESSAGE_ID, and journalctl -x explains it from the
# kprint-problems.catalog the package installed (its trigger ran
# journalctl --update-catalog).
problem_journal_checks() {
	local sid subject pid
	sid=$(problem_field Segfault message-id)
	subject=$(problem_field Segfault summary)
	stage "journal: a segfault, problem Segfault, MESSAGE_ID=$sid"
	check "the package installed the problems' journal catalog" \
		grep -q "^-- $sid" /usr/lib/systemd/catalog/kprint-problems.catalog
	echo 1 >/proc/sys/debug/exception-trace
	python3 -c 'import ctypes; ctypes.string_at(0)' &
	pid=$!
	wait "$pid"
	check_eq "python3 died of SIGSEGV" "$?" 139
	check "the segfault is one problem entry in namespace kprint" busywait 30 \
		is 1 jcount MESSAGE_ID="$sid" KPRINT_PROBLEM=Segfault
	check_eq "... naming the task and its pid" \
		"$(jcount MESSAGE_ID="$sid" KPRINT_PROBLEM_TASK=python3 KPRINT_PROBLEM_PID="$pid")" 1
	check_eq "journalctl -x explains it: Subject is the problem and its summary" \
		"$(journalctl --namespace kprint -q --no-pager -x MESSAGE_ID="$sid" |
			grep -cF "Subject: Segfault: $subject")" 1
}

journal_checks() {
	local kver=$1 ko=$2 full=$3 token=$4 id fmt=$'kprint_test flood %u' ns_dir written
	local burst_fmt='kprint_test flood_cpus cpu %u n %u' burst_id cpus n lost t0

	stage "journal: ARGS=--journal, kprint.ko with a 16 MiB ring"
	# The burst must fit the ring: ingest resyncs from it when its socket
	# overruns (20,000 records of about 200 bytes; the default ring is 1 MiB).
	if [ "$full" = 1 ]; then
		modprobe -r kprint && modprobe kprint ring_size=16777216
	else
		rmmod kprint && insmod "$ko" ring_size=16777216
	fi
	check_eq "kprint.ko has a 16 MiB ring" "$(cat /sys/module/kprint/parameters/ring_size)" 16777216
	echo 'ARGS="--journal --rcvbuf 8388608"' >/etc/default/kprint-exporter
	systemctl restart kprint-exporter
	check "with ARGS=--journal the unit serves again" busywait 60 serving
	check_eq "it writes to the journal namespace kprint (LogNamespace=kprint)" \
		"$(scrape 'kprint_exporter_journal_info{namespace="kprint"}')" 1
	check "systemd-journald@kprint runs" busywait 10 \
		is active systemctl is-active systemd-journald@kprint.service
	check "insmod kprint_test.ko" insmod kernel/test/kprint_test.ko

	# Two records of one format.
	id=$(message_id "$fmt" kprint_test)
	stage "journal: two records of \"$fmt\", MESSAGE_ID=$id"
	echo 2 >/sys/module/kprint_test/parameters/flood
	check "journalctl --namespace kprint MESSAGE_ID=$id finds them" \
		busywait 30 is 2 jcount MESSAGE_ID="$id"
	get '/records?module=kprint_test&limit=1000' >/dev/null
	cp "$WORK/body" /tmp/journal-records.json
	journalctl --namespace kprint -q --no-pager -o json MESSAGE_ID="$id" >/tmp/journal-pair.json
	check "both with every field, as /records has the record, MESSAGE_ID derived again" \
		fields_ok /tmp/journal-pair.json /tmp/journal-records.json "$id"
	check_eq "... exactly those two: one per seq" "$(seqs MESSAGE_ID="$id")" 2
	check_eq "... and none with the MESSAGE_ID of the same format of another module" \
		"$(jcount MESSAGE_ID="$(message_id "$fmt" kprint_other)")" 0

	# A restart: the records made while the unit was down come from the
	# ring, once; those the journal already has are not written again.
	stage "journal: a record while the unit is stopped"
	systemctl stop kprint-exporter
	kprint emit --level info "$token-while-stopped %d" 1 >/dev/null
	systemctl start kprint-exporter
	check "after a restart the record made while it was stopped is there" busywait 30 \
		is 1 jcount -g "$token-while-stopped"
	journalctl --namespace kprint -u kprint-exporter -q --no-pager -n 3 | sed 's/^/# unit: /'
	check_eq "... once, and the two before it still twice in all" \
		"$(jcount -g "$token-while-stopped") $(jcount MESSAGE_ID="$id")" "1 2"

	# journalctl -x explains them: the catalog kprint catalog --journal
	# writes from a PO file whose "#:" names the module, as --pot writes it.
	printf '%s\n' 'msgid ""' 'msgstr ""' '"Language: de\n"' \
		'"Content-Type: text/plain; charset=UTF-8\n"' '' '#: kprint_test' '#, c-format' \
		"msgid \"$fmt\"" 'msgstr "kprint_test Flut %u"' >/tmp/de.po
	check "kprint catalog --journal de.po, installed, journalctl --update-catalog" sh -c \
		'kprint catalog --journal /tmp/de.po >/usr/lib/systemd/catalog/kprint.catalog &&
		journalctl --update-catalog'
	check_eq "journalctl -x explains both" \
		"$(journalctl --namespace kprint -q --no-pager -x MESSAGE_ID="$id" |
			grep -o 'Subject: kprint_test flood <KPRINT_ARG_0>' | wc -l)" 2

	problem_journal_checks

	# Each message once per journal: the system journal has the kernel's
	# text (journald reads /dev/kmsg), namespace kprint the record.
	stage "journal: a bridged printk message and a kprint record"
	echo "<6>$token-bridged printk line" >/dev/kmsg
	kprint emit --level info "$token-kprint record %d" 7 >/dev/null
	check "the bridged printk line reaches namespace kprint as source printk" busywait 30 \
		is 1 jcount KPRINT_SOURCE=printk -g "$token-bridged"
	check "the kprint record reaches namespace kprint" busywait 30 \
		is 1 jcount KPRINT_SOURCE=kprint -g "$token-kprint record 7"
	check "both reach the system journal" busywait 30 \
		is 2 syscount -g "$token-(bridged|kprint)"

	# journal-upload (Debian 12's reads a directory, not a namespace) to a
	# journal-remote on this guest: the namespace's files as they are.
	ns_dir=/var/log/journal/$(cat /etc/machine-id).kprint
	stage "journal: systemd-journal-upload of $ns_dir to systemd-journal-remote"
	check "the namespace keeps its journal in $ns_dir (Storage=persistent)" \
		sh -c 'ls "$1"/*.journal >/dev/null' - "$ns_dir"
	rm -rf /tmp/remote && mkdir -p /tmp/remote
	/lib/systemd/systemd-journal-remote --listen-http=127.0.0.1:19532 \
		--output=/tmp/remote/remote.journal --split-mode=none 2>/tmp/remote.log &
	local remote=$!
	check "systemd-journal-remote listens on 127.0.0.1:19532" busywait 20 \
		sh -c 'ss -Hltn "sport = :19532" | grep -q LISTEN'
	check "systemd-journal-upload --directory=$ns_dir sends it" \
		timeout 120 /lib/systemd/systemd-journal-upload --url=http://127.0.0.1:19532 \
		--directory="$ns_dir" --save-state=/tmp/upload.state --follow=no
	kill "$remote"
	wait "$remote"
	journalctl --file=/tmp/remote/remote.journal -q --no-pager -o json MESSAGE_ID="$id" \
		>/tmp/remote-pair.json 2>&1
	check "the two records arrive with every field intact" \
		same_fields /tmp/journal-pair.json /tmp/remote-pair.json
	[ -s /tmp/remote-pair.json ] || sed 's/^/# journal-remote: /' /tmp/remote.log

	# A burst of 20,000 records.
	cpus=$(nproc)
	n=$((20000 / cpus))
	burst_id=$(message_id "$burst_fmt" kprint_test)
	written=$(journal_written)
	stage "journal: a burst of $((n * cpus)) records ($n on each of $cpus CPUs)"
	# Without kprint.ko's echo to printk for the burst: the system
	# journald's copy is not what is tested, and under emulation it would
	# take the CPU the namespace's journald needs (and overrun /dev/kmsg).
	echo 0 >/sys/module/kprint/parameters/printk
	t0=$SECONDS
	echo "$n" >/sys/module/kprint_test/parameters/flood_cpus
	check "the journal writer writes all $((n * cpus))" busywait 150 \
		is_at_least "$((written + n * cpus))" journal_written
	echo "# journal: $((n * cpus)) records written in $((SECONDS - t0)) s;" \
		"queue high water $(scrape kprint_exporter_journal_queue_high_water_records)," \
		"$(scrape kprint_exporter_journal_send_seconds_total) s in sd_journal_sendv"
	# One pass over the 20,000 entries (each costs seconds under emulation).
	journalctl --namespace kprint -q --no-pager -o cat --output-fields=KPRINT_SEQ \
		MESSAGE_ID="$burst_id" >/tmp/burst-seqs 2>&1
	check_eq "journalctl MESSAGE_ID=$burst_id: all of them, each seq once" \
		"$(wc -l </tmp/burst-seqs) $(sort -u /tmp/burst-seqs | wc -l)" \
		"$((n * cpus)) $((n * cpus))"
	lost=""
	for r in queue_full nomem send_failed stopped; do
		lost="$lost $(scrape "kprint_exporter_journal_records_lost_total{reason=\"$r\"}")"
	done
	check_eq "the journal loss counters say 0 (queue_full nomem send_failed stopped)" "$lost" " 0 0 0 0"
	check_eq "and ingest lost nothing" \
		"$(scrape 'kprint_exporter_records_lost_total{reason="overwritten"}')/$(scrape 'kprint_exporter_records_lost_total{reason="missing"}')" 0/0
	echo 1 >/sys/module/kprint/parameters/printk
	check_eq "the bridged line is still once in namespace kprint" "$(jcount -g "$token-bridged")" 1
	check_eq "... and once in the system journal" "$(syscount -g "$token-bridged")" 1
	rmmod kprint_test
	stage "journal: done"
}
