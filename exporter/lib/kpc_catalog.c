// SPDX-License-Identifier: GPL-2.0
/*
 * PO catalogs: the parser, the table of translations, lookup and the
 * translated text of a record.  The rules are in kpc_catalog.h, the
 * format checker in kpc_catalog_fmt.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kpc_catalog.h"
#include "kpc_catalog_fmt.h"
#include "kpc_parse.h"
#include "kpc_utf8.h"

#define KPC_CATALOG_FILE_MAX	(64u << 20)

struct kpc_catalog_entry {
	char *key;			/* msgid without one trailing newline */
	size_t keylen;
	char *str;			/* msgstr without one trailing newline */
	unsigned int nconv;		/* the msgid's: the record args it wants */
	unsigned char map[KPC_FMT_CONV_MAX]; /* msgstr conversion -> record arg */
	unsigned int line;		/* of the msgstr */
	char *refs;			/* its "#:" references, blank-separated; NULL: none */
};

struct kpc_catalog {
	struct kpc_catalog_entry *e;
	size_t n, cap;
	char *language;
	bool header;
	unsigned int header_line;	/* of the header's msgstr */
	struct kpc_catalog_stats stats;
};

/* A growing string. */
struct kpc_po_buf {
	char *s;
	size_t len, cap;
};

/* Which string a "..." continuation line extends. */
enum kpc_po_field {
	KPC_PO_NONE,
	KPC_PO_CTX,
	KPC_PO_ID,
	KPC_PO_STR,
};

/* The entry being read. */
struct kpc_po_entry {
	bool has_ctx, has_id, has_str, fuzzy;
	unsigned int id_line, str_line;
	struct kpc_po_buf id, str;
	struct kpc_po_buf refs;		/* "#:" lines, joined with blanks */
	enum kpc_po_field field;
};

struct kpc_po {
	const char *name;
	struct kpc_catalog *c;
	struct kpc_catalog_error *err;
	unsigned int line;
	struct kpc_po_entry e;
};

