// SPDX-License-Identifier: GPL-2.0
/*
 * The escapers, each with a round-trip oracle, on the input as a C string
 * (record strings are NUL-terminated, so bytes past a NUL never reach
 * them).
 *
 * The reference for "made valid UTF-8" is written here from Unicode 15,
 * 3.9 (each maximal ill-formed subpart becomes one U+FFFD), independently
 * of kpc_utf8.c:
 *  - kpc_utf8_next(): every step agrees with the Unicode tables (a valid
 *    sequence has its code point and length; an invalid one is a maximal
 *    subpart); kpc_utf8_sanitize() equals the reference and is the
 *    identity on valid UTF-8.
 *  - kpc_json_string(): the JSON text (as kpc_json_print() and /records
 *    write it) is valid UTF-8 with no raw control byte, and json-c in
 *    strict, UTF-8-validating mode parses it back to exactly the
 *    sanitized input.
 *  - kpx_label_escape(): the output is valid UTF-8, has no raw newline or
 *    unescaped '"', and its only escapes are \\, \" and \n; unescaping it
 *    per the Prometheus text exposition format gives back exactly the
 *    sanitized input.
 *  - kpc_text_escape(): kpc_text.h documents a reversible form (\\ for a
 *    backslash, \xNN for a byte); unescaping gives back the input byte
 *    for byte.  Without UTF-8 the output is printable ASCII only; with
 *    UTF-8 it is valid UTF-8 without C0, DEL or C1 controls.  Printable
 *    ASCII is never escaped.
 * No crash, UB or leak anywhere.
 */
#include <stdint.h>
#include <string.h>

#include "kpx_metrics.h"
#include "fuzz.h"

/* Can these k bytes begin a well-formed sequence? (Table 3-7 again.) */
static bool utf8_prefix_ok(const unsigned char *s, size_t k)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len, i;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4;
	else
		return false;
	if (k >= len)
		return false;
	if (s[0] == 0xE0)
		lo = 0xA0;
	else if (s[0] == 0xED)
		hi = 0x9F;
	else if (s[0] == 0xF0)
		lo = 0x90;
	else if (s[0] == 0xF4)
		hi = 0x8F;
	if (k >= 2 && (s[1] < lo || s[1] > hi))
		return false;
	for (i = 2; i < k; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return false;
	return true;
}

/* The reference sanitizer: valid sequences copied, maximal subparts U+FFFD. */
static char *ref_sanitize(const char *in, size_t n)
{
	const unsigned char *s = (const unsigned char *)in;
	char *out = malloc(3 * n + 1);
	size_t i = 0, o = 0, len;
	unsigned int cp;

	while (i < n) {
		len = fuzz_utf8_seq(s + i, n - i, &cp);
		if (len) {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
			continue;
		}
		for (len = 1; i + len < n && utf8_prefix_ok(s + i, len + 1); len++)
			;
		memcpy(out + o, "\xEF\xBF\xBD", 3);
		o += 3;
		i += len;
	}
	out[o] = '\0';
	return out;
}

static void check_utf8(const char *in, size_t n, const char *ref)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, len, rlen;
	unsigned int rcp;
	uint32_t cp;
	char *out;

	while (i < n) {
		len = kpc_utf8_next(s + i, n - i, &cp);
		fuzz_assert(len >= 1 && len <= n - i, "length %zu at %zu", len, i);
		rlen = fuzz_utf8_seq(s + i, n - i, &rcp);
		if (cp != KPC_UTF8_INVALID) {
			fuzz_assert(rlen == len && rcp == cp,
				    "at %zu: U+%04X in %zu bytes, want %zu bytes",
				    i, cp, len, rlen);
		} else {
			fuzz_assert(!rlen, "at %zu: valid U+%04X called invalid", i, rcp);
			/* Maximal: a prefix of something valid, one more byte is not. */
			fuzz_assert(len == 1 || utf8_prefix_ok(s + i, len),
				    "at %zu: %zu bytes are no subpart", i, len);
			fuzz_assert(i + len == n || !utf8_prefix_ok(s + i, len + 1),
				    "at %zu: %zu bytes are not maximal", i, len);
		}
		i += len;
	}

	out = kpc_utf8_sanitize(in);
	fuzz_assert(out && !strcmp(out, ref), "kpc_utf8_sanitize differs");
	if (fuzz_utf8_valid(in, n))
		fuzz_assert(!strcmp(out, in), "valid UTF-8 was changed");
	free(out);
}

