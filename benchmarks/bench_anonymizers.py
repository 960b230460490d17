"""Anonymizers II benchmarks: lattice search beside ARX's figures, Hilb and MASK beside the ASAP
paper's.

    python benchmarks/bench_anonymizers.py [--repeat 5]

ARX 3.9.2's times are the issue's, quoted from another run: context, never a comparison (no
ratio is printed). The side-by-side comparison, ARX run in the same session, is
benchmarks/bench_lattice_arx.py. The ASAP
paper's times are from C++ on 2010 hardware (Jin et al., §8). anonlab times: best of ``--repeat``
after one warm-up run (numba kernels compiled or loaded from cache in the warm-up).
"""

from __future__ import annotations

import argparse
import platform

import numpy as np

from anonlab import Table
from anonlab.anonymize import hilb, lattice, mask
from anonlab.utility import measure
from timing import best, ms, row

ARX_QI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
ARX_SETTINGS = [  # (model, parameters, suppression, ARX's time in s, ARX's node)
    ("k-anonymity", {"k": 5}, 0.0, 0.066, (4, 0, 0, 1, 3, 2, 2)),
    ("distinct-l-diversity", {"l": 4}, 0.0, 0.042, (4, 0, 0, 1, 3, 2, 2)),
    ("t-closeness", {"t": 0.2, "distance": "equal"}, 0.0, 0.023, (4, 1, 1, 1, 3, 2, 2)),
    ("k-anonymity", {"k": 5}, 0.02, 0.242, (3, 0, 0, 1, 2, 1, 1)),
    ("distinct-l-diversity", {"l": 4}, 0.02, 0.285, (4, 0, 0, 0, 2, 1, 1)),
    ("t-closeness", {"t": 0.2, "distance": "equal"}, 0.02, 1.390, (4, 1, 1, 1, 3, 1, 2)),
]
MASK_QI = [
    "age", "workclass", "marital-status", "occupation", "race", "sex", "native-country", "income",
]  # fmt: skip
MASK_SENSITIVE = ["Preschool", "1st-4th", "5th-6th", "7th-8th"]


def bench_lattice(repeat: int) -> list[str]:
    table = Table.from_dataset(
        "adult-train", quasi_identifiers=ARX_QI, sensitive="occupation", hierarchy_set="arx"
    )
    lines = [
        "### Lattice search, adult-train (30,162 rows), ARX's hierarchies, 2,160 nodes, "
        "Loss metric",
        "",
        row("model", "suppression", "node found", "ARX's node", "classes", "suppressed",
            "Loss", "nodes checked", "anonlab", "ARX 3.9.2 (quoted, another run)"),
        row(*["---"] * 10),
    ]  # fmt: skip
    for model, params, suppression, arx_time, arx_node in ARX_SETTINGS:
        secs, release = best(
            lambda m=model, p=params, s=suppression: lattice(table, m, suppression=s, **p),
            repeat,
        )
        node = tuple(release.levels[q] for q in ARX_QI)
        lines.append(
            row(model + " " + ", ".join(f"{k}={v}" for k, v in params.items()),
                f"{suppression:.0%}", node, arx_node, release.n_groups,
                release.manifest["suppressed_records"],
                f"{measure(release, 'arx-loss').value:.4f}",
                release.manifest["lattice"]["checked"], ms(secs), ms(arx_time))
        )  # fmt: skip
    return lines


def bench_hilb(repeat: int) -> list[str]:
    table = Table.from_dataset("census-kdd-workers")
    big = table.take(np.random.default_rng(0).integers(0, table.n_rows, 300_000))
    lines = [
        "### Hilb ℓ = 4 (census-kdd-workers; Hilbert index included)",
        "",
        row("input", "rows", "groups", "anonlab", "goal", "ASAP paper (C++, 2010)", "ratio"),
        row(*["---"] * 7),
    ]
    for name, t in (
        ("census-kdd-workers", table),
        ("resample to 300,000 (with replacement, seed 0)", big),
    ):
        secs, release = best(lambda t=t: hilb(t, 4), repeat)
        paper = "2.1 s (300,000 IPUMS rows)" if t.n_rows == 300_000 else "–"
        ratio = f"{2.1 / secs:.0f}x faster" if t.n_rows == 300_000 else "–"
        goal = "< 0.5 s" if t.n_rows == 300_000 else "–"
        lines.append(row(name, f"{t.n_rows:,}", f"{release.n_groups:,}", ms(secs), goal, paper,
                         ratio))  # fmt: skip
    return lines


def bench_mask(repeat: int) -> list[str]:
    table = Table.from_dataset("adult", quasi_identifiers=MASK_QI, sensitive="education")
    secs, release = best(
        lambda: mask(table, 10, 3, sensitive_values=MASK_SENSITIVE, seed=0), repeat
    )
    return [
        "### MASK k = 10, m = 3 (Adult, 45,222 rows; sensitive education below high school)",
        "",
        row("groups", "violating groups", "perturbed records", "anonlab", "goal",
            "ASAP paper (C++, 2010)", "ratio"),
        row(*["---"] * 7),
        row(f"{release.n_groups:,}", release.manifest["violating_groups"],
            release.manifest["perturbed_records"], ms(secs), "< 5 s", "65.7 s",
            f"{65.7 / secs:,.0f}x faster"),
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(
        f"## Anonymizers II ({platform.machine()}, Python {platform.python_version()}, "
        f"numpy {np.__version__}; best of {args.repeat} after a warm-up)\n"
    )
    for lines in (bench_lattice(args.repeat), bench_hilb(args.repeat), bench_mask(args.repeat)):
        print("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
