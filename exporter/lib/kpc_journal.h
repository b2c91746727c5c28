/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The systemd journal's MESSAGE_ID of a kprint record: 128 bits that name
 * one message of one module, the same on every host and boot, so that
 * "journalctl MESSAGE_ID=..." finds every occurrence of it and a catalog
 * entry (journalctl -x) explains it.
 *
 * Derivation (docs/journal.md): FNV-1a 128 over the bytes
 *
 *	"kprint-message-id-v1" NUL  FORMAT_ID  NUL  MODULE
 *
 * where FORMAT_ID is the record's format id (FNV-1a 64 of the format) as
 * 16 lowercase hex digits and MODULE the record's module name as sent
 * ("" when it has none), written as 32 lowercase hex digits, most
 * significant first.  The module is in it because a format alone does not
 * name a message: "%s" is said by hundreds of modules, each meaning
 * something else.  The leading key keeps the ids apart from any other
 * FNV-1a 128 of the same bytes; "v1" changes if the derivation ever does.
 * Not a cryptographic hash: anyone who can make a kernel module can make
 * its messages collide with another's anyway.
 */
#ifndef KPC_JOURNAL_H
#define KPC_JOURNAL_H

#include <stdint.h>

#define KPC_MESSAGE_ID_LEN	32	/* hex digits, without the NUL */
#define KPC_MESSAGE_ID_KEY	"kprint-message-id-v1"

/* The MESSAGE_ID of a format id and module, NUL-terminated in out. */
void kpc_message_id(uint64_t format_id, const char *module, char out[KPC_MESSAGE_ID_LEN + 1]);

#endif /* KPC_JOURNAL_H */
