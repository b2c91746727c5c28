// SPDX-License-Identifier: GPL-2.0
/*
 * Text output: color specs (words and VGA attribute bytes), escaping that
 * keeps records from driving the terminal, and the line format.
 */
#include <errno.h>
#include <stdlib.h>

#include "kpc.h"
#include "test_kpc_tap.h"

/* Run kpc_text_escape() into a string; caller frees. */
static char *escaped(const char *s, bool utf8)
{
	return tap_capture(f, kpc_text_escape(f, s, utf8));
}

static void check_escape(const char *in, bool utf8, const char *want,
			 const char *what)
{
	char *got = escaped(in, utf8);

	tap_ok(!strcmp(got, want), "escape %s (got \"%s\")", what, got);
	free(got);
}

static void check_color(const char *spec, const char *want)
{
	char out[KPC_COLOR_MAX];
	int err = kpc_color_parse(spec, out, sizeof(out));

	tap_ok(!err && !strcmp(out, want), "color spec \"%s\" is \\e[%s",
	       spec, *want ? want + 2 : "(nothing)");
}

static void check_bad_color(const char *spec)
{
	char out[KPC_COLOR_MAX];

	tap_ok(kpc_color_parse(spec, out, sizeof(out)) == -EINVAL,
	       "color spec \"%s\" is rejected", spec);
}

static void test_colors(void)
{
	check_color("0x17", "\033[37;44m");	/* the seed's default: gray on blue */
	check_color("0x02", "\033[32;40m");	/* NetBSD's green on black */
	check_color("0x03", "\033[36;40m");	/* VGA 3 is cyan, whatever the seed says */
	check_color("0x06", "\033[33;40m");	/* brown shows as yellow */
	check_color("0x41", "\033[34;41m");	/* blue on red: VGA swaps red and blue */
	check_color("0x0F", "\033[1;37;40m");	/* highlight: bright white */
	check_color("0x9e", "\033[5;1;33;44m");	/* blink, highlight, yellow on blue */
	check_color("0x7", "\033[37;40m");
	check_color("bold,red", "\033[1;31m");
	check_color("yellow", "\033[33m");
	check_color("blue,bg-white", "\033[34;47m");
	check_color("reverse,bold,red", "\033[7;1;31m");
	check_color("bright-cyan", "\033[96m");
	check_color("bg-bright-black,gray", "\033[100;37m");
	check_color("dim", "\033[2m");
	check_color("default", "");

	check_bad_color("");
	check_bad_color("0x");
	check_bad_color("0x100");
	check_bad_color("0x1g");
	check_bad_color("0x+1");
	check_bad_color("purple");
	check_bad_color("bold,");
	check_bad_color(",red");
	check_bad_color("bg-");
	check_bad_color("red;31");
}

static void test_level_colors(void)
{
	struct kpc_text_opts o;

	kpc_text_init(&o, true, true);
	tap_ok(!strcmp(o.level_color[KPRINT_LEVEL_ERR], "\033[31m") &&
	       !strcmp(o.level_color[KPRINT_LEVEL_WARNING], "\033[33m") &&
	       !strcmp(o.level_color[KPRINT_LEVEL_INFO], "") &&
	       strstr(o.level_color[KPRINT_LEVEL_EMERG], "7") &&
	       strstr(o.level_color[KPRINT_LEVEL_CRIT], "1;31"),
	       "default level colors: emerg reverse, crit bold red, err red, warn yellow, info plain");
	tap_ok(!kpc_text_set_level_color(&o, "err=0x17") &&
	       !strcmp(o.level_color[KPRINT_LEVEL_ERR], "\033[37;44m"),
	       "--level-color err=0x17");
	tap_ok(!kpc_text_set_level_color(&o, "warning=bold,magenta") &&
	       !strcmp(o.level_color[KPRINT_LEVEL_WARNING], "\033[1;35m"),
	       "--level-color warning=bold,magenta");
	tap_ok(!kpc_text_set_level_color(&o, "info=default") &&
	       !strcmp(o.level_color[KPRINT_LEVEL_INFO], ""),
	       "--level-color info=default turns color off for info");
	tap_ok(kpc_text_set_level_color(&o, "bogus=red") == -EINVAL &&
	       kpc_text_set_level_color(&o, "err") == -EINVAL &&
	       kpc_text_set_level_color(&o, "=red") == -EINVAL &&
	       kpc_text_set_level_color(&o, "err=purple") == -EINVAL &&
	       !strcmp(o.level_color[KPRINT_LEVEL_ERR], "\033[37;44m"),
	       "bad --level-color assignments are rejected and change nothing");
}

