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

import functools
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonlab._validation import check_int, takes_release
from anonlab.attacks.foreground.global_distribution import mine_from_layout
from anonlab.attacks.foreground.inputs import (
    MiningOptions,
    mining_options,
    require_groups,
    resolve_targets,
    search_attributes,
    target_counts,
)
from anonlab.attacks.foreground.kernel import GroupLayout
from anonlab.attacks.foreground.result import (
    ConvergenceReport,
    ForegroundResult,
    GlobalDistribution,
)
from anonlab.attacks.foreground.signatures import RowIndex, distinct_keys
from anonlab.release import Release
from anonlab.threads import in_order


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
    attrs, top = search_attributes(release, attributes, max_attributes)
    J = check_int("min_support", min_support, minimum=1)
    return frequent_sets_of_rows(RowIndex.of(release, attrs), J, top)


def apriori_candidates(
    attributes: Sequence[str], size: int, level: Sequence[tuple[str, ...]]
) -> list[tuple[str, ...]]:
    """The attribute sets of ``size`` (combinations of ``attributes``, in their order) whose
    every ``(size-1)``-subset is in ``level``, the survivors of the previous level (Apriori)."""
    survivors = set(level)
    return [
        c
        for c in itertools.combinations(attributes, size)
        if all(tuple(x for x in c if x != d) in survivors for d in c)
    ]


def frequent_sets_of_rows(index: RowIndex, J: int, top: int) -> list[tuple[str, ...]]:
    """:func:`frequent_attribute_sets` over the distinct rows of ``index.attributes``: a row is
    eligible, and counts with its multiplicity, exactly when its records are (also what the
    Dask backend runs on its reduced row index, :mod:`anonlab.distributed.measures.foreground`).
    Levelwise, a signature counted only on rows whose every sub-signature is sufficient, a set a
    candidate only if all its subsets survived; order: by size, then in attribute order."""
    attrs = index.attributes
    n_rows = len(index.rows)
    ok: dict[tuple[str, ...], np.ndarray] = {(): np.full(n_rows, int(index.count.sum()) >= J)}
    out = []
    level = [()]
    for size in range(1, min(top, len(attrs)) + 1):
        cands = apriori_candidates(attrs, size, level)
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
    threads: int | None = None,
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
    threads : int, optional
        Threads that mine the (attribute set, target) problems side by side (default: the
        CPUs this process may use; 1: in the caller's thread). The result does not depend on
        it: each problem is solved on its own and folded in enumeration order.

    Returns
    -------
    ForegroundResult
    """
    require_groups(release)
    options = mining_options(
        epsilon, sigma, min_support, small_signature, tol, max_iter, newton, accelerate
    )
    if threads is not None:
        threads = check_int("threads", threads, minimum=1)
    targets = resolve_targets(release, sensitive_values)
    attrs, top = search_attributes(release, attributes, max_attributes)
    index = RowIndex.of(release, attrs)
    sets = frequent_sets_of_rows(index, options.J, top)
    if include_empty:
        sets = [(), *sets]
    return attack_on_rows(release, release, index, sets, targets, options, threads)


def attack_on_rows(
    release: Release,
    statistics: Release,
    index: RowIndex,
    sets: Sequence[tuple[str, ...]],
    targets: list,
    options: MiningOptions,
    threads: int | None,
) -> ForegroundResult:
    """Steps 2-3 of Algorithm 1 once the distinct rows (``index``) and the attribute ``sets``
    are known: every (attribute set, target) mined on ``threads`` threads, folded into ``p*``
    in enumeration order. ``statistics`` answers the group statistics (``release`` itself on
    one machine; a release with map-reduced statistics on a cluster,
    :mod:`anonlab.distributed.measures.foreground`)."""
    n = release.table.n_rows
    p_star = np.full(n, -np.inf)
    best_a = np.full(n, -1, dtype=np.int64)
    best_x = np.full(n, -1, dtype=np.int64)
    baseline = np.zeros(n)
    prepared = []
    for target, n_x, rate, base in target_counts(statistics, targets):
        baseline = np.maximum(baseline, rate[release.group])
        prepared.append((target, GroupLayout(release.group, release.n_groups, n_x), base))

    def take(records: np.ndarray, p: np.ndarray | float, ai: int, xi: int) -> None:
        better = p > p_star[records]
        chosen = records[better]
        p_star[chosen] = p[better] if isinstance(p, np.ndarray) else p
        best_a[chosen] = ai
        best_x[chosen] = xi

    def problems():  # each (attribute set, target) on its own; signatures made lazily
        for ai, attrs_a in enumerate(sets):
            signatures = index.signatures(attrs_a)
            for xi, (target, layout, base) in enumerate(prepared):
                yield functools.partial(
                    _mine, ai, xi, statistics, attrs_a, target, layout, signatures, options, base
                )

    dists, reports = [], []
    # the problems are independent and their compiled kernels release the GIL: mined on
    # threads, folded into p* in enumeration order (the same ties, whatever the thread count)
    for ai, xi, layout, dist, rep, posterior in in_order(problems(), threads):
        if ai == 0:  # p = 0 and p = 1 in groups without / all x: the same for every set
            take(layout.zero, 0.0, ai, xi)
            take(layout.one, 1.0, ai, xi)
        take(posterior.records, posterior.member, ai, xi)
        dists.append(dist)
        reports.append(rep)
    return foreground_result(
        p_star, baseline, best_a, best_x, sets, targets, dists, reports, options
    )


def _mine(ai, xi, release, attributes, target, layout, signatures, options, base):
    dist, rep, posterior = mine_from_layout(
        release, attributes, target, layout, signatures, options, base
    )
    return ai, xi, layout, dist, rep, posterior


def foreground_result(
    p_star: np.ndarray,
    baseline: np.ndarray,
    best_attributes: np.ndarray,
    best_target: np.ndarray,
    sets: Sequence[tuple[str, ...]],
    targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
    distributions: Sequence[GlobalDistribution],
    reports: Sequence[ConvergenceReport],
    options: MiningOptions,
) -> ForegroundResult:
    """Algorithm 1's result from its per-record maxima; where no attribute set was searched
    (nothing frequent and the empty set excluded), ``p*`` falls back to the baseline."""
    if not sets:
        p_star = baseline.copy()
    return ForegroundResult(
        p_star=p_star,
        baseline=baseline,
        best_attributes=best_attributes,
        best_target=best_target,
        attribute_sets=tuple(sets),
        targets=tuple(t[0] for t in targets),
        distributions=tuple(distributions),
        reports=tuple(reports),
        min_support=options.J,
        small_signature=options.small_signature,
    )
