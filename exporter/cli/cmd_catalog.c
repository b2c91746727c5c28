// SPDX-License-Identifier: GPL-2.0
/*
 * kprint catalog --journal FILE.po...: a systemd catalog (journalctl -x,
 * journalctl --list-catalog) of the messages the PO catalogs translate,
 * one entry per MESSAGE_ID that kprint_exporter --journal gives their
 * records (kpc_journal.h), in English and in each catalog's language.
 *
 * A MESSAGE_ID names a format of one module, so each translated msgid
 * needs its modules: the "#:" references, where kprint formats --pot puts
 * the modules that said the format (msgmerge keeps them).  A reference
 * with '/' or ':' is a source file's (xgettext's FILE:LINE), not a module,
 * and is passed over; an entry left without a module gets --default-module
 * if given, or is left out and counted (-v names it).
 *
 * The Subject of an entry is the message with each conversion replaced by
 * <KPRINT_ARG_n>, the field that holds the record's argument for it: the
 * English one from the msgid, the language's from the msgstr (placed by
 * kpc_catalog_translate(), as a record's text is).  Not @KPRINT_ARG_n@,
 * which journalctl -x would fill in with the argument itself: systemd's
 * catalog variables are capital letters and '_' alone (replace-var.c of
 * systemd 252), no digit, so "@KPRINT_ARG_0@" stays as it is.  The
 * entry's own MESSAGE, with the arguments in, is shown right above it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kprint.h"

#define KPRINT_CAT_FILES_MAX	64

enum { KPRINT_OPT_CAT_JOURNAL = KPRINT_OPT_PRIVATE, KPRINT_OPT_CAT_DEFAULT_MODULE };

static const struct option kprint_catalog_options[] = {
	{ "journal",		no_argument,		NULL, KPRINT_OPT_CAT_JOURNAL },
	{ "default-module",	required_argument,	NULL, KPRINT_OPT_CAT_DEFAULT_MODULE },
	{ NULL, 0, NULL, 0 },
};

static struct {
	bool journal;
	const char *default_module;
} kprint_catalog_args;

static int kprint_catalog_opt(struct kprint_opts *o, int opt, const char *arg)
{
	(void)o;
	if (opt == KPRINT_OPT_CAT_JOURNAL)
		kprint_catalog_args.journal = true;
	else
		kprint_catalog_args.default_module = arg;
	return 0;
}

/* One (message, module, catalog): an entry of the output. */
struct kprint_cat_item {
	char id[KPC_MESSAGE_ID_LEN + 1];
	const char *msgid;
	char *module;
	size_t po;			/* which catalog */
};

static int kprint_cat_item_cmp(const void *a, const void *b)
{
	const struct kprint_cat_item *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c ? c : x->po < y->po ? -1 : x->po > y->po;
}

/* A "#:" reference that can be a module name: no path, no line number. */
static bool kprint_cat_module_ref(const char *s, size_t len)
{
	return len && !memchr(s, '/', len) && !memchr(s, ':', len);
}

/* s on one line, as a catalog header's value must be. */
static void kprint_cat_line(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < ' ' || *s == 0x7f ? ' ' : *s, out);
}

