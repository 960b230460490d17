"""Negative-rule mining (Li & Li, Injector, ICDE 2008, §IV-C) and the rule-mining utility, timed.

    python benchmarks/bench_rule_mining.py [--repeat 5]

Settings: Adult with the paper's quasi-identifiers Age, Workclass, Education, Marital Status,
Race, Gender (``hierarchy_set="li-injector"``, Table III's heights), sensitive Occupation
(``anonlab.experiments.li.adult_table``). Mining = building the item catalog (hierarchy nodes),
Apriori with per-value counts, the rule test and the removal of redundant rules; the table is
loaded beforehand (not timed). Time: best of ``--repeat`` after one warm-up run.

Goal (issue 6, §6): rule mining on Adult at minExp 0.75 under 1 s on a 2-core machine (one
condition per rule, the Figure 3 setting). The paper gives no number: its Figure 5 shows rule
mining as the main cost of Injector, "fast enough for large datasets" (a variation of FP-tree).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from anonlab.anonymize import anonymize
from anonlab.experiments import li
from anonlab.mining import mine_association_rules, mine_negative_rules
from anonlab.utility.rule_mining import rule_mining_error
from timing import best, ms, row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"### Negative-rule mining; Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"best of {args.repeat} after a warm-up\n"
    )
    print(row("what", "rows", "result", "ours", "paper", "goal", "ratio (ours/goal)"))
    print(row(*["---"] * 7))
    train, full = li.adult_table("adult-train"), li.adult_table("adult")
    cases = [
        ("mine, minExp 0.75, 1 condition", train, 0.75, 1, 1.0),
        ("mine, minExp 0.75, 1 condition", full, 0.75, 1, 1.0),
        ("mine, minExp 0.9, 1 condition", train, 0.9, 1, 1.0),
        ("mine, minExp 0.75, ≤ 2 conditions (ablation)", train, 0.75, 2, None),
        ("mine, minExp 0.75, ≤ 3 conditions (ablation)", train, 0.75, 3, None),
    ]
    for name, table, min_exp, k, goal in cases:

        def run(table=table, min_exp=min_exp, k=k):
            return mine_negative_rules(table, min_exp, k)

        seconds, rules = best(run, args.repeat)
        print(
            row(
                name,
                f"{table.n_rows:,}",
                f"{len(rules):,} rules ({rules.n_unpruned:,} before pruning)",
                ms(seconds),
                "–",
                ms(goal),
                "–" if goal is None else f"{seconds / goal:.2f}",
            ),
            flush=True,
        )
        if k in (1, 3) and table is train:
            seconds, inc = best(lambda rules=rules, table=table: rules.incompatibility(table), 3)
            print(
                row(
                    f"incompatibility matrix of those rules ({k} condition(s))",
                    f"{table.n_rows:,}",
                    f"{int(inc.sum()):,} excluded pairs",
                    ms(seconds),
                    "–",
                    "–",
                    "–",
                )
            )
    release = anonymize(train, "anatomy", l=6, seed=0)
    seconds, original = best(lambda: mine_association_rules(train, 0.01, 1.2, 3), args.repeat)
    print(
        row(
            "positive rules (support ≥ 1%, conviction ≥ 1.2, ≤ 3 conditions)",
            f"{train.n_rows:,}",
            f"{len(original):,} rules",
            ms(seconds),
            "–",
            "–",
            "–",
        )
    )
    seconds, err = best(lambda: rule_mining_error(release, original=original), args.repeat)
    print(
        row(
            "rule-mining error of Anatomy ℓ=6 (given R_org)",
            f"{train.n_rows:,}",
            f"confidence error {100 * err.confidence_error:.1f}%",
            ms(seconds),
            "–",
            "–",
            "–",
        )
    )
    print(f"\nFinished {time.strftime('%H:%M:%S')}.")


if __name__ == "__main__":
    main()
