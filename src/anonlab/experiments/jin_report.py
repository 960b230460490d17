"""Jin, Zhang, Das (ASAP, Information Systems 2011), Figures 6 and 9: the claims, plots and
report of :mod:`anonlab.experiments.jin` (docs/reproductions/jin.md), apart from the runs.

:func:`check_claims` judges Figure 6's trends by the rule fixed before the 60-seed run
(:func:`anonlab.experiments.jin.rises_within_noise`, :data:`anonlab.experiments.jin.TREND_SE`
standard errors), the raw ordering beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab.experiments.jin import PAPER, TREND_SE, rises, rises_within_noise, summarize
from anonlab.experiments.markdown import frame_to_markdown


def by_protection(frame: pd.DataFrame | None) -> list[tuple[str, pd.DataFrame]]:
    """(label, rows) per MASK protection of a Figure 6 frame; no label when there is one."""
    if frame is None:
        return []
    if "protection" not in frame or frame["protection"].nunique() <= 1:
        return [("", frame)]
    return [(f" [{p}]", f) for p, f in frame.groupby("protection", sort=False)]


def check_claims(
    a: pd.DataFrame | None,
    b: pd.DataFrame | None,
    f9: pd.DataFrame | None,
    young_rows: Sequence[int] | None = None,
):
    """The paper's claims, each with our evidence. ``young_rows``: :func:`young_doctorates` of
    the table Figure 6b resamples (to trace its false positives)."""
    claims = []
    for tag, fa in by_protection(a):
        sa = summarize(fa, ["k", "m"])
        strict = all(rises(sa[sa.k == k].sort_values("m")["mean"]) for k in sa.k.unique())
        steps = [rises_within_noise(sa[sa.k == k], "m") for k in sorted(sa.k.unique())]
        worst = min(z for _, z in steps)
        pert = all(rises(sa[sa.k == k].sort_values("m")["perturbed_groups"]) for k in sa.k.unique())
        claims.append(
            (
                f"6a{tag}: compromised records rise with m, each k (criterion: no step's mean "
                f"falls by more than {TREND_SE:g} standard errors of the difference; worst step "
                f"{worst:+.2f} SE)",
                all(ok for ok, _ in steps),
            )
        )
        claims.append(
            (f"6a{tag}: ... and every mean strictly ordered (raw, no noise allowance)", strict)
        )
        claims.append((f"6a{tag}: perturbed groups rise with m (each k)", pert))
        claims.append((f"6a{tag}: no false positive", int(fa.false_positive_groups.sum()) == 0))
    for tag, fb in by_protection(b):
        sb = summarize(fb, ["m", "share"])
        strict = all(rises(sb[sb.m == m].sort_values("share")["mean"]) for m in sb.m.unique())
        steps = [rises_within_noise(sb[sb.m == m], "share") for m in sorted(sb.m.unique())]
        worst = min(z for _, z in steps)
        claims.append(
            (
                f"6b{tag}: compromised records rise with the sensitive share, each m (same "
                f"criterion; worst step {worst:+.2f} SE)",
                all(ok for ok, _ in steps),
            )
        )
        claims.append((f"6b{tag}: ... and every mean strictly ordered (raw)", strict))
        fp = int(fb.false_positive_groups.sum())
        claims.append((f"6b{tag}: no false positive", fp == 0))
        if fp and "fp_doctorate_rows" in fb:
            rows = {r for cell in fb.fp_doctorate_rows.dropna().astype(str) for r in cell.split()}
            runs = int((fb.false_positive_groups > 0).sum())
            claims.append(
                (
                    f"6b{tag}: the {fp} false-positive groups ({runs} of {len(fb)} runs) all come "
                    f"from resampled copies of one record, Adult's only doctorate aged <= 25 "
                    f"(row_id {', '.join(sorted(rows)) or '?'}), drawn into an unperturbed group "
                    "of young people where one Doctorate exceeds 10%",
                    len(rows) == 1
                    and (young_rows is None or rows <= {str(int(r)) for r in young_rows}),
                )
            )
    if f9 is not None:
        u = f9[f9.tie_break == "rank"].sort_values("l")
        claims.append(("9: union share rises with ℓ", rises(u.union_share)))
        last = float(u.union_share.iloc[-1])
        claims.append(
            (
                f"9: union share at ℓ = 6 >= 75% (ours {last:.1%}; paper 86.6% on IPUMS)",
                last >= 0.75,
            )
        )
        claims.append(
            ("9: strict pins all true (rank tie-break)", bool((u.strict_precision == 1).all()))
        )
    return pd.DataFrame(claims, columns=["claim", "holds"])


def plot(a: pd.DataFrame | None, b: pd.DataFrame | None, f9: pd.DataFrame | None, out: Path):
    """figure6a.png, figure6b.png, figure9.png (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    if a is not None:
        title = "Fig. 6a: PhD-25 on MASK, Adult"
        paths.append(_figure6_panel(plt, a, "k", "m", "m", title, out / "figure6a.png"))
    if b is not None:
        title = "Fig. 6b: PhD-25 on MASK, Adult resampled, k = 5"
        xlabel = "sensitive records (%)"
        paths.append(_figure6_panel(plt, b, "m", "share", xlabel, title, out / "figure6b.png", 100))
    if f9 is not None:
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for tie, style in (("rank", "-"), ("index", "--")):
            s = f9[f9.tie_break == tie].sort_values("l")
            ax.plot(s.l, 100 * s.union_share, "o" + style, label=f"union ({tie})")
            ax.plot(s.l, 100 * s.strict_share, "s" + style, label=f"strict ({tie})")
        ax.plot([6], [100 * PAPER["fig9_share_l6"]], "k*", markersize=12, label="paper (IPUMS)")
        ax.set_xlabel("ℓ")
        ax.set_ylabel("compromised records (%)")
        ax.set_title("Fig. 9: Algorithm 7 on Hilb, census-kdd-workers", fontsize=9)
        ax.legend(fontsize=7)
        fig.tight_layout()
        paths.append(out / "figure9.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


def _figure6_panel(
    plt,
    frame: pd.DataFrame,
    line: str,
    along: str,
    xlabel: str,
    title: str,
    path: Path,
    scale: float = 1,
) -> Path:
    """One panel of Figure 6 as a PNG: compromised records (mean ± 2 standard errors over the
    seeds) against ``along`` (times ``scale``), one line per value of ``line``, one line style
    per MASK protection."""
    fig, ax = plt.subplots(figsize=(5, 3.5))
    groups = by_protection(frame)
    for (tag, f), style in zip(groups, ("-", "--", ":"), strict=False):
        summary = summarize(f, [line, along])
        for value in sorted(summary[line].unique()):
            s = summary[summary[line] == value].sort_values(along)
            se2 = 2 * s["std"] / np.sqrt(s["seeds"])
            ax.errorbar(
                scale * s[along], s["mean"], yerr=se2, marker="o", capsize=3, ls=style,
                label=f"{line} = {value}{tag}",
            )  # fmt: skip
    ax.set_xlabel(xlabel)
    ax.set_ylabel("compromised records (mean ± 2 SE)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6 if len(groups) > 1 else 8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _markdown(frame: pd.DataFrame, floatfmt: str = ".4g") -> str:
    return frame_to_markdown(frame, floatfmt)


def report(
    a: pd.DataFrame | None,
    b: pd.DataFrame | None,
    f9: pd.DataFrame | None,
    seeds: int,
    repairs: pd.DataFrame | None = None,
    survey: pd.DataFrame | None = None,
    mask_repairs: pd.DataFrame | None = None,
    young_rows: Sequence[int] | None = None,
    mask_survey: pd.DataFrame | None = None,
) -> str:
    """Paper vs ours, with the settings, as markdown."""
    parts = []
    protected = (
        "MASK protects the 4 values below high school (1,566 records) as one value (`set`, the "
        "paper's setting) or each on its own (`per-value`)"
    )
    if a is not None:
        by = ["protection", "k", "m"] if "protection" in a else ["k", "m"]
        parts.append(
            "## Figure 6a: PhD-25 on MASK (Adult, 45,222 rows, 8 QIs, education; "
            f"{protected}; uniform replacement; {seeds} seeds per cell)\n\n"
            "Paper: counts only in the image; compromised records rise with m for each k; "
            "no false positive.\n\n" + _markdown(summarize(a, by))
        )
    if b is not None:
        by = ["protection", "m", "share"] if "protection" in b else ["m", "share"]
        parts.append(
            "## Figure 6b: PhD-25 vs share of sensitive records (k = 5; stratified resampling "
            f"with replacement to 45,222 rows; {protected}; {seeds} seeds per cell)\n\n"
            "Paper: more compromised records as the share grows.\n\n" + _markdown(summarize(b, by))
        )
    if mask_repairs is not None and len(mask_repairs):
        parts.append(
            "## PhD-25 on MASK and its repairs (Adult, k = 5; means over seeds; `set` / "
            "`per-value`: all three protect the below-high-school set, as one value or each "
            "value; `all-values`: MASK+/MASK++ cap every education value, E10)\n\n"
            + _markdown(mask_repairs)
        )
    if f9 is not None:
        parts.append(
            "## Figure 9: Algorithm 7 on Hilb (census-kdd-workers, 49,479 rows, 7 QIs, "
            "detailed occupation, 46 values; the paper: IPUMS, 300,000 rows, 50 values)\n\n"
            "Paper: 259,937 / 300,000 = 86.6% at ℓ = 6, rising with ℓ.\n\n" + _markdown(f9)
        )
    if repairs is not None and len(repairs):
        parts.append(
            "## Algorithm 7 on the repairs (census-kdd-workers, rank tie-break, seed 0)\n\n"
            + _markdown(repairs)
        )
    if survey is not None:
        parts.append(
            "## ASAP checker on random tiny tables (4-7 records, 2 QIs, 4 values, seed 1)\n\n"
            + _markdown(survey)
        )
    if mask_survey is not None:
        parts.append(
            "## ASAP checker on MASK+ / MASK++ (random tiny tables: 4 or 6 records, 2 QIs, "
            "3 values; k = 2, m = 2; naive = minimal-change; seed 2)\n\n" + _markdown(mask_survey)
        )
    if young_rows is not None:
        parts.append(
            f"Adult has {len(young_rows)} record(s) aged <= 25 with a doctorate (row_id "
            f"{', '.join(str(int(r)) for r in young_rows)})."
        )
    parts.append("## Claims\n\n" + _markdown(check_claims(a, b, f9, young_rows)))
    return "\n\n".join(parts) + "\n"
