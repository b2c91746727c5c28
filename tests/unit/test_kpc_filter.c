// SPDX-License-Identifier: GPL-2.0
/*
 * Filters: level syntax ("err" exactly, "err+" err or worse), classes,
 * sources, tags and devices.
 */
#include <errno.h>

#include "kpc.h"
#include "test_kpc_tap.h"

#define L(x)	(1u << KPRINT_LEVEL_##x)

static void check_levels(const char *spec, uint32_t want)
{
	uint32_t mask = 0;
	int err = kpc_filter_parse_levels(spec, &mask);

	tap_ok(!err && mask == want, "--level %s selects mask %#x (got %#x)",
	       spec, want, mask);
}

static void check_bad_levels(const char *spec)
{
	uint32_t mask = 0;

	tap_ok(kpc_filter_parse_levels(spec, &mask) == -EINVAL,
	       "--level \"%s\" is rejected", spec);
}

static void test_levels(void)
{
	check_levels("err", L(ERR));
	check_levels("err+", L(EMERG) | L(ALERT) | L(CRIT) | L(ERR));
	check_levels("emerg+", L(EMERG));
	check_levels("debug+", 0xff);
	check_levels("warn", L(WARNING));
	check_levels("warning+", 0x1f);
	check_levels("info,err", L(INFO) | L(ERR));
	check_levels("debug,crit+", L(DEBUG) | L(EMERG) | L(ALERT) | L(CRIT));
	check_bad_levels("");
	check_bad_levels("error");
	check_bad_levels("err++");
	check_bad_levels("+");
	check_bad_levels("err,bogus");
	check_bad_levels("err-");
	/* Found by tests/fuzz/fuzz_query: empty items selected everything. */
	check_bad_levels(",");
	check_bad_levels("err,");
	check_bad_levels(",err");
	check_bad_levels("err,,info");
}

static void test_match(void)
{
	struct kpc_record rec = {
		.level = KPRINT_LEVEL_WARNING, .class = KPRINT_CLASS_DETECTED,
		.subsystem = "usb", .module = "usb_storage", .device = "",
	};
	struct kpc_filter f = { 0 };
	uint32_t classes = 0;

	tap_ok(kpc_filter_match(&f, &rec), "an empty filter matches everything");

	kpc_filter_parse_levels("err+", &f.levels);
	tap_ok(!kpc_filter_match(&f, &rec), "err+ does not match a warning");
	f.levels = 0;
	kpc_filter_parse_levels("warn+", &f.levels);
	tap_ok(kpc_filter_match(&f, &rec), "warn+ matches a warning");
	f.levels = 0;
	kpc_filter_parse_levels("notice+", &f.levels);
	tap_ok(kpc_filter_match(&f, &rec), "notice+ matches a warning (more severe)");

	tap_ok(!kpc_filter_parse_classes("detected,setting", &classes) &&
	       classes == ((1u << KPRINT_CLASS_DETECTED) | (1u << KPRINT_CLASS_SETTING)),
	       "--class detected,setting");
	tap_ok(kpc_filter_parse_classes(",,", &classes) == -EINVAL,
	       "class \",,\" is rejected");
	tap_ok(kpc_filter_parse_classes("hardware", &classes) == -EINVAL,
	       "--class hardware is rejected");
	f.classes = 1u << KPRINT_CLASS_REGISTERED;
	tap_ok(!kpc_filter_match(&f, &rec), "a class filter excludes other classes");
	f.classes = classes;
	tap_ok(kpc_filter_match(&f, &rec), "a class filter matches its class");

	f.subsystem = "usb";
	f.module = "usb_storage";
	tap_ok(kpc_filter_match(&f, &rec), "subsystem and module match exactly");
	f.subsystem = "us";
	tap_ok(!kpc_filter_match(&f, &rec), "a subsystem prefix does not match");
	f.subsystem = NULL;
	f.module = "usb";
	tap_ok(!kpc_filter_match(&f, &rec), "another module does not match");
}

