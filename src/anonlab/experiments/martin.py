"""Martin et al. (ICDE 2007), §4: Figures 5 and 6 on Adult, regenerated.

    python -m anonlab.experiments.martin [--out DIR] [--k-max 12]

Setting (paper §4; notes ``notes/martin-worst-case-background-knowledge.md`` §8):

* Data: Adult, train + test without missing values (45,222 rows), projected onto the
  quasi-identifiers Age, Marital Status, Race, Gender and the sensitive attribute Occupation
  (14 values): :func:`adult_table`.
* Hierarchies: ``hierarchy_set="martin"``. Age: exact → intervals of 5, 10, 20, 40 years
  (aligned at multiples of the width) → ``*`` (height 5); Marital Status: value → spouse
  present / not present → ``*`` (height 2); Race and Gender: value → ``*`` (height 1). The lattice
  of full-domain generalizations has 6·3·2·2 = 72 nodes, all of them "anonymized tables" of the
  paper. A generalized table is attacked as a bucketization with one bucket per equivalence
  class (the paper: "all our results hold for full-domain generalization as well").
* Knowledge: ``k = 0..12`` pieces, implications (``L^k_basic``) and negated atoms, computed by
  :func:`anonlab.attacks.disclosure_curve` (floats).

**Figure 5** (:func:`figure5`): the table with Age in 20-year intervals and every other
quasi-identifier suppressed (node ``age=3, marital-status=2, race=1, sex=1``), maximum
disclosure against ``k`` for both languages.

**Figure 6** (:func:`figure6`). *Minimum bucket entropy* of a table: the least, over its
buckets (equivalence classes) ``b``, of the Shannon entropy of the bucket's sensitive
distribution in **natural log** (nats), ``H_b = -sum_s p_b(s) ln p_b(s)``, ``p_b(s) =
n_b(s)/n_b``, ``0 ln 0 = 0``. The paper does not state the base; the natural log follows
entropy ℓ-diversity (Machanavajjhala et al.), and the base only rescales the h axis, so the
shape of the curve and the claim do not depend on it. *Grouping*, as the paper words it: "for
every entropy value h, we looked at all tables T(h) for which the minimum entropy ... was
**equal to** h"; so the x values are the distinct minimum entropies among the 72 tables (equal
when they agree to 1e-9 nats: different nodes often share their least-entropy bucket), and
``w(h, k)`` is the least maximum disclosure for ``k`` implications among the tables whose
minimum entropy equals ``h``. The claim checked is the paper's: ``w(·, k)`` is non-increasing
in ``h``. For comparison the data also hold ``w_at_least(h, k)``, the least maximum disclosure
among tables with minimum entropy ``>= h`` (non-increasing by construction, not the paper's
definition), and the same curves for negated atoms (the paper's unshown "analogous graph").
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.anonymize import generalize
from anonlab.attacks import disclosure_curve
from anonlab.experiments.markdown import frame_to_markdown
from anonlab.table import Table

QUASI_IDENTIFIERS = ("age", "marital-status", "race", "sex")
SENSITIVE = "occupation"
FIGURE5_LEVELS = {"age": 3, "marital-status": 2, "race": 1, "sex": 1}
FIGURE6_KS = (1, 3, 5, 7, 9, 11)
LANGUAGES = ("implications", "negations")
#: "The difference ... is not too large": our reading, the largest gap over k is at most this.
SMALL_GAP = 0.05
#: Two minimum entropies (nats) closer than this are the same h.
H_TOLERANCE = 1e-9
#: Slack for float comparisons in the claim checks.
EPS = 1e-12


def adult_table() -> Table:
    """Adult (45,222 rows), the paper's four quasi-identifiers with Martin's hierarchies."""
    return Table.from_dataset(
        "adult",
        quasi_identifiers=list(QUASI_IDENTIFIERS),
        sensitive=SENSITIVE,
        hierarchy_set="martin",
    )


def min_bucket_entropy(histogram: np.ndarray) -> float:
    """Least Shannon entropy (natural log) of the rows of a bucket × value count matrix."""
    hist = np.asarray(histogram, dtype=np.float64)
    p = hist / hist.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return float(terms.sum(axis=1).min())


def lattice_nodes(table: Table) -> list[dict[str, int]]:
    """Every full-domain generalization of ``table`` (levels per quasi-identifier)."""
    qi = table.quasi_identifiers
    heights = [table.schema[q].hierarchy.height for q in qi]
    return [
        dict(zip(qi, levels, strict=True))
        for levels in itertools.product(*(range(h + 1) for h in heights))
    ]


def _node_label(levels: dict[str, int]) -> str:
    return "(" + ", ".join(str(v) for v in levels.values()) + ")"


def figure5(
    table: Table | None = None,
    k_max: int = 12,
    *,
    levels: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Figure 5: maximum disclosure against ``k`` for implications and negated atoms.

    Parameters
    ----------
    table : Table, optional
        Default :func:`adult_table`.
    k_max : int, default=12
        The curve covers ``k = 0..k_max``; the value at ``k_max + 1`` is also computed, for the
        claim "disclosure reaches 1 by k = 13".
    levels : dict, optional
        The generalization; default :data:`FIGURE5_LEVELS` (Age in 20-year intervals, the rest
        suppressed).

    Returns
    -------
    dict
        ``"settings"`` (dict), ``"frame"`` (DataFrame with one row per ``k = 0..k_max`` and
        columns ``k``, ``implications``, ``negations``, ``gap`` = implications − negations),
        ``"next"`` (dict: both languages' value at ``k_max + 1``), ``"buckets"`` (DataFrame:
        per bucket its label, size, distinct values and entropy).
    """
    table = adult_table() if table is None else table
    levels = dict(FIGURE5_LEVELS if levels is None else levels)
    t0 = time.perf_counter()
    release = generalize(table, levels)
    curves = {lang: disclosure_curve(release, k_max + 1, language=lang) for lang in LANGUAGES}
    seconds = time.perf_counter() - t0
    frame = pd.DataFrame(
        {
            "k": np.arange(k_max + 1),
            "implications": curves["implications"][: k_max + 1],
            "negations": curves["negations"][: k_max + 1],
        }
    )
    frame["gap"] = frame["implications"] - frame["negations"]
    hist = np.asarray(release.sensitive_histogram)
    p = hist / hist.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)
    labels = _group_labels(release)
    buckets = pd.DataFrame(
        {
            "bucket": labels,
            "size": hist.sum(axis=1),
            "distinct": (hist > 0).sum(axis=1),
            "entropy": ent,
        }
    )
    return {
        "settings": {
            "rows": table.n_rows,
            "quasi_identifiers": list(table.quasi_identifiers),
            "sensitive": table.sensitive,
            "sensitive_values": table.domain_size(table.require_sensitive()),
            "levels": levels,
            "buckets": release.n_groups,
            "k_max": k_max,
            "seconds": seconds,
        },
        "frame": frame,
        "next": {lang: float(curves[lang][k_max + 1]) for lang in LANGUAGES},
        "buckets": buckets,
    }


