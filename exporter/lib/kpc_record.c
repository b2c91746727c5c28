// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "kprint_fnv1a.h"
#include "kpc_genl.h"
#include "kpc_record.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const kpc_level_names[] = {
	[KPRINT_LEVEL_EMERG]	= "emerg",
	[KPRINT_LEVEL_ALERT]	= "alert",
	[KPRINT_LEVEL_CRIT]	= "crit",
	[KPRINT_LEVEL_ERR]	= "err",
	[KPRINT_LEVEL_WARNING]	= "warn",
	[KPRINT_LEVEL_NOTICE]	= "notice",
	[KPRINT_LEVEL_INFO]	= "info",
	[KPRINT_LEVEL_DEBUG]	= "debug",
};

static const char *const kpc_class_names[] = {
	[KPRINT_CLASS_NONE]		= "none",
	[KPRINT_CLASS_DETECTED]		= "detected",
	[KPRINT_CLASS_REGISTERED]	= "registered",
	[KPRINT_CLASS_SETTING]		= "setting",
	[KPRINT_CLASS_COPYRIGHT]	= "copyright",
};

static const char *const kpc_source_names[] = {
	[KPRINT_SOURCE_KPRINT]	= "kprint",
	[KPRINT_SOURCE_PRINTK]	= "printk",
};
/* A source without a name would be written as JSON null. */
_Static_assert(ARRAY_SIZE(kpc_source_names) == KPRINT_SOURCE_MAX + 1,
	       "every source has a name");

const char *kpc_level_name(unsigned int level)
{
	return level < ARRAY_SIZE(kpc_level_names) ? kpc_level_names[level] : NULL;
}

int kpc_level_parse(const char *name)
{
	unsigned int i;

	if (!strcmp(name, "warning"))
		return KPRINT_LEVEL_WARNING;
	/* The digit form is what printk's KERN_<LEVEL> prefix uses. */
	if (name[0] >= '0' && name[0] <= '0' + KPRINT_LEVEL_MAX && !name[1])
		return name[0] - '0';
	for (i = 0; i < ARRAY_SIZE(kpc_level_names); i++)
		if (!strcmp(name, kpc_level_names[i]))
			return i;
	return -EINVAL;
}

const char *kpc_class_name(unsigned int class)
{
	return class < ARRAY_SIZE(kpc_class_names) ? kpc_class_names[class] : NULL;
}

int kpc_class_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpc_class_names); i++)
		if (!strcmp(name, kpc_class_names[i]))
			return i;
	return -EINVAL;
}

const char *kpc_source_name(unsigned int source)
{
	return source < ARRAY_SIZE(kpc_source_names) ? kpc_source_names[source] : NULL;
}

int kpc_source_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpc_source_names); i++)
		if (!strcmp(name, kpc_source_names[i]))
			return i;
	return -EINVAL;
}

uint64_t kpc_format_id(const char *fmt)
{
	return kprint_fnv1a64(fmt);
}

/*
 * Records are decoded in one pass over the nest with the attribute headers
 * read in place: libnl's nla_parse() followed by a second walk called a
 * shared-library function for every header field of every attribute,
 * which was most of the exporter's cost per record.  The walk checks each
 * attribute against its rule (kpc_attr_rules, from the spec's list
 * KPC_GENL_RECORD_ATTRS) without branching on its type, and notes where
 * it is; the fields are then set from those places in one straight run.
 * A switch on the type cost fewer instructions (44 an attribute against
 * 63 for an earlier table walk), but under emulation its indirect jump and
 * its branches were most of a record's decoding, and on hardware they are
 * what a predictor misses.  What is accepted is exactly what nla_parse()
 * with the spec's policy and a walk for the args accepted.
 */

/*
 * A bit per attribute in the walk's "seen" set, and one slot past the
 * spec's for the numbers this library does not know, which may be anything.
 */
#define KPC_ATTR_OTHER	(KPRINT_RECORD_A_MAX + 1)
_Static_assert(KPC_ATTR_OTHER < 64, "record attributes fit a uint64_t");

