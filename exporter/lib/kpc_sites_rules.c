// SPDX-License-Identifier: GPL-2.0
/*
 * The format ids a rules file names, for kprint sites diff --rules: the
 * label matchers format_id="ID" and format_id=~"ID|ID" in the expr of each
 * rule of a Prometheus rules file (YAML, read with libyaml), or the
 * "format_id" of each line of kprint's problem catalog (JSON lines; until
 * that catalog is written, any file of such lines stands in for it).
 *
 * The line given for an id is where its digits are written in the file,
 * found in the lines the expr spans (libyaml gives a scalar's first and
 * last line; a block scalar's value no longer says where its lines were).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <yaml.h>

#include "kpc_sites_diff.h"

#define KPC_RULES_MAX_BYTES	(64u << 20)	/* no rules file is near that */
#define KPC_RULES_ID_LEN	16

struct kpc_rules_file {
	const char *path;
	char *text;			/* the whole file, NUL-terminated */
	size_t len;
	size_t *lines;			/* each line's first byte */
	size_t nlines;
	yaml_document_t *doc;
	struct kpc_sites_rules *out;
	char *err;
	size_t errlen;
};

/* "FILE:LINE: reason" in the caller's buffer; always -EINVAL. */
__attribute__((format(printf, 3, 4)))
static int kpc_rules_err(struct kpc_rules_file *f, size_t line, const char *fmt, ...)
{
	int n = snprintf(f->err, f->errlen, "%s:%zu: ", f->path, line);
	va_list ap;

	if (n >= 0 && (size_t)n < f->errlen) {
		va_start(ap, fmt);
		vsnprintf(f->err + n, f->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int kpc_rules_read(struct kpc_rules_file *f)
{
	FILE *in = fopen(f->path, "re");
	size_t cap = 0, i;
	char *grown;

	int saved;

	if (!in) {
		saved = errno;
		snprintf(f->err, f->errlen, "%s: %s", f->path, strerror(saved));
		return -saved;
	}
	for (;;) {
		if (f->len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			grown = cap <= KPC_RULES_MAX_BYTES ? realloc(f->text, cap) : NULL;
			if (!grown) {
				fclose(in);
				snprintf(f->err, f->errlen, "%s: too big", f->path);
				return -EFBIG;
			}
			f->text = grown;
		}
		i = fread(f->text + f->len, 1, cap - f->len - 1, in);
		f->len += i;
		if (!i)
			break;
	}
	i = ferror(in);
	fclose(in);
	if (i) {
		snprintf(f->err, f->errlen, "%s: read error", f->path);
		return -EIO;
	}
	f->text[f->len] = '\0';
	f->lines = malloc((f->len + 2) * sizeof(*f->lines));
	if (!f->lines)
		return -ENOMEM;
	f->lines[f->nlines++] = 0;
	for (i = 0; i < f->len; i++)
		if (f->text[i] == '\n')
			f->lines[f->nlines++] = i + 1;
	return 0;
}

/* The 1-based line holding byte @off. */
static size_t kpc_rules_line_of(const struct kpc_rules_file *f, size_t off)
{
	size_t lo = 0, hi = f->nlines;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1;
}

/* Exactly 16 lower-case hex digits, as format_id labels are written. */
static bool kpc_rules_id(const char *s, size_t len, uint64_t *id)
{
	size_t i;

	if (len != KPC_RULES_ID_LEN)
		return false;
	*id = 0;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return false;
		*id = *id << 4 | (uint64_t)(isdigit((unsigned char)s[i]) ? s[i] - '0' :
					    s[i] - 'a' + 10);
	}
	return true;
}

static int kpc_rules_add(struct kpc_sites_rules *r, uint64_t id, const char *rule,
			 const char *kind, size_t line)
{
	struct kpc_sites_rule_ref *ref;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct kpc_sites_rule_ref *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	ref = &r->v[r->n];
	ref->rule = strdup(rule);
	if (!ref->rule)
		return -ENOMEM;
	ref->format_id = id;
	ref->kind = kind;
	ref->line = line;
	r->n++;
	return 0;
}

/* One literal id of a matcher: where it is written in the expr's lines. */
static int kpc_rules_found(struct kpc_rules_file *f, const yaml_node_t *expr, const char *rule,
			   const char *kind, const char *s, size_t len)
{
	size_t first = expr->start_mark.line, last = expr->end_mark.line + 1, line = first + 1;
	const char *from, *to, *at;
	uint64_t id;

	if (!kpc_rules_id(s, len, &id)) {
		f->out->not_literal++;
		return 0;
	}
	from = f->text + f->lines[first < f->nlines ? first : f->nlines - 1];
	to = last < f->nlines ? f->text + f->lines[last] : f->text + f->len;
	at = memmem(from, to - from, s, len);
	if (at)
		line = kpc_rules_line_of(f, at - f->text);
	return kpc_rules_add(f->out, id, rule, kind, line);
}

/* A regex's alternatives, each a literal id or counted as not one. */
static int kpc_rules_regex(struct kpc_rules_file *f, const yaml_node_t *expr, const char *rule,
			   const char *kind, const char *s, size_t len)
{
	const char *end, *bar;
	int err = 0;

	/* Anchors are implied (PromQL anchors every regex) and may be written. */
	if (len && s[0] == '^')
		s++, len--;
	if (len && s[len - 1] == '$' && (len < 2 || s[len - 2] != '\\'))
		len--;
	if (len >= 2 && s[0] == '(' && s[len - 1] == ')' && !memchr(s + 1, '(', len - 2))
		s++, len -= 2;
	for (end = s + len; !err && s <= end; s = bar + 1) {
		bar = memchr(s, '|', end - s);
		if (!bar)
			bar = end;
		err = kpc_rules_found(f, expr, rule, kind, s, bar - s);
	}
	return err;
}

/* The label matchers format_id="..." and format_id=~"..." of an expr. */
static int kpc_rules_expr(struct kpc_rules_file *f, const yaml_node_t *expr, const char *rule,
			  const char *kind)
{
	const char *s = (const char *)expr->data.scalar.value, *p, *q, *v;
	bool regex;
	int err = 0;

	for (p = s; !err && (p = strstr(p, "format_id")); p += strlen("format_id")) {
		q = p + strlen("format_id");
		if ((p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == ':')) ||
		    isalnum((unsigned char)*q) || *q == '_' || *q == ':')
			continue;
		q += strspn(q, " \t\n");
		regex = q[0] == '=' && q[1] == '~';
		if (!regex && (q[0] != '=' || q[1] == '='))
			continue;
		q += regex ? 2 : 1;
		q += strspn(q, " \t\n");
		if (*q != '"' && *q != '\'' && *q != '`')
			continue;
		/* A format id has no escape in it: the string ends at its quote. */
		v = strchr(q + 1, *q);
		if (!v)
			break;
		if (regex)
			err = kpc_rules_regex(f, expr, rule, kind, q + 1, v - q - 1);
		else
			err = kpc_rules_found(f, expr, rule, kind, q + 1, v - q - 1);
		p = v + 1 - strlen("format_id");
	}
	return err;
}

static const yaml_node_t *kpc_rules_key(struct kpc_rules_file *f, const yaml_node_t *map,
					const char *key)
{
	yaml_node_pair_t *pr;

	for (pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
		const yaml_node_t *k = yaml_document_get_node(f->doc, pr->key);

		if (k && k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return yaml_document_get_node(f->doc, pr->value);
	}
	return NULL;
}

static bool kpc_rules_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE &&
	       strlen((char *)n->data.scalar.value) == n->data.scalar.length;
}

/* A "key:" with nothing, ~ or null: as if the key were not there. */
static bool kpc_rules_null(const yaml_node_t *n)
{
	const char *s;

	if (!n)
		return true;
	s = (const char *)n->data.scalar.value;
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null"));
}

static int kpc_rules_rule(struct kpc_rules_file *f, const yaml_node_t *rule)
{
	const yaml_node_t *alert, *record, *name, *expr;
	size_t line = rule->start_mark.line + 1;

	if (rule->type != YAML_MAPPING_NODE)
		return kpc_rules_err(f, line, "a rule wants a mapping (alert or record, expr)");
	alert = kpc_rules_key(f, rule, "alert");
	record = kpc_rules_key(f, rule, "record");
	expr = kpc_rules_key(f, rule, "expr");
	if (!alert == !record)
		return kpc_rules_err(f, line, "a rule wants one of alert and record");
	name = alert ? alert : record;
	if (!kpc_rules_scalar(name) || !name->data.scalar.length)
		return kpc_rules_err(f, name->start_mark.line + 1, "%s: wants a name",
				     alert ? "alert" : "record");
	if (!kpc_rules_scalar(expr))
		return kpc_rules_err(f, expr ? expr->start_mark.line + 1 : line,
				     "%s %s: expr wants a string", alert ? "alert" : "record",
				     (char *)name->data.scalar.value);
	return kpc_rules_expr(f, expr, (const char *)name->data.scalar.value,
			      alert ? "alert" : "record");
}

/* A sequence under @key of @map, each item passed to @each; absent or null: none. */
static int kpc_rules_each(struct kpc_rules_file *f, const yaml_node_t *map, const char *key,
			  int (*each)(struct kpc_rules_file *f, const yaml_node_t *n))
{
	const yaml_node_t *seq = kpc_rules_key(f, map, key);
	yaml_node_item_t *it;
	int err = 0;

	if (kpc_rules_null(seq))
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE)
		return kpc_rules_err(f, seq->start_mark.line + 1, "%s: wants a list", key);
	for (it = seq->data.sequence.items.start; !err && it < seq->data.sequence.items.top; it++)
		err = each(f, yaml_document_get_node(f->doc, *it));
	return err;
}