static void test_escape(void)
{
	check_escape("plain text 42%", true, "plain text 42%", "leaves printable ASCII alone");
	check_escape("a\033[31mred\033[0m", true, "a\\x1b[31mred\\x1b[0m", "ESC");
	check_escape("back\\slash", true, "back\\\\slash", "a backslash as \\\\");
	check_escape("nl\ntab\tcr\rbel\adel\x7f", true,
		     "nl\\x0atab\\x09cr\\x0dbel\\x07del\\x7f", "C0 controls and DEL");
	check_escape("\033]0;owned\007", true, "\\x1b]0;owned\\x07", "an OSC title sequence");
	check_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true,
		     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		     "keeps valid UTF-8 on a UTF-8 terminal");
	check_escape("\xc2\x9b" "31m", true, "\\xc2\\x9b31m", "U+009B (CSI) on a UTF-8 terminal");
	check_escape("\x9b" "31m", true, "\\x9b31m", "a lone 0x9b (8-bit CSI)");
	check_escape("\xff\xc3(", true, "\\xff\\xc3(", "ill-formed UTF-8");
	check_escape("\xed\xa0\x80", true, "\\xed\\xa0\\x80", "an encoded surrogate");
	check_escape("\xc0\xaf", true, "\\xc0\\xaf", "an overlong '/'");
	check_escape("caf\xc3\xa9", false, "caf\\xc3\\xa9", "every byte >= 0x80 on a non-UTF-8 terminal");
}

static char *line(const struct kpc_text_opts *o, const struct kpc_record *rec)
{
	return tap_capture(f, kpc_text_print(f, o, rec));
}

/* The check that rec's line, as o prints it, is want. */
static void line_is(const struct kpc_text_opts *o, const struct kpc_record *rec,
		    const char *want, const char *what)
{
	char *got = line(o, rec);

	tap_ok(!strcmp(got, want), "%s", what);
	free(got);
}

/* The check that rec's line, as o prints it, holds want. */
static void line_has(const struct kpc_text_opts *o, const struct kpc_record *rec,
		     const char *want, const char *what)
{
	char *got = line(o, rec);

	tap_ok(strstr(got, want) != NULL, "%s", what);
	free(got);
}

/* The check that rec's line holds want and no escape byte: what it shows is escaped. */
static void line_escaped(const struct kpc_text_opts *o, const struct kpc_record *rec,
			 const char *want, const char *what)
{
	char *got = line(o, rec);

	tap_ok(!strchr(got, '\033') && strstr(got, want), "%s", what);
	free(got);
}

static void test_line(void)
{
	struct kpc_record rec = {
		.seq = 1, .level = KPRINT_LEVEL_ERR, .ts_mono_ns = 12345678901ULL,
		.comm = "", .file = "", .function = "", .module = "", .device = "",
		.subsystem = "usb-storage", .format = "%s",
		.text = "cheesy flash drive detected at 12\n",
	};
	struct kpc_text_opts o;
	char *got;

	kpc_text_init(&o, false, true);
	line_is(&o, &rec, "[   12.345678] err    usb-storage: cheesy flash drive detected at 12\n",
		"text line: [seconds.micros] level subsystem: text, the text's newline dropped");

	rec.subsystem = "";
	rec.level = KPRINT_LEVEL_NOTICE;
	rec.ts_mono_ns = 123456789012345ULL;
	rec.text = "no subsystem";
	line_is(&o, &rec, "[123456.789012] notice no subsystem\n",
		"text line without a subsystem");

	rec.subsystem = "evil\033[2J";
	rec.text = "two\nlines\033[31m";
	line_escaped(&o, &rec, "evil\\x1b[2J: two\\x0alines\\x1b[31m",
		     "subsystem and text are escaped in the line");

	/* printk("xxx%cyyy\n", '\0'): the NUL shown as /dev/kmsg shows it. */
	rec.subsystem = "";
	rec.text = "xxx\0yyy\n";
	rec.text_len = 8;
	line_has(&o, &rec, " notice xxx\\x00yyy\n",
		 "a NUL in the text is \\x00, the bytes after it kept, the newline dropped");
	rec.text_len = 0;
	rec.subsystem = "evil\033[2J";

	kpc_text_init(&o, true, true);
	rec.level = KPRINT_LEVEL_ERR;
	rec.subsystem = "usb";
	rec.text = "boom";
	line_is(&o, &rec, "\033[32m[123456.789012]\033[0m \033[31merr   \033[0m "
		"\033[36musb\033[0m: \033[31mboom\033[0m\n",
		"colored line: green time, level color on level and text, cyan subsystem");

	rec.level = KPRINT_LEVEL_INFO;
	got = line(&o, &rec);
	tap_ok(!strstr(got, "\033[0m\033[0m") && strstr(got, " info   \033[36musb") &&
	       strstr(got, ": boom\n"), "a level without color gets no escape codes");
	free(got);
}

