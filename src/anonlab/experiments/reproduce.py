"""``anonlab reproduce``: every paper's experiments, as claims against the issues' tolerances.

One adapter per paper (:data:`PAPERS`), each built **only** by calling that paper's experiment
module (:mod:`~anonlab.experiments.martin`, :mod:`~anonlab.experiments.kifer`,
:mod:`~anonlab.experiments.wong`, :mod:`~anonlab.experiments.li`, :mod:`~anonlab.experiments.jin`
with :mod:`~anonlab.experiments.jin_utility`) and turning what it returns into
:class:`~anonlab.experiments.claims.Claim` objects and regenerated figures. The papers' values
come from the modules' ``PAPER`` constants; the tolerances are the ones the issues set (issue 4
Kifer, 5 Wong, 6 Li, 7 Martin, 8 Jin), taken from the modules' constants where they exist
(``kifer.ACC_MARGIN``, ``kifer.SPREAD_TOLERANCE``, ``wong.HEADLINE_TOLERANCE``,
``li.COUNT_TOLERANCE``, ``martin.SMALL_GAP``, ...). A number the issue asks to *report* without a
goal is a claim with ``passed = None``.

:func:`reproduce` runs the chosen adapters and writes one folder: ``reproduction.md`` (the
summary, :func:`anonlab.experiments.claims.render_summary`), ``claims.json`` and
``figures/<paper>/*.png``, atomically (the folder appears whole or not at all).

``quick=True`` runs reduced versions (fewer seeds, chains, sweeps, grid points and queries, a
sample of census-kdd-workers for Jin's Figure 10) that finish in minutes on a 2-core machine;
every reduction is written in the claims' settings column. The full run uses each module's own
defaults (its ``main()``'s), which take much longer (Kifer: 2 groupings × 5 seeds × 3 ℓ; Jin:
20 seeds per cell and the qi/qd/s sweeps). Left out even of the full run: Kifer's convergence
sweep and model comparison, Li's Figure 3 ablations (see each module's ``main``).

Quick settings (choices of ours, stated in every claim's settings): Kifer Anatomize grouping
only, grouping seeds 0-1, 2 chains × 60 sweeps; Wong one Anatomy seed and QI sizes 3-5 for
Figures 1-2, without the t-closeness panel; Li Anatomy seeds 0-1; Jin 3 seeds per Figure 6
cell, 3 shares, fewer k/m/ℓ values, 1,000 queries and a 20,000-row sample for Figure 10; Martin
unchanged (it takes seconds).

Each adapter has the signature ``(quick, figures_dir) -> PaperResult``: the claims, the figures
(written under ``figures_dir``), notes, and the error if the experiment failed; the runner times
it. A failing experiment does not stop the others: it is shown in the summary and the command
exits with code 1.
"""

from __future__ import annotations

import datetime as _dt
import inspect
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.experiments.claims import (
    Claim,
    Figure,
    PaperResult,
    as_printed,
    at_least,
    at_most,
    claim,
    paper_inside,
    render_summary,
    reported,
    trend,
    within,
)

SUMMARY_NAME = "reproduction.md"
CLAIMS_NAME = "claims.json"
FIGURES = "figures"


