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
 * which was most of the exporter's cost per record.  A record in the order
 * kprint.ko writes it is read in one straight run that expects each
 * attribute in turn (kpc_record_decode_ordered()); any other order, an
 * unknown attribute, or anything wrong with one, goes to the walk that
 * takes attributes in any order, each a case of one switch expanded from
 * the spec's list (KPC_GENL_RECORD_ATTRS), which decides what is wrong.
 * What is accepted is exactly what nla_parse() with the spec's policy and
 * a walk for the args accepted, either way.
 */

/* A bit per attribute in the walk's "seen" set. */
_Static_assert(KPRINT_RECORD_A_MAX < 64, "record attributes fit a uint64_t");

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
 * Whether @n bytes at @s hold a NUL, a word at a time: names are a few
 * words long, and a call to memchr() cost more than the search under the
 * benchmarks' emulation.  The last word overlaps the one before rather
 * than reading past @s + @n.
 */
static inline __attribute__((always_inline)) bool kpc_has_nul(const char *s, size_t n)
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
 * The policy checked the final NUL.  The text and the args are rendered
 * bytes, in which "%c" of 0 puts a NUL: data, kept with its length.  The
 * other strings are names the kernel holds as C strings, so a NUL inside
 * one would be a broken record, not a message.
 */
static inline bool kpc_nla_name_ok(const char *s, int len)
{
	return !kpc_has_nul(s, len - 1);
}

/*
 * What one walk over a nest has found so far.  Its first error is said
 * after the policy's: an attribute met twice (which nla_parse() would
 * have kept the last of), or an arg too many.
 */
struct kpc_record_walk {
	uint64_t seen;		/* attributes met, but the args */
	uint64_t again;		/* attributes met twice */
	int err;		/* -E2BIG, when before any attribute met twice */
	bool names_ok;
};

#define KPC_BIT(type)	(1ull << (type))

/* One of each, but the args: only noted, as it is rare. */
static inline void kpc_record_once(struct kpc_record_walk *w, int type)
{
	w->again |= w->seen & KPC_BIT(type);
	w->seen |= KPC_BIT(type);
}

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

/*
 * A case per kind of attribute, with what libnl's validate_nla() checks
 * (exact scalar sizes, string limits and final NUL) and then the field.
 * Constant sizes make the copies moves, not calls.
 */
#define KPC_DECODE_U32_0(attr, max, field)					\
	if (len != (max))							\
		return -EINVAL;							\
	memcpy(&rec->field, data, sizeof(uint32_t));				\
	kpc_record_once(w, attr);
#define KPC_DECODE_U64_0(attr, max, field)					\
	if (len != (max))							\
		return -EINVAL;							\
	memcpy(&rec->field, data, sizeof(uint64_t));				\
	kpc_record_once(w, attr);
#define KPC_DECODE_STRING_0(attr, max, field)					\
	if (len < 1 || len > (max) || data[len - 1] != '\0')			\
		return -EINVAL;							\
	if ((attr) == KPRINT_RECORD_A_TEXT)					\
		rec->text_len = len - 1;					\
	else if (!kpc_nla_name_ok(data, len))					\
		w->names_ok = false;						\
	rec->field = data;							\
	kpc_record_once(w, attr);
#define KPC_DECODE_STRING_1(attr, max, field)					\
	if (len < 1 || len > (max) || data[len - 1] != '\0')			\
		return -EINVAL;							\
	kpc_record_arg(rec, w, data, len);
#define KPC_DECODE_CASE(attr, kind, multi, max, field)				\
	case attr:								\
		KPC_DECODE_##kind##_##multi(attr, max, field)			\
		return 0;

/*
 * One attribute of the nest into its field.  Returns 0, or -EINVAL for a
 * policy violation, which wins over everything the walk finds.  PAD and
 * numbers this library does not know may be anything.
 */
static inline int kpc_record_attr(struct kpc_record *rec, struct kpc_record_walk *w,
				  int type, const char *data, int len)
{
	switch (type) {
	KPC_GENL_RECORD_ATTRS(KPC_DECODE_CASE)
	default:
		return 0;
	}
}

/* What a record cannot be without. */
#define KPC_RECORD_REQUIRED						\
	(KPC_BIT(KPRINT_RECORD_A_SEQ) | KPC_BIT(KPRINT_RECORD_A_LEVEL) |	\
	 KPC_BIT(KPRINT_RECORD_A_FORMAT) | KPC_BIT(KPRINT_RECORD_A_TEXT))

