"""deFinetti attack benchmarks (Kifer, SIGMOD 2009): a Table 7 run per ℓ against the paper's time
and the issue's goals, with sweeps per second, peak memory and accuracy.

    python benchmarks/bench_definetti.py [--repeat 3] [--chains 4] [--sweeps 100]

Setting: adult-train (30,162 rows), QIs workclass, relationship, sex, income; sensitive
occupation; Anatomy (grouping seed 0); 1,000 random targets; ``--chains`` chains × ``--sweeps``
sweeps (half burn-in). The accuracy column shows the budget is a converged one (see
``python -m anonlab.experiments.kifer --convergence`` for accuracy against sweeps). The paper's
times are for its own Python (one run of 50,000 outer iterations, Intel dual-core 3.16 GHz); the
ratio is ours / paper's. Times: best of ``--repeat`` after one warm-up (numba compile) run.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource

from anonlab.attacks.definetti import choose_targets, definetti_attack, score_posterior
from anonlab.experiments import kifer
from timing import best, ms, row

PAPER_SECONDS = {2: 7.5 * 3600, 3: 14 * 3600, 4: 2 * 24 * 3600}
GOAL_SECONDS = {2: 5.0, 3: 20.0, 4: 20.0}  # issue: ℓ = 2 under 5 s, ℓ = 4 under 20 s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--sweeps", type=int, default=100)
    args = parser.parse_args()
    table = kifer.adult_table()
    print(
        f"### deFinetti attack, {kifer.DATASET} ({table.n_rows:,} rows), Anatomy seed 0, "
        f"{kifer.TARGETS} targets, {args.chains} chains × {args.sweeps} sweeps; Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, best of {args.repeat}\n"
    )
    print(
        row(
            "ℓ", "groups", "anonlab", "chain-sweeps/s", "ACC (baseline)", "goal", "time / goal",
            "paper (one run)", "paper / ours",
        )
    )  # fmt: skip
    print(row(*["---"] * 9))
    for l in (2, 3, 4):
        release = kifer.release_for(table, l, "anatomize", 0)
        rows = choose_targets(release, kifer.TARGETS, seed=kifer.TARGET_SEED)
        truth = table.codes[kifer.SENSITIVE][rows]

        def attack(release=release, rows=rows):
            return definetti_attack(
                release, targets=rows, chains=args.chains, sweeps=args.sweeps, seed=0
            )

        secs, res = best(attack, args.repeat)
        acc = score_posterior(res.posterior, truth)["ACC"]
        print(
            row(
                l,
                f"{release.n_groups:,}",
                ms(secs),
                f"{args.chains * args.sweeps / secs:,.0f}",
                f"{acc:.3f} ({1 / l:.3f})",
                ms(GOAL_SECONDS[l]),
                f"{secs / GOAL_SECONDS[l]:.3f}",
                f"{PAPER_SECONDS[l] / 3600:.1f} h",
                f"{PAPER_SECONDS[l] / secs:,.0f}x",
            )
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nPeak resident memory of this process: {peak:,.0f} MB (goal: under 1 GB).")


if __name__ == "__main__":
    main()
