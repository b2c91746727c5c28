#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages (debian/, make deb), on the host: "make deb" builds
# kprint and kprint-dkms from a copy of the tree, leaving no debhelper file
# in it; each package holds what it should (programs, man pages, the unit
# and its defaults; the module's sources and dkms.conf, not the test, demo
# and bench modules nor build products) and the maintainer scripts do what
# debian/ says; lintian finds no error; systemd-analyze security scores the
# packaged unit at most 2.5, systemd-analyze verify has nothing to say, and
# its system call filter lets through every call kprint_exporter --replay
# makes (under strace); and DKMS itself builds kprint.ko from the package
# for every kernel of this machine with headers (scripts/dkms-tarball,
# about 30 s), leaving the DKMS tarball that tests/e2e/own-guest/vm-systemd.sh
# installs in a guest.  It always builds afresh, so a broken debian/
# cannot pass on an old build.
set -u
cd "$(dirname "$0")/../.." || exit 1

. tests/lib/tap.sh

MAX_SCORE=2.5
out=.output/deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
# The exporter's own default (exporter/Makefile), what "make" builds.
exporter_version=$(sed -n 's/^KPRINT_VERSION ?= *//p' exporter/Makefile)
check_eq "debian/changelog's version is the exporter's KPRINT_VERSION" \
	"$version" "$exporter_version"

t0=$(date +%s)
if make deb >"$tmp/make.log" 2>&1; then
	ok "make deb builds the packages ($(($(date +%s) - t0)) s)"
else
	not_ok "make deb builds the packages"
	tail -n 30 "$tmp/make.log" | sed 's/^/# /'
	tap_exit
fi

