#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs/fleet/kprint.rules.yml, the fleet guide's recording and alert rules:
# promtool check rules, promtool test rules with kprint.rules.test.yml (a
# new format alerted once the fleet has a day of history and for 15
# minutes only, loss alerted with its count, the fleet's rate by
# format_id), and every kprint_ metric the rules and docs/fleet.md name is
# one kprint_exporter serves (its name in exporter/daemon/), so that a
# renamed metric cannot leave an alert that never fires.
set -u
cd "$(dirname "$0")/../.." || exit 1

. tests/lib/tap.sh

rules=docs/fleet/kprint.rules.yml
if out=$(promtool check rules "$rules" 2>&1); then
	ok "promtool check rules $rules ($(echo "$out" | grep -o '[0-9]* rules found'))"
else
	not_ok "promtool check rules $rules"
	printf '%s\n' "$out" | sed 's/^/# /'
fi
if out=$(cd docs/fleet && promtool test rules kprint.rules.test.yml 2>&1); then
	ok "promtool test rules docs/fleet/kprint.rules.test.yml"
else
	not_ok "promtool test rules docs/fleet/kprint.rules.test.yml"
	printf '%s\n' "$out" | sed 's/^/# /'
fi

# The names the exporter serves: the quoted kprint_ names of its tables.
served=$(grep -ho '"kprint_[a-z0-9_]*"' exporter/daemon/*.c | tr -d '"' | sort -u)
for f in "$rules" docs/fleet.md; do
	# Names only: not a recording rule's (with colons), not a prefix ending in _.
	used=$(grep -o 'kprint_[a-z0-9_]*[a-z0-9]' "$f" | sort -u |
	       grep -vx 'kprint_exporter\|kprint_instance\|kprint_format_messages\|kprint_fnv1a' || true)
	unknown=$(comm -23 <(echo "$used") <(echo "$served"))
	if [ -n "$used" ] && [ -z "$unknown" ]; then
		ok "$f names $(echo "$used" | wc -l) kprint_ metrics, each served by kprint_exporter"
	else
		not_ok "$f names only metrics kprint_exporter serves (not: $(echo $unknown))"
	fi
done
tap_exit
