#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kprint as a kernel patch series (docs/patches.md): scripts/patches/series
# builds it from this tree against linux-source-6.12 and checks it (git am
# on a fresh checkout, checkpatch --strict, kernel-doc, the in-tree
# objects and printk.o compiled in the prepared tree).  Then what the
# series must hold, and that the checkpatch reading the series relies on
# does see an error.  45 to 85 s (by load) with the prepared tree in
# .output/linux/; 164 s for the first run, which makes it (unpack, git
# import, make prepare), on 2 busy cores.
set -u
cd "$(dirname "$0")/../.." || exit 1

. tests/lib/tap.sh

out=.output/patches
if scripts/patches/series build check; then
	ok "scripts/patches/series build check"
else
	not_ok "scripts/patches/series build check"
fi

p1=$(ls $out/0001-*.patch 2>/dev/null)
p2=$(ls $out/0002-*.patch 2>/dev/null)
cover=$out/0000-cover-letter.patch
touched() { sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$1"; }

for f in MAINTAINERS init/Kconfig kernel/Makefile kernel/kprint/Kconfig \
	kernel/kprint/Makefile kernel/kprint/kprint_printk.c \
	include/linux/kprint.h include/uapi/linux/kprint.h \
	Documentation/netlink/specs/kprint.yaml; do
	check "patch 1 holds $f" grep -qx "$f" <(touched "$p1")
done
# The ftrace bridge, the kretprobe and the BPF slots stay out of tree.
glue=$(touched "$p1" | grep -E 'kprint_(bridge[a-z_]*|handoff|ratelimit)\.c$')
check_eq "patch 1 holds none of the out-of-tree glue's sources" "$glue" ""
check "patch 1's Kconfig has no out-of-tree module entries" \
	bash -c "! grep -qE '^\+config KPRINT_(TEST|BENCH|DEMO)' '$p1'"
check_eq "patch 2 touches printk alone" \
	"$(touched "$p2" | tr '\n' ' ')" "kernel/printk/printk.c "
added=$(grep -c '^+[^+]' "$p2")
check "patch 2 is small ($added lines added, at most 20)" test "$added" -le 20
check "patch 2 has a Signed-off-by" grep -q '^Signed-off-by: ' "$p2"
check "the cover letter lists the generated files" \
	grep -q 'kernel/kprint/kprint_genl.c' "$cover"
check "the cover letter has its subject" \
	grep -q '^Subject: \[PATCH 0/[0-9]*\] kprint: ' "$cover"

# Patch 3 once kernel/intree/ has its files (docs/patches.md).
p3=$(ls $out/0003-*.patch 2>/dev/null)
if [ -e kernel/intree/Documentation/core-api/kprint.rst ]; then
	for f in Documentation/core-api/kprint.rst Documentation/core-api/index.rst \
		tools/testing/selftests/Makefile MAINTAINERS; do
		check "patch 3 holds $f" grep -qx "$f" <(touched "$p3")
	done
	check "patch 3 puts kprint in the selftests' TARGETS" \
		grep -qx '+TARGETS += kprint' "$p3"
else
	check_eq "no patch 3 without its files" "$p3" ""
fi

# The reading of checkpatch's output: a patch with a known error is seen.
bad=$(mktemp -d)
trap 'rm -rf "$bad"' EXIT
cat > "$bad/0001-bad.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: kprint <kprint@invalid>
Subject: [PATCH] kprint: a bad patch

Signed-off-by: kprint <kprint@invalid>
---
diff --git a/kernel/kprint/bad.c b/kernel/kprint/bad.c
new file mode 100644
--- /dev/null
+++ b/kernel/kprint/bad.c
@@ -0,0 +1,3 @@
+// SPDX-License-Identifier: GPL-2.0
+int kprint_bad(int a){ return a; }
+
PATCH
found=$(python3 -c '
import importlib.machinery, sys
s = importlib.machinery.SourceFileLoader("series", "scripts/patches/series").load_module()
print(sum(1 for f in s.checkpatch(sys.argv[1]) if f[0] == "ERROR"))' "$bad/0001-bad.patch")
check "checkpatch's errors in a bad patch are read (found $found)" test "${found:-0}" -ge 1

tap_exit
