// SPDX-License-Identifier: GPL-2.0
/*
 * kpc_catalog: PO syntax (comments, escapes, continued strings, the
 * header's charset, fuzzy, msgctxt, plurals), the format checker's
 * verdicts with FILE:LINE: reason, translated text from a record's own
 * args (in order and reordered), the fallbacks, and POT templates that
 * GNU msgfmt --check takes (when msgfmt is installed: scripts/deps).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kpc_catalog.h"
#include "test_kpc_tap.h"

#define HEADER								\
	"msgid \"\"\n"							\
	"msgstr \"\"\n"							\
	"\"Language: de\\n\"\n"						\
	"\"Content-Type: text/plain; charset=UTF-8\\n\"\n"

static struct kpc_catalog *load(const char *po, int *ret, struct kpc_catalog_error *err)
{
	struct kpc_catalog *c = NULL;

	*ret = kpc_catalog_parse("test.po", po, strlen(po), &c, err);
	return c;
}

/* rec with format and args, nothing else (translation looks at no more). */
static void record(struct kpc_record *rec, const char *format, unsigned int nargs, ...)
{
	va_list ap;
	unsigned int i;

	memset(rec, 0, sizeof(*rec));
	rec->format = format;
	rec->text = "(the original text)";
	rec->nargs = nargs;
	va_start(ap, nargs);
	for (i = 0; i < nargs; i++)
		rec->args[i] = va_arg(ap, const char *);
	va_end(ap);
}

/* The catalog's text for rec, or "(fallback)" / "(error N)". */
static const char *translate(const struct kpc_catalog *c, const struct kpc_record *rec)
{
	static char buf[1024];
	char *out;
	int ret = kpc_catalog_translate(c, rec, &out);

	if (ret < 0)
		snprintf(buf, sizeof(buf), "(error %d)", ret);
	else if (!ret)
		snprintf(buf, sizeof(buf), "(fallback)");
	else
		snprintf(buf, sizeof(buf), "%s", out);
	free(out);
	return buf;
}

static void test_syntax(void)
{
	static const char po[] =
		"# translator comment\n"
		"#. extracted comment\n"
		"#: drivers/usb/storage/usb.c:1234\n"
		HEADER
		"\n"
		"#, c-format\n"
		"msgid \"tab\\there \\\"q\\\" back\\\\slash oct\\101 hex\\x42 \"\n"
		"\"and a second line\\n\"\n"
		"msgstr \"\"\n"
		"\"Tab\\tda \\\"z\\\" R\xc3\xbc\"   \n"
		"  \"ck\\\\strich \\101\\x42 \\a\\b\\f\\v\\r\\?\\' zweite Zeile\\n\"\n"
		"\n"
		"#| msgid \"previous\"\n"
		"msgid \"100%% sure: %s\"\n"
		"msgstr \"100%% sicher: %s\"\n"
		"#~ msgid \"obsolete %d\"\n"
		"#~ msgstr \"veraltet %s\"\n"
		"msgctxt \"menu\"\n"
		"msgid \"%s\"\n"
		"msgstr \"%d\"\n"
		"msgid \"untranslated %s\"\n"
		"msgstr \"\"\n";
	struct kpc_catalog_error err;
	struct kpc_record rec;
	struct kpc_catalog *c;
	const char *s;
	int ret;

	c = load(po, &ret, &err);
	if (!tap_ok(ret == 0 && c, "a PO file with every comment kind, escapes and continued"
		    " strings loads (%d: %s)", ret, err.msg))
		return;
	s = kpc_catalog_lookup(c, "tab\there \"q\" back\\slash octA hexB and a second line");
	tap_ok(s && !strcmp(s, "Tab\tda \"z\" R\xc3\xbc" "ck\\strich AB \a\b\f\v\r?' zweite Zeile"),
	       "escapes \\t \\\" \\\\ \\ooo \\xhh \\a \\b \\f \\v \\r \\? \\' and continued lines,"
	       " trailing blanks after a string (got '%s')", s ? s : "(null)");
	s = kpc_catalog_lookup(c, "tab\there \"q\" back\\slash octA hexB and a second line\n");
	tap_ok(s != NULL, "a format with one trailing newline matches the msgid without it");
	tap_ok(!strcmp(kpc_catalog_language(c), "de"), "the header's Language is kept ('%s')",
	       kpc_catalog_language(c));
	tap_ok(kpc_catalog_stats(c)->translated == 2 && kpc_catalog_stats(c)->untranslated == 1 &&
	       kpc_catalog_stats(c)->context == 1 && kpc_catalog_stats(c)->fuzzy == 0,
	       "counted: 2 translated, 1 untranslated, 1 with msgctxt (skipped), the obsolete"
	       " #~ entry not at all");
	record(&rec, "100%% sure: %s", 1, "ja");
	tap_ok(!strcmp(translate(c, &rec), "100% sicher: ja"), "%%%% renders as %% (got '%s')",
	       translate(c, &rec));
	tap_ok(kpc_catalog_lookup(c, "%s") == NULL,
	       "an entry with msgctxt never matches (records have no context)");
	kpc_catalog_free(c);

	c = load("msgid \"a %s\"\r\nmsgstr \"b %s\"\r\n", &ret, &err);
	tap_ok(ret == 0 && c && kpc_catalog_lookup(c, "a %s") &&
	       !strcmp(kpc_catalog_lookup(c, "a %s"), "b %s"),
	       "CRLF line ends, and no header (UTF-8 assumed)");
	kpc_catalog_free(c);
}