static void test_sources(void)
{
	struct kpc_record kp = {
		.level = KPRINT_LEVEL_INFO, .subsystem = "", .module = "kprint_demo",
		.device = "", .source = KPRINT_SOURCE_KPRINT,
	};
	struct kpc_record pk = {
		.level = KPRINT_LEVEL_ERR, .subsystem = "pci", .module = "e1000e",
		.device = "+pci:0000:00:19.0", .source = KPRINT_SOURCE_PRINTK,
	};
	struct kpc_filter f = { 0 };
	uint32_t mask = 0;

	tap_ok(!kpc_filter_parse_sources("printk", &mask) &&
	       mask == 1u << KPRINT_SOURCE_PRINTK, "--source printk");
	mask = 0;
	tap_ok(!kpc_filter_parse_sources("kprint,printk", &mask) && mask == 3,
	       "--source kprint,printk selects both");
	mask = 0;
	tap_ok(kpc_filter_parse_sources("all", &mask) == -EINVAL &&
	       kpc_filter_parse_sources("", &mask) == -EINVAL &&
	       kpc_filter_parse_sources("printk,", &mask) == -EINVAL &&
	       kpc_filter_parse_sources("Printk", &mask) == -EINVAL &&
	       kpc_filter_parse_sources("kernel", &mask) == -EINVAL,
	       "sources \"all\", \"\", \"printk,\", \"Printk\" and \"kernel\" are rejected");

	kpc_filter_parse_sources("printk", &f.sources);
	tap_ok(kpc_filter_match(&f, &pk) && !kpc_filter_match(&f, &kp),
	       "source=printk: the bridged record, not the kprint one");
	f.sources = 1u << KPRINT_SOURCE_KPRINT;
	tap_ok(!kpc_filter_match(&f, &pk) && kpc_filter_match(&f, &kp),
	       "source=kprint: the kprint record, not the bridged one");
	f.sources = 0;

	f.device = "+pci:0000:00:19.0";
	tap_ok(kpc_filter_match(&f, &pk) && !kpc_filter_match(&f, &kp),
	       "a device matches exactly the records of that device");
	f.device = "+pci:0000:00:19";
	tap_ok(!kpc_filter_match(&f, &pk), "a device prefix does not match");
	f.device = "";
	tap_ok(!kpc_filter_match(&f, &pk) && kpc_filter_match(&f, &kp),
	       "device \"\" selects the records of no device");
	f.device = NULL;
	f.sources = 1u << KPRINT_SOURCE_PRINTK;
	f.module = "e1000e";
	f.levels = 1u << KPRINT_LEVEL_ERR;
	tap_ok(kpc_filter_match(&f, &pk), "source, module and level together");
}

static void test_format_ids(void)
{
	struct kpc_filter f = { 0 };
	struct kpc_record a = { .format_id = 0x0123456789abcdefULL, .subsystem = "",
				.module = "m", .device = "" };
	struct kpc_record b = a;
	unsigned int i;
	int err = 0;

	b.format_id = 42;
	tap_ok(kpc_filter_add_format_id(&f, "0123456789abcdef") == 0 &&
	       kpc_filter_match(&f, &a) && !kpc_filter_match(&f, &b),
	       "--format-id: the record of that format only");
	tap_ok(kpc_filter_add_format_id(&f, "0x2a") == 0 &&
	       kpc_filter_match(&f, &a) && kpc_filter_match(&f, &b),
	       "--format-id: repeats add up, 0x is allowed");
	tap_ok(kpc_filter_add_format_id(&f, "0123456789abcdef0") == -EINVAL &&
	       kpc_filter_add_format_id(&f, "xyz") == -EINVAL &&
	       kpc_filter_add_format_id(&f, "") == -EINVAL,
	       "--format-id: more than 16 digits, not hex, empty: refused");
	for (i = 2; i < KPRINT_FORMAT_IDS_MAX; i++)
		err |= kpc_filter_add_format_id(&f, "1");
	tap_ok(!err && kpc_filter_add_format_id(&f, "1") == -E2BIG,
	       "--format-id: KPRINT_FORMAT_IDS_MAX at most, as one kernel-side filter");
}

int main(void)
{
	test_levels();
	test_match();
	test_sources();
	test_format_ids();
	return tap_done();
}
