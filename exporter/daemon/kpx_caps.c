// SPDX-License-Identifier: GPL-2.0
/*
 * Dropping privileges once the exporter is set up.  Everything that needs
 * them is done by then: the BPF counters are loaded (map reads go through
 * the file descriptors we hold), the netlink sockets are open and joined,
 * the ring is read and the HTTP socket listens.  What an attacker who took
 * over the HTTP side could still do with root's capabilities is what we
 * give up.
 *
 * CAP_SYS_ADMIN stays permitted, not effective: after kprint.ko is reloaded
 * the subscription has to join the new family's records group, which the
 * kernel checks against CAP_SYS_ADMIN there and then, and libkpc raises
 * it around that one call.
 *
 * Capabilities belong to threads, not processes: capset() changes the
 * calling thread only, so this runs before any thread is created and the
 * threads inherit the reduced sets.  libkpc's kpc_caps does the
 * capget/capset.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "kpc.h"
#include "kpx_caps.h"
#include "kpx_log.h"

int kpx_drop_privileges(bool keep_sys_admin)
{
	const uint64_t sys_admin = KPC_CAP(CAP_SYS_ADMIN);
	struct kpc_cap_sets caps;
	uint64_t keep;
	int cap, err;

	/* No exec, setuid binary or file capability can give any back. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err = -errno;
		kpx_log("PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
		return err;
	}
	/* Ambient capabilities would survive an exec: none (EINVAL: too old). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) {
		err = -errno;
		kpx_log("clearing ambient capabilities: %s\n",
			strerror(errno));
		return err;
	}

	err = kpc_caps_get(&caps);
	if (err) {
		kpx_log("capget: %s\n", strerror(-err));
		return err;
	}
	keep = keep_sys_admin ? caps.permitted & sys_admin : 0;

	/*
	 * The bounding set too, while CAP_SETPCAP is still effective; without
	 * it (not started as root) there is nothing in it that no_new_privs
	 * does not already keep out of reach.
	 */
	if (caps.effective & KPC_CAP(CAP_SETPCAP)) {
		for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
			if (keep && cap == CAP_SYS_ADMIN)
				continue;
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
				err = -errno;
				kpx_log("dropping capability %d from"
					" the bounding set: %s\n", cap, strerror(errno));
				return err;
			}
		}
	}

	caps = (struct kpc_cap_sets){ .permitted = keep };
	err = kpc_caps_set(&caps);
	if (err) {
		kpx_log("capset: %s\n", strerror(-err));
		return err;
	}

	/* Trust, but verify: a silent half-drop would be worse than none. */
	err = kpc_caps_get(&caps);
	if (!err && (caps.effective || caps.inheritable || caps.permitted != keep))
		err = -EPERM;
	if (err) {
		kpx_log("capabilities are not dropped: %s\n",
			strerror(-err));
		return err;
	}
	return 0;
}
