/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The problem catalog loader's helpers (kpc_problems_yaml.c), shared by
 * kpc_problems_load.c (the file, the problems) and kpc_problems_format.c
 * (a problem's formats and context).
 */
#ifndef KPC_PROBLEMS_LOAD_H
#define KPC_PROBLEMS_LOAD_H

#include <yaml.h>

#include "kpc_problems_int.h"

struct kpc_pload {
	const char *path;
	yaml_document_t *doc;
	struct kpc_problems *p;
	char *err;
	size_t errlen;
};

/* err = "FILE:LINE: " fmt (LINE of node n, 1 without one); -EINVAL. */
__attribute__((format(printf, 3, 4)))
int kpc_pl_err(struct kpc_pload *l, const yaml_node_t *n, const char *fmt, ...);
void *kpc_pl_keep(struct kpc_pload *l, void *ptr);
int kpc_pl_str(struct kpc_pload *l, const char *what, const yaml_node_t *v, const char **out);
bool kpc_pl_name_ok(const char *s);
/* vals[i]: the value of key known[i], or NULL. */
int kpc_pl_keys(struct kpc_pload *l, const yaml_node_t *map, const char *what,
		const char *const *known, size_t nknown, const yaml_node_t **vals);
int kpc_pl_names(struct kpc_pload *l, const char *what, const yaml_node_t *v,
		 unsigned int max, const char **names, unsigned int *n, bool dash);

/* A problem's context (its slot shared with others of the same format). */
int kpc_pl_context(struct kpc_pload *l, const yaml_node_t *node,
		   const struct kpc_problem_rule *r, struct kpc_pctx **out);
/* One entry of a problem's formats, resolved against r's names and ctx. */
int kpc_pl_format(struct kpc_pload *l, const yaml_node_t *node,
		  const struct kpc_problem_rule *r, const struct kpc_pctx *ctx,
		  struct kpc_pfmt *f);

#endif /* KPC_PROBLEMS_LOAD_H */
