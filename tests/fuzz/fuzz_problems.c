// SPDX-License-Identifier: GPL-2.0
/*
 * The problem catalog: kpc_problems_load() (libyaml and every check
 * behind it), kpc_problem_match() and kpc_json_problem_hit() over the
 * formats a loaded catalog names, and kpc_format_matches().
 *
 * Input, by its first byte:
 *  - even: the rest is a problems.yaml, loaded from a memfd by its
 *    /proc/self/fd path.  Oracle: 0 with a catalog, or -EINVAL / -ENOMEM
 *    with none and a message that is NUL-terminated, starts with the path
 *    and, for -EINVAL, names a line of the input (1 .. lines + 1).  A
 *    loaded catalog's rules and formats are all reachable, each rule found
 *    by its name; a record of each format, its args cut from the input,
 *    goes through the matcher, and each hit has NUL-terminated values
 *    shorter than KPC_PROBLEM_VALUE_MAX, names from its rule, and JSON.
 *  - odd: the rest is "format\0text".  Oracle: a match has as many spans
 *    as the format has conversions, in order, inside the text and not
 *    overlapping, and the literal bytes between them are the format's.
 * No crash, UB, leak or hang anywhere.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kpc_json.h"
#include "kpc_problems.h"
#include "fuzz.h"

/*
 * Lines as libyaml may count them, at most: it breaks at \n, \r, NEL
 * (U+0085), LS and PS (U+2028, U+2029).  Each byte counted apart, "\r\n"
 * as two, so that this is never fewer.
 */
static size_t fuzz_lines(const uint8_t *buf, size_t len)
{
	size_t n = 1, i;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n' || buf[i] == '\r' ||
		     (buf[i] == 0xC2 && i + 1 < len && buf[i + 1] == 0x85) ||
		     (buf[i] == 0xE2 && i + 2 < len && buf[i + 1] == 0x80 &&
		      (buf[i + 2] == 0xA8 || buf[i + 2] == 0xA9));
	return n;
}

static void fuzz_check_error(int ret, const char *path, const char *err, size_t lines)
{
	size_t plen = strlen(path);
	unsigned long line;
	char *end;

	fuzz_assert(ret == -EINVAL || ret == -ENOMEM, "ret %d", ret);
	fuzz_assert(!strncmp(err, path, plen) && err[plen] == ':', "message '%s'", err);
	if (ret != -EINVAL)
		return;
	line = strtoul(err + plen + 1, &end, 10);
	fuzz_assert(*end == ':' && line >= 1 && line <= lines + 1, "line %lu of %zu: '%s'",
		    line, lines, err);
}

static void fuzz_hit(const struct kpc_problem_hit *h, const struct kpc_record *rec)
{
	const struct kpc_problem_rule *r = h->rule;
	struct json_object *obj;
	unsigned int i;

	fuzz_assert(h->nattrs <= r->nattrs, "%u attrs of %u", h->nattrs, r->nattrs);
	for (i = 0; i < r->nlabels; i++)
		fuzz_assert(memchr(h->labels[i], '\0', KPC_PROBLEM_VALUE_MAX), "label %u", i);
	for (i = 0; i < h->nattrs; i++) {
		unsigned int j;

		fuzz_assert(memchr(h->attrs[i], '\0', KPC_PROBLEM_VALUE_MAX), "attr %u", i);
		for (j = 0; j < r->nattrs && h->attr_names[i] != r->attrs[j]; j++)
			;
		fuzz_assert(j < r->nattrs, "attr name %u is not the rule's", i);
	}
	obj = kpc_json_problem_hit(h, rec);
	fuzz_assert(obj, "the hit as JSON");
	json_object_put(obj);
}

