# SPDX-License-Identifier: GPL-2.0
#
# The TAP-style lines every shell test prints, one definition for all of
# them (tests/lib/lib.sh in the guest, and the host tests):
# "ok - what" or "not ok - what", failures counted in KPRINT_FAILS.
# tests/run counts the lines; a test exits non-zero if any case failed
# (tap_exit).  Sourced, never run.

KPRINT_FAILS=0

ok() { echo "ok - $*"; }
not_ok() {
	echo "not ok - $*"
	KPRINT_FAILS=$((KPRINT_FAILS + 1))
}

# check WHAT CMD...: CMD's exit status decides.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# check_eq WHAT GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1 (got '$2', want '$3')"
	fi
}

# expect WHAT STATUS PATTERN ARGS...: the CLI, "$KPRINT" ARGS (stdin
# empty), exits STATUS and says PATTERN (an ERE) on stdout or stderr.
expect() {
	local what=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$("$KPRINT" "$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
		ok "$what"
	else
		not_ok "$what (status $rc, want $want; output: $(head -c 300 <<<"$out"))"
	fi
}

# tap_exit: exit 1 if any case failed, 0 otherwise.
tap_exit() {
	exit $((KPRINT_FAILS > 0))
}
