/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node-problem-detector's rule files (its kernel-monitor.json), evaluated
 * as NPD's log monitor does: each kernel message is pushed into a ring of
 * the file's bufferSize messages, and each rule's pattern is matched, in
 * the file's order, against the ring's messages joined with "\n", anchored
 * at the end only (NPD compiles PATTERN + "\z"), so that a rule of several
 * lines fires when its last line is the newest message.  Patterns are RE2
 * in NPD; here PCRE2 runs them, with match and depth limits, and a pattern
 * with a construct RE2 does not have (backreferences, lookaround, atomic
 * groups, possessive quantifiers, recursion, callouts) is refused at load.
 */
#ifndef KPC_NPD_H
#define KPC_NPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NPD's default bufferSize, and ours at most (a message is pushed per record). */
#define KPC_NPD_BUFFER_DEFAULT	10
#define KPC_NPD_BUFFER_MAX	1000

struct kpc_npd_rule {
	bool permanent;			/* "permanent": sets condition; else "temporary" */
	const char *condition;		/* permanent: a condition's type; else NULL */
	const char *reason;
	const char *pattern;
	unsigned int line;		/* of the pattern in the file */
	void *re;			/* pcre2_code of PATTERN\z */
};

struct kpc_npd_condition {
	const char *type, *reason, *message;	/* the default (status False) */
};

struct kpc_npd {
	char *path;
	const char *plugin, *log_path, *lookback, *delay, *source;
	uint64_t lookback_ns, delay_ns;	/* parsed; no "lookback": none (NPD: now) */
	unsigned int buffer_size;
	struct kpc_npd_condition *conds;
	unsigned int nconds;
	struct kpc_npd_rule *rules;
	unsigned int nrules;
	void *json;			/* the parsed file: owns the strings above */
	/* The ring: buffer_size messages, the newest at (current - 1) % size. */
	char **msg;
	size_t *len;
	unsigned long current;
	char *joined;			/* the ring joined, as NPD's String() */
	size_t joined_len, joined_cap;
	void *md, *mctx;		/* pcre2 match data and context */
};

/*
 * Load path: 0, or -errno with "FILE:LINE: reason" in err (a pattern that
 * does not compile or is not RE2, a rule without reason or pattern, a type
 * other than temporary or permanent, a permanent rule whose condition is
 * not among "conditions", a plugin other than "kmsg").
 */
int kpc_npd_load(const char *path, struct kpc_npd **out, char *err, size_t errlen);
void kpc_npd_free(struct kpc_npd *n);

/*
 * Go's time.ParseDuration(), which NPD reads "lookback" and "delay" with:
 * 0 and the nanoseconds in *ns, or -EINVAL (a negative duration too).
 */
int kpc_npd_duration(const char *s, uint64_t *ns);
/*
 * NPD's start time (util.GetStartTime()) on the boot-time clock, for a
 * monitor that starts at now_ns since boot: messages stamped before it are
 * not NPD's.  The later of boot + "delay" and now - "lookback" (now without
 * a lookback).
 */
uint64_t kpc_npd_start(const struct kpc_npd *n, uint64_t now_ns);

/*
 * One message more (the text of one kernel log line; NPD's kmsg watcher
 * passes no empty one on: the caller does not push it); 0 or -ENOMEM.  The
 * ring keeps it as given; it is matched trimmed of white space at both
 * ends, as the watcher trims each message (strings.TrimSpace(), ASCII
 * white space here).
 */
int kpc_npd_push(struct kpc_npd *n, const char *msg, size_t len);
/* more at the end of the newest message (a pr_cont() fragment); 0 or -ENOMEM. */
int kpc_npd_append(struct kpc_npd *n, const char *more, size_t len);
/* Rule i against the ring: 1 it matches, 0 not, -E2BIG past the match limits. */
int kpc_npd_match(struct kpc_npd *n, unsigned int i);

/* 0 if pattern uses only what RE2 has; else why not, into err. */
int kpc_npd_re2_check(const char *pattern, char *err, size_t errlen);

#endif /* KPC_NPD_H */