/* nla_ok() and nla_next(), inline. */
static inline bool kpc_nla_ok(const struct nlattr *nla, int rem)
{
	return rem >= (int)sizeof(*nla) && nla->nla_len >= sizeof(*nla) &&
	       nla->nla_len <= rem;
}

static inline const struct nlattr *kpc_nla_next(const struct nlattr *nla, int *rem)
{
	int total = NLA_ALIGN(nla->nla_len);

	*rem -= total;
	return (const struct nlattr *)((const char *)nla + total);
}

/* nla_data() and nla_len(), inline: a record asked each of them thrice. */
static inline const void *kpc_nla_data(const struct nlattr *nla)
{
	return (const char *)nla + NLA_HDRLEN;
}

static inline int kpc_nla_len(const struct nlattr *nla)
{
	return (int)nla->nla_len - NLA_HDRLEN;
}

/*
 * What libnl's validate_nla() checks of an attribute with the spec's
 * policy: exact sizes for scalars, a limit and a final NUL for strings.
 * PAD and numbers the spec does not name pass as anything.
 */
struct kpc_attr_rule {
	uint16_t min, max;	/* payload bytes */
	bool string;		/* its last byte must be NUL */
};

#define KPC_RULE_U32(max)	{ 4, 4, false }
#define KPC_RULE_U64(max)	{ 8, 8, false }
#define KPC_RULE_STRING(max)	{ 1, max, true }
#define KPC_RULE_ANY		{ 0, UINT16_MAX, false }
#define KPC_RULE(attr, kind, multi, max, field)	[attr] = KPC_RULE_##kind(max),

/* Every number up to KPRINT_RECORD_A_MAX is PAD, 0 or the spec's. */
static const struct kpc_attr_rule kpc_attr_rules[KPC_ATTR_OTHER + 1] = {
	[0] = KPC_RULE_ANY,
	[KPRINT_RECORD_A_PAD] = KPC_RULE_ANY,
	KPC_GENL_RECORD_ATTRS(KPC_RULE)
	[KPC_ATTR_OTHER] = KPC_RULE_ANY,
};

/* The attributes that may come once: all the spec names but the args. */
#define KPC_BIT(type)	(1ull << (type))
#define KPC_ONCE_U32_0(attr)	KPC_BIT(attr) |
#define KPC_ONCE_U64_0(attr)	KPC_BIT(attr) |
#define KPC_ONCE_STRING_0(attr)	KPC_BIT(attr) |
#define KPC_ONCE_STRING_1(attr)
#define KPC_ONCE(attr, kind, multi, max, field)	KPC_ONCE_##kind##_##multi(attr)
#define KPC_RECORD_ONCE		(KPC_GENL_RECORD_ATTRS(KPC_ONCE) 0)

/* What a record cannot be without. */
#define KPC_RECORD_REQUIRED						\
	(KPC_BIT(KPRINT_RECORD_A_SEQ) | KPC_BIT(KPRINT_RECORD_A_LEVEL) |	\
	 KPC_BIT(KPRINT_RECORD_A_FORMAT) | KPC_BIT(KPRINT_RECORD_A_TEXT))

/*
 * Whether @n bytes at @s hold a NUL, a word at a time: names are a few
 * words long, and a call to memchr() cost more than the search.  The
 * last word overlaps the one before rather than reading past @s + @n.
 */
static inline bool kpc_has_nul(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t v, acc = 0;
	size_t i;

	if (n < sizeof(v)) {
		for (i = 0; i < n; i++)
			acc |= !s[i];
		return acc;
	}
	for (i = 0; i + sizeof(v) < n; i += sizeof(v)) {
		memcpy(&v, s + i, sizeof(v));
		acc |= (v - ones) & ~v & highs;
	}
	memcpy(&v, s + n - sizeof(v), sizeof(v));
	acc |= (v - ones) & ~v & highs;
	return acc;
}

