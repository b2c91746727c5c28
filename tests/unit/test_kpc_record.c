// SPDX-License-Identifier: GPL-2.0
/*
 * Record decoding from netlink messages built with libnl the way the kernel
 * builds them: complete and batched ones decode, malformed ones are
 * rejected.  Also format ids (FNV-1a 64), names, kpc_record_dup() and
 * kpc_record_copy_with(), decoding into the reader's memory, and
 * that the decode tables generated from the spec agree with the UAPI.
 */
#include <errno.h>
#include <stdlib.h>

#include "kpc.h"
#include "test_kpc_tap.h"

#define MAX_SEEN	32

struct seen {
	unsigned int n;
	uint64_t seq[MAX_SEEN];
	struct kpc_record *copy[MAX_SEEN];
};

static int collect(const struct kpc_record *rec, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < MAX_SEEN) {
		s->seq[s->n] = rec->seq;
		s->copy[s->n] = kpc_record_dup(rec);
	}
	s->n++;
	return 0;
}

static void seen_free(struct seen *s)
{
	unsigned int i;

	for (i = 0; i < s->n && i < MAX_SEEN; i++)
		kpc_record_free(s->copy[i]);
	memset(s, 0, sizeof(*s));
}

/* Which parts of a minimal record to leave out or spoil. */
enum {
	NO_SEQ		= 1 << 0,
	NO_LEVEL	= 1 << 1,
	NO_FORMAT	= 1 << 2,
	NO_TEXT		= 1 << 3,
	SEQ_AS_U32	= 1 << 4,
	LEVEL_AS_U64	= 1 << 5,
	FORMAT_NO_NUL	= 1 << 6,
	TEXT_INNER_NUL	= 1 << 7,
	SEQ_TWICE	= 1 << 8,
	LEVEL_8		= 1 << 9,
	CLASS_5		= 1 << 10,
	UNKNOWN_ATTR	= 1 << 11,
	TRAILING_JUNK	= 1 << 12,
	TEXT_TOO_LONG	= 1 << 13,
	TEXT_AT_LIMIT	= 1 << 14,
	COMM_TOO_LONG	= 1 << 15,
	LINE_AS_U16	= 1 << 16,
	SOURCE_2	= 1 << 17,
	DEVICE_TOO_LONG	= 1 << 18,
	DEVICE_AT_LIMIT	= 1 << 19,
	ARG_INNER_NUL	= 1 << 20,
	COMM_INNER_NUL	= 1 << 21,
	FORMAT_INNER_NUL = 1 << 22,
};

/* Build the nest's payload in its own message, then put it as one attr. */
static struct nl_msg *minimal(unsigned int spoil, unsigned int nargs)
{
	struct nl_msg *inner = nlmsg_alloc_size(65536), *msg;
	char text[KPRINT_TEXT_MAX + 2];
	unsigned int i;
	int len;

	if (!(spoil & NO_SEQ)) {
		if (spoil & SEQ_AS_U32)
			nla_put_u32(inner, KPRINT_RECORD_A_SEQ, 5);
		else
			nla_put_u64(inner, KPRINT_RECORD_A_SEQ, 5);
	}
	if (spoil & SEQ_TWICE)
		nla_put_u64(inner, KPRINT_RECORD_A_SEQ, 6);
	if (!(spoil & NO_LEVEL)) {
		if (spoil & LEVEL_AS_U64)
			nla_put_u64(inner, KPRINT_RECORD_A_LEVEL, 3);
		else
			nla_put_u32(inner, KPRINT_RECORD_A_LEVEL,
				    spoil & LEVEL_8 ? 8 : 3);
	}
	if (spoil & CLASS_5)
		nla_put_u32(inner, KPRINT_RECORD_A_CLASS, 5);
	if (spoil & SOURCE_2)
		nla_put_u32(inner, KPRINT_RECORD_A_SOURCE, KPRINT_SOURCE_MAX + 1);
	if (spoil & (DEVICE_TOO_LONG | DEVICE_AT_LIMIT)) {
		len = spoil & DEVICE_TOO_LONG ? KPRINT_DEVICE_MAX : KPRINT_DEVICE_MAX - 1;
		memset(text, 'd', len);
		text[len] = '\0';
		nla_put_string(inner, KPRINT_RECORD_A_DEVICE, text);
	}
	if (spoil & LINE_AS_U16)
		nla_put_u16(inner, KPRINT_RECORD_A_LINE, 7);
	if (spoil & COMM_TOO_LONG)
		nla_put_string(inner, KPRINT_RECORD_A_COMM, "sixteen-chars-xx");
	if (spoil & COMM_INNER_NUL)
		nla_put(inner, KPRINT_RECORD_A_COMM, 4, "a\0b");
	if (!(spoil & NO_FORMAT)) {
		if (spoil & FORMAT_NO_NUL)
			nla_put(inner, KPRINT_RECORD_A_FORMAT, 4, "%s%s");
		else if (spoil & FORMAT_INNER_NUL)
			nla_put(inner, KPRINT_RECORD_A_FORMAT, 4, "%\0c");
		else
			nla_put_string(inner, KPRINT_RECORD_A_FORMAT, "%s");
	}
	for (i = 0; i < nargs; i++) {
		if (spoil & ARG_INNER_NUL)
			nla_put(inner, KPRINT_RECORD_A_ARG, 2, "\0");
		else
			nla_put_string(inner, KPRINT_RECORD_A_ARG, "a");
	}
	if (!(spoil & NO_TEXT)) {
		if (spoil & TEXT_INNER_NUL) {
			nla_put(inner, KPRINT_RECORD_A_TEXT, 4, "a\0b");
		} else if (spoil & (TEXT_TOO_LONG | TEXT_AT_LIMIT)) {
			len = spoil & TEXT_TOO_LONG ? KPRINT_TEXT_MAX : KPRINT_TEXT_MAX - 1;
			memset(text, 't', len);
			text[len] = '\0';
			nla_put_string(inner, KPRINT_RECORD_A_TEXT, text);
		} else {
			nla_put_string(inner, KPRINT_RECORD_A_TEXT, "a");
		}
	}
	if (spoil & UNKNOWN_ATTR)
		nla_put_u32(inner, KPRINT_RECORD_A_MAX + 1, 99);

