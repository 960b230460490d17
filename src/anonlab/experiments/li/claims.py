"""Li & Li (ICDE 2008): the paper's claims on Figures 3-8 as checks, ``{"figure", "claim",
"holds", "numbers"}`` each (:func:`anonlab.experiments.claims.from_check` turns them into claims
for ``anonlab reproduce``), and Figure 3's shape."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonlab.experiments.li.setting import COUNT_TOLERANCE, SHARE_COLUMNS


def figure3_mode(data: dict[str, Any]) -> dict[str, Any]:
    """Figure 3's shape: N1 the largest of the bins N0 … N≥5 at every minExp.

    The paper's table shows it at every minExp (N1 80.4% … 96.2%, the next bin at most 15.9%);
    the paper states no other shape for N2 … N≥5, whose values are reported bin by bin.

    Returns
    -------
    dict
        ``holds`` (bool: N1 strictly above every other bin at every minExp of ours),
        ``ours`` and ``paper`` (the largest bin and its share per minExp, in words).
    """

    def words(frame: pd.DataFrame) -> tuple[bool, str]:
        shares = frame.set_index("min_exp")[list(SHARE_COLUMNS)]
        top = shares.idxmax(axis=1)
        others = shares.drop(columns="N1").max(axis=1)
        ok = bool((shares["N1"] > others).all())
        text = ", ".join(
            f"{me:g}: {top[me]} {shares.loc[me, top[me]]:.1f}% (next {others[me]:.1f}%)"
            if top[me] == "N1"
            else f"{me:g}: {top[me]} {shares.loc[me, top[me]]:.1f}%"
            for me in shares.index
        )
        return ok, text

    holds, ours = words(data["frame"])
    _, paper = words(data["paper"])
    return {"holds": holds, "ours": ours, "paper": paper}


def check_figure3(data: dict[str, Any], tolerance: int = COUNT_TOLERANCE) -> list[dict]:
    """The claims on Figure 3: counts near the paper's, falling with minExp, N0 ≈ 0."""
    f = data["frame"]
    paper = data["paper"].set_index("min_exp")["rules"]
    claims = []
    diffs = {
        me: int(r) - int(paper[me])
        for me, r in zip(f["min_exp"], f["rules"], strict=True)
        if me in paper.index
    }
    claims.append(
        {
            "figure": 3,
            "claim": f"rule counts within ±{tolerance} of the paper's",
            "holds": bool(diffs) and all(abs(v) <= tolerance for v in diffs.values()),
            "numbers": ", ".join(f"{me:g}: {v:+d}" for me, v in diffs.items()),
        }
    )
    r = f["rules"].to_numpy()
    claims.append(
        {
            "figure": 3,
            "claim": "rule count falls strictly as minExp grows",
            "holds": bool(np.all(np.diff(r) < 0)),
            "numbers": " > ".join(str(int(x)) for x in r),
        }
    )
    claims.append(
        {
            "figure": 3,
            "claim": "N0 ≈ 0 (below 0.05%, i.e. 0.0% as the paper rounds)",
            "holds": bool((f["N0"] < 0.05).all()),
            "numbers": ", ".join(
                f"{me:g}: {n} records ({s:.3f}%)"
                for me, n, s in zip(f["min_exp"], f["N0_records"], f["N0"], strict=True)
            ),
        }
    )
    return claims


def check_figures(
    fig4: dict | None = None, fig67: dict | None = None, fig8: dict | None = None
) -> list[dict]:
    """The paper's claims on Figures 4, 6-8: Injector has 0 vulnerable records everywhere and
    lower errors than Anatomy in every setting."""
    claims = []
    if fig4 is not None:
        f = fig4["frame"]
        inj = f[f["method"] == "Injector"]
        ana = f[f["method"] == "Anatomy"]
        claims.append(
            {
                "figure": 4,
                "claim": "Injector: 0 vulnerable records (matching) in every setting",
                "holds": bool((inj["vulnerable"] == 0).all()),
                "numbers": f"max {inj['vulnerable'].max():g}; suppressed "
                f"{int(inj['suppressed'].max())}",
            }
        )
        claims.append(
            {
                "figure": 4,
                "claim": "Anatomy has vulnerable records in every setting",
                "holds": bool((ana["vulnerable"] > 0).all()),
                "numbers": ", ".join(
                    f"{p}={x:g}: {v:.0f}"
                    for p, x, v in zip(ana["panel"], ana["x"], ana["vulnerable"], strict=True)
                ),
            }
        )
    for fig, data, metrics in (
        (6, fig67, ("confidence_error",)),
        (7, fig67, ("false_positive", "false_negative")),
        (8, fig8, ("query_error",)),
    ):
        if data is None:
            continue
        f = data["frame"]
        for metric in metrics:
            wide = f.pivot_table(index=["panel", "x"], columns="method", values=metric)
            lower = wide["Injector"] < wide["Anatomy"]
            tie = np.isclose(wide["Injector"], wide["Anatomy"])
            fails = [f"{p}={x:g}" for (p, x), ok in lower.items() if not ok]
            claims.append(
                {
                    "figure": fig,
                    "claim": f"Injector's {metric.replace('_', ' ')} < Anatomy's in every setting",
                    "holds": bool(lower.all()),
                    "numbers": (
                        f"Injector {wide['Injector'].min():.2f}-{wide['Injector'].max():.2f}, "
                        f"Anatomy {wide['Anatomy'].min():.2f}-{wide['Anatomy'].max():.2f}"
                        + (f"; not lower at {', '.join(fails)}" if fails else "")
                        + (f"; {int(tie.sum())} ties" if tie.any() else "")
                    ),
                }
            )
    return claims
