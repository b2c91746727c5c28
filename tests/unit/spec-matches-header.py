#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The YNL spec (schema/kprint.yaml) means what it says.

The header is generated from the spec (schema/gen.py; generated-fresh.sh
catches a stale one), so this checks what the generator cannot: that the
names it gives follow YNL's naming rules, derived here independently and
compared with what include/uapi/linux/kprint.h compiles to, both ways; and
the spec's own semantics (limits that agree with the size constants, an emit
subset that covers every record attribute, the permissions).
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HEADER = os.path.join(ROOT, "include", "uapi", "linux", "kprint.h")
failures = 0


def report(ok, what):
    global failures
    print(("ok - " if ok else "not ok - ") + what)
    failures += not ok


def c_name(*parts):
    return "_".join(p for p in parts if p).upper().replace("-", "_")


def expected_constants(spec):
    family = spec["name"]
    consts = {}
    for d in spec.get("definitions", []):
        names = [e if isinstance(e, str) else e["name"] for e in d.get("entries", [])]
        prefix = d.get("name-prefix", f"{family}-{d['name']}-")
        if d["type"] == "const":
            consts[c_name(family, d["name"])] = d["value"]
        elif d["type"] == "enum":
            start = d.get("value-start", 0)
            for i, e in enumerate(names):
                consts[c_name(prefix + e)] = start + i
            consts[c_name(prefix + "max")] = start + len(names) - 1
        elif d["type"] == "flags":
            for i, e in enumerate(names):
                consts[c_name(prefix + e)] = 1 << i
    for aset in spec["attribute-sets"]:
        if "subset-of" in aset:
            continue
        prefix = aset.get("name-prefix", f"{family}-{aset['name']}-a-")
        for i, attr in enumerate(aset["attributes"]):
            consts[c_name(prefix + attr["name"])] = attr.get("value", i + 1)
        consts[c_name(prefix + "max")] = len(aset["attributes"])
    ops = spec["operations"]
    prefix = ops.get("name-prefix", f"{family}-cmd-")
    for i, op in enumerate(ops["list"]):
        consts[c_name(prefix + op["name"])] = op.get("value", i + 1)
    consts[c_name(prefix + "max")] = len(ops["list"])
    return consts


def header_values(names, strings):
    prog = ["#include <stdio.h>", "#include <linux/kprint.h>", "int main(void) {"]
    for n in names:
        prog.append(f'printf("%s %llu\\n", "{n}", (unsigned long long)({n}));')
    for n in strings:
        prog.append(f'printf("%s %s\\n", "{n}", {n});')
    prog.append("return 0; }")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "p.c"), os.path.join(tmp, "p")
        with open(src, "w") as f:
            f.write("\n".join(prog))
        cc = subprocess.run(["cc", "-Wall", "-I", os.path.join(ROOT, "include", "uapi"),
                             "-o", exe, src], capture_output=True, text=True)
        if cc.returncode:
            # A name the header lacks shows up as a compile error.
            return None, cc.stderr
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        k, v = line.split(" ", 1)
        values[k] = v
    return values, ""


def header_public_names():
    names = set()
    with open(HEADER) as f:
        text = f.read()
    for m in re.finditer(r"^\s*(?:#define\s+)?(KPRINT_[A-Z0-9_]+)", text, re.M):
        names.add(m.group(1))
    return names


def main():
    with open(os.path.join(ROOT, "schema", "kprint.yaml")) as f:
        spec = yaml.safe_load(f)
    consts = expected_constants(spec)
    strings = {"KPRINT_GENL_NAME": spec["name"],
               "KPRINT_MCGRP_RECORDS": spec["mcast-groups"]["list"][0]["name"]}
    report(len(spec["mcast-groups"]["list"]) == 1, "the spec has exactly one multicast group")

    values, err = header_values(sorted(consts), sorted(strings))
    report(values is not None, "every constant the spec implies exists in the header"
           + ("" if values is not None else ":\n# " + err.replace("\n", "\n# ")))
    if values is None:
        return
    for name, want in sorted(consts.items()):
        report(values[name] == str(want), f"{name} = {want} (header: {values[name]})")
    for name, want in sorted(strings.items()):
        report(values[name] == want, f'{name} = "{want}" (header: "{values[name]}")')

    described = set(consts) | set(strings) | {"KPRINT_GENL_VERSION"}
    undocumented = sorted(n for n in header_public_names()
                          if n not in described and not n.endswith("_H"))
    report(not undocumented, "every public constant of the header is in the spec"
           + (": missing " + ", ".join(undocumented) if undocumented else ""))

    sets = {a["name"]: a for a in spec["attribute-sets"]}
    record = sets["record"]
    report(all(a["name"] != "unspec" for s in spec["attribute-sets"] for a in s["attributes"]),
           "no attribute set has an unspec entry on the wire")
    report(any(a["name"] == "arg" and a.get("multi-attr") for a in record["attributes"]),
           "arguments are a multi-attr string list")
    ntf = [op for op in spec["operations"]["list"] if op.get("mcgrp")]
    report(len(ntf) == 1 and ntf[0]["name"].endswith("-ntf"),
           "notifications have their own command id")
    emit = next(op for op in spec["operations"]["list"] if op["name"] == "emit")
    report("admin-perm" in emit.get("flags", []), "emit needs admin rights")
    report(all("admin-perm" in g.get("flags", []) for g in spec["mcast-groups"]["list"]),
           "joining a multicast group needs admin rights")

    # Limits: a string's max-len is one of the size constants minus its NUL.
    limits = {d["value"] for d in spec["definitions"]
              if d["type"] == "const" and d["name"].endswith("-max")}
    for aset in spec["attribute-sets"]:
        for a in aset["attributes"]:
            if a.get("type") == "string":
                ml = a.get("checks", {}).get("max-len")
                report(ml is not None and ml + 1 in limits,
                       f"{aset['name']}.{a['name']}: max-len {ml} + 1 is a size constant")
            if a.get("multi-attr") and aset["name"] != "kprint":
                report(any(d["name"] == a["name"] + "s-max" for d in spec["definitions"]),
                       f"{aset['name']}.{a['name']} repeats at most {a['name']}s-max times")
            enum = a.get("enum")
            mx = a.get("checks", {}).get("max")
            if enum and mx is not None:
                d = next(d for d in spec["definitions"] if d["name"] == enum)
                report(mx == len(d["entries"]) - 1, f"{a['name']}: checks max is the last {enum}")

    # The emit request's record: every record attribute is either accepted
    # or refused with a reason, so a new attribute has to be decided on.
    emit_record = sets["emit-record"]
    listed = [a["name"] for a in emit_record["attributes"]]
    report(emit_record.get("subset-of") == "record" and
           listed == [a["name"] for a in record["attributes"]],
           "emit-record lists every record attribute, in order")
    refused = [a for a in emit_record["attributes"] if a.get("type") == "unused"]
    report(all(a.get("doc") for a in refused), "every refused emit attribute says why")
    accepted = sorted(a["name"] for a in emit_record["attributes"] if "type" not in a)
    report(accepted == ["arg", "class", "format", "level", "subsystem"],
           "an emit sets only level, class, subsystem, format and args: " + ", ".join(accepted))
    report(emit["attribute-set"] == "emit-request" and
           sets["emit-request"]["attributes"] ==
           [{"name": "record", "nested-attributes": "emit-record"}],
           "the emit request's record nest is an emit-record")


main()
sys.exit(1 if failures else 0)
