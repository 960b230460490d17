"""Mondrian's cuts with the records on the workers (issue 21): time against the number of
workers, and what the driver receives.

    python benchmarks/bench_worker_cuts.py [--records 2000000] [--workers 1,2]
        [--row-group 250000] [--max-partition-rows 250000] [--repeat 3] [--before-src PATH]

Writes census-kdd-workers resampled with replacement to ``--records`` records (seed 0; its
default quasi-identifiers and sensitive attribute, as values) to a Parquet file with row groups
of ``--row-group`` records, then for each worker count starts a LocalCluster (one thread per
worker process) and times :func:`anonlab.distributed.worker_cuts.mondrian_cuts_on_workers`
(ℓ = 4, Mondrian's cuts down to ``--max-partition-rows``): the blocks are read and coded on the
workers, every level's histograms summed by tasks, and only the reduced histograms (and each
row group's distinct values) reach the driver, whose bytes are counted through ``on_gather``.
The single-machine reference (:func:`~anonlab.distributed.partitioning.mondrian_cuts` on the
whole coded table, in this process) is timed too, and the parts are checked equal once.

``--before-src`` points at the ``src`` folder of a copy from before a change (put first on
``PYTHONPATH`` of a child process, and so of its worker processes): the file is written once,
then ``--repeat`` rounds each run "before" and "after" in a child of its own (one timed call
per worker count, after a warm-up), the two alternating, and the table gives both medians —
on a shared machine, timings taken apart drift more than the change being measured.

On this project's 2-core machines only ``--workers 1,2`` means anything; on a machine with 16
cores, ``--records 100000000 --workers 1,2,4,8,16`` is the issue's speed-up curve (the script
prints the Markdown table; median of ``--repeat``; cluster start-up is not timed).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from timing import cpu_name, row

HERE = pathlib.Path(__file__).resolve().parent


def _table(records: int):
    from anonlab import Table

    table = Table.from_dataset("census-kdd-workers").resample(records, 0)
    return table, list(table.quasi_identifiers), table.sensitive


def _write(table, qi, sensitive, row_group: int, folder: pathlib.Path) -> pathlib.Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = table.to_frame()[[*qi, sensitive]]
    path = folder / "records.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path,
                   row_group_size=row_group)  # fmt: skip
    return path


def measure(path: pathlib.Path, table, qi, sensitive, counts, repeat: int, max_rows: int):
    """(seconds of ``mondrian_cuts`` in this process, one row per worker count: (workers,
    median seconds, parts, levels, histogram bytes the driver received))."""
    from anonlab.distributed.partitioning import mondrian_cuts
    from anonlab.distributed.worker_cuts import mondrian_cuts_on_workers
    from distributed import Client, LocalCluster

    domains = {name: table.values[name] for name in [*qi, sensitive]}
    codes = table.qi_matrix()
    width = np.array([table.domain_size(a) - 1 for a in qi], dtype=np.int64)
    constrained = np.ones(table.domain_size(sensitive), dtype=bool)
    kw = dict(k=1, l=4, look_ahead=False, max_partition_rows=max_rows)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        reference = mondrian_cuts(codes, table.codes[sensitive], constrained, width, **kw)
        times.append(time.perf_counter() - start)
    one_machine = statistics.median(times)
    rows = []
    for workers in counts:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)  # fmt: skip
        with cluster, Client(cluster) as client:
            received = []

            def count(kind, value, received=received):
                received.append((kind, int(getattr(value, "nbytes", 0)
                                            if not isinstance(value, list)
                                            else sum(v.nbytes for v in value))))  # fmt: skip

            times, result = [], None
            for i in range(repeat + 1):  # the first run warms the workers up
                received.clear()
                start = time.perf_counter()
                result = mondrian_cuts_on_workers(
                    client, str(path), qi, sensitive, None, domains=domains,
                    gather_parts=(i == 0), on_gather=count, **kw,
                )  # fmt: skip
                if i:
                    times.append(time.perf_counter() - start)
                else:
                    assert np.array_equal(result.part, reference.part), "parts differ"
                    assert result.n_parts == reference.n_parts
            histogram_bytes = sum(b for kind, b in received if kind == "histogram")
            levels = sum(1 for kind, _ in received if kind == "histogram")
            rows.append((workers, statistics.median(times), result.n_parts, levels,
                         histogram_bytes))  # fmt: skip
    return one_machine, rows


def _child(args) -> None:
    """One measurement (``--repeat`` timed calls per worker count) of ``--parquet``, printed as
    JSON on the last line: what a ``--before-src`` round runs in each variant."""
    table, qi, sensitive = _table(args.records)
    counts = [int(w) for w in args.workers.split(",")]
    one, rows = measure(pathlib.Path(args.parquet), table, qi, sensitive, counts, args.repeat,
                        args.max_partition_rows)  # fmt: skip
    print(json.dumps({"one_machine": one, "rows": rows}))


def _compare(args, counts) -> None:
    """``--before-src``: rounds of before / after children, alternating; both medians."""
    table, qi, sensitive = _table(args.records)
    seconds: dict[tuple[str, int], list[float]] = {}
    info = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(table, qi, sensitive, args.row_group, pathlib.Path(tmp))
        del table
        for r in range(args.repeat):
            order = ("before", "after") if r % 2 == 0 else ("after", "before")
            for variant in order:
                env = dict(os.environ)
                if variant == "before":
                    env["PYTHONPATH"] = os.pathsep.join(
                        p for p in (args.before_src, env.get("PYTHONPATH")) if p
                    )
                argv = [sys.executable, __file__, "--child", "--parquet", str(path),
                        "--records", str(args.records), "--workers", args.workers,
                        "--max-partition-rows", str(args.max_partition_rows),
                        "--repeat", "1"]  # fmt: skip
                done = subprocess.run(argv, capture_output=True, text=True, env=env)
                if done.returncode != 0:
                    raise SystemExit(f"{variant} failed:\n{done.stderr[-3000:]}")
                answer = json.loads(done.stdout.strip().splitlines()[-1])
                for workers, sec, parts, levels, received in answer["rows"]:
                    seconds.setdefault((variant, workers), []).append(sec)
                    info[variant, workers] = (parts, levels, received)
    print("## Mondrian's cuts with the records on the workers: before / after\n")
    print(f"{cpu_name()}; census-kdd-workers resampled to {args.records:,} records (seed 0), "
          f"row groups of {args.row_group:,}, ℓ = 4, parts of at most "
          f"{args.max_partition_rows:,}; median of {args.repeat} alternating rounds; before: "
          f"`{args.before_src}`.\n")  # fmt: skip
    print("| workers | before | after | before / after | parts | levels | histogram bytes "
          "(before, after) |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for workers in counts:
        before = statistics.median(seconds["before", workers])
        after = statistics.median(seconds["after", workers])
        parts, levels, received = info["after", workers]
        print(row(workers, f"{before:.2f} s", f"{after:.2f} s", f"{before / after:.2f}×",
                  parts, levels, f"{info['before', workers][2]:,}, {received:,}"))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--row-group", type=int, default=250_000)
    parser.add_argument("--max-partition-rows", type=int, default=250_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before-src", default=None)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--parquet", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    counts = [int(w) for w in args.workers.split(",")]
    if args.before_src:
        _compare(args, counts)
        return
    table, qi, sensitive = _table(args.records)
    with tempfile.TemporaryDirectory() as tmp:
        path = _write(table, qi, sensitive, args.row_group, pathlib.Path(tmp))
        one_machine, rows = measure(path, table, qi, sensitive, counts, args.repeat,
                                    args.max_partition_rows)  # fmt: skip
    print("## Mondrian's cuts with the records on the workers\n")
    print(f"{cpu_name()}; census-kdd-workers resampled to {args.records:,} records (seed 0), "
          f"row groups of {args.row_group:,}, ℓ = 4, parts of at most "
          f"{args.max_partition_rows:,}; median of {args.repeat}.\n")  # fmt: skip
    print("| workers | cuts on the workers | one machine (`mondrian_cuts`, records in memory) | "
          "parts | levels | bytes the driver received (histograms) | vs 1 worker |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    # against 1 worker wherever it stands in --workers' order
    first = next((r[1] for r in rows if r[0] == 1), rows[0][1])
    for workers, seconds, parts, levels, received in rows:
        print(row(workers, f"{seconds:.2f} s", f"{one_machine:.2f} s", parts, levels,
                  f"{received:,}", f"{first / seconds:.2f}×"))  # fmt: skip


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
