"""The Dask backend on this machine: 1 vs 2 workers, census-kdd-workers resampled (issue 10 §2).

For each size (default 1M and 3M records drawn with replacement by ``Table.resample``, seed 0)
and algorithm (ℓ = 4, sensitive attribute detailed_occupation_recode, the dataset's default
quasi-identifiers), prints:

* the single-machine time (``anonlab.anonymize.anonymize``, in this process);
* for 1 and 2 local workers (one thread each): the wall time of ``anonymize_distributed``, split
  into driver partitioning, the cluster (ship parts, run, gather) and the combination; the number
  of parts; and the per-part cost on a worker (median seconds per part and microseconds per
  record), which is what docs/distributed.md extrapolates to 100 nodes and 10⁹ records;
* the speed-up of 2 workers over 1 and the ratio distributed(2) / single machine.

There is no paper figure to compare with (no paper distributes these algorithms). Times are wall
clock; on a loaded machine say so (the lead reruns on a quiet one). Run::

    /work/venv/bin/python benchmarks/bench_distributed.py [--rows 1000000,3000000]
        [--algorithms mondrian,mondrian++,anatomy,hilb] [--max-partition-rows 250000]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from anonlab.anonymize import anonymize
from anonlab.distributed import connect
from anonlab.distributed.anonymize import anonymize_distributed_timed
from anonlab.table import Table

L = 4


def _row(cells: list[object], widths: list[int]) -> str:
    return "  ".join(str(c).rjust(w) for c, w in zip(cells, widths, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="1000000,3000000")
    parser.add_argument("--algorithms", default="mondrian,mondrian++,anatomy,hilb")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--max-partition-rows", type=int, default=250_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(x) for x in args.rows.split(",")]
    algorithms = args.algorithms.split(",")
    worker_counts = [int(x) for x in args.workers.split(",")]

    base = Table.from_dataset("census-kdd-workers")
    tables = {n: base.resample(n, args.seed) for n in sizes}
    warm = base.resample(20_000, args.seed)

    single: dict[tuple[str, int], float] = {}
    for algorithm in algorithms:
        anonymize(warm, algorithm, l=L)  # numba caches loaded before timing
        for n, table in tables.items():
            t0 = time.perf_counter()
            anonymize(table, algorithm, l=L, seed=args.seed)
            single[algorithm, n] = time.perf_counter() - t0

    results: dict[tuple[str, int, int], dict] = {}
    for workers in worker_counts:
        with connect(workers=workers) as client:
            for algorithm in algorithms:  # warm every worker (numba caches, imports)
                anonymize_distributed_timed(
                    warm, algorithm, client, n_partitions=2 * workers, l=L, seed=args.seed
                )
            for algorithm in algorithms:
                for n, table in tables.items():
                    t0 = time.perf_counter()
                    release, timing = anonymize_distributed_timed(
                        table,
                        algorithm,
                        client,
                        max_partition_rows=args.max_partition_rows,
                        l=L,
                        seed=args.seed,
                    )
                    total = time.perf_counter() - t0
                    rows = release.manifest["distributed"]["partition_rows"]
                    per_part = timing["partition_seconds"]
                    results[algorithm, n, workers] = {
                        "total": total,
                        "driver": timing["driver_seconds"],
                        "cluster": timing["cluster_seconds"],
                        "combine": total - timing["driver_seconds"] - timing["cluster_seconds"],
                        "parts": len(rows),
                        "largest_part": max(rows),
                        "merges": release.manifest["distributed"]["merges"],
                        "part_median_s": statistics.median(per_part),
                        "us_per_record": 1e6 * float(np.sum(per_part)) / n,
                        "groups": release.n_groups,
                    }

    header = [
        "algorithm",
        "rows",
        "single s",
        "workers",
        "total s",
        "driver s",
        "cluster s",
        "combine s",
        "parts",
        "largest",
        "merges",
        "part med s",
        "µs/record",
        "2w speed-up",
        "dist/single",
    ]
    widths = [10, 9, 8, 7, 7, 8, 9, 9, 5, 8, 6, 10, 9, 11, 11]
    print(
        f"census-kdd-workers resampled (seed {args.seed}), ℓ = {L}, "
        f"max_partition_rows = {args.max_partition_rows:,}; wall-clock seconds"
    )
    print(_row(header, widths))
    for algorithm in algorithms:
        for n in sizes:
            for workers in worker_counts:
                r = results[algorithm, n, workers]
                one = results.get((algorithm, n, 1))
                speedup = one["total"] / r["total"] if one and workers > 1 else ""
                print(
                    _row(
                        [
                            algorithm,
                            f"{n:,}",
                            f"{single[algorithm, n]:.2f}",
                            workers,
                            f"{r['total']:.2f}",
                            f"{r['driver']:.2f}",
                            f"{r['cluster']:.2f}",
                            f"{r['combine']:.2f}",
                            r["parts"],
                            f"{r['largest_part']:,}",
                            r["merges"],
                            f"{r['part_median_s']:.3f}",
                            f"{r['us_per_record']:.2f}",
                            f"{speedup:.2f}" if speedup != "" else "",
                            f"{r['total'] / single[algorithm, n]:.2f}",
                        ],
                        widths,
                    )
                )


if __name__ == "__main__":
    main()
