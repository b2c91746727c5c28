// SPDX-License-Identifier: GPL-2.0
/*
 * Which exposition of /metrics a scraper gets: the Prometheus text format
 * 0.0.4 or OpenMetrics 1.0.0, from its Accept header.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "kpx_metrics.h"

/* One media range of an Accept header, "type/subtype;param=value;...". */
struct kpx_media_range {
	const char *type;
	size_t type_len;
	const char *version;		/* the version= parameter, or NULL */
	size_t version_len;
	double q;
};

static bool kpx_token_is(const char *s, size_t len, const char *want)
{
	return len == strlen(want) && !strncasecmp(s, want, len);
}

/*
 * RFC 9110's qvalue, "0" or "1" with at most three decimals ("0.75",
 * "1.000"), in thousandths so that no float parsing takes "0x1" or "1e0".
 */
static int kpx_qvalue_parse(const char *s, const char *end, double *q)
{
	unsigned int thousandths = 0, digits = 0;

	if (s == end || (*s != '0' && *s != '1'))
		return -EINVAL;
	thousandths = (*s++ - '0') * 1000;
	if (s < end && *s++ != '.')
		return -EINVAL;
	for (; s < end; s++, digits++) {
		if (*s < '0' || *s > '9' || digits == 3)
			return -EINVAL;
		thousandths += (*s - '0') * (digits == 0 ? 100 : digits == 1 ? 10 : 1);
	}
	if (thousandths > 1000)
		return -EINVAL;
	*q = thousandths / 1000.0;
	return 0;
}

/* [s, end) without the spaces and tabs around it. */
static void kpx_trim(const char **s, const char **end)
{
	while (*s < *end && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*end > *s && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
		(*end)--;
}

/* One range of [s, end); false for one that does not parse, which is then ignored. */
static bool kpx_media_range_parse(const char *s, const char *end, struct kpx_media_range *r)
{
	const char *semi = memchr(s, ';', end - s);
	const char *type_end = semi ? semi : end;
	const char *slash;

	r->version = NULL;
	r->q = 1.0;
	kpx_trim(&s, &type_end);
	slash = memchr(s, '/', type_end - s);
	if (!slash || slash == s || slash + 1 == type_end)
		return false;
	r->type = s;
	r->type_len = type_end - s;
	while (semi) {
		const char *p = semi + 1, *eq, *p_end;

		semi = memchr(p, ';', end - p);
		p_end = semi ? semi : end;
		kpx_trim(&p, &p_end);
		eq = memchr(p, '=', p_end - p);
		if (!eq)
			return false;
		if (kpx_token_is(p, eq - p, "q")) {
			if (kpx_qvalue_parse(eq + 1, p_end, &r->q))
				return false;
		} else if (kpx_token_is(p, eq - p, "version")) {
			r->version = eq + 1;
			r->version_len = p_end - eq - 1;
		}
	}
	return true;
}

/*
 * Which exposition an Accept header asks for: OpenMetrics when a range
 * naming it (any version we can answer with 1.0.0: Prometheus 2.42 sends
 * 1.0.0 and 0.0.1) has a higher q than every range the text format
 * matches (text/plain of version 0.0.4 or none, and the wildcards for any
 * text and any type); the text format otherwise.  The text format too for
 * no header and for ranges that do not parse, which are ignored: as with
 * client_golang, a scraper always gets metrics rather than a 406 or 400.
 */
enum kpx_expo_format kpx_metrics_negotiate(const char *accept)
{
	double q_om = 0, q_text = 0;
	const char *s = accept, *end;

	while (s && *s) {
		struct kpx_media_range r;

		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		if (kpx_media_range_parse(s, end, &r)) {
			bool any_version = !r.version;

			if (kpx_token_is(r.type, r.type_len, "application/openmetrics-text") &&
			    (any_version || kpx_token_is(r.version, r.version_len, "1.0.0") ||
			     kpx_token_is(r.version, r.version_len, "0.0.1")))
				q_om = r.q > q_om ? r.q : q_om;
			else if ((kpx_token_is(r.type, r.type_len, "text/plain") &&
				  (any_version || kpx_token_is(r.version, r.version_len, "0.0.4"))) ||
				 kpx_token_is(r.type, r.type_len, "text/*") ||
				 kpx_token_is(r.type, r.type_len, "*/*"))
				q_text = r.q > q_text ? r.q : q_text;
		}
		s = *end ? end + 1 : end;
	}
	return q_om > 0 && q_om > q_text ? KPX_EXPO_OPENMETRICS : KPX_EXPO_TEXT;
}

const char *kpx_metrics_content_type(enum kpx_expo_format format)
{
	return format == KPX_EXPO_OPENMETRICS ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8";
}
