# SPDX-License-Identifier: GPL-2.0
"""Check JSON lines (kprint --json output) on stdin against
schema/record.schema.json, strictly: no duplicate keys, no NaN/Infinity,
each line one object.  Prints nothing when all is well; otherwise says
which line failed and why, on stderr, and exits 1.

usage: kprint dump --json | python3 tests/lib/validate_json.py [--schema PATH]
       python3 tests/lib/validate_json.py --array [--schema PATH] <FILE.json

--array takes one JSON array (an HTTP answer such as /records or /formats)
instead of lines, and checks each element; an empty array fails too.

(A helper of the tests, in tests/lib, where tests/run looks for none.)
"""
import argparse
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.join(HERE, "..", "..", "schema", "record.schema.json")


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dups = {k for k in keys if keys.count(k) > 1}
    if dups:
        raise ValueError(f"duplicate keys {sorted(dups)}")
    return dict(pairs)


def no_constants(name):
    raise ValueError(f"{name} is not JSON")


def strict_load(raw):
    """Bytes in: the output must be UTF-8, and saying so is part of the check."""
    return json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates,
                      parse_constant=no_constants)


def documents(array):
    """(number, object) for each line, or each element of one array; None
    for a line that is not strict JSON (said on stderr)."""
    if array:
        try:
            arr = strict_load(sys.stdin.buffer.read())
        except (UnicodeDecodeError, ValueError) as e:
            print(f"not strict UTF-8 JSON: {e}", file=sys.stderr)
            yield 1, None
            return
        if not isinstance(arr, list):
            print("not a JSON array", file=sys.stderr)
            yield 1, None
            return
        yield from enumerate(arr, 1)
        return
    for n, raw in enumerate(sys.stdin.buffer, 1):
        try:
            yield n, strict_load(raw)
        except (UnicodeDecodeError, ValueError) as e:
            print(f"line {n}: not strict UTF-8 JSON: {e}", file=sys.stderr)
            yield n, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", default=DEFAULT_SCHEMA)
    ap.add_argument("--array", action="store_true",
                    help="stdin is one JSON array; check each element")
    args = ap.parse_args()

    schema = json.load(open(args.schema))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    bad = 0
    lines = 0
    for n, obj in documents(args.array):
        lines += 1
        if obj is None:
            bad += 1
            continue
        errors = sorted(validator.iter_errors(obj), key=lambda e: list(e.path))
        what = "element" if args.array else "line"
        for e in errors:
            where = "/".join(map(str, e.path)) or "(top)"
            print(f"{what} {n}: {where}: {e.message}", file=sys.stderr)
        bad += bool(errors)
    if lines == 0:
        print("no JSON " + ("elements" if args.array else "lines") + " on stdin",
              file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
