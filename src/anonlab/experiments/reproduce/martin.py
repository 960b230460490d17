"""Martin et al. (ICDE 2007), Figures 5 and 6, as claims (issue 7; issue 18, item 4).

The paper prints no numbers, so every claim is a trend. Two of Figure 5's are sanity checks:
"negated atoms never exceed implications" is a theorem (a negated atom is a basic implication)
and "disclosure reaches 1 by k = 13" holds in any bucket of Adult's 14 occupations (13 negated
atoms leave one value; notes §7). Figure 6's "non-increasing in h" is read two ways, side by
side: strictly (no step rises) and as a trend (Spearman ρ(h, w) < 0 and w falls end to end).
"""

from __future__ import annotations

import re
from pathlib import Path

from anonlab.experiments.claims import Figure, PaperResult, from_check, trend

#: Figure 6's two readings of "for each k, non-increasing in h".
FIGURE6_READINGS = {
    "strict": "monotone: no step of w rises",
    "trend": "monotone as a trend: Spearman ρ(h, w) < 0 and w falls end to end",
}

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
        if c["figure"] == 6 and "negations" in text:
            continue  # the paper draws implications only; negations are in the module's report
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
        res.claims.append(
            from_check(
                "martin",
                {**c, "claim": "for each k, non-increasing in h"},
                set6,
                item=f"Figure 6, k = {k}: least maximum disclosure w(h) against h (implications)",
                tolerance=trend(FIGURE6_READINGS[reading]),
                reading=reading,
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
    res.notes.append(
        "Figure 6's 'non-increasing in h' has two readings, side by side: `strict` (no step "
        "rises) and `trend` (Spearman ρ(h, w) < 0 and w falls end to end)."
    )
    return res
