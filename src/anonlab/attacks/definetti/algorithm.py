"""The deFinetti attack itself: :func:`definetti_attack` runs the chains and combines them.

Kifer (SIGMOD 2009) Algorithm 1: chains from random starting permutations, each sweep redrawing
every group's permutation (:mod:`.sampler`), estimates accumulated after burn-in and the chains
pooled (the paper's "Pooled") or weighted by their mean log posterior (package docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from anonlab._validation import (
    check_choice,
    check_float,
    check_int,
    check_seed,
    rng_from_seed,
    takes_release,
)
from anonlab.attacks.definetti.inputs import (
    COMBINE,
    MODELS,
    SAMPLERS,
    check_attributes,
    layout_of,
    random_worlds_posterior,
    require_attackable,
)
from anonlab.attacks.definetti.result import DeFinettiResult
from anonlab.attacks.definetti.sampler import permutation_table, run_chains
from anonlab.errors import AnonlabError
from anonlab.release import Release


def _combine(chain_post: np.ndarray, trace: np.ndarray, burn_in: int, combine: str):
    c = chain_post.shape[0]
    if combine == "pool":
        weights = np.full(c, 1.0 / c)
    else:
        kept = trace[:, burn_in:] if trace.shape[1] > burn_in else trace[:, -1:]
        score = kept.mean(axis=1)
        weights = np.exp(score - score.max())
        weights /= weights.sum()
    # einsum's own loop, not BLAS (whose threads would spin after this one call)
    return np.einsum("c,c...->...", weights, chain_post), weights


@takes_release
def definetti_attack(
    release: Release,
    *,
    model: str = "naive-bayes",
    attributes: Sequence[str] | None = None,
    targets: np.ndarray | Sequence[int] | None = None,
    chains: int = 4,
    sweeps: int = 200,
    burn_in: int | None = None,
    prior: float = 1.0,
    exact_max: int = 5,
    moves_per_record: int = 2,
    combine: str = "pool",
    sampler: str = "collapsed",
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> DeFinettiResult:
    """Run the deFinetti attack and return each target's posterior over sensitive values.

    Parameters
    ----------
    release : Release
        Bucketized, or generalized through the worst-case reduction (module docstring).
    model : {"naive-bayes", "joint"}
        The attacker's model (paper Eq. 1, or one Dirichlet over whole QI vectors).
    attributes : sequence of str, optional
        The quasi-identifiers the model uses (default: all of the release's).
    targets : array of int, optional
        Records whose posteriors are kept (default: all). Every record is sampled either way;
        targets only limit the memory of the estimates.
    chains : int
        Independent chains, each from its own random starting permutation (the paper ran 20).
    sweeps : int
        Outer iterations (each redraws every group's permutation once; the paper's M).
    burn_in : int, optional
        Sweeps discarded before estimates are accumulated (default ``sweeps // 2``, as the paper).
    prior : float
        Dirichlet concentration of every prior (1: the paper's uniform priors).
    exact_max : int
        Groups up to this size are redrawn exactly by enumerating their ``|g|!`` permutations;
        larger ones by Metropolis–Hastings transpositions (at most 8).
    moves_per_record : int
        Metropolis–Hastings proposals per record of a large group per sweep.
    combine : {"pool", "weight"}
        ``pool``: average the chains equally (the paper's "Pooled"); ``weight``: weight each
        chain by exp of its mean log posterior after burn-in.
    sampler : {"collapsed", "uncollapsed"}
        ``collapsed`` (default): parameters integrated out, each group redrawn given the others'
        counts. ``uncollapsed``: the paper's Algorithm 1 literally — each sweep draws the Naive
        Bayes parameters from their Dirichlet posteriors (Eq. 5; ``P(S)`` cancels within a
        group, notes A7) and then every group's permutation given them (Algorithm 2, exact or
        transposition Metropolis–Hastings). Both target the same posterior.
    seed : int
        Seeds every chain's random stream and starting permutation.
    progress : callable, optional
        Called as ``progress(sweeps_done, sweeps)`` about 20 times during the run (the
        sampling is then done in chunks, with the same result).

    Returns
    -------
    DeFinettiResult

    Examples
    --------
    Kifer's Table 6, in the package docstring (:mod:`anonlab.attacks.definetti`): the attack's
    posterior that the non-smoker t12 holds Cancer comes within 0.02 of the exact 5/32.
    """
    require_attackable(release)
    model = check_choice("model", model, MODELS)
    combine = check_choice("combine", combine, COMBINE)
    sampler = check_choice("sampler", sampler, SAMPLERS)
    chains = check_int("chains", chains, minimum=1)
    sweeps = check_int("sweeps", sweeps, minimum=1)
    burn_in = sweeps // 2 if burn_in is None else check_int("burn_in", burn_in, minimum=0)
    if burn_in >= sweeps:
        raise AnonlabError(f"burn_in ({burn_in}) must be smaller than sweeps ({sweeps})")
    prior = check_float("prior", prior)
    if not prior > 0:
        raise AnonlabError(f"parameter 'prior' must be > 0, got {prior}")
    exact_max = check_int("exact_max", exact_max, minimum=1)
    if exact_max > 8:
        raise AnonlabError(
            f"exact_max must be at most 8 (8! = 40320 permutations), got {exact_max}"
        )
    moves_per_record = check_int("moves_per_record", moves_per_record, minimum=1)
    seed = check_seed(seed)
    attributes = check_attributes(release, attributes)
    n = release.table.n_rows
    rows = np.arange(n) if targets is None else np.unique(np.asarray(targets, dtype=np.int64))
    if len(rows) == 0:
        raise AnonlabError("targets is empty: give at least one record to attack")
    if rows[0] < 0 or rows[-1] >= n:
        raise AnonlabError(f"targets must be record indices in 0..{n - 1}")
    layout = layout_of(release, attributes, model)
    slot = np.full(n, -1, dtype=np.int64)
    slot[rows] = np.arange(len(rows))
    rng = rng_from_seed(seed)
    assign = np.empty((chains, n), dtype=np.int64)
    group_sorted = release.group[layout.order]
    for c in range(chains):  # random start: shuffle each group's multiset over its members
        keys = rng.random(n)
        within = np.lexsort((keys, group_sorted))
        assign[c, layout.order[within]] = layout.multiset
    state = rng.integers(0, 2**63, size=chains, dtype=np.uint64)
    perms, perm_ptr = permutation_table(exact_max)
    post = np.zeros((chains, len(rows), layout.n_values))
    trace = np.zeros((chains, sweeps))
    step = max(1, -(-sweeps // 20)) if progress is not None else sweeps
    for first in range(0, sweeps, step):
        last = min(sweeps, first + step)
        run_chains(
            layout.cells, layout.n_cells, layout.n_values, layout.order, layout.ptr, assign,
            prior, first, last, burn_in, exact_max, moves_per_record, perms, perm_ptr, slot,
            state, post, trace, sampler == "collapsed", layout.feat_ptr,
        )  # fmt: skip
        if progress is not None:
            progress(last, sweeps)
    post /= sweeps - burn_in
    combined, weights = _combine(post, trace, burn_in, combine)
    table = release.table
    return DeFinettiResult(
        rows=rows,
        posterior=combined,
        chain_posteriors=post,
        log_posterior=trace,
        chain_weights=weights,
        baseline=random_worlds_posterior(release, rows),
        values=tuple(str(v) for v in table.values[release.sensitive]),
        attributes=attributes,
        settings={
            "model": model,
            "chains": chains,
            "sweeps": sweeps,
            "burn_in": burn_in,
            "prior": prior,
            "exact_max": exact_max,
            "moves_per_record": moves_per_record,
            "combine": combine,
            "sampler": sampler,
            "seed": seed,
        },
    )