/* "NAME:LINE: reason" in err, and -EINVAL. */
__attribute__((format(printf, 3, 4)))
static int kpc_po_fail(struct kpc_po *po, unsigned int line, const char *fmt, ...)
{
	size_t at;
	va_list ap;

	snprintf(po->err->msg, sizeof(po->err->msg), "%s:%u: ", po->name, line);
	at = strlen(po->err->msg);
	va_start(ap, fmt);
	vsnprintf(po->err->msg + at, sizeof(po->err->msg) - at, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int kpc_po_nomem(struct kpc_po *po)
{
	snprintf(po->err->msg, sizeof(po->err->msg), "%s: out of memory", po->name);
	return -ENOMEM;
}

static int kpc_po_buf_add(struct kpc_po_buf *b, char c)
{
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		char *s = realloc(b->s, cap);

		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap = cap;
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return 0;
}

static bool kpc_po_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * One "..." string at p (the line's rest from the quote), unescaped onto
 * b.  Only blanks may follow it.
 */
static int kpc_po_string(struct kpc_po *po, const char *p, const char *end,
			 struct kpc_po_buf *b)
{
	static const char simple[] = "n\nt\tr\ra\ab\bf\fv\v\"\"''??\\\\";

	if (p == end || *p != '"')
		return kpc_po_fail(po, po->line, "a string (\"...\") expected");
	for (p++; p < end && *p != '"'; p++) {
		unsigned int v = 0;
		const char *s;
		int d, i;

		if (*p != '\\') {
			if (kpc_po_buf_add(b, *p))
				return kpc_po_nomem(po);
			continue;
		}
		if (++p == end)
			break;
		if (*p >= '0' && *p <= '7') {
			/* \ooo: one to three octal digits, as in C. */
			for (i = 0; i < 3 && p < end && *p >= '0' && *p <= '7'; i++, p++)
				v = v * 8 + (*p - '0');
			p--;
			if (v > 0xff)
				return kpc_po_fail(po, po->line, "octal escape past \\377");
		} else if (*p == 'x') {
			/* \xhh...: every hex digit that follows, as in C. */
			for (i = 0; p + 1 < end && (d = kpc_hex_digit(p[1])) >= 0; i++, p++)
				v = v > 0xff ? v : v * 16 + d;
			if (!i)
				return kpc_po_fail(po, po->line, "\\x without a hex digit");
			if (v > 0xff)
				return kpc_po_fail(po, po->line, "\\x escape past 0xff");
		} else if (*p && (s = strchr(simple, *p)) && !((s - simple) & 1)) {
			v = (unsigned char)s[1];
		} else {
			return kpc_po_fail(po, po->line, "unknown escape \\%c", *p);
		}
		if (!v)
			return kpc_po_fail(po, po->line, "a NUL byte (\\0): no kernel format has one");
		if (kpc_po_buf_add(b, (char)v))
			return kpc_po_nomem(po);
	}
	if (p >= end)
		return kpc_po_fail(po, po->line, "a string without its closing quote");
	for (p++; p < end; p++)
		if (!kpc_po_space(*p))
			return kpc_po_fail(po, po->line, "text after a string's closing quote");
	return 0;
}

/* Valid UTF-8 throughout, as records are shown. */
static bool kpc_po_utf8(const struct kpc_po_buf *b)
{
	const unsigned char *p = (const unsigned char *)b->s;
	size_t n = b->len, len;
	uint32_t cp;

	while (n) {
		len = kpc_utf8_next(p, n, &cp);
		if (cp == KPC_UTF8_INVALID)
			return false;
		p += len;
		n -= len;
	}
	return true;
}

/* "Name: value" of a header, into a malloc()ed string; NULL if absent. */
static char *kpc_po_header_field(const char *h, const char *name)
{
	size_t n = strlen(name);
	const char *line, *end;

	for (line = h; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if ((size_t)(end - line) > n && !strncasecmp(line, name, n) && line[n] == ':') {
			line += n + 1;
			while (line < end && kpc_po_space(*line))
				line++;
			while (end > line && kpc_po_space(end[-1]))
				end--;
			return strndup(line, end - line);
		}
	}
	return NULL;
}

/* The header entry: the charset must be UTF-8; the language is kept. */
static int kpc_po_header(struct kpc_po *po)
{
	struct kpc_po_entry *e = &po->e;
	char *type, *cs, *end;
	int err = 0;

	if (po->c->header)
		return kpc_po_fail(po, e->id_line, "a second header entry (msgid \"\")");
	po->c->header = true;
	po->c->header_line = e->str_line;
	po->c->language = kpc_po_header_field(e->str.s ?: "", "Language");
	if (!po->c->language)
		po->c->language = strdup("");
	if (!po->c->language)
		return kpc_po_nomem(po);

	type = kpc_po_header_field(e->str.s ?: "", "Content-Type");
	if (!type)
		return 0;
	cs = strcasestr(type, "charset=");
	if (cs) {
		cs += strlen("charset=");
		end = cs + strcspn(cs, " \t;");
		*end = '\0';
		if (!strcmp(cs, "CHARSET"))
			err = kpc_po_fail(po, e->str_line, "the header's charset is still the"
					  " template's placeholder CHARSET; set it to UTF-8");
		else if (strcasecmp(cs, "UTF-8") && strcasecmp(cs, "UTF8"))
			err = kpc_po_fail(po, e->str_line, "charset %.40s: only UTF-8 catalogs"
					  " are read (msgconv -t UTF-8 converts)", cs);
	}
	free(type);
	return err;
}

static int kpc_po_add(struct kpc_po *po, const struct kpc_fmt *id,
		      const unsigned char *map)
{
	struct kpc_po_entry *e = &po->e;
	struct kpc_catalog *c = po->c;
	struct kpc_catalog_entry *n;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;

		n = realloc(c->e, cap * sizeof(*n));
		if (!n)
			return kpc_po_nomem(po);
		c->e = n;
		c->cap = cap;
	}
	n = &c->e[c->n];
	memset(n, 0, sizeof(*n));
	/* The strings move into the entry; one trailing newline goes. */
	if (e->id.len && e->id.s[e->id.len - 1] == '\n')
		e->id.s[--e->id.len] = '\0';
	if (e->str.len && e->str.s[e->str.len - 1] == '\n')
		e->str.s[--e->str.len] = '\0';
	n->key = e->id.s;
	n->keylen = e->id.len;
	n->str = e->str.s;
	e->id = (struct kpc_po_buf){ 0 };
	e->str = (struct kpc_po_buf){ 0 };
	n->nconv = id->n;
	memcpy(n->map, map, sizeof(n->map));
	n->line = e->str_line;
	n->refs = e->refs.s;
	e->refs = (struct kpc_po_buf){ 0 };
	c->n++;
	c->stats.translated++;
	return 0;
}

/* The entry read so far is complete: keep it, skip it or refuse it. */
static int kpc_po_finish(struct kpc_po *po)
{
	struct kpc_po_entry *e = &po->e;
	unsigned char map[KPC_FMT_CONV_MAX];
	struct kpc_fmt id, str;
	char why[400];
	int err = 0;

	if (!e->has_id && !e->has_ctx)
		goto out;
	if (!e->has_id)
		return kpc_po_fail(po, po->line, "msgctxt without a msgid");
	if (!e->has_str)
		return kpc_po_fail(po, e->id_line, "msgid without a msgstr");
	if (!kpc_po_utf8(&e->id))
		return kpc_po_fail(po, e->id_line, "msgid is not valid UTF-8");
	if (!kpc_po_utf8(&e->str))
		return kpc_po_fail(po, e->str_line, "msgstr is not valid UTF-8");
	if (e->has_ctx) {
		po->c->stats.context++;
		goto out;
	}
	if (!e->id.len) {
		err = kpc_po_header(po);
		goto out;
	}
	if (!e->str.len) {
		po->c->stats.untranslated++;
		goto out;
	}
	if (e->fuzzy) {
		po->c->stats.fuzzy++;
		goto out;
	}
	/* msgid "\n" (a pr_cont("\n")): no record has the empty format it stands for. */
	if (!strcmp(e->id.s, "\n"))
		goto out;
	if (kpc_fmt_parse(e->id.s, false, &id, why, sizeof(why))) {
		err = kpc_po_fail(po, e->id_line, "msgid: %s", why);
		goto out;
	}
	if (kpc_fmt_parse(e->str.s, true, &str, why, sizeof(why))) {
		err = kpc_po_fail(po, e->str_line, "msgstr: %s", why);
		goto out;
	}
	if (kpc_fmt_check(&id, e->id.s, &str, e->str.s, map, why, sizeof(why))) {
		err = kpc_po_fail(po, e->str_line, "%s", why);
		goto out;
	}
	err = kpc_po_add(po, &id, map);
out:
	free(e->id.s);
	free(e->str.s);
	free(e->refs.s);
	memset(e, 0, sizeof(*e));
	return err;
}

/* "#, fuzzy, c-format": is fuzzy among the flags? */
static bool kpc_po_fuzzy_flag(const char *p, const char *end)
{
	while (p < end) {
		const char *w;

		while (p < end && (kpc_po_space(*p) || *p == ','))
			p++;
		w = p;
		while (p < end && !kpc_po_space(*p) && *p != ',')
			p++;
		if (p - w == 5 && !memcmp(w, "fuzzy", 5))
			return true;
	}
	return false;
}

/* The keyword at p, its length in *n; NULL when the line has none. */
static const char *kpc_po_keyword(const char *p, const char *end, size_t *n)
{
	static const char *const words[] = { "msgctxt", "msgid_plural", "msgid", "msgstr" };
	size_t i, l;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		l = strlen(words[i]);
		if ((size_t)(end - p) >= l && !memcmp(p, words[i], l) &&
		    (p + l == end || kpc_po_space(p[l]) || p[l] == '"' || p[l] == '[')) {
			*n = l;
			return words[i];
		}
	}
	return NULL;
}

/* A msgctxt's string: checked, then dropped (only its presence counts). */
static int kpc_po_ctx(struct kpc_po *po, const char *p, const char *end)
{
	struct kpc_po_buf ctx = { 0 };
	int err;

	err = kpc_po_string(po, p, end, &ctx);
	free(ctx.s);
	return err;
}

static int kpc_po_line(struct kpc_po *po, const char *p, const char *end)
{
	struct kpc_po_entry *e = &po->e;
	const char *kw;
	size_t n;
	int err;

	while (p < end && kpc_po_space(*p))
		p++;
	if (p == end)
		return 0;

	if (*p == '#') {
		/* A comment after a msgstr belongs to the next entry. */
		if (e->has_str) {
			err = kpc_po_finish(po);
			if (err)
				return err;
		}
		/* #~ obsolete entries are not used, as in msgfmt. */
		if (end - p >= 2 && p[1] == ',')
			e->fuzzy |= kpc_po_fuzzy_flag(p + 2, end);
		/* "#:" references: kprint formats --pot puts the modules there. */
		if (end - p >= 2 && p[1] == ':') {
			for (p += 2; p < end && kpc_po_space(*p); p++)
				;
			for (; p < end; p++)
				if (kpc_po_buf_add(&e->refs, *p))
					return kpc_po_nomem(po);
			if (e->refs.len && kpc_po_buf_add(&e->refs, ' '))
				return kpc_po_nomem(po);
		}
		return 0;
	}

	if (*p == '"') {
		switch (e->field) {
		case KPC_PO_CTX:
			return kpc_po_ctx(po, p, end);
		case KPC_PO_ID:
			return kpc_po_string(po, p, end, &e->id);
		case KPC_PO_STR:
			return kpc_po_string(po, p, end, &e->str);
		default:
			return kpc_po_fail(po, po->line, "a string that continues no msgid or msgstr");
		}
	}

	kw = kpc_po_keyword(p, end, &n);
	if (!kw)
		return kpc_po_fail(po, po->line, "expected msgctxt, msgid, msgstr, a \"string\""
				   " or a # comment");
	p += n;
	if (!strcmp(kw, "msgid_plural"))
		return kpc_po_fail(po, po->line, "msgid_plural: plural forms are not supported"
				   " (a kernel format has none: no ngettext() at a call site)");
	if (!strcmp(kw, "msgstr") && p < end && *p == '[')
		return kpc_po_fail(po, po->line, "msgstr[N] belongs to plural forms, which are not"
				   " supported");
	while (p < end && kpc_po_space(*p))
		p++;

	if (!strcmp(kw, "msgctxt") || !strcmp(kw, "msgid")) {
		if (e->has_str) {
			err = kpc_po_finish(po);
			if (err)
				return err;
		}
		if (e->has_id)
			return kpc_po_fail(po, po->line, "%s after a msgid without its msgstr", kw);
		if (kw[3] == 'c') {
			if (e->has_ctx)
				return kpc_po_fail(po, po->line, "a second msgctxt");
			e->has_ctx = true;
			e->field = KPC_PO_CTX;
			return kpc_po_ctx(po, p, end);
		}
		e->has_id = true;
		e->id_line = po->line;
		e->field = KPC_PO_ID;
		return kpc_po_string(po, p, end, &e->id);
	}

	/* msgstr */
	if (!e->has_id)
		return kpc_po_fail(po, po->line, "msgstr without a msgid");
	if (e->has_str)
		return kpc_po_fail(po, po->line, "a second msgstr");
	e->has_str = true;
	e->str_line = po->line;
	e->field = KPC_PO_STR;
	return kpc_po_string(po, p, end, &e->str);
}

static int kpc_catalog_cmp_key(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static int kpc_catalog_cmp(const void *x, const void *y)
{
	const struct kpc_catalog_entry *a = x, *b = y;
	int c = kpc_catalog_cmp_key(a->key, a->keylen, b->key, b->keylen);

	if (c)
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* Sorted for lookup; a msgid twice is refused with both lines. */
static int kpc_catalog_index(struct kpc_po *po)
{
	struct kpc_catalog *c = po->c;
	size_t i;

	if (c->n > 1)
		qsort(c->e, c->n, sizeof(*c->e), kpc_catalog_cmp);
	for (i = 1; i < c->n; i++)
		if (!kpc_catalog_cmp_key(c->e[i - 1].key, c->e[i - 1].keylen,
					 c->e[i].key, c->e[i].keylen))
			return kpc_po_fail(po, c->e[i].line, "msgid already translated at line %u"
					   " (msgids are compared without one trailing newline)",
					   c->e[i - 1].line);
	return 0;
}

int kpc_catalog_parse(const char *name, const char *buf, size_t len,
		      struct kpc_catalog **out, struct kpc_catalog_error *err)
{
	struct kpc_po po = { .name = name, .err = err };
	const char *p = buf, *end = buf + len, *eol;
	int ret = 0;

	*out = NULL;
	err->msg[0] = '\0';
	po.c = calloc(1, sizeof(*po.c));
	if (!po.c)
		return kpc_po_nomem(&po);
	if (memchr(buf, '\0', len)) {
		po.line = 1;
		for (eol = buf; *eol; eol++)
			po.line += *eol == '\n';
		ret = kpc_po_fail(&po, po.line, "a NUL byte: not a PO file");
		goto fail;
	}
	while (p < end) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		po.line++;
		ret = kpc_po_line(&po, p, eol);
		if (ret)
			goto fail;
		p = eol + 1;
	}
	ret = kpc_po_finish(&po);
	if (!ret)
		ret = kpc_catalog_index(&po);
	if (ret)
		goto fail;
	if (!po.c->language) {
		po.c->language = strdup("");
		if (!po.c->language) {
			ret = kpc_po_nomem(&po);
			goto fail;
		}
	}
	*out = po.c;
	return 0;
fail:
	free(po.e.id.s);
	free(po.e.str.s);
	free(po.e.refs.s);
	kpc_catalog_free(po.c);
	return ret;
}

int kpc_catalog_load(const char *path, struct kpc_catalog **out,
		     struct kpc_catalog_error *err)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	char *buf;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(-ret));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > KPC_CATALOG_FILE_MAX) {
		ret = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path,
			 S_ISREG(st.st_mode) ? "larger than 64 MiB" : "not a regular file");
		goto out_close;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
		goto out_close;
	}
	/* The size may change under us: read what is there, up to the bound. */
	while (len < (size_t)st.st_size &&
	       (n = read(fd, buf + len, st.st_size - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(-ret));
			goto out_free;
		}
		len += n;
	}
	ret = kpc_catalog_parse(path, buf, len, out, err);
