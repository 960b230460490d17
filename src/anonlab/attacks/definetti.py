"""The deFinetti attack (Kifer, SIGMOD 2009): learn a model from the release itself.

Random-worlds reasoning gives each member of a group the group's value frequencies
(``P(t.S = v) = c_g(v) / |g|``). Kifer's attacker instead treats the records as exchangeable
(de Finetti's theorem): it puts a prior on the parameters of a model of how the quasi-identifiers
``R_1..R_n`` and the sensitive value ``S`` go together, learns that model from *all* groups of the
release, and reasons about each group's unknown permutation of its sensitive multiset
(paper §5.1, Eq. 1–7). The attacker knows only what is published: every record's quasi-identifiers
and group (the QIT) and each group's sensitive multiset (the ST).

Model and sampler
-----------------
* **Naive Bayes** (paper Eq. 1), ``P(S)·Π_i P(R_i | S)``, uniform Dirichlet priors (``prior=1``).
  ``model="joint"`` uses one Dirichlet over whole quasi-identifier vectors instead
  (``P(R_1..R_n, S)``, the reading under which the paper's Table 1 gives 100/101): the same
  code with the QI vector as a single feature. Other models fit the same shape as long as their
  collapsed likelihood is a product over count cells.
* **Collapsed Gibbs sampling** (notes §3.5): the Dirichlet parameters are integrated out, so the
  posterior of a full assignment ``π`` (a bijection, in every group, of the group's multiset onto
  its members) is ``∝ Π_{feature, x, s} Γ(n^π_{x,s} + prior)``. ``n_s`` is fixed by the ST, so the
  ``P(S)`` factor and the Dirichlet normalisers are constant and drop out. Each sweep redraws
  every group's permutation from its exact conditional given all other groups: by enumerating the
  ``|g|!`` permutations when ``|g| <= exact_max`` (the paper's choice for groups of 2–4,
  Algorithm 2), and otherwise by Metropolis–Hastings with random transpositions (the paper
  proposes independent shuffles, which are almost never accepted in large groups; transpositions
  leave the same posterior invariant and mix far better).
* **Rao–Blackwellised estimates**: for enumerated groups the per-record marginals of the exact
  conditional are accumulated instead of the one sampled permutation, which lowers the Monte-Carlo
  error at no cost. Metropolis–Hastings groups accumulate each record's value averaged over all
  inner states of the sweep (time-weighted), not just the final one.
* **Chains**: several chains from independent random starting permutations, run in parallel
  threads (numba ``prange``); each has its own counter-based random stream, so results depend on
  the seed only, not on the thread count. The paper pools the samples of its 20 runs
  (``combine="pool"``). The posterior is multimodal for ℓ >= 3 (chains stay in modes hundreds of
  nats apart), so ``combine="weight"`` weights chains by ``exp`` of their mean log posterior after
  burn-in instead (a crude mode-mass estimate: equal-volume modes), and every chain's trace is kept
  for inspection.

Generalized releases are attacked through the worst-case reduction (Wong et al. §2): the attacker
knows every record's exact quasi-identifiers and group, and each group's sensitive multiset. For
a generalized release that is more than is published (the QIs are coarsened), so the result is an
upper bound on what this attacker learns. Releases with perturbed sensitive values (MASK) are
attacked through their published values.

References
----------
D. Kifer. Attacks on privacy and deFinetti's theorem. SIGMOD 2009. Notes:
notes/kifer-definetti-attack.md (§3.5 collapsed form, §5 experiments, §7 ambiguities).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit, prange

from anonlab._validation import (
    check_choice,
    check_float,
    check_int,
    check_seed,
    rng_from_seed,
    takes_release,
)
from anonlab.attacks.contract import (
    Attack,
    Inference,
    Knowledge,
    describe,
    promise,
    register,
    strongest_sentence,
)
from anonlab.errors import AnonlabError
from anonlab.finding import Finding
from anonlab.release import Release

MODELS = ("naive-bayes", "joint")
SAMPLERS = ("collapsed", "uncollapsed")
COMBINE = ("pool", "weight")
#: Largest total number of assignments :func:`exact_posterior` enumerates.
EXACT_LIMIT = 2_000_000


# ---------------------------------------------------------------------- random numbers
@njit(cache=True, inline="always")
def _next(state: np.ndarray, c: int) -> np.uint64:
    """splitmix64 step of chain ``c``'s stream (one uint64 of state per chain)."""
    state[c] += np.uint64(0x9E3779B97F4A7C15)
    z = state[c]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _uniform(state: np.ndarray, c: int) -> float:
    return float(_next(state, c) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _below(state: np.ndarray, c: int, m: int) -> int:
    return int(_uniform(state, c) * m)


@njit(cache=True)
def _gamma(state: np.ndarray, c: int, shape: float) -> float:
    """Gamma(shape, 1) draw (Marsaglia & Tsang, 2000; boosted for shape < 1)."""
    boost = 1.0
    if shape < 1.0:
        boost = _uniform(state, c) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    k = 1.0 / math.sqrt(9.0 * d)
    while True:
        u1 = max(_uniform(state, c), 1e-300)
        x = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * _uniform(state, c))
        v = (1.0 + k * x) ** 3
        if v <= 0.0:
            continue
        u = max(_uniform(state, c), 1e-300)
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v * boost


