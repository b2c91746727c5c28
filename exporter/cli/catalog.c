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

/*
 * The record as a JSON line with "text_translated" added last: the one
 * record writer of libkpc, then the field, so that every other field
 * stays byte for byte what kprint --json prints without a catalog.
 */
static int kprint_catalog_json(FILE *out, const struct kpc_record *rec, const char *text)
{
	struct json_object *js = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err = -ENOMEM;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	kpc_json_record_write(f, rec);
	if (fclose(f) || !len || buf[len - 1] != '}')
		goto out;
	js = kpc_json_string(text);
	if (!js)
		goto out;
	fwrite(buf, 1, len - 1, out);
	fprintf(out, ",\"text_translated\":%s}\n",
		json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN |
					       JSON_C_TO_STRING_NOSLASHESCAPE));
	err = ferror(out) ? -EIO : 0;
out:
	json_object_put(js);
	free(buf);
	return err;
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
	if (o->json)
		ret = kprint_catalog_json(stdout, rec, ret ? text : rec->text);
	else {
		shown = *rec;
		if (text)
			shown.text = text;
		ret = kpc_text_print(stdout, &o->text, &shown);
	}
	free(text);
	return ret;
}