/* po is refused with exactly "test.po:LINE: " and a reason containing why. */
static void refused(const char *what, const char *po, unsigned int line, const char *why)
{
	struct kpc_catalog_error err;
	struct kpc_catalog *c;
	char prefix[32];
	int ret;

	c = load(po, &ret, &err);
	snprintf(prefix, sizeof(prefix), "test.po:%u: ", line);
	tap_ok(ret == -EINVAL && !c && !strncmp(err.msg, prefix, strlen(prefix)) &&
	       strstr(err.msg, why), "refused: %s: '%s'", what, ret ? err.msg : "(loaded)");
	kpc_catalog_free(c);
}

static void test_syntax_errors(void)
{
	refused("a string without its closing quote", "msgid \"a\nmsgstr \"b\"\n", 1,
		"closing quote");
	refused("text after a string", "msgid \"a\" x\nmsgstr \"b\"\n", 1, "after a string");
	refused("an unknown escape", "msgid \"a\"\nmsgstr \"\\q\"\n", 2, "unknown escape \\q");
	refused("\\x without digits", "msgid \"a\"\nmsgstr \"\\xg\"\n", 2, "\\x without");
	refused("an octal escape past \\377", "msgid \"a\"\nmsgstr \"b\\400c\"\n", 2,
		"octal escape past \\377");
	refused("a NUL escape", "msgid \"a\"\nmsgstr \"\\0\"\n", 2, "NUL");
	refused("msgstr without msgid", "# c\nmsgstr \"b\"\n", 2, "msgstr without a msgid");
	refused("msgid without msgstr", "msgid \"a\"\n\nmsgid \"b\"\nmsgstr \"c\"\n", 3,
		"msgid after a msgid");
	refused("msgid without msgstr at the end", "msgid \"a\"\nmsgstr \"b\"\nmsgid \"c\"\n", 3,
		"msgid without a msgstr");
	refused("a second msgstr", "msgid \"a\"\nmsgstr \"b\"\nmsgstr \"c\"\n", 3,
		"a second msgstr");
	refused("a continuation of nothing", "\"a\"\n", 1, "continues no");
	refused("garbage", "msgid \"a\"\nmsgstr \"b\"\nhello\n", 3, "expected msgctxt");
	refused("plural forms",
		"msgid \"%d file\"\nmsgid_plural \"%d files\"\nmsgstr[0] \"%d Datei\"\n", 2,
		"plural forms are not supported");
	refused("a charset other than UTF-8",
		"msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=ISO-8859-1\\n\"\n", 2,
		"charset ISO-8859-1: only UTF-8");
	refused("the template's CHARSET",
		"msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=CHARSET\\n\"\n", 2,
		"placeholder CHARSET");
	refused("invalid UTF-8", HEADER "msgid \"a\"\nmsgstr \"\xc3\x28\"\n", 6,
		"msgstr is not valid UTF-8");
	refused("a msgid twice", HEADER "msgid \"a %s\"\nmsgstr \"b %s\"\n\n"
		"msgid \"a %s\\n\"\nmsgstr \"c %s\\n\"\n", 9, "already translated at line 6");
}

