/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The problem catalog's insides, shared by its loader
 * (kpc_problems_load.c), its matcher (kpc_problems_match.c) and the
 * format matcher (kpc_format_match.c); libkpc's users see
 * kpc_problems.h only.  The unit tests read it too, to count the
 * matcher's hash lookups.
 */
#ifndef KPC_PROBLEMS_INT_H
#define KPC_PROBLEMS_INT_H

#include "kpc_problems.h"

/*
 * A kernel printf format compiled for matching rendered text against it:
 * literal runs ("%%" already one '%') and conversions, each with the
 * characters its rendering may have.
 */
struct kpc_fm;

/* Returns 0, or -EINVAL with why, or -ENOMEM. */
int kpc_fm_compile(const char *format, struct kpc_fm **out, char *why, size_t size);
void kpc_fm_free(struct kpc_fm *fm);
/* Conversions of the compiled format. */
unsigned int kpc_fm_nconv(const struct kpc_fm *fm);
/* Literal bytes of the format: 0 means any text at all could be it. */
size_t kpc_fm_literal_len(const struct kpc_fm *fm);
/* Conversion i is "%pV" (a struct va_format: another message's text). */
bool kpc_fm_is_pv(const struct kpc_fm *fm, unsigned int i);
/* kpc_format_matches() with the format already compiled. */
bool kpc_fm_match(const struct kpc_fm *fm, const char *text, size_t text_len,
		  const char **spans, size_t *lens, unsigned int *n);

/* Where a name of a rule gets its value from, in one of its formats. */
enum kpc_pbind_kind {
	KPC_PBIND_NONE,		/* this format does not bind it */
	KPC_PBIND_ARG,		/* the record's args[i] */
	KPC_PBIND_INNER,	/* the %pV's conversion i */
	KPC_PBIND_FIELD,	/* a record field, enum kpc_pfield i */
	KPC_PBIND_CONTEXT,	/* the rule's context line, key i */
};

enum kpc_pfield {
	KPC_PFIELD_DEVICE,
	KPC_PFIELD_COMM,
	KPC_PFIELD_PID,
	KPC_PFIELD_MODULE,
	KPC_PFIELD_SUBSYSTEM,
	KPC_PFIELD_FUNCTION,
	KPC_PFIELD_COUNT,
};

extern const char *const kpc_pfield_names[KPC_PFIELD_COUNT];

struct kpc_pbind {
	enum kpc_pbind_kind kind;
	unsigned int i;
};

enum kpc_pred_op {
	KPC_PRED_EQUALS,
	KPC_PRED_PREFIX,
	KPC_PRED_ONE_OF,
};

#define KPC_PROBLEM_PREDS_MAX	8	/* "where" entries per format */
#define KPC_PROBLEM_FIELDS_MAX	KPC_PFIELD_COUNT
#define KPC_PROBLEM_KEYS_MAX	8	/* context keys per rule */
#define KPC_PROBLEM_SLOTS_MAX	8	/* context formats per catalog */
#define KPC_PROBLEM_WITHIN_MAX	4096	/* records back a context may be */
/* A context line, its fragments joined: printk's LOG_LINE_MAX and more. */
#define KPC_PROBLEM_LINE_MAX	2048

struct kpc_ppred {
	struct kpc_pbind from;
	enum kpc_pred_op op;
	unsigned int nvalues;
	const char **values;
};

/*
 * A context line a rule reads key=value pairs from: the line of a format
 * printed just before the rule's record.  Rules naming the same format
 * share its slot (kpc_problems.slots), where the matcher keeps the line.
 */
struct kpc_pctx {
	unsigned int slot;
	unsigned int within;
	unsigned int nkeys;
	const char *names[KPC_PROBLEM_KEYS_MAX];	/* the rule's names */
	const char *keys[KPC_PROBLEM_KEYS_MAX];		/* the line's keys */
};

struct kpc_pslot {
	const char *format;
	uint64_t format_id;
	unsigned int within;		/* the largest of the rules' */
};

/* A rule's format with everything the matcher needs, resolved at load. */
struct kpc_pfmt {
	struct kpc_problem_format pub;
	unsigned int nconv;
	const char *args[KPRINT_ARGS_MAX];	/* names; NULL for "-" */
	int pv;					/* conversion of the %pV, -1 */
	struct kpc_fm *inner;			/* or NULL */
	unsigned int ninner;
	const char *inner_args[KPRINT_ARGS_MAX];
	unsigned int nfields;
	const char *field_names[KPC_PROBLEM_FIELDS_MAX];
	enum kpc_pfield fields[KPC_PROBLEM_FIELDS_MAX];
	unsigned int npreds;
	struct kpc_ppred preds[KPC_PROBLEM_PREDS_MAX];
	struct kpc_pbind label_from[KPC_PROBLEM_LABELS_MAX];
	struct kpc_pbind attr_from[KPC_PROBLEM_ATTRS_MAX];
	const struct kpc_pctx *ctx;		/* the rule's, or NULL */
	int next;				/* next format of the same id, -1 */
};

/* The hash of format ids: rule formats and context slots alike. */
struct kpc_pentry {
	uint64_t id;
	int fmt;			/* first kpc_pfmt of the id, -1 */
	int slot;			/* context slot of the id, -1 */
	bool used;
};

struct kpc_problems {
	char *path;
	unsigned int nrules;
	struct kpc_problem_rule *rules;
	struct kpc_pctx **ctx;		/* per rule, NULL when none */
	unsigned int nfmts;
	struct kpc_pfmt *fmts;
	unsigned int nslots;
	struct kpc_pslot slots[KPC_PROBLEM_SLOTS_MAX];
	unsigned int hash_mask;		/* buckets - 1, a power of two */
	struct kpc_pentry *hash;
	/* Every string and array of the catalog, freed with it. */
	void **allocs;
	size_t nallocs, allocs_room;
};

/* The entry of id, or NULL: the one lookup a record costs. */
const struct kpc_pentry *kpc_problems_lookup(const struct kpc_problems *p, uint64_t id);

/* What the matcher keeps of a context format's latest line. */
struct kpc_pline {
	bool valid;
	uint64_t head_seq;		/* the seq fragments continue */
	uint64_t head_n;		/* its place in the stream */
	size_t len;
	char text[KPC_PROBLEM_LINE_MAX];
};

struct kpc_problem_matcher {
	const struct kpc_problems *p;
	uint64_t n;			/* records seen */
	uint64_t lookups;		/* hash lookups made, for the tests */
	struct kpc_pline lines[KPC_PROBLEM_SLOTS_MAX];
};

#endif /* KPC_PROBLEMS_INT_H */
