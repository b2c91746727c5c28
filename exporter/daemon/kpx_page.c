// SPDX-License-Identifier: GPL-2.0
/*
 * The web page at /: the files of daemon/web/ compiled in (embed.sh), the
 * index's placeholders filled in once at start, an ETag per file, and the
 * per-level palette as CSS.
 *
 * The palette takes the CLI's color specs (kpc_color_parse(): words such
 * as "bold,red", or a VGA attribute byte as in the 2007 colored-printk
 * patch, "0x0c"), so `kprint monitor --level-color` and the page agree on
 * what a spec means.  Words map to a terminal palette tuned for the page's
 * dark background; a VGA byte maps to the VGA text-mode colors themselves,
 * the highlight bit (0x08) selecting the bright half as the console did,
 * rather than to bold as on a terminal.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprint_fnv1a.h"
#include "kpx_page.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The page when no files are built in (the fuzzers); %s: telemetry, twice. */
static const char kpx_links_fmt[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
	"<title>kprint exporter</title></head><body>\n"
	"<h1>kprint exporter " KPRINT_VERSION "</h1>\n<ul>\n"
	"<li><a href=\"%s\">%s</a>: Prometheus metrics</li>\n"
	"<li><a href=\"/records\">/records</a>: recent records as JSON "
	"(level, class, source, subsystem, device, module, format_id, q, after, limit)</li>\n"
	"<li><a href=\"/formats\">/formats</a>: messages per format (BPF) as JSON</li>\n"
	"<li><a href=\"/events\">/events</a>: records live as Server-Sent Events "
	"(the filters of /records; Last-Event-ID or after=ID resumes)</li>\n"
	"<li><a href=\"/healthz\">/healthz</a></li>\n</ul>\n</body></html>\n";

/* dmesg --color's spirit, as kpc_text_init() has it, in words. */
static const char *const kpx_default_colors[KPRINT_LEVEL_MAX + 1] = {
	"bold,reverse,red", "reverse,red", "bold,red", "red", "yellow",
	"default", "default", "dim",
};

/* The words' colors, ANSI order, normal then bright: legible on #0d1117. */
static const char *const kpx_ansi_rgb[16] = {
	"#484f58", "#f47067", "#57ab5a", "#c69026", "#539bf5", "#b083f0", "#39c5cf", "#c5d1de",
	"#768390", "#ff938a", "#6bc46d", "#daaa3f", "#6cb6ff", "#dcbdfb", "#56d4dd", "#ffffff",
};

/* The VGA text-mode palette, by VGA index (0x08: the highlighted half). */
static const char *const kpx_vga_rgb[16] = {
	"#000000", "#0000aa", "#00aa00", "#00aaaa", "#aa0000", "#aa00aa", "#aa5500", "#aaaaaa",
	"#555555", "#5555ff", "#55ff55", "#55ffff", "#ff5555", "#ff55ff", "#ffff55", "#ffffff",
};

/* What a spec asks for, whichever way it was written. */
struct kpx_style {
	const char *fg, *bg;		/* NULL: the tail's own */
	bool bold, dim, italic, underline, blink, reverse;
};

void kpx_page_etag(const void *body, size_t len, char etag[24])
{
	snprintf(etag, 24, "\"%016llx\"", kprint_fnv1a64_mem(body, len));
}

static int kpx_level_of(const char *name, size_t len)
{
	char buf[16];

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return kpc_level_parse(buf);
}

int kpx_page_level_color(const char **level_color, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	char sgr[KPC_COLOR_MAX];
	int level;

	if (!eq)
		return -EINVAL;
	level = kpx_level_of(assignment, eq - assignment);
	if (level < 0 || kpc_color_parse(eq + 1, sgr, sizeof(sgr)))
		return -EINVAL;
	level_color[level] = eq + 1;
	return 0;
}

/* A spec already accepted by kpc_color_parse() into a style. */
static void kpx_style_of(const char *spec, struct kpx_style *st)
{
	char sgr[KPC_COLOR_MAX], *s, *end;
	unsigned long attr, code;

	memset(st, 0, sizeof(*st));
	if (spec[0] == '0' && (spec[1] == 'x' || spec[1] == 'X')) {
		attr = strtoul(spec + 2, NULL, 16);
		st->fg = kpx_vga_rgb[attr & 0x0f];
		/* Black behind is the console's own background: leave the page's. */
		st->bg = attr & 0x70 ? kpx_vga_rgb[(attr >> 4) & 0x07] : NULL;
		st->blink = attr & 0x80;
		return;
	}
	if (kpc_color_parse(spec, sgr, sizeof(sgr)) || !sgr[0])
		return;
	/* "\e[1;31m": the codes between '[' and 'm'. */
	for (s = sgr + 2; *s && *s != 'm'; s = *end ? end + 1 : end) {
		code = strtoul(s, &end, 10);
		switch (code) {
		case 1: st->bold = true; break;
		case 2: st->dim = true; break;
		case 3: st->italic = true; break;
		case 4: st->underline = true; break;
		case 5: st->blink = true; break;
		case 7: st->reverse = true; break;
		default:
			if (code >= 30 && code <= 37)
				st->fg = kpx_ansi_rgb[code - 30];
			else if (code >= 90 && code <= 97)
				st->fg = kpx_ansi_rgb[code - 90 + 8];
			else if (code >= 40 && code <= 47)
				st->bg = kpx_ansi_rgb[code - 40];
			else if (code >= 100 && code <= 107)
				st->bg = kpx_ansi_rgb[code - 100 + 8];
		}
	}
}

static void kpx_style_css(FILE *f, const char *level, const struct kpx_style *st)
{
	const char *fg = st->fg ? st->fg : "var(--tail-fg)";
	const char *bg = st->bg ? st->bg : NULL;

	/* .c: the cells a level colors (its name and text), .bar: the chart's. */
	fprintf(f, ".lv-%s .c, .lv-%s.bar {", level, level);
	if (st->reverse) {
		fprintf(f, " color: %s; background-color: %s;", bg ? bg : "var(--tail-bg)", fg);
	} else {
		if (st->fg)
			fprintf(f, " color: %s;", fg);
		if (bg)
			fprintf(f, " background-color: %s;", bg);
	}
	if (st->bold)
		fputs(" font-weight: bold;", f);
	if (st->dim)
		fputs(" opacity: 0.65;", f);
	if (st->italic)
		fputs(" font-style: italic;", f);
	if (st->underline)
		fputs(" text-decoration: underline;", f);
	if (st->blink)
		fputs(" animation: kpx-blink 1s steps(1) infinite;", f);
	fputs(" }\n", f);
}

char *kpx_page_palette(const struct kpx_page *p, const char *const *colors,
		       unsigned int n, char *err, size_t errlen, int *errp)
{
	const char *spec[KPRINT_LEVEL_MAX + 1];
	char sgr[KPC_COLOR_MAX], *css = NULL;
	struct kpx_style st;
	size_t len;
	unsigned int i;
	int level;
	FILE *f;

	for (i = 0; i <= KPRINT_LEVEL_MAX; i++)
		spec[i] = p->level_color[i] ? p->level_color[i] : kpx_default_colors[i];
	for (i = 0; i < n; i++) {
		const char *eq = strchr(colors[i], '=');

		level = eq ? kpx_level_of(colors[i], eq - colors[i]) : -EINVAL;
		if (level < 0 || kpc_color_parse(eq + 1, sgr, sizeof(sgr))) {
			snprintf(err, errlen, "color is LEVEL=SPEC: words (bold,red) or a VGA"
				 " attribute byte (0x0c), as kprint --level-color");
			*errp = -EINVAL;
			return NULL;
		}
		spec[level] = eq + 1;
	}
	*errp = -ENOMEM;
	f = open_memstream(&css, &len);
	if (!f)
		return NULL;
	fputs("/* SPDX-License-Identifier: GPL-2.0 */\n"
	      "/* kprint_exporter: the level colors (--web.level-color, ?color=). */\n", f);
	for (i = 0; i <= KPRINT_LEVEL_MAX; i++) {
		kpx_style_of(spec[i], &st);
		kpx_style_css(f, kpc_level_name(i), &st);
	}
	if (fclose(f)) {
		free(css);
		return NULL;
	}
	*errp = 0;
	return css;
}

bool kpx_page_param(const char *name)
{
	static const char *const known[] = {
		"level", "source", "subsystem", "module", "format_id", "text", "color", "lang",
	};

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(name, known[i]))
			return true;
	return false;
}

