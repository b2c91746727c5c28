// SPDX-License-Identifier: GPL-2.0
/*
 * kprint translate --catalog FILE.po [FILE]: the kernel log as text (a
 * saved dmesg, cat /dev/kmsg, journalctl -k --all) in the catalog's
 * language, without the kprint module and without privileges.
 *
 * A line only carries what the catalog needs, the format and the args,
 * when kprint.ko echoed it with markers=1: 0x1f (ASCII unit separator)
 * before and after each argument, "\x1f" as /dev/kmsg and dmesg escape
 * it.  The format is then the msgid whose literal parts are the line's
 * parts between the arguments, with as many conversions as the line has
 * arguments; the translation is built from those arguments, exactly as
 * for a record (kpc_catalog_translate()).  A line without markers is
 * translated when it is a msgid without conversions; any other line is
 * printed as it was, its markers taken out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprint.h"

/* Markers: two per argument, so at most this many parts to a line. */
#define KPRINT_TR_PARTS		(2 * KPRINT_ARGS_MAX + 1)
#define KPRINT_TR_MARKER	'\x1f'

struct kprint_tr_line {
	char *part[KPRINT_TR_PARTS];	/* literal, arg, literal, ... */
	size_t len[KPRINT_TR_PARTS];
	unsigned int nargs;
};

/*
 * The bytes the kernel stored: /dev/kmsg writes every control byte and
 * backslash as \xNN, dmesg every unprintable byte.  In place; returns the
 * new length.  (dmesg leaves a backslash as it is, so a text that itself
 * says "\x41" reads as "A": a line's literal text cannot be told apart.)
 */
static size_t kprint_tr_unescape(char *s, size_t len)
{
	size_t i, o = 0;
	int hi, lo;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    (hi = kpc_hex_digit(s[i + 2])) >= 0 &&
		    (lo = kpc_hex_digit(s[i + 3])) >= 0) {
			s[o++] = (char)(hi << 4 | lo);
			i += 3;
		} else {
			s[o++] = s[i];
		}
	}
	return o;
}

static size_t kprint_tr_digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/* A level as dmesg -x writes it, padded with spaces: its length in *n. */
static bool kprint_tr_level(const char *s, size_t *n)
{
	static const char *const levels[] = {
		"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
	};
	size_t i, len;

	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		len = strlen(levels[i]);
		if (!strncmp(s, levels[i], len)) {
			while (s[len] == ' ')
				len++;
			*n = len;
			return true;
		}
	}
	return false;
}

/*
 * Where the kernel's text starts in a line: after "PRI,SEQ,USEC,FLAGS;"
 * of /dev/kmsg; else after dmesg's "<PRI>" (-r), "FACILITY:LEVEL: " (-x)
 * and "[TIME] "; else after journalctl's " kernel: ".  0: all of it.
 */
static size_t kprint_tr_prefix(const char *line)
{
	const char *p = line, *q;
	size_t n;
	int i;

	/* /dev/kmsg: three numbers, flags, then ';' (more fields may come). */
	for (i = 0; i < 3; i++) {
		n = kprint_tr_digits(p);
		if (!n || p[n] != ',')
			break;
		p += n + 1;
	}
	if (i == 3 && (q = strchr(p, ';')) && !memchr(p, ' ', q - p))
		return q + 1 - line;

	p = line;
	if (*p == '<' && (n = kprint_tr_digits(p + 1)) && p[n + 1] == '>')
		p += n + 2;
	/* dmesg -x: "kern  :info  : ", the level one of the eight. */
	q = strchr(p, ':');
	if (q && kprint_tr_level(q + 1, &n) && q[1 + n] == ':' && q[2 + n] == ' ')
		p = q + 3 + n;
	if (*p == '[' && (q = strchr(p, ']')) && q[1] == ' ')
		return q + 2 - line;
	if (p != line)
		return p - line;
	q = strstr(line, " kernel: ");
	return q ? q + 9 - line : 0;
}

/*
 * Does msgid key (without its trailing newline) read as the line: its
 * literal parts, "%%" as "%", equal to the line's literal parts, and one
 * conversion wherever the line has an argument?
 */
static bool kprint_tr_fits(const char *key, const struct kprint_tr_line *l)
{
	const char *p = key, *conv;
	unsigned int j = 0;	/* the literal part being matched */
	size_t off = 0, n, len;
	bool percent;

	for (; (conv = kpc_fmt_next(p, &len, &percent)); p = conv + len) {
		n = conv - p;
		if (off + n > l->len[j] || memcmp(l->part[j] + off, p, n))
			return false;
		off += n;
		if (percent) {
			if (off == l->len[j] || l->part[j][off] != '%')
				return false;
			off++;
			continue;
		}
		/* A conversion: the literal part ends here, an argument follows. */
		if (off != l->len[j] || j / 2 == l->nargs)
			return false;
		j += 2;
		off = 0;
	}
	n = strlen(p);
	return j / 2 == l->nargs && off + n == l->len[j] &&
	       !memcmp(l->part[j] + off, p, n);
}

