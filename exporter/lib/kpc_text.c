// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_ops.h"
#include "kpc_parse.h"
#include "kpc_text.h"
#include "kpc_utf8.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define SGR_RESET	"\033[0m"
#define SGR_TIME	"\033[32m"
#define SGR_SUBSYSTEM	"\033[36m"

static const char *const kpc_default_colors[KPRINT_LEVEL_MAX + 1] = {
	[KPRINT_LEVEL_EMERG]	= "\033[1;7;31m",
	[KPRINT_LEVEL_ALERT]	= "\033[7;31m",
	[KPRINT_LEVEL_CRIT]	= "\033[1;31m",
	[KPRINT_LEVEL_ERR]	= "\033[31m",
	[KPRINT_LEVEL_WARNING]	= "\033[33m",
	[KPRINT_LEVEL_NOTICE]	= "",
	[KPRINT_LEVEL_INFO]	= "",
	[KPRINT_LEVEL_DEBUG]	= "\033[2m",
};

/* ANSI color numbers, in ANSI order. */
static const char *const kpc_ansi_colors[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

/* VGA color index -> ANSI color number (VGA swaps red/blue, cyan/brown). */
static const unsigned char kpc_vga_to_ansi[8] = { 0, 4, 2, 6, 1, 5, 3, 7 };

static const struct {
	const char *name;
	int code;
} kpc_sgr_attrs[] = {
	{ "bold", 1 }, { "dim", 2 }, { "halfbright", 2 }, { "italic", 3 },
	{ "underline", 4 }, { "blink", 5 }, { "reverse", 7 },
};

void kpc_text_init(struct kpc_text_opts *opts, bool color, bool utf8)
{
	unsigned int i;

	memset(opts, 0, sizeof(*opts));
	opts->color = color;
	opts->utf8 = utf8;
	for (i = 0; i <= KPRINT_LEVEL_MAX; i++)
		snprintf(opts->level_color[i], KPC_COLOR_MAX, "%s",
			 kpc_default_colors[i]);
}

static int kpc_ansi_color(const char *name)
{
	unsigned int i;

	if (!strcmp(name, "brown"))
		return 3;
	if (!strcmp(name, "gray") || !strcmp(name, "grey"))
		return 7;
	for (i = 0; i < ARRAY_SIZE(kpc_ansi_colors); i++)
		if (!strcmp(name, kpc_ansi_colors[i]))
			return i;
	return -EINVAL;
}

/* One word of a spec to its SGR code. */
static int kpc_color_word(const char *word)
{
	int base = 30, color;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpc_sgr_attrs); i++)
		if (!strcmp(word, kpc_sgr_attrs[i].name))
			return kpc_sgr_attrs[i].code;

	if (!strncmp(word, "bg-", 3)) {
		base = 40;
		word += 3;
	}
	if (!strncmp(word, "bright-", 7)) {
		base += 60;
		word += 7;
	}
	color = kpc_ansi_color(word);
	return color < 0 ? color : base + color;
}

/* Append ";code" (or "code" first) to an SGR parameter list. */
static int kpc_sgr_append(char *params, size_t size, int code)
{
	size_t len = strlen(params);
	int n;

	n = snprintf(params + len, size - len, "%s%d", len ? ";" : "", code);
	return n < 0 || (size_t)n >= size - len ? -EINVAL : 0;
}

static int kpc_color_vga(const char *spec, char *params, size_t size)
{
	const char *digits = spec + 2;
	uint64_t attr;
	int err = 0;

	/* One or two hex digits, nothing else. */
	if (strlen(digits) > 2 || kpc_parse_u64(digits, 16, 0xff, &attr))
		return -EINVAL;

	if (attr & 0x80)
		err = kpc_sgr_append(params, size, 5);
	if (!err && (attr & 0x08))
		err = kpc_sgr_append(params, size, 1);
	if (!err)
		err = kpc_sgr_append(params, size, 30 + kpc_vga_to_ansi[attr & 0x07]);
	if (!err)
		err = kpc_sgr_append(params, size,
				     40 + kpc_vga_to_ansi[(attr >> 4) & 0x07]);
	return err;
}