def _group_labels(release) -> list[str]:
    """One label per group: its published values of the quasi-identifiers not suppressed."""
    gen = release.generalization
    out = []
    for g in range(release.n_groups):
        vals = [str(gen[q].labels[g]) for q in release.quasi_identifiers]
        vals = [v for v in vals if v != "*"] or ["*"]
        out.append(", ".join(vals))
    return out


def figure6(
    table: Table | None = None,
    ks: Sequence[int] = FIGURE6_KS,
    *,
    k_max: int = 12,
    nodes: Iterable[dict[str, int]] | None = None,
) -> dict[str, Any]:
    """Figure 6: least maximum disclosure among tables of minimum bucket entropy ``h``.

    Parameters
    ----------
    table : Table, optional
        Default :func:`adult_table`.
    ks : sequence of int, default=(1, 3, 5, 7, 9, 11)
        The curves drawn.
    k_max : int, default=12
        Every table's curve is computed for ``k = 0..max(k_max, max(ks))`` (one DP run each).
    nodes : iterable of dict, optional
        The tables (levels per quasi-identifier); default every node of the lattice
        (:func:`lattice_nodes`, 72 for Adult).

    Returns
    -------
    dict
        ``"settings"`` (dict); ``"tables"``: DataFrame, one row per table, columns ``node``
        (levels in quasi-identifier order), ``buckets``, ``min_entropy`` and, per language and
        ``k = 0..k_max``, ``implications_k``/``negations_k``; ``"curve"``: DataFrame in long
        form, one row per language, ``k`` in ``ks`` and distinct ``h`` (increasing), columns
        ``language``, ``k``, ``h``, ``n_tables`` (tables with min entropy equal to h), ``w`` (the
        least maximum disclosure among them; the paper's ``w(T(h), k)``), ``table`` (the node
        achieving it) and ``w_at_least`` (least among tables with min entropy ``>= h``).
    """
    table = adult_table() if table is None else table
    ks = tuple(int(k) for k in ks)
    top = max(k_max, *ks)
    nodes = lattice_nodes(table) if nodes is None else [dict(n) for n in nodes]
    t0 = time.perf_counter()
    rows = []
    for levels in nodes:
        release = generalize(table, levels)
        row: dict[str, Any] = {
            "node": _node_label(levels),
            "buckets": release.n_groups,
            "min_entropy": min_bucket_entropy(release.sensitive_histogram),
        }
        for lang in LANGUAGES:
            curve = disclosure_curve(release, top, language=lang)
            for k in range(top + 1):
                row[f"{lang}_{k}"] = float(curve[k])
        rows.append(row)
    seconds = time.perf_counter() - t0
    tables = pd.DataFrame(rows)
    curve = _entropy_curve(tables, ks)
    return {
        "settings": {
            "rows": table.n_rows,
            "quasi_identifiers": list(table.quasi_identifiers),
            "sensitive": table.sensitive,
            "tables": len(tables),
            "ks": list(ks),
            "k_max": top,
            "entropy": "min over buckets of -sum p ln p (nats)",
            "grouping": f"tables with min entropy equal to h (within {H_TOLERANCE:g} nats)",
            "distinct_h": int(curve["h"].nunique()) if len(curve) else 0,
            "seconds": seconds,
        },
        "tables": tables,
        "curve": curve,
    }