/*
 * What one walk over a nest has found: where each attribute is (the last
 * of one met twice, as nla_parse() keeps) and its length, and the errors
 * said after the policy's: an attribute met twice, or an arg too many,
 * whichever came first.
 */
struct kpc_record_walk {
	const char *at[KPC_ATTR_OTHER + 1];
	uint16_t len[KPC_ATTR_OTHER + 1];
	uint64_t seen;		/* attributes met */
	uint64_t again;		/* of those that may come once, met twice */
	int err;		/* -E2BIG, when before any attribute met twice */
	bool bad;		/* a policy violation */
};

/* The record's one repeated attribute, the args; an ARG after a walk error is not looked at. */
static inline void kpc_record_arg(struct kpc_record *rec, struct kpc_record_walk *w,
				  const char *data, int len)
{
	if (w->err || w->again)
		return;
	if (rec->nargs == KPRINT_ARGS_MAX) {
		w->err = -E2BIG;
		return;
	}
	rec->arg_len[rec->nargs] = len - 1;
	rec->args[rec->nargs++] = data;
}

/* Eight zero bytes: the value of a number, and the "" of a string, the kernel left out. */
static const char kpc_record_absent[8];

/*
 * The fields from where the walk found them: a string points at its
 * bytes, a number is copied from them, one left out reads as zero or "".
 * A name (a string but the text) must not hold a NUL before its last byte.
 */
#define KPC_SET_U32_0(attr, field)	memcpy(&rec->field, w->at[attr], sizeof(uint32_t));
#define KPC_SET_U64_0(attr, field)	memcpy(&rec->field, w->at[attr], sizeof(uint64_t));
#define KPC_SET_STRING_1(attr, field)
#define KPC_SET_STRING_0(attr, field)						\
	rec->field = w->at[attr];						\
	if ((attr) != KPRINT_RECORD_A_TEXT && (w->seen & KPC_BIT(attr)))	\
		names_bad |= kpc_has_nul(w->at[attr], w->len[attr] - 1);
#define KPC_SET(attr, kind, multi, max, field)	KPC_SET_##kind##_##multi(attr, field)

static bool kpc_record_set_fields(struct kpc_record *rec, const struct kpc_record_walk *w)
{
	bool names_bad = false;

	KPC_GENL_RECORD_ATTRS(KPC_SET)
	rec->text_len = w->len[KPRINT_RECORD_A_TEXT] - 1;
	return !names_bad;
}

/* The attributes of a record nest, @len bytes at @attrs, into @rec. */
static int kpc_record_decode_attrs(const void *attrs, int len, struct kpc_record *rec)
{
	struct kpc_record_walk w;
	int rem = len;
	const struct nlattr *nla;
	unsigned int i;

	if (rem < 0)
		return -EINVAL;
	for (i = 0; i <= KPC_ATTR_OTHER; i++)
		w.at[i] = kpc_record_absent;
	w.seen = w.again = 0;
	w.err = 0;
	w.bad = false;
	rec->nargs = 0;

	for (nla = attrs; kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		unsigned int type = nla->nla_type & NLA_TYPE_MASK;
		unsigned int t = type < KPC_ATTR_OTHER ? type : KPC_ATTR_OTHER;
		const struct kpc_attr_rule *r = &kpc_attr_rules[t];
		const char *data = kpc_nla_data(nla);
		int n = kpc_nla_len(nla);

		/*
		 * Tested without branching: data[n - 1] of an empty one is its
		 * header's last byte, read but not used.
		 */
		w.bad |= (n < r->min) | (n > r->max) | (r->string & (data[n - 1] != '\0'));
		w.again |= w.seen & KPC_BIT(t) & KPC_RECORD_ONCE;
		w.seen |= KPC_BIT(t);
		w.at[t] = data;
		w.len[t] = n;
		if (t == KPRINT_RECORD_A_ARG)
			kpc_record_arg(rec, &w, data, n);
	}
	if (w.bad || (w.seen & KPC_RECORD_REQUIRED) != KPC_RECORD_REQUIRED)
		return -EINVAL;
	if (w.err)
		return w.err;
	if (w.again)
		return -EINVAL;
	/* Trailing bytes the walk could not take as an attribute. */
	if (rem)
		return -EINVAL;
	if (!kpc_record_set_fields(rec, &w))
		return -EINVAL;

	if (rec->level > KPRINT_LEVEL_MAX || rec->class > KPRINT_CLASS_MAX ||
	    rec->source > KPRINT_SOURCE_MAX)
		return -ERANGE;
	/* The id is defined by the format, so a kernel that omits it loses nothing. */
	if (!(w.seen & KPC_BIT(KPRINT_RECORD_A_FORMAT_ID)))
		rec->format_id = kpc_format_id(rec->format);
	rec->raw = attrs;
	rec->raw_len = len;
	return 0;
}

