// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
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
 * which was most of the exporter's cost per record.  What each attribute
 * may be (type, length limit) and which field of struct kpc_record it
 * fills come from the spec, in kpc_genl_record_attrs[]; what is accepted
 * is exactly what nla_parse() with that policy and the walk accepted.
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
 * The policy checked the final NUL.  The text and the args are rendered
 * bytes, in which "%c" of 0 puts a NUL: data, kept with its length.  The
 * other strings are names the kernel holds as C strings, so a NUL inside
 * one would be a broken record, not a message.
 */
static inline bool kpc_nla_name_ok(const char *s, int len)
{
	return memchr(s, '\0', len - 1) == NULL;
}

/*
 * One attribute of the nest: what libnl's validate_nla() checks (exact
 * scalar sizes, string limits and final NUL), then the field of struct
 * kpc_record that the attribute's table names, filled in one switch.
 * Returns 0, -EINVAL for a policy violation (which wins over everything
 * the walk finds), or 1 for an attribute that fills no field once: the
 * args, and attributes this library ignores.
 */
static inline int kpc_record_attr(struct kpc_record *rec, const struct kpc_genl_attr *at,
				  int type, const char *data, int len, bool *names_ok)
{
	char *field = (char *)rec + at->offset;

	switch (at->kind) {
	case KPC_GENL_U32:
		if (len != at->len)
			return -EINVAL;
		/* Constant sizes, so that the copies are moves, not calls. */
		memcpy(field, data, sizeof(uint32_t));
		return 0;
	case KPC_GENL_U64:
		if (len != at->len)
			return -EINVAL;
		memcpy(field, data, sizeof(uint64_t));
		return 0;
	case KPC_GENL_STRING:
		if (len < 1 || len > at->len || data[len - 1] != '\0')
			return -EINVAL;
		if (at->multi)
			return 1;
		if (type == KPRINT_RECORD_A_TEXT)
			rec->text_len = len - 1;
		else if (!kpc_nla_name_ok(data, len))
			*names_ok = false;
		*(const char **)field = data;
		return 0;
	default:
		return 1;	/* PAD and unused numbers: anything */
	}
}

/* The record's one repeated attribute, the args; other repeated ones are ignored. */
static inline int kpc_record_arg(struct kpc_record *rec, int type, const char *data, int len)
{
	if (type != KPRINT_RECORD_A_ARG)
		return 0;
	if (rec->nargs == KPRINT_ARGS_MAX)
		return -E2BIG;
	rec->arg_len[rec->nargs] = len - 1;
	rec->args[rec->nargs++] = data;
	return 0;
}

#define KPC_BIT(type)	(1ull << (type))
/* What a record cannot be without. */
#define KPC_RECORD_REQUIRED						\
	(KPC_BIT(KPRINT_RECORD_A_SEQ) | KPC_BIT(KPRINT_RECORD_A_LEVEL) |	\
	 KPC_BIT(KPRINT_RECORD_A_FORMAT) | KPC_BIT(KPRINT_RECORD_A_TEXT))

