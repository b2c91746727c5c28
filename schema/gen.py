#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Generate kprint's wire-format code from schema/kprint.yaml.

The YNL spec is the single source of the generic-netlink family.  From it
this writes, each file marked generated and naming the command that
regenerates it:

  include/uapi/linux/kprint.h   enums, constants, family/version/group names
  kernel/kprint_genl.h, .c      policies, op table, multicast groups,
                                handler prototypes, nest size helpers
  kernel/kprint_stats.h         struct kprint_stats
  kernel/kprint_stats_table.h   its fill table, for kprint_nl_fill.c alone
  exporter/lib/kpc_genl.h, .c   libkpc's struct kpc_stats, the stats table
                                (attribute -> name -> field), the lines of
                                `kprint stats`, and the record decoder's
                                per-attribute table (type, length limit,
                                field of struct kpc_record)
  exporter/daemon/kpx_stats_metrics.h, .c
                                the exporter's families of the counters

The counters' part is schema/gen_stats.py.

Usage: schema/gen.py [--output-dir DIR] [--spec FILE] [--list]
(default: the spec into the source tree; `make generate` runs it).
tests/unit/generated-fresh.sh regenerates into a temporary directory and
fails when a committed file differs.

It reads the genetlink-c subset of YNL that kprint uses (see
schema/README.md for the few conventions of our own) and stops with an
error on anything it does not understand, rather than guess.  It is ours,
written for this family: no code of the kernel's ynl-gen is in here.
"""
import argparse
import os
import sys
import textwrap

import yaml

import gen_stats

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SPEC = "schema/kprint.yaml"
STATS = "schema/stats.yaml"     # the stats set's counters: kprint's keys, beside the spec
REGEN = "make generate"


class SpecError(Exception):
    pass


# The keys this generator knows, per level of the spec: anything else is
# an error, so that a spec using more of YNL than we implement cannot be
# half understood.
KNOWN = {
    "top": {"name", "doc", "protocol", "uapi-header", "c-family-name", "c-version-name",
            "max-by-define", "cmd-max-name", "cmd-cnt-name", "definitions",
            "attribute-sets", "operations", "mcast-groups"},
    "definition": {"name", "type", "doc", "value", "entries", "render-max", "enum-name"},
    "attribute-set": {"name", "name-prefix", "enum-name", "doc", "subset-of",
                      "attr-cnt-name", "attr-max-name", "attributes"},
    "attribute": {"name", "type", "doc", "value", "multi-attr", "nested-attributes", "enum",
                  "enum-as-flags", "checks", "display-hint"},
    "checks": {"max", "max-len"},
    "stat": {"field", "type", "metric", "help", "line"},
    "operations": {"enum-name", "name-prefix", "list"},
    "operation": {"name", "doc", "value", "attribute-set", "flags", "do", "dump", "event",
                  "mcgrp"},
    "sub-operation": {"request", "reply", "pre"},
    "mcast-group": {"name", "c-define-name", "flags"},
}


def merge_stats(y, stats):
    """Each counter's keys from schema/stats.yaml onto its attribute of the
    stats set (after check_keys(): upstream YNL has no such key)."""
    aset = next((s for s in y["attribute-sets"] if s["name"] == "stats"), None)
    names = {a["name"]: a for a in aset["attributes"]} if aset else {}
    for name, stat in (stats or {}).items():
        if name not in names:
            raise SpecError(f"{STATS}: {name} is not an attribute of the stats set")
        extra = set(stat or {}) - KNOWN["stat"]
        if extra:
            raise SpecError(f"{STATS}: {name}: {', '.join(sorted(extra))} not supported")
        names[name]["stat"] = stat or {}


def check_keys(y):
    def known(level, obj, where):
        extra = set(obj) - KNOWN[level]
        if extra:
            raise SpecError(f"{where}: {', '.join(sorted(extra))} not supported")

    known("top", y, "spec")
    for d in y.get("definitions", []):
        known("definition", d, d["name"])
    for aset in y["attribute-sets"]:
        known("attribute-set", aset, aset["name"])
        for a in aset["attributes"]:
            known("attribute", a, f"{aset['name']}.{a['name']}")
            known("checks", a.get("checks", {}), f"{aset['name']}.{a['name']}")
    known("operations", y["operations"], "operations")
    for op in y["operations"]["list"]:
        known("operation", op, op["name"])
        for mode in ("do", "dump"):
            if mode in op:
                known("sub-operation", op[mode], f"{op['name']} {mode}")
    for g in y["mcast-groups"]["list"]:
        known("mcast-group", g, g["name"])


def upper(name):
    return name.upper().replace("-", "_")


def lower(name):
    return name.lower().replace("-", "_")


def entries(d):
    """Entries of an enum/flags definition as (name, doc) pairs."""
    out = []
    for e in d["entries"]:
        if isinstance(e, str):
            out.append((e, None))
        else:
            if "value" in e:
                raise SpecError(f"{d['name']}: explicit entry values are not supported")
            out.append((e["name"], e.get("doc")))
    return out


# The C types and netlink sizes of the scalar attribute types kprint uses.
SCALARS = {
    "u32": ("u32", "__u32", "uint32_t", 4),
    "u64": ("u64", "__u64", "uint64_t", 8),
}


class Attr:
    def __init__(self, aset, y, value):
        self.set = aset
        self.name = y["name"]
        self.type = y["type"]
        self.value = value
        self.doc = y.get("doc")
        self.multi = y.get("multi-attr", False)
        self.nested = y.get("nested-attributes")
        self.enum = y.get("enum")
        self.checks = y.get("checks", {})
        self.stat = y.get("stat")
        self.c_name = upper(aset.prefix + self.name)
        if self.type not in ("pad", "nest", "string", "unused") and self.type not in SCALARS:
            raise SpecError(f"{self.c_name}: type {self.type} is not supported")
        if self.type == "string" and "max-len" not in self.checks:
            raise SpecError(f"{self.c_name}: a string needs checks: max-len")


class AttrSet:
    def __init__(self, family, y):
        self.name = y["name"]
        self.doc = y.get("doc")
        self.subset_of = y.get("subset-of")
        self.y = y
        if self.subset_of:
            return
        self.prefix = y.get("name-prefix", f"{family}-{self.name}-a-")
        self.enum_name = lower(y.get("enum-name", f"{family}-{self.name}-attrs"))
        self.cnt_name = upper(y.get("attr-cnt-name", f"__{self.prefix}max"))
        self.max_name = upper(y.get("attr-max-name", self.prefix + "max"))
        self.attrs = []
        value = 1
        for a in y["attributes"]:
            value = a.get("value", value)
            self.attrs.append(Attr(self, a, value))
            value += 1
        self.by_name = {a.name: a for a in self.attrs}
        self.has_pad = any(a.type == "pad" for a in self.attrs)


class Subset:
    """A subset: the parent's attributes, each possibly overridden."""

    def __init__(self, aset, sets):
        parent = sets[aset.subset_of]
        self.name = aset.name
        self.parent = parent
        self.entries = []
        for y in aset.y["attributes"]:
            if y["name"] not in parent.by_name:
                raise SpecError(f"{aset.name}: {y['name']} is not in {parent.name}")
            self.entries.append((parent.by_name[y["name"]], y))


