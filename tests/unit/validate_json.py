# SPDX-License-Identifier: GPL-2.0
"""Check JSON lines (kprint --json output) on stdin against
schema/record.schema.json, strictly: no duplicate keys, no NaN/Infinity,
each line one object.  Prints nothing when all is well; otherwise says
which line failed and why, on stderr, and exits 1.

usage: kprint dump --json | python3 tests/unit/validate_json.py [--schema PATH]

(Not executable on purpose: tests/run runs every executable file in
tests/unit as a test.)
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", default=DEFAULT_SCHEMA)
    args = ap.parse_args()

    schema = json.load(open(args.schema))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    bad = 0
    lines = 0
    # Bytes in: the output must be UTF-8, and saying so is part of the check.
    for n, raw in enumerate(sys.stdin.buffer, 1):
        lines += 1
        try:
            line = raw.decode("utf-8")
            obj = json.loads(line, object_pairs_hook=no_duplicates,
                             parse_constant=no_constants)
        except (UnicodeDecodeError, ValueError) as e:
            print(f"line {n}: not strict UTF-8 JSON: {e}", file=sys.stderr)
            bad += 1
            continue
        errors = sorted(validator.iter_errors(obj), key=lambda e: list(e.path))
        for e in errors:
            print(f"line {n}: {'/'.join(map(str, e.path)) or '(top)'}: {e.message}",
                  file=sys.stderr)
        bad += bool(errors)
    if lines == 0:
        print("no JSON lines on stdin", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
