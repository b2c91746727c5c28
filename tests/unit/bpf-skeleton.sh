#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The BPF object the CLI and the exporter embed (the skeleton's elf_bytes())
# is, byte for byte, the kprint_counter.bpf.o that make built, the file
# tests/e2e/bpf-object.sh loads on every guest kernel: one object, CO-RE,
# for every kernel.  A host test: the files are the same on every kernel.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

OBJ=.output/bpf/kprint_counter.bpf.o
SKEL=.output/bpf/kprint_counter.skel.h

if ! [ -f "$OBJ" ] || ! [ -f "$SKEL" ]; then
	not_ok "$OBJ and $SKEL are built (make)"
	tap_exit
fi
sum=$(sha256sum "$OBJ" | cut -d' ' -f1)
echo "# $OBJ sha256 $sum"

# elf_bytes(): the object as a C string of \xNN and \0.
embedded=$(python3 - "$SKEL" <<'PY'
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
# And the programs that load it carry those very bytes.
for bin in .output/bin/kprint .output/bin/kprint_exporter; do
	check "$bin holds the object's bytes" python3 -c '
import sys
sys.exit(open(sys.argv[2], "rb").read() not in open(sys.argv[1], "rb").read())' "$bin" "$OBJ"
done
tap_exit