class Family:
    def __init__(self, y, stats=None):
        check_keys(y)
        merge_stats(y, stats)
        if y.get("protocol") != "genetlink-c":
            raise SpecError("protocol must be genetlink-c")
        self.y = y
        self.name = y["name"]
        self.doc = y["doc"]
        self.c_family_name = upper(y["c-family-name"])
        self.c_version_name = upper(y["c-version-name"])
        self.version = y.get("version", 1)
        if not y.get("max-by-define"):
            raise SpecError("max-by-define: true is the only layout generated")
        self.defs = y.get("definitions", [])
        self.consts = {d["name"]: d["value"] for d in self.defs if d["type"] == "const"}
        self.enums = {d["name"]: d for d in self.defs if d["type"] in ("enum", "flags")}
        self.sets = {}
        for s in y["attribute-sets"]:
            self.sets[s["name"]] = AttrSet(self.name, s)
        self.subsets = {n: Subset(s, self.sets) for n, s in self.sets.items() if s.subset_of}
        ops = y["operations"]
        self.op_prefix = ops.get("name-prefix", f"{self.name}-cmd-")
        self.op_enum = lower(ops.get("enum-name", f"{self.name}-cmd"))
        self.op_cnt = upper(y.get("cmd-cnt-name", f"__{self.op_prefix}max"))
        self.op_max = upper(y.get("cmd-max-name", self.op_prefix + "max"))
        self.ops = []
        value = 1
        for op in ops["list"]:
            value = op.get("value", value)
            self.ops.append((op, value))
            value += 1
        self.mcgrps = y["mcast-groups"]["list"]

    def enum_prefix(self, d):
        return d.get("name-prefix", f"{self.name}-{d['name']}-")

    def enum_c_name(self, d):
        return lower(d.get("enum-name", f"{self.name}-{d['name']}"))

    def enum_max(self, name):
        """C name of an enum definition's _MAX, or None without render-max."""
        d = self.enums[name]
        if d["type"] == "enum" and d.get("render-max"):
            return upper(self.enum_prefix(d) + "max")
        return None

    def set_of(self, name):
        """A set or subset by name, as (parent set, [(attr, override)])."""
        if name in self.subsets:
            sub = self.subsets[name]
            return sub.parent, sub.entries
        aset = self.sets[name]
        return aset, [(a, {}) for a in aset.attrs]

    def multi_count(self, attr):
        """How often a multi-attr may repeat: the const <name>s-max."""
        key = attr.name + "s-max"
        if key not in self.consts:
            raise SpecError(f"{attr.c_name} repeats: its nest size needs a const {key}")
        return upper(f"{self.name}-{key}")


