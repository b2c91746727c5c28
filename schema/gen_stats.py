# SPDX-License-Identifier: GPL-2.0
"""The counters of the stats set, for schema/gen.py.

Each attribute of the "stats" set may have an entry in schema/stats.yaml,
kprint's own keys beside the spec (schema/README.md, "Counters"), merged
onto it as its "stat": where struct kprint_stats keeps it, its
type, and how /metrics and `kprint stats` show it.  From that this module
writes the kernel's struct kprint_stats and its fill table, libkpc's
struct kpc_stats with its tables, and the exporter's metric families, so
that a new counter is the spec and its producer, nothing else.
"""
import re
import textwrap

# The values of stat.type: what a counter is, for /metrics' TYPE.
STAT_TYPES = {"counter": "counter", "gauge": "gauge", "flag": "gauge"}

# Parts of struct kprint_stats that their producer declares, not the spec:
# the ring fills struct kprint_ring_stats itself, under its lock.
EXTERNAL_PARTS = {
    "ring": ("struct kprint_ring_stats", "counters kept by the ring under its lock"),
}


class StatError(Exception):
    pass


def lower(name):
    return name.lower().replace("-", "_")


class Stat:
    """One counter of the stats set and what its "stat" key says."""

    def __init__(self, attr):
        y = attr.stat or {}
        self.attr = attr
        self.name = lower(attr.name)
        self.field = y.get("field", self.name)
        self.type = y.get("type", "counter")
        self.metric = y.get("metric")
        self.help = " ".join(y["help"].split()) if "help" in y else None
        self.line = " ".join(y["line"].split()) if "line" in y else None
        if self.type not in STAT_TYPES:
            raise StatError(f"{attr.c_name}: stat type {self.type} is not one of "
                            f"{', '.join(STAT_TYPES)}")
        if not re.fullmatch(r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?", self.field):
            raise StatError(f"{attr.c_name}: stat field {self.field} is not NAME or PART.NAME")
        if self.help and not self.metric:
            raise StatError(f"{attr.c_name}: a help without a metric")
        if attr.value >= 32:
            raise StatError(f"{attr.c_name}: presence is a 32-bit mask, value {attr.value}")

    @property
    def part(self):
        return self.field.split(".")[0] if "." in self.field else None

    @property
    def member(self):
        return self.field.split(".")[-1]

    @property
    def family(self):
        return self.metric.split("{")[0]


class Line:
    """A `kprint stats` line that shows several counters together."""

    TOKEN = re.compile(r"\{([^{}]*)\}")

    def __init__(self, owner, by_name):
        self.name = owner.name
        self.owner = owner
        self.pieces = []        # ("text", str) and ("%s"/"u64", None): the format
        self.args = []          # C expressions of struct kpc_stats *st
        self.members = []       # Stats, in the order the line first names them
        pos = 0
        for m in self.TOKEN.finditer(owner.line):
            self.pieces.append(("text", owner.line[pos:m.start()].replace("%", "%%")))
            self.add_value(m.group(1), by_name, owner)
            pos = m.end()
        rest = owner.line[pos:]
        if "{" in rest or "}" in rest:
            raise StatError(f"{owner.attr.c_name}: unbalanced braces in its line")
        self.pieces.append(("text", rest.replace("%", "%%") + "\n"))

    def add_value(self, expr, by_name, owner):
        names = [n.strip() for n in expr.split("+")]
        stats = []
        for n in names:
            if n not in by_name:
                raise StatError(f"{owner.attr.c_name}: its line names {n}, not a counter")
            stats.append(by_name[n])
            if by_name[n] not in self.members:
                self.members.append(by_name[n])
        if len(stats) == 1 and stats[0].type == "flag":
            self.pieces.append(("text", "%s"))
            self.args.append(f'st->{stats[0].name} ? "on" : "off"')
            return
        if any(s.type == "flag" for s in stats):
            raise StatError(f"{owner.attr.c_name}: a flag in a sum")
        self.pieces.append(("u64", None))
        self.args.append(" + ".join(f"st->{s.name}" for s in stats))

    @property
    def mask_name(self):
        return f"KPC_STATS_LINE_{self.name.upper()}"

    def mask_define(self):
        """The line's members as a define of kpc_genl.h, one per line."""
        bits = [f"(1u << {s.attr.c_name})" for s in self.members]
        return (f"#define {self.mask_name}\t\\\n\t(" +
                " | \\\n\t ".join(bits) + ")\n")


class Stats:
    """Every counter of the set, its lines and its metric families."""

    def __init__(self, fam):
        aset = fam.sets["stats"]
        self.fam = fam
        self.prefix = aset.prefix
        self.stats = []
        for a in aset.attrs:
            if a.type == "pad":
                continue
            if a.type != "u64":
                raise StatError(f"{a.c_name}: a counter must be u64")
            self.stats.append(Stat(a))
        by_name = {lower(s.attr.name): s for s in self.stats}
        by_name.update({s.attr.name: s for s in self.stats})
        self.lines = [Line(s, by_name) for s in self.stats if s.line]
        self.line_of = {}
        for ln in self.lines:
            for s in ln.members:
                if s in self.line_of:
                    raise StatError(f"{s.attr.c_name}: on two lines, "
                                    f"{self.line_of[s].name} and {ln.name}")
                self.line_of[s] = ln
        self.check_fields()
        self.metrics = self.metric_order()
        self.check_families()

    def check_fields(self):
        seen = set()
        for s in self.stats:
            if s.field in seen:
                raise StatError(f"{s.attr.c_name}: field {s.field} is kept twice")
            seen.add(s.field)
            if s.part is None and s.field in self.parts():
                raise StatError(f"{s.attr.c_name}: field {s.field} is also a part")

    def parts(self):
        """Members of struct kprint_stats in order: (name, [Stat] or None for a u64)."""
        out = []
        for s in self.stats:
            key = s.part or s.field
            if key not in [k for k, _ in out]:
                out.append((key, [] if s.part else None))
            if s.part:
                dict(out)[key].append(s)
        return out

    def metric_order(self):
        """Counters with a metric alone first, then those of each line, in its order."""
        out = [s for s in self.stats if s.metric and s not in self.line_of]
        for ln in self.lines:
            out += [s for s in ln.members if s.metric]
        return out

    def check_families(self):
        done = set()
        prev = None
        for s in self.metrics:
            if not re.fullmatch(r'kprint_[a-z0-9_]+(\{[a-z_]+="[^"\\]*"(,[a-z_]+="[^"\\]*")*\})?',
                                s.metric):
                raise StatError(f"{s.attr.c_name}: metric {s.metric} is not NAME or "
                                'NAME{label="value",...}')
            if s.type == "counter" and not s.family.endswith("_total"):
                raise StatError(f"{s.attr.c_name}: a counter's metric ends in _total")
            if prev and prev.family == s.family:
                if s.help and s.help != prev.help:
                    raise StatError(f"{s.attr.c_name}: {s.family} has its help already")
                if STAT_TYPES[s.type] != STAT_TYPES[prev.type] or \
                   self.line_of.get(s) is not self.line_of.get(prev):
                    raise StatError(f"{s.attr.c_name}: {s.family} mixes types or lines")
                continue
            if s.family in done:
                raise StatError(f"{s.attr.c_name}: the samples of {s.family} are not together")
            if not s.help:
                raise StatError(f"{s.attr.c_name}: the first sample of {s.family} needs a help")
            done.add(s.family)
            prev = s

    def family_starts(self):
        """The metric counters, each with True where its family begins."""
        out, prev = [], None
        for s in self.metrics:
            out.append((s, not prev or prev.family != s.family))
            prev = s
        return out


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_string_lines(s, indent, width=72):
    """s as adjacent C string literals of at most width characters, broken at spaces."""
    words = re.split(r"(?<= )", s)
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + len(w) > width:
            lines.append(cur)
            cur = ""
        cur += w
    lines.append(cur)
    return ("\n" + indent).join(c_string(ln) for ln in lines)


def c_format(pieces, indent, width=64):
    """A printf format of text and u64 pieces as C string literals and PRIu64."""
    out, cur = [], ""
    for kind, text in pieces:
        if kind == "u64":
            cur += '%" PRIu64 "'
            continue
        for w in re.split(r"(?<= )", text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")):
            if cur and len(cur) + len(w) > width:
                out.append(cur)
                cur = ""
            cur += w
    out.append(cur)
    lits = [f'"{ln}"' for ln in out]
    lits = [ln[:-3] if ln.endswith('PRIu64 ""') else ln for ln in lits]
    return ("\n" + indent).join(lits)


def kdoc_member(name, doc):
    """A kernel-doc member line, wrapped at 80 columns as kernel-doc wraps."""
    lines = textwrap.wrap(f"@{name}: {' '.join(doc.split())}", 77 - 3)
    return " * " + lines[0] + "\n" + "".join(f" *\t{ln}\n" for ln in lines[1:])


# ---------------------------------------------------------------------------
# kernel/kprint_stats.h and kernel/kprint_stats_table.h

def gen_kernel_stats_h(fam, banner_c):
    st = Stats(fam)
    o = "/* SPDX-License-Identifier: GPL-2.0 */\n"
    o += banner_c("The counters of kprint.ko's stats reply")
    o += "/*\n * kprint: the counters KPRINT_CMD_STATS_GET reports, as one struct, so that\n"
    o += " * who collects them (kprint_core.c) and who serializes them\n"
    o += " * (kprint_nl_fill.c) need not know each other.\n */\n"
    o += "#ifndef _KPRINT_STATS_H\n#define _KPRINT_STATS_H\n\n"
    o += "#include <linux/types.h>\n\n#include \"kprint_ring.h\"\n\n"
    parts = st.parts()
    for key, members in parts:
        if members is None or key in EXTERNAL_PARTS:
            continue
        o += f"/**\n * struct kprint_{key}_stats - the counters kept in kprint_stats.{key}\n"
        for s in members:
            o += kdoc_member(s.member, s.attr.doc or s.name)
        o += " */\n"
        o += f"struct kprint_{key}_stats {{\n"
        o += "".join(f"\tu64 {s.member};\n" for s in members)
        o += "};\n\n"
    o += "/**\n * struct kprint_stats - every counter reported by KPRINT_CMD_STATS_GET\n"
    for key, members in parts:
        if members is None:
            s = next(s for s in st.stats if s.field == key)
            doc = " ".join((s.attr.doc or s.name).split())
        elif key in EXTERNAL_PARTS:
            doc = f"{EXTERNAL_PARTS[key][1]} ({EXTERNAL_PARTS[key][0]})"
        else:
            doc = f"struct kprint_{key}_stats"
        o += kdoc_member(key, doc)
    o += " */\nstruct kprint_stats {\n"
    for key, members in parts:
        if members is None:
            o += f"\tu64 {key};\n"
        else:
            ctype = EXTERNAL_PARTS.get(key, (f"struct kprint_{key}_stats",))[0]
            o += f"\t{ctype} {key};\n"
    o += "};\n\n"
    o += "#endif /* _KPRINT_STATS_H */\n"
    return o


def gen_kernel_stats_table(fam, banner_c):
    st = Stats(fam)
    o = "/* SPDX-License-Identifier: GPL-2.0 */\n"
    o += banner_c("The fill table of kprint.ko's stats reply")
    o += "/*\n * A table, not declarations: kprint_nl_fill.c alone includes it, so that\n"
    o += " * the fill and its table are one object and need no other.\n */\n"
    o += "#ifndef _KPRINT_STATS_TABLE_H\n#define _KPRINT_STATS_TABLE_H\n\n"
    o += "#include <linux/build_bug.h>\n#include <linux/stddef.h>\n#include <linux/types.h>\n\n"
    o += "#include <uapi/linux/kprint.h>\n\n#include \"kprint_stats.h\"\n\n"
    o += "/**\n * struct kprint_stats_entry - one counter of the KPRINT_A_STATS nest\n"
    o += " * @attr: its KPRINT_STATS_A_*\n * @offset: of its u64 in struct kprint_stats\n */\n"
    o += "struct kprint_stats_entry {\n\tu16 attr;\n\tu16 offset;\n};\n\n"
    o += "/* Where each counter is kept; one that is not a u64 stops the build. */\n"
    o += "#define KPRINT_STATS_ENTRY(attr, field)\t\t\t\t\t\t\\\n"
    o += "\t{ attr, offsetof(struct kprint_stats, field) +\t\t\t\t\\\n"
    o += "\t\tBUILD_BUG_ON_ZERO(sizeof_field(struct kprint_stats, field) != 8) }\n\n"
    o += "/* Every counter, in attribute order: kprint_nl_stats_fill() sends them. */\n"
    o += "static const struct kprint_stats_entry kprint_stats_entries[] = {\n"
    o += "".join(f"\tKPRINT_STATS_ENTRY({s.attr.c_name}, {s.field}),\n" for s in st.stats)
    o += "};\n\n#undef KPRINT_STATS_ENTRY\n\n#endif /* _KPRINT_STATS_TABLE_H */\n"
    return o


# ---------------------------------------------------------------------------
# libkpc: struct kpc_stats, its table and the lines of `kprint stats`

def gen_user_stats_h(fam):
    st = Stats(fam)
    prefix = st.prefix.upper().replace("-", "_")
    o = "/* Counters of KPRINT_A_STATS, one field per attribute of the stats set. */\n"
    o += "struct kpc_stats {\n"
    for s in st.stats:
        line = f"\tuint64_t {s.name};"
        if s.attr.doc:
            doc = " ".join(s.attr.doc.split())
            line = (line + "\t" * max(1, (32 - len(line.expandtabs(8)) + 7) // 8)
                    + f"/* {doc} */")
        o += line + "\n"
    o += f"\t/* Bit (1 << {prefix}*) for each counter the kernel sent. */\n"
    o += "\tuint32_t present;\n};\n\n"
    o += "/* For decoding, printing and JSON: the counters by name, in UAPI order. */\n"
    o += "struct kpc_stats_field {\n\tconst char *name;\t/* \"records\", \"overwritten\", ... */\n"
    o += f"\tint attr;\t\t/* {prefix}* */\n"
    o += "\tsize_t offset;\t\t/* of its uint64_t in struct kpc_stats */\n"
    o += "\tuint64_t (*get)(const struct kpc_stats *st);\n};\n"
    o += "extern const struct kpc_stats_field kpc_stats_fields[];\n"
    o += "extern const unsigned int kpc_stats_nfields;\n\n"
    o += "/* The field of a stats attribute, NULL for pad and numbers newer than us. */\n"
    o += "const struct kpc_stats_field *kpc_stats_field_of(int attr);\n\n"
    o += "static inline uint64_t kpc_stats_value(const struct kpc_stats *st,\n"
    o += "\t\t\t\t       const struct kpc_stats_field *f)\n{\n"
    o += "\treturn *(const uint64_t *)((const char *)st + f->offset);\n}\n\n"
    o += "/*\n * The lines of `kprint stats` that show several counters together; every\n"
    o += " * other counter has a line of its own.  A line is shown when the kernel\n"
    o += " * sent all its counters (members), as \"-\" otherwise.\n */\n"
    o += "struct kpc_stats_line {\n\tconst char *name;\n\tuint32_t members;\t/* 1 << attr of each */\n"
    o += "\tvoid (*print)(FILE *out, const struct kpc_stats *st);\t/* after the name */\n};\n"
    o += "".join(ln.mask_define() for ln in st.lines) + "\n"
    o += "extern const struct kpc_stats_line kpc_stats_lines[];\n"
    o += "extern const unsigned int kpc_stats_nlines;\n\n"
    return o


def gen_user_stats_c(fam):
    st = Stats(fam)
    o = "#define KPC_STATS_FIELD(field, attr)\t\t\t\t\t\t\\\n"
    o += "\tstatic uint64_t kpc_stats_get_##field(const struct kpc_stats *st)\t\\\n"
    o += "\t{ return st->field; }\n"
    o += "#define KPC_STATS_ENTRY(field, attr) \\\n"
    o += "\t{ #field, attr, offsetof(struct kpc_stats, field), kpc_stats_get_##field }\n\n"
    for s in st.stats:
        o += f"KPC_STATS_FIELD({s.name}, {s.attr.c_name})\n"
    o += "\nconst struct kpc_stats_field kpc_stats_fields[] = {\n"
    for s in st.stats:
        o += f"\tKPC_STATS_ENTRY({s.name}, {s.attr.c_name}),\n"
    o += "};\n\nconst unsigned int kpc_stats_nfields =\n"
    o += "\tsizeof(kpc_stats_fields) / sizeof(kpc_stats_fields[0]);\n\n"
    o += "const struct kpc_stats_field *kpc_stats_field_of(int attr)\n{\n"
    o += "\tunsigned int i;\n\n\tfor (i = 0; i < kpc_stats_nfields; i++)\n"
    o += "\t\tif (kpc_stats_fields[i].attr == attr)\n\t\t\treturn &kpc_stats_fields[i];\n"
    o += "\treturn NULL;\n}\n"
    for ln in st.lines:
        o += f"\nstatic void kpc_stats_line_{ln.name}(FILE *out, const struct kpc_stats *st)\n{{\n"
        o += "\tfprintf(out, " + c_format(ln.pieces, "\t\t") + ",\n"
        args = [a.replace(" + ", " +\n\t\t") for a in ln.args]
        o += "".join(f"\t\t{a},\n" for a in args[:-1]) + f"\t\t{args[-1]});\n}}\n"
    o += "\nconst struct kpc_stats_line kpc_stats_lines[] = {\n"
    for ln in st.lines:
        o += f'\t{{ "{ln.name}", {ln.mask_name}, kpc_stats_line_{ln.name} }},\n'
    o += "};\n\nconst unsigned int kpc_stats_nlines =\n"
    o += "\tsizeof(kpc_stats_lines) / sizeof(kpc_stats_lines[0]);\n"
    return o


# ---------------------------------------------------------------------------
# exporter/daemon/kpx_stats_metrics.{c,h}

def gen_kpx_metrics_h(fam, banner_c):
    Stats(fam)
    o = "/* SPDX-License-Identifier: GPL-2.0 */\n"
    o += banner_c("The exporter's families of the module's counters")
    o += "#ifndef KPX_STATS_METRICS_H\n#define KPX_STATS_METRICS_H\n\n"
    o += "#include <stdbool.h>\n#include <stdint.h>\n\n"
    o += "/**\n * struct kpx_stats_metric - one sample of /metrics from a module counter\n"
    o += " * @family: the family's name in HELP and TYPE, where a family begins;\n"
    o += " *\tNULL for a further sample of the family above\n"
    o += " * @type: \"counter\" or \"gauge\"\n * @help: the family's HELP\n"
    o += " * @sample: the sample's name, with its labels\n"
    o += " * @attr: the counter (KPRINT_STATS_A_*)\n"
    o += " * @line: the `kprint stats` line it is shown on, NULL for a line of its own\n"
    o += " * @needs: counters the kernel must all send for the family to be served,\n"
    o += " *\t1 << attr each (a line's); 0: always served\n"
    o += " * @flag: 1 when the counter is non-zero, 0 otherwise\n */\n"
    o += "struct kpx_stats_metric {\n\tconst char *family;\n\tconst char *type;\n"
    o += "\tconst char *help;\n\tconst char *sample;\n\tint attr;\n\tconst char *line;\n"
    o += "\tuint32_t needs;\n\tbool flag;\n};\n\n"
    o += "/* In /metrics order: the counters alone, then the lines', in their order. */\n"
    o += "extern const struct kpx_stats_metric kpx_stats_metrics[];\n"
    o += "extern const unsigned int kpx_stats_nmetrics;\n\n"
    o += "#endif /* KPX_STATS_METRICS_H */\n"
    return o


def gen_kpx_metrics_c(fam, banner_c):
    st = Stats(fam)
    o = "// SPDX-License-Identifier: GPL-2.0\n"
    o += banner_c("The exporter's families of the module's counters")
    o += "#include <stddef.h>\n#include <linux/kprint.h>\n\n"
    o += "#include \"kpc_genl.h\"\n#include \"kpx_stats_metrics.h\"\n\n"
    o += "const struct kpx_stats_metric kpx_stats_metrics[] = {\n"
    for s, first in st.family_starts():
        ln = st.line_of.get(s)
        o += "\t{\n"
        if first:
            o += f"\t\t.family = {c_string(s.family)},\n"
            o += f"\t\t.type = {c_string(STAT_TYPES[s.type])},\n"
            o += f"\t\t.help = {c_string_lines(s.help, chr(9) * 3, 64)},\n"
        o += f"\t\t.sample = {c_string(s.metric)},\n"
        o += f"\t\t.attr = {s.attr.c_name},\n"
        if ln:
            o += f"\t\t.line = {c_string(ln.name)},\n"
            o += f"\t\t.needs = {ln.mask_name},\n"
        if s.type == "flag":
            o += "\t\t.flag = true,\n"
        o += "\t},\n"
    o += "};\n\nconst unsigned int kpx_stats_nmetrics =\n"
    o += "\tsizeof(kpx_stats_metrics) / sizeof(kpx_stats_metrics[0]);\n"
    return o
