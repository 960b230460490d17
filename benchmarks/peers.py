"""Peer tools measured beside anonlab: anonypy 0.2.1 (Mondrian) and pyCANON 1.3.6 (checks).

Plain functions only; this module never imports anonlab, so a benchmark script can time the
peers and anonlab in one process on the same frame.  The peers are a benchmark-only extra::

    pip install -e .[bench]        # anonypy==0.2.1, pycanon==1.3.6

Semantics of every pyCANON check (formula, log base, distance, ordering) are written down in
``benchmarks/PEERS.md`` and in the docstrings below.

Run ``python benchmarks/peers.py`` to measure both peers on UCI Adult (45,222 rows).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]
# The quasi-identifiers of the anonypy/pyCANON comparison (issue's setting).
ADULT_QI = [
    "age",
    "education-num",
    "hours-per-week",
    "marital-status",
    "race",
    "sex",
    "workclass",
]
ADULT_NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


def _default_adult_dir() -> Path:
    env = os.environ.get("ANONLAB_ADULT_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "shared" / "datasets" / "adult"
        if (cand / "adult.data").is_file():
            return cand
    return Path("/work/shared/datasets/adult")


def load_adult(directory: str | Path | None = None) -> pd.DataFrame:
    """adult.data + adult.test, rows with any '?' dropped, test labels' '.' stripped.

    Returns 45,222 rows with a fresh RangeIndex (pyCANON needs one, see ``pycanon_checks``).
    Text columns stay ``object``; numeric columns are int64.
    """
    d = Path(directory) if directory is not None else _default_adult_dir()
    frames = []
    for name in ("adult.data", "adult.test"):
        part = pd.read_csv(
            d / name,
            header=None,
            names=ADULT_COLUMNS,
            sep=",",
            skipinitialspace=True,
            na_values="?",
            dtype={c: ("int64" if c in ADULT_NUMERIC else "object") for c in ADULT_COLUMNS},
        )
        frames.append(part)
    df = pd.concat(frames, ignore_index=True).dropna().reset_index(drop=True)
    df["income"] = df["income"].str.rstrip(".")
    return df


# --------------------------------------------------------------------------------------------
# anonypy 0.2.1
# --------------------------------------------------------------------------------------------


class AnonypyResult(NamedTuple):
    """What one anonypy Mondrian run gave.

    seconds            wall time of anonypy's own work: ``Mondrian.partition`` + ``anonymize``,
                       i.e. exactly what ``Preserver.anonymize_k_anonymity(k)`` does
    n_classes          number of partitions (equivalence classes)
    labels             int array, class id of every input row (aligned with ``df``'s rows)
    generalized        row-aligned frame (index = df.index): the QI columns replaced by
                       anonypy's generalized strings, every other column untouched
    rows               anonypy's native output as a frame: one row per (class, sensitive
                       value) with a ``count`` column (list-wrapped cells already unwrapped)
    partition_seconds  ``Mondrian.partition`` alone (the algorithm)
    anonymize_seconds  ``anonypy.anonymize`` alone (building the generalized rows)
    """

    seconds: float
    n_classes: int
    labels: np.ndarray
    generalized: pd.DataFrame
    rows: pd.DataFrame
    partition_seconds: float
    anonymize_seconds: float


def anonypy_prepare(df: pd.DataFrame, qi: Sequence[str], sensitive: str) -> pd.DataFrame:
    """Cast the non-numeric QI columns and the sensitive column to pandas ``category``.

    anonypy decides categorical vs numeric *only* by ``dtype.name == "category"``; a text column
    left as ``object`` is treated as numeric and fails with ``TypeError: unsupported operand
    type(s) for -: 'str' and 'str'`` in ``Mondrian.get_spans``.
    """
    out = df.copy()
    for col in [*qi, sensitive]:
        if not pd.api.types.is_numeric_dtype(out[col]) and out[col].dtype.name != "category":
            out[col] = out[col].astype("category")
    return out


def _unwrap(value: Any) -> Any:
    # anonypy.anonymize stores every generalized QI cell as a one-element list.
    return value[0] if isinstance(value, list) else value


def anonypy_mondrian(df: pd.DataFrame, qi: Sequence[str], sensitive: str, k: int) -> AnonypyResult:
    """Run anonypy 0.2.1's Mondrian k-anonymity and time it.

    API used (anonypy has no docs beyond its README; read from its source)::

        m = anonypy.mondrian.Mondrian(df, qi, sensitive)
        partitions = m.partition(k)          # list of pandas Index (row labels)
        rows = anonypy.anonypy.anonymize(df, partitions, qi, sensitive)

    ``anonypy.Preserver(df, qi, sensitive).anonymize_k_anonymity(k)`` is the same two calls;
    we call them separately to get the partitions (hence class labels) and both timings.
    The category cast (``anonypy_prepare``) is done before the clock starts.
    """
    from anonypy import anonypy as ap
    from anonypy import mondrian

    qi = list(qi)
    # anonypy addresses rows by label (df.loc[partition]); give it a clean RangeIndex.
    data = anonypy_prepare(df.reset_index(drop=True), qi, sensitive)
    model = mondrian.Mondrian(data, qi, sensitive)

    t0 = time.perf_counter()
    partitions = model.partition(k)
    t1 = time.perf_counter()
    raw_rows = ap.anonymize(data, partitions, qi, sensitive)
    t2 = time.perf_counter()

    labels = np.full(len(data), -1, dtype=np.int64)
    for i, part in enumerate(partitions):
        labels[part.to_numpy()] = i
    if (labels < 0).any():
        raise AssertionError("anonypy partitions do not cover every row")

    rows = pd.DataFrame(raw_rows)
    for col in qi:
        rows[col] = rows[col].map(_unwrap)
    # anonymize emits, partition by partition, one row per sensitive value present (count > 0).
    n_sa = (
        pd.DataFrame({"p": labels, "s": data[sensitive].to_numpy()})
        .groupby("p")["s"]
        .nunique()
        .reindex(range(len(partitions)))
        .to_numpy()
    )
    rows.insert(0, "class_id", np.repeat(np.arange(len(partitions)), n_sa))
    sizes = rows.groupby("class_id")["count"].sum().to_numpy()
    if not np.array_equal(sizes, np.bincount(labels, minlength=len(partitions))):
        raise AssertionError("could not align anonypy's rows with its partitions")

    gen_qi = rows.drop_duplicates("class_id").set_index("class_id")[qi]
    generalized = df.copy()
    for col in qi:
        generalized[col] = gen_qi[col].to_numpy()[labels]

    return AnonypyResult(
        seconds=t2 - t0,
        n_classes=len(partitions),
        labels=labels,
        generalized=generalized,
        rows=rows,
        partition_seconds=t1 - t0,
        anonymize_seconds=t2 - t1,
    )


def anonypy_preserver_timings(
    df: pd.DataFrame, qi: Sequence[str], sensitive: str, k: int
) -> dict[str, float]:
    """Seconds of anonypy's two public k-anonymity calls, each run once.

    ``Preserver.anonymize_k_anonymity(k)`` (partition + rows) and
    ``Preserver.count_k_anonymity(k)`` (partition again + one aggregated row per class).
    Each call re-runs ``Mondrian.partition``: a script that calls both, e.g. to get the
    generalized rows and the number of classes, pays for the partitioning twice.
    """
    import anonypy

    data = anonypy_prepare(df, list(qi), sensitive)
    pres = anonypy.Preserver(data, list(qi), sensitive)
    t0 = time.perf_counter()
    pres.anonymize_k_anonymity(k)
    t1 = time.perf_counter()
    pres.count_k_anonymity(k)
    t2 = time.perf_counter()
    return {"anonymize_k_anonymity": t1 - t0, "count_k_anonymity": t2 - t1}


def anonypy_rows_to_records(rows: pd.DataFrame) -> pd.DataFrame:
    """Expand anonypy's aggregated output (one row per class x sensitive value, ``count``)
    back to one row per record, with a fresh RangeIndex.  Feeding the aggregated rows to a
    checker without this step makes every class look as small as its number of distinct
    sensitive values (pyCANON would report k = 1)."""
    out = rows.loc[rows.index.repeat(rows["count"])].drop(columns="count")
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# pyCANON 1.3.6
# --------------------------------------------------------------------------------------------

PYCANON_DEFAULT_MODELS = ("k", "l", "entropy_l", "recursive_c_l", "t")
PYCANON_ALL_MODELS = (
    *PYCANON_DEFAULT_MODELS,
    "alpha_k",
    "basic_beta",
    "enhanced_beta",
    "delta_disclosure",
)


def _pycanon_callables(qi: list[str], sa: list[str]) -> dict[str, Callable[[pd.DataFrame], Any]]:
    from pycanon import anonymity as an

    return {
        # min class size
        "k": lambda d: an.k_anonymity(d, qi),
        # min over classes of #distinct sensitive values
        "l": lambda d: an.l_diversity(d, qi, sa),
        # int(exp(min over classes of -sum p ln p))  -> floored, natural log
        "entropy_l": lambda d: an.entropy_l_diversity(d, qi, sa),
        # (c, l); l = distinct l above, c from counts sorted ASCENDING (see PEERS.md)
        "recursive_c_l": lambda d: an.recursive_c_l_diversity(d, qi, sa),
        # max over classes of EMD: ordered distance (numeric SA) / equal distance (text SA)
        "t": lambda d: an.t_closeness(d, qi, sa),
        # (max over classes of the largest SA share, k)
        "alpha_k": lambda d: an.alpha_k_anonymity(d, qi, sa),
        # max over classes and SA values of (q - p) / p
        "basic_beta": lambda d: an.basic_beta_likeness(d, qi, sa),
        # max over SA values v of min(basic beta, -ln p_v)
        "enhanced_beta": lambda d: an.enhanced_beta_likeness(d, qi, sa),
        # max over classes and present SA values of |ln(q / p)|
        "delta_disclosure": lambda d: an.delta_disclosure(d, qi, sa),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def pycanon_checks(
    df: pd.DataFrame,
    qi: Sequence[str],
    sensitive: str,
    models: Sequence[str] = PYCANON_DEFAULT_MODELS,
    repeat: int = 1,
) -> dict[str, tuple[Any, float]]:
    """Run pyCANON's checks on an already generalized table; ``{model: (value, seconds)}``.

    ``df`` must hold one row per record (expand anonypy's rows with
    ``anonypy_rows_to_records``, or pass ``AnonypyResult.generalized``).  Classes are
    pyCANON's own: ``df.groupby(qi)`` over the generalized QI values (rows whose QI has a NaN
    are silently dropped by that groupby).  The frame is given a fresh RangeIndex first,
    because pyCANON collects each class's *labels* from ``groupby(...).groups`` and then reads
    the rows with ``data.iloc[labels]`` (positions): on any other index it reads wrong rows
    or raises IndexError.  ``seconds`` is the fastest of ``repeat`` runs of the one call.

    Values (sensitive attribute ``sa``; class E with n_E rows; q_E(v), p(v) = share of value v
    in E and in the whole ``df``; counts of E's values r_1..r_m):

    - ``k``: min_E n_E
    - ``l``: min_E #distinct(sa in E)
    - ``entropy_l``: ``int(exp(min_E H_E))``, H_E = -sum_v q_E(v) ln q_E(v) (natural log; the
      result is floored to an int, so it is floor of the entropy-l, not the real number)
    - ``recursive_c_l``: ``(c, l)``; l as above; if l > 1, per class r = counts sorted
      ascending, c_E = floor(r[0] / sum(r[l-1:]) + 1), c = max_E c_E; ``nan`` if l == 1
    - ``t``: numeric sa -> max_E (1/(m-1)) sum_i |sum_{j<=i} (q_E - p)(v_j)| over the m sorted
      distinct values of the whole table (ordered-distance EMD); text sa -> max_E
      0.5 sum_v |q_E(v) - p(v)| (equal-distance EMD = total variation)
    - ``alpha_k``: ``(alpha, k)``, alpha = max_E max_v q_E(v)
    - ``basic_beta``: max_E max_v (q_E(v) - p(v)) / p(v)
    - ``enhanced_beta``: max_v min(basic_beta, -ln p(v))
    - ``delta_disclosure``: max_E max_{v: q_E(v) > 0} |ln(q_E(v) / p(v))|
    """
    qi = list(qi)
    data = df.reset_index(drop=True)
    calls = _pycanon_callables(qi, [sensitive])
    unknown = [m for m in models if m not in calls]
    if unknown:
        raise ValueError(f"unknown pyCANON models {unknown}; known: {list(calls)}")
    out: dict[str, tuple[Any, float]] = {}
    for name in models:
        best = float("inf")
        value: Any = None
        for _ in range(max(1, repeat)):
            t0 = time.perf_counter()
            value = calls[name](data)
            best = min(best, time.perf_counter() - t0)
        out[name] = (_plain(value), best)
    return out


def recursive_c_reference(
    df: pd.DataFrame, qi: Sequence[str], sensitive: str, ell: int
) -> tuple[int, float]:
    """Recursive (c, l)-diversity by the definition (Machanavajjhala et al. 2007), for
    comparison with pyCANON: counts sorted DESCENDING r_1 >= ... >= r_m; class E satisfies
    (c, l) iff r_1 < c (r_l + ... + r_m).  Returns (smallest integer c that every class
    satisfies = max_E floor(r_1 / tail) + 1, max_E r_1 / tail as a real number).  A class with
    fewer than ``ell`` distinct values can satisfy no c: returns (-1, inf) then."""
    counts = df.groupby([*qi, sensitive], observed=True, sort=False).size()
    level = list(range(len(qi)))
    c_int, c_real = 0, 0.0
    for _, grp in counts.groupby(level=level, observed=True, sort=False):
        r = np.sort(grp.to_numpy())[::-1]
        if len(r) < ell:
            return -1, float("inf")
        tail = r[ell - 1 :].sum()
        c_int = max(c_int, int(r[0] // tail) + 1)
        c_real = max(c_real, float(r[0] / tail))
    return c_int, c_real


# --------------------------------------------------------------------------------------------
# __main__: both peers on Adult
# --------------------------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_fmt(v) for v in value) + ")"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def rows_in_classes_with_distinct(
    df: pd.DataFrame, qi: Sequence[str], sensitive: str, at_least: int
) -> pd.DataFrame:
    """The rows of the classes (groups of equal QI values) holding >= ``at_least`` distinct
    sensitive values, with a fresh RangeIndex."""
    nd = df.groupby(list(qi), observed=True)[sensitive].transform("nunique")
    return df[nd.to_numpy() >= at_least].reset_index(drop=True)


def _print_recursive_comparison(
    records: pd.DataFrame, sa: str, c_l: tuple[Any, int], repeat: int
) -> None:
    c, ell = c_l
    table, where = records, "this table"
    if ell <= 1:
        # pyCANON gives c = nan when l = 1; compare on the classes that have >= 2 values.
        table = rows_in_classes_with_distinct(records, ADULT_QI, sa, 2)
        n_cls = table.groupby(ADULT_QI).ngroups
        where = f"the {n_cls:,} classes with >= 2 values ({len(table):,} rows)"
        value, secs = pycanon_checks(table, ADULT_QI, sa, ["recursive_c_l"], repeat)[
            "recursive_c_l"
        ]
        c, ell = value
        print(f"  recursive_c_l on {where}: pyCANON {_fmt(value)} in {secs:.3f} s")
    c_def, c_real = recursive_c_reference(table, ADULT_QI, sa, ell)
    print(
        f"  by the definition (counts descending) on {where}, l = {ell}: smallest integer "
        f"c = {c_def} (max r1/(r_l+..+r_m) = {c_real:.4g}); pyCANON c = {_fmt(c)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="folder holding adult.data, adult.test")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument(
        "--sensitive",
        nargs="+",
        default=["occupation", "income"],
        help="sensitive attribute(s) for the pyCANON checks (one block each)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (min kept)")
    parser.add_argument("--all-models", action="store_true", help="also pyCANON's extra models")
    parser.add_argument(
        "--no-preserver", action="store_true", help="skip timing anonypy's Preserver calls"
    )
    args = parser.parse_args(argv)

    import anonypy
    import pycanon

    df = load_adult(args.data)
    print(
        f"UCI Adult: {len(df):,} rows; QI = {', '.join(ADULT_QI)}; k = {args.k}\n"
        f"python {platform.python_version()}, pandas {pd.__version__}, numpy {np.__version__}, "
        f"anonypy {getattr(anonypy, '__version__', '0.2.1')}, "
        f"pycanon {getattr(pycanon, '__version__', '?')}, {os.cpu_count()} CPUs\n"
    )

    runs = [anonypy_mondrian(df, ADULT_QI, args.sensitive[0], args.k) for _ in range(args.repeat)]
    res = runs[0]
    if any(not np.array_equal(r.labels, res.labels) for r in runs[1:]):
        print("note: anonypy partitions differed between runs")
    tot = [r.seconds for r in runs]
    part = [r.partition_seconds for r in runs]
    anon = [r.anonymize_seconds for r in runs]
    sizes = np.bincount(res.labels)
    print("anonypy Mondrian (Preserver.anonymize_k_anonymity = partition + anonymize)")
    print(f"  runs: {args.repeat}   times below: min / median seconds")
    print(f"  total      {min(tot):8.2f} / {statistics.median(tot):8.2f}")
    print(f"  partition  {min(part):8.2f} / {statistics.median(part):8.2f}")
    print(f"  anonymize  {min(anon):8.2f} / {statistics.median(anon):8.2f}")
    print(
        f"  classes {res.n_classes:,}; class size min {sizes.min()}, median "
        f"{int(np.median(sizes))}, max {sizes.max()}; output rows {len(res.rows):,}"
    )
    if not args.no_preserver:
        pt = anonypy_preserver_timings(df, ADULT_QI, args.sensitive[0], args.k)
        both = sum(pt.values())
        print(
            f"  Preserver.anonymize_k_anonymity {pt['anonymize_k_anonymity']:.2f} s, "
            f"Preserver.count_k_anonymity {pt['count_k_anonymity']:.2f} s, both {both:.2f} s"
        )
    print()

    models = PYCANON_ALL_MODELS if args.all_models else PYCANON_DEFAULT_MODELS
    for sa in args.sensitive:
        if sa == args.sensitive[0]:
            records = anonypy_rows_to_records(res.rows)
        else:
            records = res.generalized[[*ADULT_QI, sa]]
        checks = pycanon_checks(records, ADULT_QI, sa, models=models, repeat=args.repeat)
        n_cls = records.groupby(ADULT_QI).ngroups
        print(
            f"pyCANON on anonypy's k={args.k} output, sensitive = {sa} "
            f"({records[sa].nunique()} values), {n_cls:,} classes seen by pyCANON"
        )
        print(f"  {'model':<18}{'value':>22}{'seconds (min)':>16}")
        for name, (value, secs) in checks.items():
            print(f"  {name:<18}{_fmt(value):>22}{secs:>16.3f}")
        c_l = checks.get("recursive_c_l", (None,))[0]
        if c_l is not None:
            _print_recursive_comparison(records, sa, c_l, args.repeat)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
