/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records as dmesg-like text lines:
 *
 *	[   12.345678] err    usb-storage: cheesy flash drive detected at 12
 *
 * CLOCK_MONOTONIC seconds.micros (dmesg's clock), the level name padded
 * to 6, "subsystem: " when there is one, and the text.  A record the
 * printk bridge took says so in brackets where the subsystem would be,
 * with its SUBSYSTEM and DEVICE (the subsystem left out when the device
 * names it, "+pci:0000:00:19.0"), "backlog" for one taken from printk's
 * ring at load, and "cont SEQ" for a pr_cont() fragment of record SEQ's
 * line; the text already has dev_printk()'s "driver device: " prefix:
 *
 *	[    3.141592] info   [printk] Freeing unused kernel memory: 2048K
 *	[    7.000001] err    [printk +pci:0000:00:19.0] e1000e 0000:00:19.0: link down
 *	[    0.000000] notice [printk backlog] Linux version 6.1.0-18-amd64 ...
 *	[    7.100000] info   [printk cont 4711] done.
 *
 * With colors the timestamp is green, the subsystem (or the brackets)
 * cyan, and the level and text take their level's color.
 *
 * Every byte that could drive a terminal is escaped as \xNN (a NUL in
 * the text, from printk's "%c" of 0, as \x00, like /dev/kmsg), and a
 * backslash as \\, so a record cannot inject escape sequences: C0
 * controls, DEL, and (UTF-8 terminals) C1 controls and ill-formed
 * UTF-8, or (other terminals) every byte >= 0x80.
 */
#ifndef KPC_TEXT_H
#define KPC_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kpc_genl.h"
#include "kpc_record.h"

/* Enough for the longest SGR sequence kpc_color_parse() builds. */
#define KPC_COLOR_MAX	64

struct kpc_text_opts {
	bool color;
	bool utf8;	/* the terminal takes UTF-8: valid characters pass */
	char level_color[KPRINT_LEVEL_MAX + 1][KPC_COLOR_MAX];
};

/*
 * Defaults, in the spirit of dmesg --color: emerg bold reverse red, alert
 * reverse red, crit bold red, err red, warn yellow, notice and info
 * plain, debug dim.
 */
void kpc_text_init(struct kpc_text_opts *opts, bool color, bool utf8);

/*
 * Turn a color spec into an SGR escape sequence in out ("" for
 * "default"/"none"/"plain").  A spec is either
 *  - comma-separated words: attributes bold, dim, italic, underline,
 *    blink, reverse; colors black, red, green, yellow (or brown), blue,
 *    magenta, cyan, white (or gray); "bright-COLOR"; "bg-COLOR",
 *    "bg-bright-COLOR".  E.g. "bold,red" -> "\e[1;31m".
 *  - a VGA attribute byte as in the 2007 colored-printk patch, "0xBF":
 *    F (bits 0-2) the foreground, B (bits 4-6) the background, in VGA
 *    order black, blue, green, cyan, red, magenta, brown, gray; 0x08
 *    highlights the foreground (bold), 0x80 blinks.  "0x17" (gray on
 *    blue) -> "\e[37;44m".
 * Returns 0 or -EINVAL.
 */
int kpc_color_parse(const char *spec, char *out, size_t size);

/* "LEVEL=SPEC", e.g. "err=bold,red" or "warn=0x0e". 0 or -EINVAL. */
int kpc_text_set_level_color(struct kpc_text_opts *opts, const char *assignment);

/* Write s with the escaping described above. */
void kpc_text_escape(FILE *out, const char *s, bool utf8);

/*
 * The same for the n bytes at s, a NUL among them as \x00 (as /dev/kmsg
 * shows it): how a record's text is written.
 */
void kpc_text_escape_mem(FILE *out, const char *s, size_t n, bool utf8);

/* Write one record as one line. Returns 0 or -EIO. */
int kpc_text_print(FILE *out, const struct kpc_text_opts *opts,
		   const struct kpc_record *rec);

/*
 * `kprint stats` as text: one "name value" row per counter ("-" for one
 * the kernel did not send), the printk bridge's counters as one line:
 *
 *	bridge         on, bridged 812, skipped 3, dropped 2 (nmi 1,
 *	               recursion 0, scratch 1, missed 0), backlog 554
 *
 * (on one line; "dropped" is the sum of the four reasons), or "bridge -"
 * when the module has no bridge counters.  Returns 0 or -EIO.
 */
int kpc_text_stats(FILE *out, const struct kpc_stats *st);

#endif /* KPC_TEXT_H */