/* The msgid with <KPRINT_ARG_n> for each conversion, as a record's args are numbered. */
static char *kprint_cat_english(const char *msgid)
{
	const char *p, *conv;
	unsigned int j = 0;
	bool percent;
	char *buf = NULL;
	size_t size = 0, len;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	for (p = msgid; (conv = kpc_fmt_next(p, &len, &percent)); p = conv + len) {
		fwrite(p, 1, conv - p, f);
		if (percent)
			fputc('%', f);
		else
			fprintf(f, "<KPRINT_ARG_%u>", j++);
	}
	fputs(p, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The msgstr the same way: a record whose args are the placeholders. */
static char *kprint_cat_translated(const struct kpc_catalog *c, const char *msgid)
{
	static char names[KPRINT_ARGS_MAX][sizeof("<KPRINT_ARG_99>")];
	struct kpc_record rec = { .format = msgid, .text = "" };
	struct kpc_fmt f;
	char why[200], *out = NULL;

	if (kpc_fmt_parse(msgid, false, &f, why, sizeof(why)) || f.n > KPRINT_ARGS_MAX)
		return NULL;
	for (unsigned int i = 0; i < f.n; i++) {
		snprintf(names[i], sizeof(names[i]), "<KPRINT_ARG_%u>", i);
		rec.args[i] = names[i];
	}
	rec.nargs = f.n;
	return kpc_catalog_translate(c, &rec, &out) == 1 ? out : NULL;
}

static void kprint_cat_header(FILE *out, const char *id, const char *lang, const char *subject)
{
	fprintf(out, "\n-- %s%s%s\nSubject: ", id, lang ? " " : "", lang ? lang : "");
	kprint_cat_line(out, subject);
	fputs("\nDefined-By: kprint\nSupport: man:kprint(7)\n\n", out);
}

static void kprint_cat_body(FILE *out, const struct kprint_cat_item *it)
{
	fputs("The kernel module ", out);
	kprint_cat_line(out, *it->module ? it->module : "(none)");
	fputs(" said this through kprint, with the format \"", out);
	kprint_cat_line(out, it->msgid);
	fprintf(out, "\" (format id %016" PRIx64 ").\nIts arguments are the entry's fields"
		" KPRINT_ARG_0, KPRINT_ARG_1 and so on;\nevery occurrence:"
		" journalctl --namespace kprint MESSAGE_ID=%s\n", kpc_format_id(it->msgid), it->id);
}

static int kprint_cat_write(FILE *out, struct kprint_cat_item *items, size_t n,
			    struct kpc_catalog **cats)
{
	char *subject;

	fputs("# kprint's messages for journalctl -x, written by kprint catalog --journal.\n"
	      "# Install as /usr/lib/systemd/catalog/kprint.catalog, then run\n"
	      "# journalctl --update-catalog.  MESSAGE_ID: docs/journal.md.\n", out);
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(items[i].id, items[i - 1].id)) {
			subject = kprint_cat_english(items[i].msgid);
			if (!subject)
				return -ENOMEM;
			kprint_cat_header(out, items[i].id, NULL, subject);
			kprint_cat_body(out, &items[i]);
			free(subject);
		}
		subject = kprint_cat_translated(cats[items[i].po], items[i].msgid);
		if (!subject)
			continue;
		kprint_cat_header(out, items[i].id, kpc_catalog_language(cats[items[i].po]),
				  subject);
		kprint_cat_body(out, &items[i]);
		free(subject);
	}
	return ferror(out) ? -EIO : 0;
}

/* The items of catalog po: one per (msgid, module reference). */
static int kprint_cat_collect(const struct kprint_opts *o, const struct kpc_catalog *c,
			      size_t po, struct kprint_cat_item **items, size_t *n,
			      size_t *cap, size_t *left_out)
{
	for (size_t i = 0; i < kpc_catalog_count(c); i++) {
		const char *msgid = kpc_catalog_msgid(c, i), *r = kpc_catalog_refs(c, i);
		const char *dflt = kprint_catalog_args.default_module;
		bool any = false;
		size_t len;

		for (;; r += len) {
			r += strspn(r, " \t");
			len = strcspn(r, " \t");
			if (!len && (any || !dflt))
				break;
			if (len && !kprint_cat_module_ref(r, len))
				continue;
			if (*n == *cap) {
				size_t ncap = *cap ? 2 * *cap : 64;
				struct kprint_cat_item *g = realloc(*items, ncap * sizeof(**items));

				if (!g)
					return -ENOMEM;
				*items = g;
				*cap = ncap;
			}
			(*items)[*n].module = len ? strndup(r, len) : strdup(dflt);
			if (!(*items)[*n].module)
				return -ENOMEM;
			(*items)[*n].msgid = msgid;
			(*items)[*n].po = po;
			kpc_message_id(kpc_format_id(msgid), (*items)[*n].module, (*items)[*n].id);
			(*n)++;
			any = true;
			if (!len)
				break;
		}
		if (!any) {
			(*left_out)++;
			if (o->verbose) {
				fputs("kprint: catalog: no module for \"", stderr);
				kpc_text_escape(stderr, msgid, o->text.utf8);
				fputs("\" (no #: reference; --default-module)\n", stderr);
			}
		}
	}
	return 0;
}