# dpkg-buildpackage ran in .output/deb/src/kprint: nothing of it here.
left=$(ls -d debian/kprint debian/kprint-dkms debian/files debian/.debhelper \
	debian/debhelper-build-stamp debian/*.substvars debian/*.debhelper* 2>/dev/null)
check_eq "the build left no debhelper file in the source tree" "$left" ""

arch=$(dpkg --print-architecture)
deb=$out/kprint_${version}_$arch.deb
dkms=$out/kprint-dkms_${version}_all.deb
for f in "$deb" "$dkms"; do
	check "$f exists" test -s "$f"
done
[ -s "$deb" ] && [ -s "$dkms" ] || tap_exit

# has LISTING PATH...: every PATH is in the dpkg-deb -c listing.
has() {
	local listing=$1 p missing=""
	shift
	for p in "$@"; do
		grep -qx "$p" "$listing" || missing="$missing $p"
	done
	[ -z "$missing" ] || { echo "# missing:$missing"; return 1; }
}
dpkg-deb -c "$deb" | awk '{ sub(/^\.\//, "", $6); print $6 }' >"$tmp/kprint.list"
dpkg-deb -c "$dkms" | awk '{ sub(/^\.\//, "", $6); print $6 }' >"$tmp/dkms.list"

check "kprint: the programs, the unit, its defaults, the man pages" has "$tmp/kprint.list" \
	usr/bin/kprint usr/bin/kprint_exporter \
	lib/systemd/system/kprint-exporter.service etc/default/kprint-exporter \
	usr/share/man/man1/kprint.1.gz usr/share/man/man7/kprint.7.gz \
	usr/share/man/man8/kprint_exporter.8.gz usr/share/doc/kprint/copyright
check "kprint: the problem catalog and its journal catalog" has "$tmp/kprint.list" \
	usr/share/kprint/problems.yaml usr/lib/systemd/catalog/kprint-problems.catalog

src=usr/src/kprint-$version
check "kprint-dkms: dkms.conf, kbuild's sources, the headers, modprobe.d, modules-load.d" \
	has "$tmp/dkms.list" \
	"$src/dkms.conf" "$src/kernel/Kbuild" "$src/kernel/kprint_main.c" \
	"$src/kernel/kprint_genl.c" "$src/kernel/kprint_core.h" "$src/include/linux/kprint.h" \
	"$src/include/uapi/linux/kprint.h" "$src/include/kprint_fnv1a.h" \
	etc/modprobe.d/kprint.conf usr/lib/modules-load.d/kprint.conf
# Every kernel/*.c and *.h that kbuild reads, none forgotten.
want=$(cd kernel && ls -1 ./*.[ch] | grep -v '\.mod\.c$' | sed "s|^\./|$src/kernel/|" | sort)
got=$(grep "^$src/kernel/.*\.[ch]$" "$tmp/dkms.list" | sort)
check_eq "kprint-dkms: exactly kernel/'s sources ($(echo "$want" | wc -l) files)" "$got" "$want"
extra=$(grep -E "^$src/.*(/test/|/demo/|/bench/|\.o$|\.ko$|\.mod|\.cmd$|/Makefile$|Module\.symvers)" \
	"$tmp/dkms.list")
check_eq "kprint-dkms: no test, demo or bench module, no build product, no kernel/Makefile" \
	"$extra" ""

dpkg-deb -x "$deb" "$tmp/kprint"
dpkg-deb -x "$dkms" "$tmp/dkms"
dpkg-deb -e "$deb" "$tmp/kprint.ctl"
dpkg-deb -e "$dkms" "$tmp/dkms.ctl"

check_eq "the packaged kprint --version is the package's" \
	"$("$tmp/kprint/usr/bin/kprint" --version 2>&1 | cut -d' ' -f1-2)" "kprint $version"
check "the packaged programs are PIE with BIND_NOW (hardening=+all)" bash -c \
	'for b in "$@"; do readelf -d "$b" | grep -q "FLAGS_1.*NOW.*PIE" || exit 1; done' \
	_ "$tmp/kprint/usr/bin/kprint" "$tmp/kprint/usr/bin/kprint_exporter"

for p in "$deb" "$dkms"; do
	echo "# $(basename "$p"):"
	dpkg-deb -f "$p" Architecture Depends Recommends | sed 's/^/#   /'
done
field() { dpkg-deb -f "$1" "$2"; }
check "kprint: Depends on libbpf1, libmicrohttpd12, libnl-genl-3-200 (shlibs)" \
	grep -qE 'libbpf1.*libmicrohttpd12.*libnl-genl-3-200' <<<"$(field "$deb" Depends)"
check_eq "kprint: Recommends kprint-dkms" "$(field "$deb" Recommends)" "kprint-dkms"
check_eq "kprint-dkms: Architecture all" "$(field "$dkms" Architecture)" "all"
check "kprint-dkms: Depends on dkms" grep -q '^dkms' <<<"$(field "$dkms" Depends)"

conf=$tmp/dkms/$src/dkms.conf
check "dkms.conf: PACKAGE_NAME kprint, version $version, BUILT_MODULE_NAME kprint, /updates/dkms, AUTOINSTALL" \
	bash -c '. "$1" && [ "$PACKAGE_NAME" = kprint ] && [ "$PACKAGE_VERSION" = "$2" ] &&
		[ "${BUILT_MODULE_NAME[0]}" = kprint ] &&
		[ "${DEST_MODULE_LOCATION[0]}" = /updates/dkms ] && [ "$AUTOINSTALL" = yes ]' \
	_ "$conf" "$version"
check "modprobe.d/kprint.conf: ring_size, bridge documented, every option commented out" \
	bash -c 'f=$1; grep -q "^#options kprint ring_size=" "$f" &&
		grep -q "^#options kprint bridge=" "$f" && ! grep -q "^options" "$f"' \
	_ "$tmp/dkms/etc/modprobe.d/kprint.conf"
check_eq "modules-load.d/kprint.conf loads kprint" \
	"$(grep -v '^#' "$tmp/dkms/usr/lib/modules-load.d/kprint.conf")" "kprint"
check_eq "/etc/default/kprint-exporter: ARGS=\"\" (the exporter's loopback default)" \
	"$(grep '^ARGS=' "$tmp/kprint/etc/default/kprint-exporter")" 'ARGS=""'
# The kernel hooks too, as DKMS's own are: an admin may edit them.
check_eq "the five conffiles are conffiles" \
	"$(cat "$tmp/kprint.ctl/conffiles" "$tmp/dkms.ctl/conffiles" | sort)" \
	"$(printf '%s\n' /etc/default/kprint-exporter /etc/kernel/postinst.d/kprint \
		/etc/kernel/postrm.d/kprint /etc/modprobe.d/kprint.conf /etc/systemd/journald@kprint.conf)"
check "journald@kprint.conf: the namespace on disk (journal-upload's --directory), no rate limit" \
	bash -c 'grep -qx "Storage=persistent" "$1" && grep -qx "RateLimitIntervalSec=0" "$1"' \
	_ "$tmp/kprint/etc/systemd/journald@kprint.conf"

# The maintainer scripts: debhelper's parts and ours.
check "kprint postinst enables and starts kprint-exporter.service" \
	bash -c 'grep -q "deb-systemd-helper.*enable.*kprint-exporter.service" "$1" &&
		grep -q "deb-systemd-invoke \$_dh_action .kprint-exporter.service" "$1"' \
	_ "$tmp/kprint.ctl/postinst"
check "kprint prerm stops the unit, then unloads the BPF counters" \
	bash -c 'grep -q "deb-systemd-invoke stop .kprint-exporter.service" "$1" &&
		grep -q "kprint formats --unload" "$1"' _ "$tmp/kprint.ctl/prerm"
check "kprint postrm purge removes /sys/fs/bpf/kprint" \
	grep -q 'rm -rf /sys/fs/bpf/kprint' "$tmp/kprint.ctl/postrm"
check "kprint-dkms postinst runs DKMS's common.postinst (build and install)" \
	grep -q 'common.postinst' "$tmp/dkms.ctl/postinst"
check "kprint-dkms prerm unloads kprint.ko (tolerating failure), then dkms remove" \
	bash -c 'grep -q "modprobe -r kprint ||" "$1" && grep -q "dkms remove -m \$DKMS_NAME" "$1"' \
	_ "$tmp/dkms.ctl/prerm"
check "the five maintainer scripts parse (sh -n)" bash -c \
	'for s in "$@"; do sh -n "$s" || exit 1; done' \
	_ "$tmp"/kprint.ctl/{postinst,prerm,postrm} "$tmp"/dkms.ctl/{postinst,prerm}

# lintian on the .changes: both packages (and the dbgsym one).
changes=$out/kprint_${version}_$arch.changes
lintian --pedantic -I -E "$changes" >"$tmp/lintian" 2>"$tmp/lintian.err"
errors=$(grep -c '^E:' "$tmp/lintian")
warnings=$(grep -c '^W:' "$tmp/lintian")
sed 's/^/# /' "$tmp/lintian"
if [ "$errors" -eq 0 ] && ! grep -v 'running with root privileges' "$tmp/lintian.err" | grep -q .; then
	ok "lintian: no error ($warnings warnings, $(grep -c '^[IP]:' "$tmp/lintian") info/pedantic tags)"
else
	not_ok "lintian: $errors errors"
	sed 's/^/# /' "$tmp/lintian.err"
fi

# The unit as packaged.
unit=$tmp/kprint/lib/systemd/system/kprint-exporter.service
score=$(systemd-analyze security --offline=yes "$unit" 2>&1 |
	sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
if [ -n "$score" ] && awk -v s="$score" -v m="$MAX_SCORE" 'BEGIN { exit !(s <= m) }'; then
	ok "systemd-analyze security --offline=yes kprint-exporter.service: $score (at most $MAX_SCORE)"
else
	not_ok "systemd-analyze security --offline=yes kprint-exporter.service: '$score' (at most $MAX_SCORE)"
	systemd-analyze security --offline=yes "$unit" 2>&1 | grep '✗' | sed 's/^/# /'
fi
check "the unit runs the packaged /usr/bin/kprint_exporter with \$ARGS" \
	grep -qx 'ExecStart=/usr/bin/kprint_exporter \$ARGS' "$unit"
# Settings that would silently take what the exporter needs: the host's
# network, the init namespace's capabilities, uid 0, a writable /sys/fs/bpf.
bad=$(grep -E '^(PrivateNetwork|PrivateUsers|DynamicUser|User|ProtectKernelTunables)=' "$unit")
check_eq "the unit keeps the host's network, uid 0 and a writable bpffs (no PrivateNetwork=, ProtectKernelTunables=...)" \
	"$bad" ""
check "the unit retries a missing module with a pause, within a start limit" \
	bash -c 'grep -qx "Restart=on-failure" "$1" && grep -q "^RestartSec=[1-9]" "$1" &&
		grep -q "^StartLimitBurst=" "$1" && grep -q "^StartLimitIntervalSec=" "$1"' _ "$unit"
check "the unit logs into the journal namespace kprint, without journald's rate limit (--journal)" \
	bash -c 'grep -qx "LogNamespace=kprint" "$1" && grep -qx "LogRateLimitIntervalSec=0" "$1" &&
		grep -q "^RestrictAddressFamilies=.*AF_UNIX" "$1"' _ "$unit"
check "the unit loads kprint.ko first (modprobe@kprint.service)" \
	bash -c 'grep -q "^Wants=modprobe@kprint.service" "$1" &&
		grep -q "^After=.*modprobe@kprint.service" "$1"' _ "$unit"

# systemd 252 itself reads the unit: an unknown or misspelt key (one of a
# later systemd, say) is only a warning at boot, so any message fails here.
sed "s|^ExecStart=/usr/bin/|ExecStart=$tmp/kprint/usr/bin/|" "$unit" >"$tmp/kprint-exporter.service"
verify=$(systemd-analyze verify --man=no "$tmp/kprint-exporter.service" 2>&1)
check_eq "systemd-analyze verify: no message on the unit" "$verify" ""

# The system call filter against the exporter's own calls: what
# --replay makes (start, the capability drop, HTTP threads, three
# endpoints, SIGHUP, SIGTERM) must all pass the unit's SystemCallFilter=
# lines, or the service would fail with EPERM where the tests never look.
# The kernel side (bpf, perf_event_open, netlink) needs a guest.
python3 - "$tmp/kpxtest.jsonl" <<'PY'
import json, sys
sys.path.insert(0, "tests/lib")
import kpxtest
with open(sys.argv[1], "w") as f:
    for seq in range(1, 4):
        f.write(json.dumps(kpxtest.record(seq, "deb test %d", args=[str(seq)],
                                          text="deb test %d" % seq)) + "\n")
PY
# timeout: whatever happens, the test goes on.
timeout 30 strace -f -qq -o "$tmp/strace" "$tmp/kprint/usr/bin/kprint_exporter" \
	--replay "$tmp/kpxtest.jsonl" --listen 127.0.0.1:0 2>"$tmp/kpx.err" &
tracer=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/kpx.err")
	[ -n "$port" ] && break
	sleep 0.1
done
# The signals go to the exporter: the child of strace, itself the child of timeout.
kpx=$(pgrep -P "$(pgrep -P "$tracer")")
served=0
for path in healthz metrics records; do
	curl -sf -m 5 "http://127.0.0.1:$port/$path" >/dev/null && served=$((served + 1))
done
[ -n "$kpx" ] && kill -HUP "$kpx" && sleep 0.3 && kill -TERM "$kpx"
wait "$tracer"
rc=$?
denied=$(python3 - "$unit" "$tmp/strace" <<'PY'
import re, subprocess, sys
groups, cur = {}, None
for line in subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True,
                           text=True).stdout.splitlines():
    if line.startswith("@"):
        cur = groups.setdefault(line.split()[0], [])
    elif cur is not None and re.match(r"^\s+[@a-z0-9_-]+$", line):
        cur.append(line.strip())
def expand(names):
    out = set()
    for n in names:
        out |= expand(groups.get(n, [])) if n.startswith("@") else {n}
    return out
allowed = set()
for line in open(sys.argv[1]):
    if line.startswith("SystemCallFilter="):
        v = line.split("=", 1)[1].split()
        if v and v[0].startswith("~"):
            allowed -= expand([v[0][1:]] + v[1:])
        else:
            allowed |= expand(v)
calls = {m.group(1) for m in re.finditer(r"^\d+\s+([a-z0-9_]+)\(", open(sys.argv[2]).read(), re.M)}
calls.discard("execve")	# strace's own exec of it, before the filter would apply
print(" ".join(sorted(calls - allowed)) if calls else "no calls traced")
PY
)
ncalls=$(grep -oE '^[0-9]+ +[a-z0-9_]+\(' "$tmp/strace" | sed 's/.* //' | sort -u | wc -l)
# And it did replay them: an empty file would skip most of its work.
grep -q 'replaying 3 records' "$tmp/kpx.err" || served=0
if [ "$served" -eq 3 ] && [ "$rc" -eq 0 ] && [ -z "$denied" ]; then
	ok "the unit's SystemCallFilter= allows the $ncalls system calls of kprint_exporter --replay"
else
	not_ok "the unit's SystemCallFilter= allows kprint_exporter --replay's calls" \
		"(served $served of 3, status $rc, denied: '$denied')"
	sed 's/^/# /' "$tmp/kpx.err"
fi

# DKMS itself builds kprint.ko from the package for every kernel here
# (scripts/dkms-tarball, in a mount namespace of its own: this machine's
# DKMS tree is not touched), CLEAN included, and writes the tarball that
# tests/e2e/own-guest/vm-systemd.sh installs in a guest.
kvers=$(for b in /lib/modules/*/build; do [ -e "$b/Makefile" ] && basename "${b%/build}"; done)
tarball=$out/kprint-$version.dkms.tar.gz
rm -f "$tarball"
t0=$(date +%s)
if scripts/dkms-tarball "$dkms" "$tarball" >"$tmp/dkms.log" 2>&1; then
	ok "DKMS builds kprint.ko for the $(echo $kvers | wc -w) kernels with headers" \
		"($(echo $kvers), $(($(date +%s) - t0)) s)"
else
	not_ok "DKMS builds kprint.ko for the kernels with headers ($(echo $kvers))"
	tail -n 30 "$tmp/dkms.log" | sed 's/^/# /'
fi
mkdir "$tmp/tarball"
tar -xzf "$tarball" -C "$tmp/tarball" 2>/dev/null
for kver in $kvers; do
	dir=$tmp/tarball/dkms_main_tree/$kver/x86_64
	# Compressed as the kernel compresses its own (6.12: xz).
	ko=$(cd "$dir/module" 2>/dev/null && ls)
	check_eq "$kver: the tarball has kprint.ko alone, built for $kver" \
		"$(echo $ko | sed -E 's/\.(xz|zst|gz)$//') $(modinfo -F vermagic "$dir/module/$ko" 2>/dev/null |
			cut -d' ' -f1)" "kprint.ko $kver"
	check_eq "$kver: no compiler warning" "$(grep -i 'warning:' "$dir/log/make.log" 2>&1)" ""
done

tap_exit
