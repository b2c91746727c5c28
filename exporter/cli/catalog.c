// SPDX-License-Identifier: GPL-2.0
/*
 * --catalog FILE.po: monitor and dump show each record's text translated,
 * built from the record's own args (kpc_catalog.h).  The catalog is read
 * and checked before the kernel is asked for anything, so a refused one
 * costs no privilege and no subscription.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "kprint.h"

int kprint_catalog_open(struct kprint_opts *o)
{
	struct kpc_catalog_error err;
	const struct kpc_catalog_stats *st;
	int ret;

	if (!o->catalog_path)
		return -1;
	ret = kpc_catalog_load(o->catalog_path, &o->catalog, &err);
	if (ret) {
		/* The file's bytes may be in the message: a terminal's safety first. */
		fputs("kprint: --catalog ", stderr);
		kpc_text_escape(stderr, err.msg, o->text.utf8);
		fputs(ret == -EINVAL ? " (refused)\n" : "\n", stderr);
		return KPRINT_EXIT_ERROR;
	}
	if (o->verbose) {
		st = kpc_catalog_stats(o->catalog);
		fprintf(stderr, "kprint: --catalog %s: %zu translations; skipped %zu untranslated,"
			" %zu fuzzy, %zu with msgctxt\n", o->catalog_path, st->translated,
			st->untranslated, st->fuzzy, st->context);
	}
	return -1;
}

void kprint_catalog_close(struct kprint_opts *o)
{
	kpc_catalog_free(o->catalog);
	o->catalog = NULL;
}

int kprint_catalog_print(const struct kprint_opts *o, const struct kpc_record *rec)
{
	struct kpc_record shown;
	char *text;
	int ret;

	ret = kpc_catalog_translate(o->catalog, rec, &text);
	if (ret < 0)
		return ret;
	/* Untranslated: the text as it is (and in JSON text_translated = text). */
	if (o->json) {
		ret = kpc_json_record_print_translated(stdout, rec, ret ? text : rec->text);
	} else {
		shown = *rec;
		if (text) {
			shown.text = text;
			shown.text_len = 0;	/* a C string: its strlen() */
		}
		ret = kpc_text_print(stdout, &o->text, &shown);
	}
	free(text);
	return ret;
}