static void test_german(void)
{
	static const char po[] =
		HEADER
		"\n"
		"#, c-format\n"
		"msgid \"%s: port %d reset by %s\"\n"
		"msgstr \"%3$s hat Port %2$d von %1$s zur\xc3\xbc" "ckgesetzt\"\n"
		"\n"
		"msgid \"link %pI4 up via %s\\n\"\n"
		"msgstr \"%2$s: Verbindung %1$pI4 steht\\n\"\n"
		"\n"
		"msgid \"pad %*d of %s\"\n"
		"msgstr \"%3$s: Polster %2$*1$d\"\n"
		"\n"
		"msgid \"prec %.*s and %-5lu\"\n"
		"msgstr \"Pr\xc3\xa4zision %.*s und %-5lu\"\n";
	struct kpc_catalog_error err;
	struct kpc_record rec;
	struct kpc_catalog *c;
	int ret;

	c = load(po, &ret, &err);
	if (!tap_ok(ret == 0 && c, "a German catalog with reordered positional args loads (%s)",
		    err.msg))
		return;
	record(&rec, "%s: port %d reset by %s", 3, "usb1", "3", "hub");
	tap_ok(!strcmp(translate(c, &rec), "hub hat Port 3 von usb1 zur\xc3\xbc" "ckgesetzt"),
	       "reordered %%3$s %%2$d %%1$s take the record's args 3, 2, 1 (%s)",
	       translate(c, &rec));
	record(&rec, "link %pI4 up via %s", 2, "10.0.2.15", "eth0");
	tap_ok(!strcmp(translate(c, &rec), "eth0: Verbindung 10.0.2.15 steht"),
	       "%%1$pI4 reordered, the msgid's trailing newline matched and dropped (%s)",
	       translate(c, &rec));
	record(&rec, "pad %*d of %s", 2, "   42", "eth0");
	tap_ok(!strcmp(translate(c, &rec), "eth0: Polster    42"),
	       "%%2$*1$d is msgid's %%*d: one record arg, already padded (%s)",
	       translate(c, &rec));
	record(&rec, "prec %.*s and %-5lu", 2, "abc", "7    ");
	tap_ok(!strcmp(translate(c, &rec), "Pr\xc3\xa4zision abc und 7    "),
	       "in-order %%.*s and %%-5lu (%s)", translate(c, &rec));
	/* A C string cannot carry the NUL of a "%c" of 0: the text stays. */
	record(&rec, "%s: port %d reset by %s", 3, "usb1", "3", "h\0b");
	rec.arg_len[2] = 3;
	tap_ok(!strcmp(translate(c, &rec), "(fallback)"),
	       "an arg with a NUL inside leaves the text untranslated (%s)", translate(c, &rec));
	kpc_catalog_free(c);
}

static void test_fallback(void)
{
	static const char po[] =
		HEADER
		"msgid \"known %s\"\n"
		"msgstr \"bekannt %s\"\n"
		"msgid \"empty %s\"\n"
		"msgstr \"\"\n"
		"#, fuzzy, c-format\n"
		"msgid \"fuzzy %pI4\"\n"
		"msgstr \"unscharf %pI6 %d\"\n";
	struct kpc_catalog_error err;
	struct kpc_record rec;
	struct kpc_catalog *c;
	int ret;

	c = load(po, &ret, &err);
	if (!tap_ok(ret == 0 && c, "a fuzzy entry is skipped unchecked, as msgfmt skips it"
		    " (%s)", err.msg))
		return;
	tap_ok(kpc_catalog_stats(c)->fuzzy == 1 && !kpc_catalog_lookup(c, "fuzzy %pI4"),
	       "the fuzzy entry is counted and not used");
	record(&rec, "fuzzy %pI4", 1, "1.2.3.4");
	tap_ok(!strcmp(translate(c, &rec), "(fallback)"), "a fuzzy entry's record: fallback");
	record(&rec, "unknown %s", 1, "x");
	tap_ok(!strcmp(translate(c, &rec), "(fallback)"), "a format not in the catalog: fallback");
	record(&rec, "empty %s", 1, "x");
	tap_ok(!strcmp(translate(c, &rec), "(fallback)"), "an untranslated entry: fallback");
	record(&rec, "known %s", 0);
	tap_ok(!strcmp(translate(c, &rec), "(fallback)"),
	       "a record with fewer args than conversions: fallback");
	record(&rec, "known %s", 2, "x", "y");
	tap_ok(!strcmp(translate(c, &rec), "(fallback)"),
	       "a record with more args than conversions: fallback");
	record(&rec, "", 0);
	tap_ok(!strcmp(translate(c, &rec), "(fallback)"), "an empty format (backlog): fallback");
	record(&rec, "known %s", 1, "x");
	tap_ok(!strcmp(translate(c, &rec), "bekannt x"), "the known one translates");
	kpc_catalog_free(c);
}

