// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kpc_filter.h"
#include "kpc_parse.h"

/*
 * Call parse_one for each comma-separated item of spec.  Every item
 * counts, empty ones too (strsep, not strtok): "," or "err," is a
 * mistake, not a list that happens to select everything.
 */
static int kpc_filter_each(const char *spec, uint32_t *mask,
			   int (*parse_one)(char *item, uint32_t *mask))
{
	char *copy, *rest, *item;
	int err = 0;

	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	rest = copy;
	while (!err && (item = strsep(&rest, ",")))
		err = *item ? parse_one(item, mask) : -EINVAL;
	free(copy);
	return err;
}

static int kpc_filter_level_one(char *item, uint32_t *mask)
{
	size_t len = strlen(item);
	bool or_worse = len && item[len - 1] == '+';
	int level;

	if (or_worse)
		item[len - 1] = '\0';
	level = kpc_level_parse(item);
	if (level < 0)
		return level;
	/* Lower numbers are more severe: "err+" is emerg..err. */
	*mask |= or_worse ? (2u << level) - 1 : 1u << level;
	return 0;
}

int kpc_filter_parse_levels(const char *spec, uint32_t *mask)
{
	return kpc_filter_each(spec, mask, kpc_filter_level_one);
}

static int kpc_filter_class_one(char *item, uint32_t *mask)
{
	int class = kpc_class_parse(item);

	if (class < 0)
		return class;
	*mask |= 1u << class;
	return 0;
}

int kpc_filter_parse_classes(const char *spec, uint32_t *mask)
{
	return kpc_filter_each(spec, mask, kpc_filter_class_one);
}

static int kpc_filter_source_one(char *item, uint32_t *mask)
{
	int source = kpc_source_parse(item);

	if (source < 0)
		return source;
	*mask |= 1u << source;
	return 0;
}

int kpc_filter_parse_sources(const char *spec, uint32_t *mask)
{
	return kpc_filter_each(spec, mask, kpc_filter_source_one);
}

int kpc_filter_add_format_id(struct kpc_filter *f, const char *hex)
{
	uint64_t id;

	if (!strncmp(hex, "0x", 2) || !strncmp(hex, "0X", 2))
		hex += 2;
	if (strlen(hex) > 16 || kpc_parse_u64(hex, 16, UINT64_MAX, &id))
		return -EINVAL;
	if (f->nr_format_ids == KPRINT_FORMAT_IDS_MAX)
		return -E2BIG;
	f->format_ids[f->nr_format_ids++] = id;
	return 0;
}

static bool kpc_filter_format(const struct kpc_filter *f, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < f->nr_format_ids; i++)
		if (f->format_ids[i] == id)
			return true;
	return !f->nr_format_ids;
}

bool kpc_filter_match(const struct kpc_filter *f, const struct kpc_record *rec)
{
	if (f->levels && !(f->levels & (1u << rec->level)))
		return false;
	if (f->classes && !(f->classes & (1u << rec->class)))
		return false;
	if (f->sources && !(f->sources & (1u << rec->source)))
		return false;
	if (f->subsystem && strcmp(f->subsystem, rec->subsystem))
		return false;
	if (f->device && strcmp(f->device, rec->device))
		return false;
	if (f->module && strcmp(f->module, rec->module))
		return false;
	return kpc_filter_format(f, rec->format_id);
}
