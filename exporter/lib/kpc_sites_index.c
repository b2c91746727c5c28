// SPDX-License-Identifier: GPL-2.0
/*
 * The printk index (CONFIG_PRINTK_INDEX): <debugfs>/printk/index/ holds a
 * file for the kernel ("vmlinux") and one per module, a line per printk
 * call site, as kernel/printk/index.c's pi_show() writes it:
 *
 *   # <level[,flags]> filename:line function "format"
 *   <6> drivers/acpi/osl.c:1410 acpi_no_auto_serialize_setup "ACPI: OSL: ...\n"
 *
 * The level is 0..7, -1 (LOGLEVEL_DEFAULT: the message has no level of its
 * own), "c" (KERN_CONT) or "N,c".  The format comes with its KERN_SOH
 * prefix taken off and pr_fmt() in, escaped by seq_escape_str() with
 * ESCAPE_ANY | ESCAPE_NAP: \n \t \r \v \f \a \e, \" and \\, \0, and other
 * bytes that are not printable ASCII as \ooo.
 *
 * None of Debian's kernels has the index, so a line this reader cannot
 * parse is passed over with a warning rather than failing the catalog.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_sites_scan.h"

/* The C escape at *p (after its backslash) as one byte; *p moves past it. */
static int kpc_sites_index_unescape(const char **p)
{
	static const char from[] = "ntrvfae\"\\", to[] = "\n\t\r\v\f\a\033\"\\";
	const char *hit = **p ? strchr(from, **p) : NULL;
	unsigned int v = 0, i;

	if (hit) {
		(*p)++;
		return to[hit - from];
	}
	for (i = 0; i < 3 && **p >= '0' && **p <= '7'; i++, (*p)++)
		v = v * 8 + (**p - '0');
	return i && v <= 0xff ? (int)v : -1;
}

/*
 * The quoted format at q (its opening quote), unescaped into buf (which
 * holds at least strlen(q) bytes).  Returns its length, or -1 when it is
 * not one quoted string ending the line.
 */
static long kpc_sites_index_format(const char *q, char *buf)
{
	const char *p = q + 1;
	long n = 0;
	int c;

	if (*q != '"')
		return -1;
	while (*p && *p != '"') {
		if (*p != '\\') {
			buf[n++] = *p++;
			continue;
		}
		p++;
		c = kpc_sites_index_unescape(&p);
		if (c < 0)
			return -1;
		buf[n++] = c;
	}
	return *p == '"' && !p[1] ? n : -1;
}

/* "<6>", "<-1>", "<c>", "<4,c>": the level as kpc_sites_strip() gives one. */
static int kpc_sites_index_level(const char *s, const char **end)
{
	char *e;
	long v;

	if (*s++ != '<')
		return -2;
	if (!strncmp(s, "c>", 2)) {
		*end = s + 2;
		return KPC_SITE_LEVEL_CONT;
	}
	v = strtol(s, &e, 10);
	if (e == s || v < -1 || v > 7)
		return -2;
	if (!strncmp(e, ",c", 2))
		e += 2;
	if (*e != '>')
		return -2;
	*end = e + 1;
	/* KERN_DEFAULT is "": -1 is a format without a level (null, as elsewhere). */
	return v == -1 ? KPC_SITE_LEVEL_NONE : (int)v;
}

struct kpc_sites_index_line {
	int level;
	char *file;		/* these three point into the line */
	unsigned int line;
	char *function;
	const char *format;	/* into the caller's buffer, unescaped */
	size_t len;
};

/* One line of an index file, cut up in place.  False: not in the index's form. */
static bool kpc_sites_index_parse(char *s, char *buf, struct kpc_sites_index_line *l)
{
	const char *after;
	char *colon, *sp, *end;
	long n;

	l->level = kpc_sites_index_level(s, &after);
	if (l->level == -2 || *after != ' ')
		return false;
	l->file = (char *)after + 1;
	sp = strchr(l->file, ' ');
	if (!sp)
		return false;
	*sp = '\0';
	colon = strrchr(l->file, ':');
	if (!colon || colon == l->file)
		return false;
	*colon = '\0';
	l->line = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || *end)
		return false;
	l->function = sp + 1;
	sp = strchr(l->function, ' ');
	if (!sp || sp == l->function)
		return false;
	*sp = '\0';
	n = kpc_sites_index_format(sp + 1, buf);
	if (n < 0)
		return false;
	l->format = buf;
	l->len = n;
	return true;
}

static int kpc_sites_index_add(struct kpc_sites *out, const char *module,
			       const struct kpc_sites_index_line *l)
{
	struct kpc_site *added;
	const char *fmt;
	size_t len;
	int err;

	/* The prefix is off already; the trailing newline is not. */
	kpc_sites_strip(l->format, l->len, &fmt, &len);
	err = kpc_sites_add_found(out, fmt, len, l->level, module, l->function,
				  KPC_SITE_PRINTK, KPC_SITE_SRC_INDEX);
	if (err)
		return err == -EINVAL ? 0 : err;	/* a NUL inside: never printed past it */
	/* kpc_sites_add_found() takes no file: the entry it just added gets it. */
	added = &out->v[out->n - 1];
	added->file = strdup(l->file);
	added->line = l->line;
	return added->file ? 0 : -ENOMEM;
}

static int kpc_sites_index_file(const char *path, const char *module, struct kpc_sites *out)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *buf = NULL;
	size_t cap = 0, bufcap = 0;
	unsigned long lineno = 0, bad = 0;
	ssize_t n;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		struct kpc_sites_index_line l;

		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		if ((size_t)n + 1 > bufcap) {
			free(buf);
			bufcap = n + 1;
			buf = malloc(bufcap);
			if (!buf) {
				err = -ENOMEM;
				break;
			}
		}
		if (!kpc_sites_index_parse(line, buf, &l)) {
			if (!bad++)
				fprintf(stderr, "kprint sites: %s:%lu: not a printk index line,"
					" passed over\n", path, lineno);
			continue;
		}
		err = kpc_sites_index_add(out, module, &l);
	}
	if (!err && ferror(f))
		err = -EIO;
	if (bad > 1)
		fprintf(stderr, "kprint sites: %s: %lu lines passed over\n", path, bad);
	free(line);
	free(buf);
	fclose(f);
	return err;
}

int kpc_sites_scan_index(const char *dir, struct kpc_sites *out, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];
	int ret = 0;

	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return ret;
	}
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		ret = kpc_sites_index_file(path, de->d_name, out);
		if (ret)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	}
	closedir(d);
	return ret;
}
