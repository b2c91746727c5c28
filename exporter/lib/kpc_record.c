// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "kpc_record.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Fixed-size attributes get maxlen too: libnl only checks a minimum length,
 * and a u64 where a u32 belongs must not be read as its low half.  String
 * limits are the UAPI's, NUL included.
 */
static struct nla_policy kpc_record_policy[KPRINT_RECORD_A_MAX + 1] = {
	[KPRINT_RECORD_A_SEQ]		= { .type = NLA_U64, .maxlen = 8 },
	[KPRINT_RECORD_A_LEVEL]		= { .type = NLA_U32, .maxlen = 4 },
	[KPRINT_RECORD_A_CLASS]		= { .type = NLA_U32, .maxlen = 4 },
	[KPRINT_RECORD_A_TS_MONO_NS]	= { .type = NLA_U64, .maxlen = 8 },
	[KPRINT_RECORD_A_TS_REAL_NS]	= { .type = NLA_U64, .maxlen = 8 },
	[KPRINT_RECORD_A_CPU]		= { .type = NLA_U32, .maxlen = 4 },
	[KPRINT_RECORD_A_PID]		= { .type = NLA_U32, .maxlen = 4 },
	[KPRINT_RECORD_A_COMM]		= { .type = NLA_STRING,
					    .maxlen = KPRINT_COMM_MAX },
	[KPRINT_RECORD_A_FILE]		= { .type = NLA_STRING,
					    .maxlen = KPRINT_TAG_MAX },
	[KPRINT_RECORD_A_LINE]		= { .type = NLA_U32, .maxlen = 4 },
	[KPRINT_RECORD_A_FUNCTION]	= { .type = NLA_STRING,
					    .maxlen = KPRINT_TAG_MAX },
	[KPRINT_RECORD_A_SUBSYSTEM]	= { .type = NLA_STRING,
					    .maxlen = KPRINT_TAG_MAX },
	[KPRINT_RECORD_A_MODULE]	= { .type = NLA_STRING,
					    .maxlen = KPRINT_TAG_MAX },
	[KPRINT_RECORD_A_FORMAT]	= { .type = NLA_STRING,
					    .maxlen = KPRINT_FORMAT_MAX },
	[KPRINT_RECORD_A_FORMAT_ID]	= { .type = NLA_U64, .maxlen = 8 },
	[KPRINT_RECORD_A_ARG]		= { .type = NLA_STRING,
					    .maxlen = KPRINT_ARG_MAX },
	[KPRINT_RECORD_A_TEXT]		= { .type = NLA_STRING,
					    .maxlen = KPRINT_TEXT_MAX },
	[KPRINT_RECORD_A_BLOCK_ID]	= { .type = NLA_U64, .maxlen = 8 },
	[KPRINT_RECORD_A_FLAGS]		= { .type = NLA_U32, .maxlen = 4 },
};

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

uint64_t kpc_format_id(const char *fmt)
{
	const unsigned char *p = (const unsigned char *)fmt;
	uint64_t hash = KPRINT_FNV1A64_OFFSET;

	while (*p) {
		hash ^= *p++;
		hash *= KPRINT_FNV1A64_PRIME;
	}
	return hash;
}

/* The policy checked the final NUL; a NUL before it would hide bytes. */
static int kpc_nla_string(struct nlattr *nla, const char **out)
{
	const char *s = nla_data(nla);
	int len = nla_len(nla);

	if (len < 1 || strnlen(s, len) != (size_t)len - 1)
		return -EINVAL;
	*out = s;
	return 0;
}

static int kpc_record_strings(struct nlattr **tb, struct kpc_record *rec)
{
	static const struct {
		int type;
		size_t offset;
	} fields[] = {
		{ KPRINT_RECORD_A_COMM, offsetof(struct kpc_record, comm) },
		{ KPRINT_RECORD_A_FILE, offsetof(struct kpc_record, file) },
		{ KPRINT_RECORD_A_FUNCTION, offsetof(struct kpc_record, function) },
		{ KPRINT_RECORD_A_SUBSYSTEM, offsetof(struct kpc_record, subsystem) },
		{ KPRINT_RECORD_A_MODULE, offsetof(struct kpc_record, module) },
		{ KPRINT_RECORD_A_FORMAT, offsetof(struct kpc_record, format) },
		{ KPRINT_RECORD_A_TEXT, offsetof(struct kpc_record, text) },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		const char **field = (const char **)((char *)rec + fields[i].offset);

		*field = "";
		if (tb[fields[i].type] && kpc_nla_string(tb[fields[i].type], field))
			return -EINVAL;
	}
	return 0;
}

/*
 * libnl's nla_parse() keeps the last of repeated attributes and ignores
 * trailing bytes; one walk over the nest catches both and collects ARGs,
 * which are the one attribute that may repeat.
 */
static int kpc_record_walk(struct nlattr *nest, struct kpc_record *rec)
{
	uint32_t seen = 0;
	struct nlattr *nla;
	int rem;

	nla_for_each_nested(nla, nest, rem) {
		int type = nla_type(nla);

		if (type == KPRINT_RECORD_A_ARG) {
			if (rec->nargs == KPRINT_ARGS_MAX)
				return -E2BIG;
			if (kpc_nla_string(nla, &rec->args[rec->nargs]))
				return -EINVAL;
			rec->nargs++;
			continue;
		}
		if (type <= KPRINT_RECORD_A_PAD || type > KPRINT_RECORD_A_MAX)
			continue;
		if (seen & (1u << type))
			return -EINVAL;
		seen |= 1u << type;
	}
	return rem ? -EINVAL : 0;
}