static int kpc_color_words(const char *spec, char *params, size_t size)
{
	char *copy, *word, *save = NULL;
	int err = 0, code;

	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (word = strtok_r(copy, ",", &save); word && !err;
	     word = strtok_r(NULL, ",", &save)) {
		code = kpc_color_word(word);
		err = code < 0 ? code : kpc_sgr_append(params, size, code);
	}
	free(copy);
	return err;
}

int kpc_color_parse(const char *spec, char *out, size_t size)
{
	char params[KPC_COLOR_MAX] = "";
	int err, n;

	if (!strcmp(spec, "default") || !strcmp(spec, "none") ||
	    !strcmp(spec, "plain")) {
		if (size)
			out[0] = '\0';
		return size ? 0 : -EINVAL;
	}
	if (!*spec || spec[strlen(spec) - 1] == ',' || spec[0] == ',')
		return -EINVAL;

	if (spec[0] == '0' && (spec[1] == 'x' || spec[1] == 'X'))
		err = kpc_color_vga(spec, params, sizeof(params));
	else
		err = kpc_color_words(spec, params, sizeof(params));
	if (err)
		return err;

	n = snprintf(out, size, "\033[%sm", params);
	return n < 0 || (size_t)n >= size ? -EINVAL : 0;
}

int kpc_text_set_level_color(struct kpc_text_opts *opts, const char *assignment)
{
	char name[16], color[KPC_COLOR_MAX];
	const char *eq = strchr(assignment, '=');
	size_t len;
	int level, err;

	if (!eq)
		return -EINVAL;
	len = eq - assignment;
	if (len == 0 || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, assignment, len);
	name[len] = '\0';

	level = kpc_level_parse(name);
	if (level < 0)
		return level;
	err = kpc_color_parse(eq + 1, color, sizeof(color));
	if (err)
		return err;
	memcpy(opts->level_color[level], color, sizeof(color));
	return 0;
}

void kpc_text_escape(FILE *out, const char *s, bool utf8)
{
	kpc_text_escape_mem(out, s, strlen(s), utf8);
}

void kpc_text_escape_mem(FILE *out, const char *s, size_t n, bool utf8)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, j;

	while (i < n) {
		unsigned char c = p[i];
		uint32_t cp;
		size_t len;

		if (c == '\\') {
			fputs("\\\\", out);
			i++;
			continue;
		}
		if (c >= 0x20 && c < 0x7F) {
			fputc(c, out);
			i++;
			continue;
		}
		if (c < 0x80 || !utf8) {
			fprintf(out, "\\x%02x", c);
			i++;
			continue;
		}
		/*
		 * U+0080..U+009F are the C1 controls: U+009B is CSI, as
		 * good as ESC [ to many terminals.
		 */
		len = kpc_utf8_next(p + i, n - i, &cp);
		if (cp == KPC_UTF8_INVALID || cp < 0xA0) {
			for (j = 0; j < len; j++)
				fprintf(out, "\\x%02x", p[i + j]);
		} else {
			fwrite(p + i, 1, len, out);
		}
		i += len;
	}
}

/* printk texts may end in a newline; the line we print has its own. */
static void kpc_text_escape_line(FILE *out, const char *s, size_t len, bool utf8)
{
	if (len && s[len - 1] == '\n')
		len--;
	kpc_text_escape_mem(out, s, len, utf8);
}

/* A printk record, or anything only printk records have. */
static bool kpc_text_bracketed(const struct kpc_record *rec)
{
	return rec->source == KPRINT_SOURCE_PRINTK || *rec->device ||
	       (rec->flags & (KPRINT_RECORD_F_BACKLOG | KPRINT_RECORD_F_CONT));
}

/* Whether device is "+SUBSYSTEM:..." (dev_printk()'s other devices). */
static bool kpc_text_device_names(const char *device, const char *subsystem)
{
	size_t len = strlen(subsystem);

	return device[0] == '+' && !strncmp(device + 1, subsystem, len) &&
	       device[len + 1] == ':';
}

