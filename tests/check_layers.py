#!/usr/bin/env python3
"""check_layers.py -- the layers of gpusim's tree, checked (make check-layers).

Every folder of sim/ (and policies/, traces/) is a component with a rank
(LAYERS below, lowest first).  A dependency is an `#include "..."` of a file
in another component, or a symbol an object of build/rel takes from an
object of another component (`nm`: so a local `extern` declaration cannot
hide one).  A dependency is allowed when it goes down (to a lower rank);
it fails when it goes up a layer, across models (components of the same
rank, which must not know each other), or closes a circle.  The edges the
tree still has that break the rule are listed in DEBTS with the reason;
each one is printed, and one that is no longer there is reported so the
list only shrinks.  The script prints the layer graph (component -> the
components it uses, with how many include lines and symbols).

It fails on a `struct gs_diag` declared in a function without an
initializer (its strings are heap pointers: sim/base/err.h).

It also reports functions over 150 lines and files over 1,500 lines
(STYLE.md); with --strict-lengths (as `make check-layers` runs it) those
fail too.

    python3 tests/check_layers.py [--root DIR] [--obj DIR] [--strict-lengths]

Exit 0 when clean (debts aside), 1 with every violation named by file and
line or by object and symbol.
"""
import argparse
import os
import re
import subprocess
import sys

# Lowest first.  Components of one rank are peers: none may use another.
LAYERS = [
    ["base"],
    ["cluster"],
    ["spec"],                       # the scenario as plain data
    ["core"],
    ["io"],
    ["traces"],
    ["cloud", "inference"],         # the models
    ["policies"],
    ["setup"],                      # the built-in tables, handed down
    ["studies"],
    ["cli"],
]
MODELS = {"cloud", "inference"}

# Files that belong to another component than their folder's.
FILE_COMPONENT = {
    # The plug-in ABI's types: the core's interface, kept beside the
    # policies (plug-ins built outside the tree include it from there).
    "policies/policy.h": "core",
    # `gpusim trace`: a command on the readers, a tool like sweep's.
    "traces/tracecli.c": "studies",
    "traces/tracecli.h": "studies",
}

# Known edges that break the layering: (from, to, reason).  Each is still
# printed; remove a line when its edge is gone (the check says so).
DEBTS = [
]


def rank_of():
    r = {}
    for i, layer in enumerate(LAYERS):
        for c in layer:
            r[c] = i
    return r


def component(path):
    """Component of a path relative to the root, or None if outside."""
    if path in FILE_COMPONENT:
        return FILE_COMPONENT[path]
    parts = path.split("/")
    if parts[0] == "sim" and len(parts) == 3:
        return parts[1]
    if parts[0] == "sim" and len(parts) == 2:
        return "shim"
    if parts[0] in ("policies", "traces") and len(parts) == 2:
        return parts[0]
    return None


def sources(root):
    out = []
    for top in ("sim", "policies", "traces"):
        base = os.path.join(root, top)
        for dirpath, _, files in os.walk(base):
            rel = os.path.relpath(dirpath, root)
            if top == "policies" and rel != "policies":
                continue            # examples: plug-ins, built outside
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    out.append(os.path.join(rel, f))
    return sorted(out)


INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def include_edges(root, files):
    """(from_comp, to_comp, where, what) for every quoted include."""
    edges = []
    for f in files:
        src = component(f)
        if src is None or src == "shim":
            continue
        with open(os.path.join(root, f), errors="replace") as fp:
            for n, line in enumerate(fp, 1):
                m = INC.match(line)
                if not m:
                    continue
                target = os.path.normpath(
                    os.path.join(os.path.dirname(f), m.group(1)))
                dst = component(target)
                if dst is None or dst == src:
                    continue
                edges.append((src, dst, "%s:%d" % (f, n), target))
    return edges


def nm_symbols(obj):
    res = subprocess.run(["nm", "--defined-only", obj], capture_output=True,
                         text=True)
    defined = set()
    for line in res.stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRCVWG" and p[1].isupper():
            defined.add(p[2])
    res = subprocess.run(["nm", "--undefined-only", obj],
                         capture_output=True, text=True)
    undefined = set(p.split()[-1] for p in res.stdout.splitlines() if p)
    return defined, undefined


