#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reading records needs what reading the kernel log needs, subscribing needs
# CAP_SYS_ADMIN, emitting needs CAP_NET_ADMIN; a user namespace gets nothing.
. "$(dirname "$0")/../lib/lib.sh"

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all -- "$@"
}
# uid 65534 holding CAP_SYSLOG alone, the privilege dmesg needs.
syslog_only() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all,+syslog --ambient-caps=-all,+syslog -- "$@"
}

kprint emit --level info "permissions test record %d" 1 >/dev/null ||
	not_ok "root can emit"

check_fails_with "unprivileged subscribe is refused with EPERM" \
	'CAP_SYS_ADMIN|not permitted' nobody kprint monitor --count 1
check_fails_with "unprivileged dump is refused with EPERM" \
	'CAP_SYSLOG|not permitted' nobody kprint dump
check_fails_with "unprivileged stats is refused with EPERM" \
	'CAP_SYSLOG|not permitted' nobody kprint stats
check_fails_with "unprivileged emit is refused with EPERM" \
	'CAP_NET_ADMIN|not permitted' nobody kprint emit --level err "forged %d" 1

out=$(syslog_only kprint dump 2>&1)
check "CAP_SYSLOG alone may dump the ring" grep -q 'permissions test record 1' <<<"$out"
check_fails_with "CAP_SYSLOG alone may not subscribe" \
	'CAP_SYS_ADMIN|not permitted' syslog_only kprint monitor --count 1
check_fails_with "CAP_SYSLOG alone may not emit" \
	'CAP_NET_ADMIN|not permitted' syslog_only kprint emit --level err "forged %d" 2

# Raw sockets, so that no client-side check can hide a kernel that says yes.
nobody $PY - <<'PY'
import errno, sys
sys.path.insert(0, "tests/lib")
import kpnl
g = kpnl.Genl()
def refused(what, fn):
    try:
        fn()
        print(f"not ok - raw {what} as nobody was accepted")
    except (kpnl.NetlinkError, OSError) as e:
        print(f"{'ok' if e.errno == errno.EPERM else 'not ok'} - raw {what} as nobody: {e}")
refused("join of the records group", g.join)
refused("dump", g.dump)
refused("stats", g.stats)
refused("emit", lambda: g.emit(3, "forged"))
PY

# In its own user and network namespace, root-in-namespace sees no family.
check_fails_with "a user+net namespace cannot dump" 'not loaded|not found' \
	unshare -Urn kprint dump
check_fails_with "a user+net namespace cannot subscribe" 'not loaded|not found' \
	unshare -Urn kprint monitor --count 1
check_fails_with "a user namespace in the initial netns cannot dump" \
	'CAP_SYSLOG|not permitted' unshare -Ur kprint dump
check_fails_with "a user namespace in the initial netns cannot subscribe" \
	'CAP_SYS_ADMIN|not permitted' unshare -Ur kprint monitor --count 1
finish
