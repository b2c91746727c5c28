// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kpc_caps.h"

int kpc_caps_get(struct kpc_cap_sets *sets)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	sets->effective = data[0].effective | (uint64_t)data[1].effective << 32;
	sets->permitted = data[0].permitted | (uint64_t)data[1].permitted << 32;
	sets->inheritable = data[0].inheritable | (uint64_t)data[1].inheritable << 32;
	return 0;
}

int kpc_caps_set(const struct kpc_cap_sets *sets)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {
		{ .effective = (uint32_t)sets->effective,
		  .permitted = (uint32_t)sets->permitted,
		  .inheritable = (uint32_t)sets->inheritable },
		{ .effective = sets->effective >> 32,
		  .permitted = sets->permitted >> 32,
		  .inheritable = sets->inheritable >> 32 },
	};

	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

void kpc_caps_raise(struct kpc_caps *c)
{
	const uint64_t wanted = KPC_CAP(CAP_SYSLOG) | KPC_CAP(CAP_SYS_ADMIN);
	uint64_t missing;

	c->raised = false;
	if (kpc_caps_get(&c->sets))
		return;
	c->saved_effective = c->sets.effective;
	missing = wanted & c->sets.permitted & ~c->sets.effective;
	if (!missing)
		return;
	c->sets.effective |= missing;
	c->raised = !kpc_caps_set(&c->sets);
}

void kpc_caps_lower(struct kpc_caps *c)
{
	if (!c->raised)
		return;
	c->sets.effective = c->saved_effective;
	kpc_caps_set(&c->sets);
}