	len = nlmsg_datalen(nlmsg_hdr(inner));
	if (spoil & TRAILING_JUNK) {
		/* Two bytes: too short for an attribute header. */
		memset((char *)nlmsg_data(nlmsg_hdr(inner)) + len, 0xAA, 2);
		len += 2;
	}
	msg = test_msg(KPRINT_CMD_RECORD_NTF);
	nla_put(msg, KPRINT_A_RECORD | NLA_F_NESTED, len, nlmsg_data(nlmsg_hdr(inner)));
	nlmsg_free(inner);
	return msg;
}

/*
 * Decode the single record of a minimal() message.  rec points into the
 * message, so it is kept until the next call.
 */
static int decode_minimal(unsigned int spoil, unsigned int nargs,
			  struct kpc_record *rec)
{
	static struct nl_msg *msg;
	struct nlattr *nla;

	nlmsg_free(msg);
	msg = minimal(spoil, nargs);
	nla = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0);
	return kpc_record_decode(nla, rec);
}

static void test_fnv(void)
{
	tap_ok(kpc_format_id("") == 0xcbf29ce484222325ULL,
	       "FNV-1a 64 of \"\" is cbf29ce484222325");
	tap_ok(kpc_format_id("a") == 0xaf63dc4c8601ec8cULL,
	       "FNV-1a 64 of \"a\" is af63dc4c8601ec8c");
	tap_ok(kpc_format_id("foobar") == 0x85944171f73967e8ULL,
	       "FNV-1a 64 of \"foobar\" is 85944171f73967e8");
	tap_ok(kpc_format_id("\xff\x80") != kpc_format_id("\x7f\x80"),
	       "FNV-1a hashes bytes >= 0x80 as unsigned");
}

static void test_full_record(void)
{
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct kpc_record rec;
	struct nlattr *nla;
	int err;

	test_put_record(msg, 0x8000000000000005ULL, KPRINT_LEVEL_ERR);
	nla = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0);
	err = kpc_record_decode(nla, &rec);
	tap_ok(err == 0, "a complete record decodes (err %d)", err);
	tap_ok(rec.seq == 0x8000000000000005ULL && rec.level == KPRINT_LEVEL_ERR &&
	       rec.class == KPRINT_CLASS_DETECTED,
	       "seq (all 64 bits), level and class decode");
	tap_ok(rec.ts_mono_ns == 12345678901ULL &&
	       rec.ts_real_ns == 1700000000123456789ULL &&
	       rec.cpu == 1 && rec.pid == 4242 && rec.line == 1234,
	       "timestamps, cpu, pid and line decode");
	tap_ok(!strcmp(rec.comm, "insmod") &&
	       !strcmp(rec.file, "drivers/usb/storage/usb.c") &&
	       !strcmp(rec.function, "usb_stor_probe1") &&
	       !strcmp(rec.subsystem, "usb-storage") &&
	       !strcmp(rec.module, "usb_storage"),
	       "comm, file, function, subsystem and module decode");
	tap_ok(!strcmp(rec.format, "cheesy %s drive detected at %d") &&
	       rec.format_id == 0x0123456789abcdefULL &&
	       !strcmp(rec.text, "cheesy flash drive detected at 12"),
	       "format, format_id (as sent) and text decode");
	tap_ok(rec.nargs == 2 && !strcmp(rec.args[0], "flash") &&
	       !strcmp(rec.args[1], "12"),
	       "repeated ARG attributes decode in order");
	tap_ok(rec.block_id == 7 &&
	       rec.flags == (KPRINT_RECORD_F_USER | KPRINT_RECORD_F_CONT),
	       "block_id and flags decode");
	tap_ok(rec.source == KPRINT_SOURCE_PRINTK && !strcmp(rec.device, "+usb:1-1.2") &&
	       rec.facility == 3 && rec.continues == 0x8000000000000004ULL,
	       "source, device, facility and continues decode");
	nlmsg_free(msg);
}

static void test_minimal_defaults(void)
{
	struct kpc_record rec;
	int err = decode_minimal(0, 1, &rec);

	tap_ok(err == 0, "a record with only seq, level, format and text decodes");
	tap_ok(!err && rec.class == KPRINT_CLASS_NONE && !strcmp(rec.comm, "") &&
	       !strcmp(rec.subsystem, "") && rec.line == 0 && rec.block_id == 0 &&
	       rec.source == KPRINT_SOURCE_KPRINT && !strcmp(rec.device, "") &&
	       rec.facility == 0 && rec.continues == 0,
	       "optional attributes default to 0 and \"\" (source kprint, no device)");
	tap_ok(!err && rec.format_id == kpc_format_id("%s"),
	       "a missing format_id is computed from the format");
}