/* The translation of a line, malloc()ed, or NULL when there is none. */
static int kprint_tr_translate(const struct kpc_catalog *c, const struct kprint_tr_line *l,
			       const char *text, char **out)
{
	struct kpc_record rec = { .text = text };
	size_t i, n = kpc_catalog_count(c);
	const char *key;
	unsigned int k;

	*out = NULL;
	for (k = 0; k < l->nargs; k++)
		rec.args[k] = l->part[2 * k + 1];
	rec.nargs = l->nargs;
	/* Without args and without a '%', the text is its own msgid. */
	if (!l->nargs && !strchr(text, '%')) {
		rec.format = text;
		return kpc_catalog_translate(c, &rec, out);
	}
	/* Several msgids may fit ("%s" and "%d"): the first in the table's order. */
	for (i = 0; i < n; i++) {
		key = kpc_catalog_msgid(c, i);
		if (kprint_tr_fits(key, l)) {
			rec.format = key;
			return kpc_catalog_translate(c, &rec, out);
		}
	}
	return 0;
}

/*
 * Split msg (len bytes, unescaped) at its markers, in place, the markers
 * becoming NULs.  The text without markers goes to text.  A line with
 * markers that are not two per argument (cut by printk, or a 0x1f of a
 * text of its own) keeps them, and is one literal part: never translated.
 */
static void kprint_tr_split(char *msg, size_t len, struct kprint_tr_line *l, char *text)
{
	unsigned int n = 0;
	char *p = msg, *m, *end = msg + len;
	size_t t = 0;

	l->nargs = 0;
	while ((m = memchr(p, KPRINT_TR_MARKER, end - p)) && n < KPRINT_TR_PARTS - 1) {
		l->part[n] = p;
		l->len[n++] = m - p;
		p = m + 1;
	}
	l->part[n] = p;
	l->len[n++] = end - p;
	if (!(n & 1) || memchr(p, KPRINT_TR_MARKER, end - p)) {
		/* Not a marked line: all of it, as it was. */
		l->part[0] = msg;
		l->len[0] = len;
		n = 1;
	}
	for (unsigned int i = 0; i < n; i++) {
		l->part[i][l->len[i]] = '\0';
		memcpy(text + t, l->part[i], l->len[i]);
		t += l->len[i];
	}
	text[t] = '\0';
	l->nargs = n / 2;
}

static int kprint_tr_stream(const struct kprint_opts *o, FILE *in, const char *name)
{
	char *line = NULL, *text = NULL, *tr;
	struct kprint_tr_line l;
	size_t cap = 0, tcap = 0, pre, len;
	ssize_t n;
	int err;

	while ((n = getline(&line, &cap, in)) > 0) {
		len = n;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* /dev/kmsg's dictionary lines ("␠SUBSYSTEM=pci"): as they are. */
		if (line[0] == ' ' || !len) {
			printf("%s\n", line);
			continue;
		}
		pre = kprint_tr_prefix(line);
		if (tcap < len + 1) {
			free(text);
			tcap = len + 1;
			text = malloc(tcap);
			if (!text) {
				err = -ENOMEM;
				goto out;
			}
		}
		/* A NUL read from the file ends the line's text. */
		len = strlen(line + pre);
		len = kprint_tr_unescape(line + pre, len);
		line[pre + len] = '\0';
		kprint_tr_split(line + pre, len, &l, text);
		err = kprint_tr_translate(o->catalog, &l, text, &tr);
		if (err < 0)
			goto out;
		fwrite(line, 1, pre, stdout);
		kpc_text_escape(stdout, tr ? tr : text, o->text.utf8);
		putchar('\n');
		free(tr);
	}
	err = ferror(in) ? -errno : 0;
	if (err)
		fprintf(stderr, "kprint: translate: reading %s: %s\n", name, strerror(-err));
out:
	if (err == -ENOMEM)
		fprintf(stderr, "kprint: translate: out of memory\n");
	free(line);
	free(text);
	if (fflush(stdout) || ferror(stdout))
		return KPRINT_EXIT_ERROR;
	return err ? KPRINT_EXIT_ERROR : KPRINT_EXIT_OK;
}

int kprint_cmd_translate(struct kprint_opts *o, int argc, char **argv)
{
	const char *name = "standard input";
	FILE *in = stdin;
	int ret;

	ret = kprint_parse(o, argc, argv, NULL, NULL);
	if (ret)
		return ret < 0 ? KPRINT_EXIT_OK : ret;
	if (argc - optind > 1) {
		fprintf(stderr, "kprint: translate takes one FILE at most ('%s')\n",
			argv[optind + 1]);
		return KPRINT_EXIT_USAGE;
	}
	if (!o->catalog_path) {
		fputs("kprint: translate needs --catalog FILE.po\n", stderr);
		return KPRINT_EXIT_USAGE;
	}
	if (o->json) {
		fputs("kprint: translate writes text lines, not --json\n", stderr);
		return KPRINT_EXIT_USAGE;
	}
	ret = kprint_catalog_open(o);
	if (ret >= 0)
		return ret;
	if (optind < argc && strcmp(argv[optind], "-")) {
		name = argv[optind];
		in = fopen(name, "r");
		if (!in) {
			fprintf(stderr, "kprint: translate: %s: %s\n", name, strerror(errno));
			return KPRINT_EXIT_ERROR;
		}
	}
	ret = kprint_tr_stream(o, in, name);
	if (in != stdin)
		fclose(in);
	return ret;
}