/* "[printk SUBSYSTEM DEVICE backlog cont SEQ]", each part only when known. */
static void kpc_text_origin(FILE *out, const struct kpc_text_opts *opts,
			    const struct kpc_record *rec)
{
	const char *source = kpc_source_name(rec->source);

	fprintf(out, "[%s", source ? source : "?");
	if (*rec->subsystem && !kpc_text_device_names(rec->device, rec->subsystem)) {
		fputc(' ', out);
		kpc_text_escape(out, rec->subsystem, opts->utf8);
	}
	if (*rec->device) {
		fputc(' ', out);
		kpc_text_escape(out, rec->device, opts->utf8);
	}
	if (rec->flags & KPRINT_RECORD_F_BACKLOG)
		fputs(" backlog", out);
	if (rec->flags & KPRINT_RECORD_F_CONT)
		fprintf(out, " cont %llu", (unsigned long long)rec->continues);
	fputc(']', out);
}

int kpc_text_print(FILE *out, const struct kpc_text_opts *opts,
		   const struct kpc_record *rec)
{
	const char *level = kpc_level_name(rec->level);
	const char *lc = opts->color ? opts->level_color[rec->level] : "";
	const char *lc_end = *lc ? SGR_RESET : "";

	if (opts->color)
		fputs(SGR_TIME, out);
	fprintf(out, "[%5llu.%06llu]",
		(unsigned long long)(rec->ts_mono_ns / 1000000000ULL),
		(unsigned long long)(rec->ts_mono_ns % 1000000000ULL / 1000));
	if (opts->color)
		fputs(SGR_RESET, out);

	fprintf(out, " %s%-6s%s ", lc, level ? level : "?", lc_end);

	if (kpc_text_bracketed(rec)) {
		if (opts->color)
			fputs(SGR_SUBSYSTEM, out);
		kpc_text_origin(out, opts, rec);
		if (opts->color)
			fputs(SGR_RESET, out);
		fputc(' ', out);
	} else if (*rec->subsystem) {
		if (opts->color)
			fputs(SGR_SUBSYSTEM, out);
		kpc_text_escape(out, rec->subsystem, opts->utf8);
		if (opts->color)
			fputs(SGR_RESET, out);
		fputs(": ", out);
	}

	fputs(lc, out);
	kpc_text_escape_line(out, rec->text, kpc_record_text_len(rec), opts->utf8);
	fputs(lc_end, out);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

/* The line of `kprint stats` that shows the counter attr, NULL for its own. */
static const struct kpc_stats_line *kpc_stats_line_of(int attr)
{
	unsigned int i;

	for (i = 0; i < kpc_stats_nlines; i++)
		if (kpc_stats_lines[i].members & (1u << attr))
			return &kpc_stats_lines[i];
	return NULL;
}

/*
 * Each counter on a line of its own, then the lines that show several
 * together (both tables generated from the spec).  A counter the kernel did
 * not send shows as "-", and so does a line that misses one of its own: a
 * kprint.ko without the bridge, or one that sends only some.
 */
int kpc_text_stats(FILE *out, const struct kpc_stats *st)
{
	unsigned int i;

	for (i = 0; i < kpc_stats_nfields; i++) {
		const struct kpc_stats_field *f = &kpc_stats_fields[i];

		if (kpc_stats_line_of(f->attr))
			continue;
		if (st->present & (1u << f->attr))
			fprintf(out, "%-14s %20" PRIu64 "\n", f->name, kpc_stats_value(st, f));
		else
			fprintf(out, "%-14s %20s\n", f->name, "-");
	}
	for (i = 0; i < kpc_stats_nlines; i++) {
		const struct kpc_stats_line *line = &kpc_stats_lines[i];

		if ((st->present & line->members) != line->members) {
			fprintf(out, "%-14s %20s\n", line->name, "-");
			continue;
		}
		fprintf(out, "%-14s ", line->name);
		line->print(out, st);
	}
	return ferror(out) ? -EIO : 0;
}