static void test_batched(void)
{
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct seen s = { 0 };
	struct kpc_malformed bad = { 0 };
	int n;

	test_put_record(msg, 10, KPRINT_LEVEL_INFO);
	test_put_record(msg, 11, KPRINT_LEVEL_WARNING);
	nla_put_u64(msg, KPRINT_A_SEQ, 99);	/* not a record: skipped */
	test_put_record(msg, 12, KPRINT_LEVEL_DEBUG);

	n = kpc_record_decode_msg(nlmsg_hdr(msg), collect, &s, &bad);
	tap_ok(n == 3 && s.n == 3 && bad.count == 0,
	       "a message with three records yields three (got %d)", n);
	tap_ok(s.n == 3 && s.seq[0] == 10 && s.seq[1] == 11 && s.seq[2] == 12,
	       "batched records come out in message order");
	nlmsg_free(msg);

	/* kpc_record_dup() copies must outlive the message. */
	tap_ok(s.copy[1] && !strcmp(s.copy[1]->text, "cheesy flash drive detected at 12") &&
	       s.copy[1]->nargs == 2 && !strcmp(s.copy[1]->args[1], "12") &&
	       s.copy[1]->level == KPRINT_LEVEL_WARNING &&
	       !strcmp(s.copy[1]->device, "+usb:1-1.2") && s.copy[1]->continues == 10,
	       "kpc_record_dup() copies survive the message, device and continues too");
	seen_free(&s);
}

static void test_batch_with_bad_record(void)
{
	struct nl_msg *spoilt = minimal(NO_SEQ, 0);
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct nlattr *bad_nest = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(spoilt)), 0);
	struct seen s = { 0 };
	struct kpc_malformed bad = { 0 };
	int n;

	test_put_record(msg, 20, KPRINT_LEVEL_INFO);
	nla_put(msg, KPRINT_A_RECORD | NLA_F_NESTED, nla_len(bad_nest),
		nla_data(bad_nest));
	test_put_record(msg, 22, KPRINT_LEVEL_INFO);

	n = kpc_record_decode_msg(nlmsg_hdr(msg), collect, &s, &bad);
	tap_ok(n == 2 && bad.count == 1 && s.seq[0] == 20 && s.seq[1] == 22,
	       "a malformed record in a batch is skipped and counted, the others decode");
	seen_free(&s);
	nlmsg_free(msg);
	nlmsg_free(spoilt);
}

static void test_rejects(void)
{
	static const struct {
		unsigned int spoil;
		unsigned int nargs;
		int want;
		const char *what;
	} cases[] = {
		{ NO_SEQ, 1, -EINVAL, "a record without SEQ" },
		{ NO_LEVEL, 1, -EINVAL, "a record without LEVEL" },
		{ NO_FORMAT, 1, -EINVAL, "a record without FORMAT" },
		{ NO_TEXT, 1, -EINVAL, "a record without TEXT" },
		{ SEQ_AS_U32, 1, -EINVAL, "a 4-byte SEQ (u64 expected)" },
		{ LEVEL_AS_U64, 1, -EINVAL, "an 8-byte LEVEL (u32 expected)" },
		{ LINE_AS_U16, 1, -EINVAL, "a 2-byte LINE (u32 expected)" },
		{ FORMAT_NO_NUL, 1, -EINVAL, "a FORMAT without its NUL" },
		{ COMM_INNER_NUL, 1, -EINVAL, "a COMM with a NUL inside (a name, not rendered text)" },
		{ FORMAT_INNER_NUL, 1, -EINVAL, "a FORMAT with a NUL inside" },
		{ SEQ_TWICE, 1, -EINVAL, "a record with two SEQs" },
		{ LEVEL_8, 1, -ERANGE, "LEVEL 8 (past debug)" },
		{ CLASS_5, 1, -ERANGE, "CLASS 5 (past copyright)" },
		{ SOURCE_2, 1, -ERANGE, "SOURCE 2 (past printk)" },
		{ DEVICE_TOO_LONG, 1, -EINVAL, "a DEVICE longer than KPRINT_DEVICE_MAX" },
		{ TRAILING_JUNK, 1, -EINVAL, "a nest with trailing bytes" },
		{ TEXT_TOO_LONG, 1, -EINVAL, "a TEXT longer than KPRINT_TEXT_MAX" },
		{ COMM_TOO_LONG, 1, -EINVAL, "a COMM longer than KPRINT_COMM_MAX" },
		{ 0, KPRINT_ARGS_MAX + 1, -E2BIG, "17 ARGs (KPRINT_ARGS_MAX is 16)" },
	};
	struct kpc_record rec;
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err = decode_minimal(cases[i].spoil, cases[i].nargs, &rec);
		tap_ok(err == cases[i].want, "rejects %s (got %d, want %d)",
		       cases[i].what, err, cases[i].want);
	}

	err = decode_minimal(0, KPRINT_ARGS_MAX, &rec);
	tap_ok(err == 0 && rec.nargs == KPRINT_ARGS_MAX, "accepts exactly 16 ARGs");
	err = decode_minimal(TEXT_AT_LIMIT, 1, &rec);
	tap_ok(err == 0 && strlen(rec.text) == KPRINT_TEXT_MAX - 1,
	       "accepts a TEXT of exactly KPRINT_TEXT_MAX bytes with its NUL");
	err = decode_minimal(DEVICE_AT_LIMIT, 1, &rec);
	tap_ok(err == 0 && strlen(rec.device) == KPRINT_DEVICE_MAX - 1,
	       "accepts a DEVICE of exactly KPRINT_DEVICE_MAX bytes with its NUL");
	err = decode_minimal(UNKNOWN_ATTR, 1, &rec);
	tap_ok(err == 0, "ignores an attribute newer than the UAPI it knows");
}

