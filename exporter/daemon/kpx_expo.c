// SPDX-License-Identifier: GPL-2.0
/*
 * What every writer of a /metrics family uses, in either exposition
 * format: a family's HELP and TYPE, its samples, label values escaped.
 * Kept apart from the page's writer (kpx_metrics.c) so that the families
 * written elsewhere (kpx_journal.c) need nothing of it.
 */
#include <inttypes.h>
#include <string.h>

#include "kpc.h"
#include "kpx_expo.h"

/*
 * A family's HELP and TYPE lines; its samples follow right after.  In
 * OpenMetrics a counter family is named without the _total its samples
 * carry (the spec's "counter" type: samples NAME_total).
 */
void kpx_expo_head(struct kpx_expo *e, const struct kpx_metric_def *d)
{
	size_t len = strlen(d->name);

	if (e->format == KPX_EXPO_OPENMETRICS && !strcmp(d->type, "counter") &&
	    len > 6 && !strcmp(d->name + len - 6, "_total"))
		len -= 6;
	fprintf(e->out, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, d->name, d->help,
		(int)len, d->name, d->type);
}

void kpx_expo_metric_head(struct kpx_expo *e, enum kpx_metric m)
{
	kpx_expo_head(e, &kpx_metric_defs[m]);
}

/* A sample without labels. */
void kpx_expo_sample(FILE *out, enum kpx_metric m, uint64_t v)
{
	fprintf(out, "%s %" PRIu64 "\n", kpx_metric_name(m), v);
}

/* A family of one sample without labels: HELP, TYPE and the sample. */
void kpx_expo_single(struct kpx_expo *e, enum kpx_metric m, uint64_t v)
{
	kpx_expo_metric_head(e, m);
	kpx_expo_sample(e->out, m, v);
}

/* A sample with one label. */
void kpx_expo_sample1(FILE *out, enum kpx_metric m, const char *label,
		      const char *value, uint64_t v)
{
	fprintf(out, "%s{%s=\"%s\"} %" PRIu64 "\n", kpx_metric_name(m), label, value, v);
}

void kpx_label_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n) {
		uint32_t cp;
		size_t len = kpc_utf8_next(p, n, &cp);

		if (cp == KPC_UTF8_INVALID)
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
		else if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fwrite(p, 1, len, out);
		p += len;
		n -= len;
	}
}
