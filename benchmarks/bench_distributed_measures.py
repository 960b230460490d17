"""Map-reduce measures on Dask (issue 10, §2): 1 vs 2 local workers against the single machine.

    python benchmarks/bench_distributed_measures.py [--rows 1000000] [--workers 1,2]
        [--queries 2000] [--l 4] [--target "Farming forestry and fishing"] [--repeat 1]

Settings: census-kdd-workers (49,479 rows) resampled with replacement to ``--rows`` records
(``Table.resample``, seed 0), default QI (age, sex, race, marital_stat, education,
class_of_worker, country_of_birth_self), sensitive detailed_occupation_recode (46 values);
release: Anatomy ℓ = ``--l`` (seed 0; built once, not timed). Measures timed:

* **checks**: ``anonlab check``'s default models (k, ℓ, distinct/entropy/recursive ℓ, t, m);
* **workload**: ``--queries`` COUNT queries, qd = 3, s = 0.05, seed 0 (drawing included);
* **foreground**: Algorithm 1 with attribute sets of at most one attribute (the empty set
  included), target ``major``-level value ``--target`` of the sensitive attribute.

Columns: the single-machine function (no Dask), then each LocalCluster size (processes, one
thread each; the release's blocks scattered once beforehand, twice as many blocks as workers;
the scatter is timed separately), and the ratio 1 worker / 2 workers. Results are checked equal
to the single machine's on every run. Time: best of ``--repeat`` after one warm-up run.
No paper reports these numbers; there is no paper column. State the load when quoting them.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from anonlab.anonymize import anatomy
from anonlab.attacks.foreground import foreground_attack
from anonlab.distributed import measures as dm
from anonlab.models.defaults import default_checks
from anonlab.table import Table
from anonlab.utility import workload_error
from timing import best, ms, row


def _measures(release, args):
    """name -> (single-machine callable, distributed callable(parts), equality check)."""
    targets = [[args.target]]
    fg = {"max_attributes": 1}
    return {
        "checks (7 models)": (
            lambda: default_checks(release),
            lambda parts: dm.default_checks_distributed(release, partitions=parts),
            lambda a, b: [x.to_json() for x in a] == [y.to_json() for y in b],
        ),
        f"workload ({args.queries:,} queries)": (
            lambda: workload_error(release, n_queries=args.queries),
            lambda parts: dm.workload_error_distributed(
                release, n_queries=args.queries, partitions=parts
            ),
            lambda a, b: (
                np.array_equal(a.actual, b.actual)
                and np.allclose(a.estimated, b.estimated, rtol=1e-12, atol=0)
            ),
        ),
        "foreground (sets of <= 1 attribute)": (
            lambda: foreground_attack(release, targets, **fg),
            lambda parts: dm.foreground_attack_distributed(
                release, targets, partitions=parts, **fg
            ),
            lambda a, b: (
                np.array_equal(a.p_star, b.p_star) and a.attribute_sets == b.attribute_sets
            ),
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--l", type=int, default=4)
    parser.add_argument("--target", default="Farming forestry and fishing")
    parser.add_argument("--sensitive", default="major_occupation_code")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    base = Table.from_dataset("census-kdd-workers")
    qi = list(base.quasi_identifiers)
    base = Table.from_dataset("census-kdd-workers", quasi_identifiers=qi, sensitive=args.sensitive)
    table = base.resample(args.rows, 0)
    t0 = time.perf_counter()
    release = anatomy(table, l=args.l, seed=0)
    made = time.perf_counter() - t0
    print(
        f"census-kdd-workers resampled to {table.n_rows:,} rows (seed 0); QI {', '.join(qi)}; "
        f"sensitive {args.sensitive}; Anatomy ℓ = {args.l}: {release.n_groups:,} groups in "
        f"{made:.1f} s. Python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f} at start."
    )
    measures = _measures(release, args)
    single = {}
    for name, (run, _, _) in measures.items():
        single[name] = best(run, args.repeat)
    worker_counts = [int(w) for w in args.workers.split(",")]
    times: dict[int, dict[str, float]] = {}
    scatter: dict[int, float] = {}
    for n in worker_counts:
        cluster = LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
            silence_logs=40,
        )  # fmt: skip
        client = Client(cluster)
        try:
            client.wait_for_workers(n, timeout=120)
            t0 = time.perf_counter()
            parts = dm.partition_release(release, client)
            scatter[n] = time.perf_counter() - t0
            times[n] = {}
            for name, (_, run, same) in measures.items():
                secs, result = best(lambda run=run, parts=parts: run(parts), args.repeat)
                if not same(single[name][1], result):
                    raise SystemExit(f"{name}: {n} workers differ from the single machine")
                times[n][name] = secs
        finally:
            client.close()
            cluster.close()
    header = ["measure", "single machine"] + [f"{n} worker{'s' * (n > 1)}" for n in worker_counts]
    if 1 in times and 2 in times:
        header.append("1 / 2 workers")
    print(row(*header))
    print(row(*["---"] * len(header)))
    for name in measures:
        cells = [name, ms(single[name][0])] + [ms(times[n][name]) for n in worker_counts]
        if 1 in times and 2 in times:
            cells.append(f"{times[1][name] / times[2][name]:.2f}")
        print(row(*cells))
    cells = ["scatter the blocks (once)", "–"] + [ms(scatter[n]) for n in worker_counts]
    if 1 in times and 2 in times:
        cells.append("")
    print(row(*cells))
    print(f"load average {os.getloadavg()[0]:.1f} at the end; results equal on every run.")


if __name__ == "__main__":
    main()