/*
 * One entry after the 4 header lines and a blank: the msgid on line 6, the
 * msgstr on line 7, where a mismatch is reported.
 */
static void refused_entry(const char *what, const char *id, const char *str,
			  unsigned int line, const char *why)
{
	char po[512];

	snprintf(po, sizeof(po), HEADER "\nmsgid \"%s\"\nmsgstr \"%s\"\n", id, str);
	refused(what, po, line, why);
}

#define mismatch(what, id, str, why)	refused_entry(what, id, str, 7, why)
#define bad_msgid(what, id, str, why)	refused_entry(what, id, str, 6, why)

static void test_mismatch(void)
{
	mismatch("%pI4 against %pI6", "from %pI4", "von %pI6",
		 "msgstr's conversion 1 is %pI6 where the msgid's is %pI4");
	mismatch("%pI4 against %p (the extension is part of the conversion)", "from %pI4",
		 "von %p", "is %p where the msgid's is %pI4");
	mismatch("%*d against %d %d (msgfmt counts both as two ints)", "pad %*d", "%d %d",
		 "msgstr's conversion 1 is %d where the msgid's is %*d");
	mismatch("%*d against %d", "pad %*d", "%d", "is %d where the msgid's is %*d");
	mismatch("a missing conversion", "%s at %d", "%s",
		 "msgstr lacks msgid's conversion 2, %d");
	mismatch("an extra conversion", "%s", "%s at %d", "msgstr's conversion 2, %d, is extra");
	mismatch("%d against %s", "port %d", "Port %s", "is %s where the msgid's is %d");
	mismatch("%lu against %u", "n %lu", "n %u", "is %u where the msgid's is %lu");
	mismatch("%5d against %d (the arg is rendered with its width)", "n %5d", "n %d",
		 "is %d where the msgid's is %5d");
	mismatch("mixed positional and non-positional", "%s %d", "%1$s %d",
		 "msgstr: mixes positional (%1$s) and non-positional (%d)");
	mismatch("mixed: a positional value with an unnumbered '*'", "%*d", "%2$*d",
		 "mixes positional");
	mismatch("positional: an argument left out", "%s %d", "%2$d",
		 "lacks the msgid's argument 1, %s");
	mismatch("positional: an argument twice", "%s %d", "%1$s %2$d %1$s",
		 "shows argument 1 twice");
	mismatch("positional: past the msgid's arguments", "%s", "%2$s",
		 "argument 2, which the msgid does not have");
	mismatch("positional: a width argument shown as a value", "%*d", "%1$d %2$d",
		 "the '*' width of the msgid's %*d");
	mismatch("positional: %*d's width from the wrong argument", "%*d %d", "%2$*3$d %3$d",
		 "msgstr's %2$*3$d takes its '*' from argument 3, the msgid's %*d from argument 1");
	mismatch("positional: %pI4 against %1$pI6", "%pI4", "%1$pI6",
		 "msgstr's %1$pI6 is not the msgid's argument 1, %pI4");
	mismatch("%n in a msgstr", "%s", "%n", "msgstr: %n: %n is not a kernel conversion");
	mismatch("a lone % at the end of a msgstr", "%s", "%s 100%", "without a conversion");
	bad_msgid("%f in a msgid", "%f", "%f", "msgid: %f: not a kernel conversion");
	bad_msgid("a position in a msgid", "%1$s", "%1$s", "knows no positional");
	bad_msgid("%*%% (an argument shown nowhere)", "%*%", "%*%", "takes an argument and shows none");
	bad_msgid("more than 16 conversions",
		 "%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d", "x", "more than 16 conversions");
}