int kpc_record_decode(const struct nlattr *nest, struct kpc_record *rec)
{
	return kpc_record_decode_attrs(kpc_nla_data(nest), kpc_nla_len(nest), rec);
}

/*
 * One nest decoded in memory @mem gives: its attributes copied right after
 * the struct, as kpc_record_copy_with() lays a copy out, and decoded from
 * there, so that the strings point into the copy as they are found.  NULL
 * when @mem gives none or the record is malformed (its memory given back).
 */
static struct kpc_record *kpc_record_decode_into(const struct nlattr *nest,
						 const struct kpc_record_mem *mem)
{
	int len = kpc_nla_len(nest);
	struct kpc_record *rec;

	if (len < 0)
		return NULL;
	rec = mem->alloc(sizeof(*rec) + len, mem->ctx);
	if (!rec)
		return NULL;
	memcpy(rec + 1, kpc_nla_data(nest), len);
	if (!kpc_record_decode_attrs(rec + 1, len, rec))
		return rec;
	mem->release(rec, mem->ctx);
	return NULL;
}

/*
 * The seq of a record that did not decode, when its first SEQ attribute
 * is whole: what the reader needs to account for it.
 */
static bool kpc_record_bad_seq(const struct nlattr *nest, uint64_t *seq)
{
	const struct nlattr *nla;
	int rem = kpc_nla_len(nest);

	if (rem < 0)
		return false;
	for (nla = kpc_nla_data(nest); kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		if ((nla->nla_type & NLA_TYPE_MASK) != KPRINT_RECORD_A_SEQ)
			continue;
		if (nla->nla_len != NLA_HDRLEN + sizeof(*seq))
			return false;
		memcpy(seq, (const char *)nla + NLA_HDRLEN, sizeof(*seq));
		return true;
	}
	return false;
}

static int kpc_record_bad(struct kpc_malformed *bad, const struct nlattr *nest)
{
	uint64_t seq;

	bad->count++;
	if (!bad->seq_fn || !nest || !kpc_record_bad_seq(nest, &seq))
		return 0;
	return bad->seq_fn(seq, bad->ctx);
}

/*
 * One record nest to fn: decoded on the stack, or with @mem into memory
 * that fn keeps or that goes back.  A nest that will not decode into
 * @mem is decoded on the stack after all, so that a record @mem had no
 * memory for still reaches fn (which finds it is not its own), and a
 * malformed one is told as such.
 */
static int kpc_record_nest(const struct nlattr *nla, kpc_record_fn fn, void *ctx,
			   struct kpc_malformed *bad, const struct kpc_record_mem *mem,
			   int *n)
{
	struct kpc_record *into, rec;
	int err;

	into = mem ? kpc_record_decode_into(nla, mem) : NULL;
	if (into) {
		++*n;
		err = fn(into, ctx);
		if (err == KPC_RECORD_KEPT)
			return 0;
		mem->release(into, mem->ctx);
		return err;
	}
	if (kpc_record_decode(nla, &rec))
		return kpc_record_bad(bad, nla);
	++*n;
	return fn(&rec, ctx);
}

