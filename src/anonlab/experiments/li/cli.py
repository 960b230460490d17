"""``python -m anonlab.experiments.li``: the report (docs/reproductions/li.md) — Figures 3-8,
paper beside ours, with the settings and the claims, and the plots."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.experiments.li.claims import check_figure3, check_figures
from anonlab.experiments.li.figure3 import figure3, figure3_comparison
from anonlab.experiments.li.figures import figure4, figure5, figure8, figures6_7
from anonlab.experiments.li.plots import plot_figure3, plot_figure5, plot_panels
from anonlab.experiments.li.runs import Runs
from anonlab.experiments.li.setting import DATASET, HIERARCHY_SET, SEEDS, SENSITIVE, adult_table
from anonlab.experiments.markdown import frame_to_markdown

DESCRIPTION = 'Li & Li, "Injector" (ICDE 2008), §VI: Figures 3-8 on Adult, regenerated.'


def _markdown(frame: pd.DataFrame, floatfmt: str = ".2f") -> str:
    return frame_to_markdown(frame, floatfmt)


def _wide(data: dict[str, Any], metric: str) -> pd.DataFrame:
    """One row per (panel, x) in the frame's order, one column per method."""
    f = data["frame"]
    wide = f.pivot_table(index=["panel", "x"], columns="method", values=metric)
    order = pd.MultiIndex.from_frame(f[["panel", "x"]].drop_duplicates())
    return wide.reindex(order).reset_index()[["panel", "x", "Anatomy", "Injector"]]


#: The bar charts of Figures 4 and 6-8: metric -> (file, y label, title).
_PANEL_PLOTS = {
    "vulnerable": ("li_figure4.png", "vulnerable records", "Figure 4"),
    "confidence_error": ("li_figure6.png", "confidence error (%)", "Figure 6"),
    "false_positive": ("li_figure7_fp.png", "false positives (%)", "Figure 7 (a, b)"),
    "false_negative": ("li_figure7_fn.png", "false negatives (%)", "Figure 7 (c, d)"),
    "query_error": ("li_figure8.png", "average relative error (%)", "Figure 8"),
}


def _plot(data: dict[str, Any], metric: str, out: Path) -> Path:
    name, ylabel, title = _PANEL_PLOTS[metric]
    return plot_panels(data, metric, out / name, ylabel=ylabel, title=title)


def main(argv: Sequence[str] | None = None) -> int:
    """Print Figures 3-8 (paper vs ours, with the settings and the claims); write the plots."""
    parser = argparse.ArgumentParser(
        prog="python -m anonlab.experiments.li", description=DESCRIPTION
    )
    parser.add_argument("--out", type=Path, default=None, help="folder for the PNG plots")
    parser.add_argument("--dataset", default=DATASET, help="adult-train (default) or adult")
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help="Anatomy runs to average")
    parser.add_argument("--figures", default="3,4,5,6,7,8", help="which figures, e.g. 3,4")
    parser.add_argument(
        "--ablation", default="2,3", help="max_conditions of the Figure 3 ablation ('' for none)"
    )
    parser.add_argument(
        "--min-conviction",
        type=float,
        default=1.2,
        help="positive rules of Figures 6-7 (a run at 1.0 is added as a sensitivity)",
    )
    args = parser.parse_args(argv)
    figures = {int(x) for x in args.figures.split(",") if x.strip()}
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    table = adult_table(args.dataset)
    print(f"# Li & Li, Injector (ICDE 2008), §VI, regenerated on {args.dataset}\n")
    print(
        f"{table.n_rows:,} records; quasi-identifiers {list(table.quasi_identifiers)} "
        f"(hierarchy_set={HIERARCHY_SET!r}); sensitive {SENSITIVE!r} "
        f"({table.domain_size(SENSITIVE)} values).\n"
    )
    claims: list[dict] = []
    if 3 in figures:
        fig3 = figure3(table)
        print("## Figure 3 (rules with one condition, redundant ones removed)\n")
        print("Shares in %, ours (paper).\n")
        print(_markdown(figure3_comparison(fig3)) + "\n")
        print(_markdown(fig3["frame"], ".3f") + "\n")
        claims += check_figure3(fig3)
        other = "adult" if args.dataset != "adult" else "adult-train"
        alt = figure3(adult_table(other))
        print(f"### The same on {other} ({alt['settings']['rows']:,} records)\n")
        print(_markdown(figure3_comparison(alt)) + "\n")
        for c in check_figure3(alt):
            print(
                f"- [{other}] {c['claim']}: {'holds' if c['holds'] else 'FAILS'} ({c['numbers']})"
            )
        print()
        for k in [int(x) for x in args.ablation.split(",") if x.strip()]:
            abl = figure3(table, max_conditions=k)
            print(f"### Ablation: up to {k} conditions per rule\n")
            print(_markdown(abl["frame"], ".3f") + "\n")
        if args.out is not None:
            print(f"wrote {plot_figure3(fig3, args.out / 'li_figure3.png')}\n")
    if figures & {4, 5, 6, 7, 8}:
        runs = Runs(table, tuple(range(args.seeds)))
        fig4 = fig67 = fig8 = None
        if 4 in figures:
            fig4 = figure4(runs)
            print("## Figure 4: vulnerable records (matching test; Anatomy mean over seeds)\n")
            print(_markdown(fig4["frame"]) + "\n")
            if args.out is not None:
                _plot(fig4, "vulnerable", args.out)
        if 5 in figures:
            fig5 = figure5(runs)
            print("## Figure 5: time in seconds (this machine)\n")
            print(_markdown(fig5["frame"], ".3f") + "\n")
            if args.out is not None:
                plot_figure5(fig5, args.out / "li_figure5.png")
        if figures & {6, 7}:
            fig67 = figures6_7(runs, min_conviction=args.min_conviction)
            variants = [fig67]
            if args.min_conviction != 1.0:  # sensitivity: every positively associated rule
                variants.append(figures6_7(runs, min_conviction=1.0))
            for data in variants:
                s = data["settings"]
                print(
                    f"## Figures 6 and 7: rule-mining error in % ({s['positive_rules']} rules in "
                    f"the original, support >= {s['min_support']}, conviction >= "
                    f"{s['min_conviction']}, <= {s['positive_max_conditions']} conditions)\n"
                )
                for metric in ("confidence_error", "false_positive", "false_negative"):
                    print(f"### {metric}\n")
                    print(_markdown(_wide(data, metric)) + "\n")
            for data in variants[1:]:
                for c in check_figures(fig67=data):
                    c["claim"] += f" (conviction >= {data['settings']['min_conviction']})"
                    claims.append(c)
            if args.out is not None:
                for metric in ("confidence_error", "false_positive", "false_negative"):
                    _plot(fig67, metric, args.out)
        if 8 in figures:
            fig8 = figure8(runs)
            print(f"## Figure 8: query error in % ({fig8['settings']['n_queries']} queries)\n")
            print(_markdown(_wide(fig8, "query_error")) + "\n")
            if args.out is not None:
                _plot(fig8, "query_error", args.out)
        claims += check_figures(fig4, fig67, fig8)
    print("## Claims\n")
    print(_markdown(pd.DataFrame(claims, columns=["figure", "claim", "holds", "numbers"])) + "\n")
    return 0
