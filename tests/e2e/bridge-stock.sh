#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: kprint.ko bridge=1
#
# The printk bridge on a stock Debian module that logs: `modprobe loop`
# (drivers/block/loop.c printk()s "loop: module loaded") and `modprobe
# scsi_debug` (a SCSI host and disk: its own pr_*() and scsi_mod's
# dev_printk()s with SUBSYSTEM=scsi).  Every line /dev/kmsg shows in between
# is bridged once, with the same text, level, SUBSYSTEM and DEVICE, the
# loop line as a record of module "loop" from loop_init(); the exporter's
# /records?module=loop returns it; dmesg has each line once (the bridge
# echoes nothing back).
. "$(dirname "$0")/../lib/lib.sh"

for m in loop scsi_debug; do
	if grep -q "^$m " /proc/modules; then
		not_ok "$m is not loaded before the test"
		finish
	fi
done

start_exporter --listen 127.0.0.1:$PORT || finish
MARK="kprint bridge-stock:"
echo "<6>$MARK begin" >/dev/kmsg
check "modprobe loop" modprobe loop
check "modprobe scsi_debug" modprobe scsi_debug dev_size_mb=4
# Its scan runs in a kthread of its own: the disk is registered after
# scsi_mod has logged it.
wait_for "scsi_debug's disk scanned" eval 'ls -d /sys/class/scsi_device/*/device >/dev/null 2>&1'
echo "<6>$MARK end" >/dev/kmsg

# The exporter has them once it has the end marker, the newest record.
last=$(($(stat next_seq) - 1))
wait_for "the exporter received the end marker" \
	eval '[ "$(get "/records?after=$((last - 1))")" = 200 ] && grep -q "$MARK end" "$WORK/body"'
check_eq "/records?module=loop answers 200" "$(get '/records?module=loop')" 200
cp "$WORK/body" "$WORK/records.loop"
kprint dump --json >"$WORK/dump.json"
cat /dev/kmsg >"$WORK/kmsg" &
kmsg_pid=$!
# /dev/kmsg never ends: its reader has everything once the end marker is in.
wait_for "the kernel log read" grep -q "$MARK end" "$WORK/kmsg"
kill $kmsg_pid

$PY - "$WORK" "$MARK" <<'PY'
import json
import re
import sys

sys.path.insert(0, "tests/lib")
from lib import between, check, finish, kmsg_unescape  # noqa: E402

work, mark = sys.argv[1], sys.argv[2]
LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]


# /dev/kmsg as cat read it: one record a line, dictionary lines after it.
kmsg = []
for line in open(f"{work}/kmsg", "rb"):
    line = line.rstrip(b"\n")
    if line.startswith(b" ") and kmsg:
        k, _, v = line[1:].partition(b"=")
        kmsg[-1][k.decode()] = kmsg_unescape(v)
    elif b";" in line:
        head, _, text = line.partition(b";")
        prio = int(head.split(b",")[0])
        kmsg.append({"level": prio & 7, "text": kmsg_unescape(text)})
kms, _ = between(kmsg, f"{mark} begin", f"{mark} end", lambda k: k["text"])
dump = [json.loads(line) for line in open(f"{work}/dump.json")]
recs, _ = between([r for r in dump if r.get("source") == "printk"], f"{mark} begin",
                  f"{mark} end", lambda r: r["text"])

print(f"# bridge-stock: {len(kms)} kernel log lines, {len(recs)} bridged records: "
      f"{sorted(set(r['module'] for r in recs))}")
check("the modules logged (more than the loop line)", len(kms) > 1, len(kms))
check("one bridged record per kernel log line, in order",
      [r["text"] for r in recs] == [k["text"] for k in kms],
      ([r["text"] for r in recs][:5], [k["text"] for k in kms][:5]))
for r, k in zip(recs, kms):
    tag = f"{r['text'][:60]!r}"
    check(f"{tag}: level, SUBSYSTEM and DEVICE as /dev/kmsg has them",
          (r["level"], r["subsystem"], r["device"]) ==
          (LEVELS[k["level"]], k.get("SUBSYSTEM", ""), k.get("DEVICE", "")),
          ((r["level"], r["subsystem"], r["device"]), k))
    check(f"{tag}: a module that was loaded, and a function in it",
          r["module"] in ("loop", "scsi_debug", "scsi_mod", "sd_mod", "vmlinux") and
          re.fullmatch(r"\w+(\.\w+)*\+0x[0-9a-f]+/0x[0-9a-f]+", r["function"]),
          (r["module"], r["function"]))
check("no kernel log line twice", len(set(k["text"] for k in kms)) == len(kms),
      [t for t in set(k["text"] for k in kms) if [k["text"] for k in kms].count(t) > 1][:3])

loop = [r for r in recs if r["text"] == "loop: module loaded"]
check("\"loop: module loaded\" is one record of module loop, from loop_init()",
      len(loop) == 1 and loop[0]["module"] == "loop" and
      loop[0]["format"] == "loop: module loaded" and
      loop[0]["function"].startswith("loop_init+"),
      [(r["module"], r["format"], r["function"]) for r in loop])
dev = [r for r in recs if r["device"]]
check("scsi_debug's disk: dev_printk() records with SUBSYSTEM scsi and their DEVICE",
      any(r["subsystem"] == "scsi" and r["device"].startswith("+scsi:") for r in dev),
      [(r["subsystem"], r["device"]) for r in dev][:5])
check("scsi_debug's own messages are records of module scsi_debug",
      any(r["module"] == "scsi_debug" for r in recs), sorted(set(r["module"] for r in recs)))
exported = json.load(open(f"{work}/records.loop"))
check("/records?module=loop returns the loop records, and only those",
      [r["seq"] for r in exported] == [r["seq"] for r in recs if r["module"] == "loop"] and
      len(exported) >= 1, ([r["seq"] for r in exported], [r["seq"] for r in loop]))
check("and they are the records kprint dump shows",
      all(e == d for e, d in zip(exported, loop)), (exported[:1], loop[:1]))
finish()
PY
[ $? = 0 ] || not_ok "the checks of the bridged records"
stop_exporter
finish