@njit(cache=True)
def _draw_log_parameters(counts, feat_ptr, prior, state, c, out):
    """``out[x, s] = log φ_{f,s}(x)`` with ``φ_{f,s} ~ Dir(n_{f,·,s} + prior)`` (paper Eq. 5)."""
    n_values = counts.shape[1]
    for f in range(feat_ptr.shape[0] - 1):
        lo, hi = feat_ptr[f], feat_ptr[f + 1]
        for v in range(n_values):
            total = 0.0
            for x in range(lo, hi):
                out[x, v] = _gamma(state, c, counts[x, v] + prior)
                total += out[x, v]
            for x in range(lo, hi):
                out[x, v] = math.log(max(out[x, v], 1e-300) / total)


@njit(cache=True)
def collapsed_log_posterior(counts: np.ndarray, prior: float) -> float:
    """``Σ log Γ(n + prior)`` over count cells: the collapsed log posterior up to a constant.

    Kifer (SIGMOD 2009) §3.5: with the model's parameters integrated out, the posterior of an
    assignment is ``∝ Π Γ(n_{x,s} + prior)``. ``counts`` is a 2-D int array of count cells
    ``n_{x,s}`` (features by sensitive values), ``prior > 0``; compiled (numba).
    """
    total = 0.0
    for i in range(counts.shape[0]):
        for s in range(counts.shape[1]):
            total += math.lgamma(counts[i, s] + prior)
    return total


@njit(cache=True)
def _exact_update(
    cells, assign, counts, logk, logphi, collapsed, lo, m, order, perms, p_lo, p_hi, state, c,
    post, slot, keep, vals, table, score,
):  # fmt: skip
    """Redraw one group's permutation from its exact conditional (Algorithm 2, enumerated).

    Collapsed: ``counts`` exclude the group and a member's factor is ``n + prior`` (read from
    ``logk``); uncollapsed: the parameters are fixed and the factor is ``φ`` (``logphi``).
    ``vals``, ``table`` and ``score`` are the chain's scratch buffers (no allocation per group).
    """
    n_feat = cells.shape[1]
    for a in range(m):
        vals[a] = assign[order[lo + a]]
    distinct = True
    for a in range(m):
        for b in range(a + 1, m):
            if vals[a] == vals[b]:
                distinct = False
    n_perm = p_hi - p_lo
    if distinct or not collapsed:
        for a in range(m):
            r = order[lo + a]
            for b in range(m):
                acc = 0.0
                for f in range(n_feat):
                    if collapsed:
                        acc += logk[counts[cells[r, f], vals[b]]]
                    else:
                        acc += logphi[cells[r, f], vals[b]]
                table[a, b] = acc
        for p in range(n_perm):
            acc = 0.0
            for a in range(m):
                acc += table[a, perms[p_lo + p, a]]
            score[p] = acc
    else:  # collapsed with equal values sharing cells: add the records one by one
        for p in range(n_perm):
            acc = 0.0
            for a in range(m):
                r = order[lo + a]
                v = vals[perms[p_lo + p, a]]
                for f in range(n_feat):
                    extra = 0
                    for a2 in range(a):
                        r2 = order[lo + a2]
                        if vals[perms[p_lo + p, a2]] == v and cells[r2, f] == cells[r, f]:
                            extra += 1
                    acc += logk[counts[cells[r, f], v] + extra]
            score[p] = acc
    top = score[0]
    for p in range(1, n_perm):
        top = max(top, score[p])
    total = 0.0
    for p in range(n_perm):
        score[p] = math.exp(score[p] - top)
        total += score[p]
    u = _uniform(state, c) * total
    pick = n_perm - 1
    run = 0.0
    for p in range(n_perm):
        run += score[p]
        if u < run:
            pick = p
            break
    if keep:  # Rao–Blackwell: the exact marginals, not the one draw
        for p in range(n_perm):
            w = score[p] / total
            for a in range(m):
                k = slot[order[lo + a]]
                if k >= 0:
                    post[k, vals[perms[p_lo + p, a]]] += w
    for a in range(m):
        assign[order[lo + a]] = vals[perms[p_lo + pick, a]]


