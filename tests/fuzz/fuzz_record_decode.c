// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink record decoder, kpc_record_decode_msg() and the
 * kpc_record_decode() it calls per KPRINT_A_RECORD nest, fed arbitrary
 * bytes: what a kernel (or, before the sender check, anyone) could send.
 *
 * Input: one flags byte, then the bytes.
 *   flags & 1	the bytes are a whole datagram, walked with nlmsg_ok() /
 *		nlmsg_next() as libnl walks what recvmsg() returned; else
 *		they are the attributes after a valid nlmsghdr + genlmsghdr
 *   flags & 2	the callback stops the walk at the first record
 *   flags & 4	through kpc_record_decode_msg_into(), whose memory is
 *		kept for one record in two and given back for the other
 *   flags & 8	and its memory runs out at every third record
 * The message lives in a buffer of exactly its size, so ASan sees any
 * read past it.
 *
 * Oracle: no crash, UB or leak, and every record handed to the callback
 * keeps kpc_record.h's promises: level, class and source inside the UAPI
 * enums,
 * at most KPRINT_ARGS_MAX args, every string non-NULL, inside the message
 * (or the empty literal), NUL-terminated there, within its UAPI limit and
 * exactly as long as its attribute (no NUL inside, but in the text and
 * args, whose lengths say how long they are).  The return value is
 * the number of records passed on, or the callback's error, and -EBADMSG
 * only for a message too short for a genl header.  Each record then goes
 * through what readers do with it: kpc_record_dup() must copy it exactly,
 * kpc_json_record_print() must give one line of strict UTF-8 JSON that
 * json-c parses back,
 * and kpc_text_print() without colors one line free of control bytes.
 * Decoded into the reader's memory, a record keeps the same promises
 * with its strings in that memory instead, and every piece of memory
 * given is kept or given back (LeakSanitizer sees any that is neither).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "kpc.h"
#include "fuzz.h"

#define STOP_ERR	(-EINTR)

struct walk {
	const char *lo, *hi;		/* the message's bytes */
	unsigned int n;			/* records seen by the callback */
	bool stop;
	bool into, starve;		/* flags & 4, flags & 8 */
	unsigned int allocs;
	void *given;			/* the memory alloc() gave last */
};

static void *into_alloc(size_t size, void *ctx)
{
	struct walk *w = ctx;

	if (w->starve && ++w->allocs % 3 == 0)
		return w->given = NULL;
	return w->given = malloc(size);
}

static void into_release(struct kpc_record *rec, void *ctx)
{
	struct walk *w = ctx;

	fuzz_assert(rec == w->given, "memory given back that alloc() did not give last");
	w->given = NULL;
	free(rec);
}

/* len: the record's length of s (strlen() for all but the text and args). */
static void check_string(const struct walk *w, const char *s, size_t len, size_t max,
			 const char *what)
{
	const struct nlattr *nla;

	fuzz_assert(s, "%s is NULL", what);
	if (s < w->lo || s >= w->hi) {
		/* Only the "" of an attribute the kernel left out. */
		fuzz_assert(!*s, "%s points outside the message", what);
		return;
	}
	fuzz_assert(len < (size_t)(w->hi - s) && !s[len], "%s runs past the message", what);
	fuzz_assert(len < max, "%s is %zu bytes, limit %zu", what, len, max);
	/* A length short of the attribute's end would hide bytes. */
	nla = (const struct nlattr *)(s - NLA_HDRLEN);
	fuzz_assert((const char *)nla >= w->lo, "%s has no attribute", what);
	fuzz_assert((size_t)nla_len(nla) == len + 1,
		    "%s is %zu bytes in a %d-byte attribute", what, len, nla_len(nla));
}

/* NUL bytes among the first n of s. */
static size_t count_nul(const char *s, size_t n)
{
	size_t i, nul = 0;

	for (i = 0; i < n; i++)
		nul += !s[i];
	return nul;
}