/* The attributes of a record nest in any order, @len bytes at @attrs, into @rec. */
static int kpc_record_decode_any(const void *attrs, int len, struct kpc_record *rec)
{
	struct kpc_record_walk w = { .names_ok = true };
	int rem = len, ret;
	const struct nlattr *nla;

	/* Optional strings the kernel left out are "", never NULL. */
	memcpy(rec, &kpc_genl_record_empty, offsetof(struct kpc_record, args));
	if (rem < 0)
		return -EINVAL;

	for (nla = attrs; kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		ret = kpc_record_attr(rec, &w, nla->nla_type & NLA_TYPE_MASK,
				      kpc_nla_data(nla), kpc_nla_len(nla));
		if (ret)
			return ret;
	}
	if ((w.seen & KPC_RECORD_REQUIRED) != KPC_RECORD_REQUIRED)
		return -EINVAL;
	if (w.err)
		return w.err;
	if (w.again)
		return -EINVAL;
	/* Trailing bytes the walk could not take as an attribute. */
	if (rem)
		return -EINVAL;
	if (!w.names_ok)
		return -EINVAL;
	/* The id is defined by the format, so a kernel that omits it loses nothing. */
	if (!(w.seen & KPC_BIT(KPRINT_RECORD_A_FORMAT_ID)))
		rec->format_id = kpc_format_id(rec->format);
	return 0;
}

/* The spec's limit of each string attribute, for the ordered decode. */
#define KPC_MAX_U32(max)	0
#define KPC_MAX_U64(max)	0
#define KPC_MAX_STRING(max)	max
#define KPC_MAX(attr, kind, multi, max, field)	[attr] = KPC_MAX_##kind(max),
static const uint16_t kpc_record_str_max[KPRINT_RECORD_A_MAX + 1] = {
	KPC_GENL_RECORD_ATTRS(KPC_MAX)
};

/*
 * The ordered decode's steps, inlined even where the compiler would call
 * them: a call and its return cost more than a step under emulation.
 */
#define kpc_step	static inline __attribute__((always_inline))

/* Where the ordered decode is in a nest, and whether a name had a NUL inside. */
struct kpc_record_cursor {
	const struct nlattr *nla;
	int rem;
	bool names_bad;
};

/*
 * The next attribute if it is a string of @type: at least its NUL, at
 * most the spec's limit, and that NUL last.  Its payload and length, the
 * cursor moved past it; NULL otherwise, the cursor left where it was.
 */
kpc_step const char *kpc_take_str(struct kpc_record_cursor *c, int type, int *len)
{
	const struct nlattr *nla = c->nla;
	const char *data = kpc_nla_data(nla);
	int n;

	if (c->rem < (int)sizeof(*nla))
		return NULL;
	n = kpc_nla_len(nla);
	/* One test of all: under emulation every branch costs more than a compare. */
	if (!((nla->nla_len <= c->rem) & (nla->nla_type == type) & (n >= 1) &
	      (n <= kpc_record_str_max[type])))
		return NULL;
	/* n >= 1: the last byte is inside the attribute. */
	if (data[n - 1])
		return NULL;
	*len = n;
	c->nla = kpc_nla_next(nla, &c->rem);
	return data;
}

/* An attribute's header as it lies in memory, to be compared in one go. */
kpc_step uint32_t kpc_nla_hdr(int len, int type)
{
	struct nlattr h = { .nla_len = len, .nla_type = type };
	uint32_t v;

	memcpy(&v, &h, sizeof(v));
	return v;
}

/*
 * A number of @size bytes into @field (KPC_TAKE(), which gives the size):
 * its header has one right value, length and type, checked at once.
 */
kpc_step bool kpc_take_num(struct kpc_record_cursor *c, int type, void *field, int size)
{
	const int len = NLA_HDRLEN + size;
	uint32_t hdr;

	if (c->rem < len)
		return false;
	memcpy(&hdr, c->nla, sizeof(hdr));
	if (hdr != kpc_nla_hdr(len, type))
		return false;
	memcpy(field, kpc_nla_data(c->nla), size);
	c->nla = (const struct nlattr *)((const char *)c->nla + NLA_ALIGN(len));
	c->rem -= NLA_ALIGN(len);
	return true;
}

#define KPC_TAKE(c, type, field)	kpc_take_num(c, type, field, sizeof(*(field)))

