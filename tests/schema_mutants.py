#!/usr/bin/env python3
"""Mutated scenarios for the schema agreement test (tests/test_schema.sh).

    python3 tests/schema_mutants.py [--every N] OUTDIR SCENARIO...

From each scenario, deterministically (same inputs, same mutants, same
names), one file per mutation in OUTDIR, named NNNNN.json, and
OUTDIR/manifest.tsv listing each: file, scenario, kind, JSON path.  The
kinds, at every level of the scenario:

  drop     an object loses one of its keys (each key in turn)
  unknown  an object gains a key no table has ("zzunknownkey")
  type     a value changes its JSON type: a number becomes a string, a
           string a number, true/false a string, an object or an array
           a number
  range    a number becomes -1, 1e300, and itself + 0.5 (a whole number
           no longer whole, a fraction moved)
  enum     a string gets a letter appended (a misspelled name, an
           unknown unit)

--every N keeps every Nth mutant (the first, the N+1th, ...: `make test`'s
quick sample; all of them by default).  And, first for each scenario, the
scenario itself (kind "none"), its file
paths made absolute as in every mutant (the mutants live in OUTDIR).

Left alone: "description" and "$schema" (free
text), and the values of keys naming files ("path", "file",
"hazard_file", "price_file": whether a file exists is no schema's
business).  The script knows nothing of the schema or the parser: it
mutates blindly, and the test asks both whether each mutant is a valid
scenario.
"""
import copy
import json
import os
import sys

SKIP_SUBTREE = set()
FREE_TEXT = {"description", "$schema"}
FILE_KEYS = {"path", "file", "hazard_file", "price_file"}


def walk(node, path):
    """(path, node) of every value, depth first, keys in file order."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            if k in SKIP_SUBTREE:
                continue
            yield from walk(v, path + [k])
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + [i])


def get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def put(doc, path, value):
    get(doc, path[:-1])[path[-1]] = value


def show(path):
    out = "$"
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else "." + p
    return out


def mutants(doc):
    """(kind, path, mutated document) of every mutant of doc."""
    for path, node in list(walk(doc, [])):
        key = path[-1] if path and isinstance(path[-1], str) else None
        if isinstance(node, dict):
            for k in node:
                m = copy.deepcopy(doc)
                del get(m, path)[k]
                yield "drop", path + [k], m
            m = copy.deepcopy(doc)
            get(m, path)["zzunknownkey"] = 1
            yield "unknown", path, m
            if path:
                m = copy.deepcopy(doc)
                put(m, path, 7)
                yield "type", path, m
        elif isinstance(node, list):
            if path:
                m = copy.deepcopy(doc)
                put(m, path, 7)
                yield "type", path, m
        elif isinstance(node, bool):
            m = copy.deepcopy(doc)
            put(m, path, "yes")
            yield "type", path, m
        elif isinstance(node, (int, float)):
            m = copy.deepcopy(doc)
            put(m, path, "x7")
            yield "type", path, m
            for v in (-1, 1e300, node + 0.5):
                if node != v:
                    m = copy.deepcopy(doc)
                    put(m, path, v)
                    yield "range", path, m
        elif isinstance(node, str):
            if key in FREE_TEXT or key in FILE_KEYS:
                continue
            m = copy.deepcopy(doc)
            put(m, path, 7)
            yield "type", path, m
            m = copy.deepcopy(doc)
            put(m, path, node + "x")
            yield "enum", path, m


def absolute(doc, folder):
    """File paths made absolute, so a mutant written elsewhere reads the
    files its scenario reads."""
    for path, node in list(walk(doc, [])):
        if (path and path[-1] in FILE_KEYS and isinstance(node, str)
                and not os.path.isabs(node)):
            put(doc, path, os.path.normpath(os.path.join(folder, node)))


def main():
    args = sys.argv[1:]
    every = 1
    if args[:1] == ["--every"] and len(args) > 1:
        every = int(args[1])
        args = args[2:]
    if len(args) < 2 or every < 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    n = 0
    with open(os.path.join(out, "manifest.tsv"), "w") as man:
        seen = 0
        for src in args[1:]:
            if src.endswith(".schema.json"):    # the schema, no scenario
                continue
            with open(src) as fp:
                doc = json.load(fp)
            absolute(doc, os.path.dirname(os.path.abspath(src)))
            todo = [("none", [], doc)] + list(mutants(doc))
            for kind, path, m in todo:
                if kind != "none":
                    seen += 1
                    if (seen - 1) % every:
                        continue
                name = "%05d.json" % n
                with open(os.path.join(out, name), "w") as fp:
                    json.dump(m, fp, indent=1)
                    fp.write("\n")
                man.write("%s\t%s\t%s\t%s\n" % (name, src, kind, show(path)))
                n += 1
    print(n)


if __name__ == "__main__":
    main()
