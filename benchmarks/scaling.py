"""Scale on one machine (issue 10): time and peak memory of Anatomy, Mondrian (k and ℓ), Hilb and
the privacy checks at 0.1M, 1M, 3M and 10M records.

    python benchmarks/scaling.py [--sizes 100000,1000000,3000000,10000000] [--plot docs/scaling.png]

Input: ``census-kdd-workers`` (49,479 rows, its default 7 quasi-identifiers and sensitive
``detailed_occupation_recode``) **resampled with replacement** to each size with
``Table.resample(n, seed=0)`` -- the same draw as ``anonlab anonymize --resample N --seed 0``.
Resampled data has many exact duplicates (each source row appears about n / 49,479 times), so
groups at 10M are not those of a real 10M-record census.

Each (task, size) runs in its own subprocess so the sizes do not share a peak: the worker builds
the input table, runs the task once on a 2,000-row resample (numba kernels compiled or loaded from
cache), then runs it once on the full input and times that run (wall clock, one run, no repeat).
Peak memory is the subprocess's ``ru_maxrss`` (whole process: interpreter, numba, the input table
and the task); "input" is the RSS right after the input was built, so peak - input is about what
the task itself adds. For the checks the release they check (Mondrian, k = 10 or ℓ = 3) is built
first, outside the timed part (then rebuilt from its group ids so that no group statistic is
cached and the check computes group sizes and histograms itself), and its memory is inside the
peak.

Tasks: ``anatomy`` (ℓ = 3), ``mondrian-k`` (k = 10), ``mondrian-l`` (ℓ = 3), ``hilb`` (ℓ = 3),
``check-k`` (k-anonymity, k = 10 on the Mondrian-k release), ``check-l`` (l-diversity, ℓ = 3 on
the Mondrian-ℓ release), ``check-t`` (t-closeness, t = 0.2 on the Mondrian-ℓ release). The fitted
exponent is the least-squares slope of log(time) against log(n) over the sizes measured; n log n
shows up as a slope a little above 1 (about 1.1 between 0.1M and 10M).

Reading: ``read-csv`` is ``Table.from_csv`` (chunked, 500,000 rows a chunk), ``read-csv-int32``
the same with the chunks' provisional codes in int32 instead of the smallest unsigned dtype
(``anonlab.table.chunked._smallest_code_dtype`` replaced in that worker), ``read-csv-whole`` the
whole-file path ``Table.from_frame(read_frame(path))``; ``read-parquet`` and
``read-parquet-whole`` the same two for Parquet. The input is the resampled table (default
roles, 8 columns) written beforehand, by another process, to ``$ANONLAB_SCALING_DIR`` (default
/tmp/anonlab-scaling): CSV (924 MB at 10M) and Parquet converted from it by pyarrow (row groups
of 1M rows, 39 MB at 10M). "input" is then the RSS before reading (interpreter and imports), so
(peak - input) / n is what reading costs per record.

Attacks (the release is built before the timed part; its memory is inside the peak):

* ``negative-rules``: ``mine_negative_rules(table, 0.9, 1)`` (minExp 0.9, one-condition rules,
  as bench_injector.py) plus ``negative_rule_attack`` with those rules on the Anatomy ℓ = 3
  release of the same input, ℓ = 3; both times are also given apart.
* ``foreground-size``: the same input, not solved: the distinct quasi-identifier rows
  (``_RowIndex``), Apriori, every set's signatures and unknowns, the most group types in one
  set (groups equal in size, count of x and members' unknowns, evaluated once), and the time
  of one evaluation of Eq. (3)-(4) on that set, the unit of EM.
* ``foreground-independent``: the ``foreground`` release (below) with each QI column permuted on
  its own (seed 1) after resampling: the same groups and sensitive values, but QI rows drawn
  from the product of the marginals, so the distinct QI rows (and the group types of the
  attack's solver) are many, as in real data, not the source's 17,160.
* ``foreground``: the foreground-knowledge attack as bench_foreground.py's census-kdd-workers
  setting, resampled: quasi-identifiers age, sex, race, marital_stat, education,
  class_of_worker, country_of_birth_self, citizenship (QI size 8), sensitive
  major_occupation_code with the target set {Farming forestry and fishing, Private household
  services}, Anatomy ℓ = 2 grouped on the merged label, ``foreground_attack`` with its defaults
  (J = 3993 from ε = 0.01, σ = 0.9; every frequent attribute set; EM accelerated by SQUAREM,
  Newton polishing for sets of at most 64 unknowns).

``--timeout`` (seconds per cell) and ``--max-rss-mb`` (a watchdog thread ends a cell whose RSS
passes it, so that a cell that cannot fit does not push the shared machine into the OOM
killer) bound each cell; a stopped cell is reported as such and larger sizes of that task are
not run. ``--json`` keeps the raw results (written after every cell); ``--load a.json,b.json``
prints and plots earlier runs together.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import ms  # noqa: E402

SOURCE = "census-kdd-workers"
TASKS = [
    "anatomy",
    "mondrian-k",
    "mondrian-l",
    "hilb",
    "check-k",
    "check-l",
    "check-t",
    "read-csv",
    "read-csv-whole",
    "read-csv-int32",
    "read-parquet",
    "read-parquet-whole",
    "negative-rules",
    "foreground",
    "foreground-independent",
    "foreground-size",
]
DEFAULT_SIZES = [100_000, 1_000_000, 3_000_000, 10_000_000]
#: Where the CSV files of the reading tasks are written (once per size, reused).
CSV_DIR = os.environ.get("ANONLAB_SCALING_DIR", "/tmp/anonlab-scaling")
#: The foreground attack's setting: census-kdd-workers in bench_foreground.py, resampled.
from bench_foreground import KDD_SET as FG_SET  # noqa: E402
from bench_foreground import kdd_release  # noqa: E402


def _rss_mb() -> float:
    """Current resident set size (Linux /proc), MB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _task(name: str, table):
    """The function to time (a closure over its input; the release for checks built here)."""
    from anonlab.anonymize import anonymize
    from anonlab.models import check

    if name == "anatomy":
        return lambda: anonymize(table, "anatomy", l=3, seed=0)
    if name == "mondrian-k":
        return lambda: anonymize(table, "mondrian", k=10, seed=0)
    if name == "mondrian-l":
        return lambda: anonymize(table, "mondrian", l=3, seed=0)
    if name == "hilb":
        return lambda: anonymize(table, "hilb", l=3, seed=0)
    if name == "check-k":
        release = _fresh(anonymize(table, "mondrian", k=10, seed=0))
        return lambda: check(release, "k-anonymity", k=10)
    release = _fresh(anonymize(table, "mondrian", l=3, seed=0))
    if name == "check-l":
        return lambda: check(release, "l-diversity", l=3)
    if name == "check-t":
        return lambda: check(release, "t-closeness", t=0.2)
    raise ValueError(name)


