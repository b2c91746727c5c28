#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kprint-test: boots a guest (tests/run runs it after the guest groups, not beside them)
#
# tests/vm/run --systemd: systemd is PID 1 of the guest, on a writable overlay
# of the host's root, in kprint-vm.target: the early system runs (journald
# takes the kernel's messages), none of the services or timers the host
# enables starts, the guest can write anywhere without the host seeing it,
# and the command runs with kprint.ko loaded as in every guest.
set -u
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
. tests/tap.sh

[ -f kernel/kprint.ko ] || { not_ok "kernel/kprint.ko is built (make)"; tap_exit; }

token=kprint-vm-systemd-$$-$RANDOM
probe=/etc/$token
# What the host enables (the links of /etc/systemd/system/*.wants/), none
# of which may run in the guest.
enabled=$(cd /etc/systemd/system 2>/dev/null &&
	ls -d ./*.wants/* 2>/dev/null | sed 's|.*/||' | sort -u | tr '\n' ' ')
echo "# the host enables: ${enabled:-nothing}"

out=$(tests/vm/run --timeout 300 --systemd -- bash -c '
	token=$1 probe=$2
	shift 2
	echo "pid1 $(cat /proc/1/comm)"
	# Until every start job is done; "running" only if no unit failed.
	echo "state $(systemctl is-system-running --wait)"
	systemctl --failed --no-legend --plain --no-pager | sed "s/^/failed /"
	for u in "$@"; do echo "unit $u $(systemctl is-active "$u")"; done
	echo "$token" >"$probe" && echo "wrote $(cat "$probe")"
	echo "module $(grep -c "^kprint " /proc/modules)"
	kprint stats >/dev/null && echo "family ok"
	echo "<6>$token in the kernel log" >/dev/kmsg
	for ((i = 0; i < 100; i++)); do
		journalctl -k -q --no-pager -g "$token" >/dev/null 2>&1 && break
		sleep 0.1
	done
	echo "journal $(journalctl -k -q --no-pager -g "$token" 2>/dev/null | grep -c "$token")"
' - "$token" "$probe" $enabled 2>&1)
status=$?
echo "$out" | sed 's/^/# guest: /'

check_eq "the guest ran and stopped cleanly" "$status" 0
check_eq "systemd is PID 1" "$(sed -n 's/^pid1 //p' <<<"$out")" systemd
check_eq "the system is running, no unit failed" "$(sed -n 's/^state //p' <<<"$out")" running
bad=$(grep '^unit ' <<<"$out" | grep -v ' inactive$' | cut -d' ' -f2 | tr '\n' ' ')
units=$(grep -c '^unit ' <<<"$out")
check_eq "none of the host's $units enabled units started, each asked" \
	"${bad:-none} $units" "none $(wc -w <<<"$enabled")"
check_eq "the root is writable in the guest" "$(sed -n 's/^wrote //p' <<<"$out")" "$token"
check "and the host does not see the write" [ ! -e "$probe" ]
check_eq "kprint.ko is loaded, its family answers" \
	"$(grep -E '^(module|family) ' <<<"$out" | tr '\n' ' ')" "module 1 family ok "
check_eq "journald has the kernel's messages" "$(sed -n 's/^journal //p' <<<"$out")" 1
tap_exit
