#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kprint CLI is a client of libkpc like any other: its sources include
# the library only through its public header, kpc.h (by way of the CLI's
# own kprint.h), so that what the CLI needs is what libkpc makes public.
set -u
cd "$(dirname "$0")/../.." || exit 1

. tests/lib/tap.sh

own=" $(cd exporter/cli && ls -- *.h | tr '\n' ' ')"
public=" kpc.h $(sed -n 's/^#include "\(kpc_[a-z_]*\.h\)"$/\1/p' exporter/lib/kpc.h | tr '\n' ' ')"
bad=""
for f in exporter/cli/*.[ch]; do
	for h in $(sed -n 's/^#include "\([^"]*\)"$/\1/p' "$f"); do
		[[ $own == *" $h "* ]] && continue
		[ "$h" = kpc.h ] && continue
		bad="$bad ${f#exporter/cli/}:$h"
	done
done
check "exporter/cli/ includes of libkpc are kpc.h only${bad:+ (not:$bad)}" test -z "$bad"
# And what kpc.h makes public is the library's own headers, all there.
missing=""
for h in $public; do
	[ -f "exporter/lib/$h" ] || missing="$missing $h"
done
check "kpc.h includes only headers of exporter/lib/${missing:+ (missing:$missing)}" test -z "$missing"
tap_exit