/* printk records: where they come from in brackets, in place of "subsystem: ". */
static void test_printk_line(void)
{
	struct kpc_record rec = {
		.seq = 9, .level = KPRINT_LEVEL_INFO, .ts_mono_ns = 3141592653ULL,
		.comm = "swapper/0", .file = "", .function = "free_initmem+0x1/0x2",
		.module = "vmlinux", .device = "", .subsystem = "", .format = "%s",
		.text = "Freeing unused kernel memory: 2048K",
		.source = KPRINT_SOURCE_PRINTK,
	};
	struct kpc_text_opts o;

	kpc_text_init(&o, false, true);
	line_is(&o, &rec, "[    3.141592] info   [printk] Freeing unused kernel memory: 2048K\n",
		"a printk record: [printk] where the subsystem would be");

	rec.level = KPRINT_LEVEL_ERR;
	rec.subsystem = "pci";
	rec.device = "+pci:0000:00:19.0";
	rec.text = "e1000e 0000:00:19.0: link down";
	line_is(&o, &rec, "[    3.141592] err    [printk +pci:0000:00:19.0] "
		"e1000e 0000:00:19.0: link down\n",
		"a dev_err(): the device, the subsystem left out when the device names it");

	rec.subsystem = "block";
	rec.device = "b8:0";
	rec.text = "sd 0:0:0:0: [sda] Attached SCSI disk";
	line_has(&o, &rec, "] err    [printk block b8:0] sd 0:0:0:0: [sda] Attached",
		 "a block device: subsystem and device");

	rec.subsystem = "plat\033[2J";
	rec.device = "+plat\033[2J:x\ny";
	line_escaped(&o, &rec, "[printk +plat\\x1b[2J:x\\x0ay] ",
		     "subsystem and device are escaped like the text");

	rec.subsystem = "";
	rec.device = "";
	rec.flags = KPRINT_RECORD_F_BACKLOG;
	rec.level = KPRINT_LEVEL_NOTICE;
	rec.text = "Linux version 6.1.0-18-amd64";
	line_is(&o, &rec, "[    3.141592] notice [printk backlog] Linux version 6.1.0-18-amd64\n",
		"a backlog record says so");

	rec.flags = KPRINT_RECORD_F_CONT;
	rec.continues = 4711;
	rec.text = " done.";
	line_is(&o, &rec, "[    3.141592] notice [printk cont 4711]  done.\n",
		"a pr_cont() fragment names the record whose line it continues");

	kpc_text_init(&o, true, true);
	rec.flags = 0;
	rec.level = KPRINT_LEVEL_ERR;
	rec.text = "boom";
	line_is(&o, &rec, "\033[32m[    3.141592]\033[0m \033[31merr   \033[0m "
		"\033[36m[printk]\033[0m \033[31mboom\033[0m\n",
		"colored: the brackets cyan, like a subsystem");
}

static char *stats_text(const struct kpc_stats *st)
{
	return tap_capture(f, kpc_text_stats(f, st));
}

static void test_stats(void)
{
	struct kpc_stats st = { .records = 5, .next_seq = 9 };
	char *got;

	st.present = (1u << KPRINT_STATS_A_RECORDS) | (1u << KPRINT_STATS_A_NEXT_SEQ);
	got = stats_text(&st);
	tap_ok(!strncmp(got, "records                           5\n", 36) &&
	       strstr(got, "\nnext_seq                          9\n") &&
	       strstr(got, "\noverwritten                       -\n") &&
	       strstr(got, "\nbridge                            -\n") && !strstr(got, "bridged"),
	       "stats: a row per counter, \"-\" for those not sent, bridge \"-\" without its counters");
	free(got);

	test_stats_bridge(&st);
	got = stats_text(&st);
	tap_ok(strstr(got, "\nbridge         on, bridged 812, skipped 3, dropped 12 (nmi 1, "
			   "recursion 2, scratch 4, missed 5), backlog 554\n") &&
	       !strstr(got, "bridge_"),
	       "stats: the bridge's counters on one line, dropped the sum of its reasons");
	free(got);
	st.bridge = 0;
	got = stats_text(&st);
	tap_ok(strstr(got, "\nbridge         off, bridged 812,") != NULL, "stats: bridge off");
	free(got);
}

int main(void)
{
	test_colors();
	test_level_colors();
	test_escape();
	test_line();
	test_printk_line();
	test_stats();
	return tap_done();
}