/*
 * printk("xxx%cyyy", '\0') renders a NUL into the text and the arg: data,
 * which the record keeps with its length (issue 26).
 */
static void test_inner_nul(void)
{
	struct kpc_record rec, *copy;
	int err;

	err = decode_minimal(TEXT_INNER_NUL | ARG_INNER_NUL, 2, &rec);
	tap_ok(err == 0, "a TEXT and ARGs with a NUL inside decode (got %d)", err);
	tap_ok(!err && rec.text_len == 3 && !memcmp(rec.text, "a\0b", 4) &&
	       kpc_record_text_len(&rec) == 3,
	       "the text keeps its NUL and its length, 3");
	tap_ok(!err && rec.nargs == 2 && rec.arg_len[0] == 1 && rec.args[0][0] == '\0' &&
	       kpc_record_arg_len(&rec, 1) == 1,
	       "an arg that is one NUL has length 1");
	copy = err ? NULL : kpc_record_dup(&rec);
	tap_ok(copy && copy->text_len == 3 && !memcmp(copy->text, "a\0b", 4) &&
	       copy->arg_len[1] == 1 && !memcmp(copy->args[1], "\0", 2) &&
	       copy->text != rec.text,
	       "kpc_record_dup() copies the bytes after a NUL too");
	kpc_record_free(copy);

	err = decode_minimal(0, 1, &rec);
	tap_ok(!err && rec.text_len == 1 && rec.arg_len[0] == 1,
	       "a decoded record always has its lengths");
}

static void *test_alloc_last;

/* An allocator for kpc_record_copy_with() that tells the size it was asked. */
static void *test_alloc(size_t size, void *ctx)
{
	*(size_t *)ctx = size;
	test_alloc_last = malloc(size);
	return test_alloc_last;
}

/*
 * A decoded record is copied as its attributes in one piece (issue 31),
 * into memory the caller has too; a string a caller pointed elsewhere is
 * still copied, not taken from the attributes.
 */
static void test_copy_raw(void)
{
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct kpc_record rec, other, *copy, *again, *moved;
	char *gone = strdup("");
	struct nlattr *nest;
	size_t size;
	void *mem;
	int err;

	test_put_record(msg, 7, KPRINT_LEVEL_ERR);
	nest = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(msg)), 0);
	err = kpc_record_decode(nest, &rec);
	tap_ok(!err && rec.raw == nla_data(nest) && rec.raw_len == (uint32_t)nla_len(nest),
	       "a decoded record names the attributes it came from");
	copy = kpc_record_copy_with(&rec, test_alloc, &size);
	mem = test_alloc_last;
	tap_ok(size == sizeof(rec) + rec.raw_len,
	       "its copy is the struct and the attributes (%zu bytes)", size);
	memset(nlmsg_hdr(msg), 0xa5, nlmsg_hdr(msg)->nlmsg_len);
	tap_ok(copy == mem && copy->raw == (void *)(copy + 1) &&
	       !strcmp(copy->text, "cheesy flash drive detected at 12") &&
	       !strcmp(copy->comm, "insmod") && !strcmp(copy->device, "+usb:1-1.2") &&
	       copy->nargs == 2 && !strcmp(copy->args[0], "flash") && copy->arg_len[0] == 5 &&
	       !strcmp(copy->format, "cheesy %s drive detected at %d") && copy->seq == 7,
	       "kpc_record_copy_with() into the caller's memory outlives the message");
	again = kpc_record_dup(copy);
	tap_ok(again && again->raw == (void *)(again + 1) && again->text != copy->text &&
	       !strcmp(again->text, copy->text) && !strcmp(again->args[1], "12"),
	       "a copy of a copy is its attributes in one piece too");
	kpc_record_free(again);

	/* A string pointed elsewhere: copied string by string. */
	other = *copy;
	other.text = "a text of the caller's";
	other.text_len = 0;
	moved = kpc_record_dup(&other);
	tap_ok(moved && !moved->raw && !strcmp(moved->text, "a text of the caller's") &&
	       moved->text_len == strlen("a text of the caller's") &&
	       !strcmp(moved->module, "usb_storage") && !strcmp(moved->args[0], "flash"),
	       "a text the caller pointed elsewhere is copied, not taken from the attributes");
	kpc_record_free(moved);

	/* An empty one elsewhere is "" in the copy, which keeps no pointer to it. */
	other = *copy;
	other.device = gone;
	moved = kpc_record_dup(&other);
	free(gone);
	tap_ok(moved && moved->raw && moved->device != gone && !strcmp(moved->device, "") &&
	       !strcmp(moved->text, "cheesy flash drive detected at 12"),
	       "an empty string elsewhere is \"\" in a copy of the attributes");
	kpc_record_free(moved);
	free(mem);
	nlmsg_free(msg);
}

