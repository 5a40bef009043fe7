#!/usr/bin/python3
"""Do the scenario parser and the JSON Schema accept the same scenarios?

    /usr/bin/python3 tests/schema_agree.py GPUSIM SCHEMA MUTANTDIR

MUTANTDIR is what tests/schema_mutants.py wrote (manifest.tsv and the
files).  Every file is given to `GPUSIM scenario --check` (one process
for them all; "FILE: ok" on stdout for each one it accepts) and validated
against SCHEMA with Debian's python3-jsonschema (Draft 2020-12).  A
scenario whose own file ("none") the parser refuses -- its traces are not
here -- is left out with its mutants, and said so ("[skipped ...]").

Prints the count of mutants on which the two agree, by kind, the count
the parser alone refuses for a check no schema can state (CROSS below),
and every other disagreement (file, scenario, kind, JSON path, which side accepts, the
parser's or the schema's message); exit 1 on any disagreement or when a
shipped scenario fails the schema, 0 otherwise.
"""
import json
import os
import subprocess
import sys

from jsonschema import Draft202012Validator

# What no JSON Schema can state -- a reference from one object to another,
# an order among elements, a count that must match another key's -- the
# parser checks alone.  A mutant the parser refuses with one of these
# messages while the schema accepts it is counted apart, by reason; any
# other disagreement fails the test.
CROSS = [
    # $.plan's references and counts (studies/planjson.c)
    ("a searched pool is one of $.fleet", "no such pool in $.fleet"),
    ("a searched service is one of $.services",
     "must name a service of $.services"),
    ("a service target names a service of $.services", ": no service '"),
    ("a plan has a target", "no target: give at least one"),
    ("a plan searches something", "an empty search space"),
    ("a spot share has a spot object, the plan's or the pool's",
     "spot_share needs the spot pool's"),
    ("a partition names a pool of the fleet", "in $.fleet"),
    ("a reserved pool's price may be in $.prices[type][market]",
     "needs its price"),
    ("quantiles do not decrease", "quantiles must not decrease"),
    ("a CDF's points increase", "do not increase"),
    ("a CDF's probabilities do not decrease", "decreases (after"),
    ("gpu_burst is not below gpu_guarantee", "is below gpu_guarantee"),
    ("tenant_weights has one weight per tenant", "one per tenant"),
    ("a class's MIG profile is one a MIG pool of the fleet has",
     "no MIG pool of the fleet has profile"),
    ("a MIG layout is made of its GPU's profiles", "unknown MIG profile"),
    ("a pool's region is one of $.energy's", "declare it in $.energy.regions"),
    ("a pool's power cap lies between its GPU's idle and board power",
     "is outside what"),
    ("a node's host idle power is at most its busy power",
     "exceeds its busy power"),
    ("services sharing a stream split it by length routes", "stream '"),
]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    gpusim, schema_file, mdir = sys.argv[1:]
    with open(schema_file) as fp:
        schema = json.load(fp)
    Draft202012Validator.check_schema(schema)
    val = Draft202012Validator(schema)
    rows = []
    with open(os.path.join(mdir, "manifest.tsv")) as fp:
        for line in fp:
            rows.append(line.rstrip("\n").split("\t"))
    files = [os.path.join(mdir, r[0]) for r in rows]
    p = subprocess.run([gpusim, "scenario", "--check"] + files,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode not in (0, 2):
        print("schema_agree: gpusim scenario --check exited %d:\n%s"
              % (p.returncode, p.stderr[-2000:]))
        return 1
    ok = {l[:-4] for l in p.stdout.splitlines() if l.endswith(": ok")}
    errs = {}
    for l in p.stderr.splitlines():
        if l.startswith("gpusim: ") and ".json: " in l:
            f = l[8:].split(": ", 1)[0]
            errs.setdefault(f, l)
    skipped, bad_src = set(), 0
    agree, total, by_kind, dis, cross = 0, 0, {}, [], {}
    both = [0, 0]
    for (name, src, kind, path), f in zip(rows, files):
        if kind == "none":
            if f not in ok:
                skipped.add(src)
                print("[skipped %s: the parser refuses it here (%s)]"
                      % (src, errs.get(f, "?")))
                continue
        if src in skipped:
            continue
        with open(f) as fp:
            doc = json.load(fp)
        e = next(iter(val.iter_errors(doc)), None)
        s_ok, p_ok = e is None, f in ok
        if kind == "none":
            if not s_ok:
                bad_src += 1
                print("schema_agree: shipped %s fails the schema: %s at %s"
                      % (src, e.message[:300], list(e.absolute_path)))
            continue
        total += 1
        k = by_kind.setdefault(kind, [0, 0])
        k[1] += 1
        if s_ok == p_ok:
            agree += 1
            k[0] += 1
            both[0 if s_ok else 1] += 1
        elif s_ok and any(pat in errs.get(f, "") for _, pat in CROSS):
            why = next(w for w, pat in CROSS if pat in errs.get(f, ""))
            cross[why] = cross.get(why, 0) + 1
        else:
            why = (errs.get(f, "?") if not p_ok else
                   "%s at %s" % (e.message[:200], list(e.absolute_path)))
            dis.append("%s\t%s\t%s\t%s\tparser %s, schema %s: %s"
                       % (name, src, kind, path,
                          "accepts" if p_ok else "refuses",
                          "accepts" if s_ok else "refuses", why))
    for d in dis:
        print("schema_agree: disagree: " + d)
    for why, n in sorted(cross.items()):
        print("schema_agree: the parser alone refuses %d (%s)" % (n, why))
    print("schema_agree: parser and schema agree on %d of %d mutants (%s; "
          "both accept %d, both refuse %d); %d scenarios skipped"
          % (agree, total, ", ".join("%s %d/%d" % (k, v[0], v[1])
                                     for k, v in sorted(by_kind.items())),
             both[0], both[1], len(skipped)))
    return 1 if dis or bad_src else 0


if __name__ == "__main__":
    sys.exit(main())
