"""A whole release made by the workers from Parquet (issue 21): time against the number of
workers, the single-machine path on the same file, and the driver's peak memory.

    python benchmarks/bench_worker_release.py [--records 2000000] [--workers 1,2]
        [--algorithms mondrian,anatomy] [--row-group 250000] [--max-partition-rows 250000]
        [--repeat 3]

Writes census-kdd-workers resampled with replacement to ``--records`` records (seed 0; its
default roles: 7 quasi-identifiers, sensitive detailed_occupation_recode) to one Parquet file
with row groups of ``--row-group`` records. Then, ``--repeat`` times, in alternating order,
each configuration runs in a child process of its own (so its peak RSS is its own):

* ``one machine``: the same work without Dask, in one process: every row group read and coded
  (:func:`anonlab.distributed.worker_release.read_coded_frame`), the single-machine algorithm
  on the whole table, the published files written as Parquet
  (:func:`anonlab.release_io.export.write_published`); then the default privacy checks
  (:func:`anonlab.models.defaults.default_checks`) and the utility measures
  (:func:`anonlab.utility.defaults.default_measures`, ``--queries`` COUNT queries) and the
  re-identification measures (``anonlab utility``'s ``run_risk``, no population); ``--queries
  0`` leaves out the utility and risk measures (the device run, whose time is short).
* ``W workers``: a LocalCluster of W worker processes with one thread each (started before the
  clock), :func:`~anonlab.distributed.worker_release.anonymize_on_workers` (read on the
  workers, parts, P2P shuffle, per-part algorithm, per-worker writing), then
  :func:`~anonlab.distributed.written_checks.check_written_release`,
  :func:`~anonlab.distributed.written_measures.utility_of_written_release` and
  :func:`~anonlab.distributed.written_measures.risk_of_written_release` over the written
  parts ("records MB": the size of ``publisher/records``, which holds the records' codes).

Times are wall-clock medians; "driver peak" is the child's own peak RSS (the driver, without
its worker processes). ℓ = 4 for both algorithms; Mondrian's parts are its cuts down to
``--max-partition-rows``, Anatomy's ``ceil(n / max_partition_rows)`` random runs.

On this project's 2-core machines only ``--workers 1,2`` means anything; on a machine with 16
cores, ``--records 100000000 --workers 1,2,4,8,16`` is the issue's speed-up curve.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
L = 4
#: COUNT queries of the utility measures (``anonlab utility``'s default).
QUERIES = 10_000


def _timed(function, *args) -> float:
    """Seconds ``function(*args)`` took."""
    t0 = time.perf_counter()
    function(*args)
    return time.perf_counter() - t0


def _data(records: int, row_group: int, folder: pathlib.Path) -> pathlib.Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from anonlab import Table

    table = Table.from_dataset("census-kdd-workers").resample(records, 0)
    path = folder / "records.parquet"
    with pq.ParquetWriter(path, pa.Schema.from_pandas(table.take(np.arange(1)).to_frame(),
                                                      preserve_index=False)) as writer:  # fmt: skip
        for start in range(0, records, row_group):
            rows = np.arange(start, min(start + row_group, records))
            frame = table.take(rows).to_frame()
            writer.write_table(pa.Table.from_pandas(frame, preserve_index=False))
    return path


def _template():
    from anonlab import Table

    return Table.from_dataset("census-kdd-workers").take(np.zeros(0, dtype=np.int64))


def _peak() -> int:
    """This process's peak resident set size in bytes: ``VmHWM`` of /proc/self/status, which
    starts afresh at ``exec`` (``ru_maxrss`` does not: a child forked from a parent that holds
    the generated data would report the parent's size)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


def child_one_machine(path: str, algorithm: str, out: pathlib.Path, queries: int) -> dict:
    import pandas as pd
    import pyarrow.parquet as pq

    from anonlab.anonymize import anonymize
    from anonlab.cli.utility import run_risk
    from anonlab.distributed.worker_cuts import row_group_rows
    from anonlab.distributed.worker_input import ROW, read_coded_frame
    from anonlab.models.defaults import default_checks
    from anonlab.release_io.export import write_published
    from anonlab.table import Table
    from anonlab.utility.defaults import default_measures

    template = _template()
    names = list(template.schema.names)
    t0 = time.perf_counter()
    rows = row_group_rows(path)
    starts = np.concatenate([[0], np.cumsum(rows)[:-1]]).tolist()
    frames = [read_coded_frame(path, g, starts[g], names, template.values)
              for g in range(len(rows))]  # fmt: skip
    frame = pd.concat(frames, ignore_index=True)
    del frames
    codes = {n: frame[f"c{i}"].to_numpy() for i, n in enumerate(names)}
    table = Table(template.schema, codes, template.values, frame[ROW].to_numpy(),
                  template.dropped, template.types)  # fmt: skip
    del frame, codes
    release = anonymize(table, algorithm, seed=0, l=L)
    write_published(release, out, "parquet")
    total = time.perf_counter() - t0
    t1 = time.perf_counter()
    default_checks(release)
    checks = time.perf_counter() - t1
    utility = _timed(default_measures, release, queries) if queries else None
    risk = _timed(run_risk, release) if queries else None
    del pq
    return {"total": total, "checks": checks, "utility": utility, "risk": risk,
            "groups": int(release.n_groups), "peak": _peak()}  # fmt: skip


def child_workers(
    path: str, algorithm: str, workers: int, out: pathlib.Path, max_rows: int, queries: int
):
    import warnings

    from anonlab.distributed.worker_release import anonymize_on_workers
    from anonlab.distributed.written_checks import check_written_release
    from anonlab.distributed.written_measures import (
        open_written_parts,
        risk_of_written_release,
        utility_of_written_release,
    )
    from distributed import Client, LocalCluster

    template = _template()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40)  # fmt: skip
    with cluster, Client(cluster) as client:
        client.wait_for_workers(workers, timeout=120)
        received = [0]

        def count(kind, value):
            size = getattr(value, "nbytes", None)  # arrays and sparse histograms
            if size is None:  # summaries, checksums: their JSON text
                size = len(json.dumps(value, default=lambda o: np.asarray(o).tolist()))
            received[0] += int(size)

        t0 = time.perf_counter()
        result = anonymize_on_workers(client, path, template, algorithm, out, l=L,
                                      max_partition_rows=max_rows, force=True,
                                      on_gather=count)  # fmt: skip
        total = time.perf_counter() - t0
        t1 = time.perf_counter()
        check_written_release(client, out, template)
        checks = time.perf_counter() - t1
        utility = risk = None
        if queries:
            t1 = time.perf_counter()
            parts = open_written_parts(client, out)
            utility_of_written_release(client, parts, queries)
            utility = time.perf_counter() - t1
            risk = _timed(risk_of_written_release, client, parts)
    records = sum(f.stat().st_size for f in (out / "publisher" / "records").iterdir())
    return {"total": total, "checks": checks, "utility": utility, "risk": risk,
            "records_bytes": records,
            "groups": result.n_groups, "peak": _peak(),
            "parts": result.n_parts, "stages": result.timings,
            "received_bytes": received[0]}  # fmt: skip


