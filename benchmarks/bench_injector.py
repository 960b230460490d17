"""Injector (Li & Li, ICDE 2008): bucketization and the negative-rule attack, timed.

    python benchmarks/bench_injector.py [--repeat 3]

Settings (the paper's §VI, notes/li-injector-negative-rules.md §9): Adult training set with
missing values removed (``adult-train``, 30,162 rows; also the 45,222-row ``adult`` for scale),
quasi-identifiers Age, Workclass, Education, Marital Status, Race, Sex with the ``li-injector``
hierarchies, sensitive Occupation (14 values); negative rules with one condition at minExp 0.9
(``anonlab.mining.negative_rules.mine_negative_rules``, its time shown for reference).

* *Injector bucketization*: ``injector(table, 6, rules=matrix)`` with the rules' incompatibility
  matrix computed beforehand, so mining is not counted (the paper splits its Fig. 5 the same
  way); goal 10 s. The paper says only "within seconds", as fast as Anatomy; Anatomy's time is
  printed beside it.
* *Attack*: ``negative_rule_attack(release, rules)`` — the rules applied to every record, both
  readings (matching test included) and the random-worlds baseline — on releases made by
  Anatomy, Injector and Mondrian (generalized, read through the worst-case reduction); goal 0.5 s.

Time: best of ``--repeat`` after one warm-up run (numba compilation excluded).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from anonlab.anonymize import anatomy, mondrian
from anonlab.anonymize.injector import injector
from anonlab.attacks.negative_rules import negative_rule_attack
from anonlab.mining.negative_rules import mine_negative_rules
from anonlab.table import Table
from timing import best, ms, row

QI = ["age", "workclass", "education", "marital-status", "race", "sex"]
SENSITIVE = "occupation"
L = 6
MIN_EXP = 0.9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"### Injector; Python {platform.python_version()}, {os.cpu_count()} CPUs, best of "
        f"{args.repeat} after a warm-up; ℓ = {L}, minExp = {MIN_EXP}, one-condition rules\n"
    )
    print(row("step", "dataset", "rows", "ours", "goal", "ratio (ours/goal)", "note"))
    print(row(*["---"] * 7))
    for name in ("adult-train", "adult"):
        table = Table.from_dataset(
            name, quasi_identifiers=QI, sensitive=SENSITIVE, hierarchy_set="li-injector"
        )
        n = f"{table.n_rows:,}"
        secs, rules = best(lambda t=table: mine_negative_rules(t, MIN_EXP, 1), args.repeat)
        print(row("rule mining (reference)", name, n, ms(secs), "–", "–", f"{len(rules)} rules"))
        matrix = rules.incompatibility(table)
        secs, rel = best(lambda t=table, m=matrix: injector(t, L, rules=m), args.repeat)
        secs_anatomy, ana = best(lambda t=table: anatomy(t, L, seed=0), args.repeat)
        print(
            row(
                "Injector bucketization",
                name,
                n,
                ms(secs),
                ms(10.0),
                f"{secs / 10.0:.3f}",
                f"{rel.n_groups:,} buckets, {rel.manifest['leftover_records']:,} leftovers; "
                f"Anatomy {ms(secs_anatomy)} ({secs / secs_anatomy:.0f}× Anatomy)",
            ),
            flush=True,
        )
        if name == "adult-train":  # the multi-condition ablation (notes: thousands of rules)
            rules3 = mine_negative_rules(table, MIN_EXP, 3)
            m3 = rules3.incompatibility(table)
            secs3, rel3 = best(
                lambda t=table, m=m3: injector(t, L, rules=m, suppress=True), args.repeat
            )
            print(
                row(
                    "Injector, rules with <= 3 conditions (ablation)",
                    name,
                    n,
                    ms(secs3),
                    "–",
                    "–",
                    f"{len(rules3):,} rules; {rel3.manifest['suppressed_records']:,} records "
                    f"suppressed; {rel3.n_groups:,} bucket(s), {rel3.manifest['merges']:,} merges",
                ),
                flush=True,
            )
        mon = mondrian(table, k=L)
        for label, release in (("Anatomy", ana), ("Injector", rel), ("Mondrian k=6", mon)):
            secs, res = best(
                lambda r=release, k=rules: negative_rule_attack(r, k, l=L), args.repeat
            )
            c = res.counts()
            print(
                row(
                    f"attack on {label}",
                    name,
                    n,
                    ms(secs),
                    ms(0.5),
                    f"{secs / 0.5:.3f}",
                    f"{release.n_groups:,} groups; vulnerable {c['vulnerable_matching']:,} "
                    f"(matching) / {c['vulnerable_simple']:,} (simple) / "
                    f"{c['vulnerable_baseline']:,} (no rules)",
                ),
                flush=True,
            )
    print(f"\nFinished {time.strftime('%H:%M:%S')}.")


if __name__ == "__main__":
    main()
