// SPDX-License-Identifier: GPL-2.0
/*
 * Message catalogs: kpc_catalog_parse() (the PO parser and the kernel
 * format checker), kpc_catalog_lookup(), kpc_catalog_translate() and the
 * POT writer.
 *
 * Input, by its first byte:
 *  - even: the rest is a PO file, parsed as it is.  Oracle: 0 with a
 *    catalog, or -EINVAL / -ENOMEM with no catalog and a message that is
 *    NUL-terminated, starts with "fuzz.po:" and, for -EINVAL, names a line
 *    of the input (1 .. lines + 1).  On success the catalog answers
 *    lookups and translations of formats taken from the input.
 *  - odd: the rest is "msgid\0msgstr\0", written as a PO entry by the POT
 *    writer's kpc_catalog_po_string() after a header, then parsed.
 *    Oracle: the writer's escaping reads back byte for byte (lookup of
 *    the msgid gives the msgstr, one trailing newline less); an accepted
 *    translation renders for exactly one arg count, the msgid's
 *    conversions, and shows every one of those args; a refused one is
 *    refused on the msgid's or the msgstr's line.  The same msgid through
 *    kpc_catalog_pot_entry() reads back as one untranslated entry.
 * No crash, UB or leak anywhere.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_catalog.h"
#include "kpc_record.h"
#include "fuzz.h"

#define NAME	"fuzz.po"
#define HEADER	"msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\n"

/* The line number after "fuzz.po:" in msg; 0 when there is none. */
static unsigned long fuzz_line(const char *msg)
{
	const char *p = msg + strlen(NAME ":");
	char *end;
	unsigned long line;

	if (strncmp(msg, NAME ":", strlen(NAME ":")) || *p < '1' || *p > '9')
		return 0;
	line = strtoul(p, &end, 10);
	return *end == ':' ? line : 0;
}

static void fuzz_check_error(int ret, const struct kpc_catalog *c,
			     const struct kpc_catalog_error *err, size_t lines)
{
	fuzz_assert(!c, "a refused catalog is no catalog (%d)", ret);
	fuzz_assert(ret == -EINVAL || ret == -ENOMEM, "ret %d", ret);
	fuzz_assert(memchr(err->msg, '\0', sizeof(err->msg)), "message not terminated");
	fuzz_assert(!strncmp(err->msg, NAME ":", strlen(NAME ":")), "message '%s'", err->msg);
	if (ret == -EINVAL) {
		unsigned long line = fuzz_line(err->msg);

		fuzz_assert(line >= 1 && line <= lines + 1, "line %lu of %zu: '%s'", line, lines,
			    err->msg);
	}
}

static size_t fuzz_lines(const char *buf, size_t len)
{
	size_t n = 1, i;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/* Raw PO: the parser's verdict, then lookups of the input's own strings. */
static void fuzz_raw(const char *buf, size_t len)
{
	struct kpc_catalog_error err;
	struct kpc_catalog *c = NULL;
	struct kpc_record rec;
	char *format, *text;
	int ret;

	ret = kpc_catalog_parse(NAME, buf, len, &c, &err);
	if (ret) {
		fuzz_check_error(ret, c, &err, fuzz_lines(buf, len));
		return;
	}
	fuzz_assert(c && kpc_catalog_language(c), "a catalog with a language");
	fuzz_assert(kpc_catalog_stats(c)->translated <= len, "more entries than bytes");

	/* Every line of the input as a format, with as many args as it may want. */
	format = malloc(len + 1);
	fuzz_assert(format, "malloc");
	memset(&rec, 0, sizeof(rec));
	rec.format = format;
	rec.text = "";
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t n = (nl ? (size_t)(nl - buf) : len) - at;

		memcpy(format, buf + at, n);
		format[n] = '\0';
		(void)kpc_catalog_lookup(c, format);
		for (rec.nargs = 0; rec.nargs <= KPRINT_ARGS_MAX; rec.nargs++) {
			if (rec.nargs)
				rec.args[rec.nargs - 1] = "arg";
			if (kpc_catalog_translate(c, &rec, &text) == 1)
				free(text);
		}
		at += n + 1;
	}
	free(format);
	kpc_catalog_free(c);
}

