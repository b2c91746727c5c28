#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The YNL spec (schema/kprint.yaml) and the UAPI header agree.

Derives every C constant from the spec with YNL's naming rules, compiles a
program against include/uapi/linux/kprint.h that prints what the header
says, and compares both ways: each spec constant has the header's value, and
each public constant of the header is described by the spec.
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
        if d["type"] == "const":
            consts[c_name(family, d["name"])] = d["value"]
        elif d["type"] == "enum":
            start = d.get("value-start", 0)
            for i, e in enumerate(d["entries"]):
                consts[c_name(family, d["name"], e)] = start + i
            consts[c_name(family, d["name"], "max")] = start + len(d["entries"]) - 1
        elif d["type"] == "flags":
            for i, e in enumerate(d["entries"]):
                consts[c_name(family, d["name"], e)] = 1 << i
    for aset in spec["attribute-sets"]:
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

    record = next(a for a in spec["attribute-sets"] if a["name"] == "record")
    report(all(a["name"] != "unspec" for s in spec["attribute-sets"] for a in s["attributes"]),
           "no attribute set has an unspec entry on the wire")
    report(any(a["name"] == "arg" and a.get("multi-attr") for a in record["attributes"]),
           "arguments are a multi-attr string list")
    ntf = [op for op in spec["operations"]["list"] if op.get("mcgrp")]
    report(len(ntf) == 1 and ntf[0]["name"].endswith("-ntf"),
           "notifications have their own command id")
    emit = next(op for op in spec["operations"]["list"] if op["name"] == "emit")
    report("admin-perm" in emit.get("flags", []), "emit needs admin rights")


main()
sys.exit(1 if failures else 0)