@njit(cache=True)
def _metropolis_update(
    cells, assign, counts, logphi, collapsed, lo, m, order, moves, prior, state, c, post, slot,
    keep,
):  # fmt: skip
    """Metropolis–Hastings over one group's permutation by random transpositions.

    Collapsed (``counts`` include the group): swapping the values of records ``a`` and ``b``
    multiplies the posterior by ``Π_f (n[c_a, v_b] + α)(n[c_b, v_a] + α) / ((n[c_a, v_a] − 1 +
    α)(n[c_b, v_b] − 1 + α))`` over features where the two records' cells differ; uncollapsed,
    by ``Π_f φ[c_a, v_b] φ[c_b, v_a] / (φ[c_a, v_a] φ[c_b, v_b])``. With ``keep``, each record's
    values are averaged over all ``moves`` inner states (time-weighted, O(1) per accepted move).
    """
    n_feat = cells.shape[1]
    since = np.zeros(m, dtype=np.int64)
    for t in range(moves):
        ia = _below(state, c, m)
        ib = _below(state, c, m)
        ra = order[lo + ia]
        rb = order[lo + ib]
        va = assign[ra]
        vb = assign[rb]
        if va == vb:
            continue
        log_ratio = 0.0
        for f in range(n_feat):
            ca = cells[ra, f]
            cb = cells[rb, f]
            if ca == cb:
                continue
            if collapsed:
                log_ratio += math.log(
                    (counts[ca, vb] + prior)
                    * (counts[cb, va] + prior)
                    / ((counts[ca, va] - 1 + prior) * (counts[cb, vb] - 1 + prior))
                )
            else:
                log_ratio += logphi[ca, vb] + logphi[cb, va] - logphi[ca, va] - logphi[cb, vb]
        if math.log(max(_uniform(state, c), 1e-300)) < log_ratio:
            if collapsed:
                for f in range(n_feat):
                    ca = cells[ra, f]
                    cb = cells[rb, f]
                    counts[ca, va] -= 1
                    counts[ca, vb] += 1
                    counts[cb, vb] -= 1
                    counts[cb, va] += 1
            if keep:
                ka = slot[ra]
                kb = slot[rb]
                if ka >= 0:
                    post[ka, va] += (t - since[ia]) / moves
                if kb >= 0:
                    post[kb, vb] += (t - since[ib]) / moves
                since[ia] = t
                since[ib] = t
            assign[ra] = vb
            assign[rb] = va
    if keep:
        for a in range(m):
            r = order[lo + a]
            k = slot[r]
            if k >= 0:
                post[k, assign[r]] += (moves - since[a]) / moves


@njit(cache=True)
def _run_chain(
    cells, n_cells, n_values, order, ptr, assign, prior, first, last, burn_in, exact_max,
    moves_per_record, perms, perm_ptr, slot, state, c, post, trace, collapsed, feat_ptr,
):  # fmt: skip
    """Sweeps ``first..last-1`` of one chain (Algorithm 1's outer loop)."""
    n, n_feat = cells.shape
    counts = np.zeros((n_cells, n_values), dtype=np.int64)
    for r in range(n):
        for f in range(n_feat):
            counts[cells[r, f], assign[r]] += 1
    n_groups = ptr.shape[0] - 1
    logphi = np.zeros((n_cells, n_values))
    vals = np.empty(max(exact_max, 1), dtype=np.int64)  # scratch for the exact group draws
    table = np.empty((max(exact_max, 1), max(exact_max, 1)))
    score = np.empty(perms.shape[0])
    logk = np.empty(n + 2)  # log(k + prior) for every count k a cell can hold
    for k in range(n + 2):
        logk[k] = math.log(k + prior)
    for sweep in range(first, last):
        keep = sweep >= burn_in
        if not collapsed:  # parameters | π (Eq. 5), then every group | parameters
            _draw_log_parameters(counts, feat_ptr, prior, state, c, logphi)
        for g in range(n_groups):
            lo = ptr[g]
            m = ptr[g + 1] - lo
            if m > 1 and m <= exact_max:
                if collapsed:  # the group's own counts leave the conditioning
                    for a in range(m):
                        r = order[lo + a]
                        for f in range(n_feat):
                            counts[cells[r, f], assign[r]] -= 1
                _exact_update(
                    cells, assign, counts, logk, logphi, collapsed, lo, m, order, perms,
                    perm_ptr[m], perm_ptr[m + 1], state, c, post, slot, keep, vals, table, score,
                )  # fmt: skip
                if collapsed:
                    for a in range(m):
                        r = order[lo + a]
                        for f in range(n_feat):
                            counts[cells[r, f], assign[r]] += 1
            elif m > 1:
                _metropolis_update(
                    cells, assign, counts, logphi, collapsed, lo, m, order, moves_per_record * m,
                    prior, state, c, post, slot, keep,
                )  # fmt: skip
            elif keep and slot[order[lo]] >= 0:  # a group of one: its value is known
                post[slot[order[lo]], assign[order[lo]]] += 1.0
        if not collapsed:  # the counts follow the new permutation
            counts[:, :] = 0
            for r in range(n):
                for f in range(n_feat):
                    counts[cells[r, f], assign[r]] += 1
        trace[sweep] = collapsed_log_posterior(counts, prior)