int kpc_record_decode_msg_into(struct nlmsghdr *nlh, kpc_record_fn fn, void *ctx,
			       struct kpc_malformed *bad, const struct kpc_record_mem *mem)
{
	const struct nlattr *nla;
	struct genlmsghdr *gnlh;
	int rem, n = 0, err;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	gnlh = nlmsg_data(nlh);

	/* libnl's nla_for_each_attr(), inline. */
	rem = genlmsg_attrlen(gnlh, 0);
	for (nla = genlmsg_attrdata(gnlh, 0); kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		if ((nla->nla_type & NLA_TYPE_MASK) != KPRINT_A_RECORD)
			continue;
		err = kpc_record_nest(nla, fn, ctx, bad, mem, &n);
		if (err)
			return err;
	}
	/* Trailing bytes may be a record cut short: count it, do not guess. */
	if (rem)
		kpc_record_bad(bad, NULL);
	return n;
}

int kpc_record_decode_msg(struct nlmsghdr *nlh, kpc_record_fn fn, void *ctx,
			  struct kpc_malformed *bad)
{
	return kpc_record_decode_msg_into(nlh, fn, ctx, bad, NULL);
}

/*
 * A copy goes over the string fields of struct kpc_record, which the
 * spec's list names: KPC_RECORD_STRINGS(X) is X(field, is_text) for each
 * one but the args, expanded in place, so that a copy per record neither
 * loops over a table nor asks which fields are strings.
 */
#define KPC_RECORD_STRING_U32_0(attr, field, X)
#define KPC_RECORD_STRING_U64_0(attr, field, X)
#define KPC_RECORD_STRING_STRING_1(attr, field, X)
#define KPC_RECORD_STRING_STRING_0(attr, field, X)	X(field, (attr) == KPRINT_RECORD_A_TEXT)
#define KPC_RECORD_STRING(attr, kind, multi, max, field)			\
	KPC_RECORD_STRING_##kind##_##multi(attr, field, KPC_RECORD_STRING_X)
#define KPC_RECORD_STRINGS()	KPC_GENL_RECORD_ATTRS(KPC_RECORD_STRING)

/*
 * The length of a string field of a record built in code, which may leave
 * the strings of fields newer than that code NULL (copied as "") and its
 * lengths 0 (the string then ends at its first NUL).
 */
static inline size_t kpc_record_str_len(const char *s, uint32_t len)
{
	if (!s)
		return 0;
	return len ? len : strlen(s);
}

/*
 * Whether a copy may take string s (len bytes, 0: up to its NUL) with
 * rec's raw attributes: it is in them, NUL and all, or it is empty (the
 * copy's is then a static "").
 */
static inline bool kpc_record_raw_str(const struct kpc_record *rec, const char *s, uint32_t len)
{
	uintptr_t off = (uintptr_t)s - (uintptr_t)rec->raw;

	if (s && off < rec->raw_len)
		return off + len < rec->raw_len;
	return !s || (!*s && !len);
}

/*
 * Whether a copy can be the record's raw attributes in one piece: true of
 * a record as decoded.  Not so for one built in code, nor for one whose
 * strings a caller pointed elsewhere: those are copied string by string.
 */
static bool kpc_record_raw_ok(const struct kpc_record *rec)
{
	bool ok = true;
	unsigned int i;

	if (!rec->raw)
		return false;
#define KPC_RECORD_STRING_X(field, text)					\
	ok &= kpc_record_raw_str(rec, rec->field, (text) ? rec->text_len : 0);
	KPC_RECORD_STRINGS()
#undef KPC_RECORD_STRING_X
	for (i = 0; i < rec->nargs; i++)
		ok &= kpc_record_raw_str(rec, rec->args[i], rec->arg_len[i]);
	return ok;
}

/*
 * The size of rec's copy, and whether it takes the raw attributes whole:
 * found once per copy, as the copy then goes by it.  0 for a record with
 * more args than a record may have.
 */