static int kpc_rules_group(struct kpc_rules_file *f, const yaml_node_t *group)
{
	if (group->type != YAML_MAPPING_NODE)
		return kpc_rules_err(f, group->start_mark.line + 1,
				     "a group wants a mapping (name, rules)");
	return kpc_rules_each(f, group, "rules", kpc_rules_rule);
}

static int kpc_rules_yaml(struct kpc_rules_file *f)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	const yaml_node_t *root;
	int err;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)f->text, f->len);
	if (!yaml_parser_load(&parser, &doc)) {
		err = parser.error == YAML_MEMORY_ERROR ? -ENOMEM :
		      kpc_rules_err(f, parser.problem_mark.line + 1, "%s%s%s",
				    parser.problem ? parser.problem : "YAML error",
				    parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return err;
	}
	f->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root)
		err = 0;
	else if (root->type != YAML_MAPPING_NODE || !kpc_rules_key(f, root, "groups"))
		err = kpc_rules_err(f, root->start_mark.line + 1,
				    "not a rules file: wants a mapping with groups");
	else
		err = kpc_rules_each(f, root, "groups", kpc_rules_group);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return err;
}

/* A problem catalog: one JSON object a line, each with a "format_id". */
static int kpc_rules_jsonl(struct kpc_rules_file *f)
{
	struct json_object *obj, *id, *name;
	char label[32], *line;
	size_t i;
	uint64_t v;
	int err = 0;

	for (i = 0; !err && i < f->nlines; i++) {
		const char *s = f->text + f->lines[i];
		size_t len = strcspn(s, "\n");

		if (strspn(s, " \t\r") >= len)
			continue;
		line = strndup(s, len);
		if (!line)
			return -ENOMEM;
		obj = json_tokener_parse(line);
		free(line);
		if (!obj || !json_object_is_type(obj, json_type_object)) {
			json_object_put(obj);
			return kpc_rules_err(f, i + 1, "not a JSON object");
		}
		if (!json_object_object_get_ex(obj, "format_id", &id) ||
		    !json_object_is_type(id, json_type_string) ||
		    !kpc_rules_id(json_object_get_string(id), json_object_get_string_len(id), &v))
			err = kpc_rules_err(f, i + 1, "format_id wants 16 hex digits");
		snprintf(label, sizeof(label), "line %zu", i + 1);
		if (!json_object_object_get_ex(obj, "id", &name) &&
		    !json_object_object_get_ex(obj, "name", &name))
			name = NULL;
		if (!err)
			err = kpc_rules_add(f->out, v, name && json_object_is_type(name, json_type_string) ?
					    json_object_get_string(name) : label, "problem", i + 1);
		json_object_put(obj);
	}
	return err;
}

int kpc_sites_rules_load(const char *path, struct kpc_sites_rules *out, char *err,
			 size_t errlen)
{
	struct kpc_rules_file f = { .path = path, .out = out, .err = err, .errlen = errlen };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = kpc_rules_read(&f);
	if (!ret)
		ret = f.text[strspn(f.text, " \t\r\n")] == '{' ? kpc_rules_jsonl(&f) :
		      kpc_rules_yaml(&f);
	if (!ret) {
		out->path = strdup(path);
		ret = out->path ? 0 : -ENOMEM;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	free(f.text);
	free(f.lines);
	if (ret)
		kpc_sites_rules_free(out);
	return ret;
}

void kpc_sites_rules_free(struct kpc_sites_rules *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->v[i].rule);
	free(r->v);
	free(r->path);
	memset(r, 0, sizeof(*r));
}