@njit(cache=True, parallel=True)
def _run_chains(
    cells, n_cells, n_values, order, ptr, assign, prior, first, last, burn_in, exact_max,
    moves_per_record, perms, perm_ptr, slot, state, post, trace, collapsed, feat_ptr,
):  # fmt: skip
    """Sweeps ``first..last-1`` of every chain, in parallel; all state is updated in place."""
    for c in prange(assign.shape[0]):
        _run_chain(
            cells, n_cells, n_values, order, ptr, assign[c], prior, first, last, burn_in,
            exact_max, moves_per_record, perms, perm_ptr, slot, state, c, post[c], trace[c],
            collapsed, feat_ptr,
        )  # fmt: skip


def _permutation_table(exact_max: int) -> tuple[np.ndarray, np.ndarray]:
    """All permutations of 0..m-1 for m = 0..exact_max, stacked; rows perm_ptr[m]:perm_ptr[m+1]."""
    blocks, ptr = [], [0]
    for m in range(exact_max + 1):
        listed = list(itertools.permutations(range(m)))
        perms = np.array(listed, dtype=np.int64).reshape(len(listed), m)
        block = np.zeros((len(perms), max(exact_max, 1)), dtype=np.int64)
        block[:, :m] = perms
        blocks.append(block)
        ptr.append(ptr[-1] + len(perms))
    return np.concatenate(blocks), np.array(ptr, dtype=np.int64)


# ---------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class _Layout:
    """What the attacker sees, in the sampler's shape."""

    cells: np.ndarray  # (n, n_features) int64 count-cell index of each record's feature value
    n_cells: int
    order: np.ndarray  # records sorted by group
    ptr: np.ndarray  # group g's records are order[ptr[g]:ptr[g + 1]]
    multiset: np.ndarray  # published sensitive codes sorted by (group, code): the ST
    n_values: int
    feat_ptr: np.ndarray  # feature f's cells are feat_ptr[f]:feat_ptr[f + 1]


