"""Wong et al. (TKDD 2011), §5.1: why sensitive records are missed (recall below the paper's
99%) — one cause per missed record, the oracle with the true distribution, and recall under each
choice the paper leaves open."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from anonlab.attacks.foreground import SMALL_SIGNATURE, ForegroundResult
from anonlab.experiments.wong.data import LOW_EDUCATION, PAPER_BREACH, adult_tables, is_low
from anonlab.experiments.wong.measures import attack, measures, true_distribution
from anonlab.experiments.wong.releases import anatomy_release
from anonlab.release import Release
from anonlab.table import Table


def best_mate(group: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Per record, the index of the group mate (another member) with the largest ``f``; -1 for
    records alone in their group. Ties go to the lowest index."""
    n = len(f)
    order = np.lexsort((np.arange(n), -f, group))
    g = group[order]
    start = np.r_[True, g[1:] != g[:-1]]
    first = np.flatnonzero(start)
    top1 = order[first]
    size = np.diff(np.r_[first, n])
    top2 = np.where(size > 1, order[np.minimum(first + 1, n - 1)], -1)
    gi = np.cumsum(start) - 1  # group rank of each sorted position
    mate = np.empty(n, dtype=np.int64)
    mate[order] = np.where(order == top1[gi], top2[gi], top1[gi])
    return mate


RECALL_CAUSES = (
    "tie: same signature as the mate in every attribute set",
    "tie: in some set the signatures differ, with equal f (both under J: same fixed f)",
    "mate likelier: the mate's signature under J (f fixed by the rule), own sufficient",
    "mate likelier: both sufficient, own mined f lower",
    "own f highest in some set, posterior still <= 1/r",
)


def recall_diagnosis(
    release: Release, result: ForegroundResult, r: float
) -> tuple[pd.DataFrame, dict[str, float]]:
    """Why sensitive records are not flagged (``p* <= 1/r``): one cause per missed record.

    For each missed record and each non-empty attribute set, its own mined ``f`` is compared
    with that of its likeliest group mate (the mate with the largest ``f``). In a group of two
    ``p(t : x) > 1/2`` exactly when the own ``f`` is larger, so a missed record never has the
    larger ``f`` there. Causes, in this order (the first that applies):

    1. tie in every set, and the mate has the same signature in every set: ``p = 1/2``;
    2. tie in every set, but in some set the signatures differ and both are under ``J`` (same
       fixed ``f`` under ``uniform-half`` / ``base-rate``);
    3. the mate is likelier in some set because its signature is under ``J`` (Hoeffding-pruned,
       ``f`` fixed by the rule) while the record's own is sufficient;
    4. the mate is likelier in some set with both signatures sufficient (own mined ``f`` lower);
       ``oracle_agrees`` counts those for which the *true* ``f`` (from the original table) ranks
       the mate higher too in at least one such set (no accuracy of mining would flag them);
    5. the own ``f`` is the largest in some set and the posterior is still at most ``1/r``
       (groups of three or more, or ``r > 2``).

    Returns the table of causes (records, share of the sensitive records) and a summary:
    sensitive, missed, the missed records whose own signature is under ``J`` in every set,
    and the missed records whose own signature has mined ``f = 0`` in some set.
    """
    low = is_low(release.table)
    missed = low & ~result.problematic(r)
    idx = np.flatnonzero(missed)
    k = len(idx)
    tie_all = np.ones(k, bool)
    same_all = np.ones(k, bool)
    both_small = np.zeros(k, bool)
    higher = np.zeros(k, bool)
    lower_small = np.zeros(k, bool)
    lower_suff = np.zeros(k, bool)
    oracle = np.zeros(k, bool)
    own_small_all = np.ones(k, bool)
    own_zero = np.zeros(k, bool)
    for dist in result.distributions:
        if not dist.attributes:
            continue
        f = dist.record_probabilities()
        sig = dist.record_signature
        suff = dist.sufficient[sig]
        mate = best_mate(release.group, f)[idx]
        alone = mate < 0
        mate = np.where(alone, idx, mate)
        own, other = f[idx], f[mate]
        truth, _ = true_distribution(release, dist.attributes)
        lower = (own < other) & ~alone
        tie_all &= ~lower & ~(own > other)
        same_all &= sig[idx] == sig[mate]
        both_small |= (sig[idx] != sig[mate]) & ~suff[idx] & ~suff[mate]
        higher |= (own > other) | alone
        lower_small |= lower & suff[idx] & ~suff[mate]
        both = lower & suff[idx] & suff[mate]
        lower_suff |= both
        oracle |= both & (truth[sig[idx]] < truth[sig[mate]])
        own_small_all &= ~suff[idx]
        own_zero |= suff[idx] & (own == 0)
    cause = np.full(k, 4)
    cause[lower_suff & ~higher] = 3
    cause[lower_small & ~higher] = 2
    cause[tie_all & ~higher] = 1
    cause[tie_all & same_all & ~higher] = 0
    n_low = int(low.sum())
    counts = np.bincount(cause, minlength=len(RECALL_CAUSES))
    table = pd.DataFrame(
        {
            "cause": RECALL_CAUSES,
            "records": counts,
            "share_of_sensitive": counts / max(n_low, 1),
        }
    )
    summary = {
        "sensitive": n_low,
        "missed": k,
        "recall": 1 - k / max(n_low, 1),
        "oracle_agrees": int((oracle & (cause == 3)).sum()),
        "own_signature_under_J_everywhere": int(own_small_all.sum()),
        "own_mined_f_zero": int(own_zero.sum()),
        "missed_at_exactly_1_over_r": int(np.isclose(result.p_star[idx], 1 / r, atol=1e-12).sum()),
    }
    return table, summary