/*
 * Memory for kpc_record_decode_msg_into(): counts what it gives and takes
 * back, and gives none on call number fail_at (from 1; 0: never).
 */
struct into_mem {
	unsigned int allocs, releases, fail_at;
	void *last;			/* the last memory given */
	size_t last_size;
};

static void *into_alloc(size_t size, void *ctx)
{
	struct into_mem *m = ctx;

	if (++m->allocs == m->fail_at)
		return m->last = NULL;
	m->last_size = size;
	return m->last = malloc(size);
}

static void into_release(struct kpc_record *rec, void *ctx)
{
	struct into_mem *m = ctx;

	m->releases++;
	free(rec);
}

/* What a reader of kpc_record_decode_msg_into() keeps, and what it refuses. */
struct into_seen {
	struct into_mem *mem;
	uint64_t refuse;		/* a seq not to keep */
	unsigned int n, own, inside;
	struct kpc_record *kept[MAX_SEEN];
};

/* Whether string s lies in the n bytes at base. */
static bool within(const void *base, size_t n, const char *s)
{
	return s >= (const char *)base && s < (const char *)base + n;
}

static int into_keep(const struct kpc_record *rec, void *ctx)
{
	struct into_seen *s = ctx;
	struct kpc_record *r = (struct kpc_record *)rec;
	bool own = rec == s->mem->last;

	if (s->n == MAX_SEEN || rec->seq == s->refuse)
		return 0;
	if (!own) {
		s->kept[s->n++] = kpc_record_dup(rec);
		return 0;
	}
	s->own++;
	s->inside += rec->raw == (void *)(rec + 1) &&
		     within(rec, s->mem->last_size, rec->text) &&
		     within(rec, s->mem->last_size, rec->device) &&
		     within(rec, s->mem->last_size, rec->args[1]);
	s->kept[s->n++] = r;
	return KPC_RECORD_KEPT;
}

static void test_decode_into(void)
{
	struct nl_msg *spoilt = minimal(NO_TEXT, 0);
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct nlattr *bad_nest = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(spoilt)), 0);
	struct into_mem m = { .fail_at = 5 };
	struct kpc_record_mem mem = { into_alloc, into_release, &m };
	struct into_seen s = { .mem = &m, .refuse = 32 };
	struct seen plain = { 0 };
	struct kpc_malformed bad = { 0 }, bad2 = { 0 };
	bool same = true;
	unsigned int i;
	int n;

	/* 30 kept, the malformed one, 32 refused, 33 kept, 34 without memory. */
	test_put_record(msg, 30, KPRINT_LEVEL_INFO);
	nla_put(msg, KPRINT_A_RECORD | NLA_F_NESTED, nla_len(bad_nest), nla_data(bad_nest));
	test_put_record(msg, 32, KPRINT_LEVEL_INFO);
	test_put_record(msg, 33, KPRINT_LEVEL_WARNING);
	test_put_record(msg, 34, KPRINT_LEVEL_ERR);

	kpc_record_decode_msg(nlmsg_hdr(msg), collect, &plain, &bad2);
	n = kpc_record_decode_msg_into(nlmsg_hdr(msg), into_keep, &s, &bad, &mem);
	tap_ok(n == 4 && bad.count == 1 && bad2.count == 1,
	       "decoded into the reader's memory: four records and the malformed one (%d, %u)",
	       n, bad.count);
	tap_ok(m.allocs == 5 && m.releases == 2,
	       "the malformed record's and the refused record's memory go back (%u of %u)",
	       m.releases, m.allocs);
	tap_ok(s.n == 3 && s.own == 2 && s.inside == 2,
	       "kept records are the memory given, their strings in it (%u, %u, %u)",
	       s.n, s.own, s.inside);
	memset(nlmsg_hdr(msg), 0xa5, nlmsg_hdr(msg)->nlmsg_len);
	for (i = 0; i < s.n; i++) {
		const struct kpc_record *a = s.kept[i], *b = plain.copy[i == 0 ? 0 : i + 1];

		same &= a && b && a->seq == b->seq && a->level == b->level &&
			!strcmp(a->text, b->text) && a->text_len == b->text_len &&
			!strcmp(a->format, b->format) && a->format_id == b->format_id &&
			!strcmp(a->device, b->device) && !strcmp(a->comm, b->comm) &&
			a->nargs == b->nargs && !strcmp(a->args[1], b->args[1]) &&
			a->continues == b->continues;
	}
	tap_ok(same && s.kept[2] && s.kept[2]->seq == 34,
	       "they read as kpc_record_decode_msg()'s, after the message is gone;"
	       " the one without memory came as a record to copy");
	for (i = 0; i < s.n; i++)
		kpc_record_free(s.kept[i]);
	seen_free(&plain);
	nlmsg_free(msg);
	nlmsg_free(spoilt);
}

static int bad_seq(uint64_t seq, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < MAX_SEEN)
		s->seq[s->n] = 1000 + seq;	/* marked as bad */
	s->n++;
	return 0;
}