static void test_accepted(void)
{
	static const struct {
		const char *id, *str;
	} ok[] = {
		{ "%pI4 %pI6c %pISpc %pM %pUb %pe %pS %ps %pB %pK %pa %pad %pV %pOF %ptRd %phN",
		  "%pI4 %pI6c %pISpc %pM %pUb %pe %pS %ps %pB %pK %pa %pad %pV %pOF %ptRd %phN" },
		{ "%hhx %hd %ld %lld %Lu %zu %zd %td %o %X %c %i", "%hhx %hd %ld %lld %Lu %zu %zd"
		  " %td %o %X %c %i" },
		{ "%-08.3lx %+d % d %#x", "%0-8.3lx %+d % d %#x" },
		{ "%s and %pI4", "%2$pI4 und %1$s" },
		{ "%*.*s|%d", "%4$d|%3$*1$.*2$s" },
		{ "no conversions, 50%%", "keine, 50%%" },
	};
	struct kpc_catalog_error err;
	struct kpc_catalog *c;
	unsigned int i;
	char po[1024];
	int ret;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(po, sizeof(po), HEADER "msgid \"%s\"\nmsgstr \"%s\"\n", ok[i].id, ok[i].str);
		c = load(po, &ret, &err);
		tap_ok(ret == 0 && c && kpc_catalog_stats(c)->translated == 1,
		       "accepted: '%s' -> '%s'%s%s", ok[i].id, ok[i].str, ret ? ": " : "",
		       ret ? err.msg : "");
		kpc_catalog_free(c);
	}
}

static bool have_msgfmt(void)
{
	return !system("msgfmt --version >/dev/null 2>&1");
}

/* msgfmt's verdict on a file: 0 accepted. */
static int msgfmt(const char *flags, const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "msgfmt %s -o /dev/null %s 2>/dev/null", flags, path);
	return system(cmd);
}

/* fd, the file at path, holds HEADER and the one entry id -> str; on an error the check fails. */
static int rewrite_po(int fd, const char *path, const char *id, const char *str)
{
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) ||
	    dprintf(fd, "%smsgid \"%s\"\nmsgstr \"%s\"\n", HEADER, id, str) < 0) {
		tap_ok(0, "write a PO to %s", path);
		return -1;
	}
	return 0;
}