def symbol_edges(objdir, root):
    """(from_comp, to_comp, object, symbol) for every symbol an object
    takes from another component's object."""
    objs = []
    for top in ("sim", "policies", "traces"):
        base = os.path.join(objdir, top)
        for dirpath, _, files in os.walk(base):
            rel = os.path.relpath(dirpath, objdir)
            if top == "policies" and rel != "policies":
                continue
            for f in files:
                # an object whose source is gone (a build tree older than a
                # move) is left over, not part of the tree: never read it
                src = os.path.join(root, rel, f[:-2] + ".c")
                if f.endswith(".o") and os.path.exists(src):
                    objs.append(os.path.join(rel, f))
    owner, need = {}, {}
    for o in sorted(objs):
        comp = component(o[:-2] + ".c")
        if comp is None:
            continue
        d, u = nm_symbols(os.path.join(objdir, o))
        for s in d:
            owner.setdefault(s, (comp, o))
        need[o] = (comp, u)
    edges = []
    for o, (comp, u) in sorted(need.items()):
        for s in sorted(u):
            if s in owner and owner[s][0] != comp:
                edges.append((comp, owner[s][0], o, s))
    return edges, len(objs), need, owner


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# Folders whose files still call each other in a circle (object-level,
# by symbol): the component and why.  A circle elsewhere fails.
FILE_CIRCLE_DEBTS = {
}


def file_circles(objdir, sym_need, owner):
    """Per component, the circles among its objects (by symbol)."""
    out = {}
    graph = {}
    for o, (comp, u) in sym_need.items():
        for s in u:
            if s in owner and owner[s][0] == comp and owner[s][1] != o:
                graph.setdefault((comp, o), set()).add((comp, owner[s][1]))
    for c in cycles(graph):
        out.setdefault(c[0][0], []).append(sorted(os.path.basename(x[1])
                                                  for x in c))
    return out


# --- lengths ---------------------------------------------------------------

MAX_FUNC, MAX_FILE = 150, 1500
# Tables are exempt from the file limit (STYLE.md): data, not logic.
TABLE_FILES = set()
FUNC_START = re.compile(r"^[A-Za-z_][^;]*\)\s*$|^[A-Za-z_][^;]*,\s*$")


def long_functions(root, files):
    """(file, line, name, length) of every function over MAX_FUNC lines:
    from its signature's first line to the "}" in column 0 closing it."""
    out = []
    for f in files:
        if not f.endswith(".c"):
            continue
        with open(os.path.join(root, f), errors="replace") as fp:
            lines = fp.read().split("\n")
        start = None
        for i, line in enumerate(lines):
            if line == "{" and i > 0:
                j = i - 1       # back to the signature's first line
                while j > 0 and lines[j - 1] and not lines[j - 1].endswith(
                        (";", "}", "*/")) and not lines[j - 1].startswith(
                        ("#", "/*", " *")) and lines[j - 1][0] not in " \t":
                    j -= 1
                start = j
            elif line.startswith("}") and start is not None:
                n = i - start + 1
                if n > MAX_FUNC:
                    m = re.search(r"(\w+)\s*\(", lines[start] + " " +
                                  (lines[start + 1] if start + 1 < len(lines)
                                   else ""))
                    out.append((f, start + 1, m.group(1) if m else "?", n))
                start = None
    return out


def long_files(root, files):
    out = []
    for f in files:
        if f in TABLE_FILES:
            continue
        with open(os.path.join(root, f), errors="replace") as fp:
            n = sum(1 for _ in fp)
        if n > MAX_FILE:
            out.append((f, n))
    return out


# What a policy reads must pass through the core's counted accessors and
# containers (sim/core/look.h), or its work (policy_work) is not counted:
# these forms read waiting or running jobs, or count, around them.  A file
# listed in UNCOUNTED_DEBTS still does (with the reason); the check says
# when one no longer does, so the list only shrinks.
UNCOUNTED = [
    (re.compile(r"\bgs_heap_\w+\s*\(|\bstruct\s+gs_heap\b"),
     "a plain heap (use look.h's gs_lheap)"),
    (re.compile(r"->\s*(next|prev)\b"),
     "a job's list link (use gs_sim_pending_next / _prev)"),
    (re.compile(r"\bgs_sim_running\s*\("),
     "the running array (use gs_sim_running_at)"),
    (re.compile(r"\bgs_sim_backlog_head\s*\("),
     "the models' pending list (use gs_sim_pending_head)"),
    (re.compile(r"\bgs_sim_examine\s*\(|\bgs_sim_look_counter\s*\("),
     "a count the policy makes itself"),
]
UNCOUNTED_DEBTS = {
}