def _entropy_curve(tables: pd.DataFrame, ks: Sequence[int]) -> pd.DataFrame:
    h_all = tables["min_entropy"].to_numpy()
    order = np.argsort(h_all, kind="stable")
    # Distinct h: start a new value when the gap to the previous exceeds the tolerance.
    group = np.empty(len(h_all), dtype=np.int64)
    if len(h_all):
        sorted_h = h_all[order]
        group[order] = np.concatenate([[0], np.cumsum(np.diff(sorted_h) > H_TOLERANCE)])
    out = []
    for lang in LANGUAGES:
        for k in ks:
            w_all = tables[f"{lang}_{k}"].to_numpy()
            for g in range(int(group.max()) + 1 if len(h_all) else 0):
                members = np.flatnonzero(group == g)
                best = members[np.argmin(w_all[members])]
                h = float(h_all[members].min())
                at_least = w_all[h_all >= h - H_TOLERANCE].min()
                out.append(
                    {
                        "language": lang,
                        "k": k,
                        "h": h,
                        "n_tables": len(members),
                        "w": float(w_all[best]),
                        "table": tables["node"].iloc[best],
                        "w_at_least": float(at_least),
                    }
                )
    return pd.DataFrame(out, columns=["language", "k", "h", "n_tables", "w", "table", "w_at_least"])