def feature_cells(
    release: Release, attributes: tuple[str, ...], model: str
) -> tuple[np.ndarray, int, np.ndarray]:
    """Each record's count cell per feature: ``(cells, n_cells, feat_ptr)``.

    Kifer (SIGMOD 2009) §5.1: Naive Bayes has one feature per attribute (cells
    ``feat_ptr[f]:feat_ptr[f+1]`` are attribute ``f``'s codes); the joint model has one feature,
    the whole quasi-identifier vector (a cell per distinct vector, in key order). ``cells`` has
    shape (n_rows, n_features), int64. Assumes ``attributes`` checked
    (:func:`check_attributes`) and ``model`` one of ``MODELS``.
    """
    table = release.table
    codes = [table.codes[a].astype(np.int64) for a in attributes]
    sizes = [table.domain_size(a) for a in attributes]
    if model == "joint":  # one feature: the whole quasi-identifier vector
        key = np.zeros(table.n_rows, dtype=np.int64)
        for col, size in zip(codes, sizes, strict=True):
            key = key * size + col
        _, inverse = np.unique(key, return_inverse=True)
        n_cells = int(inverse.max(initial=-1)) + 1
        return inverse.reshape(-1, 1), n_cells, np.array([0, n_cells], dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return np.stack(codes, axis=1) + ptr[:-1], int(sum(sizes)), ptr


def _layout(release: Release, attributes: tuple[str, ...], model: str) -> _Layout:
    cells, n_cells, feat_ptr = feature_cells(release, attributes, model)
    order = np.argsort(release.group, kind="stable").astype(np.int64)
    ptr = np.zeros(release.n_groups + 1, dtype=np.int64)
    np.cumsum(release.group_sizes, out=ptr[1:])
    hist = release.sensitive_histogram  # (groups, values): the published ST
    n_values = hist.shape[1]
    multiset = np.repeat(np.tile(np.arange(n_values), release.n_groups), hist.ravel())
    return _Layout(cells, n_cells, order, ptr, multiset.astype(np.int64), n_values, feat_ptr)


def check_attributes(release: Release, attributes: Sequence[str] | None) -> tuple[str, ...]:
    """The attacker's quasi-identifiers as a tuple (default: all of the release's).

    Raises naming the valid ones when one is not a quasi-identifier, or when none is left.
    """
    qi = release.quasi_identifiers
    if attributes is None:
        attributes = qi
    attributes = tuple(attributes)
    unknown = [a for a in attributes if a not in qi]
    if unknown:
        raise AnonlabError(
            f"attributes {unknown} are not quasi-identifiers of the release; choose from {list(qi)}"
        )
    if not attributes:
        raise AnonlabError("the deFinetti attack needs at least one quasi-identifier attribute")
    return attributes


def require_attackable(release: Release) -> None:
    """Raise unless the release has per-record groups and at least 2 sensitive values."""
    if release.group is None:
        raise AnonlabError("the release has no per-record groups (a candidate from a search)")
    n_values = release.table.domain_size(release.sensitive)
    if n_values < 2:
        raise AnonlabError(
            f"sensitive attribute {release.sensitive!r} has {n_values} value; the attack needs "
            "at least 2"
        )


@takes_release
def random_worlds_posterior(release: Release, rows: np.ndarray | None = None) -> np.ndarray:
    """The random-worlds baseline: each member gets its group's value frequencies.

    ``P(t.S = v) = c_g(v) / |g|`` (Kifer §4, from Martin et al. and Machanavajjhala et al.).
    Shape ``(len(rows), n_values)``; all records when ``rows`` is None.
    """
    hist = np.asarray(release.sensitive_histogram, dtype=np.float64)
    freq = hist / np.maximum(release.group_sizes, 1)[:, None]
    group = release.group if rows is None else release.group[np.asarray(rows)]
    return freq[group]


@takes_release
def choose_targets(release: Release, count: int | None, seed: int = 0) -> np.ndarray:
    """``count`` distinct records drawn uniformly at random (sorted); all records when None."""
    n = release.table.n_rows
    if count is None:
        return np.arange(n)
    count = check_int("targets", count, minimum=1)
    if count > n:
        raise AnonlabError(f"targets must be at most the number of records ({n}), got {count}")
    return np.sort(rng_from_seed(seed).choice(n, size=count, replace=False))


# ---------------------------------------------------------------------- result
@dataclass(frozen=True)
class DeFinettiResult:
    """Posterior distributions over sensitive values for the attacked records.

    Attributes
    ----------
    rows : ndarray (R,)
        The records attacked (indices into the release's table).
    posterior : ndarray (R, n_values)
        The chains combined (see ``combine``).
    chain_posteriors : ndarray (chains, R, n_values)
        Each chain's estimate (the paper's per-run results; Min/Max come from these).
    log_posterior : ndarray (chains, sweeps)
        Each chain's collapsed log posterior after every sweep, up to one shared constant.
    chain_weights : ndarray (chains,)
        The weights used to combine the chains.
    baseline : ndarray (R, n_values)
        Random worlds on the same release.
    """

    rows: np.ndarray
    posterior: np.ndarray
    chain_posteriors: np.ndarray
    log_posterior: np.ndarray
    chain_weights: np.ndarray
    baseline: np.ndarray
    values: tuple[str, ...]
    attributes: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def monte_carlo_error(self) -> np.ndarray:
        """Standard error of the pooled posterior from the spread between chains, (R, n_values).

        ``sd_between_chains / sqrt(chains)``; zero with one chain (no estimate).
        """
        c = self.chain_posteriors.shape[0]
        if c < 2:
            return np.zeros_like(self.posterior)
        return self.chain_posteriors.std(axis=0, ddof=1) / math.sqrt(c)

    def r_hat(self) -> float:
        """Gelman–Rubin potential scale reduction of the log posterior after burn-in.

        Near 1 when the chains sample the same distribution; far above 1 when they sit in
        different modes (as Kifer's chains do for ℓ >= 3). NaN with fewer than 2 chains or 2
        kept sweeps.
        """
        kept = self.log_posterior[:, self.settings["burn_in"] :]
        c, s = kept.shape
        if c < 2 or s < 2:
            return float("nan")
        means = kept.mean(axis=1)
        within = kept.var(axis=1, ddof=1).mean()
        between = s * means.var(ddof=1)
        if within == 0:
            return 1.0 if between == 0 else float("inf")
        return float(math.sqrt(((s - 1) / s * within + between / s) / within))

    def chain_spread(self) -> float:
        """Largest difference between two chains' posteriors for any record and value."""
        return float(np.ptp(self.chain_posteriors, axis=0).max(initial=0.0))

    def confident(self, threshold: float = 0.8) -> np.ndarray:
        """Records (table indices) given some value with posterior >= ``threshold``."""
        return self.rows[self.posterior.max(axis=1) >= threshold]

    def breached(self, truth: np.ndarray, l: float | None = None) -> np.ndarray:
        """Records whose *true* value gets posterior above ``1/ℓ`` (publisher's view).

        ``truth`` holds the true sensitive codes of :attr:`rows`. ℓ-diversity under random
        worlds promises ``P(true value) <= 1/ℓ``; a record above it is breached beyond that
        promise. Without ℓ, each record's own random-worlds probability of its true value is the
        bound. A tolerance of 1e-9 absorbs rounding.
        """
        truth = np.asarray(truth, dtype=np.int64)
        if truth.shape != self.rows.shape:
            raise AnonlabError(
                f"truth must hold one code per attacked record ({len(self.rows)}), "
                f"got shape {truth.shape}"
            )
        idx = np.arange(len(truth))
        p = self.posterior[idx, truth]
        bound = self.baseline[idx, truth] if l is None else 1.0 / check_float("l", l)
        return self.rows[p > bound + 1e-9]

    def to_json(self) -> dict[str, Any]:
        return {
            "attack": "definetti",
            "records": int(len(self.rows)),
            "attributes": list(self.attributes),
            "settings": dict(self.settings),
            "chain_weights": self.chain_weights.tolist(),
            "chain_mean_log_posterior": _kept_means(self).tolist(),
            "r_hat": self.r_hat(),
            "chain_spread": self.chain_spread(),
            "monte_carlo_error_mean": float(self.monte_carlo_error().mean()),
        }


def _kept_means(result: DeFinettiResult) -> np.ndarray:
    kept = result.log_posterior[:, result.settings["burn_in"] :]
    return kept.mean(axis=1) if kept.shape[1] else result.log_posterior[:, -1]


def _combine(chain_post: np.ndarray, trace: np.ndarray, burn_in: int, combine: str):
    c = chain_post.shape[0]
    if combine == "pool":
        weights = np.full(c, 1.0 / c)
    else:
        kept = trace[:, burn_in:] if trace.shape[1] > burn_in else trace[:, -1:]
        score = kept.mean(axis=1)
        weights = np.exp(score - score.max())
        weights /= weights.sum()
    return np.tensordot(weights, chain_post, axes=1), weights


# ---------------------------------------------------------------------- the attack
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
    Kifer's Table 6: the smokers' groups all hold Cancer, so the non-smoker t12 of a mixed group
    probably does not (exactly 5/32 by enumeration; random worlds says 1/2).

    >>> import numpy as np, pandas as pd
    >>> from anonlab import Release, Table
    >>> frame = pd.DataFrame({
    ...     "smoker": list("yynnynyynnyn"),
    ...     "disease": ["Cancer", "Flu", "Flu", "Healthy", "Cancer", "Healthy",
    ...                 "Cancer", "Healthy", "Flu", "Healthy", "Cancer", "Healthy"]})
    >>> table = Table.from_frame(frame, quasi_identifiers=["smoker"], sensitive="disease")
    >>> release = Release(table, np.repeat(np.arange(6), 2), "bucketization")
    >>> round(float(exact_posterior(release)[11, 0]), 12)  # P(t12 = Cancer)
    0.15625
    >>> result = definetti_attack(release, sweeps=4000, seed=0)
    >>> bool(abs(result.posterior[11, 0] - 5 / 32) < 0.02)
    True
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
    layout = _layout(release, attributes, model)
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
    perms, perm_ptr = _permutation_table(exact_max)
    post = np.zeros((chains, len(rows), layout.n_values))
    trace = np.zeros((chains, sweeps))
    step = max(1, -(-sweeps // 20)) if progress is not None else sweeps
    for first in range(0, sweeps, step):
        last = min(sweeps, first + step)
        _run_chains(
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


# ---------------------------------------------------------------------- scoring
def score_posterior(
    posterior: np.ndarray, truth: np.ndarray, confidence: float = 0.8
) -> dict[str, float]:
    """Kifer's measures (§6) of posteriors ``(R, n_values)`` against true codes ``(R,)``.

    * ``ABS = Σ_i Σ_j |s_ij − p_ij|`` and ``SSQ = Σ_i Σ_j (s_ij − p_ij)²`` (sums over targets,
      as Table 7 reports them for 1,000 targets);
    * ``ACC``: share of targets whose most probable value is the true one, with fractional credit
      ``1/|argmax set|`` for ties (notes A10: this is how the random-worlds baseline gets exactly
      1/ℓ);
    * ``confident_share``: share of targets given some value with probability >= ``confidence``,
      and ``confident_precision``: the (tie-credited) share of those whose top value is right.
    """
    posterior = np.asarray(posterior, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.int64)
    if posterior.ndim != 2 or truth.shape != (posterior.shape[0],):
        raise AnonlabError(
            f"posterior must be (records, values) and truth (records,); got {posterior.shape} "
            f"and {truth.shape}"
        )
    r = len(truth)
    if r == 0:
        raise AnonlabError("no targets to score")
    onehot = np.zeros_like(posterior)
    onehot[np.arange(r), truth] = 1.0
    diff = onehot - posterior
    top = posterior.max(axis=1, keepdims=True)
    ties = np.abs(posterior - top) <= 1e-12
    credit = ties[np.arange(r), truth] / ties.sum(axis=1)
    confident = top[:, 0] >= confidence
    return {
        "targets": r,
        "ABS": float(np.abs(diff).sum()),
        "SSQ": float((diff**2).sum()),
        "ACC": float(credit.mean()),
        "mean_true_probability": float(posterior[np.arange(r), truth].mean()),
        "confident_share": float(confident.mean()),
        "confident_precision": float(credit[confident].mean()) if confident.any() else float("nan"),
    }


# ---------------------------------------------------------------------- exact oracle
@takes_release
def exact_posterior(
    release: Release,
    *,
    model: str = "naive-bayes",
    attributes: Sequence[str] | None = None,
    prior: float = 1.0,
) -> np.ndarray:
    """The model's exact posterior by enumerating every assignment (tiny releases only).

    ``P(π | T) ∝ Π_{feature, x, s} Γ(n^π_{x,s} + prior)`` summed over the ``Π_g |g|!``
    assignments (notes §3.5); returns ``(n_rows, n_values)``. Raises above
    :data:`EXACT_LIMIT` assignments. This is the test oracle for the sampler.
    """
    require_attackable(release)
    model = check_choice("model", model, MODELS)
    attributes = check_attributes(release, attributes)
    layout = _layout(release, attributes, model)
    sizes = np.diff(layout.ptr)
    total = math.prod(math.factorial(int(m)) for m in sizes)
    if total > EXACT_LIMIT:
        raise AnonlabError(
            f"exact enumeration needs {total:,} assignments; the limit is {EXACT_LIMIT:,} "
            "(use definetti_attack for larger releases)"
        )
    n = release.table.n_rows
    n_values = layout.n_values
    choices = []
    for g in range(len(sizes)):
        lo, hi = layout.ptr[g], layout.ptr[g + 1]
        members = layout.order[lo:hi]
        vals = layout.multiset[lo:hi]
        choices.append([(members, vals[list(p)]) for p in itertools.permutations(range(hi - lo))])
    logs, assigns = [], []
    assign = np.empty(n, dtype=np.int64)
    for combo in itertools.product(*choices):
        for members, vals in combo:
            assign[members] = vals
        counts = np.zeros((layout.n_cells, n_values))
        for f in range(layout.cells.shape[1]):
            np.add.at(counts, (layout.cells[:, f], assign), 1)
        logs.append(float(np.sum([math.lgamma(x + prior) for x in counts.ravel()])))
        assigns.append(assign.copy())
    logs_arr = np.array(logs)
    w = np.exp(logs_arr - logs_arr.max())
    w /= w.sum()
    out = np.zeros((n, n_values))
    stacked = np.array(assigns)
    for s in range(n_values):
        out[:, s] = w @ (stacked == s)
    return out


def predictive_posterior(
    features: np.ndarray,
    sensitive: np.ndarray,
    query: np.ndarray,
    n_values: int,
    domain_sizes: Sequence[int],
    *,
    model: str = "naive-bayes",
    prior: float = 1.0,
) -> np.ndarray:
    """Posterior predictive ``P(S | R = query, data)`` for a person *outside* fully known data.

    Kifer's Table 1 (§3.2): 199 people with known (smoker, cancer), and person 200 known to be a
    smoker. Naive Bayes: ``∝ (n_s + α)·Π_i (n_{i,r_i,s} + α) / (n_s + α|R_i|)``; joint: ``∝
    n_{r,s} + α``. ``features`` is (n, n_features) codes, ``sensitive`` (n,) codes, ``query``
    (n_features,) codes.
    """
    model = check_choice("model", model, MODELS)
    features = np.asarray(features, dtype=np.int64).reshape(len(sensitive), -1)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    query = np.asarray(query, dtype=np.int64)
    if model == "joint":
        match = np.all(features == query, axis=1)
        weight = np.bincount(sensitive[match], minlength=n_values) + prior
    else:
        n_s = np.bincount(sensitive, minlength=n_values).astype(np.float64)
        weight = n_s + prior
        for i, size in enumerate(domain_sizes):
            n_is = np.bincount(sensitive[features[:, i] == query[i]], minlength=n_values)
            weight = weight * (n_is + prior) / (n_s + prior * size)
    return weight / weight.sum()


# ---------------------------------------------------------------------- the registry's record
def _know(release: Release, options: Mapping[str, Any]) -> Knowledge:
    """The targets: ``targets`` records drawn by the publisher (the audit's seed)."""
    n = release.table.n_rows
    rows = choose_targets(release, min(int(options.get("targets", 200)), n),
                          seed=int(options.get("seed", 0)))  # fmt: skip
    return Knowledge(
        {"targets": rows},
        "the targets' quasi-identifiers and groups; a Naive Bayes model of quasi-identifiers and "
        "sensitive value learnt from the release itself",
    )


def _infer(view: Release, knowledge: Knowledge, options: Mapping[str, Any]) -> Inference:
    rows = knowledge["targets"]
    res = definetti_attack(
        view,
        targets=rows,
        chains=int(options.get("chains", 4)),
        sweeps=int(options.get("sweeps", 200)),
        seed=int(options.get("seed", 0)),
        progress=options.get("tick"),  # chunked sampling, the same result
    )
    best = res.posterior.argmax(axis=1)
    inferred = np.zeros(res.posterior.shape, dtype=bool)
    inferred[np.arange(len(rows)), best] = True
    at = np.arange(len(rows))
    return Inference(
        attack="definetti",
        values=res.values,
        records=rows,
        inferred=inferred,
        probability=res.posterior[at, best],
        baseline=res.baseline[at, best],
        posterior=res.posterior,
        summary={"r_hat": res.r_hat(), "chain_spread": res.chain_spread()},
        settings=dict(res.settings, targets=len(rows)),
        detail=res,
    )


def _judge(
    release: Release, knowledge: Knowledge, inference: Inference, options: Mapping[str, Any]
) -> Finding:
    """At risk: a target whose true value gets a posterior above the promise by more than the
    Monte-Carlo noise (0.01, or three between-chain standard errors)."""
    res: DeFinettiResult = inference.detail
    rows = inference.records
    at = np.arange(len(rows))
    truth = release.table.codes[release.sensitive][rows]
    bound, words = promise(release)
    ours = score_posterior(res.posterior, truth)
    base = score_posterior(res.baseline, truth)
    p_true = inference.probability_of(truth)
    noise = np.maximum(0.01, 3 * res.monte_carlo_error()[at, truth])
    risk = p_true > bound[rows] + noise
    order = np.argsort(-inference.probability, kind="stable")[:10]
    worst = []
    for i in order.tolist():
        row = int(rows[i])
        j = int(np.flatnonzero(inference.inferred[i])[0])
        worst.append(
            {
                "record": row,
                "group": int(release.group[row]),
                "known": describe(release, row, res.attributes),
                "inferred": res.values[j],
                "probability": float(inference.probability[i]),
                "random_worlds": float(inference.baseline[i]),
                "correct": bool(j == truth[i]),
            }
        )
    return Finding(
        key=ATTACK.name,
        title=ATTACK.title,
        paper=ATTACK.paper,
        attacker=ATTACK.attacker,
        promise=words,
        verdict="at risk" if risk.any() else "pass",
        headline=f"{int(risk.sum()):,} of {len(rows):,} targets have their true value inferred "
        f"above {words}; accuracy {ours['ACC']:.3f} vs {base['ACC']:.3f} for random worlds",
        at_risk=int(risk.sum()),
        considered=len(rows),
        strongest=strongest_sentence(release, worst, set_of=False),
        measures={**ours, **inference.summary},
        baseline=base,
        worst=worst,
        plot={
            "kind": "posterior",
            "ours": p_true,
            "baseline": res.baseline[at, truth],
            "bound": float(np.median(bound)),
            "label": "deFinetti: probability of the true value",
        },
        settings=inference.settings,
    )


ATTACK = register(
    Attack(
        name="definetti",
        title="deFinetti attack",
        paper="Kifer, Attacks on privacy and deFinetti's theorem, SIGMOD 2009",
        attacker="knows the targets' quasi-identifiers and groups; learns a Naive Bayes model of "
        "quasi-identifiers and sensitive value from the release itself",
        knowledge=("targets",),
        know=_know,
        infer=_infer,
        judge=_judge,
        command="definetti",
        order=10,
        cost="grows with records × chains × sweeps (every record is resampled each sweep)",
        options=("targets", "chains", "sweeps"),
    )
)
