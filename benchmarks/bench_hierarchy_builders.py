"""Building hierarchies for 1,000,000 records with the builders (issue 17, item 2).

    python benchmarks/bench_hierarchy_builders.py [--rows 1000000] [--repeats 3]

Input: ``--rows`` synthetic discharge records drawn with a seeded generator (seed 0): zip codes
among ~30,000 five-digit codes kept as text (leading zeros), birth dates among ~20,000 days
(1930-2024), admission dates (2015-2024), ICD-10-like codes (``A00.0``..``Z99.9``, ~2,600
distinct) with a mapping file to category and chapter, and a 5-level ordered severity.

For each column the table prints the distinct values, the time to take them from the 1,000,000
values (``pandas.unique``), and the best-of-``--repeats`` time of
:func:`anonlab.hierarchy_builders.build_hierarchy` on them (which includes constructing the
:class:`~anonlab.hierarchy.Hierarchy`: depth-first leaf order and the integer map; the last
column times that constructor alone on the same rows). The last
line times ``anonlab hierarchy build``'s reading of one column from a 1,000,000-row CSV.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

import numpy as np
import pandas as pd

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from timing import best, ms, row  # noqa: E402


def _data(n: int, folder: pathlib.Path) -> tuple[pd.DataFrame, pathlib.Path]:
    rng = np.random.default_rng(0)
    zips = np.char.zfill(rng.choice(100_000, 30_000, replace=False).astype(str), 5)
    born = np.datetime64("1930-01-01") + rng.choice(34_000, 20_000, replace=False)
    letters = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    icd = np.unique(
        np.char.add(
            np.char.add(
                letters[rng.integers(0, 26, 3000)],
                np.char.zfill(rng.integers(0, 100, 3000).astype(str), 2),
            ),
            np.char.add(".", rng.integers(0, 10, 3000).astype(str)),
        )
    )
    frame = pd.DataFrame(
        {
            "zip": zips[rng.integers(0, len(zips), n)],
            "born": np.datetime_as_string(born[rng.integers(0, len(born), n)]),
            "admitted": np.datetime_as_string(
                np.datetime64("2015-01-01") + rng.integers(0, 3652, n)
            ),
            "icd": icd[rng.integers(0, len(icd), n)],
            "severity": np.array(["none", "mild", "moderate", "severe", "critical"])[
                rng.integers(0, 5, n)
            ],
            "stay": rng.integers(0, 120, n).astype(str),
        }
    )
    mapping = folder / "icd10.csv"
    cat = np.char.partition(icd, ".")[:, 0]
    chapter = np.char.add("chapter ", np.char.array(icd).astype("<U1"))
    pd.DataFrame({"code": icd, "category": cat, "chapter": chapter}).to_csv(mapping, index=False)
    return frame, mapping


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from anonlab.cli.hierarchy import read_column_values
    from anonlab.hierarchy import Hierarchy
    from anonlab.hierarchy_builders import build_hierarchy

    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        frame, mapping = _data(args.rows, folder)
        cases = [
            ("zip", {"builder": "prefix"}),
            ("born", {"builder": "date", "levels": ["month", "year", "5-year", "10-year"]}),
            ("born", {"builder": "date", "age_at": "2025-01-01"}),
            ("admitted", {"builder": "date", "levels": ["week", "month", "quarter", "year"]}),
            ("icd", {"builder": "mapping", "file": str(mapping)}),
            ("severity", {"builder": "order", "order": "none,mild,moderate,severe,critical"}),
            ("stay", {"builder": "interval", "width": 5}),
        ]
        print(f"{args.rows:,} records; best of {args.repeats} (after one warm-up run)\n")
        head = ("column", "builder", "distinct", "height", "unique()", "build_hierarchy")
        print(row(*head, "of which Hierarchy()"))
        print(row(*["---"] * 7))
        total = 0.0
        for column, spec in cases:
            t_unique, values = best(lambda c=column: pd.unique(frame[c]), args.repeats)
            t_build, h = best(
                lambda s=spec, v=values, c=column: build_hierarchy(s, v, c), args.repeats
            )
            t_tree, _ = best(lambda r=h.rows(), c=column: Hierarchy(r, name=c), args.repeats)
            total += t_build
            label = spec["builder"] + (" (age_at)" if "age_at" in spec else "")
            cells = (column, label, f"{len(values):,}", h.height, ms(t_unique), ms(t_build))
            print(row(*cells, ms(t_tree)))
        print(f"\nall builds: {ms(total)}")
        csv = folder / "discharges.csv"
        frame.to_csv(csv, index=False)
        t0 = time.perf_counter()
        values, _ = read_column_values(csv, "zip")
        print(
            f"CLI read of column 'zip' from a {args.rows:,}-row CSV: "
            f"{ms(time.perf_counter() - t0)} "
            f"({len(values):,} distinct)"
        )


if __name__ == "__main__":
    main()