def check_claims(fig5: dict[str, Any] | None = None, fig6: dict[str, Any] | None = None) -> list:
    """The paper's claims on the regenerated data, each with ``holds`` and the numbers.

    Returns
    -------
    list of dict
        Keys ``figure``, ``claim``, ``holds`` (bool) and ``numbers`` (str).
    """
    claims = []
    if fig5 is not None:
        f = fig5["frame"]
        k_max = int(f["k"].max())
        worst = f["gap"].min()
        claims.append(
            {
                "figure": 5,
                "claim": "negated atoms never exceed implications (every k)",
                "holds": bool((f["negations"] <= f["implications"] + EPS).all()),
                "numbers": f"min over k of implications - negations = {worst:.4f}",
            }
        )
        gap = f["gap"].max()
        at = int(f["k"].iloc[int(f["gap"].to_numpy().argmax())])
        claims.append(
            {
                "figure": 5,
                "claim": f"the gap is small (max over k of the gap <= {SMALL_GAP})",
                "holds": bool(gap <= SMALL_GAP + EPS),
                "numbers": f"largest gap {gap:.4f} at k = {at}; mean gap {f['gap'].mean():.4f}",
            }
        )
        ones = f.loc[f["implications"] >= 1 - EPS, "k"]
        first = int(ones.iloc[0]) if len(ones) else None
        nxt = fig5["next"]
        reach = bool(nxt["implications"] >= 1 - EPS and nxt["negations"] >= 1 - EPS)
        claims.append(
            {
                "figure": 5,
                "claim": f"disclosure reaches 1 by k = {k_max + 1}",
                "holds": reach,
                "numbers": (
                    f"at k = {k_max + 1}: implications {nxt['implications']:.4f}, negations "
                    f"{nxt['negations']:.4f}; implications first reach 1 at k = {first}"
                ),
            }
        )
    if fig6 is not None:
        curve = fig6["curve"]
        for lang in LANGUAGES:
            for k in fig6["settings"]["ks"]:
                c = curve[(curve["language"] == lang) & (curve["k"] == k)]
                w = c["w"].to_numpy()
                h = c["h"].to_numpy()
                rises = np.flatnonzero(np.diff(w) > EPS)
                detail = "; ".join(
                    f"h {h[i]:.4f} -> {h[i + 1]:.4f}: w {w[i]:.4f} -> {w[i + 1]:.4f}"
                    for i in rises[:5]
                )
                more = f" (+{len(rises) - 5} more)" if len(rises) > 5 else ""
                rho = _spearman(h, w)
                claims.append(
                    {
                        "figure": 6,
                        "claim": f"trend only: w(h, k={k}) falls with h ({lang}; Spearman < 0)",
                        "holds": bool(rho < 0 and w[-1] < w[0]),
                        "numbers": f"Spearman rho(h, w) = {rho:.3f}",
                    }
                )
                claims.append(
                    {
                        "figure": 6,
                        "claim": f"w(h, k={k}) non-increasing in h ({lang})",
                        "holds": bool(len(rises) == 0),
                        "numbers": (
                            f"{len(h)} values of h, w from {w[0]:.4f} to {w[-1]:.4f}; "
                            f"{len(rises)} increase(s)" + (f": {detail}{more}" if detail else "")
                        ),
                    }
                )
    return claims


