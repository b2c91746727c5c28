/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the call-site catalog's build (kpc_sites_*.c): what the readers of
 * the kernel image, of module files and of the printk index share.
 */
#ifndef KPC_SITES_SCAN_H
#define KPC_SITES_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "kpc_sites.h"

/*
 * A string as a call site passes it to printk: its leading KERN_SOH pairs
 * and one trailing newline stripped, as the printk bridge strips a
 * record's format.  Returns the level the pairs give (0..7,
 * KPC_SITE_LEVEL_DEFAULT, KPC_SITE_LEVEL_CONT; the first level digit wins,
 * as printk_get_level() reads them) or KPC_SITE_LEVEL_NONE without any;
 * *fmt and *len: what is left.  @s need not be NUL-terminated.
 */
int kpc_sites_strip(const char *s, size_t n, const char **fmt, size_t *len);

/* Adds one entry, format_id computed from @fmt's @len bytes. */
int kpc_sites_add_found(struct kpc_sites *s, const char *fmt, size_t len, int level,
			const char *module, const char *function,
			enum kpc_site_kind kind, enum kpc_site_source src);

/*
 * The kernel's printing functions a call site may pass a format to, by
 * symbol name: _printk, _dev_err and the other _dev_<level>, dev_printk /
 * _dev_printk, netdev_err and the other netdev_<level>, netdev_printk.
 * Says which argument (0-based) is the format, the kind of site, and the
 * level the function itself gives (KPC_SITE_LEVEL_NONE for _printk, whose
 * format carries its own, and for dev_printk/netdev_printk, whose level
 * is an argument).  False for any other name.
 */
struct kpc_sites_printer {
	const char *name;
	unsigned int fmt_arg;
	enum kpc_site_kind kind;
	int level;
};
const struct kpc_sites_printer *kpc_sites_printer(const char *name);

/*
 * A file's bytes, uncompressed: xz (.ko.xz), zstd (.ko.zst), gzip (.ko.gz)
 * or plain, by its magic.  *buf is malloc()ed.
 */
int kpc_sites_read_file(const char *path, void **buf, size_t *len, char *err, size_t errlen);

/* The same for a buffer already read (the kernel image's payload). */
int kpc_sites_unpack(const void *in, size_t inlen, void **out, size_t *outlen,
		     char *err, size_t errlen);

/*
 * The kernel image (a bzImage): its payload unpacked, .rodata's KERN_SOH
 * strings, and the call sites in .text that load a string and call a
 * printing function (found by the exported symbols of __ksymtab*).
 * @kallsyms: the running kernel's /proc/kallsyms when it is this image's
 * kernel, for function names; NULL: functions unknown.
 */
int kpc_sites_scan_image(const char *image, const char *kallsyms, struct kpc_sites *out,
			 char *err, size_t errlen);

/*
 * One module file: the strings its code relocations point at, paired with
 * the call that follows (a printing function), the function holding each
 * site from .symtab, the dynamic debug descriptors (__dyndbg), and the
 * KERN_SOH strings no relocation of code names.  Thread-safe: @out is the
 * caller's own.
 */
int kpc_sites_scan_module(const char *path, struct kpc_sites *out, char *err, size_t errlen);

/*
 * Writes the message to @err (when @errlen) and returns @ret: the readers'
 * one way to fail with a reason.
 */
__attribute__((format(printf, 4, 5)))
int kpc_sites_fail(int ret, char *err, size_t errlen, const char *fmt, ...);

/* The printk index (<debugfs>/printk/index/), when the kernel has one. */
int kpc_sites_scan_index(const char *dir, struct kpc_sites *out, char *err, size_t errlen);

/* A module file's name as the kernel names the module ("snd-hda-intel.ko.xz": snd_hda_intel). */
void kpc_sites_module_name(const char *path, char *buf, size_t len);

#endif /* KPC_SITES_SCAN_H */
