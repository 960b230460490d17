"""Reading a CSV into a Table: what typed reading (issue 17) and the row checks (issue 16) cost.

    python benchmarks/bench_reading.py [--rows 1000000] [--repeats 3] [--src PATH]

Input: ``census-kdd-workers`` (8 columns) resampled with replacement to ``--rows`` records
(``Table.resample(n, seed=0)``) and written to ``$ANONLAB_BENCH_DIR/census-<rows>.csv``
(default /tmp) once. ``Table.from_csv`` (chunked) then reads it with every column given a role,
``--repeats`` times; the script prints the median. ``--src`` points at another checkout's
``src`` folder, so the same script measures an earlier version on the same machine in the same
session (run it once per checkout, alternating).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--src", default=None, help="another checkout's src folder")
    args = parser.parse_args()
    if args.src:
        sys.path.insert(0, args.src)
    import anonlab
    from anonlab.table import Table

    path = pathlib.Path(os.environ.get("ANONLAB_BENCH_DIR", "/tmp")) / f"census-{args.rows}.csv"
    source = Table.from_dataset("census-kdd-workers")
    names = list(source.schema.names)
    if not path.exists():
        source.resample(args.rows, 0).to_frame().to_csv(path, index=False)
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        Table.from_csv(path, quasi_identifiers=names[:-1], sensitive=names[-1])
        times.append(time.perf_counter() - t0)
    print(
        f"{pathlib.Path(anonlab.__file__).parent}: Table.from_csv of {args.rows:,} rows x "
        f"{len(names)} columns: {statistics.median(times):.2f} s (median of {args.repeats})"
    )


if __name__ == "__main__":
    main()