static void check_json(const char *in, const char *ref)
{
	struct json_object *o = kpc_json_string(in), *back;
	struct json_tokener *tok;
	const char *js;
	size_t i, len;

	fuzz_assert(o, "kpc_json_string failed");
	js = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(js);
	fuzz_assert(fuzz_utf8_valid(js, len), "JSON is not UTF-8");
	for (i = 0; i < len; i++)
		fuzz_assert((unsigned char)js[i] >= 0x20, "raw control byte in JSON");

	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, js, len);
	fuzz_assert(back && json_tokener_get_error(tok) == json_tokener_success &&
		    json_object_is_type(back, json_type_string),
		    "json-c does not parse back %s", js);
	fuzz_assert((size_t)json_object_get_string_len(back) == strlen(ref) &&
		    !memcmp(json_object_get_string(back), ref, strlen(ref)),
		    "JSON round trip differs: %s", js);
	json_object_put(back);
	json_tokener_free(tok);
	json_object_put(o);
}

/* Run an escaper into memory; the result is NUL-terminated. */
static char *capture(void (*fn)(FILE *, const char *, bool), const char *s,
		     bool utf8, size_t *len)
{
	char *buf = NULL;
	FILE *f;

	f = open_memstream(&buf, len);
	fuzz_assert(f, "open_memstream");
	fn(f, s, utf8);
	fclose(f);
	return buf;
}

static void label_escape(FILE *f, const char *s, bool utf8)
{
	(void)utf8;
	kpx_label_escape(f, s);
}

static void check_label(const char *in, const char *ref)
{
	size_t len, i, o = 0;
	char *esc, *un;

	esc = capture(label_escape, in, false, &len);
	fuzz_assert(strlen(esc) == len, "NUL in label value");
	fuzz_assert(fuzz_utf8_valid(esc, len), "label value is not UTF-8");

	un = malloc(len + 1);
	for (i = 0; i < len; i++) {
		fuzz_assert(esc[i] != '\n', "raw newline in label value");
		fuzz_assert(esc[i] != '"', "unescaped quote in label value");
		if (esc[i] != '\\') {
			un[o++] = esc[i];
			continue;
		}
		fuzz_assert(i + 1 < len, "label value ends in a backslash");
		i++;
		if (esc[i] == '\\' || esc[i] == '"')
			un[o++] = esc[i];
		else if (esc[i] == 'n')
			un[o++] = '\n';
		else
			fuzz_assert(0, "escape \\%c in label value", esc[i]);
	}
	un[o] = '\0';
	fuzz_assert(!strcmp(un, ref), "label round trip differs");
	free(un);
	free(esc);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void check_text(const char *in, bool utf8)
{
	size_t len, i, o = 0;
	unsigned int cp;
	char *esc, *un;

	esc = capture(kpc_text_escape, in, utf8, &len);
	fuzz_assert(strlen(esc) == len, "NUL in escaped text");

	/* What reaches the terminal. */
	if (!utf8) {
		for (i = 0; i < len; i++)
			fuzz_assert(esc[i] >= 0x20 && esc[i] < 0x7F,
				    "byte 0x%02x reaches an ASCII terminal",
				    (unsigned char)esc[i]);
	} else {
		for (i = 0; i < len; i += fuzz_utf8_seq((unsigned char *)esc + i,
							len - i, &cp)) {
			fuzz_assert(fuzz_utf8_seq((unsigned char *)esc + i, len - i, &cp),
				    "ill-formed UTF-8 reaches the terminal");
			fuzz_assert(cp >= 0x20 && cp != 0x7F && (cp < 0x80 || cp >= 0xA0),
				    "control U+%04X reaches the terminal", cp);
		}
	}

	/* The reversible form of kpc_text.h. */
	un = malloc(len + 1);
	for (i = 0; i < len; i++) {
		int h, l;

		if (esc[i] != '\\') {
			un[o++] = esc[i];
			continue;
		}
		fuzz_assert(i + 1 < len, "text ends in a backslash");
		if (esc[i + 1] == '\\') {
			un[o++] = '\\';
			i++;
			continue;
		}
		fuzz_assert(esc[i + 1] == 'x' && i + 3 < len &&
			    (h = hexval(esc[i + 2])) >= 0 &&
			    (l = hexval(esc[i + 3])) >= 0,
			    "bad escape at %zu", i);
		un[o] = (char)(h << 4 | l);
		fuzz_assert((unsigned char)un[o] < 0x20 ||
			    (unsigned char)un[o] >= 0x7F,
			    "printable 0x%02x was escaped", (unsigned char)un[o]);
		o++;
		i += 3;
	}
	un[o] = '\0';
	fuzz_assert(o == strlen(in) && !memcmp(un, in, o),
		    "text round trip differs (utf8 %d)", utf8);
	free(un);
	free(esc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = strndup((const char *)data, size);
	size_t n = strlen(in);
	char *ref = ref_sanitize(in, n);

	check_utf8(in, n, ref);
	check_json(in, ref);
	check_label(in, ref);
	check_text(in, false);
	check_text(in, true);
	free(ref);
	free(in);
	return 0;
}
