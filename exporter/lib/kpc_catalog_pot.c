// SPDX-License-Identifier: GPL-2.0
/*
 * POT templates of kernel formats, in the shape xgettext writes them, so
 * that msginit, msgmerge and msgfmt take them as they are: a header entry
 * (marked fuzzy, as templates are) and one "#, c-format" entry per format.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kpc_catalog.h"
#include "kpc_catalog_fmt.h"
#include "kpc_utf8.h"

void kpc_catalog_po_string(FILE *out, const char *keyword, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	const unsigned char *nl = memchr(p, '\n', len);

	/* More than one line: msgid "" and a line per "\n", as gettext writes. */
	fprintf(out, "%s \"", keyword);
	if (nl && nl + 1 < end)
		fputs("\"\n\"", out);
	for (; p < end; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\a': fputs("\\a", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\v': fputs("\\v", out); break;
		case '\n':
			fputs("\\n", out);
			if (p + 1 < end)
				fputs("\"\n\"", out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\%03o", *p);
			else
				fputc(*p, out);
		}
	}
	fputs("\"\n", out);
}

int kpc_catalog_pot_header(FILE *out, time_t now)
{
	static const char fields[] =
		"Project-Id-Version: kernel messages\n"
		"Report-Msgid-Bugs-To: \n"
		"POT-Creation-Date: %s\n"
		"PO-Revision-Date: YEAR-MO-DA HO:MI+ZONE\n"
		"Last-Translator: FULL NAME <EMAIL@ADDRESS>\n"
		"Language-Team: LANGUAGE <LL@li.org>\n"
		"Language: \n"
		"MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=UTF-8\n"
		"Content-Transfer-Encoding: 8bit\n";
	char date[40], header[sizeof(fields) + sizeof(date)];
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(date, sizeof(date), "%Y-%m-%d %H:%M%z", &tm))
		date[0] = '\0';
	snprintf(header, sizeof(header), fields, date);
	/*
	 * charset=UTF-8 where xgettext writes CHARSET: kernel formats are
	 * taken as UTF-8 (records are shown so), and a template that names
	 * its charset passes msgfmt --check as it is.
	 */
	fputs("# Kernel message formats, written by kprint formats --pot.\n"
	      "# Each msgid is a kernel format string; a translation may reorder\n"
	      "# its arguments with %1$s, but must keep every conversion as it is.\n"
	      "#\n"
	      "#, fuzzy\n", out);
	kpc_catalog_po_string(out, "msgid", "", 0);
	kpc_catalog_po_string(out, "msgstr", header, strlen(header));
	return ferror(out) ? -EIO : 0;
}

/* A comment line: its text up to the first newline, never a new line. */
static void kpc_catalog_pot_comment(FILE *out, const char *mark, const char *s)
{
	if (s && *s)
		fprintf(out, "%s %.*s\n", mark, (int)strcspn(s, "\n"), s);
}

int kpc_catalog_pot_entry(FILE *out, const char *format, const char *comment,
			  const char *refs, char *why, size_t size)
{
	size_t len = strlen(format), i, n;
	struct kpc_fmt f;
	uint32_t cp;

	if (len && format[len - 1] == '\n')
		len--;
	if (!len) {
		snprintf(why, size, "empty (msgid \"\" is the header)");
		return -EINVAL;
	}
	for (i = 0; i < len; i += n) {
		n = kpc_utf8_next((const unsigned char *)format + i, len - i, &cp);
		if (cp == KPC_UTF8_INVALID) {
			snprintf(why, size, "not valid UTF-8");
			return -EINVAL;
		}
	}
	/* What a catalog would refuse as a msgid is no use in a template. */
	if (kpc_fmt_parse(format, false, &f, why, size))
		return -EINVAL;

	fputc('\n', out);
	kpc_catalog_pot_comment(out, "#.", comment);
	kpc_catalog_pot_comment(out, "#:", refs);
	fputs("#, c-format\n", out);
	kpc_catalog_po_string(out, "msgid", format, len);
	fputs("msgstr \"\"\n", out);
	return ferror(out) ? -EIO : 0;
}
