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

# tap_exit: exit 1 if any case failed, 0 otherwise.
tap_exit() {
	exit $((KPRINT_FAILS > 0))
}