out_free:
	free(buf);
out_close:
	if (fd >= 0)
		close(fd);
	return ret;
}

void kpc_catalog_free(struct kpc_catalog *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->e[i].key);
		free(c->e[i].str);
		free(c->e[i].refs);
	}
	free(c->e);
	free(c->language);
	free(c);
}

const struct kpc_catalog_stats *kpc_catalog_stats(const struct kpc_catalog *c)
{
	return &c->stats;
}

const char *kpc_catalog_language(const struct kpc_catalog *c)
{
	return c->language;
}

unsigned int kpc_catalog_header_line(const struct kpc_catalog *c)
{
	return c->header_line;
}

static const struct kpc_catalog_entry *kpc_catalog_find(const struct kpc_catalog *c,
							const char *format)
{
	size_t len = strlen(format), lo = 0, hi = c->n;

	if (len && format[len - 1] == '\n')
		len--;
	if (!len)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = kpc_catalog_cmp_key(format, len, c->e[mid].key, c->e[mid].keylen);

		if (!cmp)
			return &c->e[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const char *kpc_catalog_lookup(const struct kpc_catalog *c, const char *format)
{
	const struct kpc_catalog_entry *e = kpc_catalog_find(c, format);

	return e ? e->str : NULL;
}

size_t kpc_catalog_count(const struct kpc_catalog *c)
{
	return c->n;
}

const char *kpc_catalog_msgid(const struct kpc_catalog *c, size_t i)
{
	return i < c->n ? c->e[i].key : NULL;
}

const char *kpc_catalog_refs(const struct kpc_catalog *c, size_t i)
{
	return i < c->n && c->e[i].refs ? c->e[i].refs : "";
}

int kpc_catalog_translate(const struct kpc_catalog *c, const struct kpc_record *rec,
			  char **out)
{
	const struct kpc_catalog_entry *e = kpc_catalog_find(c, rec->format);
	const char *p, *conv;
	unsigned int j = 0;
	bool percent;
	char *buf = NULL;
	size_t size = 0, len;
	FILE *f;

	*out = NULL;
	/* The args are one per conversion of the format, or the record is not whole. */
	if (!e || rec->nargs != e->nconv)
		return 0;
	/*
	 * A translation is a C string: an arg with a NUL inside (a "%c" of
	 * 0) leaves the text as it is, which keeps the byte.
	 */
	for (j = 0; j < rec->nargs; j++)
		if (kpc_record_arg_len(rec, j) != strlen(rec->args[j]))
			return 0;
	j = 0;
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	for (p = e->str; (conv = kpc_fmt_next(p, &len, &percent)); p = conv + len) {
		fwrite(p, 1, conv - p, f);
		if (percent)
			fputc('%', f);
		else
			fputs(rec->args[e->map[j++]], f);
	}
	fputs(p, f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 1;
}