/* Does out show every arg "<i>"? */
static bool fuzz_shows(const char *out, unsigned int nargs)
{
	char arg[16];
	unsigned int i;

	for (i = 0; i < nargs; i++) {
		snprintf(arg, sizeof(arg), "\x01<%u>\x02", i);
		if (!strstr(out, arg))
			return false;
	}
	return true;
}

/* An entry written by our writer: it reads back, and renders as checked. */
static void fuzz_entry(const char *buf, size_t len)
{
	static char args[KPRINT_ARGS_MAX][16];
	const char *id = buf, *str, *end;
	struct kpc_catalog_error err;
	struct kpc_catalog *c = NULL;
	struct kpc_record rec;
	size_t idlen, str_len, want_len;
	char *po = NULL, *text, why[256];
	size_t polen = 0;
	unsigned int n, hits = 0, nargs = 0;
	const char *got;
	FILE *f;
	int ret;

	end = memchr(buf, '\0', len);
	if (!end)
		return;
	idlen = end - id;
	str = end + 1;
	end = memchr(str, '\0', len - idlen - 1);
	if (!end)
		return;
	str_len = end - str;

	f = open_memstream(&po, &polen);
	fuzz_assert(f, "open_memstream");
	fputs(HEADER, f);
	kpc_catalog_po_string(f, "msgid", id, idlen);
	kpc_catalog_po_string(f, "msgstr", str, str_len);
	fuzz_assert(!fclose(f), "fclose");

	ret = kpc_catalog_parse(NAME, po, polen, &c, &err);
	if (ret) {
		fuzz_check_error(ret, c, &err, fuzz_lines(po, polen));
		free(po);
		return;
	}
	free(po);

	want_len = str_len && str[str_len - 1] == '\n' ? str_len - 1 : str_len;
	got = kpc_catalog_lookup(c, id);
	if (str_len && kpc_catalog_stats(c)->translated) {
		fuzz_assert(got && strlen(got) == want_len && !memcmp(got, str, want_len),
			    "the msgstr read back differs");
		memset(&rec, 0, sizeof(rec));
		rec.format = id;
		rec.text = "";
		for (n = 0; n <= KPRINT_ARGS_MAX; n++) {
			rec.nargs = n;
			if (n) {
				snprintf(args[n - 1], sizeof(args[n - 1]), "\x01<%u>\x02", n - 1);
				rec.args[n - 1] = args[n - 1];
			}
			ret = kpc_catalog_translate(c, &rec, &text);
			fuzz_assert(ret == 0 || ret == 1, "translate %d", ret);
			if (ret == 1) {
				hits++;
				nargs = n;
				fuzz_assert(fuzz_shows(text, n), "an arg is not shown: '%s'", text);
				free(text);
			}
		}
		/* An empty msgid after its newline matches no format at all. */
		fuzz_assert(hits == 1 || (!hits && idlen <= 1),
			    "%u arg counts render (the last %u)", hits, nargs);
	} else {
		fuzz_assert(!got, "an untranslated entry is found");
	}
	kpc_catalog_free(c);

	/* The POT writer: an entry it writes is one untranslated entry. */
	po = NULL;
	polen = 0;
	f = open_memstream(&po, &polen);
	fuzz_assert(f, "open_memstream");
	fuzz_assert(!kpc_catalog_pot_header(f, 0), "header");
	if (!kpc_catalog_pot_entry(f, id, "c", "r", why, sizeof(why))) {
		fuzz_assert(!fclose(f), "fclose");
		ret = kpc_catalog_parse(NAME, po, polen, &c, &err);
		fuzz_assert(!ret && kpc_catalog_stats(c)->untranslated == 1,
			    "a POT entry does not read back: %d %s", ret, ret ? err.msg : "");
		kpc_catalog_free(c);
	} else {
		fclose(f);
	}
	free(po);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		fuzz_entry((const char *)data + 1, size - 1);
	else
		fuzz_raw((const char *)data + 1, size - 1);
	return 0;
}