bool kpx_page_path(const char *url)
{
	return !strcmp(url, "/") || !strncmp(url, "/ui/", 4) || !strcmp(url, "/ui");
}

/* s with &, <, > and " as entities: the telemetry path goes into an attribute. */
static void kpx_html_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* The index with @@TELEMETRY@@ and @@VERSION@@ filled in. */
static char *kpx_page_index(const struct kpx_asset *a, const char *telemetry, size_t *len)
{
	static const char tel[] = "@@TELEMETRY@@", ver[] = "@@VERSION@@";
	const char *s = (const char *)a->data, *end = s + a->len;
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	if (!f)
		return NULL;
	while (s < end) {
		const char *at = memchr(s, '@', end - s);

		if (!at) {
			fwrite(s, 1, end - s, f);
			break;
		}
		fwrite(s, 1, at - s, f);
		if ((size_t)(end - at) >= sizeof(tel) - 1 && !memcmp(at, tel, sizeof(tel) - 1)) {
			kpx_html_escape(f, telemetry);
			s = at + sizeof(tel) - 1;
		} else if ((size_t)(end - at) >= sizeof(ver) - 1 &&
			   !memcmp(at, ver, sizeof(ver) - 1)) {
			fputs(KPRINT_VERSION, f);
			s = at + sizeof(ver) - 1;
		} else {
			fputc('@', f);
			s = at + 1;
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

int kpx_page_build(struct kpx_page *p, const char *telemetry)
{
	const struct kpx_asset *a;
	struct kpx_page_file *pf;
	size_t len;

	kpx_page_free(p);
	if (!p->assets) {
		if (asprintf(&p->index, kpx_links_fmt, telemetry, telemetry) < 0) {
			p->index = NULL;
			return -ENOMEM;
		}
		pf = &p->files[p->nfiles++];
		pf->path = "/";
		pf->type = "text/html; charset=utf-8";
		pf->data = p->index;
		pf->len = strlen(p->index);
		kpx_page_etag(pf->data, pf->len, pf->etag);
		return 0;
	}
	for (a = p->assets; a->path && p->nfiles < KPX_PAGE_FILES; a++) {
		pf = &p->files[p->nfiles++];
		pf->path = a->path;
		pf->type = a->type;
		pf->data = (const char *)a->data;
		pf->len = a->len;
		if (!strcmp(a->path, "/")) {
			p->index = kpx_page_index(a, telemetry, &len);
			if (!p->index)
				return -ENOMEM;
			pf->data = p->index;
			pf->len = len;
		}
		kpx_page_etag(pf->data, pf->len, pf->etag);
	}
	return 0;
}

void kpx_page_free(struct kpx_page *p)
{
	free(p->index);
	p->index = NULL;
	p->nfiles = 0;
}

const struct kpx_page_file *kpx_page_file(const struct kpx_page *p, const char *url)
{
	for (unsigned int i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i].path, url))
			return &p->files[i];
	return NULL;
}
