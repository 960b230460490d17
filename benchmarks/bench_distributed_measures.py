"""Map-reduce measures on Dask (issue 10, §2): 1 vs 2 local workers against the single machine.

    python benchmarks/bench_distributed_measures.py [--rows 1000000] [--workers 1,2]
        [--queries 2000] [--l 4] [--target "Farming forestry and fishing"] [--repeat 3]
        [--rules negative|association] [--rule-conditions N] [--only NAME,...]

Settings: census-kdd-workers (49,479 rows) resampled with replacement to ``--rows`` records
(``Table.resample``, seed 0), default QI (age, sex, race, marital_stat, education,
class_of_worker, country_of_birth_self), sensitive ``--sensitive`` (default
major_occupation_code, 14 values); release: Anatomy ℓ = ``--l`` (seed 0; built once, not
timed). Measures timed:

* **checks**: ``anonlab check``'s default models (k, ℓ, distinct/entropy/recursive ℓ, t, m);
* **workload**: ``--queries`` COUNT queries, qd = 3, s = 0.05, seed 0 (drawing included);
* **foreground**: Algorithm 1 with attribute sets of at most one attribute (the empty set
  included), target ``major``-level value ``--target`` of the sensitive attribute;
* **rules**: rule mining on the resampled table (not the release): ``--rules negative``
  (default; Li and Li's negative rules, minExp 0.9) or ``association`` (min support 0.01,
  min conviction 1.5), with at most ``--rule-conditions`` conditions (default 2 for negative,
  3 for association rules): ``mine_rules_distributed`` vs ``mine_negative_rules`` /
  ``mine_association_rules``.

Columns: the single-machine function (no Dask), then each LocalCluster size (processes, one
thread each, Dask's default worker settings; the blocks scattered once beforehand, twice as many
blocks as workers, the scatter timed separately up to the blocks being on the workers), the
ratio 1 worker / single machine and the ratio 1 worker / 2 workers. The clusters are started
together and the configurations alternate run by run (single, 1 worker, 2 workers, then
again), so load that comes and goes on a shared machine falls on all of them; each cell is the
**median** of ``--repeat`` runs after one warm-up run of every configuration. Results are
checked equal to the single machine's on every run. No paper reports these numbers; there is
no paper column. State the load when quoting them.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

from anonlab.anonymize import anatomy
from anonlab.attacks.foreground import foreground_attack
from anonlab.distributed import measures as dm
from anonlab.mining import mine_association_rules, mine_negative_rules
from anonlab.models.defaults import default_checks
from anonlab.table import Table
from anonlab.utility import workload_error
from timing import ms, row


def _rules(table, args):
    """(label, single-machine callable, distributed callable(table parts))."""
    if args.rules == "negative":
        k = 2 if args.rule_conditions is None else args.rule_conditions
        label = f"rules (negative, minExp 0.9, <= {k} conditions)"
        return (
            label,
            lambda: mine_negative_rules(table, 0.9, k),
            lambda parts: dm.mine_rules_distributed(
                table, "negative", min_expectation=0.9, max_conditions=k, partitions=parts
            ),
        )
    k = 3 if args.rule_conditions is None else args.rule_conditions
    label = f"rules (association, support 0.01, conviction 1.5, <= {k} conditions)"
    return (
        label,
        lambda: mine_association_rules(table, 0.01, 1.5, k),
        lambda parts: dm.mine_rules_distributed(
            table, "association", min_support=0.01, min_conviction=1.5, max_conditions=k,
            partitions=parts,
        ),
    )  # fmt: skip


def _measures(release, table, args):
    """name -> (single-machine callable, distributed callable(release parts, table parts),
    equality check)."""
    targets = [[args.target]]
    fg = {"max_attributes": 1}
    rules_label, rules_single, rules_dist = _rules(table, args)
    measures = {
        "checks (7 models)": (
            lambda: default_checks(release),
            lambda parts, _: dm.default_checks_distributed(release, partitions=parts),
            lambda a, b: [x.to_json() for x in a] == [y.to_json() for y in b],
        ),
        f"workload ({args.queries:,} queries)": (
            lambda: workload_error(release, n_queries=args.queries),
            lambda parts, _: dm.workload_error_distributed(
                release, n_queries=args.queries, partitions=parts
            ),
            lambda a, b: (
                np.array_equal(a.actual, b.actual)
                and np.allclose(a.estimated, b.estimated, rtol=1e-12, atol=0)
            ),
        ),
        "foreground (sets of <= 1 attribute)": (
            lambda: foreground_attack(release, targets, **fg),
            lambda parts, _: dm.foreground_attack_distributed(
                release, targets, partitions=parts, **fg
            ),
            lambda a, b: (
                np.array_equal(a.p_star, b.p_star) and a.attribute_sets == b.attribute_sets
            ),
        ),
        rules_label: (
            rules_single,
            lambda _, table_parts: rules_dist(table_parts),
            lambda a, b: a.to_json() == b.to_json(),
        ),
    }
    if args.only:
        keep = [w.strip() for w in args.only.split(",")]
        measures = {k: v for k, v in measures.items() if any(k.startswith(w) for w in keep)}
    return measures


def _timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--l", type=int, default=4)
    parser.add_argument("--target", default="Farming forestry and fishing")
    parser.add_argument("--sensitive", default="major_occupation_code")
    parser.add_argument("--rules", choices=("negative", "association"), default="negative")
    parser.add_argument("--rule-conditions", type=int, default=None)
    parser.add_argument("--only", default="", help="comma-separated measure name prefixes")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from distributed import Client, LocalCluster, wait

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
        f"load average {os.getloadavg()[0]:.1f} at start; median of {args.repeat} alternating "
        "runs after a warm-up."
    )
    measures = _measures(release, table, args)
    worker_counts = [int(w) for w in args.workers.split(",")]
    clusters, scatter = {}, {}
    try:
        for n in worker_counts:
            cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                silence_logs=40,
            )  # fmt: skip
            client = Client(cluster)
            client.wait_for_workers(n, timeout=120)
            t0 = time.perf_counter()
            parts = dm.partition_release(release, client)
            table_parts = dm.partition_table(table, client)
            wait(list(parts.futures) + list(table_parts.futures))
            scatter[n] = time.perf_counter() - t0
            clusters[n] = (cluster, client, parts, table_parts)
        configs = ["single"] + worker_counts
        times: dict = {(name, c): [] for name in measures for c in configs}
        for name, (single, dist, same) in measures.items():
            reference = None
            for rep in range(args.repeat + 1):  # the first round is the warm-up
                for c in configs:
                    if c == "single":
                        secs, result = _timed(single)
                        reference = result
                    else:
                        _, _, parts, table_parts = clusters[c]
                        secs, result = _timed(lambda: dist(parts, table_parts))  # noqa: B023
                        if not same(reference, result):
                            raise SystemExit(f"{name}: {c} workers differ from the single machine")
                    if rep:
                        times[(name, c)].append(secs)
                    # As it goes, so a run cut short by a time limit keeps what it measured.
                    print(f"  {name} {c}: {secs:.3f} s{'' if rep else ' (warm-up)'}",
                          file=sys.stderr, flush=True)  # fmt: skip
    finally:
        for cluster, client, *_ in clusters.values():
            client.close()
            cluster.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    header = ["measure", "single machine"] + [f"{n} worker{'s' * (n > 1)}" for n in worker_counts]
    if 1 in worker_counts:
        header.append("1 worker / single")
    if 1 in worker_counts and 2 in worker_counts:
        header.append("1 / 2 workers")
    print(row(*header))
    print(row(*["---"] * len(header)))
    for name in measures:
        cells = [name, ms(med[(name, "single")])] + [ms(med[(name, n)]) for n in worker_counts]
        if 1 in worker_counts:
            cells.append(f"{med[(name, 1)] / med[(name, 'single')]:.2f}")
        if 1 in worker_counts and 2 in worker_counts:
            cells.append(f"{med[(name, 1)] / med[(name, 2)]:.2f}")
        print(row(*cells))
    cells = ["scatter the blocks (once, release + table)", "–"]
    cells += [ms(scatter[n]) for n in worker_counts]
    cells += [""] * (len(header) - len(cells))
    print(row(*cells))
    print(f"load average {os.getloadavg()[0]:.1f} at the end; results equal on every run.")
    print("runs (s): " + "; ".join(
        f"{name.split(' ')[0]} {c}: " + " ".join(f"{t:.3f}" for t in times[(name, c)])
        for name in measures for c in ["single"] + worker_counts
    ))  # fmt: skip


if __name__ == "__main__":
    main()
