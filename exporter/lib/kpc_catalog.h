/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Message catalogs: records translated at view time, from gettext PO files
 * keyed by the kernel's format string (msgid = the format, msgstr = its
 * translation), and the POT template such catalogs start from.
 *
 * The PO syntax is gettext's: comments (#, #. #: #| and the #, flags),
 * msgctxt, msgid, msgstr, strings continued on following "..." lines,
 * the C escapes \n \t \r \a \b \f \v \" \' \? \\ \ooo \xhh.  What is read:
 *
 *  - Entries with an empty msgstr are untranslated and "#, fuzzy" ones
 *    are skipped, as msgfmt skips them; so are obsolete "#~" entries.
 *  - Entries with a msgctxt are skipped: a record has no context, so no
 *    record could ever match one.
 *  - msgid_plural is refused: a kernel format has no plural forms (no
 *    ngettext() at a kprint or printk call site).
 *  - The header (msgid "") must say charset=UTF-8, or the file is
 *    refused: records are UTF-8 (or escaped as such), and a catalog in
 *    another charset would print mojibake (msgconv -t UTF-8 converts).
 *    Without a header, UTF-8 is assumed.  Every string must be valid
 *    UTF-8 and hold no NUL byte.
 *  - Every translated entry is checked by kpc_catalog_fmt.h's checker,
 *    stricter than msgfmt --check-format: the msgstr must take the
 *    msgid's arguments with the same conversions (same %p extension,
 *    "%*d" one conversion of two arguments), in order, or in any order
 *    when positional ("%2$s %1$d"), each exactly once.  A mismatch
 *    refuses the whole file with "FILE:LINE: reason" (the msgstr's line),
 *    rather than showing a wrong translation later.
 *  - A msgid may appear once; a second one is refused with both lines.
 *
 * Matching: a msgid is compared with a record's format without one
 * trailing newline on either.  printk strips it from the formats of
 * printk records; kprint keeps a kprint record's format as written and
 * drops the newline from its text only.  So msgid "link up\n" (as
 * xgettext extracts it from the source) matches both, and the msgstr
 * loses one trailing newline as the record's text does.
 */
#ifndef KPC_CATALOG_H
#define KPC_CATALOG_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "kpc_record.h"

struct kpc_catalog;

/* Why a catalog was refused: "FILE:LINE: reason", NUL-terminated. */
struct kpc_catalog_error {
	char msg[640];
};

/* What a loaded catalog held, entry by entry. */
struct kpc_catalog_stats {
	size_t translated;	/* in use */
	size_t untranslated;	/* empty msgstr */
	size_t fuzzy;		/* "#, fuzzy": skipped */
	size_t context;		/* with msgctxt: skipped */
};

/*
 * Read a PO file whole (at most 64 MiB).  0 with *out, or a negative
 * errno with err->msg saying where and why: -EINVAL for a refused file,
 * -EFBIG, -ENOMEM, or the errno of open/read.
 */
int kpc_catalog_load(const char *path, struct kpc_catalog **out,
		     struct kpc_catalog_error *err);

/* The same for a buffer (len bytes); name stands for the file in messages. */
int kpc_catalog_parse(const char *name, const char *buf, size_t len,
		      struct kpc_catalog **out, struct kpc_catalog_error *err);

void kpc_catalog_free(struct kpc_catalog *c);

const struct kpc_catalog_stats *kpc_catalog_stats(const struct kpc_catalog *c);

/* The header's "Language:" ("de"), or "" when it has none. */
const char *kpc_catalog_language(const struct kpc_catalog *c);

/*
 * The line of the header's msgstr, where "Language:" is or belongs, for
 * messages about it; 0 when the file has no header.
 */
unsigned int kpc_catalog_header_line(const struct kpc_catalog *c);

/* The msgstr for a format (as matched above), or NULL when untranslated. */
const char *kpc_catalog_lookup(const struct kpc_catalog *c, const char *format);

/*
 * The translated msgids, as matched above (without one trailing newline),
 * for i < kpc_catalog_count(c), in no particular order: for a reader that
 * has a rendered line and its args but not its format (kprint translate,
 * on kprint.ko's markers=1 lines of a saved dmesg).
 */
size_t kpc_catalog_count(const struct kpc_catalog *c);
const char *kpc_catalog_msgid(const struct kpc_catalog *c, size_t i);
/*
 * The "#:" references of the same entry, as written on its "#:" lines
 * joined by blanks ("" when none): the modules that said the format, in a
 * catalog made from kprint formats --pot (kprint catalog --journal).
 */
const char *kpc_catalog_refs(const struct kpc_catalog *c, size_t i);

/*
 * The record's text in the catalog's language: the msgstr with each
 * conversion replaced by the record's own argument for it (positional or
 * in order), "%%" by "%", one trailing newline dropped.  Returns 1 with
 * *out malloc()ed, 0 with *out NULL when the text stays as it is (the
 * format is not translated, or the record's args are not one per
 * conversion of its msgid: a truncated or malformed record, or an arg
 * holds a NUL, which a C string cannot carry), -ENOMEM.
 */
int kpc_catalog_translate(const struct kpc_catalog *c, const struct kpc_record *rec,
			  char **out);

/*
 * POT templates (kpc_catalog_pot.c): the header entry (charset UTF-8,
 * POT-Creation-Date from now), then one entry per format:
 *
 *	#. comment
 *	#: refs
 *	#, c-format
 *	msgid "format"
 *	msgstr ""
 *
 * comment and refs may be NULL.  The msgid is the format without one
 * trailing newline (see Matching).  An entry returns -EINVAL, writing
 * nothing, for a format no catalog could translate (empty, not UTF-8,
 * not a valid kernel format), with why in why[size]; -EIO on a write
 * error.
 */
int kpc_catalog_pot_header(FILE *out, time_t now);
int kpc_catalog_pot_entry(FILE *out, const char *format, const char *comment,
			  const char *refs, char *why, size_t size);

/* A "#:" reference as gettext reads one: printable ASCII, no blank. */
bool kpc_catalog_pot_tag(const char *s);

/*
 * @s appended to the list in @buf (@sep between), unless it is there
 * already; false when it does not fit whole (nothing added).
 */
bool kpc_catalog_pot_list_add(char *buf, size_t size, const char *sep, const char *s);

/* A format left out of a template, and why (see kpc_catalog_pot_entry()). */
typedef void (*kpc_catalog_pot_left_fn)(void *ctx, const char *format, const char *why);

struct kpc_sites;

/*
 * The template of every format of a call-site catalog (kpc_sites.h), seen
 * or not: the header, then one entry per distinct msgid, sorted by it,
 * with "#:" the places that print it (module:function, or the printk
 * index's file:line) and "#." its level and format_id.  A format no
 * catalog could translate is passed to @left (may be NULL) and left out.
 */
int kpc_catalog_pot_sites(FILE *out, const struct kpc_sites *s, time_t now,
			  kpc_catalog_pot_left_fn left, void *ctx);

/* A PO string: keyword "escaped", split after each "\n" as gettext does. */
void kpc_catalog_po_string(FILE *out, const char *keyword, const char *s, size_t len);

#endif /* KPC_CATALOG_H */
