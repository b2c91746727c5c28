// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, B3: what a BPF hook costs apart from its program's run time.
 * An fentry that does nothing, on jiffies_to_usecs(), which kernel/bench's
 * "hook" run calls in a loop: the time per call with it attached less
 * without is the trampoline (arguments saved, program entered and left),
 * the part of the printk counter's cost kernel.bpf_stats_enabled does not
 * see.  jiffies_to_usecs(): exported, traceable (lib/'s kstrtox.c is not),
 * a few instructions, hardly called otherwise while the bench runs; the
 * bench's modules have no BTF here, so no function of theirs will do.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("fentry/jiffies_to_usecs")
int BPF_PROG(bench_hook_cost, unsigned long j)
{
	return 0;
}