/* KPC_TAKE() has a number's size from its field: the spec's, checked here. */
#define KPC_FIELD_SIZE_U32(field)						\
	_Static_assert(sizeof(((struct kpc_record *)0)->field) == sizeof(uint32_t), #field);
#define KPC_FIELD_SIZE_U64(field)						\
	_Static_assert(sizeof(((struct kpc_record *)0)->field) == sizeof(uint64_t), #field);
#define KPC_FIELD_SIZE_STRING(field)
#define KPC_FIELD_SIZE(attr, kind, multi, max, field)	KPC_FIELD_SIZE_##kind(field)
KPC_GENL_RECORD_ATTRS(KPC_FIELD_SIZE)

kpc_step bool kpc_take_name(struct kpc_record_cursor *c, int type, const char **field)
{
	int n;
	const char *data = kpc_take_str(c, type, &n);

	if (!data)
		return false;
	c->names_bad |= kpc_has_nul(data, n - 1);
	*field = data;
	return true;
}

/* The optional numbers: 0 when left out. */
#define KPC_TAKE_OPT(c, type, field)						\
	do {									\
		if (!KPC_TAKE(c, type, field))					\
			*(field) = 0;						\
	} while (0)

/*
 * A record in the order kprint.ko writes it (kernel/kprint_nl_fill.c):
 * the fixed head, the strings in storage order with LINE after FILE and
 * FORMAT_ID after FORMAT, DEVICE only when set, then the flags and the
 * numbers sent only when set.  Each attribute is expected in turn, so a
 * record costs a compare or two per attribute and no jump on its type:
 * under emulation that jump cost more than the rest of the decoding, and
 * on the host this takes 38 ns a record against the switch's 70.
 * Returns whether @rec is decoded; false for anything else (another
 * order, PAD, an attribute unknown, twice, or wrong), which
 * kpc_record_decode_any() then decodes or refuses with its reason.
 */
static bool kpc_record_decode_ordered(const void *attrs, int len, struct kpc_record *rec)
{
	struct kpc_record_cursor c = { .nla = attrs, .rem = len };
	const char *s;
	int n;

	if (len < 0 ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_SEQ, &rec->seq) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_LEVEL, &rec->level) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_CLASS, &rec->class) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_TS_MONO_NS, &rec->ts_mono_ns) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_TS_REAL_NS, &rec->ts_real_ns) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_CPU, &rec->cpu) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_PID, &rec->pid) ||
	    !kpc_take_name(&c, KPRINT_RECORD_A_COMM, &rec->comm) ||
	    !kpc_take_name(&c, KPRINT_RECORD_A_FILE, &rec->file) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_LINE, &rec->line) ||
	    !kpc_take_name(&c, KPRINT_RECORD_A_FUNCTION, &rec->function) ||
	    !kpc_take_name(&c, KPRINT_RECORD_A_SUBSYSTEM, &rec->subsystem) ||
	    !kpc_take_name(&c, KPRINT_RECORD_A_MODULE, &rec->module))
		return false;
	if (!kpc_take_name(&c, KPRINT_RECORD_A_DEVICE, &rec->device))
		rec->device = "";
	if (!kpc_take_name(&c, KPRINT_RECORD_A_FORMAT, &rec->format) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_FORMAT_ID, &rec->format_id))
		return false;
	rec->nargs = 0;
	while ((s = kpc_take_str(&c, KPRINT_RECORD_A_ARG, &n))) {
		if (rec->nargs == KPRINT_ARGS_MAX)
			return false;
		rec->arg_len[rec->nargs] = n - 1;
		rec->args[rec->nargs++] = s;
	}
	s = kpc_take_str(&c, KPRINT_RECORD_A_TEXT, &n);
	if (!s)
		return false;
	rec->text = s;
	rec->text_len = n - 1;
	KPC_TAKE_OPT(&c, KPRINT_RECORD_A_BLOCK_ID, &rec->block_id);
	if (!KPC_TAKE(&c, KPRINT_RECORD_A_FLAGS, &rec->flags) ||
	    !KPC_TAKE(&c, KPRINT_RECORD_A_SOURCE, &rec->source))
		return false;
	KPC_TAKE_OPT(&c, KPRINT_RECORD_A_FACILITY, &rec->facility);
	KPC_TAKE_OPT(&c, KPRINT_RECORD_A_CONTINUES, &rec->continues);
	KPC_TAKE_OPT(&c, KPRINT_RECORD_A_PRINTK_SEQ, &rec->printk_seq);
	KPC_TAKE_OPT(&c, KPRINT_RECORD_A_FILTERED, &rec->filtered);
	return !c.rem && !c.names_bad;
}

/* The attributes of a record nest, @len bytes at @attrs, into @rec. */
static int kpc_record_decode_attrs(const void *attrs, int len, struct kpc_record *rec)
{
	int err = 0;

	if (!kpc_record_decode_ordered(attrs, len, rec))
		err = kpc_record_decode_any(attrs, len, rec);
	if (err)
		return err;
	if (rec->level > KPRINT_LEVEL_MAX || rec->class > KPRINT_CLASS_MAX ||
	    rec->source > KPRINT_SOURCE_MAX)
		return -ERANGE;
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
