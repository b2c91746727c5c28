/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprint: structured kernel messages.
 *
 * A kprint record keeps what printk() throws away: the format string, each
 * argument rendered on its own, the level, a class, the emitting module,
 * subsystem and source location.  Records go to a ring owned by the kprint
 * module, to the "records" generic netlink group, and (as plain text) to
 * printk so that nothing is lost for readers of the classic log.
 *
 * Usage::
 *
 *	#define KPRINT_SUBSYSTEM "usb-storage"	(optional, before the include)
 *	#include <linux/kprint.h>
 *
 *	kprint_detected("cheesy flash drive detected at %d", port);
 *	kprint_err("reset failed: %d", err);
 *
 * A message is exactly one line: a single trailing newline is tolerated and
 * dropped, any other newline ends up in the text as is.  The format must be
 * a string literal; it is kept in a static per-call-site descriptor.
 *
 * Build-time switches (either form works; the CONFIG_ one comes from the
 * in-tree Kconfig, the plain one is for -D on the compiler command line):
 *
 *  - CONFIG_KPRINT_FILTER_<LEVEL> / KPRINT_FILTER_<LEVEL>, LEVEL one of
 *    EMERG ALERT CRIT ERR WARNING NOTICE INFO DEBUG: calls at that level
 *    compile to nothing (no call, no format string) but their arguments are
 *    still type-checked.
 *  - KPRINT_NO_LOCATION, or CONFIG_KPRINT_LOCATION=n in-tree: file and
 *    function are recorded as "" and the line as 0, and those strings are
 *    not emitted into the object.  Out of tree the default is on.
 *
 * Blocks (struct kprint_block) collect several lines and publish them as one
 * unit.  Their level is a run-time value, so they are not subject to the
 * compile-time level filters.
 */
#ifndef _LINUX_KPRINT_H
#define _LINUX_KPRINT_H

#include <linux/compiler.h>
#include <linux/stdarg.h>
#include <linux/types.h>
#include <uapi/linux/kprint.h>

#ifndef KPRINT_SUBSYSTEM
#define KPRINT_SUBSYSTEM ""
#endif

#ifdef KBUILD_MODNAME
#define __KPRINT_MODNAME KBUILD_MODNAME
#else
#define __KPRINT_MODNAME ""
#endif

/*
 * The filters must be decided by the preprocessor: defined() only means
 * something inside #if, and a C-level constant is what lets the compiler
 * discard the filtered call together with its format string.
 */
#if IS_ENABLED(CONFIG_KPRINT_FILTER_EMERG) || defined(KPRINT_FILTER_EMERG)
#define __KPRINT_FILTER_EMERG 1
#else
#define __KPRINT_FILTER_EMERG 0
#endif
#if IS_ENABLED(CONFIG_KPRINT_FILTER_ALERT) || defined(KPRINT_FILTER_ALERT)
#define __KPRINT_FILTER_ALERT 1
#else
#define __KPRINT_FILTER_ALERT 0
#endif
#if IS_ENABLED(CONFIG_KPRINT_FILTER_CRIT) || defined(KPRINT_FILTER_CRIT)
#define __KPRINT_FILTER_CRIT 1
#else
#define __KPRINT_FILTER_CRIT 0
#endif
#if IS_ENABLED(CONFIG_KPRINT_FILTER_ERR) || defined(KPRINT_FILTER_ERR)
#define __KPRINT_FILTER_ERR 1
#else
#define __KPRINT_FILTER_ERR 0
#endif
#if IS_ENABLED(CONFIG_KPRINT_FILTER_WARNING) || defined(KPRINT_FILTER_WARNING)
#define __KPRINT_FILTER_WARNING 1
#else
#define __KPRINT_FILTER_WARNING 0
#endif
#if IS_ENABLED(CONFIG_KPRINT_FILTER_NOTICE) || defined(KPRINT_FILTER_NOTICE)
#define __KPRINT_FILTER_NOTICE 1
#else
#define __KPRINT_FILTER_NOTICE 0
#endif
#if IS_ENABLED(CONFIG_KPRINT_FILTER_INFO) || defined(KPRINT_FILTER_INFO)
#define __KPRINT_FILTER_INFO 1
#else
#define __KPRINT_FILTER_INFO 0
#endif
#if IS_ENABLED(CONFIG_KPRINT_FILTER_DEBUG) || defined(KPRINT_FILTER_DEBUG)
#define __KPRINT_FILTER_DEBUG 1
#else
#define __KPRINT_FILTER_DEBUG 0
#endif

