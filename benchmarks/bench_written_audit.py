"""The audit of a release the workers wrote, against the single machine's audit of the same
groups: time and the driver's peak memory (issue 21).

    python benchmarks/bench_written_audit.py [--records 2000000] [--workers 2]
        [--algorithms mondrian,anatomy] [--queries 10000] [--repeat 1]

census-kdd-workers resampled to ``--records`` records (seed 0; its default roles: 7
quasi-identifiers, sensitive detailed_occupation_recode), one Parquet file with row groups of
250,000; ℓ = 4; parts of at most 250,000 records. The release is written once per algorithm by
:func:`~anonlab.distributed.worker_release.anonymize_on_workers` on a LocalCluster of
``--workers`` processes (one thread each). Then, alternating, each in a child process of its
own (peak = the child's ``VmHWM``, which starts afresh at ``exec``):

* ``workers``: :func:`anonlab.distributed.written_audit.audit_written_release` on a new
  LocalCluster of ``--workers`` processes (started before the clock; the driver's peak is the
  child's own, without its worker processes);
* ``one machine``: the records read back and given their published group ids
  (``publisher/records``), then :func:`anonlab.report.audit.audit` of that release in this
  process (the reading is not timed).

Both run the stages the workers' audit runs (checks, foreground, negative-rules, worst-case,
risk, utility, distributions) with the audit's default budget but ``--queries``, seed 0; per
stage times are printed. On this project's 2-core machines the cluster's workers and the
driver share the two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
L = 4
STAGES = ["checks", "foreground", "negative-rules", "worst-case", "risk", "utility",
          "distributions"]  # fmt: skip


def _peak() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _cluster(workers: int):
    import warnings

    from distributed import LocalCluster

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                            dashboard_address=None, silence_logs=40)  # fmt: skip


def _write(records: int, algorithm: str, workers: int, folder: pathlib.Path) -> pathlib.Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from anonlab import Table
    from anonlab.distributed.worker_release import anonymize_on_workers
    from distributed import Client

    data = folder / "records.parquet"
    if not data.exists():
        table = Table.from_dataset("census-kdd-workers").resample(records, 0)
        frame = table.to_frame()
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), data,
                       row_group_size=250_000)  # fmt: skip
    out = folder / f"release-{algorithm}"
    template = Table.from_dataset("census-kdd-workers").take(np.zeros(0, dtype=np.int64))
    with _cluster(workers) as cluster, Client(cluster) as client:
        anonymize_on_workers(client, str(data), template, algorithm, out, l=L,
                             max_partition_rows=250_000)  # fmt: skip
    return out


def child_workers(path: str, workers: int, queries: int) -> dict:
    from anonlab.distributed.written_audit import audit_written_release
    from distributed import Client

    with _cluster(workers) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers, timeout=120)
        t0 = time.perf_counter()
        result = audit_written_release(client, path, stages=STAGES, queries=queries)
        total = time.perf_counter() - t0
    return {"total": total, "peak": _peak(),
            "stages": {f.key: f.seconds for f in result.findings},
            "verdicts": {f.key: f.verdict for f in result.findings}}  # fmt: skip


def child_one(path: str, records: int, queries: int) -> dict:
    import pandas as pd

    from anonlab import Table
    from anonlab.release import Release
    from anonlab.report.audit import audit

    table = Table.from_dataset("census-kdd-workers").resample(records, 0)
    rows = pd.read_parquet(pathlib.Path(path) / "publisher" / "records", columns=["row", "group"])
    group = np.empty(records, dtype=np.int64)
    group[rows["row"].to_numpy()] = rows["group"].to_numpy()
    del rows
    manifest = json.loads((pathlib.Path(path) / "publisher" / "manifest.json").read_text())
    scheme = manifest["scheme"]
    release = Release(table, group, scheme, {"algorithm": manifest["algorithm"],
                                             "parameters": manifest["parameters"]})  # fmt: skip
    t0 = time.perf_counter()
    result = audit(release, stages=STAGES, queries=queries)
    total = time.perf_counter() - t0
    return {"total": total, "peak": _peak(),
            "stages": {f.key: f.seconds for f in result.findings},
            "verdicts": {f.key: f.verdict for f in result.findings}}  # fmt: skip


def _run(argv: list[str]) -> dict:
    done = subprocess.run([sys.executable, __file__, *argv], capture_output=True, text=True,
                          env=dict(os.environ))  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--algorithms", default="mondrian,anatomy")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--path", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child == "one":
            answer = child_one(args.path, args.records, args.queries)
        else:
            answer = child_workers(args.path, args.workers, args.queries)
        print(json.dumps(answer))
        return

    sys.path.insert(0, str(HERE))
    from timing import cpu_name

    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-written-audit-", dir=args.workdir))
    try:
        print(f"{cpu_name()}, {os.cpu_count()} CPUs; census-kdd-workers resampled to "
              f"{args.records:,} records (seed 0), ℓ = {L}, {args.workers} workers, "
              f"{args.queries:,} queries; median of {args.repeat}", flush=True)  # fmt: skip
        rows = []
        for algorithm in args.algorithms.split(","):
            path = _write(args.records, algorithm, args.workers, work)
            common = ["--records", str(args.records), "--workers", str(args.workers),
                      "--queries", str(args.queries), "--path", str(path)]  # fmt: skip
            runs: dict[str, list] = {"one": [], "workers": []}
            for r in range(args.repeat):
                order = ["one", "workers"] if r % 2 == 0 else ["workers", "one"]
                for config in order:
                    runs[config].append(_run(["--child", config, *common]))
                    print(f"  {algorithm} {config}: {runs[config][-1]['total']:.1f} s",
                          file=sys.stderr, flush=True)  # fmt: skip
            if runs["one"][0]["verdicts"] != runs["workers"][0]["verdicts"]:
                raise SystemExit(f"{algorithm}: the verdicts differ: {runs}")
            rows.append((algorithm, runs))
            shutil.rmtree(path, ignore_errors=True)
        print()
        print("| algorithm | path | total s | " + " | ".join(f"{s} s" for s in STAGES)
              + " | driver peak | vs one machine |")  # fmt: skip
        print("|---" * (len(STAGES) + 5) + "|")
        for algorithm, runs in rows:
            one = statistics.median(a["total"] for a in runs["one"])
            for config, label in (("one", "one machine"), ("workers", f"{args.workers} workers")):
                total = statistics.median(a["total"] for a in runs[config])
                stage = [statistics.median(a["stages"][s] for a in runs[config]) for s in STAGES]
                peak = max(a["peak"] for a in runs[config]) / 2**20
                print(f"| {algorithm} | {label} | {total:.1f} | "
                      + " | ".join(f"{t:.1f}" for t in stage)
                      + f" | {peak:,.0f} MB | {total / one:.2f} |")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