/* The copy has the same values and owns every string. */
static void check_dup(const struct kpc_record *rec)
{
	struct kpc_record *c = kpc_record_dup(rec);
	const char *a[8] = { rec->comm, rec->file, rec->function, rec->subsystem,
			     rec->module, rec->format, rec->text, rec->device };
	const char *b[8];
	unsigned int i;

	fuzz_assert(c, "kpc_record_dup() failed");
	b[0] = c->comm;
	b[1] = c->file;
	b[2] = c->function;
	b[3] = c->subsystem;
	b[4] = c->module;
	b[5] = c->format;
	b[6] = c->text;
	b[7] = c->device;
	fuzz_assert(c->seq == rec->seq && c->level == rec->level &&
		    c->class == rec->class && c->ts_mono_ns == rec->ts_mono_ns &&
		    c->ts_real_ns == rec->ts_real_ns && c->cpu == rec->cpu &&
		    c->pid == rec->pid && c->line == rec->line &&
		    c->format_id == rec->format_id && c->nargs == rec->nargs &&
		    c->block_id == rec->block_id && c->flags == rec->flags &&
		    c->source == rec->source && c->facility == rec->facility &&
		    c->continues == rec->continues,
		    "copy differs");
	for (i = 0; i < 8; i++)
		fuzz_assert(!strcmp(a[i], b[i]) && a[i] != b[i],
			    "copied string %u differs or is shared", i);
	fuzz_assert(kpc_record_text_len(c) == kpc_record_text_len(rec) &&
		    !memcmp(c->text, rec->text, kpc_record_text_len(rec) + 1),
		    "copied text differs after a NUL");
	for (i = 0; i < rec->nargs; i++)
		fuzz_assert(kpc_record_arg_len(c, i) == kpc_record_arg_len(rec, i) &&
			    !memcmp(rec->args[i], c->args[i], kpc_record_arg_len(rec, i) + 1) &&
			    rec->args[i] != c->args[i], "copied arg %u", i);
	kpc_record_free(c);
}

static void check_json(const struct kpc_record *rec)
{
	struct json_object *back, *seq, *text;
	struct json_tokener *tok;
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&s, &len);
	fuzz_assert(f, "open_memstream");
	fuzz_assert(!kpc_json_record_print(f, rec), "kpc_json_record_print() failed");
	fclose(f);
	fuzz_assert(len && s[len - 1] == '\n' && !memchr(s, '\n', len - 1),
		    "not one line: %s", s);
	len--;
	fuzz_assert(fuzz_utf8_valid(s, len), "JSON is not UTF-8: %s", s);

	tok = json_tokener_new();
	fuzz_assert(tok, "no tokener");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	back = json_tokener_parse_ex(tok, s, len);
	fuzz_assert(back && json_tokener_get_error(tok) == json_tokener_success &&
		    json_tokener_get_parse_end(tok) == len &&
		    json_object_is_type(back, json_type_object),
		    "json-c does not parse it back: %s", s);
	fuzz_assert(json_object_object_get_ex(back, "seq", &seq) &&
		    json_object_get_uint64(seq) == rec->seq, "seq lost: %s", s);
	/* Making the text valid UTF-8 neither adds nor drops a NUL. */
	fuzz_assert(json_object_object_get_ex(back, "text", &text) &&
		    count_nul(json_object_get_string(text), json_object_get_string_len(text)) ==
		    count_nul(rec->text, kpc_record_text_len(rec)), "a NUL of the text lost: %s", s);
	json_object_put(back);
	json_tokener_free(tok);
	free(s);
}

static void check_text(const struct kpc_record *rec)
{
	struct kpc_text_opts opts;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	kpc_text_init(&opts, false, true);
	f = open_memstream(&buf, &len);
	fuzz_assert(f, "open_memstream");
	fuzz_assert(!kpc_text_print(f, &opts, rec), "kpc_text_print failed");
	fclose(f);
	fuzz_assert(len && buf[len - 1] == '\n', "no line end");
	for (i = 0; i + 1 < len; i++)
		fuzz_assert((unsigned char)buf[i] >= 0x20 && buf[i] != 0x7F,
			    "control byte 0x%02x at %zu: %s", buf[i], i, buf);
	fuzz_assert(fuzz_utf8_valid(buf, len), "text is not UTF-8: %s", buf);
	free(buf);

	/* Colors and a non-UTF-8 terminal: the other branches, for crashes. */
	kpc_text_init(&opts, true, false);
	f = fopen("/dev/null", "w");
	fuzz_assert(f, "/dev/null");
	kpc_text_print(f, &opts, rec);
	fclose(f);
}

