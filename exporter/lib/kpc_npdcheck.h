/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node-problem-detector rule files (config/kernel-monitor.json) held
 * against formats: kprint problems --check-npd.
 *
 * NPD matches a Go RE2 regular expression over the text of /dev/kmsg; a
 * format can only be tested by a text it prints.  A format is rendered
 * with a sample of each conversion's kind (kpc_npdcheck_render()): an
 * integer 1 (0 in hex, so that "%04lx" gives "0000"), a pointer as 16 hex
 * digits, a symbol as "func+0x0/0x10", a string as one word.  The word is
 * "x", then in turn each word of the pattern's own text ("docker" of
 * "task docker:\w+"), so that a rule that wants a given task or device
 * name is not called stale for that alone; a word never has a space, so
 * that a "%s" cannot stand for a whole sentence a rule wants.  The pattern
 * is searched anywhere in the one line (NPD anchors it at the end of its
 * buffer of lines, \z, which a sample can break).
 *
 * Limits: a rule that spans lines is never matched; a "%s" or "%pV" that
 * carries a sentence of its own (a wrapper's message, an oops header's
 * " PREEMPT SMP") is one word here, so such a rule can come out stale
 * when some value could still print what it wants; a pattern that only
 * matches a particular number (\b0\b of a count) can too.
 */
#ifndef KPC_NPDCHECK_H
#define KPC_NPDCHECK_H

#include <stdbool.h>
#include <stddef.h>

#define KPC_NPDCHECK_WORDS	8	/* words of a pattern tried for a %s */

struct kpc_npd;

/*
 * A rule of the file as kpc_npd_load() read and checked it (one reader for
 * the exporter and the check), with its pattern compiled again without
 * NPD's end anchor: a format's sample is one line, searched anywhere.
 */
struct kpc_npdcheck_rule {
	const char *type;	/* "temporary" or "permanent" */
	const char *reason;	/* "OOMKilling" */
	const char *condition;	/* permanent: "KernelDeadlock"; else NULL */
	const char *pattern;
	unsigned int line;	/* of the pattern in the file */
	unsigned int nwords;
	char *words[KPC_NPDCHECK_WORDS];
	void *re;		/* pcre2_code of the pattern alone */
	void *md;		/* pcre2_match_data */
};

struct kpc_npdcheck_rules {
	struct kpc_npd *npd;	/* owns the strings above */
	struct kpc_npdcheck_rule *v;
	size_t n;
};

/*
 * Read a rule file with kpc_npd_load(), so that it refuses what the
 * exporter refuses, with the same "FILE:LINE: reason" in @err.  Returns 0
 * or a negative errno.
 */
int kpc_npdcheck_load(const char *path, struct kpc_npdcheck_rules *out, char *err,
		      size_t errlen);
void kpc_npdcheck_free(struct kpc_npdcheck_rules *r);

/* Whether @rule's pattern matches somewhere in @text. */
bool kpc_npdcheck_match(const struct kpc_npdcheck_rule *rule, const char *text);

/*
 * @fmt with each conversion replaced by its sample, "%s" and the like by
 * @word, "%pV" by @inner when not NULL (a catalog's inner format, already
 * rendered).  Cut to @len.  Returns @buf.
 */
char *kpc_npdcheck_render(const char *fmt, const char *word, const char *inner,
			  char *buf, size_t len);

enum {
	KPC_NPD_MATCH = 1,	/* with "x" for every string */
	KPC_NPD_MATCH_WORD,	/* only with a word of the pattern for them */
};

/*
 * Whether some rendering of @fmt (with @inner for its %pV) matches @rule:
 * with "x" for every string, then with each of the rule's words.  Returns
 * 0 or KPC_NPD_MATCH*; @buf holds the text that matched.
 */
int kpc_npdcheck_matches_format(const struct kpc_npdcheck_rule *rule, const char *fmt,
				const char *inner, char *buf, size_t len);

#endif /* KPC_NPDCHECK_H */
