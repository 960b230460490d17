"""The deFinetti attack's compiled sampler: random streams and the Gibbs/Metropolis kernels.

Kifer (SIGMOD 2009) §5.1, Algorithms 1–2, collapsed as in notes/kifer-definetti-attack.md §3.5;
the model, the sampler's choices and the chains are described in :mod:`anonlab.attacks.definetti`.
Everything here is compiled (numba, ``cache=True``): a counter-based splitmix64 stream per chain,
Gamma draws for the uncollapsed sampler's Dirichlet parameters, the exact redraw of a small
group's permutation (enumerated, Rao–Blackwellised), Metropolis–Hastings transpositions for a
large one, and the sweeps of every chain in parallel (:func:`run_chains`). The random numbers and
the kernels live in one file: numba invalidates a cached function only when the file that defines
it changes, so a kernel kept apart from the random numbers it inlines could run a stale copy.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numba import njit, prange


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
        for a in range(m):  # targets only; each cell of post gets its terms in order of p
            k = slot[order[lo + a]]
            if k >= 0:
                for p in range(n_perm):
                    post[k, vals[perms[p_lo + p, a]]] += score[p] / total
    for a in range(m):
        assign[order[lo + a]] = vals[perms[p_lo + pick, a]]


@njit(cache=True)
def _metropolis_update(
    cells, assign, counts, logphi, collapsed, lo, m, order, moves, logk, state, c, post, slot,
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
            if collapsed:  # logk[k] = log(k + prior): four lookups instead of a logarithm
                log_ratio += (
                    logk[counts[ca, vb]] + logk[counts[cb, va]]
                    - logk[counts[ca, va] - 1] - logk[counts[cb, vb] - 1]
                )  # fmt: skip
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
                    logk, state, c, post, slot, keep,
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
def run_chains(
    cells, n_cells, n_values, order, ptr, assign, prior, first, last, burn_in, exact_max,
    moves_per_record, perms, perm_ptr, slot, state, post, trace, collapsed, feat_ptr,
):  # fmt: skip
    """Sweeps ``first..last-1`` of every chain, in parallel; all state is updated in place.

    Kifer (SIGMOD 2009) Algorithm 1's outer loop for every chain (numba ``prange``), each chain
    ``c`` with its own random stream ``state[c]``, so the result depends on the seed, not on the
    thread count. Assumes the arrays of :class:`~anonlab.attacks.definetti.inputs.Layout`
    (``cells``, ``order``, ``ptr``, ``feat_ptr``), ``assign`` (chains, n) holding a permutation
    of every group's multiset, ``perms``/``perm_ptr`` from :func:`permutation_table` for
    ``exact_max``, ``slot`` (n,) the row of ``post`` each target record accumulates into (-1:
    not a target), ``post`` (chains, targets, n_values) and ``trace`` (chains, sweeps).
    """
    for c in prange(assign.shape[0]):
        _run_chain(
            cells, n_cells, n_values, order, ptr, assign[c], prior, first, last, burn_in,
            exact_max, moves_per_record, perms, perm_ptr, slot, state, c, post[c], trace[c],
            collapsed, feat_ptr,
        )  # fmt: skip


def permutation_table(exact_max: int) -> tuple[np.ndarray, np.ndarray]:
    """All permutations of 0..m-1 for m = 0..exact_max, stacked; rows perm_ptr[m]:perm_ptr[m+1].

    Returns ``(perms, perm_ptr)``: ``perms`` int64 of shape (Σ_m m!, max(exact_max, 1)), each
    row a permutation padded with zeros; the table :func:`run_chains` enumerates a group of size
    ``m <= exact_max`` from (Algorithm 2). Assumes ``0 <= exact_max <= 8`` (the attack checks).
    """
    blocks, ptr = [], [0]
    for m in range(exact_max + 1):
        listed = list(itertools.permutations(range(m)))
        perms = np.array(listed, dtype=np.int64).reshape(len(listed), m)
        block = np.zeros((len(perms), max(exact_max, 1)), dtype=np.int64)
        block[:, :m] = perms
        blocks.append(block)
        ptr.append(ptr[-1] + len(perms))
    return np.concatenate(blocks), np.array(ptr, dtype=np.int64)
