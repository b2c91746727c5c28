#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every file generated from schema/kprint.yaml is what the spec generates
# now: regenerate into a temporary tree and compare with the committed one.
# A spec edited without `make generate` (or a generated file edited by hand)
# fails here.  Then, so that this check cannot go blind: a spec with one
# more counter must change every generated file that carries counters.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. tests/lib/tap.sh

if ! files=$(python3 schema/gen.py --list) || [ -z "$files" ]; then
	not_ok "schema/gen.py lists the files it generates"
	exit 1
fi
if python3 schema/gen.py --output-dir "$tmp/now" 2>"$tmp/err"; then
	ok "schema/gen.py generates from schema/kprint.yaml"
else
	not_ok "schema/gen.py generates from schema/kprint.yaml"
	sed 's/^/# /' "$tmp/err"
	exit 1
fi

for f in $files; do
	if [ ! -f "$f" ]; then
		not_ok "$f is committed"
	elif diff -u "$f" "$tmp/now/$f" >"$tmp/diff"; then
		ok "$f is fresh"
	else
		not_ok "$f is stale: run 'make generate' (diff: committed, generated)"
		head -40 "$tmp/diff" | sed 's/^/# /'
	fi
	if grep -q "Generated from schema/kprint.yaml by schema/gen.py: do not edit" "$f" 2>/dev/null; then
		ok "$f says it is generated"
	else
		not_ok "$f says it is generated"
	fi
done

# Sensitivity: one more stats attribute shows in the UAPI enum, the
# kernel's size helper, struct and fill table, libkpc's struct and table,
# and the exporter's families.
python3 - "$tmp/more.yaml" "$tmp/more-stats.yaml" <<'PY'
import sys, yaml
spec = yaml.safe_load(open("schema/kprint.yaml"))
stats = next(s for s in spec["attribute-sets"] if s["name"] == "stats")
stats["attributes"].append({"name": "canary", "type": "u64", "doc": "a canary"})
yaml.safe_dump(spec, open(sys.argv[1], "w"), sort_keys=False)
counters = yaml.safe_load(open("schema/stats.yaml"))
counters["canary"] = {"metric": "kprint_canary_total", "help": "A canary."}
yaml.safe_dump(counters, open(sys.argv[2], "w"), sort_keys=False)
PY
python3 schema/gen.py --spec "$tmp/more.yaml" --stats "$tmp/more-stats.yaml" --output-dir "$tmp/more"
for f in include/uapi/linux/kprint.h kernel/kprint_genl.h kernel/kprint_stats.h \
	 kernel/kprint_stats_table.h exporter/lib/kpc_genl.h exporter/lib/kpc_genl.c \
	 exporter/daemon/kpx_stats_metrics.c; do
	if grep -qi canary "$tmp/more/$f" && ! diff -q "$f" "$tmp/more/$f" >/dev/null; then
		ok "a new counter in the spec changes $f"
	else
		not_ok "a new counter in the spec changes $f"
	fi
done
tap_exit
