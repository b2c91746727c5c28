#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One BPF object for every kernel (CO-RE): the kprint_counter.bpf.o that
# make built once, against the default kernel's vmlinux.h, loads here, every
# program of it, on whichever kernel this guest runs (tests/vm/groups runs
# this on each); its sha256 is printed so that make check's output shows the
# same object on each kernel.  That the CLI and the exporter embed this very
# file is a host test's (tests/unit/bpf-skeleton.sh); attaching and
# counting are the other BPF tests' (bpf-bridge.sh, exporter-kill.sh).
. "$(dirname "$0")/../lib/lib.sh"

OBJ=.output/bpf/kprint_counter.bpf.o
PIN=/sys/fs/bpf/kprint-object-test

[ -f "$OBJ" ] || { not_ok "$OBJ is built (make)"; finish; }
sum=$(sha256sum "$OBJ" | cut -d' ' -f1)
echo "# $OBJ sha256 $sum, kernel $(uname -r)"

# Every program section of the object (kprobe/, kretprobe/, fentry/, fexit/).
want=$(readelf -SW "$OBJ" | grep -cE ' (kprobe|kretprobe|fentry|fexit)/')
check "the object has programs ($want)" [ "$want" -gt 0 ]

mkdir -p "$PIN"
out=$(bpftool prog loadall "$OBJ" "$PIN" 2>&1)
rc=$?
check_eq "bpftool loads the object on $(uname -r)${out:+ ($(head -c 300 <<<"$out"))}" "$rc" 0
got=$(find "$PIN" -mindepth 1 -maxdepth 1 | wc -l)
check_eq "every program of the object is loaded" "$got" "$want"
rm -rf "$PIN"
finish
