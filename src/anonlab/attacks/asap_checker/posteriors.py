"""The naive and smart posteriors over candidate worlds, and under each extra negative fact.

Jin, Zhang, Das (ASAP, Information Systems 2011, Defs. 3-5 and §2, Example 2): the naive world
weighs its candidates equally, or, for an algorithm that perturbs sensitive values, by the
minimal-change reading (:func:`minimal_change_weights`); the smart world by how often each
candidate reproduces the release. :func:`world_posteriors` gives both per record and value, and
the smart rise under every single extra fact "record i does not hold v" (inclusion-exclusion on
the weighted world counts).
"""

from __future__ import annotations

import math

import numpy as np

from anonlab.release import Release


def minimal_change_weights(release: Release, worlds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Changes and log-weights of candidate worlds in the minimal-change naive reading.

    For each candidate (row of ``worlds``, the sensitive code of every record): the number of
    published values it makes fake, ``Σ_G (|G| − Σ_v min(h'_Gv, p_Gv))``, and the log of its
    weight ``Π_G N_G / multinomial(h'_G)`` (see the module docstring; Jin et al. §2, Example 2).
    Only the candidates with the fewest changes form the naive world.
    """
    worlds = np.asarray(worlds, dtype=np.int64)
    n_worlds, n = worlds.shape
    group = np.asarray(release.group, dtype=np.int64)
    n_groups = release.n_groups
    n_values = release.table.domain_size(release.sensitive)
    published = np.asarray(release.sensitive_histogram, dtype=np.int64)  # (G, D)
    idx = (np.arange(n_worlds)[:, None] * n_groups + group[None, :]) * n_values + worlds
    hist = np.bincount(idx.ravel(), minlength=n_worlds * n_groups * n_values).reshape(
        n_worlds, n_groups, n_values
    )
    surplus = np.maximum(published[None] - hist, 0)  # published values that are fake
    deficit = np.maximum(hist - published[None], 0)  # their original values
    changes = surplus.sum(axis=(1, 2))
    log_fact = np.array([math.lgamma(i + 1) for i in range(n + 1)])
    sizes = published.sum(axis=1)
    log_n = (  # ways to choose the fake published values, and their originals
        (log_fact[published][None] - log_fact[surplus] - log_fact[published[None] - surplus]).sum(
            axis=2
        )
        + log_fact[surplus.sum(axis=2)]
        - log_fact[deficit].sum(axis=2)
    )
    log_orderings = log_fact[sizes][None] - log_fact[hist].sum(axis=2)
    return changes, (log_n - log_orderings).sum(axis=1)


def minimal_change_fact_posteriors(
    worlds: np.ndarray, changes: np.ndarray, log_weight: np.ndarray, n_values: int
) -> np.ndarray:
    """Minimal-change naive posteriors once "record i does not hold v" is added: the fewest
    changes are re-minimised among the candidates the fact leaves. Shape (n·D, n·D), NaN rows
    where the fact leaves no candidate."""
    n = worlds.shape[1]
    nd = n * n_values
    flat = worlds + np.arange(n) * n_values
    out = np.full((nd, nd), np.nan)
    for i in range(n):
        for v in range(n_values):
            keep = worlds[:, i] != v
            if not keep.any():
                continue
            c = changes[keep]
            fewest = c == c.min()
            lw = log_weight[keep][fewest]
            w = np.exp(lw - lw.max())
            rows = flat[keep][fewest]
            post = np.zeros(nd)
            np.add.at(post, rows.ravel(), np.repeat(w, n))
            out[i * n_values + v] = post / w.sum()
    return out


def _accumulate(worlds: np.ndarray, weight: np.ndarray, n_values: int):
    """Weighted counts of each (record, value) and of each pair of them, over the worlds."""
    n_worlds, n = worlds.shape
    nd = n * n_values
    flat = worlds + np.arange(n) * n_values  # column of each (record, value) pair
    count = np.zeros(nd)
    joint = np.zeros((nd, nd))
    for start in range(0, n_worlds, 20_000):
        block = flat[start : start + 20_000]
        onehot = np.zeros((len(block), nd))
        np.put_along_axis(onehot, block, 1.0, axis=1)
        weighted = onehot * weight[start : start + 20_000, None]
        count += weighted.sum(axis=0)
        joint += weighted.T @ onehot
    return count, joint, float(weight.sum())


def world_posteriors(
    naive_worlds: np.ndarray,
    smart_worlds: np.ndarray,
    hits: np.ndarray,
    n_values: int,
    *,
    naive_weight: np.ndarray | None = None,
    naive_fact: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Naive and smart posteriors (n, D), and the smart rise under each single extra negative
    fact: ``rise[i, v, j, u]`` = smart − naive of record j holding u once the adversary also
    knows "record i does not hold v" (``-inf`` where the fact leaves a world empty).

    ``naive_weight``: weights of the naive worlds (default uniform). ``naive_fact``: the naive
    posteriors under each fact, shape (n·D, n·D) with NaN where undefined, when the naive world
    is not simply conditioned on the fact (minimal-change re-minimises)."""
    n = naive_worlds.shape[1]
    weight = np.ones(len(naive_worlds)) if naive_weight is None else naive_weight
    count, joint, total = _accumulate(naive_worlds, weight, n_values)
    s_count, s_joint, s_total = _accumulate(smart_worlds, hits.astype(np.float64), n_values)
    naive = (count / total).reshape(n, n_values)
    smart = (s_count / s_total).reshape(n, n_values)
    with np.errstate(invalid="ignore", divide="ignore"):
        if naive_fact is None:
            naive_f = (count[None, :] - joint) / (total - count)[:, None]
            naive_empty = (total - count) <= 0
        else:
            naive_f = naive_fact
            naive_empty = np.isnan(naive_fact).all(axis=1)
        smart_f = (s_count[None, :] - s_joint) / (s_total - s_count)[:, None]
        rise = smart_f - naive_f
    empty = naive_empty | ((s_total - s_count) <= 0)
    rise[empty, :] = -np.inf
    rise = np.where(np.isnan(rise), -np.inf, rise)
    return naive, smart, rise.reshape(n, n_values, n, n_values)
