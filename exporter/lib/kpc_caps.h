/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calling thread's capabilities, through raw capget/capset (no libcap):
 * read and written whole, for a daemon dropping its privileges, and raised
 * around one system call, for a socket that needs CAP_SYSLOG or
 * CAP_SYS_ADMIN that its process keeps permitted but not effective.
 *
 * Capabilities belong to threads: every call here acts on the calling
 * thread only.
 */
#ifndef KPC_CAPS_H
#define KPC_CAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/capability.h>

/* One bit per CAP_* number: the kernel's 64 bits of each set in one word. */
#define KPC_CAP(cap)	(1ULL << (cap))

struct kpc_cap_sets {
	uint64_t effective;
	uint64_t permitted;
	uint64_t inheritable;
};

/* The thread's three sets.  Return: 0 or -errno. */
int kpc_caps_get(struct kpc_cap_sets *sets);

/* Replace them (the kernel refuses to add to permitted).  0 or -errno. */
int kpc_caps_set(const struct kpc_cap_sets *sets);

/*
 * The kernel checks CAP_SYSLOG and CAP_SYS_ADMIN when a request is sent or
 * a group joined, against the thread doing it.  kpc_caps_raise() makes
 * whichever of the two is permitted but not effective effective, and
 * kpc_caps_lower() puts the effective set back.  For a thread that has them
 * effective anyway, or not at all, neither changes anything.  Best effort:
 * a refusal leaves the sets as they were, and the call they bracket says
 * EPERM itself.
 */
struct kpc_caps {
	struct kpc_cap_sets sets;
	uint64_t saved_effective;
	bool raised;
};

void kpc_caps_raise(struct kpc_caps *c);
void kpc_caps_lower(struct kpc_caps *c);

#endif /* KPC_CAPS_H */