/* True (at compile time) when messages of @level are compiled out. */
#define kprint_level_filtered(level)					\
	(((level) == KPRINT_LEVEL_EMERG && __KPRINT_FILTER_EMERG) ||	\
	 ((level) == KPRINT_LEVEL_ALERT && __KPRINT_FILTER_ALERT) ||	\
	 ((level) == KPRINT_LEVEL_CRIT && __KPRINT_FILTER_CRIT) ||	\
	 ((level) == KPRINT_LEVEL_ERR && __KPRINT_FILTER_ERR) ||	\
	 ((level) == KPRINT_LEVEL_WARNING && __KPRINT_FILTER_WARNING) || \
	 ((level) == KPRINT_LEVEL_NOTICE && __KPRINT_FILTER_NOTICE) ||	\
	 ((level) == KPRINT_LEVEL_INFO && __KPRINT_FILTER_INFO) ||	\
	 ((level) == KPRINT_LEVEL_DEBUG && __KPRINT_FILTER_DEBUG))

/*
 * In-tree, CONFIG_KPRINT exists and CONFIG_KPRINT_LOCATION decides.  Out of
 * tree the kernel's config knows nothing about kprint, so location is on
 * unless KPRINT_NO_LOCATION asks otherwise.
 */
#if defined(KPRINT_NO_LOCATION) ||					\
	(IS_ENABLED(CONFIG_KPRINT) && !IS_ENABLED(CONFIG_KPRINT_LOCATION))
#define __KPRINT_FILE	""
#define __KPRINT_FUNC	""
#define __KPRINT_LINE	0
#else
#define __KPRINT_FILE	__FILE__
#define __KPRINT_FUNC	__func__
#define __KPRINT_LINE	__LINE__
#endif

/**
 * struct kprint_site - static description of one kprint call site
 * @format: the format string, as written
 * @file: source file, "" when location capture is off
 * @function: enclosing function, "" when location capture is off
 * @subsystem: KPRINT_SUBSYSTEM of the file, may be ""
 * @module: KBUILD_MODNAME of the object
 * @line: source line, 0 when location capture is off
 * @level: enum kprint_level; ignored for block lines (the block has one)
 * @class: enum kprint_class
 * @format_id: FNV-1a 64 of @format, filled in on first use (0 = not yet)
 * @str_len: lengths of @file, @function, @subsystem, @module and @format,
 *	each capped at what a record holds, measured on first use
 * @str_len_ready: @str_len is filled in
 *
 * One of these is emitted per call site by the kprint macros, much like
 * dynamic debug's descriptors; only the kprint core writes @format_id and
 * @str_len.
 */
struct kprint_site {
	const char *format;
	const char *file;
	const char *function;
	const char *subsystem;
	const char *module;
	unsigned int line;
	unsigned char level;
	unsigned char class;
	u64 format_id;
	unsigned short str_len[5];
	bool str_len_ready;
};

#define __KPRINT_SITE_INIT(_level, _class, _fmt) {			\
	.format		= _fmt,						\
	.file		= __KPRINT_FILE,				\
	.function	= __KPRINT_FUNC,				\
	.subsystem	= KPRINT_SUBSYSTEM,				\
	.module		= __KPRINT_MODNAME,				\
	.line		= __KPRINT_LINE,				\
	.level		= _level,					\
	.class		= _class,					\
}

/**
 * struct kprint_block - lines collected for one atomic publication
 *
 * Initialise with kprint_block_init(), add lines with kprint_block(), then
 * publish with kprint_block_flush() or throw away with kprint_block_abort().
 * Either leaves the block empty and ready for reuse with the same level.
 * A block belongs to one context at a time: kprint does not lock it.  A
 * block is bounded to a quarter of the ring; lines beyond that are counted
 * as dropped.  The fields are private to the kprint core.
 */
struct kprint_block {
	/* private: */
	void *buf;
	unsigned int len;
	unsigned int size;
	unsigned int lines;
	unsigned char level;
};

/*
 * Exported by kprint.ko.  Call them through the macros below, which build
 * the static site descriptor; the format is passed separately only so that
 * the compiler can check it against the arguments.
 */
__printf(2, 3)
void kprint_emit_site(struct kprint_site *site, const char *fmt, ...);
__printf(3, 4)
void kprint_block_emit_site(struct kprint_block *blk, struct kprint_site *site,
			    const char *fmt, ...);