def _rel(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


def _seeds(seeds: Sequence[int]) -> str:
    s = list(seeds)
    if len(s) > 2 and s == list(range(s[0], s[0] + len(s))):
        return f"{s[0]}–{s[-1]}"
    return ", ".join(str(x) for x in s)


def _default(func: Callable, name: str):
    """A keyword's default value (the experiment's own reading, e.g. "comparable")."""
    return inspect.signature(func).parameters[name].default


# ---------------------------------------------------------------------- Martin et al.
def martin_claims(quick: bool, figures: Path) -> PaperResult:
    """Martin et al. (ICDE 2007), Figures 5 and 6: the stated claims (issue 7). No numbers are
    printed in the paper, so every claim is a trend. The run takes seconds: ``quick`` changes
    nothing."""
    from anonlab.experiments import martin

    res = PaperResult("martin", "Martin et al. (ICDE 2007): worst-case background knowledge")
    table = martin.adult_table()
    fig5 = martin.figure5(table)
    fig6 = martin.figure6(table)
    s5, s6 = fig5["settings"], fig6["settings"]
    base = (
        f"adult {s5['rows']:,} rows; QI {', '.join(s5['quasi_identifiers'])} (martin "
        f"hierarchies); sensitive {s5['sensitive']}"
    )
    set5 = f"{base}; node {s5['levels']} ({s5['buckets']} buckets); k = 0..{s5['k_max']}"
    set6 = f"{base}; {s6['tables']} tables; entropy {s6['entropy']}; {s6['grouping']}"
    for c in martin.check_claims(fig5, fig6):
        text = c["claim"]
        if c["figure"] == 6 and "negations" in text:
            continue  # the paper draws implications only; negations are in the module's report
        if c["figure"] == 5 and "gap is small" in text:
            tol = trend(f"'small' read as a largest gap ≤ {martin.SMALL_GAP:g} (issue 7 note)")
        elif text.startswith("trend only"):
            tol = trend("looser reading: Spearman ρ(h, w) < 0 and w falls end to end")
        else:
            tol = trend("holds as the paper states it")
        res.claims.append(
            claim(
                "martin",
                f"Figure {c['figure']}",
                text,
                c["numbers"],
                tol,
                set5 if c["figure"] == 5 else set6,
                holds=c["holds"],
            )
        )
    fdir = figures / "martin"
    fdir.mkdir(parents=True, exist_ok=True)
    res.figures += [
        Figure(
            str(martin.plot_figure5(fig5, fdir / "figure5.png")),
            "Figure 5: maximum disclosure against k",
            "negated atoms never exceed implications, the gap is small, disclosure reaches 1 by "
            "k = 13.",
            set5,
        ),
        Figure(
            str(martin.plot_figure6(fig6, fdir / "figure6.png")),
            "Figure 6: least maximum disclosure against minimum bucket entropy h",
            "for each k, non-increasing in h.",
            set6,
        ),
    ]
    return res


# ---------------------------------------------------------------------- Kifer
def kifer_claims(quick: bool, figures: Path) -> PaperResult:
    """Kifer (SIGMOD 2009), Table 7 (issue 4): per ℓ and grouping reading, mean ACC at least
    baseline + margin, the paper's ACC inside our grouping-seed range ± 0.03, baselines exact;
    ABS, SSQ and the ℓ = 4 confidence statistic reported."""
    from anonlab.experiments import kifer

    res = PaperResult("kifer", "Kifer (SIGMOD 2009): the deFinetti attack, Table 7")
    if quick:
        groupings, seeds, chains, sweeps = ("anatomize",), range(2), 2, 60
    else:
        groupings, seeds, chains = kifer.GROUPINGS, range(5), 4
        sweeps = _default(kifer.table7, "sweeps")
    table = kifer.adult_table()
    runs = kifer.table7(
        groupings=groupings, grouping_seeds=seeds, chains=chains, sweeps=sweeps, table=table
    )
    tol = kifer.SPREAD_TOLERANCE
    for (l, grouping), f in runs.groupby(["l", "grouping"], sort=True):
        l = int(l)
        paper, base = kifer.PAPER[l], kifer.PAPER_BASELINE[l]
        settings = (
            f"{kifer.DATASET} {table.n_rows:,} rows; Anatomy ℓ = {l} ({grouping} grouping), "
            f"grouping seeds {_seeds(seeds)}; {kifer.TARGETS:,} targets (seed "
            f"{kifer.TARGET_SEED}); {chains} chains × {sweeps} sweeps (half burn-in)"
        )
        lo, hi, mean = float(f.ACC.min()), float(f.ACC.max()), float(f.ACC.mean())
        base_acc = float(f.baseline_ACC.mean())
        margin = kifer.ACC_MARGIN[l]
        item = f"Table 7, ℓ = {l}, {grouping}"
        res.claims.append(
            claim(
                "kifer",
                f"{item}, ACC (mean over seeds) vs baseline + {margin:g}",
                paper["ACC"],
                mean,
                at_least(
                    base_acc + margin,
                    f"mean ≥ our baseline + {margin:g} = {base_acc + margin:.3f} (issue 4)",
                ),
                settings,
            )
        )
        res.claims.append(
            claim(
                "kifer",
                f"{item}, ACC: paper inside our seed range ± {tol:g}",
                paper["ACC"],
                f"{lo:.3f}–{hi:.3f}",
                paper_inside(lo - tol, hi + tol, f"paper in [{lo - tol:.3f}, {hi + tol:.3f}]"),
                settings,
            )
        )
        c_lo, c_hi = float(f.ACC_min.min()), float(f.ACC_max.max())
        inside = "inside" if c_lo <= paper["ACC"] <= c_hi else "outside"
        res.claims.append(
            claim(
                "kifer",
                f"{item}, ACC: single-chain range over all seeds (the paper's Min/Max are per run)",
                paper["ACC"],
                f"{c_lo:.3f}–{c_hi:.3f} (paper {inside})",
                reported("reported (beside the issue's goal above)"),
                settings,
            )
        )
        for metric in ("ABS", "SSQ"):
            res.claims.append(
                claim(
                    "kifer",
                    f"{item}, {metric} (mean over seeds)",
                    paper[metric],
                    float(f[metric].mean()),
                    reported("reported (issue 4 sets goals on ACC only)"),
                    settings,
                )
            )
        for metric in ("ACC", "ABS", "SSQ"):
            res.claims.append(
                claim(
                    "kifer",
                    f"{item}, random-worlds baseline {metric}",
                    base[metric],
                    float(f[f"baseline_{metric}"].mean()),
                    as_printed(base[metric], 3 if metric == "ACC" else 2),
                    settings,
                )
            )
        if l == 4:
            for key, col in (("share", "confident_share"), ("precision", "confident_precision")):
                res.claims.append(
                    claim(
                        "kifer",
                        f"{item}, targets given a value with p ≥ 0.8: {key}",
                        kifer.PAPER_CONFIDENT[key],
                        float(f[col].mean()),
                        reported(),
                        settings,
                    )
                )
    res.notes.append(
        "Table 7 is a table: there is no figure to regenerate. ACC uses tie credit; the paper's "
        "values are pooled over its 20 runs."
    )
    return res


# ---------------------------------------------------------------------- Wong et al.
def wong_claims(quick: bool, figures: Path) -> PaperResult:
    """Wong et al. (TKDD 2011), §5 (issue 5): the headline average breach within ± 0.03, the
    other three settings reported with the trends checked, recall and false positives, the
    mined distribution's accuracy, the case study, and Figures 1-2's trends."""
    from anonlab.experiments import wong

    res = PaperResult("wong", "Wong et al. (TKDD 2011): the foreground-knowledge attack")
    rule, reading = "uniform-half", "set-only"
    if quick:
        seeds, sizes, n_queries = (0,), (3, 4, 5), 1000
        algorithms: tuple[str, ...] = ("anatomy", "mask", "injector", "injector-suppress")
    else:
        seeds, sizes, n_queries = (0, 1, 2), (3, 4, 5, 6, 7, 8), 1000
        algorithms = ("anatomy", "mask", "injector", "injector-suppress", "t-closeness")
    tables: dict = {}
    table, merged = wong.adult_tables(5)
    tables[(5, None)] = (table, merged)
    base = (
        f"adult {table.n_rows:,} rows; sensitive education, set {{{', '.join(wong.LOW_EDUCATION)}}}"
        f"; small signatures '{rule}', Anatomy reading '{reading}', raw age"
    )
    n_low = int(wong.is_low(table).sum())
    res.claims.append(
        claim(
            "wong",
            "low-education records",
            wong.PAPER["sensitive_tuples"],
            n_low,
            within(0, "exact"),
            base,
        )
    )
    head = wong.headline(rule=rule, reading=reading, seeds=seeds, tables=tables)
    by = {(int(r.l), int(r.d)): r for r in head.itertuples()}
    for (l, d), paper in wong.PAPER_BREACH.items():
        r = by[(l, d)]
        settings = f"{base}; Anatomy ℓ = r = {l}, QI size {d}; Anatomy seeds {_seeds(seeds)}"
        headline = (l, d) == (2, 5)
        tol = (
            within(wong.HEADLINE_TOLERANCE, f"± {wong.HEADLINE_TOLERANCE:g} (issue 5 goal)")
            if headline
            else reported("reported beside the paper (issue 5: only the trends are checked)")
        )
        res.claims.append(
            claim(
                "wong",
                f"r = {l}, QI size {d}: average breach",
                paper,
                r.average_breach,
                tol,
                settings,
            )
        )
        res.claims.append(
            claim(
                "wong",
                f"r = {l}, QI size {d}: recall",
                wong.PAPER["recall_min"],
                r.recall,
                at_least(wong.PAPER["recall_min"], f"> {wong.PAPER['recall_min']:.0%} (paper)"),
                settings,
            )
        )
        res.claims.append(
            claim(
                "wong",
                f"r = {l}, QI size {d}: non-sensitive records flagged",
                wong.PAPER["false_positive_max"],
                r.false_positive,
                at_most(
                    wong.PAPER["false_positive_max"],
                    f"< {wong.PAPER['false_positive_max']:.0%} (paper)",
                ),
                settings,
            )
        )
    trend_set = f"{base}; Anatomy seeds {_seeds(seeds)}"
    a, b = by[(2, 5)].average_breach, by[(4, 5)].average_breach
    res.claims.append(
        claim(
            "wong",
            "average breach falls as r grows (QI size 5)",
            f"r = 2: {wong.PAPER_BREACH[(2, 5)]} > r = 4: {wong.PAPER_BREACH[(4, 5)]}",
            f"{a:.4f} > {b:.4f}",
            trend("holds (issue 5)"),
            trend_set,
            holds=a > b,
        )
    )
    v = [by[(2, d)].average_breach for d in (3, 5, 8)]
    res.claims.append(
        claim(
            "wong",
            "average breach rises with QI size (r = 2; 3 < 5 < 8)",
            " < ".join(str(wong.PAPER_BREACH[(2, d)]) for d in (3, 5, 8)),
            " < ".join(f"{x:.4f}" for x in v),
            trend("holds (issue 5)"),
            trend_set,
            holds=v[0] < v[1] < v[2],
        )
    )
    acc = wong.accuracy_table(seeds=(0,), rule=rule)
    for r in acc.itertuples():
        res.claims.append(
            claim(
                "wong",
                f"mined global distribution, Anatomy ℓ = {r.l}, QI size {r.d}: mean relative error",
                r.paper_mean_relative_error,
                r.mean_relative_error,
                at_most(r.paper_mean_relative_error, "at most the paper's error"),
                f"{base}; Anatomy seed 0; {r.signatures:.0f} sufficient signatures",
            )
        )
        res.claims.append(
            claim(
                "wong",
                f"mined global distribution, Anatomy ℓ = {r.l}, QI size {r.d}: mean absolute "
                "error (the other reading of the paper's '%')",
                r.paper_mean_relative_error,
                r.mean_absolute_error,
                reported("reported (the module judges the relative reading)"),
                f"{base}; Anatomy seed 0; {r.signatures:.0f} sufficient signatures",
            )
        )
    release = wong.anatomy_release(table, merged, 2, reading=reading, seed=0)
    case = wong.case_study(wong.attack(release, rule=rule), release)
    case_set = f"{base}; Anatomy ℓ = 2, QI size 5, seed 0"
    for item, key, paper_key in (
        (
            "case study: mined p(Occupation = Adm-clerical : low)",
            "mined_adm_clerical",
            "case_adm_clerical",
        ),
        (
            "case study: mined p(Occupation = Craft-repair : low)",
            "mined_craft_repair",
            "case_craft_repair",
        ),
        (
            "case study: posterior of the pair's low-education member",
            "posterior_mined",
            "case_posterior",
        ),
    ):
        paper = wong.PAPER[paper_key]
        res.claims.append(claim("wong", item, paper, case[key], as_printed(paper), case_set))
    figs = wong.figures(sizes=sizes, algorithms=algorithms, rule=rule, n_queries=n_queries)
    fig_set = (
        f"{base}; QI sizes {', '.join(map(str, sizes))}; {', '.join(algorithms)} (k = m = r "
        f"for MASK); r = 2, 10; seed 0; {n_queries:,} COUNT queries"
    )
    for c in wong.check_claims(figs=figs):
        res.claims.append(
            claim("wong", "Figures 1–2", c["claim"], c["detail"], trend(), fig_set, holds=c["ok"])
        )
    fdir = figures / "wong"
    paths = wong.plot_figures(figs, fdir)
    for path in paths:
        r = path.stem.rpartition("_r")[2]
        res.figures.append(
            Figure(
                str(path),
                f"Figures 1–2 (r = {r}): problematic share, average Δ, attack time, query error "
                "against QI size",
                "the problematic share grows with QI size; MASK below Anatomy and Injector; "
                "t-closeness (t = 0.2) no breach at r = 2, some at r = 10 (numbers lost).",
                fig_set,
            )
        )
    res.notes.append(
        ("Quick run: no t-closeness panel in Figures 1–2 (the full run has it). " if quick else "")
        + f"Anatomy seeds here: {len(seeds)}; the paper averages 100 Anatomy runs."
    )
    return res


# ---------------------------------------------------------------------- Li & Li
def li_claims(quick: bool, figures: Path) -> PaperResult:
    """Li & Li (ICDE 2008), Figures 3-8 (issue 6): rule counts within ± 10, falling with minExp,
    N0 ≈ 0; Injector 0 vulnerable records in every setting; lower errors than Anatomy."""
    from anonlab.experiments import li

    res = PaperResult("li", "Li & Li (ICDE 2008): Injector and negative association rules")
    seeds = (0, 1) if quick else li.SEEDS
    table = li.adult_table()
    fig3 = li.figure3(table)
    s3 = fig3["settings"]
    set3 = (
        f"{li.DATASET} {s3['rows']:,} rows; QI {', '.join(s3['quasi_identifiers'])} "
        f"(li-injector hierarchies); sensitive {s3['sensitive']}; ≤ {s3['max_conditions']} "
        "condition per rule, redundant ones removed"
    )
    ours3 = fig3["frame"].set_index("min_exp")
    paper3 = fig3["paper"].set_index("min_exp")
    tol = li.COUNT_TOLERANCE
    for me in ours3.index:
        res.claims.append(
            claim(
                "li",
                f"Figure 3, minExp {me:g}: rules",
                int(paper3.loc[me, "rules"]),
                int(ours3.loc[me, "rules"]),
                within(tol, f"± {tol} rules (issue 6)"),
                set3,
            )
        )
        res.claims.append(
            claim(
                "li",
                f"Figure 3, minExp {me:g}: N1 (% of records with one incompatible value)",
                float(paper3.loc[me, "N1"]),
                float(ours3.loc[me, "N1"]),
                reported(),
                set3,
            )
        )
    for c in li.check_figure3(fig3):
        if c["claim"].startswith("rule counts within"):
            continue  # one claim per minExp above
        res.claims.append(
            claim("li", "Figure 3", c["claim"], c["numbers"], trend(), set3, holds=c["holds"])
        )
    runs = li.Runs(table, tuple(seeds))
    fig4 = li.figure4(runs)
    fig5 = li.figure5(runs)
    fig67 = li.figures6_7(runs)
    fig8 = li.figure8(runs)
    setr = (
        f"{li.DATASET} {table.n_rows:,} rows; Anatomy seeds {_seeds(seeds)} (mean); Injector "
        f"deterministic, suppress=True; minExp {li.DEFAULT_MIN_EXPECTATION:g} / ℓ = "
        f"{li.DEFAULT_L} unless varied"
    )
    f4 = fig4["frame"]
    for r in f4[f4["method"] == "Injector"].itertuples():
        res.claims.append(
            claim(
                "li",
                f"Figure 4, {r.panel} = {r.x:g}: Injector's vulnerable records (matching)",
                0,
                int(r.vulnerable),
                within(0, "exactly 0 (issue 6)"),
                f"{setr}; suppressed {int(r.suppressed)}",
            )
        )
    for r in f4[f4["method"] == "Anatomy"].itertuples():
        res.claims.append(
            claim(
                "li",
                f"Figure 4, {r.panel} = {r.x:g}: Anatomy's vulnerable records (matching)",
                "many (bar heights, not printed)",
                f"{r.vulnerable:,.1f} (seeds: {int(r.vulnerable_min):,}–{int(r.vulnerable_max):,})",
                reported("reported (issue 6: 'report ours')"),
                setr,
            )
        )
    for c in li.check_figures(fig4, fig67, fig8):
        res.claims.append(
            claim(
                "li",
                f"Figure {c['figure']}",
                c["claim"],
                c["numbers"],
                trend(),
                setr,
                holds=c["holds"],
            )
        )
    f5 = fig5["frame"]
    res.claims.append(
        claim(
            "li",
            "Figure 5: Injector's time (rule mining + bucketization), largest setting, seconds",
            "within seconds, as fast as Anatomy",
            float(f5["injector_total_s"].max()),
            reported("reported (machine shared with other jobs)"),
            f"{setr}; Anatomy's largest {f5['anatomy_s'].max():.3f} s",
        )
    )
    fdir = figures / "li"
    fdir.mkdir(parents=True, exist_ok=True)
    s67 = fig67["settings"]
    res.figures += [
        Figure(
            str(li.plot_figure3(fig3, fdir / "figure3.png")),
            "Figure 3: negative rules and incompatible values per record",
            "45, 39, 32, 22, 15 rules at minExp 0.75 … 0.95; N1 80.4% … 96.2%, N0 = 0.",
        ),
        Figure(
            str(
                li.plot_panels(
                    fig4,
                    "vulnerable",
                    fdir / "figure4.png",
                    ylabel="vulnerable records",
                    title="Figure 4",
                )
            ),
            "Figure 4: vulnerable records, Anatomy vs Injector",
            "Injector has 0 vulnerable records in every setting; Anatomy many.",
        ),
        Figure(
            str(li.plot_figure5(fig5, fdir / "figure5.png")),
            "Figure 5: time",
            "Injector within seconds, rule mining the main cost; as fast as Anatomy.",
        ),
        Figure(
            str(
                li.plot_panels(
                    fig67,
                    "confidence_error",
                    fdir / "figure6.png",
                    ylabel="confidence error (%)",
                    title="Figure 6",
                )
            ),
            f"Figure 6: confidence error ({s67['positive_rules']} positive rules)",
            "Injector's confidence error lower than Anatomy's in every setting.",
        ),
        Figure(
            str(
                li.plot_panels(
                    fig67,
                    "false_positive",
                    fdir / "figure7_fp.png",
                    ylabel="false positives (%)",
                    title="Figure 7 (a, b)",
                )
            ),
            "Figure 7 (a, b): identification error, false positives",
            "lower for Injector than for Anatomy in every setting.",
        ),
        Figure(
            str(
                li.plot_panels(
                    fig67,
                    "false_negative",
                    fdir / "figure7_fn.png",
                    ylabel="false negatives (%)",
                    title="Figure 7 (c, d)",
                )
            ),
            "Figure 7 (c, d): identification error, false negatives",
            "lower for Injector than for Anatomy in every setting.",
        ),
        Figure(
            str(
                li.plot_panels(
                    fig8,
                    "query_error",
                    fdir / "figure8.png",
                    ylabel="average relative error (%)",
                    title="Figure 8",
                )
            ),
            f"Figure 8: query error ({fig8['settings']['n_queries']:,} queries)",
            "Injector's query error lower than Anatomy's in every setting.",
        ),
    ]
    res.figures = [
        replace(f, settings=set3 if "Figure 3" in f.title else setr) for f in res.figures
    ]
    res.notes.append(
        f"Figures 6–7 use positive rules with support ≥ {s67['min_support']:g}, conviction ≥ "
        f"{s67['min_conviction']:g}, ≤ {s67['positive_max_conditions']} conditions "
        f"({s67['positive_rules']} rules in the original; the paper's thresholds are unstated)."
    )
    return res


# ---------------------------------------------------------------------- Jin et al.
def jin_claims(quick: bool, figures: Path) -> PaperResult:
    """Jin et al. (ASAP, 2011), Figures 6, 7, 9, 10 (issue 8): the attacks' trends and counts,
    Algorithm 7's share at ℓ = 6 against the issue's expectation, the repairs' utility claims."""
    from anonlab.experiments import jin
    from anonlab.experiments import jin_utility as ju

    res = PaperResult(
        "jin", "Jin et al. (ASAP, Information Systems 2011): algorithm-based disclosure"
    )
    fdir = figures / "jin"
    fdir.mkdir(parents=True, exist_ok=True)
    if quick:
        seeds, shares = range(3), (0.10, 0.15, 0.20)
        f7_kw = {"ks": (5, 20, 100), "ms": (2, 3, 5), "k_ablation": (10,), "n_queries": 1000}
        f10_kw = {"ls": (2, 4, 6), "l_ablation": (8,), "n_queries": 1000}
        census_rows = 20_000
    else:
        seeds, shares = range(20), _default(jin.figure6b, "shares")
        f7_kw, f10_kw, census_rows = {}, {}, None
    adult = jin.adult_table()
    n_low = int(
        adult.value_mask(jin.ADULT_SENSITIVE, list(jin.LOW_EDUCATION))[
            adult.codes[jin.ADULT_SENSITIVE]
        ].sum()
    )
    base6 = (
        f"adult {adult.n_rows:,} rows, {len(jin.ADULT_QI)} QIs (Table 6 order, jin-asap "
        "hierarchies), education, "
        f"sensitive set of {len(jin.LOW_EDUCATION)} values protected as one value (below high "
        "school; the per-value reading is reported beside it by the jin module); MASK uniform "
        "replacement; seeds "
        f"{_seeds(seeds)} per cell"
    )
    res.claims.append(
        claim(
            "jin",
            "Adult: sensitive records",
            jin.PAPER["adult_sensitive"],
            n_low,
            within(0, "exact"),
            base6,
        )
    )
    a = jin.figure6a(seeds=seeds, table=adult)
    b = jin.figure6b(shares=shares, seeds=seeds, table=adult)
    sa = jin.summarize(a, ["k", "m"])
    for k, f in sa.groupby("k"):
        f = f.sort_values("m")
        res.claims.append(
            claim(
                "jin",
                f"Figure 6a, k = {k}: compromised records rise with m (mean over seeds)",
                "grows with m",
                ", ".join(f"m={m}: {v:.1f}" for m, v in zip(f.m, f["mean"], strict=True)),
                trend("non-decreasing in m (issue 8: on average)"),
                base6,
                holds=bool(np.all(np.diff(f["mean"].to_numpy()) >= 0)),
            )
        )
        res.claims.append(
            claim(
                "jin",
                f"Figure 6a, k = {k}: perturbed groups rise with m",
                "must rise with m (issue 8)",
                ", ".join(f"m={m}: {v:.0f}" for m, v in zip(f.m, f.perturbed_groups, strict=True)),
                trend("non-decreasing in m"),
                base6,
                holds=bool(np.all(np.diff(f.perturbed_groups.to_numpy()) >= 0)),
            )
        )
    sb = jin.summarize(b, ["m", "share"])
    k6b = _default(jin.figure6b, "k")
    set6b = f"{base6}; k = {k6b}; stratified resampling to {adult.n_rows:,} rows"
    for m, f in sb.groupby("m"):
        f = f.sort_values("share")
        res.claims.append(
            claim(
                "jin",
                f"Figure 6b, m = {m}: compromised records rise with the sensitive share",
                "grows with the share of sensitive records",
                ", ".join(f"{s:.0%}: {v:.1f}" for s, v in zip(f.share, f["mean"], strict=True)),
                trend("non-decreasing in the share (mean over seeds)"),
                set6b,
                holds=bool(np.all(np.diff(f["mean"].to_numpy()) >= 0)),
            )
        )
    for name, frame, settings in (("6a", a, base6), ("6b", b, set6b)):
        res.claims.append(
            claim(
                "jin",
                f"Figure {name}: false-positive groups (all cells and seeds)",
                jin.PAPER["fig6_false_positives"],
                int(frame.false_positive_groups.sum()),
                within(0, "exactly 0 (the paper: none)"),
                settings,
            )
        )
    census = jin.census_table()
    f9 = jin.figure9(table=census)
    set9 = (
        f"{jin.CENSUS_DATASET} {census.n_rows:,} rows (for the paper's 300,000 IPUMS rows), "
        f"{len(jin.CENSUS_QI)} QIs, {jin.CENSUS_SENSITIVE} "
        f"({census.domain_size(jin.CENSUS_SENSITIVE)} values); Hilb; "
        "rank tie-break"
    )
    u = f9[f9.tie_break == "rank"].sort_values("l")
    res.claims.append(
        claim(
            "jin",
            "Figure 9: union share rises with ℓ",
            "monotone in ℓ",
            ", ".join(f"ℓ={l}: {s:.1%}" for l, s in zip(u.l, u.union_share, strict=True)),
            trend("non-decreasing in ℓ"),
            set9,
            holds=bool(np.all(np.diff(u.union_share.to_numpy()) >= 0)),
        )
    )
    last = u.iloc[-1]
    expected = jin.PAPER["census_expected_union_l6"]
    res.claims.append(
        claim(
            "jin",
            f"Figure 9, ℓ = {int(last.l)}: compromised share (union rule)",
            jin.PAPER["fig9_share_l6"],
            float(last.union_share),
            at_least(expected, f"≥ {expected:.0%} on census-kdd-workers (issue 8's expectation)"),
            set9,
        )
    )
    res.claims.append(
        claim(
            "jin",
            f"Figure 9, ℓ = {int(last.l)}: strict rule, share and precision",
            "not in the paper (issue 8: report beside the union count)",
            f"{last.strict_share:.1%}, precision {last.strict_precision}",
            reported(),
            set9,
        )
    )
    described = {
        "figure6a": ("Figure 6a: PhD-25 on MASK, compromised records against m", base6,
                     "compromised records grow with m, for each k; no false positive."),
        "figure6b": ("Figure 6b: PhD-25 on MASK against the share of sensitive records", set6b,
                     "compromised records grow with the share of sensitive records."),
        "figure9": ("Figure 9: Algorithm 7 on Hilb, compromised share against ℓ", set9,
                    "compromised share rises with ℓ; 86.6% at ℓ = 6 (IPUMS, 300,000 rows)."),
    }  # fmt: skip
    for p in jin.plot(a, b, f9, fdir):
        title, settings, trend_text = described[p.stem]
        res.figures.append(Figure(str(p), title, trend_text, settings))
    # Figures 7 and 10: utility of the repairs
    table7 = ju.adult_table()
    f7 = ju.figure7(table7, **f7_kw)
    census10 = ju.census_table(rows=census_rows)
    f10 = ju.figure10(census10, **f10_kw)
    nq7 = f7_kw.get("n_queries", _default(ju.figure7, "n_queries"))
    nq10 = f10_kw.get("n_queries", _default(ju.figure10, "n_queries"))
    set7 = (
        f"adult {table7.n_rows:,} rows; {nq7:,} COUNT queries, qd = 3, s = 5%, seed 0; MASK, "
        "MASK+ and MASK++ all protect the low-education set as one value (like with like; the "
        "all-values reading of notes E10 is reported beside it by the jin_utility module)"
    )
    sample = "" if census_rows is None else f" (seeded sample of {census10.n_rows:,})"
    set10 = f"census-kdd-workers{sample}; {nq10:,} COUNT queries, qd = 3, s = 5%, seed 0"
    comparable = _default(ju.claims10, "comparable")
    extra = []  # (frame, settings, figure): the qi / qd / s panels, full runs only
    if not quick:
        extra = [(ju.sweeps("7", table7), set7, "7"), (ju.sweeps("10", census10), set10, "10")]
    for rows, settings in (
        (ju.claims7(f7), set7),
        (ju.claims10(f10), set10),
        *((ju.claims_sweeps(f), s) for f, s, _ in extra),
    ):
        for c in rows:
            words = "holds at every setting drawn"
            if c["panel"].startswith("10") and c["panel"] not in ("10e", "10f", "10g", "10h"):
                words += f"; 'comparable' = within {comparable:g}× the error"
            res.claims.append(
                claim(
                    "jin",
                    f"Figure {c['panel']}",
                    c["paper"],
                    c["ours"],
                    trend(words),
                    settings,
                    holds=c["holds"],
                )
            )
    p7 = ju.plot(f7, fdir / "figure7.png", "Figure 7: MASK vs MASK++ (Adult)")
    p10 = ju.plot(f10, fdir / "figure10.png", "Figure 10: Mondrian++/Hilb++ (census-kdd-workers)")
    res.figures.append(
        Figure(
            str(p7),
            "Figure 7 (a, b, f, g, k): query error, MASK vs MASK+ / MASK++",
            "; ".join(f"({p}) {ju.CLAIMS[p]}" for p in ("7a", "7b", "7f", "7g", "7k")),
            set7,
        )
    )
    res.figures.append(
        Figure(
            str(p10),
            "Figure 10 (a, e, i): query error, Mondrian / Hilb and their repairs",
            "; ".join(f"({p}) {ju.CLAIMS[p]}" for p in ("10a", "10e", "10i")),
            set10,
        )
    )
    for frame, _, name in extra:
        path = ju.plot(frame, fdir / f"figure{name}_sweeps.png", f"Figure {name}: qi, qd, s")
        panels = [p for v in ju.SWEEP_PANELS[name].values() for p in v]
        res.figures.append(
            Figure(
                str(path),
                f"Figure {name}: qi / qd / s panels",
                "; ".join(f"({p}) {ju.CLAIMS[p]}" for p in panels),
                set7 if name == "7" else set10,
            )
        )
    if quick:
        res.notes.append(
            "Quick run: the qi / qd / s panels (Figures 7c–e, h–j and 10b–d, f–h) are not run; "
            "Tables 7–8 (running times) belong to benchmarks/, not here."
        )
    return res


#: Paper key -> adapter. ``anonlab reproduce`` accepts these names (and ``all``).
PAPERS: dict[str, Callable[[bool, Path], PaperResult]] = {
    "martin": martin_claims,
    "kifer": kifer_claims,
    "wong": wong_claims,
    "li": li_claims,
    "jin": jin_claims,
}


def resolve_papers(names: Sequence[str] | None) -> list[str]:
    """Paper keys in :data:`PAPERS` order; empty or ``all`` means every paper."""
    names = [n.strip().lower() for n in (names or []) if n.strip()]
    if not names or "all" in names:
        return list(PAPERS)
    unknown = [n for n in names if n not in PAPERS]
    if unknown:
        raise AnonlabError(f"unknown paper(s) {unknown}; valid: {', '.join(PAPERS)} or all")
    return [p for p in PAPERS if p in names]


def run_papers(
    papers: Sequence[str],
    figures: Path,
    *,
    quick: bool,
    progress: Callable[[str], None] | None = None,
) -> list[PaperResult]:
    """Run each adapter; a failure is recorded in its result (the others still run)."""
    results = []
    for key in resolve_papers(papers):
        if progress:
            progress(f"{key}: running{' (quick)' if quick else ''}")
        t0 = time.perf_counter()
        try:
            r = PAPERS[key](quick, figures)
        except Exception as exc:  # noqa: BLE001 — reported in the summary, not swallowed
            r = PaperResult(key, key, error=f"{type(exc).__name__}: {exc}")
        r.seconds = time.perf_counter() - t0
        n = r.counts()
        if progress:
            progress(
                f"{key}: {n['pass']} pass, {n['miss']} miss, {n['reported']} reported "
                f"({r.seconds:.1f} s)" + (f"; FAILED: {r.error}" if r.error else "")
            )
        results.append(r)
    return results


def header(command: str, quick: bool, seconds: float) -> str:
    """The summary's header: what produced it, when, and in which mode."""
    from anonlab._version import __version__

    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    mode = (
        "**--quick**: reduced settings (fewer seeds, chains, sweeps, grid points and queries; "
        "each claim's settings column says which), so some numbers differ from a full run"
        if quick
        else "full settings (each experiment module's defaults)"
    )
    return (
        "# Reproduction of the papers' experiments\n\n"
        f"Produced by `{command}` (anonlab {__version__}, {now}; {seconds:.0f} s on a shared "
        f"2-core machine). Mode: {mode}. **Generated file: do not edit by hand.**\n\n"
        "Each row: the paper's value (or stated trend), ours, ours − paper, the tolerance the "
        "paper's issue set, the settings, and the result: *pass*, **miss**, or *reported* (the "
        "issue asks for the number beside the paper's without a goal). Code: "
        "`src/anonlab/experiments/reproduce.py` (adapters) and `claims.py` (protocol)."
    )


def reproduce(
    papers: Sequence[str] | None,
    out: str | os.PathLike,
    *,
    quick: bool = False,
    force: bool = False,
    summary: str | os.PathLike | None = None,
    command: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[PaperResult]:
    """Run the papers' experiments and write ``out`` (atomically): the summary, the claims as
    JSON and the figures; optionally a copy of the summary at ``summary`` (figure links made
    relative to it).

    Raises
    ------
    AnonlabError
        An unknown paper, an existing ``out`` without ``force``, a missing folder for ``out`` or
        ``summary``.
    """
    from anonlab.release_io import atomic_directory, atomic_write_text, require_output_free

    keys = resolve_papers(papers)
    out = require_output_free(out, force)
    if summary is not None:
        summary = Path(summary)
        if not summary.parent.is_dir():
            raise AnonlabError(f"the folder {str(summary.parent)!r} for --summary does not exist")
        if summary.is_dir():
            raise AnonlabError(f"--summary {str(summary)!r} is a directory; give a .md file")
    command = command or (
        f"anonlab reproduce {' '.join(keys)}{' --quick' if quick else ''} --out {out}"
    )
    t0 = time.perf_counter()
    with atomic_directory(out, force=force) as tmp:
        results = run_papers(keys, tmp / FIGURES, quick=quick, progress=progress)
        for r in results:
            r.figures = [replace(f, path=_rel(Path(f.path), tmp)) for f in r.figures]
        head = header(command, quick, time.perf_counter() - t0)
        atomic_write_text(tmp / SUMMARY_NAME, render_summary(results, head))
        payload = {
            "command": command,
            "quick": quick,
            "papers": [
                {
                    "paper": r.key,
                    "title": r.title,
                    "seconds": r.seconds,
                    "error": r.error,
                    "counts": r.counts(),
                    "claims": [c.to_json() for c in r.claims],
                    "figures": [f.path for f in r.figures],
                }
                for r in results
            ],
        }
        atomic_write_text(tmp / CLAIMS_NAME, json.dumps(payload, indent=2, default=str) + "\n")
    if summary is not None:
        moved = [
            replace(
                r,
                figures=[replace(f, path=_rel(out / f.path, summary.parent)) for f in r.figures],
            )
            for r in results
        ]
        atomic_write_text(summary, render_summary(moved, head))
    return results


def claims_frame(results: Sequence[PaperResult]) -> pd.DataFrame:
    """Every claim as one row (for scripts and tests)."""
    rows: list[dict] = []
    for r in results:
        rows += [c.to_json() for c in r.claims]
    return pd.DataFrame(rows)


__all__ = [
    "PAPERS",
    "Claim",
    "claims_frame",
    "reproduce",
    "resolve_papers",
    "run_papers",
]
