"""Algorithm 1: the foreground-knowledge attack, ``p*(t) = max_{A, x} p_A(t : x)`` per record.

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011), Algorithm 1 and §5: Apriori enumeration of the attribute sets with a sufficient
signature (Theorem 1, the monotonicity of §4.2), mining of each set's global distribution for
each target (Eqs. 4-6), the breach probabilities under it (Eqs. 1-3), and the worst case per
record. The empty attribute set, whose global distribution is the table's base rate (so
``p(t : x) = n_k / N_k``), is part of the search by default: ``p*(t)`` is never below the
random-world baseline.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonlab._validation import check_int, takes_release
from anonlab.attacks.foreground.global_distribution import mine_from_layout
from anonlab.attacks.foreground.inputs import (
    check_attributes,
    count_x,
    mining_options,
    require_groups,
    resolve_targets,
)
from anonlab.attacks.foreground.kernel import GroupLayout
from anonlab.attacks.foreground.result import ForegroundResult
from anonlab.attacks.foreground.signatures import RowIndex, distinct_keys
from anonlab.release import Release


@takes_release
def frequent_attribute_sets(
    release: Release,
    min_support: int,
    *,
    attributes: Sequence[str] | None = None,
    max_attributes: int | None = None,
) -> list[tuple[str, ...]]:
    """Step 1 of Algorithm 1: attribute sets with at least one sufficient signature.

    Levelwise (Apriori): a signature of ``A`` is counted only on records whose every
    ``(|A|-1)``-sub-signature is sufficient (the monotonicity of §4.2), and ``A`` is a candidate
    only if all its ``(|A|-1)``-subsets survived. The result equals a brute-force group-by with
    threshold ``min_support``. Order: by size, then lexicographically in quasi-identifier order.
    The empty set is not listed.
    """
    require_groups(release)
    attrs = check_attributes(
        release, release.quasi_identifiers if attributes is None else attributes
    )
    J = check_int("min_support", min_support, minimum=1)
    top = (
        len(attrs)
        if max_attributes is None
        else check_int("max_attributes", max_attributes, minimum=0)
    )
    return _frequent_sets(RowIndex.of(release, attrs), J, top)


def _frequent_sets(index: RowIndex, J: int, top: int) -> list[tuple[str, ...]]:
    """:func:`frequent_attribute_sets` over the distinct rows of ``index.attributes``: a row is
    eligible, and counts with its multiplicity, exactly when its records are."""
    attrs = index.attributes
    n_rows = len(index.rows)
    ok: dict[tuple[str, ...], np.ndarray] = {(): np.full(n_rows, int(index.count.sum()) >= J)}
    out = []
    level = [()]
    for size in range(1, min(top, len(attrs)) + 1):
        survivors = set(level)
        cands = [
            c
            for c in itertools.combinations(attrs, size)
            if all(tuple(x for x in c if x != d) in survivors for d in c)
        ]
        level = []
        for c in cands:
            eligible = np.ones(n_rows, dtype=bool)
            for d in c:
                eligible &= ok[tuple(x for x in c if x != d)]
            rows = np.flatnonzero(eligible)
            mask = np.zeros(n_rows, dtype=bool)
            if len(rows):
                cols = [attrs.index(a) for a in c]
                _, inv, _ = distinct_keys(
                    [index.rows[rows, j] for j in cols], [index.radices[j] for j in cols], len(rows)
                )
                support = np.bincount(inv, weights=index.count[rows])
                mask[rows] = support[inv] >= J
            if mask.any():
                ok[c] = mask
                level.append(c)
                out.append(c)
        for c in [c for c in ok if len(c) < size]:  # only the last level is read next
            del ok[c]
        if not level:
            break
    return out


@takes_release
def foreground_attack(
    release: Release,
    sensitive_values: Any = None,
    *,
    epsilon: float = 0.01,
    sigma: float = 0.9,
    min_support: int | None = None,
    max_attributes: int | None = None,
    attributes: Sequence[str] | None = None,
    small_signature: str = "uniform-half",
    include_empty: bool = True,
    tol: float = 1e-10,
    max_iter: int = 10_000,
    newton: bool = True,
    accelerate: bool | str = True,
) -> ForegroundResult:
    """The foreground-knowledge attack (Algorithm 1 and the breach decision of §5).

    1. Find every attribute set ``A`` with at least one sufficient signature, levelwise
       (:func:`frequent_attribute_sets`; ``J = ceil(ln(2/σ)/(2ε²))``, 3993 for the paper's
       ``ε = 0.01, σ = 0.9``).
    2. For each such ``A`` and each target ``x``, mine ``G_{A,x}``
       (:func:`mine_global_distribution`) and compute ``p_A(t : x)`` for every record
       (:func:`breach_probabilities`).
    3. Report ``p*(t) = max_{A, x} p_A(t : x)`` per record, with the maximising ``A`` and ``x``
       (the first in enumeration order among ties), beside the random-world baseline.

    Parameters
    ----------
    release : Release
        Attacked through the worst-case reduction (see the module docstring).
    sensitive_values : str, sequence of str, sequence of sequences, or None
        The targets. A flat sequence is one value *set* treated as one ``x`` (the paper's §5);
        a sequence of sequences gives several targets; None: every sensitive value on its own.
    epsilon, sigma : float
        Theorem 1's parameters for ``J``.
    min_support : int, optional
        Overrides ``J``.
    max_attributes : int, optional
        Largest attribute-set size considered (default: all quasi-identifiers).
    attributes : sequence of str, optional
        The quasi-identifiers the adversary uses (default: all of the release's).
    small_signature : {"uniform-half", "base-rate", "pooled"}
        Rule for signatures with fewer than ``J`` records (``SMALL_SIGNATURE``). The default
        ``"uniform-half"`` (``f = 0.5``) reproduces the paper's numbers best.
    include_empty : bool
        Include the empty attribute set (random worlds, ``p = n/N``) in the maximum, so that
        ``p*(t)`` is at least the baseline.
    tol, max_iter, newton, accelerate
        Solver settings (see :func:`mine_global_distribution`).

    Returns
    -------
    ForegroundResult
    """
    require_groups(release)
    J, small_signature, tol, max_iter = mining_options(
        epsilon, sigma, min_support, small_signature, tol, max_iter
    )
    targets = resolve_targets(release, sensitive_values)
    attrs = check_attributes(
        release, release.quasi_identifiers if attributes is None else attributes
    )
    top = (
        len(attrs)
        if max_attributes is None
        else check_int("max_attributes", max_attributes, minimum=0)
    )
    index = RowIndex.of(release, attrs)
    sets = _frequent_sets(index, J, top)
    if include_empty:
        sets = [(), *sets]
    n = release.table.n_rows
    sizes = np.asarray(release.group_sizes, dtype=np.float64)
    p_star = np.full(n, -np.inf)
    best_a = np.full(n, -1, dtype=np.int64)
    best_x = np.full(n, -1, dtype=np.int64)
    baseline = np.zeros(n)
    prepared = []
    for target in targets:
        n_x = count_x(release, target[1])
        baseline = np.maximum(baseline, (n_x / np.maximum(sizes, 1))[release.group])
        base = float(n_x.sum()) / max(n, 1)
        prepared.append((target, GroupLayout(release.group, release.n_groups, n_x), base))

    def take(records: np.ndarray, p: np.ndarray | float, ai: int, xi: int) -> None:
        better = p > p_star[records]
        chosen = records[better]
        p_star[chosen] = p[better] if isinstance(p, np.ndarray) else p
        best_a[chosen] = ai
        best_x[chosen] = xi

    dists, reports = [], []
    for ai, attrs_a in enumerate(sets):
        signatures = index.signatures(attrs_a)
        for xi, (target, layout, base) in enumerate(prepared):
            dist, rep, posterior = mine_from_layout(
                release,
                attrs_a,
                target,
                layout,
                signatures,
                J,
                small_signature,
                tol,
                max_iter,
                newton,
                base,
                accelerate,
            )
            if ai == 0:  # p = 0 and p = 1 in groups without / all x: the same for every set
                take(layout.zero, 0.0, ai, xi)
                take(layout.one, 1.0, ai, xi)
            take(posterior.records, posterior.member, ai, xi)
            dists.append(dist)
            reports.append(rep)
    if not sets:  # nothing frequent and the empty set excluded: fall back to the baseline
        p_star = baseline.copy()
    return ForegroundResult(
        p_star=p_star,
        baseline=baseline,
        best_attributes=best_a,
        best_target=best_x,
        attribute_sets=tuple(sets),
        targets=tuple(t[0] for t in targets),
        distributions=tuple(dists),
        reports=tuple(reports),
        min_support=J,
        small_signature=small_signature,
    )
