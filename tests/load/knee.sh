#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Find the highest steady rate that tests/e2e/sustained.sh holds (no gap,
# no overrun, no socket drop, every count equal): run it at rising rates
# and stop at the first that fails.  Not part of `make check`; run it as
#   tests/vm/run --timeout 0 -- tests/load/knee.sh [SECONDS] [RATE...]
set -u
seconds=${1:-30}
shift || true
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(1000 2000 5000 10000 20000 50000 100000)
held=0
for rate in "${rates[@]}"; do
	if KPRINT_SUSTAINED_RATE=$rate KPRINT_SUSTAINED_SECONDS=$seconds \
	   tests/e2e/sustained.sh >/tmp/knee.$rate 2>&1; then
		echo "# knee: $rate records/s for $seconds s: held"
		held=$rate
	else
		echo "# knee: $rate records/s for $seconds s: NOT held:"
		grep '^not ok' /tmp/knee.$rate | sed 's/^/#   /'
		break
	fi
done
echo "knee: the highest rate held was $held records/s ($seconds s each," \
     "$(nproc) vCPUs, $(uname -r))"
