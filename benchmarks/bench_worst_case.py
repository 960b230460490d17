"""Worst-case background knowledge benchmarks (Martin et al.): disclosure curves, Figure 6, and
(c,k)-safe lattice search on Adult (45,222 rows, Martin's hierarchies, 72-node lattice).

    python benchmarks/bench_worst_case.py [--repeat 5]

Times: best of ``--repeat`` after one warm-up run; inputs (table, releases) built beforehand
unless the row says otherwise. Goals from the issue, for this 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import platform

from anonlab.anonymize import anatomy, generalize, lattice
from anonlab.attacks import disclosure_curve
from anonlab.experiments import martin
from timing import best, ms, row

K_MAX = 12
LATTICE_SETTINGS = [  # (c, k, metric)
    (0.7, 3, "arx-loss"),
    (0.5, 5, "discernibility"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    table = martin.adult_table()
    anat = anatomy(table, 4, seed=0)
    anat7 = anatomy(table, 7, seed=0)  # larger buckets: the DP runs to k = 6
    fig5 = generalize(table, martin.FIGURE5_LEVELS)

    print(
        f"### Worst-case disclosure, Adult ({table.n_rows:,} rows), QIs "
        f"{', '.join(table.quasi_identifiers)}, sensitive occupation; "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, best of {args.repeat}\n"
    )
    print(row("task", "size", "result", "anonlab", "goal", "time / goal"))
    print(row(*["---"] * 6))

    def line(task, size, result, secs, goal):
        print(row(task, size, result, ms(secs), ms(goal), f"{secs / goal:.3f}"))

    releases = (
        ("Anatomy ℓ=4", anat),
        ("Anatomy ℓ=7", anat7),
        ("Figure 5 table (age/20, rest *)", fig5),
    )
    for name, rel in releases:
        for lang in ("implications", "negations"):
            secs, curve = best(
                lambda r=rel, g=lang: disclosure_curve(r, K_MAX, language=g), args.repeat
            )
            first_one = next((k for k, v in enumerate(curve) if v >= 1.0), None)
            line(
                f"disclosure curve k = 0..{K_MAX}, {lang}, {name}",
                f"{rel.n_groups:,} buckets",
                f"k=0: {curve[0]:.4f}, k=3: {curve[3]:.4f}; 1 from k = {first_one}",
                secs,
                1.0,
            )

    secs, fig6 = best(lambda: martin.figure6(table), max(1, args.repeat // 2))
    line(
        "Figure 6: 72 tables × k = 0..12, both languages (generalize + curves + entropy)",
        "72 tables",
        f"{fig6['settings']['distinct_h']} distinct h",
        secs,
        30.0,
    )
    secs, _ = best(lambda: martin.figure5(table), args.repeat)
    line("Figure 5 experiment (generalize + both curves to k = 13)", "5 buckets", "", secs, 1.0)

    for c, k, metric in LATTICE_SETTINGS:
        secs, rel = best(
            lambda c=c, k=k, m=metric: lattice(table, "ck-safety", c=c, k=k, metric=m),
            args.repeat,
        )
        lat = rel.manifest.get("lattice", {})
        line(
            f"(c,k)-safe lattice search, c={c}, k={k}, metric {metric}",
            f"{lat.get('nodes', 72)} nodes, {lat.get('checked', '?')} checked",
            f"node {tuple(rel.levels.values())}, {rel.n_groups} classes",
            secs,
            5.0,
        )


if __name__ == "__main__":
    main()