static int on_record(const struct kpc_record *rec, void *ctx)
{
	struct walk *w = ctx;
	const char *lo = w->lo, *hi = w->hi;
	bool own = w->into && rec == w->given;
	unsigned int i;
	int ret;

	fuzz_assert(rec, "NULL record");
	if (own) {
		/* Its strings are in its own copy of the attributes. */
		fuzz_assert(rec->raw == (const void *)(rec + 1), "a decoded-into record's raw");
		w->lo = rec->raw;
		w->hi = w->lo + rec->raw_len;
	}
	fuzz_assert(rec->level <= KPRINT_LEVEL_MAX && kpc_level_name(rec->level),
		    "level %u", rec->level);
	fuzz_assert(rec->class <= KPRINT_CLASS_MAX && kpc_class_name(rec->class),
		    "class %u", rec->class);
	fuzz_assert(rec->source <= KPRINT_SOURCE_MAX && kpc_source_name(rec->source),
		    "source %u", rec->source);
	fuzz_assert(rec->nargs <= KPRINT_ARGS_MAX, "%u args", rec->nargs);
#define CHECK_NAME(s, max) check_string(w, s, strlen(s), max, #s)
	CHECK_NAME(rec->device, KPRINT_DEVICE_MAX);
	CHECK_NAME(rec->comm, KPRINT_COMM_MAX);
	CHECK_NAME(rec->file, KPRINT_TAG_MAX);
	CHECK_NAME(rec->function, KPRINT_TAG_MAX);
	CHECK_NAME(rec->subsystem, KPRINT_TAG_MAX);
	CHECK_NAME(rec->module, KPRINT_TAG_MAX);
	CHECK_NAME(rec->format, KPRINT_FORMAT_MAX);
	/* The text and the args may hold a NUL: their lengths say how far. */
	fuzz_assert(rec->text_len == kpc_record_text_len(rec), "text_len unset");
	check_string(w, rec->text, rec->text_len, KPRINT_TEXT_MAX, "text");
	for (i = 0; i < rec->nargs; i++)
		check_string(w, rec->args[i], kpc_record_arg_len(rec, i), KPRINT_ARG_MAX, "arg");

	check_dup(rec);
	check_json(rec);
	check_text(rec);

	w->n++;
	w->lo = lo;
	w->hi = hi;
	ret = w->stop ? STOP_ERR : 0;
	if (own && !ret && w->n % 2) {
		w->given = NULL;
		kpc_record_free((struct kpc_record *)rec);
		return KPC_RECORD_KEPT;
	}
	return ret;
}

/* A malformed record's seq is reported at most once per record. */
static int on_bad_seq(uint64_t seq, void *ctx)
{
	(void)seq;
	(*(unsigned int *)ctx)++;
	return 0;
}

static void decode(struct nlmsghdr *nlh, struct walk *w)
{
	unsigned int before = w->n, named = 0;
	struct kpc_malformed bad = { .seq_fn = on_bad_seq, .ctx = &named };
	struct kpc_record_mem mem = { into_alloc, into_release, w };
	int ret;

	w->lo = (const char *)nlh;
	w->hi = (const char *)nlh + nlh->nlmsg_len;
	if (w->into)
		ret = kpc_record_decode_msg_into(nlh, on_record, w, &bad, &mem);
	else
		ret = kpc_record_decode_msg(nlh, on_record, w, &bad);
	fuzz_assert(!w->given, "memory neither kept nor given back");
	if (ret == -EBADMSG) {
		fuzz_assert(nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN,
			    "-EBADMSG for a %u-byte message", nlh->nlmsg_len);
		fuzz_assert(w->n == before && !bad.count, "records from a bad message");
		return;
	}
	if (w->stop && w->n > before) {
		fuzz_assert(ret == STOP_ERR && w->n == before + 1,
			    "the callback's error was not returned (%d)", ret);
		return;
	}
	fuzz_assert(ret >= 0 && (unsigned int)ret == w->n - before,
		    "returned %d for %u records", ret, w->n - before);
	/* At most one per attribute, plus the trailing bytes. */
	fuzz_assert(bad.count <= nlh->nlmsg_len / NLA_HDRLEN + 1,
		    "%u malformed in %u bytes", bad.count, nlh->nlmsg_len);
	fuzz_assert(named <= bad.count, "%u seqs named for %u malformed", named, bad.count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walk w = { 0 };
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	uint8_t flags;
	char *buf;
	int rem;

	if (!size)
		return 0;
	flags = data[0];
	data++;
	size--;
	w.stop = flags & 2;
	w.into = flags & 4;
	w.starve = flags & 8;

	if (flags & 1) {
		/* What recvmsg() returned: libnl trusts only nlmsg_ok(). */
		if (size > INT32_MAX)
			return 0;
		buf = malloc(size ? size : 1);
		memcpy(buf, data, size);
		rem = size;
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next(nlh, &rem)) {
			decode(nlh, &w);
			if (w.stop && w.n)
				break;
		}
		free(buf);
		return 0;
	}

	if (size > UINT32_MAX - NLMSG_HDRLEN - GENL_HDRLEN)
		return 0;
	buf = malloc(NLMSG_HDRLEN + GENL_HDRLEN + size);
	nlh = (struct nlmsghdr *)buf;
	memset(nlh, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + size;
	nlh->nlmsg_type = 0x2a;
	g = nlmsg_data(nlh);
	g->cmd = KPRINT_CMD_RECORD_NTF;
	g->version = KPRINT_GENL_VERSION;
	memcpy(buf + NLMSG_HDRLEN + GENL_HDRLEN, data, size);
	decode(nlh, &w);
	free(buf);
	return 0;
}
