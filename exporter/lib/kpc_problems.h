/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel problems recognised by format: the problem catalog
 * (problems/problems.yaml, installed as /usr/share/kprint/problems.yaml)
 * and the matcher that tells, record by record, which problem a record
 * reports.
 *
 * node-problem-detector matches regular expressions over the text of
 * /dev/kmsg.  kprint's records carry the format the kernel printed with
 * and each argument on its own, so a rule names formats: a record is
 * looked up by its format id (one hash lookup), and only a record whose
 * format a rule names is looked at further (an argument's value, the
 * format of the message a wrapper's %pV carries).
 *
 * The file (kprint(7), "PROBLEM CATALOG"):
 *
 *	kprint-problems: 1
 *	problems:
 *	  - problem: Ext4Error            NPD's reason where NPD has one
 *	    kind: event                   event, or condition (permanent)
 *	    condition: ReadonlyFilesystem  kind condition only: NPD's name
 *	    message-id: 32 hex digits     the journal's MESSAGE_ID
 *	    summary: one line
 *	    description: |                journalctl -x: what it is, what
 *	      ...                         to look at
 *	    labels: [device]              names below: bounded label values
 *	    attribution: [task, pid]      names below: exemplar and /problems
 *	    formats:
 *	      - format: "EXT4-fs error (device %s): %s:%d: inode #%lu: comm %s: %pV"
 *	        args: [device, function, line, inode, task, message]
 *	        inner: "deleted inode referenced: %u"   the %pV's format
 *	        inner-args: [ino]
 *	        record: {bond: device}    a name for a record field (device,
 *	                                  comm, pid, module)
 *	        where: {task: {prefix: docker}}   equals, prefix, one-of
 *	        kernels: ["6.1", "6.12"]  the kernels that print it
 *	        source: "fs/ext4/super.c: __ext4_error_inode()"
 *	    context:                      a line printed just before it
 *	      format: "oom-kill:constraint=%s,nodemask=%*pbl"
 *	      keys: [task_memcg]          key=value pairs of that whole line
 *	      within: 64                  records back, at most
 *
 * "args" names each conversion of the format in order ("-" for one that
 * is not named; a "%*d" is one conversion).  A format may appear in
 * several rules (one record can be two problems: a hung task named
 * "docker" is TaskHung and KernelDeadlock).  A rule may not consist of a
 * bare "%s" with no inner format: any message at all could be that.
 *
 * As the loader has it (kpc_problems_load.c): a format is written as the
 * record has it, without its KERN_ level and trailing newline (refused
 * with them); "source" is required, "kernels" optional; the record fields
 * are device, comm, pid, module, subsystem and function; "where" takes one
 * of equals, prefix or one-of (a list) per name, every name of it bound by
 * that format; "keys" is a list of keys (each its own name) or a mapping
 * {name: key}; "within" defaults to 64 and is at most 4096.  Names (labels,
 * attribution, args) are lowercase letters, digits and '_'; "problem",
 * "condition", "kind", "seq", "kprint_instance", "le" and "quantile" are
 * the exporter's.  At most 4 labels, 8 attribution names, 8 predicates per
 * format, 8 context keys, 8 context formats per catalog.  A value of an
 * argument is read without the KERN_SOH pairs a level passed as "%s"
 * renders as.
 */
#ifndef KPC_PROBLEMS_H
#define KPC_PROBLEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kpc_record.h"

struct json_object;

#define KPC_PROBLEM_LABELS_MAX	4	/* label names per rule */
#define KPC_PROBLEM_ATTRS_MAX	8	/* attribution names per rule */
#define KPC_PROBLEM_HITS_MAX	4	/* problems one record can be */
#define KPC_PROBLEM_VALUE_MAX	128	/* bytes of a label or attribution value */

enum kpc_problem_kind {
	KPC_PROBLEM_EVENT,		/* temporary: counted */
	KPC_PROBLEM_CONDITION,		/* permanent: true until reboot */
};

/*
 * One problem of the catalog, as loaded; read-only.  The exporter also
 * makes one of each reason of a node-problem-detector rule file
 * (--npd-rules), with npd its source and no message id, labels or
 * attribution, so that its hits go the catalog's ways.
 */
struct kpc_problem_rule {
	unsigned int index;		/* 0 .. kpc_problems_count() - 1 */
	const char *npd;		/* an NPD file's source; NULL: the catalog's */
	const char *name;		/* "OOMKilling" */
	enum kpc_problem_kind kind;
	const char *condition;		/* KPC_PROBLEM_CONDITION: "ReadonlyFilesystem"; else NULL */
	const char *message_id;		/* 32 lowercase hex digits */
	const char *summary;
	const char *description;
	unsigned int nlabels;
	const char *labels[KPC_PROBLEM_LABELS_MAX];
	unsigned int nattrs;
	const char *attrs[KPC_PROBLEM_ATTRS_MAX];
};

/* One format a rule names, for checks against a kernel's call sites. */
struct kpc_problem_format {
	const struct kpc_problem_rule *rule;
	const char *format;
	uint64_t format_id;
	const char *inner;		/* or NULL */
	const char *source;		/* "file: function()" */
	unsigned int nkernels;
	const char *const *kernels;	/* "6.1", "6.12" */
	unsigned int line;		/* of the file, for messages */
};

struct kpc_problems;

/* The catalog the package installs. */
#ifndef KPRINT_DATADIR
#define KPRINT_DATADIR		"/usr/share/kprint"
#endif
#define KPC_PROBLEMS_FILE	KPRINT_DATADIR "/problems.yaml"

/*
 * The catalog to load when none is given: KPC_PROBLEMS_FILE if it exists,
 * else, for a program run from a source tree (.output/bin/kprint), that
 * tree's problems/problems.yaml, written to buf.  NULL when neither exists.
 */
const char *kpc_problems_default_path(char *buf, size_t len);

/*
 * Load a catalog.  Returns 0, or a negative errno with err set to
 * "FILE:LINE: reason" (an unknown key, a missing one, a format whose
 * conversions and "args" differ in number, a bare "%s", a name in labels
 * or attribution that no format binds, a duplicate problem, ...).
 */
int kpc_problems_load(const char *path, struct kpc_problems **out,
		      char *err, size_t errlen);
void kpc_problems_free(struct kpc_problems *p);

unsigned int kpc_problems_count(const struct kpc_problems *p);
const struct kpc_problem_rule *kpc_problems_rule(const struct kpc_problems *p,
						 unsigned int i);
const struct kpc_problem_rule *kpc_problems_find(const struct kpc_problems *p,
						 const char *name);
unsigned int kpc_problems_nformats(const struct kpc_problems *p);
const struct kpc_problem_format *kpc_problems_format(const struct kpc_problems *p,
						     unsigned int i);

/*
 * What one record is: a problem, its label values (in the rule's order)
 * and its attribution (name and value, those the record or its context
 * had).  Values are copies, cut at KPC_PROBLEM_VALUE_MAX - 1 bytes on a
 * UTF-8 boundary.
 */
struct kpc_problem_hit {
	const struct kpc_problem_rule *rule;
	char labels[KPC_PROBLEM_LABELS_MAX][KPC_PROBLEM_VALUE_MAX];
	unsigned int nattrs;
	const char *attr_names[KPC_PROBLEM_ATTRS_MAX];
	char attrs[KPC_PROBLEM_ATTRS_MAX][KPC_PROBLEM_VALUE_MAX];
};

/*
 * The matcher keeps what a rule's context needs (the last lines of the
 * context formats, continuations joined), so every record of a stream
 * goes through it, in order, problem or not.
 */
struct kpc_problem_matcher;

struct kpc_problem_matcher *kpc_problem_matcher_new(const struct kpc_problems *p);
void kpc_problem_matcher_free(struct kpc_problem_matcher *m);

/*
 * Which problems rec reports: fills hits[0 .. n-1] and returns n (0 for
 * none, at most max), or a negative errno.  Costs one hash lookup for a
 * record whose format no rule names.
 */
int kpc_problem_match(struct kpc_problem_matcher *m, const struct kpc_record *rec,
		      struct kpc_problem_hit *hits, unsigned int max);

/*
 * A hit as JSON, the one writer of it (kprint problems --json, /events,
 * /problems' latest): {"problem", "kind", "condition"?, "labels": {...},
 * "attribution": {...}, "record": the record as /records has it}.
 */
struct json_object *kpc_json_problem_hit(const struct kpc_problem_hit *hit,
					 const struct kpc_record *rec);

/*
 * Whether text could be what format printed (kernel printf conversions;
 * literal bytes equal, each conversion's text of its kind), and if so the
 * text of each conversion: spans[i] and lens[i] for i < *n (*n in: room;
 * out: conversions).  The inner format of a %pV is matched this way.
 */
bool kpc_format_matches(const char *format, const char *text, size_t text_len,
			const char **spans, size_t *lens, unsigned int *n);

#endif /* KPC_PROBLEMS_H */
