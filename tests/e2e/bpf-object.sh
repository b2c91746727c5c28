#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One BPF object for every kernel (CO-RE): the kprint_counter.bpf.o that
# make built once, against the default kernel's vmlinux.h, is the object
# the CLI and the exporter embed (its bytes in the skeleton), and this very
# file loads here, every program of it, on whichever kernel this guest
# runs (tests/vm/groups runs this on each); its sha256 is printed so that
# make check's output shows the same object on each kernel.  Attaching and
# counting are the other BPF tests' (bpf-bridge.sh, exporter-kill.sh).
. "$(dirname "$0")/lib.sh"

OBJ=.output/bpf/kprint_counter.bpf.o
SKEL=.output/bpf/kprint_counter.skel.h
PIN=/sys/fs/bpf/kprint-object-test

[ -f "$OBJ" ] && [ -f "$SKEL" ] || { not_ok "$OBJ and $SKEL are built (make)"; finish; }
sum=$(sha256sum "$OBJ" | cut -d' ' -f1)
echo "# $OBJ sha256 $sum, kernel $(uname -r)"

# The skeleton's elf_bytes(): the object as a C string of \xNN and \0.
embedded=$($PY - "$SKEL" <<'PY'
import hashlib, re, sys
text = open(sys.argv[1]).read()
m = re.search(r'__elf_bytes\(size_t \*sz\)\n\{\n\t\*sz = (\d+);\n\treturn \(const void \*\)"\\\n(.*?)";', text, re.S)
if not m:
    sys.exit("no elf_bytes() in the skeleton")
body = m.group(2).replace("\\\n", "")
data = bytes(int(h, 16) if h else 0 for h in re.findall(r'\\(?:x([0-9a-fA-F]{2})|0)', body))
if len(data) != int(m.group(1)):
    sys.exit(f"elf_bytes() has {len(data)} bytes, says {m.group(1)}")
print(hashlib.sha256(data).hexdigest())
PY
)
check_eq "the skeleton the CLI and the exporter embed holds this object" "$embedded" "$sum"

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