/* A malformed record whose SEQ is whole is named, in order with the rest. */
static void test_bad_record_seq(void)
{
	struct nl_msg *spoilt = minimal(LEVEL_8, 0), *noseq = minimal(NO_SEQ, 0);
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct nlattr *a = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(spoilt)), 0);
	struct nlattr *b = genlmsg_attrdata(nlmsg_data(nlmsg_hdr(noseq)), 0);
	struct seen s = { 0 };
	struct kpc_malformed bad = { .seq_fn = bad_seq, .ctx = &s };
	int n;

	test_put_record(msg, 4, KPRINT_LEVEL_INFO);
	nla_put(msg, KPRINT_A_RECORD | NLA_F_NESTED, nla_len(a), nla_data(a));
	nla_put(msg, KPRINT_A_RECORD | NLA_F_NESTED, nla_len(b), nla_data(b));
	test_put_record(msg, 6, KPRINT_LEVEL_INFO);
	n = kpc_record_decode_msg(nlmsg_hdr(msg), collect, &s, &bad);
	tap_ok(n == 2 && bad.count == 2 && s.n == 3 && s.seq[0] == 4 &&
	       s.seq[1] == 1005 && s.seq[2] == 6,
	       "the seq of a malformed record (5) is reported between 4 and 6, "
	       "one without a SEQ only counted");
	seen_free(&s);
	nlmsg_free(msg);
	nlmsg_free(spoilt);
	nlmsg_free(noseq);
}

static void test_bad_messages(void)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct seen s = { 0 };
	struct kpc_malformed bad = { 0 };
	int n;

	/* A netlink header and nothing else: no room for a genl header. */
	nlmsg_put(msg, 0, 0, TEST_FAMILY_ID, 0, 0);
	n = kpc_record_decode_msg(nlmsg_hdr(msg), collect, &s, &bad);
	tap_ok(n == -EBADMSG && s.n == 0,
	       "a message without a genl header is -EBADMSG (got %d)", n);
	nlmsg_free(msg);

	msg = test_msg(KPRINT_CMD_RECORD_NTF);
	n = kpc_record_decode_msg(nlmsg_hdr(msg), collect, &s, &bad);
	tap_ok(n == 0 && bad.count == 0, "a message without records yields none");
	nlmsg_free(msg);
}

static int stop_after_first(const struct kpc_record *rec, void *ctx)
{
	(void)rec;
	(*(int *)ctx)++;
	return -ECANCELED;
}

static void test_callback_stops(void)
{
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct kpc_malformed bad = { 0 };
	int calls = 0, n;

	test_put_record(msg, 1, 0);
	test_put_record(msg, 2, 0);
	n = kpc_record_decode_msg(nlmsg_hdr(msg), stop_after_first, &calls,
				  &bad);
	tap_ok(n == -ECANCELED && calls == 1,
	       "a callback's error stops the walk and is returned");
	nlmsg_free(msg);
}

static void test_names(void)
{
	tap_ok(!strcmp(kpc_level_name(KPRINT_LEVEL_WARNING), "warn") &&
	       !strcmp(kpc_level_name(KPRINT_LEVEL_EMERG), "emerg") &&
	       !strcmp(kpc_level_name(KPRINT_LEVEL_DEBUG), "debug") &&
	       kpc_level_name(8) == NULL, "level names");
	tap_ok(kpc_level_parse("warn") == KPRINT_LEVEL_WARNING &&
	       kpc_level_parse("warning") == KPRINT_LEVEL_WARNING &&
	       kpc_level_parse("err") == KPRINT_LEVEL_ERR &&
	       kpc_level_parse("3") == KPRINT_LEVEL_ERR &&
	       kpc_level_parse("8") == -EINVAL &&
	       kpc_level_parse("error") == -EINVAL &&
	       kpc_level_parse("") == -EINVAL, "level parsing");
	tap_ok(!strcmp(kpc_class_name(KPRINT_CLASS_COPYRIGHT), "copyright") &&
	       kpc_class_name(5) == NULL &&
	       kpc_class_parse("registered") == KPRINT_CLASS_REGISTERED &&
	       kpc_class_parse("bogus") == -EINVAL, "class names and parsing");
	tap_ok(!strcmp(kpc_source_name(KPRINT_SOURCE_KPRINT), "kprint") &&
	       !strcmp(kpc_source_name(KPRINT_SOURCE_PRINTK), "printk") &&
	       kpc_source_name(KPRINT_SOURCE_MAX + 1) == NULL &&
	       kpc_source_parse("printk") == KPRINT_SOURCE_PRINTK &&
	       kpc_source_parse("kprint") == KPRINT_SOURCE_KPRINT &&
	       kpc_source_parse("all") == -EINVAL && kpc_source_parse("") == -EINVAL,
	       "source names and parsing");
}

/*
 * The generated tables against the header's hand-readable limits: a spec
 * whose max-len and size constants drifted apart would pass the decoder a
 * limit the kernel does not keep.
 */
struct test_attr_facts {
	const char *kind;	/* NULL: not in the list */
	int multi;
	unsigned int len;
	size_t offset;
};

