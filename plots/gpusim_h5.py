"""gpusim_h5 -- read gpusim's HDF5 result files into pandas DataFrames.

Every time-series group (``/timeseries``, ``/timeseries_by_model``,
``/services/NAME``) holds only 1-D series of one length, time_s among them,
so each also reads without this module in one line::

    pd.DataFrame({k: v[()] for k, v in f["timeseries"].items()})

A run's file (``gpusim run``) and a comparison's (``gpusim compare``, whose
runs sit under ``/runs/POLICY/seedK``) share one layout, described in docs/hdf5.md (generated from
the files gpusim writes); every string is variable-length UTF-8, counts are
integers, every dataset carries ``units`` and
``description`` attributes, and the integer codes of ``/jobs`` carry their
labels.  This module turns them into labelled DataFrames::

    import gpusim_h5 as g
    f = g.open("quickstart.h5")
    jobs = g.jobs(f)                    # tier, tenant, state... as labels
    ts = g.timeseries(f)                # one column per series
    bm = g.by_model(f)                  # GPUs allocated, one column a model
    sv = g.services(f)                  # per inference service: TTFT, ITL...
    g.service_timeseries(f, "chat")     # replicas, queue, KV use over time
    rq = g.requests(f)                  # per request, service and state labels
    s = g.summary(f)                    # value, units, description
    g.units(f, "/timeseries/queue_length")

    c = g.open("mine-compare.h5")
    for policy, seed, run in g.runs(c):  # each run reads like a run's file
        print(policy, seed, g.summary(run).loc["utilization", "value"])
    g.compare_table(c)                  # mean and 95% interval per metric

It needs h5py and pandas (Debian: python3-h5py, python3-pandas, in the
system Python /usr/bin/python3).
"""

import h5py
import numpy as np
import pandas as pd

__all__ = ["open", "jobs", "timeseries", "by_model", "summary", "tiers",
           "cost", "services", "service_timeseries", "requests", "runs",
           "compare_table", "units", "description", "strings", "kind"]

_open = open


