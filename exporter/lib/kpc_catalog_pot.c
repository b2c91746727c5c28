// SPDX-License-Identifier: GPL-2.0
/*
 * POT templates of kernel formats, in the shape xgettext writes them, so
 * that msginit, msgmerge and msgfmt take them as they are: a header entry
 * (marked fuzzy, as templates are) and one "#, c-format" entry per format;
 * the formats counted (kprint formats --pot) or every format of a
 * call-site catalog (--pot --sites).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_catalog.h"
#include "kpc_catalog_fmt.h"
#include "kpc_sites.h"
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
	/* gettext's msgctxt separator: msgfmt refuses a msgid holding it. */
	if (memchr(format, '\004', len)) {
		snprintf(why, size, "holds \\004, gettext's context separator");
		return -EINVAL;
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

bool kpc_catalog_pot_tag(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s >= 0x7f)
			return false;
	return true;
}

bool kpc_catalog_pot_list_add(char *buf, size_t size, const char *sep, const char *s)
{
	size_t len = strlen(buf), n = strlen(s), seplen = strlen(sep);
	const char *p;

	for (p = buf; (p = strstr(p, s)); p += n)
		if ((p == buf || ((size_t)(p - buf) >= seplen && !memcmp(p - seplen, sep, seplen))) &&
		    (!p[n] || !strncmp(p + n, sep, seplen)))
			return true;
	if (len + (len ? seplen : 0) + n >= size)
		return false;
	snprintf(buf + len, size - len, "%s%s", len ? sep : "", s);
	return true;
}

/* A format's length as a msgid: without one trailing newline. */
static size_t kpc_pot_msgid_len(const char *format)
{
	size_t len = strlen(format);

	return len && format[len - 1] == '\n' ? len - 1 : len;
}

static int kpc_pot_site_cmp(const void *pa, const void *pb)
{
	const struct kpc_site *a = *(const struct kpc_site *const *)pa;
	const struct kpc_site *b = *(const struct kpc_site *const *)pb;
	size_t la = kpc_pot_msgid_len(a->format), lb = kpc_pot_msgid_len(b->format);
	int c = memcmp(a->format, b->format, la < lb ? la : lb);

	if (!c)
		c = (la > lb) - (la < lb);
	if (!c)
		c = (a->format_id > b->format_id) - (a->format_id < b->format_id);
	return c;
}

/* The "#:" references and "#." comment of the ids v[0..n), which share a msgid. */
static void kpc_pot_site_notes(const struct kpc_sites *s, const struct kpc_site *const *v,
			       size_t n, char *refs, size_t rsize, char *comment, size_t csize)
{
	char ids[256] = "", levels[64] = "", ref[512];
	const struct kpc_site *e;
	size_t i, sites = 0;

	refs[0] = '\0';
	for (i = 0; i < n; i++) {
		snprintf(ref, sizeof(ref), "%016" PRIx64, v[i]->format_id);
		kpc_catalog_pot_list_add(ids, sizeof(ids), ", ", ref);
		for (e = v[i]; e < s->v + s->n && e->format_id == v[i]->format_id; e++) {
			const char *level = kpc_site_level_name(e->level);

			kpc_catalog_pot_list_add(levels, sizeof(levels), "/", level ? level : "none");
			if (e->file)
				snprintf(ref, sizeof(ref), "%s:%u", e->file, e->line);
			else
				snprintf(ref, sizeof(ref), "%s%s%s", e->module, e->function ? ":" : "",
					 e->function ? e->function : "");
			if (kpc_catalog_pot_tag(ref))
				kpc_catalog_pot_list_add(refs, rsize, " ", ref);
			sites++;
		}
	}
	snprintf(comment, csize, "kprint: level %s, format_id %s, %zu call site%s", levels, ids,
		 sites, sites == 1 ? "" : "s");
}

int kpc_catalog_pot_sites(FILE *out, const struct kpc_sites *s, time_t now,
			  kpc_catalog_pot_left_fn left, void *ctx)
{
	const struct kpc_site **v = malloc((s->n + 1) * sizeof(*v));
	char refs[1024], comment[512], why[256];
	size_t n = 0, i, j;
	int err;

	if (!v)
		return -ENOMEM;
	/* One entry per id (the catalog is sorted by id), then one per msgid. */
	for (i = 0; i < s->n; i++)
		if (!i || s->v[i].format_id != s->v[i - 1].format_id)
			v[n++] = &s->v[i];
	qsort(v, n, sizeof(*v), kpc_pot_site_cmp);
	err = kpc_catalog_pot_header(out, now);
	for (i = 0; !err && i < n; i = j) {
		size_t len = kpc_pot_msgid_len(v[i]->format);

		for (j = i + 1; j < n && kpc_pot_msgid_len(v[j]->format) == len &&
		     !memcmp(v[j]->format, v[i]->format, len); j++)
			;
		kpc_pot_site_notes(s, &v[i], j - i, refs, sizeof(refs), comment, sizeof(comment));
		err = kpc_catalog_pot_entry(out, v[i]->format, comment, refs, why, sizeof(why));
		if (err == -EINVAL) {
			if (left)
				left(ctx, v[i]->format, why);
			err = 0;
		}
	}
	free(v);
	return err;
}
