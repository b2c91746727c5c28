#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The text of a record also reaches the normal kernel log, at its level,
# unless the printk module parameter turns that off.
. "$(dirname "$0")/../lib/lib.sh"

param=/sys/module/kprint/parameters/printk
kprint emit --level warning "passthrough on %s" "$$" >/dev/null || not_ok "emit"
check "the record's text is in the kernel log" \
	grep -q "passthrough on $$" <(dmesg)
check "at the record's level (warning)" \
	grep -q "passthrough on $$" <(dmesg --level warn)
echo 0 >$param || not_ok "turn printk passthrough off"
kprint emit --level warning "passthrough off %s" "$$" >/dev/null || not_ok "emit"
check "with printk=0 the text stays out of the kernel log" \
	bash -c "! dmesg | grep -q 'passthrough off $$'"
check "with printk=0 the record is still in the ring" \
	grep -q "passthrough off $$" <(kprint dump)
echo 1 >$param
finish