def _run_child(args, config: str, algorithm: str, path: pathlib.Path, work: pathlib.Path):
    out = work / f"out-{config}-{algorithm}"
    argv = [sys.executable, __file__, "--child", config, "--algorithm", algorithm,
            "--path", str(path), "--out", str(out),
            "--max-partition-rows", str(args.max_partition_rows),
            "--queries", str(args.queries)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ))
    shutil.rmtree(out, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"{config} {algorithm} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _s(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds:.2f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or not b else f"{a / b:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--algorithms", default="mondrian,anatomy")
    parser.add_argument("--row-group", type=int, default=250_000)
    parser.add_argument("--max-partition-rows", type=int, default=250_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--algorithm", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--path", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        out = pathlib.Path(args.out)
        if args.child == "one":
            answer = child_one_machine(args.path, args.algorithm, out, args.queries)
        else:
            answer = child_workers(args.path, args.algorithm, int(args.child), out,
                                   args.max_partition_rows, args.queries)  # fmt: skip
        print(json.dumps(answer))
        return

    sys.path.insert(0, str(HERE))
    from timing import cpu_name

    workers = [int(w) for w in args.workers.split(",")]
    algorithms = args.algorithms.split(",")
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-worker-release-", dir=args.workdir))
    try:
        t0 = time.perf_counter()
        path = _data(args.records, args.row_group, work)
        print(f"{cpu_name()}, {os.cpu_count()} CPUs; census-kdd-workers resampled to "
              f"{args.records:,} records (seed 0), row groups of {args.row_group:,}, parts of "
              f"at most {args.max_partition_rows:,}, ℓ = {L}; data written in "
              f"{time.perf_counter() - t0:.1f} s; median of {args.repeat}", flush=True)  # fmt: skip
        configs = ["one", *map(str, workers)]
        results: dict = {}
        for r in range(args.repeat):
            order = configs if r % 2 == 0 else configs[::-1]  # alternate
            # Configuration outermost, in the order given: a run cut short by a time limit
            # (the device machine's) still has both algorithms for the configurations it reached.
            for config in order:
                for algorithm in algorithms:
                    answer = _run_child(args, config, algorithm, path, work)
                    results.setdefault((algorithm, config), []).append(answer)
                    print(f"  run {r + 1} {algorithm} {config}: {answer['total']:.2f} s "
                          f"{json.dumps(answer)}", file=sys.stderr, flush=True)  # fmt: skip
        print()
        print(
            "| algorithm | path | groups | parts | total s | read+parts s | shuffle s | "
            "anonymize s | write s | vs one machine | speed-up vs 1 worker | checks s | "
            "checks vs one machine | utility s | utility vs one machine | risk s | "
            "risk vs one machine | records MB | driver peak | driver received |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for algorithm in algorithms:
            one = results[(algorithm, "one")]
            one_total = statistics.median(a["total"] for a in one)
            one_checks = statistics.median(a["checks"] for a in one)
            one_utility = _median(a["utility"] for a in one)
            one_risk = _median(a["risk"] for a in one)
            # The speed-up is against 1 worker wherever it stands in --workers' order.
            base = "1" if (algorithm, "1") in results else str(workers[0])
            first = statistics.median(a["total"] for a in results[(algorithm, base)])
            for config in configs:
                runs = results[(algorithm, config)]
                total = statistics.median(a["total"] for a in runs)
                checks = statistics.median(a["checks"] for a in runs)
                utility = _median(a["utility"] for a in runs)
                risk = _median(a["risk"] for a in runs)
                peak = max(a["peak"] for a in runs) / 2**20
                if config == "one":
                    print(
                        f"| {algorithm} | one machine | {runs[0]['groups']:,} | | {total:.2f} "
                        f"| | | | | 1 | | {checks:.2f} | 1 | {_s(utility)} | "
                        f"{'—' if utility is None else 1} | {_s(risk)} | "
                        f"{'—' if risk is None else 1} | | "
                        f"{peak:,.0f} MB | |"
                    )
                    continue
                stage = {k: statistics.median(a["stages"][k] for a in runs)
                         for k in ("parts", "shuffle", "anonymize", "write")}  # fmt: skip
                received = max(a["received_bytes"] for a in runs) / 2**20
                print(f"| {algorithm} | {config} workers | {runs[0]['groups']:,} | "
                      f"{runs[0]['parts']} | {total:.2f} | {stage['parts']:.2f} | "
                      f"{stage['shuffle']:.2f} | {stage['anonymize']:.2f} | "
                      f"{stage['write']:.2f} | {total / one_total:.2f} | "
                      f"{first / total:.2f} | {checks:.2f} | {checks / one_checks:.2f} | "
                      f"{_s(utility)} | {_ratio(utility, one_utility)} | "
                      f"{_s(risk)} | {_ratio(risk, one_risk)} | "
                      f"{runs[0]['records_bytes'] / 2**20:.1f} | "
                      f"{peak:,.0f} MB | {received:.2f} MB |")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
