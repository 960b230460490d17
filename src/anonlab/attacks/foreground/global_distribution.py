"""The global distribution of an attribute set for a target, mined from the release (Eqs. 4-6).

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011), Def. 2 and §4: the adversary learns ``f_i = p(s_i : x)`` for every signature ``s_i`` of an
attribute set ``A`` from the published table itself, as the fixed point of Eq. (4) with the
expected counts of Eqs. (5)-(6). Sufficient signatures (Theorem 1) are solved for
(:mod:`anonlab.attacks.foreground.solver`); the others follow the ``small_signature`` rule
(:mod:`anonlab.attacks.foreground.small_signature`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from anonlab._validation import takes_release
from anonlab.attacks.foreground.inputs import (
    MiningOptions,
    check_attributes,
    count_target,
    mining_options,
    require_groups,
    resolve_targets,
)
from anonlab.attacks.foreground.kernel import GroupLayout, Posterior
from anonlab.attacks.foreground.result import ConvergenceReport, GlobalDistribution
from anonlab.attacks.foreground.signatures import RowIndex, Signatures, compact_index
from anonlab.attacks.foreground.small_signature import signature_unknowns
from anonlab.attacks.foreground.solver import FixedPointProblem, solve_fixed_point
from anonlab.errors import AnonlabError
from anonlab.release import Release


def mine_from_layout(
    release: Release,
    attributes: tuple[str, ...],
    target: tuple[tuple[str, ...], np.ndarray],
    layout: GroupLayout,
    signatures: Signatures,
    options: MiningOptions,
    base: float,
) -> tuple[GlobalDistribution, ConvergenceReport, Posterior]:
    """Mine one (attribute set, target); also returns ``p(t : x)`` of every record under the
    mined distribution (Eqs. 1-3), computed by the solver at its last point.

    The inputs are prepared and checked by the caller (:func:`mine_global_distribution`,
    :func:`~anonlab.attacks.foreground.foreground_attack`, or the map-reduce attack, which
    passes representative records): ``target`` as from
    :func:`~anonlab.attacks.foreground.inputs.resolve_targets`, ``layout`` and ``signatures``
    over the same records, the options as from
    :func:`~anonlab.attacks.foreground.inputs.mining_options`, and ``base = #x / |T*|``
    (:func:`~anonlab.attacks.foreground.inputs.count_target`), the starting point of every
    unknown (and the fixed ``f`` under ``"base-rate"``).
    """
    min_support, small_signature = options.J, options.small_signature
    support = signatures.support
    sufficient = support >= min_support
    m = len(support)
    sig_var, fixed_sig, n_vars = signature_unknowns(sufficient, small_signature, base)
    problem = FixedPointProblem(layout, signatures, sig_var, fixed_sig, n_vars)
    f, report, posterior = solve_fixed_point(
        problem,
        np.full(n_vars, base),
        options.tol,
        options.max_iter,
        options.newton,
        options.accelerate,
    )
    prob = fixed_sig if not n_vars else np.where(sig_var >= 0, f[np.maximum(sig_var, 0)], fixed_sig)
    dist = GlobalDistribution(
        attributes=attributes,
        target=target[0],
        signature_codes=signatures.codes,
        values=tuple(release.table.values[a] for a in attributes),
        probability=prob,
        support=support,
        sufficient=sufficient,
        row_signature=None
        if signatures.index is not None
        else compact_index(np.asarray(signatures.row_signature), m),
        record_row=signatures.record_row,
        row_index=signatures.index,
        min_support=min_support,
        small_signature=small_signature,
    )
    return dist, report, posterior


@takes_release
def mine_global_distribution(
    release: Release,
    attributes: Sequence[str] | str,
    sensitive_values: Any,
    *,
    epsilon: float = 0.01,
    sigma: float = 0.9,
    min_support: int | None = None,
    small_signature: str = "uniform-half",
    tol: float = 1e-10,
    max_iter: int = 10_000,
    newton: bool = True,
    accelerate: bool | str = True,
) -> tuple[GlobalDistribution, ConvergenceReport]:
    """Mine the global distribution of one attribute set for one target (Eqs. 4-6).

    Solves ``f_i = sum_k c_k(s_i : x) / sum_k |L_k(s_i)|`` (Eq. 4) with
    ``c_k(s_i : x) = |L_k(s_i)| p(t : x)`` (Eqs. 5-6) for every sufficient signature ``s_i``.
    Method: fixed-point iteration ``f <- g(f)`` from the base rate ``#x / |T*|`` (the EM
    algorithm of notes §2.2: iterates stay in [0, 1], the likelihood increases) until
    ``max |g(f) - f| <= tol``, then optionally Newton's method (the paper's choice) with a
    forward-difference Jacobian, each step clipped to [0, 1] and accepted only if it lowers the
    residual. By default EM is accelerated by SQUAREM (Varadhan and Roland 2008; see
    :func:`~anonlab.attacks.foreground.solver._squarem`): same equations, same map, same
    stopping test, far fewer evaluations of Eq. (3); ``accelerate="newton"`` instead jumps
    where EM crawls by safeguarded Newton steps to its limit (see
    :func:`~anonlab.attacks.foreground.solver.solve_fixed_point`).

    Parameters
    ----------
    release : Release
    attributes : sequence of str
        The attribute set ``A`` (quasi-identifiers; may be empty).
    sensitive_values : str or sequence of str
        The target ``x`` (a value set is one value).
    epsilon, sigma : float
        Theorem 1's error and confidence; a signature needs
        ``J = ceil(ln(2/σ) / (2ε²))`` matching records (3993 for the defaults).
    min_support : int, optional
        Overrides ``J`` (``1``: every signature is solved for).
    small_signature : {"uniform-half", "base-rate", "pooled"}
        The rule for signatures with fewer than ``J`` records (see ``SMALL_SIGNATURE``).
    tol : float
        Convergence tolerance on ``max |f - g(f)|``.
    max_iter : int
        Maximum EM iterations.
    newton : bool
        Polish the EM result with Newton steps (attribute sets with at most
        ``NEWTON_POLISH_MAX_UNKNOWNS`` = 64 unknowns; beyond, EM's ``tol`` stands).
    accelerate : bool or {"squarem", "newton"}
        ``True`` or ``"squarem"`` (default): SQUAREM extrapolation of EM; ``"newton"``: where
        EM crawls, jump to its limit by safeguarded Newton steps (the default until issue 10;
        its safeguards do not always hold: on Adult's Mondrian ℓ = 3 release, QI age,
        workclass, marital-status, occupation, race, sex, native-country, 16 targets, sets of at
        most one attribute, its ``f`` is up to 0.26 from plain EM's run to convergence
        (120,534 iterations in all), SQUAREM's within 3e-11: ``bench_foreground.py
        --accelerators --very-large-groups --plain-max-iter 200000``); ``False``: plain EM. On the
        census setting at 1M resampled records (240 attribute sets) plain EM takes 99,506
        evaluations of Eq. (3), Newton jumps 25,691 plus their Jacobians, SQUAREM 13,278;
        both accelerated results are within 3.3e-8 of plain EM's ``f``
        (``benchmarks/bench_foreground.py --accelerators``).

    Returns
    -------
    GlobalDistribution
        ``f`` for every signature of ``A`` in the release (fixed values for insufficient ones).
    ConvergenceReport
    """
    attrs, target = one_target(release, attributes, sensitive_values)
    options = mining_options(
        epsilon, sigma, min_support, small_signature, tol, max_iter, newton, accelerate
    )
    n_x, base = count_target(release, target[1])
    layout = GroupLayout(release.group, release.n_groups, n_x)
    signatures = RowIndex.of(release, attrs).signatures(attrs)
    dist, report, _ = mine_from_layout(release, attrs, target, layout, signatures, options, base)
    return dist, report


def one_target(
    release: Release, attributes: Sequence[str] | str, sensitive_values: Any
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], np.ndarray]]:
    """The checked attribute set and the one target (as from
    :func:`~anonlab.attacks.foreground.inputs.resolve_targets`) of
    :func:`mine_global_distribution` (and of its map-reduce version). Raises on a release
    without per-record groups, an attribute that is not a quasi-identifier, or not exactly one
    target."""
    require_groups(release)
    attrs = check_attributes(release, attributes)
    targets = resolve_targets(release, sensitive_values)
    if len(targets) != 1:
        raise AnonlabError(
            f"mine_global_distribution takes one target x (a value or a value set), got "
            f"{len(targets)}"
        )
    return attrs, targets[0]
