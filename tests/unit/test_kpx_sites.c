// SPDX-License-Identifier: GPL-2.0
/*
 * The /sites query without a server: its parameters (levels with LEVEL+
 * and "none", kinds, sources, seen, limit, the /formats?never=1 form),
 * which entries it selects, the seen lookup over several sources, and
 * the answer's paging and summary.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kprint_fnv1a.h"
#include "kpx_sites_query.h"
#include "test_kpc_tap.h"

static int param(struct kpx_sites_query *q, const char *name, const char *value)
{
	char err[200];

	return kpx_sites_query_param(q, name, value, value ? strlen(value) : 0, err, sizeof(err));
}

static void add(struct kpc_sites *s, const char *fmt, int level, const char *module,
		const char *function, enum kpc_site_kind kind)
{
	struct kpc_site site = {
		.format_id = kprint_fnv1a64(fmt), .format = (char *)fmt, .level = level,
		.module = (char *)module, .function = (char *)function, .kind = kind,
		.source = strcmp(module, "vmlinux") ? KPC_SITE_SRC_MODULE : KPC_SITE_SRC_IMAGE,
	};

	if (kpc_sites_add(s, &site))
		abort();
}

/* The formats of an answer, joined by '|', or "?" when it does not parse. */
static char *formats_of(char *json)
{
	struct json_object *arr = json ? json_tokener_parse(json) : NULL;
	char *out = calloc(1, 4096);
	size_t n;

	free(json);
	if (!arr || !json_object_is_type(arr, json_type_array)) {
		strcpy(out, "?");
		json_object_put(arr);
		return out;
	}
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *f;

		json_object_object_get_ex(json_object_array_get_idx(arr, i), "format", &f);
		strcat(out, i ? "|" : "");
		strncat(out, json_object_get_string(f), 4000 - strlen(out));
	}
	json_object_put(arr);
	return out;
}

static void test_params(void)
{
	struct kpx_sites_query q;

	kpx_sites_query_init(&q, false);
	tap_ok(!param(&q, "level", "err+") && q.levels == 0xf, "level=err+: emerg..err");
	tap_ok(!param(&q, "level", "warn ") && q.levels == 0x1f,
	       "level=warn with the '+' sent unescaped (a space): emerg..warn");
	tap_ok(!param(&q, "level", "none,cont,default") &&
	       q.levels == (KPX_SITES_LEVEL_NONE_BIT | 1u << KPC_SITE_LEVEL_CONT |
			    1u << KPC_SITE_LEVEL_DEFAULT), "level=none,cont,default");
	tap_ok(param(&q, "level", "cont+") == -EINVAL && param(&q, "level", "err,") == -EINVAL &&
	       param(&q, "level", "") == -EINVAL && param(&q, "level", "none+") == -EINVAL,
	       "level: cont+, a trailing comma, empty and none+ refused");
	tap_ok(!param(&q, "kind", "dev,netdev") &&
	       q.kinds == (1u << KPC_SITE_DEV | 1u << KPC_SITE_NETDEV) &&
	       param(&q, "kind", "devx") == -EINVAL, "kind=dev,netdev; devx refused");
	tap_ok(!param(&q, "source", "printk_index") && q.sources == 1u << KPC_SITE_SRC_INDEX &&
	       param(&q, "source", "printk") == -EINVAL, "source=printk_index; printk refused");
	tap_ok(!param(&q, "seen", "0") && q.seen == 0 && param(&q, "seen", "yes") == -EINVAL,
	       "seen=0; seen=yes refused");
	tap_ok(!param(&q, "limit", "10000") && param(&q, "limit", "10001") == -EINVAL &&
	       param(&q, "limit", "0") == -EINVAL, "limit 1..10000");
	tap_ok(param(&q, "never", "1") == -EINVAL && param(&q, "q", NULL) == -EINVAL,
	       "/sites takes no never=; a parameter without a value is refused");

	kpx_sites_query_init(&q, true);
	tap_ok(kpx_sites_query_check(&q, (char[64]){ 0 }, 64) == -EINVAL,
	       "/formats with a query but no never=1 is refused");
	tap_ok(!param(&q, "never", "1") && !param(&q, "module", "brd") &&
	       !kpx_sites_query_check(&q, (char[64]){ 0 }, 64) &&
	       param(&q, "seen", "1") == -EINVAL && param(&q, "summary", "1") == -EINVAL &&
	       param(&q, "never", "0") == -EINVAL,
	       "/formats?never=1 with module=; seen, summary and never=0 refused");
}

