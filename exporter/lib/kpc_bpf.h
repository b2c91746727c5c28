/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel per-format counters (bpf/kprint_counter.bpf.c): load them
 * once, pinned under a bpffs directory, and read them from anywhere.
 *
 * Maps and links are pinned, so counting goes on when the loader exits and
 * a later loader (an exporter restarted, another `kprint formats`) reuses
 * what is there instead of attaching a second time, which would count
 * every message twice.
 */
#ifndef KPC_BPF_H
#define KPC_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "kprint_counter.h"	/* bpf/: the maps' layout */

enum kpc_bpf_source {
	KPC_BPF_KPRINT,		/* kprint records, map kprint_formats */
	KPC_BPF_PRINTK,		/* every printk(), map printk_formats */
	KPC_BPF_NR_SOURCES
};

struct kpc_bpf_opts {
	const char *pin_dir;	/* NULL: KPRINT_COUNTER_PIN_DIR */
	unsigned int max_formats; /* entries per map when created; 0: default */
};

/*
 * The programs, each attached once and pinned (docs/bpf-counters.md).  A
 * source counts when its hooks do: kprint by KPC_HOOK_KPRINT, printk by
 * KPC_HOOK_PRINTK_ENTRY, one program per message, which takes the key of a
 * message kprint.ko's bridge handed over from slots that KPC_HOOK_HANDOFF
 * learns the place of.  Ratelimit suppressions are
 * counted by one of two ways, never both: KPC_HOOK_RATELIMIT_KPRINT
 * (kprint.ko's kretprobe), or KPC_HOOK_RATELIMIT with its
 * KPC_HOOK_RATELIMIT_ENTRY; kpc_bpf_ratelimit_hook() says which.
 */
enum kpc_bpf_hook {
	KPC_HOOK_KPRINT,	/* kprobe kprint:kprint_trace_record */
	KPC_HOOK_PRINTK_ENTRY,	/* fentry vprintk_store: every printk message */
	KPC_HOOK_HANDOFF,	/* kprobe kprint:kprint_trace_handoff: where the slots are */
	KPC_HOOK_RATELIMIT,	/* kretprobe ___ratelimit: the suppressed calls */
	KPC_HOOK_RATELIMIT_ENTRY, /* kprobe ___ratelimit: their arguments */
	KPC_HOOK_RATELIMIT_KPRINT, /* kprobe kprint:kprint_trace_ratelimit */
	KPC_BPF_NR_HOOKS
};

/* What happened to one hook when the counters were opened. */
struct kpc_bpf_hook_status {
	bool attached;		/* counting now */
	bool reused;		/* a pinned link from an earlier loader */
	char why[160];		/* when not attached: why it was skipped */
};

struct kpc_bpf;

/*
 * Load (or reuse) the pinned maps and attach each hook not yet attached.
 * A hook this kernel lacks is skipped and said so in the status; the rest
 * still counts.  Needs CAP_SYS_ADMIN (CAP_BPF + CAP_PERFMON).  -ESTALE:
 * the pin directory holds maps of another layout (an older kprint's);
 * kpc_bpf_unload() removes them.
 */
int kpc_bpf_open(const struct kpc_bpf_opts *opts, struct kpc_bpf **out);
void kpc_bpf_close(struct kpc_bpf *b);
const struct kpc_bpf_hook_status *kpc_bpf_status(const struct kpc_bpf *b,
						 enum kpc_bpf_source src);
const struct kpc_bpf_hook_status *kpc_bpf_hook_status(const struct kpc_bpf *b,
						      enum kpc_bpf_hook hook);
const char *kpc_bpf_hook_name(enum kpc_bpf_hook hook);

/*
 * The ratelimit hook chosen when the counters were first attached
 * (KPC_HOOK_RATELIMIT_KPRINT or KPC_HOOK_RATELIMIT), and the one left off;
 * the status of each says whether it counts, or why not.
 */
enum kpc_bpf_hook kpc_bpf_ratelimit_hook(const struct kpc_bpf *b);
enum kpc_bpf_hook kpc_bpf_ratelimit_other(const struct kpc_bpf *b);

/* Remove the pinned links and maps and the tracefs probe: counting stops. */
int kpc_bpf_unload(const char *pin_dir);

/*
 * One entry: a format as used by one module and subsystem, at one level and
 * class.  printk() entries counted without the bridge have class 0 (none)
 * and empty tags.  format is the raw format, unescaped from the map's.
 */
struct kpc_format_count {
	uint64_t format_id;
	uint64_t tags_id;	/* FNV-1a 64 of "subsystem\0module\0"; 0 for printk */
	uint32_t level;
	uint32_t class;		/* enum kprint_class */
	uint64_t count;
	char format[KPRINT_COUNTER_FORMAT_LEN];
	char subsystem[KPRINT_COUNTER_TAG_LEN];
	char module[KPRINT_COUNTER_TAG_LEN];
};

/*
 * Every entry of one source's map, read in batches.  *out is malloc()ed
 * (free() it); the order is the map's.
 */
int kpc_bpf_read(struct kpc_bpf *b, enum kpc_bpf_source src,
		 struct kpc_format_count **out, size_t *n);
int kpc_bpf_totals(struct kpc_bpf *b, struct kprint_counter_totals *t);

/*
 * A source's messages seen (printk: with kprint's echoes, which count per
 * format as their records), and of those not counted per format.
 */
uint64_t kpc_bpf_seen(const struct kprint_counter_totals *t, enum kpc_bpf_source src);
uint64_t kpc_bpf_not_counted(const struct kprint_counter_totals *t, enum kpc_bpf_source src);
const struct kprint_counter_failures *kpc_bpf_failures(const struct kprint_counter_totals *t,
						       enum kpc_bpf_source src);
uint64_t kpc_bpf_failures_sum(const struct kprint_counter_failures *f);

/* One ratelimit state as used by one caller: its suppressed calls. */
struct kpc_ratelimit_count {
	uint64_t state;		/* the struct ratelimit_state's address */
	char func[KPRINT_COUNTER_TAG_LEN];
	uint64_t suppressed;
	uint32_t burst;
	uint32_t interval_jiffies;
};

int kpc_bpf_ratelimits(struct kpc_bpf *b, struct kpc_ratelimit_count **out, size_t *n);

/*
 * The map's escaped format (bpf/kprint_counter.h) back to the raw bytes;
 * @dst has @size bytes, the result is NUL-terminated.
 */
void kpc_bpf_unescape(char *dst, const char *src, size_t size);
unsigned int kpc_bpf_max_formats(const struct kpc_bpf *b);

const char *kpc_bpf_source_name(enum kpc_bpf_source src);

#endif /* KPC_BPF_H */
