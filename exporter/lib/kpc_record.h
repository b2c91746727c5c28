/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One kprint record as userspace sees it, decoded from a KPRINT_A_RECORD
 * nest, plus the names of levels and classes.
 */
#ifndef KPC_RECORD_H
#define KPC_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/kprint.h>

struct nlattr;
struct nlmsghdr;

/*
 * Strings point into the netlink message the record was decoded from and
 * live as long as it does (for the length of a callback); use
 * kpc_record_dup() to keep a record.  Optional strings that the kernel
 * left out are "", never NULL.
 *
 * The text and the args are what printk rendered, and a "%c" of 0 renders
 * a NUL byte: they carry their length (text_len, arg_len[]) and may hold
 * a NUL before their end, which is data.  Read them with
 * kpc_record_text_len() and kpc_record_arg_len(), never with strlen().
 * The other strings are names the kernel keeps as C strings and hold none.
 */
struct kpc_record {
	uint64_t seq;
	uint32_t level;			/* enum kprint_level */
	uint32_t class;			/* enum kprint_class */
	uint64_t ts_mono_ns;
	uint64_t ts_real_ns;
	uint32_t cpu;
	uint32_t pid;
	const char *comm;
	const char *file;
	uint32_t line;
	const char *function;
	const char *subsystem;
	const char *module;
	const char *format;
	uint64_t format_id;
	unsigned int nargs;
	const char *text;
	uint32_t text_len;		/* bytes without the final NUL; 0: strlen(text) */
	uint64_t block_id;
	uint32_t flags;			/* enum kprint_record_flags */
	uint32_t source;		/* enum kprint_source */
	const char *device;
	uint32_t facility;
	uint64_t continues;		/* seq a KPRINT_RECORD_F_CONT continues */
	uint64_t printk_seq;		/* printk's seq (/dev/kmsg's), printk records */
	uint64_t filtered;		/* a filtered subscription's: refused right before seq */
	/*
	 * The attributes it was decoded from, which hold every string it
	 * points to: a copy takes them in one piece, rather than string by
	 * string.  NULL in a record built in code.
	 */
	const void *raw;
	uint32_t raw_len;
	/*
	 * Last, so that a decode or a copy sets only the nargs in use: the
	 * ones past them are not set (most records have a few of the 16).
	 */
	const char *args[KPRINT_ARGS_MAX];
	uint32_t arg_len[KPRINT_ARGS_MAX];	/* 0: strlen(args[i]) */
};

/*
 * A record built in code may leave the lengths 0: its strings then end at
 * their first NUL.  A decoded record always has them, so code that puts
 * another string in a copy's text or arg sets its length too (0 for a C
 * string).
 */
static inline size_t kpc_record_text_len(const struct kpc_record *rec)
{
	return rec->text_len ? rec->text_len : strlen(rec->text);
}

static inline size_t kpc_record_arg_len(const struct kpc_record *rec, unsigned int i)
{
	return rec->arg_len[i] ? rec->arg_len[i] : strlen(rec->args[i]);
}

/* Return 0 to go on, a negative errno to stop the walk with that error. */
typedef int (*kpc_record_fn)(const struct kpc_record *rec, void *ctx);

/*
 * Decode one KPRINT_A_RECORD nest.  Returns 0, or -EINVAL when a required
 * attribute (SEQ, LEVEL, FORMAT, TEXT) is missing, one has the wrong size,
 * a string is not NUL-terminated or exceeds its UAPI limit, a string
 * other than the text and the args has a NUL inside, an attribute repeats or the nest has trailing bytes; -E2BIG for
 * more than KPRINT_ARGS_MAX args; -ERANGE for a level, class or source
 * past the UAPI's enums.  Attributes newer than this library are ignored;
 * a kernel that sends no SOURCE made a kprint record (source 0).
 */
int kpc_record_decode(const struct nlattr *nest, struct kpc_record *rec);

/*
 * What a reader learns of the records it could not decode: count goes up
 * by one for each, and seq_fn (when set) is called with the seq of each
 * one whose SEQ attribute could still be read, in order with the records
 * passed to fn, so that the loss is named "malformed" and not taken for a
 * gap.  seq_fn returns 0 to go on, a negative errno to stop.
 */
struct kpc_malformed {
	unsigned int count;
	int (*seq_fn)(uint64_t seq, void *ctx);
	void *ctx;
};

/*
 * Decode every KPRINT_A_RECORD of one generic netlink message (a dump reply
 * or a notification may carry several) and call fn for each, in order.
 * A malformed record is skipped and reported to *bad.  Returns the number
 * of records passed to fn, -EBADMSG when the message has no valid genl
 * header, or fn's (or bad->seq_fn's) error.
 */
int kpc_record_decode_msg(struct nlmsghdr *nlh, kpc_record_fn fn, void *ctx,
			  struct kpc_malformed *bad);

/*
 * Memory for records a reader keeps: alloc(size, ctx) gives size bytes,
 * aligned as malloc() aligns, or NULL; release(rec, ctx) takes back what
 * alloc gave and the reader did not keep.
 */
struct kpc_record_mem {
	void *(*alloc)(size_t size, void *ctx);
	void (*release)(struct kpc_record *rec, void *ctx);
	void *ctx;
};

/* What fn returns for a record of kpc_record_decode_msg_into() it keeps. */
#define KPC_RECORD_KEPT	1

/*
 * kpc_record_decode_msg() for a reader that keeps the records: each is
 * decoded straight into memory from mem, laid out as a copy of
 * kpc_record_copy_with() and freed as one, so that keeping it costs no
 * second copy.  fn returns KPC_RECORD_KEPT to keep a record (it owns it
 * then), or 0 or an error, and the record goes back to mem->release().
 * When alloc() gives no memory the record is decoded as
 * kpc_record_decode_msg() decodes it and fn is given that one, which it
 * may only copy (fn knows its own memory from alloc()).  A NULL mem
 * decodes as kpc_record_decode_msg() does.
 */
int kpc_record_decode_msg_into(struct nlmsghdr *nlh, kpc_record_fn fn, void *ctx,
			       struct kpc_malformed *bad, const struct kpc_record_mem *mem);

/* A self-contained copy (one allocation, free with kpc_record_free()). */
struct kpc_record *kpc_record_dup(const struct kpc_record *rec);
void kpc_record_free(struct kpc_record *rec);
/*
 * The same copy in memory alloc(size, ctx) gives, aligned as malloc()
 * aligns, for a reader that reuses the copies it no longer keeps rather
 * than allocate one per record.  NULL when alloc() gives none, or for a
 * record with more than KPRINT_ARGS_MAX args (alloc() is not called).
 */
struct kpc_record *kpc_record_copy_with(const struct kpc_record *rec,
					void *(*alloc)(size_t size, void *ctx), void *ctx);

/* FNV-1a 64 of the format string's bytes, as the UAPI defines format ids. */
uint64_t kpc_format_id(const char *fmt);

/* "emerg" .. "debug" ("warn" for warning), NULL past the enum. */
const char *kpc_level_name(unsigned int level);
/* A level by name ("warning" and "warn" both work) or digit; -EINVAL. */
int kpc_level_parse(const char *name);

/* "none", "detected", "registered", "setting", "copyright"; NULL past. */
const char *kpc_class_name(unsigned int class);
int kpc_class_parse(const char *name);

/* "kprint", "printk"; NULL past the enum. */
const char *kpc_source_name(unsigned int source);
int kpc_source_parse(const char *name);

#endif /* KPC_RECORD_H */