static void test_pot(void)
{
	static const char *const formats[] = {
		"cheesy %s drive detected at %d",
		"link %pI4 up via %s\n",
		"two\nlines with \"quotes\" and a \\ and a \ttab",
		"pad %*d of %.*s, 100%%",
		"gr\xc3\xbc\xc3\x9f" "e %pUb",
		"ctl \x01\x7f",
	};
	static const char *const bad[] = { "", "\n", "bad \xff utf-8", "%f", "100%" };
	char path[] = "/tmp/test_kpc_catalog.XXXXXX", why[256];
	struct kpc_catalog_error err;
	struct kpc_catalog *c = NULL;
	unsigned int i, fails = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int fd, ret;

	f = open_memstream(&buf, &len);
	ret = kpc_catalog_pot_header(f, 1700000000);
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		ret |= kpc_catalog_pot_entry(f, formats[i], "kprint: 3 messages", "usb_storage",
					     why, sizeof(why));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		fails += kpc_catalog_pot_entry(f, bad[i], NULL, NULL, why, sizeof(why)) == -EINVAL;
	fclose(f);
	tap_ok(ret == 0, "the POT's header and entries are written");
	tap_ok(fails == sizeof(bad) / sizeof(bad[0]),
	       "formats no catalog could translate (empty, not UTF-8, invalid) are left out"
	       " (%u of %zu)", fails, sizeof(bad) / sizeof(bad[0]));
	tap_ok(strstr(buf, "#, c-format\nmsgid \"link %pI4 up via %s\"\nmsgstr \"\"\n") &&
	       strstr(buf, "msgid \"\"\n\"two\\n\"\n\"lines with \\\"quotes\\\" and a \\\\ and a"
		      " \\ttab\"\n") && strstr(buf, "\"Content-Type: text/plain; charset=UTF-8\\n\"") &&
	       strstr(buf, "#. kprint: 3 messages\n#: usb_storage\n") && strstr(buf, "\\001\\177"),
	       "POT entries: c-format, no trailing newline, lines split at \\n, escapes");

	ret = kpc_catalog_parse("test.pot", buf, len, &c, &err);
	tap_ok(ret == 0 && c && kpc_catalog_stats(c)->untranslated == 6,
	       "the POT loads as a catalog of 6 untranslated entries (%s)", err.msg);
	kpc_catalog_free(c);

	fd = mkstemp(path);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		tap_ok(0, "write the POT to %s", path);
		goto out;
	}
	if (!have_msgfmt()) {
		tap_skip("msgfmt --check takes the POT (no msgfmt: scripts/deps installs gettext)");
		goto out;
	}
	tap_ok(msgfmt("--check", path) == 0, "GNU msgfmt --check takes the POT");

	/* msgfmt is laxer: what it takes and we refuse, the reason for our own checker. */
	if (rewrite_po(fd, path, "from %pI4 pad %*d", "von %pI6 %d %d"))
		goto out;
	tap_ok(msgfmt("--check-format", path) == 0,
	       "msgfmt --check-format takes %%pI4 as %%pI6 and %%*d as %%d %%d, which we refuse");
	if (rewrite_po(fd, path, "%s: port %d pad %*d", "%4$*3$d %2$d %1$s"))
		goto out;
	tap_ok(msgfmt("--check", path) == 0,
	       "msgfmt --check takes our positional %%4$*3$d for %%*d (POSIX numbering)");
out:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(buf);
}

/* "#:" references kept per entry (kprint catalog --journal's modules). */
static void test_refs(void)
{
	static const char po[] = HEADER
		"\n#: usb_storage e1000e\n#: drivers/x.c:12\n#, c-format\n"
		"msgid \"%s up\"\nmsgstr \"%s an\"\n"
		"\n#, c-format\nmsgid \"down %d\"\nmsgstr \"aus %d\"\n"
		"\n#: skipped\nmsgid \"untranslated\"\nmsgstr \"\"\n"
		"\n#:   lone\nmsgid \"last\"\nmsgstr \"letzte\"\n";
	struct kpc_catalog_error err;
	struct kpc_catalog *c;
	const char *up = NULL, *down = NULL, *last = NULL;
	int ret;

	c = load(po, &ret, &err);
	if (!tap_ok(ret == 0 && c, "a catalog with #: lines loads (%s)", ret ? err.msg : "ok"))
		return;
	for (size_t i = 0; i < kpc_catalog_count(c); i++) {
		const char *id = kpc_catalog_msgid(c, i);

		if (!strcmp(id, "%s up"))
			up = kpc_catalog_refs(c, i);
		else if (!strcmp(id, "down %d"))
			down = kpc_catalog_refs(c, i);
		else if (!strcmp(id, "last"))
			last = kpc_catalog_refs(c, i);
	}
	tap_ok(up && !strcmp(up, "usb_storage e1000e drivers/x.c:12 "),
	       "two #: lines joined: '%s'", up ? up : "(none)");
	tap_ok(down && !strcmp(down, ""), "no #: line: \"\"");
	tap_ok(last && !strcmp(last, "lone "),
	       "an untranslated entry's references do not run into the next: '%s'",
	       last ? last : "(none)");
	tap_ok(!strcmp(kpc_catalog_refs(c, kpc_catalog_count(c)), ""), "past the end: \"\"");
	kpc_catalog_free(c);
}

int main(void)
{
	test_refs();
	test_syntax();
	test_syntax_errors();
	test_german();
	test_fallback();
	test_mismatch();
	test_accepted();
	test_pot();
	return tap_done();
}
