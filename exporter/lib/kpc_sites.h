/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call-site catalog: every printk format a kernel can print, read from
 * its image and module files before any of them fired (kprint sites).
 *
 * One catalog per kernel release, a file of JSON lines (kpc_sites_file.c is
 * its one writer and reader): a header line, then one line per entry.
 *
 *   {"kprint_sites":1,"kernel":"6.1.0-57-amd64","built":"2026-12-06T04:30:00Z",
 *    "image":"/boot/vmlinuz-6.1.0-57-amd64","modules":3512,"kallsyms":false,
 *    "printk_index":false,"entries":41234,"seconds":9.8}
 *   {"format_id":"8d5c0f3e2b1a4c77","format":"module unloaded","level":"info",
 *    "module":"brd","function":"brd_exit","kind":"printk","source":"module"}
 *
 * format: as the printk bridge reports a record's format (leading KERN_SOH
 * pairs and one trailing newline stripped, pr_fmt() included), so that
 * format_id, FNV-1a 64 of it (include/kprint_fnv1a.h), is the records' and
 * the BPF maps' id.  level: "emerg".."debug", "default" (KERN_DEFAULT),
 * "cont" (KERN_CONT), or null where no level is compiled in (the literal
 * first argument of a _printk() call without one).  function: null where it
 * cannot be known (the kernel image without kallsyms).  file and line: only
 * from the printk index.  An entry is one (format, module, function, kind):
 * the same format printed from two functions is two entries.
 */
#ifndef KPC_SITES_H
#define KPC_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KPC_SITES_DIR		"/var/lib/kprint/sites"
#define KPC_SITES_VERSION	1

/* What kind of call the format was found at. */
enum kpc_site_kind {
	KPC_SITE_PRINTK,	/* a KERN_SOH-prefixed string: printk(), pr_*() */
	KPC_SITE_PRINTK_BARE,	/* a _printk() first argument without KERN_SOH */
	KPC_SITE_DEV,		/* dev_*(): _dev_info() and the like, dev_printk() */
	KPC_SITE_NETDEV,	/* netdev_*(): netdev_info() and the like */
	KPC_SITE_KIND_MAX,
};

/* Where it was found. */
enum kpc_site_source {
	KPC_SITE_SRC_IMAGE,	/* the kernel image's .rodata and .text */
	KPC_SITE_SRC_MODULE,	/* a module's relocations and strings */
	KPC_SITE_SRC_INDEX,	/* the running kernel's printk index */
	KPC_SITE_SRC_MAX,
};

#define KPC_SITE_LEVEL_NONE	(-1)	/* no level compiled in */
#define KPC_SITE_LEVEL_DEFAULT	8	/* KERN_DEFAULT */
#define KPC_SITE_LEVEL_CONT	9	/* KERN_CONT */

struct kpc_site {
	uint64_t format_id;
	char *format;
	int level;		/* 0..7, or KPC_SITE_LEVEL_* */
	char *module;		/* "vmlinux" for the image */
	char *function;		/* NULL: not known */
	char *file;		/* NULL but from the printk index */
	unsigned int line;
	enum kpc_site_kind kind;
	enum kpc_site_source source;
};

struct kpc_sites {
	char *kernel;		/* the release, as uname -r */
	char *built;		/* UTC, ISO 8601 */
	char *image;		/* the image file read, or NULL */
	unsigned int modules;	/* module files read */
	bool kallsyms;		/* functions in the image from /proc/kallsyms */
	bool printk_index;	/* entries from the printk index */
	double seconds;		/* how long the build took */
	struct kpc_site *v;	/* sorted by format_id, then module, function */
	size_t n, cap;
};

struct kpc_sites_build_opts {
	const char *kernel;	/* release; NULL: the running one */
	const char *image;	/* NULL: /boot/vmlinuz-<kernel> */
	const char *moddir;	/* NULL: /lib/modules/<kernel> */
	const char *kallsyms;	/* NULL: /proc/kallsyms when <kernel> runs; "": none */
	const char *index;	/* NULL: <debugfs>/printk/index when it runs; "": none */
	unsigned int jobs;	/* threads for the modules; 0: one per CPU */
};

/*
 * Build the catalog of one kernel.  Returns 0, or a negative errno with a
 * message in @err (what file, what is wrong with it).  A module file that
 * cannot be read is skipped with a warning on stderr and not counted.
 */
int kpc_sites_build(const struct kpc_sites_build_opts *o, struct kpc_sites *out,
		    char *err, size_t errlen);

/* Write / read a catalog file.  Load refuses a bad line with file:line: reason. */
int kpc_sites_write(const struct kpc_sites *s, const char *path, char *err, size_t errlen);
int kpc_sites_load(const char *path, struct kpc_sites *out, char *err, size_t errlen);

/* One entry as the file's JSON line, newline included (kprint sites list --json).  0 or -errno. */
int kpc_sites_write_entry(FILE *out, const struct kpc_site *e);

/* <dir>/<kernel>.jsonl; dir NULL: KPC_SITES_DIR.  Returns buf, NULL if too long. */
const char *kpc_sites_path(const char *dir, const char *kernel, char *buf, size_t len);

/* The first entry with @id (the others follow it), or NULL. */
const struct kpc_site *kpc_sites_find(const struct kpc_sites *s, uint64_t id);

/* Adds an entry (copies the strings); kpc_sites_sort() orders and merges duplicates. */
int kpc_sites_add(struct kpc_sites *s, const struct kpc_site *site);
void kpc_sites_sort(struct kpc_sites *s);
void kpc_sites_free(struct kpc_sites *s);

/* Names for levels, kinds and sources, as the file and --json spell them. */
const char *kpc_site_level_name(int level);	/* NULL for KPC_SITE_LEVEL_NONE */
int kpc_site_level_parse(const char *name);	/* -2: unknown */
const char *kpc_site_kind_name(enum kpc_site_kind kind);
const char *kpc_site_source_name(enum kpc_site_source src);

#endif /* KPC_SITES_H */
