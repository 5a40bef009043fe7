"""h5doc -- docs/hdf5.md, made from the HDF5 files gpusim writes.

    python3 plots/h5doc.py run=A.h5 run=B.h5 compare=C.h5 plan=P.h5 ... > docs/hdf5.md

Every dataset and column of a gpusim file carries its units and
description, which the writer takes from its own tables (h5desc.c's
dset_desc, path_desc and col_desc, report.c's metas, each model's columns
and series): this script reads them back from files the shipped scenarios
write (tests/hdf5doc.sh says which) and prints them as Markdown, so the
document is the writer's tables as the files carry them and cannot drift
from them (tests/hdf5doc.sh --check, run by make test, fails when the
committed docs/hdf5.md differs).  Names that come from the scenario -- a
policy, a seed, a GPU model, a service -- are shown as POLICY, seedK,
MODEL and SERVICE.  It needs h5py (Debian: python3-h5py).
"""

import sys

import h5py
import numpy as np

KINDS = ["run", "compare", "plan", "sweep", "place-exp"]

INTRO = {
    "run": "`gpusim run` (and each run of a comparison, under "
           "`/runs/POLICY/seedK`). Groups a run has only with the models "
           "that write them: `/cloud` (a fleet with prices, spot, failures or "
           "autoscaling), `/services` and `/requests` (inference services).",
    "compare": "`gpusim compare`: every run's file copied whole under "
               "`/runs/POLICY/seedK` (the run layout above), and the "
               "statistics.",
    "plan": "`gpusim plan` (layout in docs/planning.md).",
    "sweep": "`gpusim sweep`.",
    "place-exp": "`gpusim place-exp` (the FGD paper's placement "
                 "experiment).",
}


def text(v):
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("utf-8")
    return str(v)


def type_name(t):
    """A dtype as the document names it."""
    if h5py.check_string_dtype(t) is not None:
        return "string"
    if t.names:
        return "table"
    return {"f": "float", "i": "int", "u": "uint"}[t.kind] + \
        str(8 * t.itemsize)


def generic(path, obj, services):
    """path with the names that come from the scenario replaced."""
    parts = path.split("/")
    if parts[0] == "runs":
        return None                     # a run's layout, documented once
    if parts[0] == "timeseries_by_model" and len(parts) == 2 and \
            parts[1] != "time_s":
        return "timeseries_by_model/MODEL"
    if parts[0] == "services" and len(parts) > 2 and parts[1] in services:
        return "/".join(["services", "SERVICE"] + parts[2:])
    return path


def cell(s):
    return text(s).replace("|", "\\|").replace("\n", " ")


def describe_attrs(obj):
    """The attribute names of obj with their types (values vary by run)."""
    out = []
    for k in sorted(obj.attrs.keys()):
        if k in ("units", "description", "column_units",
                 "column_descriptions") or k.endswith("_labels"):
            continue
        v = obj.attrs[k]
        t = "string" if isinstance(v, (str, bytes)) else \
            type_name(np.asarray(v).dtype)
        out.append("`%s` (%s)" % (k, t))
    return ", ".join(out)


def collect(f):
    """{generic path: (kind of object, lines)} for one file."""
    services = set()
    if "services" in f:
        services = {text(x) for x in f["services/names"][()]}
    found = {}

    def visit(name, obj):
        g = generic(name, obj, services)
        if g is None or g in found:
            return
        if g.startswith("timeseries_by_model/MODEL"):
            model = text(obj.attrs.get("model", ""))
            desc = text(obj.attrs["description"]).replace(model, "MODEL")
        elif isinstance(obj, h5py.Dataset):
            desc = text(obj.attrs.get("description", ""))
        else:
            desc = ""
        found[g] = (obj, desc)

    f.visititems(visit)
    if "runs" in f:
        found["runs/POLICY/seedK"] = (None, "one run's file, copied whole "
                                      "(the run layout above); attributes "
                                      "`policy` (string), `seed` (int64)")
    return found


def render(kind, objs, root_attrs, out):
    out.append("## %s files\n" % kind)
    out.append(INTRO[kind] + "\n")
    out.append("Root attributes: %s.\n" % root_attrs)
    out.append("| path | type | rank | units | description |")
    out.append("|---|---|---|---|---|")
    tables = []
    for path in sorted(objs):
        obj, desc = objs[path]
        if obj is None:
            out.append("| `/%s` | group | | | %s |" % (path, cell(desc)))
            continue
        if isinstance(obj, h5py.Group):
            attrs = describe_attrs(obj)
            if attrs:
                out.append("| `/%s` | group | | | attributes: %s |"
                           % (path, cell(attrs)))
            continue
        t = type_name(obj.dtype)
        rank = "scalar" if obj.ndim == 0 else "%d-D" % obj.ndim
        attrs = describe_attrs(obj)
        extra = "; attributes: " + attrs if attrs else ""
        labels = sorted(k for k in obj.attrs if k.endswith("_labels"))
        if labels:
            extra += "; label attributes: " + ", ".join(
                "`%s`" % k for k in labels)
        out.append("| `/%s` | %s | %s | %s | %s |" % (
            path, t, rank, cell(obj.attrs.get("units", "")),
            cell(desc + extra)))
        if obj.dtype.names:
            tables.append((path, obj))
    out.append("")
    for path, obj in tables:
        out.append("### `/%s` columns\n" % path)
        out.append("| column | type | units | description |")
        out.append("|---|---|---|---|")
        cu = obj.attrs["column_units"]
        cd = obj.attrs["column_descriptions"]
        for i, name in enumerate(obj.dtype.names):
            out.append("| `%s` | %s | %s | %s |" % (
                name, type_name(obj.dtype[name]), cell(cu[i]), cell(cd[i])))
        out.append("")


def main(argv):
    by_kind = {}
    root = {}
    for arg in argv:
        kind, _, path = arg.partition("=")
        if kind not in KINDS or not path:
            sys.exit("usage: h5doc.py KIND=FILE.h5 ... (KIND: %s)"
                     % ", ".join(KINDS))
        f = h5py.File(path, "r")
        found = collect(f)
        mine = by_kind.setdefault(kind, {})
        for k, v in found.items():
            mine.setdefault(k, v)
        root.setdefault(kind, describe_attrs(f))
        by_kind[kind] = mine
        by_kind.setdefault("_files", []).append(f)
    out = ["# The HDF5 result files", "",
           "Generated by `make docs/hdf5.md` (plots/h5doc.py over the files "
           "tests/hdf5doc.sh has the shipped scenarios write); do not edit. "
           "Every dataset carries `units` and `description` attributes, a "
           "table (an HDF5 compound) `column_units` and "
           "`column_descriptions` in column order; every string is "
           "variable-length UTF-8; counts are integers; an integer code "
           "names the label table it indexes. The root attribute "
           "`schema_version` changes whenever a dataset's meaning, unit or "
           "description does, `layout_version` whenever the layout does. "
           "Units follow UDUNITS (`s`, `h`, `USD`, `1` for a count or a "
           "ratio); \"per metric (...)\" and \"per row (units column)\" "
           "name where each value's own unit is written.", ""]
    for kind in KINDS:
        if kind in by_kind:
            render(kind, by_kind[kind], root[kind], out)
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
