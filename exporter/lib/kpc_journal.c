// SPDX-License-Identifier: GPL-2.0
/* The journal's MESSAGE_ID of a kprint record (kpc_journal.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kpc_journal.h"

typedef unsigned __int128 kpc_u128;

/* FNV-1a 128's offset basis and prime (www.isthe.com/chongo/tech/comp/fnv). */
#define KPC_FNV128_OFFSET \
	(((kpc_u128)0x6c62272e07bb0142ULL << 64) | 0x62b821756295c58dULL)
#define KPC_FNV128_PRIME	(((kpc_u128)1 << 88) | 0x13b)

static kpc_u128 kpc_fnv1a128_add(kpc_u128 h, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		h = (h ^ *b++) * KPC_FNV128_PRIME;
	return h;
}

void kpc_message_id(uint64_t format_id, const char *module, char out[KPC_MESSAGE_ID_LEN + 1])
{
	char id[17];
	kpc_u128 h = KPC_FNV128_OFFSET;

	snprintf(id, sizeof(id), "%016" PRIx64, format_id);
	/* Both NULs hashed: the key, id and module cannot run into each other. */
	h = kpc_fnv1a128_add(h, KPC_MESSAGE_ID_KEY, sizeof(KPC_MESSAGE_ID_KEY));
	h = kpc_fnv1a128_add(h, id, sizeof(id));
	h = kpc_fnv1a128_add(h, module ? module : "", module ? strlen(module) : 0);
	snprintf(out, KPC_MESSAGE_ID_LEN + 1, "%016" PRIx64 "%016" PRIx64,
		 (uint64_t)(h >> 64), (uint64_t)h);
}
