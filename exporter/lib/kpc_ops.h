/* SPDX-License-Identifier: GPL-2.0 */
/* The kprint family's operations: dump the ring, read counters, emit. */
#ifndef KPC_OPS_H
#define KPC_OPS_H

#include <stdbool.h>
#include <stdint.h>

/* struct kpc_stats and its table kpc_stats_fields[] are generated. */
#include "kpc_genl.h"
#include "kpc_record.h"
#include "kpc_sock.h"

/*
 * Decode a KPRINT_CMD_STATS_GET reply.  Counters a kernel does not send
 * stay 0 and out of ->present; a counter of the wrong size is -EINVAL.
 */
int kpc_stats_decode(struct nlmsghdr *nlh, struct kpc_stats *st);
int kpc_stats_get(struct kpc_sock *ks, struct kpc_stats *st);

/*
 * The sequence number of the first record the module ever stored
 * (next_seq - records; the UAPI does not fix where numbering starts), so
 * that nothing before it is counted as lost.  0 if the counters are missing.
 */
uint64_t kpc_stats_origin(const struct kpc_stats *st);

/* kpc_stats_origin() from the kernel's counters now. */
int kpc_origin_get(struct kpc_sock *ks, uint64_t *origin);

/*
 * Dump the ring from sequence number from (older ones are gone; the first
 * record passed to fn tells how many), calling fn for each record in
 * order.  Malformed records are skipped and reported to *bad (may be
 * NULL).  Returns 0, the kernel's -errno, or fn's error.
 */
int kpc_dump(struct kpc_sock *ks, uint64_t from, kpc_record_fn fn, void *ctx,
	     struct kpc_malformed *bad);
/* The same, each record decoded into memory from mem (kpc_record_decode_msg_into()). */
int kpc_dump_into(struct kpc_sock *ks, uint64_t from, kpc_record_fn fn, void *ctx,
		  struct kpc_malformed *bad, const struct kpc_record_mem *mem);

struct kpc_emit_req {
	unsigned int level;		/* enum kprint_level */
	int class;			/* enum kprint_class, or -1 to leave out */
	const char *subsystem;		/* NULL to leave out */
	const char *format;
	const char *const *args;
	unsigned int nargs;
};

/*
 * Inject a record.  Returns 0 and the record's sequence number in *seq,
 * or -errno with the kernel's reason in kpc_sock_extack(ks).  Limits are
 * the kernel's to enforce, so that its message is what the user sees.
 */
int kpc_emit(struct kpc_sock *ks, const struct kpc_emit_req *req, uint64_t *seq);

#endif /* KPC_OPS_H */
