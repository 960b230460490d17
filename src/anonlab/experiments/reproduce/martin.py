"""Martin et al. (ICDE 2007), Figures 5 and 6, as claims (issue 7; issue 18, item 4).

The paper prints no numbers, so every claim is a trend. Two of Figure 5's are sanity checks:
"negated atoms never exceed implications" is a theorem (a negated atom is a basic implication)
and "disclosure reaches 1 by k = 13" holds in any bucket of Adult's 14 occupations (13 negated
atoms leave one value; notes §7). Figure 6's "non-increasing in h" is read two ways, side by
side: strictly (no step rises) and as a trend (Spearman ρ(h, w) < 0 and w falls end to end).

Figure 6 for negated atoms (issue 18, item 5): the paper does not draw it but states that "an
analogous graph ... for negation statements" showed "very similar behavior" (§4). That is read
as the same claim, for each k non-increasing in h, under the same two readings (a paper claim:
it could fail, as it does for implications under the strict reading). The negation curve's
numbers are reported beside the implication ones (:func:`anonlab.experiments.martin.figure6_gap`;
no goal: the paper prints none), and the curve is drawn as its own figure.
"""

from __future__ import annotations

import re
from pathlib import Path

from anonlab.experiments.claims import Figure, PaperResult, claim, from_check, reported, trend

#: Figure 6's two readings of "for each k, non-increasing in h".
FIGURE6_READINGS = {
    "strict": "monotone: no step of w rises",
    "trend": "monotone as a trend: Spearman ρ(h, w) < 0 and w falls end to end",
}

#: Figure 6 for negated atoms: the paper's only statement (§4, after Figure 6).
NEGATION_STATEMENT = (
    "'an analogous graph (which we do not show here) for negation statements ... very similar "
    "behavior': for each k, non-increasing in h"
)

_SANITY = {
    "negated atoms never exceed": (
        "a theorem: a negated atom is a basic implication, so k implications range over a "
        "superset of k negated atoms and their maximum disclosure cannot be lower"
    ),
    "disclosure reaches 1": (
        "by construction: occupation has 14 values, so 13 negated atoms about one person leave "
        "one possible value in any bucket (notes §7); only k <= 12 is informative"
    ),
}


def martin_claims(quick: bool, figures: Path) -> PaperResult:
    """Martin et al. (ICDE 2007), Figures 5 and 6: the stated claims (issue 7). The run takes
    seconds: ``quick`` changes nothing."""
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
        if c["figure"] == 5:
            why = next((w for key, w in _SANITY.items() if key in text), "")
            if why:
                res.claims.append(from_check("martin", c, set5, kind="sanity", why=why))
                continue
            tol = trend(f"'small' read as a largest gap ≤ {martin.SMALL_GAP:g} (issue 7 note)")
            res.claims.append(from_check("martin", c, set5, tolerance=tol))
            continue
        k = int(re.search(r"k=(\d+)", text).group(1))
        reading = "trend" if text.startswith("trend only") else "strict"
        if "negations" in text:
            statement = NEGATION_STATEMENT
            item = f"Figure 6 (negated atoms, not shown), k = {k}: w(h) against h"
        else:
            statement = "for each k, non-increasing in h"
            item = f"Figure 6, k = {k}: least maximum disclosure w(h) against h (implications)"
        res.claims.append(
            from_check(
                "martin",
                {**c, "claim": statement},
                set6,
                item=item,
                tolerance=trend(FIGURE6_READINGS[reading]),
                reading=reading,
            )
        )
    gap = martin.figure6_gap(fig6)
    for k, g in gap.groupby("k"):
        worst = g.loc[g["gap"].idxmax()]
        res.claims.append(
            claim(
                "martin",
                f"Figure 6, k = {k}: w(h) for negated atoms beside implications",
                "not shown (the paper prints no numbers for either curve)",
                f"largest gap {worst['gap']:.4f} at h = {worst['h']:.4f} (implications "
                f"{worst['implications']:.4f}, negations {worst['negations']:.4f}); mean gap "
                f"{g['gap'].mean():.4f} over {len(g)} values of h; negations from "
                f"{g['negations'].iloc[0]:.4f} to {g['negations'].iloc[-1]:.4f}",
                reported("reported beside the implications (the paper gives no number)"),
                set6,
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
        Figure(
            str(martin.plot_figure6(fig6, fdir / "figure6_negations.png", language="negations")),
            "Figure 6, negated atoms (the paper's unshown 'analogous graph')",
            "'very similar behavior' to the implications: for each k, non-increasing in h.",
            set6,
        ),
    ]
    res.notes.append(
        "Figure 6's 'non-increasing in h' has two readings, side by side: `strict` (no step "
        "rises) and `trend` (Spearman ρ(h, w) < 0 and w falls end to end)."
    )
    return res
