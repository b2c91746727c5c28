/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --replay: records from a saved JSON dump instead of the kernel's, and
 * the per-format counts built from them (kpx_replay.c).
 */
#ifndef KPX_REPLAY_H
#define KPX_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "kpc.h"

struct kpx_problems;
struct kpx_store;

/* FNV-1a 64 of "subsystem\0module\0", the BPF maps' tags_id (kpx_replay.c). */
uint64_t kpx_tags_id(const char *subsystem, const char *module);

/*
 * Per-format counts built from records, keyed as the BPF maps are: format
 * id, tags id (FNV-1a 64 of "subsystem\0module\0"), level and class.
 */
struct kpx_counts {
	struct kpc_format_count *f;
	size_t n, cap;
	uint32_t *index;		/* open addressing: 1 + index into f, 0 free */
	size_t mask;			/* slots - 1, a power of two less one */
};

int kpx_counts_add(struct kpx_counts *c, const struct kpc_record *rec);
void kpx_counts_fini(struct kpx_counts *c);

/* What one line of a replay file holds. */
struct kpx_replay_line {
	struct kpc_record *rec;		/* a record (kpc_record_dup()), or NULL */
	uint64_t lost;			/* a lost line: how many, and why */
	enum kpc_lost_reason reason;
};

/*
 * Decode one line (len bytes, no newline needed) of `kprint --json` output.
 * Returns 1 with out->rec for a record, 0 for a lost line (out->lost set),
 * a module line or a blank line, -ENOMEM, or -EINVAL with the reason in err.
 */
int kpx_replay_parse(const char *line, size_t len, struct kpx_replay_line *out,
		     char *err, size_t errlen);
/*
 * Load a whole replay file ("-": stdin) into the store, each record through
 * the problem catalog pr (NULL: none), and count its records per format
 * into *counts.  Returns 0; -EINVAL for a bad line,
 * said on stderr with FILE:LINE; -errno when the file cannot be read.
 */
int kpx_replay_load(const char *path, struct kpx_store *s, struct kpx_problems *pr,
		    struct kpc_format_count **counts, size_t *n);

#endif /* KPX_REPLAY_H */