int kpc_record_decode(struct nlattr *nest, struct kpc_record *rec)
{
	struct nlattr *tb[KPRINT_RECORD_A_MAX + 1];
	int err;

	memset(rec, 0, sizeof(*rec));
	if (nla_len(nest) < 0)
		return -EINVAL;
	if (nla_parse_nested(tb, KPRINT_RECORD_A_MAX, nest, kpc_record_policy) < 0)
		return -EINVAL;
	if (!tb[KPRINT_RECORD_A_SEQ] || !tb[KPRINT_RECORD_A_LEVEL] ||
	    !tb[KPRINT_RECORD_A_FORMAT] || !tb[KPRINT_RECORD_A_TEXT])
		return -EINVAL;

	err = kpc_record_walk(nest, rec);
	if (err)
		return err;
	err = kpc_record_strings(tb, rec);
	if (err)
		return err;

	rec->seq = nla_get_u64(tb[KPRINT_RECORD_A_SEQ]);
	rec->level = nla_get_u32(tb[KPRINT_RECORD_A_LEVEL]);
	if (rec->level > KPRINT_LEVEL_MAX)
		return -ERANGE;
	if (tb[KPRINT_RECORD_A_CLASS]) {
		rec->class = nla_get_u32(tb[KPRINT_RECORD_A_CLASS]);
		if (rec->class > KPRINT_CLASS_MAX)
			return -ERANGE;
	}
	if (tb[KPRINT_RECORD_A_TS_MONO_NS])
		rec->ts_mono_ns = nla_get_u64(tb[KPRINT_RECORD_A_TS_MONO_NS]);
	if (tb[KPRINT_RECORD_A_TS_REAL_NS])
		rec->ts_real_ns = nla_get_u64(tb[KPRINT_RECORD_A_TS_REAL_NS]);
	if (tb[KPRINT_RECORD_A_CPU])
		rec->cpu = nla_get_u32(tb[KPRINT_RECORD_A_CPU]);
	if (tb[KPRINT_RECORD_A_PID])
		rec->pid = nla_get_u32(tb[KPRINT_RECORD_A_PID]);
	if (tb[KPRINT_RECORD_A_LINE])
		rec->line = nla_get_u32(tb[KPRINT_RECORD_A_LINE]);
	/* The id is defined by the format, so a kernel that omits it loses nothing. */
	if (tb[KPRINT_RECORD_A_FORMAT_ID])
		rec->format_id = nla_get_u64(tb[KPRINT_RECORD_A_FORMAT_ID]);
	else
		rec->format_id = kpc_format_id(rec->format);
	if (tb[KPRINT_RECORD_A_BLOCK_ID])
		rec->block_id = nla_get_u64(tb[KPRINT_RECORD_A_BLOCK_ID]);
	if (tb[KPRINT_RECORD_A_FLAGS])
		rec->flags = nla_get_u32(tb[KPRINT_RECORD_A_FLAGS]);
	return 0;
}

int kpc_record_decode_msg(struct nlmsghdr *nlh, kpc_record_fn fn, void *ctx,
			  unsigned int *malformed)
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
		if (kpc_record_decode(nla, &rec)) {
			(*malformed)++;
			continue;
		}
		n++;
		err = fn(&rec, ctx);
		if (err)
			return err;
	}
	/* Trailing bytes may be a record cut short: count it, do not guess. */
	if (rem)
		(*malformed)++;
	return n;
}

/* The string fields of a record, in one table so copying can loop. */
static unsigned int kpc_record_string_slots(struct kpc_record *rec,
					    const char ***slots)
{
	unsigned int i, n = 0;

	slots[n++] = &rec->comm;
	slots[n++] = &rec->file;
	slots[n++] = &rec->function;
	slots[n++] = &rec->subsystem;
	slots[n++] = &rec->module;
	slots[n++] = &rec->format;
	slots[n++] = &rec->text;
	for (i = 0; i < rec->nargs; i++)
		slots[n++] = &rec->args[i];
	return n;
}

struct kpc_record *kpc_record_dup(const struct kpc_record *rec)
{
	const char **slots[7 + KPRINT_ARGS_MAX];
	struct kpc_record *copy;
	size_t size = sizeof(*copy);
	unsigned int i, n;
	char *p;

	if (rec->nargs > KPRINT_ARGS_MAX)
		return NULL;

	/* Size the copy from the original's strings... */
	n = kpc_record_string_slots((struct kpc_record *)rec, slots);
	for (i = 0; i < n; i++)
		size += strlen(*slots[i]) + 1;

	copy = malloc(size);
	if (!copy)
		return NULL;
	*copy = *rec;

	/* ...then repoint the copy's fields at its own storage. */
	n = kpc_record_string_slots(copy, slots);
	p = (char *)(copy + 1);
	for (i = 0; i < n; i++) {
		size_t len = strlen(*slots[i]) + 1;

		memcpy(p, *slots[i], len);
		*slots[i] = p;
		p += len;
	}
	return copy;
}

void kpc_record_free(struct kpc_record *rec)
{
	free(rec);
}
