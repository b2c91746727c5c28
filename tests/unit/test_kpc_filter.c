// SPDX-License-Identifier: GPL-2.0
/* Filters: level syntax ("err" exactly, "err+" err or worse), classes, tags. */
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
		.subsystem = "usb", .module = "usb_storage",
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

int main(void)
{
	test_levels();
	test_match();
	return tap_done();
}