#define TEST_ATTR_FACTS(attr, kind, multi, len, field) \
	[attr] = { #kind, multi, len, offsetof(struct kpc_record, field) },

static const struct test_attr_facts test_attrs[KPRINT_RECORD_A_MAX + 1] = {
	KPC_GENL_RECORD_ATTRS(TEST_ATTR_FACTS)
};

static void test_generated_tables(void)
{
	const struct test_attr_facts *t = test_attrs;
	unsigned int i, type, strings = 0, bad = 0;
	uint32_t attrs = 0;

	tap_ok(t[KPRINT_RECORD_A_COMM].len == KPRINT_COMM_MAX &&
	       t[KPRINT_RECORD_A_FILE].len == KPRINT_TAG_MAX &&
	       t[KPRINT_RECORD_A_FUNCTION].len == KPRINT_TAG_MAX &&
	       t[KPRINT_RECORD_A_SUBSYSTEM].len == KPRINT_TAG_MAX &&
	       t[KPRINT_RECORD_A_MODULE].len == KPRINT_TAG_MAX &&
	       t[KPRINT_RECORD_A_FORMAT].len == KPRINT_FORMAT_MAX &&
	       t[KPRINT_RECORD_A_ARG].len == KPRINT_ARG_MAX &&
	       t[KPRINT_RECORD_A_TEXT].len == KPRINT_TEXT_MAX &&
	       t[KPRINT_RECORD_A_DEVICE].len == KPRINT_DEVICE_MAX,
	       "the record list's string limits are the UAPI's, NUL included");
	for (type = 0; type <= KPRINT_RECORD_A_MAX; type++) {
		if (!t[type].kind)
			continue;
		if (!strcmp(t[type].kind, "STRING"))
			strings++;
		if ((!strcmp(t[type].kind, "U32") && t[type].len != 4) ||
		    (!strcmp(t[type].kind, "U64") && t[type].len != 8))
			bad++;
	}
	tap_ok(strings == 9 && !bad && t[KPRINT_RECORD_A_ARG].multi &&
	       !t[KPRINT_RECORD_A_PAD].kind,
	       "the record list has 9 strings, exact scalar sizes, args repeat, pad is free");
	tap_ok(t[KPRINT_RECORD_A_SEQ].offset == offsetof(struct kpc_record, seq) &&
	       t[KPRINT_RECORD_A_TEXT].offset == offsetof(struct kpc_record, text) &&
	       t[KPRINT_RECORD_A_ARG].offset == offsetof(struct kpc_record, args),
	       "the record list points at struct kpc_record's fields");

	for (i = 0; i < kpc_stats_nfields; i++) {
		const struct kpc_stats_field *f = &kpc_stats_fields[i];
		struct kpc_stats st = { 0 };

		attrs |= 1u << f->attr;
		*(uint64_t *)((char *)&st + f->offset) = 1000 + f->attr;
		if (kpc_stats_field_of(f->attr) != f || f->get(&st) != 1000u + f->attr ||
		    kpc_stats_value(&st, f) != 1000u + f->attr)
			bad++;
	}
	tap_ok(kpc_stats_nfields == KPRINT_STATS_A_MAX - KPRINT_STATS_A_PAD &&
	       attrs == (2u << KPRINT_STATS_A_MAX) - (2u << KPRINT_STATS_A_PAD) && !bad,
	       "the stats table has one field per counter, found by attribute (%u)",
	       kpc_stats_nfields);
	tap_ok(!kpc_stats_field_of(KPRINT_STATS_A_PAD) &&
	       !kpc_stats_field_of(KPRINT_STATS_A_MAX + 1),
	       "pad and counters newer than the table have no field");
}

/*
 * One record's attributes, for test_orders(): in the order kprint.ko
 * writes them (kernel/kprint_nl_fill.c), which the decoder reads in one
 * straight run, and any other, which its walk takes.
 */
struct test_attr {
	int type;
	int len;
	const void *data;
};

static const uint64_t t_seq = 77, t_mono = 1000, t_real = 2000, t_fid = 0xfeedULL, t_block = 5;
static const uint32_t t_level = 3, t_class = 1, t_cpu = 1, t_pid = 9, t_line = 42, t_flags = 0,
		      t_source = 1, t_facility = 3;

#define T_U32(type, v)	{ type, 4, &(v) }
#define T_U64(type, v)	{ type, 8, &(v) }
#define T_STR(type, v)	{ type, sizeof(v), v }

static const struct test_attr test_kernel_order[] = {
	T_U64(KPRINT_RECORD_A_SEQ, t_seq), T_U32(KPRINT_RECORD_A_LEVEL, t_level),
	T_U32(KPRINT_RECORD_A_CLASS, t_class), T_U64(KPRINT_RECORD_A_TS_MONO_NS, t_mono),
	T_U64(KPRINT_RECORD_A_TS_REAL_NS, t_real), T_U32(KPRINT_RECORD_A_CPU, t_cpu),
	T_U32(KPRINT_RECORD_A_PID, t_pid), T_STR(KPRINT_RECORD_A_COMM, "kworker/0:1"),
	T_STR(KPRINT_RECORD_A_FILE, "drivers/net/x.c"), T_U32(KPRINT_RECORD_A_LINE, t_line),
	T_STR(KPRINT_RECORD_A_FUNCTION, "x_probe"), T_STR(KPRINT_RECORD_A_SUBSYSTEM, "net"),
	T_STR(KPRINT_RECORD_A_MODULE, "x"), T_STR(KPRINT_RECORD_A_DEVICE, "+pci:0000:00:03.0"),
	T_STR(KPRINT_RECORD_A_FORMAT, "link %s at %d"), T_U64(KPRINT_RECORD_A_FORMAT_ID, t_fid),
	T_STR(KPRINT_RECORD_A_ARG, "up"), T_STR(KPRINT_RECORD_A_ARG, "1000"),
	T_STR(KPRINT_RECORD_A_TEXT, "link up at 1000"), T_U64(KPRINT_RECORD_A_BLOCK_ID, t_block),
	T_U32(KPRINT_RECORD_A_FLAGS, t_flags), T_U32(KPRINT_RECORD_A_SOURCE, t_source),
	T_U32(KPRINT_RECORD_A_FACILITY, t_facility),
};
#define TEST_NATTRS	(sizeof(test_kernel_order) / sizeof(test_kernel_order[0]))

/* The record's attributes in @order (indexes into test_kernel_order) as a message. */
static struct nl_msg *test_ordered_msg(const unsigned int *order, const char *comm)
{
	struct nl_msg *msg = test_msg(KPRINT_CMD_RECORD_NTF);
	struct nlattr *nest = nla_nest_start(msg, KPRINT_A_RECORD);

	for (unsigned int i = 0; i < TEST_NATTRS; i++) {
		const struct test_attr *a = &test_kernel_order[order[i]];

		if (a->type == KPRINT_RECORD_A_COMM && comm)
			nla_put(msg, a->type, 4, comm);
		else
			nla_put(msg, a->type, a->len, a->data);
	}
	nla_nest_end(msg, nest);
	return msg;
}

static bool test_same_record(const struct kpc_record *a, const struct kpc_record *b)
{
	const char *sa[] = { a->comm, a->file, a->function, a->subsystem, a->module, a->device,
			     a->format, a->text };
	const char *sb[] = { b->comm, b->file, b->function, b->subsystem, b->module, b->device,
			     b->format, b->text };
	bool same = a->seq == b->seq && a->level == b->level && a->class == b->class &&
		    a->ts_mono_ns == b->ts_mono_ns && a->ts_real_ns == b->ts_real_ns &&
		    a->cpu == b->cpu && a->pid == b->pid && a->line == b->line &&
		    a->format_id == b->format_id && a->nargs == b->nargs &&
		    a->text_len == b->text_len && a->block_id == b->block_id &&
		    a->flags == b->flags && a->source == b->source &&
		    a->facility == b->facility && a->continues == b->continues &&
		    a->printk_seq == b->printk_seq && a->filtered == b->filtered;

	for (unsigned int i = 0; i < sizeof(sa) / sizeof(sa[0]); i++)
		same &= !strcmp(sa[i], sb[i]);
	for (unsigned int i = 0; same && i < a->nargs; i++)
		same &= !strcmp(a->args[i], b->args[i]) && a->arg_len[i] == b->arg_len[i];
	return same;
}

static void test_orders(void)
{
	unsigned int kernel[TEST_NATTRS], reversed[TEST_NATTRS], i;
	struct nl_msg *m1, *m2, *m3;
	struct kpc_record r1, r2, r3;
	int e1, e2, e3;

	for (i = 0; i < TEST_NATTRS; i++) {
		kernel[i] = i;
		/* Reversed, but the args keep their order: it is theirs. */
		reversed[i] = TEST_NATTRS - 1 - i;
	}
	for (i = 0; i < TEST_NATTRS; i++)
		if (test_kernel_order[reversed[i]].type == KPRINT_RECORD_A_ARG) {
			unsigned int t = reversed[i];

			reversed[i] = reversed[i + 1];
			reversed[i + 1] = t;
			break;
		}
	m1 = test_ordered_msg(kernel, NULL);
	m2 = test_ordered_msg(reversed, NULL);
	m3 = test_ordered_msg(kernel, "a\0b");
	e1 = kpc_record_decode(genlmsg_attrdata(nlmsg_data(nlmsg_hdr(m1)), 0), &r1);
	e2 = kpc_record_decode(genlmsg_attrdata(nlmsg_data(nlmsg_hdr(m2)), 0), &r2);
	e3 = kpc_record_decode(genlmsg_attrdata(nlmsg_data(nlmsg_hdr(m3)), 0), &r3);
	tap_ok(!e1 && !e2, "a record decodes in kprint.ko's order and reversed (err %d, %d)", e1, e2);
	tap_ok(!e1 && !e2 && test_same_record(&r1, &r2) && r1.nargs == 2 &&
	       !strcmp(r1.args[1], "1000") && !strcmp(r1.device, "+pci:0000:00:03.0") &&
	       r1.facility == 3 && r1.block_id == 5 && r1.format_id == 0xfeedULL,
	       "both orders give the same record, every field");
	tap_ok(e3 == -EINVAL, "in kprint.ko's order, a NUL inside a name is still refused (err %d)", e3);
	nlmsg_free(m1);
	nlmsg_free(m2);
	nlmsg_free(m3);
}

int main(void)
{
	test_fnv();
	test_full_record();
	test_minimal_defaults();
	test_batched();
	test_batch_with_bad_record();
	test_rejects();
	test_inner_nul();
	test_copy_raw();
	test_decode_into();
	test_bad_record_seq();
	test_bad_messages();
	test_callback_stops();
	test_names();
	test_orders();
	test_generated_tables();
	return tap_done();
}