def _text(v):
    """A str from what h5py returns for a string: bytes for a dataset's
    or a column's variable-length UTF-8 string, str for an attribute's."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.bytes_):
        return bytes(v).decode("utf-8")
    return str(v)


def open(path):  # noqa: A001 - the module's entry point
    """The result file at path, opened read-only (an h5py.File)."""
    return h5py.File(path, "r")


def kind(f):
    """What wrote the file: "run", "compare", "plan", "sweep" or
    "place-exp" (a run's file has no kind attribute)."""
    return _text(f.attrs.get("kind", "run"))


def _group(f, group):
    return f if group in (None, "", "/") else f[group]


def units(f, path, column=None):
    """The units of the dataset at path ("" for text), or of one column
    of a table."""
    ds = f[path]
    if column is not None:
        names = list(ds.dtype.names)
        return _text(ds.attrs["column_units"][names.index(column)])
    return _text(ds.attrs.get("units", ""))


def description(f, path, column=None):
    """What the dataset at path (or one column of a table) holds."""
    ds = f[path]
    if column is not None:
        names = list(ds.dtype.names)
        return _text(ds.attrs["column_descriptions"][names.index(column)])
    return _text(ds.attrs.get("description", ""))


def strings(ds):
    """A dataset of strings as a list of str (every string of a gpusim
    file is variable-length UTF-8, which h5py reads as bytes)."""
    return [_text(x) for x in ds[()]]


def _table(ds):
    """A compound dataset as a DataFrame, strings decoded."""
    df = pd.DataFrame(ds[:])
    for col in df.columns:
        if df[col].dtype == object:
            df[col] = df[col].map(_text)
    return df


def jobs(f, group=None, codes=False):
    """/jobs as a DataFrame, one row per job.  The code columns (tenant,
    tier, state, kill, model) become categorical labels; codes=True keeps
    the integers as well, in columns named CODE_code."""
    g = _group(f, group)
    ds = g["jobs"]
    df = _table(ds)
    for col, attr in [("tenant", "tenant_labels"), ("tier", "tier_labels"),
                      ("state", "state_labels"), ("kill", "kill_labels"),
                      ("model", "model_labels")]:
        if col not in df.columns or attr not in ds.attrs:
            continue
        labels = [_text(x) for x in ds.attrs[attr]]
        code = df[col].to_numpy()
        if codes:
            df[col + "_code"] = code
        names = np.array(labels + [""], dtype=object)
        idx = np.where((code >= 0) & (code < len(labels)), code, len(labels))
        df[col] = pd.Categorical(names[idx],
                                 categories=labels + ([""] if (idx == len(labels)).any() else []))
    return df


def _series(g):
    """A group of 1-D series of one length as a DataFrame indexed by
    time_s (layout 3 on; older files kept a 2-D array and a label list in
    /timeseries, which are left out)."""
    cols = {name: ds[()] for name, ds in g.items()
            if isinstance(ds, h5py.Dataset) and ds.ndim == 1 and
            ds.dtype.kind in "fiu"}
    n = len(cols["time_s"]) if "time_s" in cols else None
    df = pd.DataFrame({k: v for k, v in cols.items()
                       if n is None or len(v) == n})
    return df.set_index("time_s") if "time_s" in df else df


def timeseries(f, group=None):
    """/timeseries: one column per series, indexed by time_s (s)."""
    return _series(_group(f, group)["timeseries"])


def by_model(f, group=None):
    """/timeseries_by_model: GPUs allocated per GPU model, one column a
    model (the model's name), indexed by time_s."""
    g = _group(f, group)
    if "timeseries_by_model" in g:
        df = _series(g["timeseries_by_model"])
        ds = g["timeseries_by_model"]
        order = [_text(x) for x in ds.attrs.get("models", [])]
        df = df[[k for k in order if k in df] +
                [k for k in df if k not in order]]     # fleet order
        return df.rename(columns={k: _text(ds[k].attrs.get("model", k))
                                  for k in df.columns})
    ts = g["timeseries"]                # layout 2
    return pd.DataFrame(ts["allocated_by_model"][()],
                        columns=strings(ts["models"]),
                        index=pd.Index(ts["time_s"][()], name="time_s"))


def summary(f, group=None):
    """The summary scalars: a DataFrame indexed by name with value, units
    and description (from /summary/fields; older files: the attributes)."""
    g = _group(f, group)["summary"]
    if "fields" in g:
        return _table(g["fields"]).set_index("name")
    return pd.DataFrame({"value": {k: float(v) for k, v in g.attrs.items()}})


def tiers(f, group=None):
    """Per-tier statistics (/summary/tiers), indexed by scope (all first)."""
    return _table(_group(f, group)["summary/tiers"]).set_index("scope")


def cost(f, by="tier", group=None):
    """The bill by tier, tenant, market or model (/cloud/cost_by_BY), a
    Series of USD indexed by name; "idle" is the part no job used."""
    t = _table(_group(f, group)["cloud/cost_by_" + by])
    return t.set_index("name")["cost_usd"]


def services(f, group=None):
    """/services/summary: one row per inference service (index), one
    column per measure (request counts as integers, TTFT, ITL, e2e
    percentiles in s, SLA attainment, goodput, cost); empty when the run
    had no service.  Each column's unit: units(f, "/services/summary",
    column)."""
    g = _group(f, group)
    if "services" not in g:
        return pd.DataFrame()
    return _table(g["services"]["summary"]).set_index("service")


def service_timeseries(f, name, group=None):
    """/services/NAME: the service's series (replicas, queue, KV cache use,
    ...) indexed by time_s."""
    return _series(_group(f, group)["services"][name])


def requests(f, group=None):
    """/requests, one row per request (or the share kept by run --sample),
    with service and state as labels; empty when the run had no service."""
    g = _group(f, group)
    if "requests" not in g:
        return pd.DataFrame()
    df = _table(g["requests"])
    s = g["services"]
    for col, key in [("service", "names"), ("state", "request_states")]:
        df[col] = pd.Categorical.from_codes(df[col].to_numpy(),
                                            strings(s[key]))
    return df


def runs(f):
    """(policy, seed, group) for every run of a comparison file; each group
    reads with jobs(), timeseries(), summary() like a run's file."""
    out = []
    for policy, pg in f["runs"].items():
        for name, rg in pg.items():
            out.append((policy, int(rg.attrs["seed"]), rg))
    return out


def compare_table(f):
    """/compare/table: one row per (policy, metric) with n, mean, std, t,
    half, ci_low, ci_high."""
    return _table(f["compare/table"]).set_index(["policy", "metric"])
