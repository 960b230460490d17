"""Wong et al. (TKDD 2011), §5.1-5.2: the attack with the paper's ε, σ and its measures —
recall, false positives, average breach, the mined distribution's accuracy, average Δ, and the
case study (notes §5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from anonlab.attacks.foreground import ForegroundResult, foreground_attack
from anonlab.experiments.wong.data import LOW_EDUCATION, is_low
from anonlab.release import Release


def attack(release: Release, *, rule: str = "uniform-half", **kwargs: Any) -> ForegroundResult:
    """The foreground attack on the low-education set with the paper's ε, σ."""
    return foreground_attack(release, list(LOW_EDUCATION), small_signature=rule, **kwargs)


def measures(
    release: Release, result: ForegroundResult, r: float, *, at_least: bool = False
) -> dict[str, float]:
    """Recall, false-positive share, average breach and baseline (paper §5.1).

    ``at_least=True`` counts ``p* >= 1/r`` (up to 1e-12) as problematic instead of the paper's
    ``p* > 1/r`` (Problem 2): an option to show how much the exact ties at ``1/r`` weigh.
    """
    s = result.score(release, r)
    if at_least:
        low = is_low(release.table)
        bad = result.p_star >= 1.0 / r - 1e-12
        s["recall"] = float((bad & low).sum() / max(int(low.sum()), 1))
        s["false_positive"] = float((bad & ~low).sum() / max(int((~low).sum()), 1))
    return {
        "recall": s["recall"],
        "false_positive": s["false_positive"],
        "average_breach": s["average_breach"],
        "average_baseline": s["average_baseline"],
        "attribute_sets": len(result.attribute_sets) - (1 if () in result.attribute_sets else 0),
    }


def true_distribution(release: Release, attributes: Sequence[str]) -> tuple[np.ndarray, Any]:
    """Share of low-education records per signature of ``attributes`` in the original table."""
    table = release.table
    low = is_low(table)
    if attributes:
        rows = np.stack([table.codes[a] for a in attributes], axis=1)
        _, inv = np.unique(rows, axis=0, return_inverse=True)
        inv = inv.ravel()
    else:
        inv = np.zeros(table.n_rows, dtype=np.int64)
    cnt = np.bincount(inv)
    return np.bincount(inv, weights=low.astype(float)) / cnt, inv


def mined_accuracy(release: Release, result: ForegroundResult) -> dict[str, float]:
    """Average relative error ``|f_mined - f_true| / f_true`` over the sufficient signatures of
    every non-empty attribute set (signatures with ``f_true = 0`` are skipped and counted), and
    the mean absolute error ``|f_mined - f_true|`` (the paper's "0.7%" may be either)."""
    errs, abs_errs, skipped = [], [], 0
    for dist in result.distributions:
        if not dist.attributes:
            continue
        truth, inv = true_distribution(release, dist.attributes)
        # map: the signature order of dist and of np.unique over the same codes agree
        assert len(truth) == len(dist.probability)
        ok = dist.sufficient
        t, m = truth[ok], dist.probability[ok]
        skipped += int((t == 0).sum())
        abs_errs.extend(np.abs(m - t).tolist())
        errs.extend((np.abs(m[t > 0] - t[t > 0]) / t[t > 0]).tolist())
    errs = np.asarray(errs)
    return {
        "mean_relative_error": float(errs.mean()) if len(errs) else float("nan"),
        "median_relative_error": float(np.median(errs)) if len(errs) else float("nan"),
        "mean_absolute_error": float(np.mean(abs_errs)) if abs_errs else float("nan"),
        "signatures": int(len(errs)),
        "skipped_zero_truth": skipped,
    }


def average_delta(release: Release, result: ForegroundResult) -> float:
    """Average over groups and non-empty attribute sets of max f - min f among the group's
    members with a sufficient signature (paper §5.2, measure 4)."""
    vals = []
    g = release.group
    for dist in result.distributions:
        if not dist.attributes:
            continue
        suff = dist.sufficient[dist.record_signature]
        if not suff.any():
            continue
        f = dist.record_probabilities()[suff]
        gg = g[suff]
        hi = np.full(release.n_groups, -np.inf)
        lo = np.full(release.n_groups, np.inf)
        np.maximum.at(hi, gg, f)
        np.minimum.at(lo, gg, f)
        present = np.isfinite(hi)
        vals.append((hi - lo)[present])
    return float(np.concatenate(vals).mean()) if vals else float("nan")


def case_study(result: ForegroundResult, release: Release) -> dict[str, float]:
    """Mined and true p(Occupation = v : low) for Adm-clerical and Craft-repair, and the
    posterior of the low-education member of a two-record group {Adm-clerical, Craft-repair}."""
    dist = next((d for d in result.distributions if d.attributes == ("occupation",)), None)
    if dist is None:
        return {}
    mined = {s[0]: p for s, p in dist.as_dict().items()}
    truth, inv = true_distribution(release, ("occupation",))
    occ = release.table.values["occupation"]
    true = {
        str(occ[release.table.codes["occupation"][np.flatnonzero(inv == i)[0]]]): v
        for i, v in enumerate(truth)
    }
    a, c = mined["Adm-clerical"], mined["Craft-repair"]
    post = c * (1 - a) / (c * (1 - a) + a * (1 - c))
    ta, tc = true["Adm-clerical"], true["Craft-repair"]
    return {
        "mined_adm_clerical": a,
        "mined_craft_repair": c,
        "true_adm_clerical": ta,
        "true_craft_repair": tc,
        "posterior_mined": post,
        "posterior_true": tc * (1 - ta) / (tc * (1 - ta) + ta * (1 - tc)),
        "posterior_paper_values": 0.04 * 0.98 / (0.04 * 0.98 + 0.02 * 0.96),
    }
