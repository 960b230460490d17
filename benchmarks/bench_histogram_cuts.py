"""The driver's side of Mondrian's histogram rounds, simulated at 1,024 open partitions (issue 21).

docs/distributed.md ("Plan: 10⁹ records on 100 nodes", item 2) has the driver cut the table from
map-reduced histograms. This measures the two halves of one level of that loop with
:mod:`anonlab.distributed.histogram_cuts`, on census-kdd-workers' real domains (7 QIs, Σ domains
= 155, 46 sensitive values):

* the reduced histograms of 1,024 open partitions: census-kdd-workers resampled with replacement
  (``Table.resample``, seed 0, ``--rows`` records) and cut by ``mondrian_cuts`` (ℓ = 4) into
  parts; the first 1,024 parts are the partitions the next level cuts, and their joint
  histograms are what the driver would have reduced;
* the driver's decision (:func:`decide_cuts`) for that level, Mondrian ℓ = 4 (the ℓ-diversity
  tests, the costlier path) and Mondrian+ ℓ = 4, median of 5 runs;
* the size of the level's histogram (dense int64; it is both what one worker sends and what the
  driver holds after the reduce), its share of non-zero cells, and the plan's two-round sizes
  for comparison;
* the worker's map (:func:`level_histograms`) on one block of 1,000,000 records of the open
  partitions, and the worker's :func:`apply_cuts` on it (Mondrian ℓ = 4's decisions), median
  of 5.

Run::

    python benchmarks/bench_histogram_cuts.py [--rows 4000000] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from anonlab.distributed.histogram_cuts import (
    CUT,
    apply_cuts,
    decide_cuts,
    histogram_width,
    level_histograms,
)
from anonlab.distributed.partitioning import mondrian_cuts
from anonlab.table import Table
from timing import cpu_name, ms, row

N_OPEN = 1024
BLOCK = 1_000_000
L = 4


def median_time(fn, repeat: int = 5) -> tuple[float, object]:
    fn()  # warm-up
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    base = Table.from_dataset("census-kdd-workers")
    table = base.resample(args.rows, args.seed)
    sens = table.require_sensitive()
    qi = table.qi_matrix()
    sensitive = table.codes[table.sensitive].astype(np.int64)
    constrained = table.value_mask(sens, None)
    domains = [table.domain_size(q) for q in table.quasi_identifiers]
    width = np.array(domains, dtype=np.int64) - 1
    n_values = len(constrained)

    # partitions of the level: Mondrian (ℓ = 4) leaves, at least 1,024 of them
    max_rows = args.rows // (2 * N_OPEN)
    cut = mondrian_cuts(
        qi, sensitive, constrained, width, k=1, l=L, look_ahead=False, max_partition_rows=max_rows
    )
    assert cut.n_parts >= N_OPEN, cut.n_parts
    open_row = np.where(np.arange(cut.n_parts) < N_OPEN, np.arange(cut.n_parts), -1)
    hist = level_histograms(qi, sensitive, cut.part, open_row, domains, n_values)
    in_level = int(hist[:, : domains[0] * n_values].sum())

    rows, decisions = [], []
    for name, k, look_ahead in [("Mondrian ℓ = 4", 1, False), ("Mondrian+ ℓ = 4", 1, True)]:
        seconds, decision = median_time(
            lambda k=k, look_ahead=look_ahead: decide_cuts(
                hist,
                domains,
                constrained,
                width,
                k=k,
                l=L,
                look_ahead=look_ahead,
                max_partition_rows=1,
            )
        )
        decisions.append(decision)
        n_cut = int((decision.action == CUT).sum())
        rows.append((f"driver: `decide_cuts`, {name}", ms(seconds), f"{n_cut} of {N_OPEN} cut"))

    # the worker's map and apply on one block of 1M records of the open partitions
    block = np.flatnonzero(cut.part < N_OPEN)[:BLOCK]
    assert len(block) == BLOCK, len(block)
    decision = decisions[0]
    q_block, s_block = qi[block], sensitive[block]
    p_block = cut.part[block].astype(np.int64)
    seconds, _ = median_time(
        lambda: level_histograms(q_block, s_block, p_block, open_row, domains, n_values)
    )
    rows.append((f"worker: `level_histograms`, {BLOCK:,} records", ms(seconds), ""))
    table_ = np.full((cut.n_parts + 2 * N_OPEN, 4), -1, dtype=np.int64)
    table_[:N_OPEN] = np.column_stack(
        [
            decision.attribute,
            decision.threshold,
            cut.n_parts + 2 * np.arange(N_OPEN),
            cut.n_parts + 2 * np.arange(N_OPEN) + 1,
        ]
    )
    seconds, _ = median_time(lambda: apply_cuts(q_block, p_block, table_))
    rows.append((f"worker: `apply_cuts`, {BLOCK:,} records", ms(seconds), ""))

    block_hist = level_histograms(q_block, s_block, p_block, open_row, domains, n_values)
    per_part = histogram_width(domains, n_values)
    dense = hist.nbytes
    two_rounds = N_OPEN * ((sum(domains) + n_values) + len(domains) * (1 + n_values)) * 8

    print(f"Machine: {cpu_name()}\n")
    print(
        f"census-kdd-workers resampled to {args.rows:,} records (seed {args.seed}); "
        f"{N_OPEN:,} open partitions ({in_level:,} records) from `mondrian_cuts` (ℓ = 4, "
        f"max_partition_rows = {max_rows:,}); domains {domains} (Σ = {sum(domains)}), "
        f"{n_values} sensitive values; median of 5 runs.\n"
    )
    print(row("step", "time", "note"))
    print(row("---", "---", "---"))
    for r in rows:
        print(row(*r))
    print()
    print(row("histogram of one level", "size"))
    print(row("---", "---"))
    print(row("integers per open partition (Σ domains × values)", f"{per_part:,}"))
    print(
        row(
            f"per level = per worker message, dense int64 ({N_OPEN:,} × {per_part:,})",
            f"{dense / 1e6:.1f} MB",
        )
    )
    print(row("same as int32", f"{dense / 2e6:.1f} MB"))
    nz_level = np.count_nonzero(hist) / hist.size
    nz_block = np.count_nonzero(block_hist) / block_hist.size
    print(row("non-zero cells, reduced level", f"{nz_level:.1%}"))
    print(row(f"non-zero cells, one block of {BLOCK:,}", f"{nz_block:.1%}"))
    from anonlab.distributed.worker_cuts import SparseHistogram

    sent_block = SparseHistogram.of(block_hist).nbytes
    sent_level = SparseHistogram.of(hist).nbytes
    print(row(f"as sent (`SparseHistogram`), one block of {BLOCK:,}", f"{sent_block / 1e6:.2f} MB"))
    print(row("as sent (`SparseHistogram`), reduced level", f"{sent_level / 1e6:.2f} MB"))
    print(
        row(
            "plan's two rounds (Σ domains + values, then d × (1 + values)), int64",
            f"{two_rounds / 1e6:.1f} MB",
        )
    )


if __name__ == "__main__":
    main()
