#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kprint family as the genetlink controller shows it: name, version,
# operations with their capabilities and policies, the records group.
. "$(dirname "$0")/../lib/lib.sh"

out=$(genl ctrl get name kprint)
echo "$out" | sed 's/^/# /'
check "genl ctrl lists the kprint family" grep -q 'Name: kprint' <<<"$out"
check "genl ctrl lists the records multicast group" grep -qE 'name: records' <<<"$out"

$PY - <<'PY'
import sys
sys.path.insert(0, "tests/lib")
import kpnl
K = kpnl.K
GENL_ADMIN_PERM, CAP_DO, CAP_DUMP, CAP_HASPOL = 0x01, 0x02, 0x04, 0x08
g = kpnl.Genl()
def check(what, cond):
    print(("ok - " if cond else "not ok - ") + what)
want = {
    "KPRINT_CMD_RECORD_GET": CAP_DUMP | CAP_HASPOL,
    "KPRINT_CMD_STATS_GET": CAP_DO | CAP_HASPOL,
    "KPRINT_CMD_EMIT": CAP_DO | CAP_HASPOL | GENL_ADMIN_PERM,
    # CAP_SYS_ADMIN, as the group, checked by the handler itself.
    "KPRINT_CMD_SUBSCRIBE": CAP_DO | CAP_HASPOL,
}
for name, flags in want.items():
    got = g.ops.get(K[name])
    check(f"{name} has flags {flags:#x} (got {got if got is None else hex(got)})", got == flags)
check("no operation beyond those four is offered", sorted(g.ops) == sorted(K[n] for n in want))
check("the notification command is not an operation", K["KPRINT_CMD_RECORD_NTF"] not in g.ops)
check("exactly one multicast group, named records", list(g.groups) == ["records"])
PY
[ "${PIPESTATUS[0]}" -eq 0 ] || not_ok "controller check script"
finish