void kprint_block_flush(struct kprint_block *blk);
void kprint_block_abort(struct kprint_block *blk);

struct dev_printk_info;

/*
 * printk's handoff of every message it stores, in a kernel tree with
 * kprint built in (kernel/kprint/kprint_printk.c).  Out of tree, and with
 * kprint a module, nothing: there the printk bridge hooks printk instead.
 */
#if IS_BUILTIN(CONFIG_KPRINT)
__printf(6, 0)
void kprint_printk_store(int facility, int level,
			 const struct dev_printk_info *dev_info, u64 pseq,
			 bool cont, const char *fmt, va_list args);
#else
__printf(6, 0)
static inline void kprint_printk_store(int facility, int level,
				       const struct dev_printk_info *dev_info,
				       u64 pseq, bool cont, const char *fmt,
				       va_list args)
{
}
#endif

/*
 * The if () is a compile-time constant: a filtered call is still parsed and
 * its arguments checked against the format, but the static site (and with
 * it the format string) is never referenced, so the compiler drops both.
 */
#define __kprint(_level, _class, fmt, ...)				\
do {									\
	if (!kprint_level_filtered(_level)) {				\
		static struct kprint_site __kprint_site =		\
			__KPRINT_SITE_INIT(_level, _class, fmt);	\
		kprint_emit_site(&__kprint_site, fmt, ##__VA_ARGS__);	\
	}								\
} while (0)

#define kprint(fmt, ...)						\
	__kprint(KPRINT_LEVEL_WARNING, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_emerg(fmt, ...)						\
	__kprint(KPRINT_LEVEL_EMERG, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_alert(fmt, ...)						\
	__kprint(KPRINT_LEVEL_ALERT, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_crit(fmt, ...)						\
	__kprint(KPRINT_LEVEL_CRIT, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_err(fmt, ...)						\
	__kprint(KPRINT_LEVEL_ERR, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_warn(fmt, ...)						\
	__kprint(KPRINT_LEVEL_WARNING, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_notice(fmt, ...)						\
	__kprint(KPRINT_LEVEL_NOTICE, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_info(fmt, ...)						\
	__kprint(KPRINT_LEVEL_INFO, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)
#define kprint_debug(fmt, ...)						\
	__kprint(KPRINT_LEVEL_DEBUG, KPRINT_CLASS_NONE, fmt, ##__VA_ARGS__)

/* Classified messages are informational by nature. */
#define kprint_detected(fmt, ...)					\
	__kprint(KPRINT_LEVEL_INFO, KPRINT_CLASS_DETECTED, fmt, ##__VA_ARGS__)
#define kprint_registered(fmt, ...)					\
	__kprint(KPRINT_LEVEL_INFO, KPRINT_CLASS_REGISTERED, fmt, ##__VA_ARGS__)
#define kprint_setting(fmt, ...)					\
	__kprint(KPRINT_LEVEL_INFO, KPRINT_CLASS_SETTING, fmt, ##__VA_ARGS__)
#define kprint_copyright(fmt, ...)					\
	__kprint(KPRINT_LEVEL_INFO, KPRINT_CLASS_COPYRIGHT, fmt, ##__VA_ARGS__)

/**
 * kprint_block_init() - prepare an empty block
 * @blk: the block, typically on the caller's stack
 * @level: enum kprint_level shared by every line of the block
 *
 * Context: Any context.  Does not allocate.
 */
static inline void kprint_block_init(struct kprint_block *blk,
				     enum kprint_level level)
{
	blk->buf = NULL;
	blk->len = 0;
	blk->size = 0;
	blk->lines = 0;
	blk->level = level;
}

/**
 * kprint_block() - add one line to a block
 * @blk: block set up with kprint_block_init()
 * @fmt: printf-style format of the line (a string literal)
 *
 * The line is rendered now (arguments may go away before the flush) and
 * stored in the block.  Memory is taken with GFP_ATOMIC; a line that cannot
 * be stored is counted as dropped.
 *
 * Context: Any context but NMI (lines added in NMI are dropped).
 */
#define kprint_block(blk, fmt, ...)					\
do {									\
	static struct kprint_site __kprint_site =			\
		__KPRINT_SITE_INIT(KPRINT_LEVEL_DEBUG,			\
				   KPRINT_CLASS_NONE, fmt);		\
	kprint_block_emit_site(blk, &__kprint_site, fmt, ##__VA_ARGS__); \
} while (0)

#endif /* _LINUX_KPRINT_H */
