"""Foreground-knowledge attack (Wong et al., TKDD 2011): the full attack, timed.

    python benchmarks/bench_foreground.py [--repeat 1] [--only "large groups"] [--no-circle]
    python benchmarks/bench_foreground.py --accelerators [--rows 1000000] [--very-large-groups]
        [--plain-max-iter 10000] [--undo-ratio 100]
    python benchmarks/bench_foreground.py --kernel

Full attack = Algorithm 1 (every attribute set of the QI with a signature of >= J = 3993
records, the empty set included), mining with EM + Newton polishing, and ``p*`` of every record
for the sensitive set. Releases are built beforehand (not timed). Time: best of ``--repeat``
after one warm-up run; peak memory: ``tracemalloc`` peak of one run (numpy allocations are
traced) and the process's max RSS (``resource.getrusage``) at the end.

Settings:

* Adult (45,222 rows), QI size 8 (Age, Work Class, Marital Status, Occupation, Race, Sex, Native
  Country, Salary Class), sensitive Education with the set {Preschool, 1st-4th, 5th-6th,
  7th-8th}, Anatomy ℓ = 2 grouped on the merged label (``anonlab.experiments.wong``).
* census-kdd-workers (49,479 rows), QI age, sex, race, marital_stat, education,
  class_of_worker, country_of_birth_self, citizenship; sensitive major_occupation_code with the
  set {Farming forestry and fishing, Private household services} (1,946 records, 3.93%: chosen
  to be about as rare as Adult's low-education set, and occupations one may not want revealed);
  Anatomy ℓ = 2 grouped on the merged label in the same way.
* Large groups: Adult (45,222 rows), QI age, workclass, marital-status, race, sex, sensitive
  occupation, target Craft-repair, Mondrian ℓ = 4 (255 groups, the largest of 6,746 records;
  the same release as ``anonlab anonymize --dataset adult --qi age,workclass,marital-status,
  race,sex --sensitive occupation --algorithm mondrian --l 4``), attribute sets of at most 1
  and at most 2 attributes. Big groups are where Eq. (3) costs ``O(N · n)``; before the
  compiled kernel these took 62 s and 194 s (machine under load), the goal set here is 3 s.
* Very large groups, every value: Adult, QI age, workclass, marital-status, occupation, race,
  sex, native-country, sensitive education, Mondrian ℓ = 3 (116 groups, the largest of 23,027
  records), all 16 education values as targets, attribute sets of at most 1 attribute: what
  ``anonlab audit`` runs on such a release. Before the circle method for large groups (Eq. 3
  evaluated on the unit circle, ``_circle_link``) it took 80 s on a quiet machine (192 s under
  load; ``--no-circle`` runs that kernel); the goal set here is 10 s.

``--accelerators``: the census-kdd-workers setting (resampled to ``--rows`` records with
``kdd_release(n)``, as benchmarks/scaling.py; default 1,000,000) attacked with each EM
accelerator of ``foreground_attack(accelerate=...)``: SQUAREM (the default), Newton jumps, and
plain EM. Per accelerator: time (one run after a warm-up on 2,000 rows), evaluations of Eq. (3)
by EM (``em_iterations``; Newton jumps also spend ``m + 1`` per Jacobian, not counted there),
Newton steps, unconverged sets, and the largest difference from plain EM's ``f`` and ``p*``.
``--very-large-groups`` runs the comparison on the very-large-groups setting instead (Adult,
Mondrian ℓ = 3, 16 targets, sets of at most one attribute); ``--plain-max-iter`` is plain
EM's iteration limit (default 10,000, the attack's; raise it to run plain EM to convergence);
``--undo-ratio`` sets ``anonlab.attacks.foreground.solver.SQUAREM_UNDO_RATIO`` for the run.

``--kernel``: Eq. (3) on 66,246 groups of two with one x each (random weights in [0.01, 0.2],
seed 0: the size of the largest set's group types at 10M records), by the compiled kernel
(groups with one x in their own loop, ``_odds_link``) and by a compiled loop calling
``_group_link`` on each group's array views (what the kernel did for them before); mean of 30
after one, and the largest difference (0: the same numbers).

The paper reports mining "within 12 minutes" (C/C++, Pentium IV 2.2 GHz, 1 GB) for all its
experiments on Adult, and breach finding "within a few minutes".
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time
import tracemalloc

import numpy as np

from anonlab import datasets
from anonlab.anonymize import anatomy, mondrian
from anonlab.attacks.foreground import foreground_attack
from anonlab.experiments import wong
from anonlab.release import Release
from anonlab.table import Table
from timing import best, ms, row

KDD_QI = [
    "age",
    "sex",
    "race",
    "marital_stat",
    "education",
    "class_of_worker",
    "country_of_birth_self",
    "citizenship",
]
KDD_SENSITIVE = "major_occupation_code"
KDD_SET = ["Farming forestry and fishing", "Private household services"]


def adult_release() -> tuple[Release, list[str]]:
    table, merged = wong.adult_tables(8)
    return wong.anatomy_release(table, merged, 2, seed=0), list(wong.LOW_EDUCATION)


def kdd_release(n: int | None = None) -> tuple[Release, list[str]]:
    """The census-kdd-workers setting; with ``n``, both tables resampled to ``n`` rows by the
    same seeded draw (benchmarks/scaling.py's foreground task)."""
    df = datasets.load_frame("census-kdd-workers")[[*KDD_QI, KDD_SENSITIVE]]
    table = Table.from_frame(df, quasi_identifiers=KDD_QI, sensitive=KDD_SENSITIVE, numeric=["age"])
    m = df.copy()
    m[KDD_SENSITIVE] = np.where(m[KDD_SENSITIVE].isin(KDD_SET), "set", m[KDD_SENSITIVE])
    merged = Table.from_frame(m, quasi_identifiers=KDD_QI, sensitive=KDD_SENSITIVE, numeric=["age"])
    if n is not None:  # the same draw for both (same n, same seed)
        table, merged = table.resample(n, seed=0), merged.resample(n, seed=0)
    grouped = anatomy(merged, 2, sensitive_values=["set"], seed=0)
    rel = Release(table, grouped.group, "bucketization", {"algorithm": "anatomy"})
    return rel, KDD_SET


LARGE_QI = ["age", "workclass", "marital-status", "race", "sex"]


def mondrian_release() -> tuple[Release, list[str]]:
    table = Table.from_dataset("adult", quasi_identifiers=LARGE_QI, sensitive="occupation")
    return mondrian(table, l=4), ["Craft-repair"]


AUDIT_QI = ["age", "workclass", "marital-status", "occupation", "race", "sex", "native-country"]


def mondrian_education_release() -> tuple[Release, None]:
    table = Table.from_dataset("adult", quasi_identifiers=AUDIT_QI, sensitive="education")
    return mondrian(table, l=3), None


def compare_accelerators(n: int, very_large: bool, plain_max_iter: int) -> None:
    if very_large:
        release, values = mondrian_education_release()
        setting, max_attributes = "Adult, Mondrian ℓ=3, 16 values, sets ≤ 1 attr", 1
    else:
        release, values = kdd_release(n)
        setting = f"census-kdd-workers resampled to {n:,} rows, Anatomy ℓ=2, QI size 8"
        max_attributes = None
    foreground_attack(kdd_release(2000)[0], KDD_SET)  # numba compiled or loaded
    from anonlab.attacks.foreground import solver

    print(
        f"### EM accelerators: {setting}; plain EM's limit {plain_max_iter:,} iterations, "
        f"SQUAREM undo ratio {solver.SQUAREM_UNDO_RATIO:g}; "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs\n"
    )
    print(
        row(
            "accelerate",
            "time",
            "attribute sets",
            "EM evaluations",
            "Newton steps",
            "unconverged",
            "max Δf from plain EM",
            "max Δp* from plain EM",
        )
    )
    print(row(*["---"] * 8))
    results = {}
    for acc in (False, "newton", "squarem"):  # plain EM first: the reference
        t0 = time.perf_counter()
        result = foreground_attack(
            release,
            values,
            accelerate=acc,
            max_attributes=max_attributes,
            max_iter=plain_max_iter if acc is False else 10_000,
        )
        seconds = time.perf_counter() - t0
        results[acc] = result
        ref = results[False]
        df = max(
            float(np.max(np.abs(a.probability - b.probability)))
            for a, b in zip(result.distributions, ref.distributions, strict=True)
        )
        print(
            row(
                "plain EM" if acc is False else acc,
                ms(seconds),
                len(result.attribute_sets),
                f"{sum(r.em_iterations for r in result.reports):,}",
                f"{sum(r.newton_steps for r in result.reports):,}",
                sum(not r.converged for r in result.reports),
                f"{df:.1e}",
                f"{float(np.max(np.abs(result.p_star - ref.p_star))):.1e}",
            ),
            flush=True,
        )


def compare_kernels() -> None:
    from numba import njit

    from anonlab.attacks.foreground import kernel as fg

    @njit
    def through_group_link(a, b, ptr, degree, out):
        w_all, wb_all, res_all, work = np.empty(2), np.empty(2), np.empty(2), np.empty(16)
        for g in range(len(ptr) - 1):
            lo, size = ptr[g], ptr[g + 1] - ptr[g]
            w, wb, res = w_all[:size], wb_all[:size], res_all[:size]
            for j in range(size):
                w[j] = a[lo + j]
                wb[j] = b[lo + j]
            fg._group_link(w, wb, degree[g], res, work, fg._FAST_MIN_WORK, fg._FAST_COST)
            for j in range(size):
                out[lo + j] = res[j]

    groups = 66_246
    a = np.random.default_rng(0).uniform(0.01, 0.2, 2 * groups)
    b = 1.0 - a
    ptr = np.arange(0, 2 * groups + 1, 2, dtype=np.int64)
    degree = np.ones(groups, dtype=np.int64)
    complement = np.zeros(groups, dtype=np.bool_)
    fast, slow = np.empty(2 * groups), np.empty(2 * groups)

    def kernel():
        fg._link_kernel_ab(a, b, ptr, degree, complement, fast, fg._FAST_MIN_WORK, fg._FAST_COST)

    def reference():
        through_group_link(a, b, ptr, degree, slow)

    print(f"### Eq. (3) on {groups:,} groups of two with one x; mean of 30 after one\n")
    print(row("path", "time per call"))
    print(row("---", "---"))
    for name, fn in (("kernel (_odds_link loop)", kernel), ("_group_link per group", reference)):
        fn()
        t0 = time.perf_counter()
        for _ in range(30):
            fn()
        print(row(name, ms((time.perf_counter() - t0) / 30)))
    print(f"\nlargest difference: {float(np.max(np.abs(fast - slow))):.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--only", default="", help="run only the settings whose name contains this text"
    )
    parser.add_argument(
        "--no-circle",
        action="store_true",
        help="the linear passes on every group (the kernel before the circle method)",
    )
    parser.add_argument(
        "--accelerators",
        action="store_true",
        help="compare the EM accelerators on the census setting (see the docstring)",
    )
    parser.add_argument("--rows", type=int, default=1_000_000, help="with --accelerators")
    parser.add_argument("--very-large-groups", action="store_true", help="with --accelerators")
    parser.add_argument("--plain-max-iter", type=int, default=10_000, help="with --accelerators")
    parser.add_argument("--undo-ratio", type=float, default=None, help="with --accelerators")
    parser.add_argument("--kernel", action="store_true", help="time Eq. (3) on groups of two")
    args = parser.parse_args()
    if args.kernel:
        compare_kernels()
        return
    if args.accelerators:
        if args.undo_ratio is not None:
            from anonlab.attacks.foreground import solver

            solver.SQUAREM_UNDO_RATIO = args.undo_ratio
        compare_accelerators(args.rows, args.very_large_groups, args.plain_max_iter)
        return
    if args.no_circle:
        from anonlab.attacks.foreground import kernel

        kernel._FAST_MIN_WORK = 2**62  # the gate never opens: bit for bit the old kernel
    print(
        f"### Foreground-knowledge attack; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, best of {args.repeat} after a warm-up\n"
    )
    print(
        row(
            "setting",
            "rows",
            "attribute sets",
            "ours",
            "paper",
            "goal",
            "ratio (ours/goal)",
            "tracemalloc peak",
            "avg breach",
            "recall",
        )
    )
    print(row(*["---"] * 10))
    cases = [
        ("Adult, Anatomy ℓ=2, QI size 8", adult_release, 3.0, "mining ≤ 12 min (C/C++)", None),
        ("census-kdd-workers, Anatomy ℓ=2, QI size 8", kdd_release, 10.0, "–", None),
        ("large groups: Adult, Mondrian ℓ=4, sets ≤ 1 attr", mondrian_release, 3.0, "–", 1),
        ("large groups: Adult, Mondrian ℓ=4, sets ≤ 2 attrs", mondrian_release, 3.0, "–", 2),
        (
            "very large groups: Adult, Mondrian ℓ=3, 16 values, sets ≤ 1 attr",
            mondrian_education_release,
            10.0,
            "–",
            1,
        ),
    ]
    for name, build, goal, paper, max_attributes in cases:
        if args.only not in name:
            continue
        release, values = build()

        def run(release=release, values=values, max_attributes=max_attributes):
            return foreground_attack(release, values, max_attributes=max_attributes)

        seconds, result = best(run, args.repeat)
        tracemalloc.start()
        run()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        score = result.score(release, 2)
        print(
            row(
                name,
                f"{release.table.n_rows:,}",
                len(result.attribute_sets) - 1,
                ms(seconds),
                paper,
                ms(goal),
                f"{seconds / goal:.2f}",
                f"{peak / 2**20:.0f} MiB",
                f"{score['average_breach']:.4f}",
                f"{score['recall']:.4f}",
            ),
            flush=True,
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nProcess max RSS: {rss:.0f} MiB (goal < 1 GiB). Finished {time.strftime('%H:%M:%S')}.")


if __name__ == "__main__":
    main()