int kpc_record_decode(const struct nlattr *nest, struct kpc_record *rec)
{
	int rem = kpc_nla_len(nest), walk_err = 0, type, len, ret;
	const struct kpc_genl_attr *at;
	const struct nlattr *nla;
	bool names_ok = true;
	uint64_t seen = 0;
	const char *data;

	/* Optional strings the kernel left out are "", never NULL. */
	memcpy(rec, &kpc_genl_record_empty, offsetof(struct kpc_record, args));
	if (rem < 0)
		return -EINVAL;

	for (nla = kpc_nla_data(nest); kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		type = nla->nla_type & NLA_TYPE_MASK;
		if (type > KPRINT_RECORD_A_MAX)
			continue;
		at = &kpc_genl_record_attrs[type];
		data = (const char *)nla + NLA_HDRLEN;
		len = nla->nla_len - NLA_HDRLEN;
		ret = kpc_record_attr(rec, at, type, data, len, &names_ok);
		if (ret < 0)
			return ret;
		if (ret) {
			/* An ARG after a walk error is not looked at: the first error is said. */
			if (at->multi && !walk_err)
				walk_err = kpc_record_arg(rec, type, data, len);
			continue;
		}
		/* One of each, but ARGs: nla_parse() would keep the last. */
		if (!walk_err && (seen & KPC_BIT(type)))
			walk_err = -EINVAL;
		seen |= KPC_BIT(type);
	}
	if ((seen & KPC_RECORD_REQUIRED) != KPC_RECORD_REQUIRED)
		return -EINVAL;
	if (walk_err)
		return walk_err;
	/* Trailing bytes the walk could not take as an attribute. */
	if (rem)
		return -EINVAL;
	if (!names_ok)
		return -EINVAL;

	if (rec->level > KPRINT_LEVEL_MAX || rec->class > KPRINT_CLASS_MAX ||
	    rec->source > KPRINT_SOURCE_MAX)
		return -ERANGE;
	/* The id is defined by the format, so a kernel that omits it loses nothing. */
	if (!(seen & KPC_BIT(KPRINT_RECORD_A_FORMAT_ID)))
		rec->format_id = kpc_format_id(rec->format);
	rec->raw = kpc_nla_data(nest);
	rec->raw_len = kpc_nla_len(nest);
	return 0;
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

int kpc_record_decode_msg(struct nlmsghdr *nlh, kpc_record_fn fn, void *ctx,
			  struct kpc_malformed *bad)
{
	const struct nlattr *nla;
	struct genlmsghdr *gnlh;
	struct kpc_record rec;
	int rem, n = 0, err;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	gnlh = nlmsg_data(nlh);

	/* libnl's nla_for_each_attr(), inline. */
	rem = genlmsg_attrlen(gnlh, 0);
	for (nla = genlmsg_attrdata(gnlh, 0); kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		if ((nla->nla_type & NLA_TYPE_MASK) != KPRINT_A_RECORD)
			continue;
		if (kpc_record_decode(nla, &rec))
			err = kpc_record_bad(bad, nla);
		else {
			n++;
			err = fn(&rec, ctx);
		}
		if (err)
			return err;
	}
	/* Trailing bytes may be a record cut short: count it, do not guess. */
	if (rem)
		kpc_record_bad(bad, NULL);
	return n;
}

/* A string field of a record, and its length field if it has one. */
struct kpc_record_slot {
	const char **str;
	uint32_t *len;
};

/*
 * Where struct kpc_record keeps its strings but the args, from the spec's
 * table, found once: a copy per record looked through the whole table
 * twice.
 */
static struct {
	size_t offset;
	bool text;
} kpc_record_fields[KPRINT_RECORD_A_MAX + 1];
static unsigned int kpc_record_nfields;
static pthread_once_t kpc_record_fields_once = PTHREAD_ONCE_INIT;

static void kpc_record_fields_init(void)
{
	unsigned int n = 0;
	int type;

	for (type = 0; type <= KPRINT_RECORD_A_MAX; type++) {
		const struct kpc_genl_attr *at = &kpc_genl_record_attrs[type];

		if (at->kind != KPC_GENL_STRING || at->multi)
			continue;
		kpc_record_fields[n].offset = at->offset;
		kpc_record_fields[n++].text = type == KPRINT_RECORD_A_TEXT;
	}
	kpc_record_nfields = n;
}

/* The string fields of a record, so copying can loop. */
static unsigned int kpc_record_string_slots(struct kpc_record *rec,
					    struct kpc_record_slot *slots)
{
	unsigned int i, n;

	pthread_once(&kpc_record_fields_once, kpc_record_fields_init);
	for (n = 0; n < kpc_record_nfields; n++) {
		slots[n].str = (const char **)((char *)rec + kpc_record_fields[n].offset);
		slots[n].len = kpc_record_fields[n].text ? &rec->text_len : NULL;
	}
	for (i = 0; i < rec->nargs; i++) {
		slots[n].str = &rec->args[i];
		slots[n++].len = &rec->arg_len[i];
	}
	return n;
}

/*
 * A record built in code rather than decoded may leave the strings of
 * fields newer than that code NULL: they are copied as "".  Its lengths
 * may be 0: the string then ends at its first NUL.
 */
static size_t kpc_record_slot_len(const struct kpc_record_slot *slot)
{
	if (!*slot->str)
		return 0;
	if (slot->len && *slot->len)
		return *slot->len;
	return strlen(*slot->str);
}

/* The string field of rec at offset, as kpc_record_fields[] names it. */
static inline const char **kpc_record_field(const struct kpc_record *rec, unsigned int i)
{
	return (const char **)((char *)rec + kpc_record_fields[i].offset);
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
 * Whether a copy can be the record's raw attributes in one piece.  Not so
 * for a record built in code, nor for one whose strings a caller pointed
 * elsewhere: those are copied string by string.
 */
static bool kpc_record_raw_ok(const struct kpc_record *rec)
{
	unsigned int i;

	if (!rec->raw)
		return false;
	pthread_once(&kpc_record_fields_once, kpc_record_fields_init);
	for (i = 0; i < kpc_record_nfields; i++)
		if (!kpc_record_raw_str(rec, *kpc_record_field(rec, i),
					kpc_record_fields[i].text ? rec->text_len : 0))
			return false;
	for (i = 0; i < rec->nargs; i++)
		if (!kpc_record_raw_str(rec, rec->args[i], rec->arg_len[i]))
			return false;
	return true;
}

/* Where string s of rec is in a copy of its raw attributes at p. */
static inline const char *kpc_record_moved(const struct kpc_record *rec, const char *s,
					   const char *p)
{
	uintptr_t off = (uintptr_t)s - (uintptr_t)rec->raw;

	return s && off < rec->raw_len ? p + off : "";
}

/*
 * The size of rec's copy, and whether it takes the raw attributes whole:
 * found once per copy, as the copy then goes by it.  0 for a record with
 * more args than a record may have.
 */
static size_t kpc_record_layout(const struct kpc_record *rec, bool *raw)
{
	struct kpc_record_slot slots[KPRINT_RECORD_A_MAX + 1 + KPRINT_ARGS_MAX];
	size_t size = sizeof(*rec);
	unsigned int i, n;

	if (rec->nargs > KPRINT_ARGS_MAX)
		return 0;
	*raw = kpc_record_raw_ok(rec);
	if (*raw)
		return size + rec->raw_len;
	n = kpc_record_string_slots((struct kpc_record *)rec, slots);
	for (i = 0; i < n; i++)
		size += kpc_record_slot_len(&slots[i]) + 1;
	return size;
}

/* The copy's strings, one by one, after the struct. */
static void kpc_record_copy_strings(struct kpc_record *copy)
{
	struct kpc_record_slot slots[KPRINT_RECORD_A_MAX + 1 + KPRINT_ARGS_MAX];
	char *p = (char *)(copy + 1);
	unsigned int i, n;

	n = kpc_record_string_slots(copy, slots);
	for (i = 0; i < n; i++) {
		size_t len = kpc_record_slot_len(&slots[i]);

		if (len)
			memcpy(p, *slots[i].str, len);
		p[len] = '\0';
		*slots[i].str = p;
		if (slots[i].len)
			*slots[i].len = len;
		p += len + 1;
	}
	copy->raw = NULL;
	copy->raw_len = 0;
}

/* The raw attributes after the struct, and the copy's strings moved into them. */
static void kpc_record_copy_raw(const struct kpc_record *rec, struct kpc_record *copy)
{
	char *p = (char *)(copy + 1);
	unsigned int i;

	memcpy(p, rec->raw, rec->raw_len);
	for (i = 0; i < kpc_record_nfields; i++) {
		const char **f = kpc_record_field(copy, i);

		*f = kpc_record_moved(rec, *f, p);
	}
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