def recall_causes(
    *, seed: int = 0, rule: str = "uniform-half", tables: dict | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`recall_diagnosis` at the four headline settings (Anatomy ℓ = r, one seed): the
    causes (records missed per setting, share of the sensitive records in parentheses) and the
    summaries, one row per setting."""
    tables = {} if tables is None else tables
    causes, summaries = {"cause": list(RECALL_CAUSES)}, []
    for l, d in PAPER_BREACH:
        if (d, None) not in tables:
            tables[(d, None)] = adult_tables(d)
        table, merged = tables[(d, None)]
        rel = anatomy_release(table, merged, l, seed=seed)
        c, summary = recall_diagnosis(rel, attack(rel, rule=rule), l)
        causes[f"ℓ={l}, QI {d}"] = [
            f"{n} ({share:.1%})" for n, share in zip(c.records, c.share_of_sensitive, strict=True)
        ]
        summaries.append({"l": l, "d": d, **summary})
    return pd.DataFrame(causes), pd.DataFrame(summaries)


def oracle_attack(release: Release, result: ForegroundResult) -> np.ndarray:
    """``p*`` with the *true* global distribution (from the original table) in place of the
    mined one for every sufficient signature, same attribute sets, same rule for the others: the
    best any mining could do under the paper's model."""
    from anonlab.attacks.foreground import breach_probabilities

    p_star = np.zeros(release.table.n_rows)
    for dist in result.distributions:
        truth, _ = true_distribution(release, dist.attributes)
        f = np.where(dist.sufficient, truth, dist.probability)[dist.record_signature]
        p = breach_probabilities(release, f, list(LOW_EDUCATION))
        p_star = np.maximum(p_star, p)
    return p_star


def recall_options(
    l: int = 2, d: int = 5, *, seed: int = 0, tables: dict | None = None
) -> pd.DataFrame:
    """Recall and false positives at ℓ = r, QI size ``d`` under the default and each
    alternative the paper leaves open (plus two references: the true G, and a smaller J)."""
    tables = {} if tables is None else tables

    def get(age_width: int | None) -> tuple[Table, Table]:
        key = (d, age_width)
        if key not in tables:
            tables[key] = adult_tables(d, age_width=age_width)
        return tables[key]

    rows = []

    def add(label: str, rel: Release, res: ForegroundResult, **kw: Any) -> None:
        m = measures(rel, res, l, **kw)
        rows.append(
            {
                "setting": label,
                "recall": m["recall"],
                "false_positive": m["false_positive"],
                "average_breach": m["average_breach"],
            }
        )

    table, merged = get(None)
    rel = anatomy_release(table, merged, l, seed=seed)
    res = attack(rel)
    add("default (uniform-half, raw Age, p* > 1/r)", rel, res)
    add("count p* = 1/r as a breach (p* >= 1/r)", rel, res, at_least=True)
    for rule in SMALL_SIGNATURE[1:]:
        add(f"rule {rule}", rel, attack(rel, rule=rule))
    t10, m10 = get(10)
    rel10 = anatomy_release(t10, m10, l, seed=seed)
    add("Age in 10-year bins", rel10, attack(rel10))
    add("Age in 10-year bins, rule pooled", rel10, attack(rel10, rule="pooled"))
    oracle = dataclasses.replace(res, p_star=oracle_attack(rel, res))
    add("reference: true G in place of the mined one", rel, oracle)
    add("reference: J = 1000 (not the paper's ε, σ)", rel, attack(rel, min_support=1000))
    return pd.DataFrame(rows)