static size_t kpc_record_layout(const struct kpc_record *rec, bool *raw)
{
	size_t size = sizeof(*rec);
	unsigned int i;

	if (rec->nargs > KPRINT_ARGS_MAX)
		return 0;
	*raw = kpc_record_raw_ok(rec);
	if (*raw)
		return size + rec->raw_len;
#define KPC_RECORD_STRING_X(field, text)					\
	size += kpc_record_str_len(rec->field, (text) ? rec->text_len : 0) + 1;
	KPC_RECORD_STRINGS()
#undef KPC_RECORD_STRING_X
	for (i = 0; i < rec->nargs; i++)
		size += kpc_record_str_len(rec->args[i], rec->arg_len[i]) + 1;
	return size;
}

/* String s of len bytes to p, NUL-terminated: where the next one goes. */
static inline char *kpc_record_put_str(char *p, const char *s, size_t len)
{
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p + len + 1;
}

/* The copy's strings, one by one, after the struct. */
static void kpc_record_copy_strings(struct kpc_record *copy)
{
	char *p = (char *)(copy + 1);
	unsigned int i;
	size_t len;

#define KPC_RECORD_STRING_X(field, text)					\
	len = kpc_record_str_len(copy->field, (text) ? copy->text_len : 0);	\
	if (text)								\
		copy->text_len = len;						\
	p = kpc_record_put_str(p, copy->field, len);				\
	copy->field = p - len - 1;
	KPC_RECORD_STRINGS()
#undef KPC_RECORD_STRING_X
	for (i = 0; i < copy->nargs; i++) {
		len = kpc_record_str_len(copy->args[i], copy->arg_len[i]);
		copy->arg_len[i] = len;
		p = kpc_record_put_str(p, copy->args[i], len);
		copy->args[i] = p - len - 1;
	}
	copy->raw = NULL;
	copy->raw_len = 0;
}

/* Where string s of rec is in a copy of its raw attributes at p. */
static inline const char *kpc_record_moved(const struct kpc_record *rec, const char *s,
					   const char *p)
{
	uintptr_t off = (uintptr_t)s - (uintptr_t)rec->raw;

	return s && off < rec->raw_len ? p + off : "";
}

/* The raw attributes after the struct, and the copy's strings moved into them. */
static void kpc_record_copy_raw(const struct kpc_record *rec, struct kpc_record *copy)
{
	char *p = (char *)(copy + 1);
	unsigned int i;

	memcpy(p, rec->raw, rec->raw_len);
#define KPC_RECORD_STRING_X(field, text)					\
	copy->field = kpc_record_moved(rec, rec->field, p);
	KPC_RECORD_STRINGS()
#undef KPC_RECORD_STRING_X
	for (i = 0; i < rec->nargs; i++)
		copy->args[i] = kpc_record_moved(rec, rec->args[i], p);
	copy->raw = p;
}

struct kpc_record *kpc_record_copy_with(const struct kpc_record *rec,
					void *(*alloc)(size_t size, void *ctx), void *ctx)
{
	struct kpc_record *copy;
	bool raw = false;
	size_t size = kpc_record_layout(rec, &raw);

	copy = size ? alloc(size, ctx) : NULL;
	if (!copy)
		return NULL;
	memcpy(copy, rec, offsetof(struct kpc_record, args));
	memcpy(copy->args, rec->args, rec->nargs * sizeof(*rec->args));
	memcpy(copy->arg_len, rec->arg_len, rec->nargs * sizeof(*rec->arg_len));
	if (raw)
		kpc_record_copy_raw(rec, copy);
	else
		kpc_record_copy_strings(copy);
	return copy;
}

static void *kpc_record_malloc(size_t size, void *ctx)
{
	(void)ctx;
	return malloc(size);
}

struct kpc_record *kpc_record_dup(const struct kpc_record *rec)
{
	return kpc_record_copy_with(rec, kpc_record_malloc, NULL);
}

void kpc_record_free(struct kpc_record *rec)
{
	free(rec);
}