/* A record of each format, args cut from data; every record matched. */
static void fuzz_match(const struct kpc_problems *p, const uint8_t *data, size_t size)
{
	struct kpc_problem_matcher *m = kpc_problem_matcher_new(p);
	struct kpc_problem_hit hits[KPC_PROBLEM_HITS_MAX];
	char args[KPRINT_ARGS_MAX][64];
	struct kpc_record rec;
	unsigned int i, a;
	size_t at = 0;
	int n;

	fuzz_assert(m, "a matcher");
	for (i = 0; i < kpc_problems_nformats(p); i++) {
		const struct kpc_problem_format *f = kpc_problems_format(p, i);

		memset(&rec, 0, sizeof(rec));
		rec.seq = i + 1;
		rec.format = f->format;
		rec.format_id = f->format_id;
		rec.text = rec.comm = rec.device = rec.module = rec.subsystem = rec.function = "";
		rec.file = "";
		rec.flags = i & 1 ? KPRINT_RECORD_F_CONT : 0;
		rec.continues = i & 1 ? i : 0;
		rec.nargs = size ? data[at++ % size] % KPRINT_ARGS_MAX : 0;
		for (a = 0; a < rec.nargs; a++) {
			size_t len = size ? data[at++ % size] % sizeof(args[a]) : 0, k;

			for (k = 0; k < len; k++)
				args[a][k] = data[at++ % size];
			rec.args[a] = args[a];
			rec.arg_len[a] = len;
			if (!len)
				rec.args[a] = "";
		}
		n = kpc_problem_match(m, &rec, hits, KPC_PROBLEM_HITS_MAX);
		fuzz_assert(n >= 0 && n <= KPC_PROBLEM_HITS_MAX, "n %d", n);
		while (n--)
			fuzz_hit(&hits[n], &rec);
	}
	kpc_problem_matcher_free(m);
}

static void fuzz_catalog(const uint8_t *data, size_t size)
{
	struct kpc_problems *p = NULL;
	char path[64], err[512];
	unsigned int i;
	int fd, ret;

	fd = memfd_create("fuzz.yaml", 0);
	fuzz_assert(fd >= 0, "memfd");
	fuzz_assert(write(fd, data, size) == (ssize_t)size, "write");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(err, 'x', sizeof(err));
	ret = kpc_problems_load(path, &p, err, sizeof(err));
	close(fd);
	fuzz_assert(memchr(err, '\0', sizeof(err)), "message not terminated");
	if (ret) {
		fuzz_assert(!p, "a refused catalog is no catalog");
		fuzz_check_error(ret, path, err, fuzz_lines(data, size));
		return;
	}
	fuzz_assert(p, "a catalog");
	for (i = 0; i < kpc_problems_count(p); i++) {
		const struct kpc_problem_rule *r = kpc_problems_rule(p, i);

		fuzz_assert(r && r->index == i && kpc_problems_find(p, r->name) == r,
			    "rule %u", i);
		fuzz_assert(strlen(r->message_id) == 32, "message-id");
	}
	for (i = 0; i < kpc_problems_nformats(p); i++) {
		const struct kpc_problem_format *f = kpc_problems_format(p, i);

		fuzz_assert(f && f->rule && f->format_id == kpc_format_id(f->format), "format %u", i);
	}
	fuzz_match(p, data, size);
	kpc_problems_free(p);
}

static void fuzz_format(const char *buf, size_t size)
{
	const char *spans[KPRINT_ARGS_MAX], *nul = memchr(buf, '\0', size), *text;
	size_t lens[KPRINT_ARGS_MAX], text_len, end = 0;
	unsigned int n = KPRINT_ARGS_MAX, i;

	if (!nul)
		return;
	text = nul + 1;
	text_len = size - (text - buf);
	if (!kpc_format_matches(buf, text, text_len, spans, lens, &n))
		return;
	fuzz_assert(n <= KPRINT_ARGS_MAX, "n %u", n);
	for (i = 0; i < n; i++) {
		fuzz_assert(spans[i] >= text + end && spans[i] + lens[i] <= text + text_len,
			    "span %u out of order or outside the text", i);
		end = spans[i] + lens[i] - text;
	}
	if (!n)
		fuzz_assert(!strchr(buf, '%') ? text_len == strlen(buf) &&
			    !memcmp(text, buf, text_len) : true, "a literal format is its text");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;

	if (!size)
		return 0;
	if (!(data[0] & 1)) {
		fuzz_catalog(data + 1, size - 1);
		return 0;
	}
	/* A copy of its own, so that ASan sees a read past the end. */
	copy = malloc(size - 1 ? size - 1 : 1);
	fuzz_assert(copy, "malloc");
	memcpy(copy, data + 1, size - 1);
	fuzz_format(copy, size - 1);
	free(copy);
	return 0;
}