/* kpx_seen_collect()'s order: by format_id, then source. */
static int seen_cmp(const void *a, const void *b)
{
	const struct kpx_seen_format *x = a, *y = b;

	if (x->format_id != y->format_id)
		return x->format_id < y->format_id ? -1 : 1;
	return (int)x->source - (int)y->source;
}

static void test_answer(void)
{
	struct kpx_seen_format v[4];
	struct kpx_seen seen = { v, 0 };
	struct kpc_sites s = { .kernel = "6.1.0-test" };
	struct kpx_sites_query q;
	struct json_object *o, *x;
	uint64_t count;
	bool known;
	char *got;

	add(&s, "a %d", 6, "vmlinux", NULL, KPC_SITE_PRINTK);
	add(&s, "b %s", 3, "brd", "brd_probe", KPC_SITE_DEV);
	add(&s, "c", KPC_SITE_LEVEL_NONE, "vmlinux", NULL, KPC_SITE_PRINTK_BARE);
	add(&s, "d \"q\" \\", 4, "e1000e", "e1000_up", KPC_SITE_NETDEV);
	kpc_sites_sort(&s);
	/* "a %d" under two sources, "d" under one, and one the catalog lacks; by id. */
	v[seen.n++] = (struct kpx_seen_format){ kprint_fnv1a64("a %d"), 2, 0 };
	v[seen.n++] = (struct kpx_seen_format){ kprint_fnv1a64("a %d"), 3, 1 };
	v[seen.n++] = (struct kpx_seen_format){ kprint_fnv1a64("d \"q\" \\"), 7, 1 };
	v[seen.n++] = (struct kpx_seen_format){ kprint_fnv1a64("zz"), 1, 2 };
	qsort(v, seen.n, sizeof(v[0]), seen_cmp);

	known = kpx_seen_count(&seen, kprint_fnv1a64("a %d"), &count);
	tap_ok(known && count == 5, "seen: a format counted under two sources sums them (%llu)",
	       (unsigned long long)count);
	tap_ok(!kpx_seen_count(&seen, kprint_fnv1a64("b %s"), &count) && count == 0,
	       "seen: a format no source counts is not seen");

	kpx_sites_query_init(&q, false);
	param(&q, "seen", "1");
	got = formats_of(kpx_sites_json(&s, "/x", &seen, &q));
	tap_ok(!strcmp(got, "a %d|d \"q\" \\") || !strcmp(got, "d \"q\" \\|a %d"),
	       "seen=1: the two counted formats (%s)", got);
	free(got);

	kpx_sites_query_init(&q, false);
	param(&q, "limit", "2");
	param(&q, "offset", "1");
	got = formats_of(kpx_sites_json(&s, "/x", &seen, &q));
	tap_ok(strchr(got, '|') && !strchr(strchr(got, '|') + 1, '|'),
	       "limit=2&offset=1: two entries (%s)", got);
	free(got);

	kpx_sites_query_init(&q, true);
	param(&q, "never", "1");
	param(&q, "level", "none");
	got = formats_of(kpx_sites_json(&s, "/x", &seen, &q));
	tap_ok(!strcmp(got, "c"), "/formats?never=1&level=none: the one without a level (%s)", got);
	free(got);

	kpx_sites_query_init(&q, false);
	param(&q, "summary", "1");
	param(&q, "kind", "printk,netdev,printk_bare");
	got = kpx_sites_json(&s, "/x", &seen, &q);
	o = got ? json_tokener_parse(got) : NULL;
	tap_ok(o && json_object_object_get_ex(o, "entries", &x) && json_object_get_int(x) == 3 &&
	       json_object_object_get_ex(o, "seen", &x) && json_object_get_int(x) == 2 &&
	       json_object_object_get_ex(o, "never_seen", &x) && json_object_get_int(x) == 1 &&
	       json_object_object_get_ex(o, "kernel", &x) &&
	       !strcmp(json_object_get_string(x), "6.1.0-test"),
	       "summary=1&kind=...: 3 entries, 2 seen, 1 never, the kernel (%s)", got);
	json_object_put(o);
	free(got);
	s.kernel = NULL;
	kpc_sites_free(&s);
}

int main(void)
{
	test_params();
	test_answer();
	return tap_done();
}