def figure6_gap(data: dict[str, Any]) -> pd.DataFrame:
    """Figure 6's two languages side by side: per ``k`` and ``h``, ``w`` for implications (the
    paper's Figure 6) and for negated atoms (its "analogous graph (which we do not show here)"
    of "very similar behavior", §4), and ``gap`` = implications − negations.

    The paper prints no numbers for either curve; the gap is reported, not judged. ``gap >=
    0`` by construction (each language is minimized over the same tables ``T(h)``, and every
    table's negation disclosure is at most its implication disclosure, notes §6), but the
    table achieving the minimum may differ between the languages (``same_table``).
    """
    c = data["curve"]
    imp = c[c["language"] == "implications"].set_index(["k", "h"])
    neg = c[c["language"] == "negations"].set_index(["k", "h"])
    out = pd.DataFrame(
        {
            "implications": imp["w"],
            "negations": neg["w"].reindex(imp.index),
            "same_table": imp["table"] == neg["table"].reindex(imp.index),
        }
    )
    out["gap"] = out["implications"] - out["negations"]
    return out.reset_index()


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (average ranks for ties; 0 when undefined)."""
    rx, ry = pd.Series(x).rank().to_numpy(), pd.Series(y).rank().to_numpy()
    if len(rx) < 2 or rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def plot_figure5(data: dict[str, Any], path: str | Path) -> Path:
    """Figure 5 as a PNG: solid line implications, dotted line negated atoms."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = data["frame"]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(f["k"], f["implications"], "-o", ms=3, label="basic implications")
    ax.plot(f["k"], f["negations"], ":s", ms=3, label="negated atoms (ℓ-diversity)")
    ax.set_xlabel("k (pieces of background knowledge)")
    ax.set_ylabel("maximum disclosure")
    ax.set_ylim(0, 1.02)
    lv = ", ".join(f"{q}={v}" for q, v in data["settings"]["levels"].items())
    ax.set_title(f"Figure 5: Adult, {lv}", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_figure6(data: dict[str, Any], path: str | Path, *, language: str = "implications") -> Path:
    """Figure 6 as a PNG: h against w(T(h), k), one line per k."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = data["curve"]
    curve = curve[curve["language"] == language]
    fig, ax = plt.subplots(figsize=(6, 4))
    for k in data["settings"]["ks"]:
        c = curve[curve["k"] == k]
        ax.plot(c["h"], c["w"], "-o", ms=3, label=f"k = {k}")
    ax.set_xlabel("minimum bucket entropy h (nats)")
    ax.set_ylabel(f"least maximum disclosure ({language})")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"Figure 6: Adult, {data['settings']['tables']} tables", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _markdown(frame: pd.DataFrame, floatfmt: str = ".4f") -> str:
    return frame_to_markdown(frame, floatfmt)


def figure6_wide(data: dict[str, Any], language: str = "implications") -> pd.DataFrame:
    """The Figure 6 curve as a table: one row per h, one column ``k=..`` per k."""
    c = data["curve"]
    c = c[c["language"] == language]
    wide = c.pivot_table(index="h", columns="k", values="w", aggfunc="first")
    wide.columns = [f"k={k}" for k in wide.columns]
    n = c.drop_duplicates("h").set_index("h")["n_tables"]
    wide.insert(0, "tables", n.reindex(wide.index).astype(int))
    return wide.reset_index()


def main(argv: Sequence[str] | None = None) -> int:
    """Print Figures 5 and 6 as tables with the settings and the claims; write the plots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="folder for the PNG plots")
    parser.add_argument("--k-max", type=int, default=12)
    args = parser.parse_args(argv)
    table = adult_table()
    fig5 = figure5(table, k_max=args.k_max)
    fig6 = figure6(table, k_max=args.k_max)
    s5, s6 = fig5["settings"], fig6["settings"]
    print(f"# Martin et al. (ICDE 2007), §4, regenerated on Adult ({s5['rows']:,} rows)\n")
    print(
        f"Quasi-identifiers {s5['quasi_identifiers']} (hierarchy_set='martin'), sensitive "
        f"{s5['sensitive']!r} ({s5['sensitive_values']} values), k = 0..{s5['k_max']}.\n"
    )
    print(f"## Figure 5: node {s5['levels']}, {s5['buckets']} buckets ({s5['seconds']:.3f} s)\n")
    print(_markdown(fig5["buckets"]) + "\n")
    print(_markdown(fig5["frame"]) + "\n")
    print(
        f"## Figure 6: {s6['tables']} tables, {s6['distinct_h']} distinct h; entropy "
        f"{s6['entropy']}; grouping {s6['grouping']} ({s6['seconds']:.2f} s)\n"
    )
    for lang in LANGUAGES:
        print(f"### w(T(h), k), {lang}\n")
        print(_markdown(figure6_wide(fig6, lang)) + "\n")
    print("### Implications beside negated atoms (gap = implications − negations)\n")
    print(_markdown(figure6_gap(fig6)) + "\n")
    print("## Claims\n")
    claims = pd.DataFrame(check_claims(fig5, fig6))
    print(_markdown(claims) + "\n")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for p in (
            plot_figure5(fig5, args.out / "martin_figure5.png"),
            plot_figure6(fig6, args.out / "martin_figure6.png"),
            plot_figure6(fig6, args.out / "martin_figure6_negations.png", language="negations"),
        ):
            print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
