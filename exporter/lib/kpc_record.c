// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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

/* What libnl's validate_nla() checks: exact scalar sizes, string limits. */
static bool kpc_nla_valid(const struct kpc_genl_attr *at, const char *data, int len)
{
	switch (at->kind) {
	case KPC_GENL_U32:
	case KPC_GENL_U64:
		return len == at->len;
	case KPC_GENL_STRING:
		return len >= 1 && len <= at->len && data[len - 1] == '\0';
	default:
		return true;	/* PAD and unused numbers: anything */
	}
}

/*
 * The policy checked the final NUL.  The text and the args are rendered
 * bytes, in which "%c" of 0 puts a NUL: data, kept with its length.  The
 * other strings are names the kernel holds as C strings, so a NUL inside
 * one would be a broken record, not a message.
 */
static bool kpc_nla_string_ok(int type, const char *s, int len)
{
	if (type == KPRINT_RECORD_A_TEXT || type == KPRINT_RECORD_A_ARG)
		return true;
	return memchr(s, '\0', len - 1) == NULL;
}

/* Fill the field of struct kpc_record that the attribute's table names. */
static inline void kpc_record_set(struct kpc_record *rec, const struct kpc_genl_attr *at,
				  const char *data)
{
	char *field = (char *)rec + at->offset;

	/* Constant sizes, so that the copies are moves, not calls. */
	switch (at->kind) {
	case KPC_GENL_STRING:
		*(const char **)field = data;
		break;
	case KPC_GENL_U32:
		memcpy(field, data, sizeof(uint32_t));
		break;
	case KPC_GENL_U64:
		memcpy(field, data, sizeof(uint64_t));
		break;
	}
}

int kpc_record_decode(struct nlattr *nest, struct kpc_record *rec)
{
	const struct nlattr *tb[KPRINT_RECORD_A_MAX + 1] = { NULL };
	int rem = nla_len(nest), walk_err = 0, type, len;
	const struct kpc_genl_attr *at;
	const struct nlattr *nla;
	bool strings_ok = true;
	uint64_t seen = 0;
	const char *data;

	/* Optional strings the kernel left out are "", never NULL. */
	*rec = kpc_genl_record_empty;
	if (rem < 0)
		return -EINVAL;

	for (nla = nla_data(nest); kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		type = nla->nla_type & NLA_TYPE_MASK;
		if (type > KPRINT_RECORD_A_MAX)
			continue;
		at = &kpc_genl_record_attrs[type];
		data = (const char *)nla + NLA_HDRLEN;
		len = nla->nla_len - NLA_HDRLEN;
		/* A policy violation anywhere wins over the walk's errors. */
		if (!kpc_nla_valid(at, data, len))
			return -EINVAL;
		if (at->kind == KPC_GENL_ANY)
			continue;
		if (at->multi) {
			/* The record's one repeated attribute: the args. */
			if (type != KPRINT_RECORD_A_ARG || walk_err)
				continue;
			if (rec->nargs == KPRINT_ARGS_MAX)
				walk_err = -E2BIG;
			else if (!kpc_nla_string_ok(type, data, len))
				walk_err = -EINVAL;
			else {
				rec->arg_len[rec->nargs] = len - 1;
				rec->args[rec->nargs++] = data;
			}
			continue;
		}
		/* One of each, but ARGs: nla_parse() would keep the last. */
		if (!walk_err && (seen & (1ull << type)))
			walk_err = -EINVAL;
		seen |= 1ull << type;
		tb[type] = nla;
		if (at->kind == KPC_GENL_STRING && !kpc_nla_string_ok(type, data, len))
			strings_ok = false;
		if (type == KPRINT_RECORD_A_TEXT)
			rec->text_len = len - 1;
		kpc_record_set(rec, at, data);
	}
	if (!tb[KPRINT_RECORD_A_SEQ] || !tb[KPRINT_RECORD_A_LEVEL] ||
	    !tb[KPRINT_RECORD_A_FORMAT] || !tb[KPRINT_RECORD_A_TEXT])
		return -EINVAL;
	if (walk_err)
		return walk_err;
	/* Trailing bytes the walk could not take as an attribute. */
	if (rem)
		return -EINVAL;
	if (!strings_ok)
		return -EINVAL;

	if (rec->level > KPRINT_LEVEL_MAX || rec->class > KPRINT_CLASS_MAX ||
	    rec->source > KPRINT_SOURCE_MAX)
		return -ERANGE;
	/* The id is defined by the format, so a kernel that omits it loses nothing. */
	if (!tb[KPRINT_RECORD_A_FORMAT_ID])
		rec->format_id = kpc_format_id(rec->format);
	return 0;
}

/*
 * The seq of a record that did not decode, when its first SEQ attribute
 * is whole: what the reader needs to account for it.
 */
static bool kpc_record_bad_seq(struct nlattr *nest, uint64_t *seq)
{
	const struct nlattr *nla;
	int rem = nla_len(nest);

	if (rem < 0)
		return false;
	for (nla = nla_data(nest); kpc_nla_ok(nla, rem); nla = kpc_nla_next(nla, &rem)) {
		if ((nla->nla_type & NLA_TYPE_MASK) != KPRINT_RECORD_A_SEQ)
			continue;
		if (nla->nla_len != NLA_HDRLEN + sizeof(*seq))
			return false;
		memcpy(seq, (const char *)nla + NLA_HDRLEN, sizeof(*seq));
		return true;
	}
	return false;
}

static int kpc_record_bad(struct kpc_malformed *bad, struct nlattr *nest)
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
	struct genlmsghdr *gnlh;
	struct kpc_record rec;
	struct nlattr *nla;
	int rem, n = 0, err;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -EBADMSG;
	gnlh = nlmsg_data(nlh);

	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(nla) != KPRINT_A_RECORD)
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

/* The string fields of a record, from the spec's table, so copying can loop. */
static unsigned int kpc_record_string_slots(struct kpc_record *rec,
					    struct kpc_record_slot *slots)
{
	unsigned int i, n = 0;
	int type;

	for (type = 0; type <= KPRINT_RECORD_A_MAX; type++) {
		const struct kpc_genl_attr *at = &kpc_genl_record_attrs[type];

		if (at->kind != KPC_GENL_STRING || at->multi)
			continue;
		slots[n].str = (const char **)((char *)rec + at->offset);
		slots[n++].len = type == KPRINT_RECORD_A_TEXT ? &rec->text_len : NULL;
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

struct kpc_record *kpc_record_dup(const struct kpc_record *rec)
{
	struct kpc_record_slot slots[KPRINT_RECORD_A_MAX + 1 + KPRINT_ARGS_MAX];
	struct kpc_record *copy;
	size_t size = sizeof(*copy);
	unsigned int i, n;
	char *p;

	if (rec->nargs > KPRINT_ARGS_MAX)
		return NULL;

	/* Size the copy from the original's strings... */
	n = kpc_record_string_slots((struct kpc_record *)rec, slots);
	for (i = 0; i < n; i++)
		size += kpc_record_slot_len(&slots[i]) + 1;

	copy = malloc(size);
	if (!copy)
		return NULL;
	*copy = *rec;

	/* ...then repoint the copy's fields at its own storage. */
	n = kpc_record_string_slots(copy, slots);
	p = (char *)(copy + 1);
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
	return copy;
}

void kpc_record_free(struct kpc_record *rec)
{
	free(rec);
}