def strip_comments(text):
    """The text with /* */ and // comments and string literals blanked."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"',
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                  flags=re.S)


def uncounted_reads(root):
    """(file, line, why) for every uncounted read in policies/ (examples
    too), and the debts no longer needed."""
    out, used = [], set()
    base = os.path.join(root, "policies")
    for dirpath, _, names in os.walk(base):
        for f in sorted(names):
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            with open(os.path.join(root, rel), errors="replace") as fp:
                lines = strip_comments(fp.read()).split("\n")
            for i, line in enumerate(lines):
                for pat, why in UNCOUNTED:
                    if pat.search(line):
                        if rel in UNCOUNTED_DEBTS:
                            used.add(rel)
                        else:
                            out.append((rel, i + 1, why))
    stale = sorted(set(UNCOUNTED_DEBTS) - used)
    return out, stale


DIAG_DECL = re.compile(r"\bstruct\s+gs_diag\s+([^;()]*);")


def uninit_diags(root):
    """(file, line, name) for every struct gs_diag declared by value in a
    function without an initializer: its where and what are heap strings
    (sim/base/err.h), so one left uninitialised holds wild pointers that
    gs_diag_set would keep and gs_diag_free would free.  Members of a struct
    are left to the struct's allocation (calloc, memset, = { 0 }); file-scope
    and static ones start zeroed."""
    out = []
    for top in ("sim", "policies", "traces", "tests", "bench", "fuzz"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for f in sorted(names):
                if not f.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                with open(os.path.join(root, rel), errors="replace") as fp:
                    text = strip_comments(fp.read())
                out += _uninit_in(rel, text)
    return out


def _uninit_in(rel, text):
    out = []
    hits = [(m.start(), m) for m in DIAG_DECL.finditer(text)]
    if not hits:
        return out
    # the kind of block each '{' opens: a struct/union body or another
    stack, k, last = [], 0, 0
    for i, ch in enumerate(text):
        while k < len(hits) and hits[k][0] == i:
            m = hits[k][1]
            k += 1
            inside = [b for b in stack if b != "init"]
            if not inside or inside[-1] == "struct":
                continue        # file scope, or a member
            if re.search(r"\bstatic\b", text[last:i]):
                continue
            for decl in _split_top(m.group(1)):
                decl = decl.strip()
                if decl.startswith("*") or "=" in decl or not decl:
                    continue
                name = re.match(r"\w+", decl)
                out.append((rel, text.count("\n", 0, i) + 1,
                            name.group(0) if name else decl))
        if ch == "{":
            head = text[last:i]
            if re.search(r"\b(struct|union)\s*\w*\s*$", head):
                stack.append("struct")
            elif re.search(r"=\s*$", head) or (stack and stack[-1] == "init"):
                stack.append("init")
            else:
                stack.append("block")
            last = i + 1
        elif ch == "}":
            if stack:
                stack.pop()
            last = i + 1
        elif ch == ";":
            last = i + 1
    return out


def _split_top(s):
    """s split at the commas outside braces."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--root", default=os.path.dirname(here))
    ap.add_argument("--obj", default=None,
                    help="object tree (default ROOT/build/rel)")
    ap.add_argument("--strict-lengths", action="store_true")
    ap.add_argument("--quiet", action="store_true",
                    help="print only violations")
    a = ap.parse_args()
    root = a.root
    objdir = a.obj or os.path.join(root, "build", "rel")
    rank = rank_of()
    files = sources(root)
    inc = include_edges(root, files)
    sym, nobj, need, owner = symbol_edges(objdir, root)
    if nobj == 0:
        print("check-layers: no objects under %s (build first)" % objdir)
        return 1
    debts = {(f, t): r for f, t, r in DEBTS}
    bad, used_debts = [], set()
    graph, count = {}, {}

    def judge(src, dst, where, what, kind):
        if src not in rank or dst not in rank:
            bad.append("%s: %s %s of unknown component (%s -> %s)"
                       % (where, kind, what, src, dst))
            return
        graph.setdefault(src, set()).add(dst)
        key = (src, dst)
        c = count.setdefault(key, [0, 0])
        c[0 if kind == "include" else 1] += 1
        if rank[dst] < rank[src]:
            return
        if key in debts:
            used_debts.add(key)
            return
        why = ("across models" if src in MODELS and dst in MODELS
               else "across peers" if rank[dst] == rank[src]
               else "up a layer")
        bad.append("%s: %s %s goes %s (%s -> %s)"
                   % (where, kind, what, why, src, dst))

    for src, dst, where, what in inc:
        judge(src, dst, where, what, "include")
    for src, dst, obj, s in sym:
        judge(src, dst, obj, s, "symbol")

    # Circles between components, debts included (they are the cause).
    circ = cycles(graph)

    if not a.quiet:
        print("check-layers: %d sources, %d objects; layers, lowest first:"
              % (len(files), nobj))
        for i, layer in enumerate(LAYERS):
            print("  %d  %s" % (i, ", ".join(layer)))
        print("the layer graph (includes / symbols):")
        for src in sorted(graph, key=lambda c: (rank.get(c, 99), c)):
            outs = sorted(graph[src], key=lambda c: (rank.get(c, 99), c))
            print("  %-10s -> %s" % (src, ", ".join(
                "%s (%d/%d)%s" % (d, count[(src, d)][0], count[(src, d)][1],
                                  "" if rank[d] < rank[src] else " DEBT")
                for d in outs)))
        for key in sorted(used_debts):
            if debts[key]:
                print("  debt %s -> %s: %s" % (key[0], key[1], debts[key]))
    for c in circ:
        print("check-layers: circle among %s (through the debts above)"
              % ", ".join(c))
    fc = file_circles(objdir, need, owner)
    for comp in sorted(FILE_CIRCLE_DEBTS):
        if comp not in fc:
            bad.append("FILE_CIRCLE_DEBTS lists %s, whose files are in no "
                       "circle now: remove it" % comp)
    for comp, cs in sorted(fc.items()):
        for c in cs:
            msg = "%s: files in a circle: %s" % (comp, ", ".join(c))
            if comp in FILE_CIRCLE_DEBTS:
                if not a.quiet:
                    print("check-layers: debt %s (%s)"
                          % (msg, FILE_CIRCLE_DEBTS[comp]))
            else:
                bad.append(msg)
    stale = [k for k in debts if debts[k] and k not in used_debts]
    for k in sorted(stale):
        bad.append("DEBTS lists %s -> %s, which is gone: remove it"
                   % (k[0], k[1]))

    unc, unc_stale = uncounted_reads(root)
    for f, line, why in unc:
        bad.append("%s:%d: uncounted read: %s (sim/core/look.h)"
                   % (f, line, why))
    for f in unc_stale:
        bad.append("UNCOUNTED_DEBTS lists %s, which reads nothing uncounted "
                   "now: remove it" % f)
    for f in sorted(set(UNCOUNTED_DEBTS) - set(unc_stale)):
        if not a.quiet:
            print("check-layers: debt %s reads uncounted (%s)"
                  % (f, UNCOUNTED_DEBTS[f]))

    for f, line, name in uninit_diags(root):
        bad.append("%s:%d: struct gs_diag %s has no initializer (= { 0 }): "
                   "its where and what are pointers" % (f, line, name))

    lf, lfi = long_functions(root, files), long_files(root, files)
    for f, line, name, n in lf:
        print("check-layers: %s:%d: %s is %d lines (> %d)"
              % (f, line, name, n, MAX_FUNC))
    for f, n in lfi:
        print("check-layers: %s is %d lines (> %d)" % (f, n, MAX_FILE))
    if a.strict_lengths:
        bad += ["%s:%d: function %s over %d lines" % (f, l, nm, MAX_FUNC)
                for f, l, nm, _ in lf]
        bad += ["%s: over %d lines" % (f, MAX_FILE) for f, _ in lfi]

    for b in bad:
        print("check-layers: " + b)
    if bad:
        print("check-layers: %d violation(s)" % len(bad))
        return 1
    print("check-layers: ok (%d debts, %d long functions, %d long files)"
          % (len([k for k in used_debts if debts[k]]), len(lf), len(lfi)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