int kprint_cmd_catalog(struct kprint_opts *o, int argc, char **argv)
{
	struct kpc_catalog *cats[KPRINT_CAT_FILES_MAX] = { NULL };
	struct kprint_cat_item *items = NULL;
	struct kpc_catalog_error cerr;
	size_t n = 0, cap = 0, left_out = 0, ncat = 0, i;
	int ret, err = 0;

	ret = kprint_parse(o, argc, argv, kprint_catalog_options, kprint_catalog_opt);
	if (ret)
		return ret < 0 ? KPRINT_EXIT_OK : ret;
	if (!kprint_catalog_args.journal || optind == argc || o->json ||
	    argc - optind > KPRINT_CAT_FILES_MAX) {
		fprintf(stderr, "kprint: catalog --journal [--default-module M] FILE.po... (at most"
			" %d files) writes a systemd catalog; it takes no --json\n",
			KPRINT_CAT_FILES_MAX);
		return KPRINT_EXIT_USAGE;
	}
	ret = KPRINT_EXIT_OK;
	for (i = 0; optind + i < (size_t)argc; i++, ncat++) {
		const char *path = argv[optind + i];

		err = kpc_catalog_load(path, &cats[i], &cerr);
		if (err) {
			fputs("kprint: catalog ", stderr);
			kpc_text_escape(stderr, cerr.msg, o->text.utf8);
			fputs(err == -EINVAL ? " (refused)\n" : "\n", stderr);
			ret = KPRINT_EXIT_ERROR;
			goto out;
		}
		if (!*kpc_catalog_language(cats[i])) {
			fprintf(stderr, "kprint: catalog: %s:%u: no Language: in the header, which"
				" names the catalog's entries\n", path,
				kpc_catalog_header_line(cats[i]));
			ret = KPRINT_EXIT_USAGE;
			goto out;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(kpc_catalog_language(cats[k]), kpc_catalog_language(cats[i]))) {
				fprintf(stderr, "kprint: catalog: %s:%u: a second catalog of"
					" language %s (%s)\n", path,
					kpc_catalog_header_line(cats[i]),
					kpc_catalog_language(cats[i]), argv[optind + k]);
				ret = KPRINT_EXIT_USAGE;
				goto out;
			}
		err = kprint_cat_collect(o, cats[i], i, &items, &n, &cap, &left_out);
		if (err)
			goto fail;
	}
	if (n)
		qsort(items, n, sizeof(*items), kprint_cat_item_cmp);
	err = kprint_cat_write(stdout, items, n, cats);
	if (!err && fflush(stdout))
		err = -EIO;
	if (err)
		goto fail;
	if (left_out)
		fprintf(stderr, "kprint: catalog: left out %zu translation%s without a module"
			" (no #: reference; -v names them, --default-module gives one)\n",
			left_out, left_out == 1 ? "" : "s");
	goto out;
fail:
	fprintf(stderr, "kprint: catalog: %s\n", strerror(-err));
	ret = KPRINT_EXIT_ERROR;
out:
	for (i = 0; i < n; i++)
		free(items[i].module);
	free(items);
	for (i = 0; i < ncat; i++)
		kpc_catalog_free(cats[i]);
	return ret;
}