def _csv_path(n: int) -> str:
    """The resampled table (default roles) as CSV, written once, a million rows at a time."""
    from anonlab.table import Table

    path = os.path.join(CSV_DIR, f"{SOURCE}-{n}.csv")
    if os.path.exists(path):
        return path
    os.makedirs(CSV_DIR, exist_ok=True)
    table = Table.from_dataset(SOURCE).resample(n, seed=0)
    tmp = path + ".part"
    step = 1_000_000
    for start in range(0, n, step):
        part = table.take(np.arange(start, min(n, start + step)))
        part.to_frame().to_csv(tmp, index=False, header=start == 0, mode="w" if start == 0 else "a")
    os.replace(tmp, path)
    return path


def _parquet_path(n: int) -> str:
    """The same file as Parquet (row groups of 1,000,000 rows), converted by pyarrow's
    streaming CSV reader so that writing it never holds the whole table."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    path = os.path.join(CSV_DIR, f"{SOURCE}-{n}.parquet")
    if os.path.exists(path):
        return path
    tmp = path + ".part"
    writer = None
    for batch in pacsv.open_csv(_csv_path(n)):
        if writer is None:
            writer = pq.ParquetWriter(tmp, batch.schema)
        writer.write_batch(batch, row_group_size=1_000_000)
    writer.close()
    os.replace(tmp, path)
    return path


def _read_task(name: str, n: int):
    from anonlab import datasets
    from anonlab.table import Table, read_frame

    info = datasets.info(SOURCE)
    kw = dict(
        quasi_identifiers=list(info.default_qi),
        sensitive=info.default_sensitive,
        numeric=list(info.numeric),
    )
    path = _parquet_path(n) if name.startswith("read-parquet") else _csv_path(n)
    if name == "read-csv-int32":  # the chunks' codes in int32 instead of the smallest dtype
        import anonlab.table.chunked

        anonlab.table.chunked._smallest_code_dtype = lambda n_values: np.int32
    if name in ("read-csv", "read-csv-int32"):
        return lambda: Table.from_csv(path, **kw)
    if name == "read-parquet":
        return lambda: Table.from_parquet(path, **kw)
    return lambda: Table.from_frame(read_frame(path), **kw)


def _foreground_input(n: int, independent: bool = False):
    """The release: Anatomy ℓ = 2 grouped on the merged label, as bench_foreground. With
    ``independent``, each quasi-identifier column is then permuted on its own (seeded): the
    groups and the sensitive values stay, the QI rows become combinations of the marginals,
    so the distinct rows are many (803k at 10M instead of 17k) and so are the group types."""
    release = kdd_release(n)[0]
    if not independent:
        return release
    from anonlab import Release, Table

    table = release.table
    rng = np.random.default_rng(1)
    codes = {
        a: rng.permutation(c) if a in release.quasi_identifiers else c
        for a, c in table.codes.items()
    }
    table = Table(table.schema, codes, table.values, table.row_id, table.dropped)
    return Release(table, release.group, release.scheme, dict(release.manifest))


def _foreground_size(release, stats: dict):
    """The size of the foreground attack's problem without solving it: Apriori (every frequent
    attribute set), the signatures and sufficient ones (unknowns) of each set, the group types
    of every set (groups equal in size, count of x and members' unknowns, evaluated once), and
    the time of one evaluation of Eq. (3)-(4) (``FixedPointProblem.g``, the unit of EM) on the set
    with the most types, mean of 5 after one."""
    from anonlab.attacks import foreground as fg
    from anonlab.attacks.foreground.algorithm import _frequent_sets
    from anonlab.attacks.foreground.inputs import count_x, resolve_targets
    from anonlab.attacks.foreground.kernel import GroupLayout
    from anonlab.attacks.foreground.signatures import RowIndex
    from anonlab.attacks.foreground.small_signature import signature_unknowns
    from anonlab.attacks.foreground.solver import FixedPointProblem

    def run():
        targets = resolve_targets(release, FG_SET)
        J = fg.hoeffding_support(0.01, 0.9)
        t0 = time.perf_counter()
        index = RowIndex.of(release, tuple(release.quasi_identifiers))
        stats["row_index_seconds"] = time.perf_counter() - t0
        stats["distinct_rows"] = int(len(index.rows))
        t0 = time.perf_counter()
        sets = _frequent_sets(index, J, len(index.attributes))
        stats["apriori_seconds"] = time.perf_counter() - t0
        layout = GroupLayout(release.group, release.n_groups, count_x(release, targets[0][1]))
        stats["busy_members"] = int(len(layout.records))
        t0 = time.perf_counter()
        signatures = [index.signatures(attrs) for attrs in sets]
        stats["signature_seconds"] = time.perf_counter() - t0
        unknowns = [int((sig.support >= J).sum()) for sig in signatures]
        stats["attribute_sets"] = len(sets)
        stats["unknowns"] = sum(unknowns)
        stats["max_unknowns"] = max(unknowns, default=0)
        largest = None  # the set with the most group types: the costliest evaluation
        t0 = time.perf_counter()
        for sig in signatures:
            problem = FixedPointProblem(
                layout, sig, *signature_unknowns(sig.support >= J, "uniform-half", 0)
            )
            if largest is None or problem.n_types > largest.n_types:
                largest = problem
        stats["types_seconds"] = time.perf_counter() - t0
        if largest is not None:
            stats["group_types"] = int(largest.n_types)
            # distinct f per unknown, as EM has them (equal f makes every group "all alike")
            f = np.random.default_rng(0).uniform(0.01, 0.2, largest.n_vars)
            largest.g(f)
            t0 = time.perf_counter()
            for _ in range(5):
                largest.g(f)
            stats["g_seconds"] = (time.perf_counter() - t0) / 5

    return run


def _attack_task(name: str, table, n: int, stats: dict):
    from anonlab.anonymize import anonymize

    if name == "foreground-size":
        return _foreground_size(_foreground_input(n), stats)
    if name in ("foreground", "foreground-independent"):
        from anonlab.attacks.foreground import foreground_attack

        release = _foreground_input(n, independent=name == "foreground-independent")

        def run():
            result = foreground_attack(release, FG_SET)
            stats["attribute_sets"] = len(result.attribute_sets) - 1
            stats["unknowns"] = int(sum(r.n_unknowns for r in result.reports))
            stats["em_iterations"] = int(sum(r.em_iterations for r in result.reports))
            stats["newton_steps"] = int(sum(r.newton_steps for r in result.reports))
            stats["converged"] = all(r.converged for r in result.reports)
            stats["signature_mb"] = (
                sum(
                    0 if d.row_signature is None else d.row_signature.nbytes
                    for d in result.distributions
                )
                + result.distributions[0].record_row.nbytes
            ) / 2**20
            return result

        return run
    from anonlab.attacks.negative_rules import negative_rule_attack
    from anonlab.mining.negative_rules import mine_negative_rules

    release = _fresh(anonymize(table, "anatomy", l=3, seed=0))

    def run():
        t0 = time.perf_counter()
        rules = mine_negative_rules(table, 0.9, 1)
        stats["mining_seconds"] = time.perf_counter() - t0
        stats["rules"] = len(rules)
        t0 = time.perf_counter()
        result = negative_rule_attack(release, rules, l=3)
        stats["attack_seconds"] = time.perf_counter() - t0
        counts = result.counts()
        stats["vulnerable_matching"] = counts["vulnerable_matching"]
        return result

    return run


def _fresh(release):
    """The same release with no cached group statistics, so the check computes them."""
    from anonlab.release import Release

    return Release(release.table, release.group, release.scheme, manifest=release.manifest)


def _watchdog(limit_mb: float) -> None:
    """Stop this process (exit 3) once its RSS exceeds ``limit_mb``: a cell that would not fit
    is reported as such instead of pushing the shared machine into swap or the OOM killer."""
    import threading

    def watch():
        t0 = time.perf_counter()
        while True:
            rss = _rss_mb()
            if rss > limit_mb:
                print(
                    f"RSS {rss:,.0f} MB above the {limit_mb:,.0f} MB limit after "
                    f"{time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
                os._exit(3)
            time.sleep(0.2)

    threading.Thread(target=watch, daemon=True).start()


def worker(name: str, n: int) -> dict:
    """Run one task at one size in this process; print a JSON line."""
    from anonlab.table import Table

    _watchdog(float(os.environ.get("ANONLAB_SCALING_MAX_RSS_MB", "8000")))
    stats: dict = {}
    if name.startswith("read-"):
        if not os.path.exists(os.path.join(CSV_DIR, f"{SOURCE}-{n}.parquet")):
            subprocess.run([sys.executable, __file__, "--write-csv", str(n)], check=True)
        import anonlab.anonymize  # noqa: F401  (the same imports as the other tasks)

        table = None
        fn = _read_task(name, n)
    else:
        source = Table.from_dataset(SOURCE)
        if name in ("foreground", "foreground-independent", "foreground-size", "negative-rules"):
            _attack_task(name, source.resample(2_000, seed=1), 2_000, {})()  # warm-up
            table = source.resample(n, seed=0) if name == "negative-rules" else None
            del source
            fn = _attack_task(name, table, n, stats)
        else:
            _task(name, source.resample(2_000, seed=1))()  # warm-up: numba compile / cache load
            table = source.resample(n, seed=0)
            del source
            fn = _task(name, table)
    rss_input = _rss_mb()
    t0 = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    ok = getattr(result, "holds", None)
    groups = getattr(result, "n_groups", None)
    if name.startswith("read-"):
        stats["rss_after_mb"] = _rss_mb()
    return {
        "task": name,
        "rows": n,
        "seconds": seconds,
        "peak_mb": peak,
        "input_mb": rss_input,
        "groups": groups,
        "satisfied": ok,
        **stats,
    }


def run(name: str, n: int, timeout: float | None = None) -> dict:
    try:
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", name, str(n)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"task": name, "rows": n, "error": f"stopped after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        return {"task": name, "rows": n, "error": f"exit {proc.returncode}: {tail}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def slope(rows: list[dict], min_rows: int = 0) -> float | None:
    """Least-squares slope of log(seconds) on log(rows) over the sizes >= ``min_rows``."""
    ok = [r for r in rows if "seconds" in r and r["seconds"] > 0 and r["rows"] >= min_rows]
    if len(ok) < 2:
        return None
    x = np.log([r["rows"] for r in ok])
    y = np.log([r["seconds"] for r in ok])
    return float(np.polyfit(x, y, 1)[0])


def plot(results: dict[str, list[dict]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(12, 5.5))
    colors = plt.get_cmap("tab20").colors
    for i, (name, rows) in enumerate(results.items()):
        ok = [r for r in rows if "seconds" in r]
        if not ok:
            continue
        n = [r["rows"] for r in ok]
        b = slope(rows)
        label = f"{name} (slope {b:.2f})" if b is not None else name
        style = dict(color=colors[i % 20], marker="osD^v<>"[i % 7], ls="-" if i < 10 else "--")
        ax_t.loglog(n, [r["seconds"] for r in ok], label=label, **style)
        ax_m.loglog(n, [r["peak_mb"] for r in ok], label=name, **style)
    ref = np.array([1e5, 1e7])
    ax_t.loglog(ref, 0.05 * ref / 1e5 * np.log(ref) / np.log(1e5), "k:", label="n log n")
    ax_m.axhline(4096, color="r", ls="--", label="4 GB goal")
    ax_t.set(xlabel="records (census-kdd-workers resampled)", ylabel="seconds", title="time")
    ax_m.set(xlabel="records (census-kdd-workers resampled)", ylabel="peak RSS, MB")
    ax_m.set_title("peak memory (whole process)")
    ax_t.legend(fontsize=7)
    ax_m.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})


def _cell(r: dict | None) -> dict | None:
    return r if r is not None and "seconds" in r else None


def details(results: dict[str, list[dict]], sizes: list[int]) -> None:
    """Reading (chunked against whole-file), the attacks' own counts, and the per-record
    constants that ``anonlab.resources`` uses."""

    def at(name: str, n: int) -> dict | None:
        return _cell(next((r for r in results.get(name, []) if r["rows"] == n), None))

    def per_row(r: dict) -> float:
        return (r["peak_mb"] - r["input_mb"]) * 2**20 / r["rows"]

    reading = [t for t in TASKS if t.startswith("read-") and t in results]
    if reading:
        print("\n| rows | " + " | ".join(reading) + " |")
        print("|---|" + "---|" * len(reading))
        for n in sizes:
            cells = []
            for name in reading:
                r = at(name, n)
                cells.append(
                    "–"
                    if r is None
                    else f"{ms(r['seconds'])}, peak {r['peak_mb']:,.0f} MB "
                    f"({per_row(r):,.0f} B/row above {r['input_mb']:,.0f} MB)"
                )
            print(f"| {n:,} | " + " | ".join(cells) + " |")

    def detail(task: str, header: str, cells) -> None:
        """One line per size of ``task``: ``cells(result)`` after the row count."""
        if task not in results:
            return
        print(f"\n| rows | {header} |\n|---|---|")
        for n in sizes:
            r = at(task, n)
            if r is not None:
                print(f"| {n:,} | {cells(r)} |")

    detail(
        "negative-rules",
        "negative rules: mining / attack / rules / vulnerable (matching)",
        lambda r: (
            f"{ms(r['mining_seconds'])} / {ms(r['attack_seconds'])} / "
            f"{r['rules']:,} / {r['vulnerable_matching']:,}"
        ),
    )
    for fg_task in ("foreground", "foreground-independent"):
        detail(
            fg_task,
            f"{fg_task}: attribute sets / unknowns / EM iterations / Newton steps / converged / "
            "signature arrays kept",
            lambda r: (
                f"{r['attribute_sets']} / {r['unknowns']:,} / {r['em_iterations']:,} / "
                f"{r['newton_steps']:,} / {r['converged']} / {r['signature_mb']:,.0f} MB"
            ),
        )
    detail(
        "foreground-size",
        "foreground problem size: distinct QI rows / attribute sets / unknowns (largest set) / "
        "busy members / group types (most in one set) / time: row index / Apriori / "
        "signatures / group types of every set / one evaluation of Eq. (3)-(4) on that set",
        lambda r: (
            f"{r.get('distinct_rows', 0):,} / {r['attribute_sets']} / "
            f"{r['unknowns']:,} ({r['max_unknowns']:,}) / {r['busy_members']:,} / "
            f"{r.get('group_types', 0):,} / {ms(r.get('row_index_seconds', 0.0))} / "
            f"{ms(r['apriori_seconds'])} / {ms(r['signature_seconds'])} / "
            f"{ms(r.get('types_seconds', 0.0))} / {ms(r.get('g_seconds', 0.0))}"
        ),
    )
    print("\nBytes per record added beyond the input, at the largest size measured:")
    print("(peak - input) / rows, and less one int32 copy of the 8 attributes' codes")
    for name, rows in results.items():
        ok = [r for r in rows if _cell(r)]
        if ok:
            r = ok[-1]
            print(
                f"  {name}: {per_row(r):,.0f} B/row, fixed {per_row(r) - 32:,.0f} at {r['rows']:,}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", nargs=2, metavar=("TASK", "ROWS"), help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    ap.add_argument("--tasks", default=",".join(TASKS))
    ap.add_argument("--plot", default="docs/scaling.png")
    ap.add_argument("--json", default=None, help="also write the raw results here")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per cell")
    ap.add_argument(
        "--max-rss-mb", type=float, default=8000.0, help="stop a cell whose RSS exceeds this"
    )
    ap.add_argument("--write-csv", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument(
        "--load",
        default=None,
        help="comma-separated JSON files of earlier runs (--json): print and plot them, run "
        "nothing",
    )
    args = ap.parse_args()
    if args.write_csv:
        print(_csv_path(args.write_csv), _parquet_path(args.write_csv))
        return
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]))))
        return
    os.environ["ANONLAB_SCALING_MAX_RSS_MB"] = str(args.max_rss_mb)
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[str, list[dict]] = {}
    if args.load:
        for file in args.load.split(","):
            with open(file) as f:
                results.update(json.load(f))
        results = {k: results[k] for k in TASKS if k in results}
        sizes = sorted({r["rows"] for rows in results.values() for r in rows})
    for name in [] if args.load else args.tasks.split(","):
        results[name] = []
        for n in sizes:
            r = run(name, n, args.timeout)
            results[name].append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(results, f, indent=1)
            if "error" in r:
                break  # stop at the largest size that works
    print(f"Input: {SOURCE} resampled with replacement (seed 0); one timed run per cell.\n")
    print(
        "| task | "
        + " | ".join(f"{n / 1e6:g}M rows" for n in sizes)
        + " | time slope (all sizes) | time slope (>= 1M) |"
    )
    print("|---|" + "---|" * len(sizes) + "---|---|")
    for name, rows in results.items():
        cells = []
        for n in sizes:
            r = next((r for r in rows if r["rows"] == n), None)
            if r is None:
                cells.append("not run")
            elif "error" in r:
                cells.append(f"failed: {r['error'][:60]}")
            else:
                extra = "" if r["satisfied"] in (None, True) else " (NOT satisfied)"
                cells.append(f"{ms(r['seconds'])} / {r['peak_mb']:,.0f} MB{extra}")
        b, b1 = slope(rows), slope(rows, 1_000_000)
        slopes = " | ".join("–" if v is None else f"{v:.2f}" for v in (b, b1))
        print(f"| {name} | " + " | ".join(cells) + f" | {slopes} |")
    print("\nCells: wall time of the task / peak RSS of its process (input table included).")
    ref = [n * np.log(n) for n in sizes]
    if len(sizes) > 1:
        nlogn = np.polyfit(np.log(sizes), np.log(ref), 1)[0]
        print(f"For reference, n log n over these sizes has slope {nlogn:.2f}.\n")
    print("| rows | input table RSS (MB) |")
    print("|---|---|")
    for n in sizes:
        rs = [
            r["input_mb"]
            for name, rows in results.items()
            for r in rows
            if r.get("rows") == n and "input_mb" in r and not name.startswith("read-")
        ]
        if rs:
            print(f"| {n:,} | {min(rs):,.0f} |")
    details(results, sizes)
    if args.json and not args.load:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.plot:
        plot(results, args.plot)
        print(f"\nplot: {args.plot}")


if __name__ == "__main__":
    main()