def banner_c(what):
    return ("/*\n"
            f" * {what}.\n"
            f" * Generated from {SPEC} by schema/gen.py: do not edit.\n"
            f" * Change the spec and run `{REGEN}`; tests/unit/generated-fresh.sh\n"
            " * fails while this file is stale.\n"
            " */\n")


def comment_block(text, indent=""):
    """text as a C comment, wrapped at 80 columns, paragraphs kept."""
    text = text.strip()
    width = 77 - len(indent.expandtabs(8))
    if "\n" not in text and len(text) <= width - 3:
        return f"{indent}/* {text} */\n"
    out = f"{indent}/*\n"
    for i, para in enumerate(text.split("\n\n")):
        if i:
            out += f"{indent} *\n"
        lines = para.splitlines()
        if any(len(ln) > width for ln in lines):
            lines = textwrap.wrap(" ".join(lines), width)
        for ln in lines:
            out += f"{indent} * {ln}\n"
    return out + f"{indent} */\n"


def tabs_to(text, col):
    """Pad text with tabs to column col (tabs of 8)."""
    width = len(text.expandtabs(8))
    if width >= col:
        return text + "\t"
    n = 0
    while width < col:
        width = (width // 8 + 1) * 8
        n += 1
    return text + "\t" * n


def align_col(texts, minimum=24):
    """The first tab stop past every text, so trailing comments line up."""
    width = max([len(t.expandtabs(8)) for t in texts] + [minimum - 1])
    return (width // 8 + 1) * 8


def enum_body(items, last_comma=True):
    """items: (C name, initializer or None, trailing comment or None).

    A comment that would make the line longer than 100 columns goes above
    its entry instead.
    """
    lines = []
    for i, (name, init, doc) in enumerate(items):
        comma = "," if last_comma or i < len(items) - 1 else ""
        lines.append(("\t" + name + (f" = {init}" if init is not None else "") + comma, doc))
    # Comments too long to trail go above; the rest line up after the
    # longest entry that keeps its comment.
    above = set()
    while True:
        col = align_col([ln for i, (ln, doc) in enumerate(lines) if doc and i not in above])
        more = {i for i, (ln, doc) in enumerate(lines)
                if doc and i not in above and col + len(doc) + 6 > 100}
        if not more:
            break
        above |= more
    out = ""
    for i, (ln, doc) in enumerate(lines):
        if i in above:
            out += comment_block(doc, "\t") + ln + "\n"
        elif doc:
            out += tabs_to(ln, col) + f"/* {doc} */\n"
        else:
            out += ln + "\n"
    return out


def attr_comment(fam, a):
    kind = a.type
    if a.type == "nest":
        kind = f"nest, enum {fam.sets[a.nested].enum_name}"
    elif a.enum:
        kind += f", enum {fam.enum_c_name(fam.enums[a.enum])}"
    if a.multi:
        kind += "; may repeat"
    if a.type == "pad":
        return None
    return kind + (f": {a.doc.strip()}" if a.doc and "\n" not in a.doc.strip() else "")


# ---------------------------------------------------------------------------
# include/uapi/linux/kprint.h

def c_value(v):
    if isinstance(v, int) and v > 0xffffffff:
        return f"0x{v:x}ULL"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def gen_uapi(fam):
    guard = "_UAPI_LINUX_KPRINT_H"
    o = "/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */\n"
    o += banner_c("The UAPI")
    o += "/*\n * kprint: structured kernel messages over generic netlink.\n *\n"
    o += " * This header is the contract between the kprint module and userspace.\n"
    o += " * It must compile on its own as C90 and as C++.\n *\n"
    for ln in fam.doc.strip().splitlines():
        o += f" * {ln}\n" if ln else " *\n"
    o += " */\n"
    o += f"#ifndef {guard}\n#define {guard}\n\n"
    o += f'#define {fam.c_family_name}\t"{fam.name}"\n'
    o += f"#define {fam.c_version_name}\t{fam.version}\n"
    for g in fam.mcgrps:
        cname = upper(g.get("c-define-name", f"{fam.name}-mcgrp-{g['name']}"))
        o += f'#define {cname}\t"{g["name"]}"\n'
    o += "\n"

    pending_consts = []

    def flush_consts():
        nonlocal o
        if not pending_consts:
            return
        col = align_col([f"#define {upper(fam.name + '-' + d['name'])}" for d in pending_consts])
        vcol = align_col([tabs_to(f"#define {upper(fam.name + '-' + d['name'])}", col)
                          + c_value(d["value"]) for d in pending_consts
                          if d.get("doc") and "\n" not in d["doc"].strip()
                          and len(d["doc"].strip()) <= 60])
        for i, d in enumerate(pending_consts):
            paras = (d.get("doc") or "").strip().split("\n\n")
            doc = paras[-1].strip()
            above = "\n\n".join(paras[:-1])
            if "\n" in doc or len(doc) > 60:
                above, doc = (above + "\n\n" + doc).strip(), ""
            if above:
                if i:
                    o += "\n"
                o += comment_block(above)
            line = tabs_to(f"#define {upper(fam.name + '-' + d['name'])}", col) + c_value(d["value"])
            if doc:
                line = tabs_to(line, vcol) + f"/* {doc} */"
            o += line + "\n"
        o += "\n"
        pending_consts.clear()

    for d in fam.defs:
        if d["type"] == "const":
            pending_consts.append(d)
            continue
        flush_consts()
        if d.get("header"):
            continue
        prefix = fam.enum_prefix(d)
        if d.get("doc"):
            o += comment_block(d["doc"])
        o += f"enum {fam.enum_c_name(d)} {{\n"
        items = []
        ents = entries(d)
        for i, (name, doc) in enumerate(ents):
            if d["type"] == "flags":
                init = f"1 << {i}"
            else:
                init = str(d["value-start"]) if i == 0 and "value-start" in d else None
            items.append((upper(prefix + name), init, doc))
        if d["type"] == "flags" or not d.get("render-max"):
            # C90 allows no comma after the last enumerator.
            o += enum_body(items, last_comma=False) + "};\n\n"
            continue
        o += enum_body(items)
        cnt = upper(f"__{prefix}cnt")
        o += f"\n\t/* private: */\n\t{cnt}\n}};\n"
        o += f"#define {upper(prefix + 'max')} ({cnt} - 1)\n\n"
    flush_consts()

    for aset in fam.sets.values():
        if aset.subset_of:
            continue
        if aset.doc:
            o += comment_block(aset.doc)
        o += f"enum {aset.enum_name} {{\n"
        items = []
        prev = 0
        for a in aset.attrs:
            init = str(a.value) if a.value != prev + 1 or prev == 0 else None
            items.append((a.c_name, init, attr_comment(fam, a)))
            prev = a.value
        o += enum_body(items)
        o += f"\n\t/* private: */\n\t{aset.cnt_name}\n}};\n"
        o += f"#define {aset.max_name} ({aset.cnt_name} - 1)\n\n"

    o += f"enum {fam.op_enum} {{\n"
    items = []
    prev = 0
    for op, value in fam.ops:
        init = str(value) if value != prev + 1 or prev == 0 else None
        items.append((upper(fam.op_prefix + op["name"]), init, op["doc"].strip().rstrip(".")))
        prev = value
    o += enum_body(items)
    o += f"\n\t/* private: */\n\t{fam.op_cnt}\n}};\n"
    o += f"#define {fam.op_max} ({fam.op_cnt} - 1)\n\n"
    o += f"#endif /* {guard} */\n"
    return o


# ---------------------------------------------------------------------------
# kernel/kprint_genl.{c,h}

def k_policy_name(fam, what):
    return f"{fam.name}_nl_{lower(what)}_policy"


def k_attr_policy(fam, a, override):
    t = override.get("type", a.type)
    if t == "unused":
        msg = override.get("doc", "").strip()
        if msg:
            return ("{\n\t\t.type = NLA_REJECT,\n\t\t.reject_message = "
                    + c_str(msg) + ",\n\t}")
        return "{ .type = NLA_REJECT, }"
    nested = override.get("nested-attributes", a.nested)
    if t == "nest":
        return f"NLA_POLICY_NESTED({k_policy_name(fam, nested)})"
    if t == "string":
        return f"{{ .type = NLA_NUL_STRING, .len = {a.checks['max-len']}, }}"
    if t in SCALARS:
        nla = "NLA_" + t.upper()
        if "max" in a.checks:
            mx = a.checks["max"]
            sym = fam.enum_max(a.enum) if a.enum else None
            if sym and mx == len(fam.enums[a.enum]["entries"]) - 1:
                mx = sym
            return f"NLA_POLICY_MAX({nla}, {mx})"
        return f"{{ .type = {nla}, }}"
    raise SpecError(f"{a.c_name}: no policy for type {t} in a request")


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def k_nested_sets(fam):
    """Sets used as nests in some request, innermost first."""
    order = []

    def visit(setname):
        parent, ents = fam.set_of(setname)
        for a, ov in ents:
            if ov.get("type", a.type) == "nest":
                visit(ov.get("nested-attributes", a.nested))
        if setname not in order:
            order.append(setname)

    for op, _ in fam.ops:
        for mode in ("do", "dump"):
            req = op.get(mode, {}).get("request")
            if not req:
                continue
            parent, ents = fam.set_of(op["attribute-set"])
            for a, ov in ents:
                if a.name in req["attributes"] and ov.get("type", a.type) == "nest":
                    visit(ov.get("nested-attributes", a.nested))
    return order


def k_size_expr(fam, a):
    """Largest size of one attribute a, as a C expression."""
    if a.type in SCALARS:
        c = SCALARS[a.type][0]
        if a.type == "u64" and a.set.has_pad:
            return f"nla_total_size_64bit(sizeof({c}))"
        return f"nla_total_size(sizeof({c}))"
    if a.type == "string":
        return f"nla_total_size({a.checks['max-len']} + 1)"
    if a.type == "nest":
        return f"{fam.name}_{lower(a.nested)}_nest_max_size()"
    raise SpecError(f"{a.c_name}: no size for type {a.type}")


def k_ops(fam):
    """Operations with a request handler (not notifications)."""
    return [op for op, _ in fam.ops if "do" in op or "dump" in op]


def k_sum(terms):
    """A return statement adding terms [(expr, comment)], one per line."""
    lines = []
    for i, (e, c) in enumerate(terms):
        lines.append((("\treturn " if i == 0 else "\t       ") + e
                      + (" +" if i < len(terms) - 1 else ";"), c))
    col = align_col([ln for ln, _ in lines])
    return "".join(tabs_to(ln, col) + f"/* {c} */\n" for ln, c in lines)


def gen_kernel_h(fam):
    o = "/* SPDX-License-Identifier: GPL-2.0 */\n"
    o += banner_c("The genetlink tables of kprint.ko")
    o += "#ifndef _KPRINT_GENL_H\n#define _KPRINT_GENL_H\n\n"
    o += "#include <net/genetlink.h>\n#include <net/netlink.h>\n\n"
    o += "#include <uapi/linux/kprint.h>\n\n"
    o += "/* Handlers, written by hand (kprint_netlink.c). */\n"
    for op, _ in fam.ops:
        n = lower(op["name"])
        if "do" in op:
            o += f"int {fam.name}_nl_{n}_doit(struct sk_buff *skb, struct genl_info *info);\n"
        if "dump" in op:
            pre = op["dump"].get("pre")
            if pre:
                o += f"int {lower(pre)}(struct netlink_callback *cb);\n"
            o += (f"int {fam.name}_nl_{n}_dumpit(struct sk_buff *skb,\n"
                  f"\t\t\t\tstruct netlink_callback *cb);\n")
    o += "\nenum {\n"
    for g in fam.mcgrps:
        o += f"\t{upper(fam.name + '-nlgrp-' + g['name'])},\n"
    o += "};\n\n"
    o += "/* Nested policies, for handlers that parse a nest themselves. */\n"
    for setname in k_nested_sets(fam):
        parent, _ = fam.set_of(setname)
        o += (f"extern const struct nla_policy\n{k_policy_name(fam, setname)}"
              f"[{parent.max_name} + 1];\n")
    o += "\n/* The family (kprint_netlink.c) registers these. */\n"
    o += f"extern const struct genl_ops {fam.name}_nl_ops[{len(k_ops(fam))}];\n"
    o += (f"extern const struct genl_multicast_group "
          f"{fam.name}_nl_mcgrps[{len(fam.mcgrps)}];\n\n")

    o += "/*\n * Size helpers: the most a nest can take in a message, from the types\n"
    o += " * and max-len checks of the spec (a repeated attribute counts its const\n"
    o += " * <name>s-max times), and the part of it that does not depend on\n"
    o += " * string lengths, for code that sizes a message from stored strings.\n */\n"
    for aset in fam.sets.values():
        if aset.subset_of:
            continue
        nested_somewhere = any(a.type == "nest" and a.nested == aset.name
                               for s in fam.sets.values() if not s.subset_of for a in s.attrs)
        if not nested_somewhere:
            continue
        fn = f"{fam.name}_{lower(aset.name)}_nest_max_size"
        terms = [("nla_total_size(0)", "the nest")]
        fixed = [("nla_total_size(0)", "the nest")]
        for a in aset.attrs:
            if a.type == "pad":
                continue
            e = k_size_expr(fam, a)
            if a.multi:
                e = f"{fam.multi_count(a)} * {e}"
            terms.append((e, lower(a.name)))
            if a.type in SCALARS and not a.multi:
                fixed.append((e, lower(a.name)))
        o += f"static inline size_t {fn}(void)\n{{\n" + k_sum(terms) + "}\n\n"
        if len(fixed) != len(terms):
            fn = f"{fam.name}_{lower(aset.name)}_nest_scalars_size"
            o += "/* The nest and its single scalars, without strings and repeats. */\n"
            o += f"static inline size_t {fn}(void)\n{{\n" + k_sum(fixed) + "}\n\n"
    for op, _ in fam.ops:
        reply = op.get("do", {}).get("reply")
        if not reply:
            continue
        aset, _ = fam.set_of(op["attribute-set"])
        attrs = [aset.by_name[n] for n in reply["attributes"]]
        if any(a.multi for a in attrs):
            continue
        fn = f"{fam.name}_nl_{lower(op['name'])}_reply_size"
        o += f"/* Payload of a {upper(fam.op_prefix + op['name'])} reply. */\n"
        o += f"static inline size_t {fn}(void)\n{{\n"
        o += k_sum([(k_size_expr(fam, a), lower(a.name)) for a in attrs]) + "}\n\n"
    o += "#endif /* _KPRINT_GENL_H */\n"
    return o


def gen_kernel_c(fam):
    o = "// SPDX-License-Identifier: GPL-2.0\n"
    o += banner_c("The genetlink tables of kprint.ko")
    o += "\n#include <net/genetlink.h>\n#include <net/netlink.h>\n\n"
    o += "#include <uapi/linux/kprint.h>\n\n"
    o += '#include "kprint_genl.h"\n\n'
    for setname in k_nested_sets(fam):
        parent, ents = fam.set_of(setname)
        o += f"/* Nest {setname} */\n"
        o += (f"const struct nla_policy {k_policy_name(fam, setname)}"
              f"[{parent.max_name} + 1] = {{\n")
        for a, ov in ents:
            o += f"\t[{a.c_name}] = {k_attr_policy(fam, a, ov)},\n"
        o += "};\n\n"
    for op, _ in fam.ops:
        for mode in ("do", "dump"):
            req = op.get(mode, {}).get("request")
            if req is None:
                continue
            parent, ents = fam.set_of(op["attribute-set"])
            o += f"/* {upper(fam.op_prefix + op['name'])} - {mode} */\n"
            o += (f"static const struct nla_policy {k_policy_name(fam, op['name'])}"
                  f"[{parent.max_name} + 1] = {{\n")
            for a, ov in ents:
                if a.name in req["attributes"]:
                    o += f"\t[{a.c_name}] = {k_attr_policy(fam, a, ov)},\n"
            o += "};\n\n"
    o += f"/* Ops table for {fam.name} */\n"
    o += f"const struct genl_ops {fam.name}_nl_ops[{len(k_ops(fam))}] = {{\n"
    for op in k_ops(fam):
        n = lower(op["name"])
        o += "\t{\n"
        o += f"\t\t.cmd\t\t= {upper(fam.op_prefix + op['name'])},\n"
        if "dump" in op:
            if op["dump"].get("pre"):
                o += f"\t\t.start\t\t= {lower(op['dump']['pre'])},\n"
            o += f"\t\t.dumpit\t\t= {fam.name}_nl_{n}_dumpit,\n"
        if "do" in op:
            o += f"\t\t.doit\t\t= {fam.name}_nl_{n}_doit,\n"
        pol = k_policy_name(fam, op["name"])
        o += f"\t\t.policy\t\t= {pol},\n"
        o += f"\t\t.maxattr\t= ARRAY_SIZE({pol}) - 1,\n"
        if "admin-perm" in op.get("flags", []):
            o += "\t\t.flags\t\t= GENL_ADMIN_PERM,\n"
        o += "\t},\n"
    o += "};\n\n"
    o += (f"const struct genl_multicast_group {fam.name}_nl_mcgrps"
          f"[{len(fam.mcgrps)}] = {{\n")
    for g in fam.mcgrps:
        cname = upper(g.get("c-define-name", f"{fam.name}-mcgrp-{g['name']}"))
        o += f"\t[{upper(fam.name + '-nlgrp-' + g['name'])}] = {{\n"
        o += f"\t\t.name\t= {cname},\n"
        if "admin-perm" in g.get("flags", []):
            o += "\t\t.flags\t= GENL_MCAST_CAP_SYS_ADMIN,\n"
        o += "\t},\n"
    o += "};\n\n"
    return o


# ---------------------------------------------------------------------------
# exporter/lib/kpc_genl.{c,h}

def gen_user_h(fam):
    o = "/* SPDX-License-Identifier: GPL-2.0 */\n"
    o += banner_c("libkpc's decode tables")
    o += "#ifndef KPC_GENL_H\n#define KPC_GENL_H\n\n"
    o += "#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <linux/kprint.h>\n"
    o += "#include <netlink/attr.h>\n\n"
    o += gen_user_record_list(fam)
    o += "struct kpc_record;\n"
    o += "extern const struct kpc_record kpc_genl_record_empty;\n\n"
    o += gen_stats.gen_user_stats_h(fam)
    o += "/* libnl's policy for the top level of every kprint message. */\n"
    o += "extern struct nla_policy kpc_genl_kprint_policy[KPRINT_A_MAX + 1];\n\n"
    o += "#endif /* KPC_GENL_H */\n"
    return o


def gen_user_record_list(fam):
    """The record set as an X-macro, which kpc_record_decode() expands into
    a switch whose cases have their lengths and fields as constants."""
    items = []
    for a in fam.sets["record"].attrs:
        if a.type == "pad":
            continue
        field = lower(a.name) + ("s" if a.multi else "")
        if a.type in SCALARS:
            kind, ln = a.type.upper(), SCALARS[a.type][3]
        elif a.type == "string":
            kind, ln = "STRING", a.checks["max-len"] + 1
        else:
            raise SpecError(f"{a.c_name}: libkpc cannot decode {a.type} in a record")
        items.append(f"\tX({a.c_name}, {kind}, {int(a.multi)}, {ln}, {field})")
    o = "/*\n * Record attributes as X(attr, kind, multi, len, field): kind U32, U64 or\n"
    o += " * STRING; multi 1 for one that may repeat; len the exact payload length\n"
    o += " * of a scalar, the most of a string with its NUL; field the member of\n"
    o += " * struct kpc_record it fills, named after it (a repeated one X as Xs[],\n"
    o += " * with its count nXs).  PAD and numbers not listed may be anything.\n */\n"
    o += "#define KPC_GENL_RECORD_ATTRS(X) \\\n"
    o += " \\\n".join(items) + "\n\n"
    return o


def gen_user_c(fam):
    rec = fam.sets["record"]
    o = "// SPDX-License-Identifier: GPL-2.0\n"
    o += banner_c("libkpc's decode tables")
    o += "#include <inttypes.h>\n\n"
    o += '#include "kpc_genl.h"\n#include "kpc_record.h"\n\n'
    o += "/*\n * Fixed-size attributes get maxlen too: libnl only checks a minimum\n"
    o += " * length, and a u64 where a u32 belongs must not be read as its low half.\n */\n"
    o += "struct nla_policy kpc_genl_kprint_policy[KPRINT_A_MAX + 1] = {\n"
    for a in fam.sets["kprint"].attrs:
        if a.type == "pad":
            continue
        if a.type == "nest":
            o += f"\t[{a.c_name}] = {{ .type = NLA_NESTED }},\n"
        elif a.type in SCALARS:
            o += (f"\t[{a.c_name}] = {{ .type = NLA_{a.type.upper()}, "
                  f".maxlen = {SCALARS[a.type][3]} }},\n")
        else:
            raise SpecError(f"{a.c_name}: no libnl policy for {a.type}")
    o += "};\n\n"
    o += "/* A record before decoding: no attribute seen, every string \"\". */\n"
    o += "const struct kpc_record kpc_genl_record_empty = {\n"
    for a in rec.attrs:
        if a.type == "string" and not a.multi:
            o += f'\t.{lower(a.name)} = "",\n'
    o += "};\n\n"
    o += gen_stats.gen_user_stats_c(fam)
    return o


OUTPUTS = [
    ("include/uapi/linux/kprint.h", gen_uapi),
    ("kernel/kprint_genl.h", gen_kernel_h),
    ("kernel/kprint_genl.c", gen_kernel_c),
    ("exporter/lib/kpc_genl.h", gen_user_h),
    ("exporter/lib/kpc_genl.c", gen_user_c),
    ("kernel/kprint_stats.h", lambda fam: gen_stats.gen_kernel_stats_h(fam, banner_c)),
    ("kernel/kprint_stats_table.h", lambda fam: gen_stats.gen_kernel_stats_table(fam, banner_c)),
    ("exporter/daemon/kpx_stats_metrics.h", lambda fam: gen_stats.gen_kpx_metrics_h(fam, banner_c)),
    ("exporter/daemon/kpx_stats_metrics.c", lambda fam: gen_stats.gen_kpx_metrics_c(fam, banner_c)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output-dir", default=ROOT,
                    help="tree to write into (default: the source tree)")
    ap.add_argument("--spec", default=os.path.join(ROOT, SPEC))
    ap.add_argument("--stats", default=os.path.join(ROOT, STATS))
    ap.add_argument("--list", action="store_true",
                    help="print the paths it writes, relative to the tree, and exit")
    args = ap.parse_args()
    if args.list:
        print("\n".join(path for path, _ in OUTPUTS))
        return 0
    with open(args.spec) as f:
        spec = yaml.safe_load(f)
    with open(args.stats) as f:
        stats = yaml.safe_load(f)
    try:
        fam = Family(spec, stats)
        files = [(path, gen(fam)) for path, gen in OUTPUTS]
    except (SpecError, gen_stats.StatError, KeyError) as e:
        print(f"{args.spec}: {e}", file=sys.stderr)
        return 1
    for path, text in files:
        dst = os.path.join(args.output_dir, path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        old = None
        if os.path.exists(dst):
            with open(dst) as f:
                old = f.read()
        if old != text:
            with open(dst, "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
