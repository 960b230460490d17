"""``python -m anonlab.experiments.wong``: the report (docs/reproductions/wong.md)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from anonlab.attacks.foreground import SMALL_SIGNATURE
from anonlab.experiments.markdown import frame_to_markdown, write_report
from anonlab.experiments.wong.claims import check_claims
from anonlab.experiments.wong.data import READINGS, adult_tables, is_low
from anonlab.experiments.wong.diagnosis import recall_causes, recall_options
from anonlab.experiments.wong.measures import attack, case_study
from anonlab.experiments.wong.plots import plot_figures
from anonlab.experiments.wong.releases import anatomy_release
from anonlab.experiments.wong.runs import accuracy_table, figures, headline, sensitivity
from anonlab.formula_guard import guard_frame

DESCRIPTION = (
    "Wong, Fu, Wang, Xu, Yu (TKDD 2011), §5: the foreground-knowledge attack on Adult, reproduced."
)


def _markdown(frame: pd.DataFrame, floatfmt: str = ".4f") -> str:
    return frame_to_markdown(frame, floatfmt)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m anonlab.experiments.wong", description=DESCRIPTION
    )
    parser.add_argument("--out", type=Path, default=Path("wong-out"))
    parser.add_argument("--seeds", type=int, default=3, help="Anatomy seeds for the headline")
    parser.add_argument("--rule", default="uniform-half", choices=SMALL_SIGNATURE)
    parser.add_argument("--reading", default="set-only", choices=READINGS)
    parser.add_argument("--no-sensitivity", action="store_true")
    parser.add_argument(
        "--figures", action="store_true", help="Figures 1-3 (Anatomy, MASK, Injector)"
    )
    parser.add_argument("--tcloseness", action="store_true", help="add t-closeness")
    parser.add_argument("--sizes", default="3,4,5,6,7,8")
    args = parser.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    seeds = tuple(range(args.seeds))
    tables: dict = {}
    report = []
    t0 = time.perf_counter()
    table, merged = adult_tables(5)
    tables[(5, None)] = (table, merged)
    n_sensitive = int(is_low(table).sum())
    head = headline(rule=args.rule, reading=args.reading, seeds=seeds, tables=tables)
    guard_frame(head).to_csv(out / "headline.csv", index=False)
    report.append("## Headline (Anatomy, ℓ = r)\n\n" + _markdown(head))
    acc = accuracy_table(seeds=(0,), rule=args.rule)
    guard_frame(acc).to_csv(out / "accuracy.csv", index=False)
    report.append("## Mined vs true global distribution (QI size 5)\n\n" + _markdown(acc))
    rel = anatomy_release(table, merged, 2, seed=0)
    case = case_study(attack(rel, rule=args.rule), rel)
    report.append(
        "## Case study (ℓ = 2, QI size 5, seed 0)\n\n"
        + _markdown(pd.DataFrame([case]).T.reset_index().set_axis(["quantity", "value"], axis=1))
    )
    causes, summaries = recall_causes(seed=0, rule=args.rule, tables=tables)
    guard_frame(causes).to_csv(out / "recall_causes.csv", index=False)
    guard_frame(summaries).to_csv(out / "recall_summaries.csv", index=False)
    options = recall_options(2, 5, seed=0, tables=tables)
    guard_frame(options).to_csv(out / "recall_options.csv", index=False)
    report.append(
        "## Why sensitive records are missed (Anatomy ℓ = r, seed 0)\n\n"
        + _markdown(causes)
        + "\n\n"
        + _markdown(summaries)
        + "\n\nRecall under each open choice (ℓ = 2, QI size 5, seed 0):\n\n"
        + _markdown(options)
    )
    sens = None
    if not args.no_sensitivity:
        sens = sensitivity(tables=tables)
        guard_frame(sens).to_csv(out / "sensitivity.csv", index=False)
        report.append("## Rules and readings (seed 0)\n\n" + _markdown(sens))
    figs = None
    if args.figures or args.tcloseness:
        algs = ["anatomy", "mask", "injector", "injector-suppress"]
        algs += ["t-closeness"] if args.tcloseness else []
        sizes = [int(s) for s in args.sizes.split(",")]
        figs = figures(sizes=sizes, algorithms=algs, rule=args.rule, progress=True)
        guard_frame(figs).to_csv(out / "figures.csv", index=False)
        plot_figures(figs, out)
        report.append("## Figures 1-3 data\n\n" + _markdown(figs))
    claims = check_claims(head, acc, figs, case, n_sensitive)
    report.append(
        "## Claims\n\n"
        + _markdown(pd.DataFrame(claims).assign(ok=lambda f: f.ok.map({True: "yes", False: "NO"})))
    )
    write_report(out, report, time.perf_counter() - t0)
    return 0
