"""Saving and loading a release directory: what the issue-16 safeguards cost.

    python benchmarks/bench_release_io.py [--rows 1000000] [--repeats 3] [--src PATH]

Input: Adult (QI age, sex, race, marital-status; sensitive occupation) resampled with
replacement to ``--rows`` records (``Table.resample(n, seed=0)``), anonymized once by Anatomy
(ℓ = 4) and once by Mondrian (ℓ = 4). Each release is saved to a fresh temporary folder and
loaded back, ``--repeats`` times; the table prints the median wall-clock time of each.

``--src`` points at another checkout's ``src`` folder, so the same script measures an earlier
version (e.g. a ``git worktree`` of the commit before the change) on the same machine in the
same session: run it once per checkout, alternating, and compare medians. What the safeguards
add to each step: save — the keyed row order and group ids (SHAKE-256 and an argsort instead of
a seeded permutation), the formula guard, the checksums of every file and the seal; load — the
manifest's JSON Schema validation, the SHA-256 of every file, and the record checks (row count,
distinct row ids, group ids 0..G-1 each used). Without ``--src`` it also times the keyed
permutation of the export against the seeded ``default_rng(0).permutation`` it replaced.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import statistics
import sys
import tempfile
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
    from anonlab.anonymize import anonymize
    from anonlab.release_io import load_release, save_release
    from anonlab.table import Table

    qi = ["age", "sex", "race", "marital-status"]
    table = Table.from_dataset("adult", quasi_identifiers=qi, sensitive="occupation")
    table = table.resample(args.rows, 0)
    print(f"anonlab from {pathlib.Path(anonlab.__file__).parent}")
    print(f"{'release':<10} {'rows':>11} {'save (s)':>9} {'load (s)':>9}")
    for algorithm in ("anatomy", "mondrian"):
        release = anonymize(table, algorithm, l=4, seed=0)
        saves, loads = [], []
        for _ in range(args.repeats):
            folder = pathlib.Path(tempfile.mkdtemp())
            try:
                t0 = time.perf_counter()
                save_release(release, folder / "rel")
                t1 = time.perf_counter()
                load_release(folder / "rel")
                t2 = time.perf_counter()
            finally:
                shutil.rmtree(folder)
            saves.append(t1 - t0)
            loads.append(t2 - t1)
        print(
            f"{algorithm:<10} {table.n_rows:>11,} {statistics.median(saves):>9.2f} "
            f"{statistics.median(loads):>9.2f}"
        )
    if not args.src:  # the export's permutation beside the seeded one it replaced
        import numpy as np

        from anonlab.export_order import keyed_permutation

        print(f"{'rows':>11} {'keyed (s)':>10} {'default_rng (s)':>16}")
        for n in (1_000_000, 10_000_000):
            keyed, seeded = [], []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                keyed_permutation(b"k" * 32, b"row order", n)
                t1 = time.perf_counter()
                np.random.default_rng(0).permutation(n)
                seeded.append(time.perf_counter() - t1)
                keyed.append(t1 - t0)
            print(f"{n:>11,} {statistics.median(keyed):>10.2f} {statistics.median(seeded):>16.2f}")


if __name__ == "__main__":
    main()
