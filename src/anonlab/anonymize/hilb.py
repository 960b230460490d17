"""Hilb (Ghinita, Karras, Kalnis, Mamoulis, VLDB 2007 / VLDBJ 2009): ℓ-diversity by Hilbert order.

The quasi-identifier vectors are mapped to one dimension by the Hilbert curve, which keeps
records that are close in the QI space close in the order; groups are then cut from that order
so that each has distinct sensitive values. As described by Jin, Zhang, Das (notes/jin-asap-
algorithm-safe-publishing.md §2.4, the paper's §6.2.2):

1. ``Q_T(t)`` = Hilbert index of ``t[Q]``; one queue (*bucket*) per sensitive value, each in
   ``Q_T`` order. The *frontier* ``F`` is the head of every non-empty bucket.
2. Greedy (deterministic) step: for ``s = ℓ, ℓ+1, …, |F|``, ``G1`` = the ``s`` frontier records
   with the lowest ``Q_T``; accept the first ``G1`` whose remainder stays ℓ-eligible,
   ``|G| − |G1| >= ℓ·S_max(G \\ G1)``.
3. Otherwise the fall-back ("roll-back", "randomized grouping") step, Anatomy-like: for
   ``s = ℓ, ℓ+1, …``, ``G1`` = the heads of the ``s`` largest buckets; accept the first ``G1``
   whose remainder stays ℓ-eligible.
4. Remove ``G1``, repeat until no record is left.

A group takes at most one record per bucket, so its values are distinct and, with ``s >= ℓ``,
it satisfies the frequency form of ℓ-diversity, ``|G| >= ℓ·S_max(G)``; the remainder stays
ℓ-eligible by construction. The input must be ℓ-eligible, otherwise :class:`IneligibleError`.

Choices where the papers are silent:

* **QI grid.** Each quasi-identifier's integer codes are used as they are (numeric attributes in
  value order, categorical ones in hierarchy-leaf order, as :meth:`Table.qi_matrix` gives them),
  on a common grid of side ``2**bits`` with ``bits`` = the bit length of the largest domain
  (largest ``domain_size − 1``), at least 1. Domains are not rescaled: a small domain occupies
  the low corner of its axis. ``d·bits`` must be at most 64 (else :class:`AnonlabError`). The
  curve's orientation is documented in :mod:`anonlab.anonymize.hilbert`.
* **Ties.** Records with equal Hilbert index are ordered by row number; every later tie-break
  ("lowest ``Q_T``", "lower head ``Q_T``") uses this total order. In the fall-back step buckets
  of equal size are ordered by their head's position (notes §2.4 [RECON]).
* **Greedy range.** ``s`` runs from ℓ to ``|F|`` (the number of non-empty buckets), the range in
  which ``s`` distinct buckets can be picked.
* **Safety net.** The fall-back is claimed always to succeed (at the latest with ``s = |F|``); if
  it did not, the whole remainder (ℓ-eligible by induction) would be published as one group.
  The manifest counts such groups (``remainder_groups``), next to ``greedy_groups`` and
  ``fallback_groups``; the property tests have never seen one.
* **Subset of sensitive values** (``sensitive_values=[...]``): only the listed values are
  constrained; every other record is treated as if it had a value of its own (a bucket of one),
  which makes this exactly Hilb on a relabelled table, as :func:`~anonlab.anonymize.anatomy`
  does. Groups still have at least ℓ records.
* **Seed.** Hilb is deterministic; the seed is stored in the manifest only.

The group-forming loop is inherently sequential and compiled with numba; one round costs
``O(m log m)`` for ``m`` sensitive values (the frontier is sorted, and the acceptance test for all
``s`` is one pass with prefix/suffix maxima), plus a binary search into the queue of
unconstrained records when there is one.

References
----------
G. Ghinita, P. Karras, P. Kalnis, N. Mamoulis. Fast data anonymization with low information loss.
VLDB 2007; A framework for efficient data anonymization under privacy and accuracy constraints.
VLDB Journal 18(5), 2009.

X. Jin, N. Zhang, G. Das. ASAP: Eliminating algorithm-based disclosure in privacy-preserving data
publishing. Information Systems 36(5), 2011 (§6.2.2).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from anonlab._validation import check_choice, check_int, check_seed, takes_table_or_frame
from anonlab.anonymize.eligibility import require_l_eligible
from anonlab.anonymize.hilbert import hilbert_index
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table


@njit(cache=True)
def _first_feasible(
    cnt: np.ndarray,
    hrank: np.ndarray,
    k: int,
    pool: np.ndarray,
    fallback: bool,
    remaining: int,
    l: int,
    pbefore: np.ndarray,
    pref: np.ndarray,
    suf: np.ndarray,
) -> tuple[int, int]:
    """Smallest ``s >= l`` whose candidate ``G1`` leaves an ℓ-eligible remainder.

    The ``k`` constrained buckets are given in candidate order (``cnt`` sizes, ``hrank`` head
    ranks); ``pool`` holds the ranks of the remaining unconstrained records (buckets of one), in
    rank order. A candidate of size ``s`` is the first ``j`` constrained buckets plus the first
    ``p`` pool records, ``s = j + p``, in the merged order. Returns ``(j, p)``, or ``(-1, -1)``.
    """
    n_pool = pool.shape[0]
    for j in range(k):
        if fallback and cnt[j] >= 2:
            pbefore[j] = 0  # buckets of >= 2 come before every bucket of one
        else:
            pbefore[j] = np.searchsorted(pool, hrank[j])
    pbefore[k] = n_pool
    pref[0] = 0
    for j in range(k):
        pref[j + 1] = max(pref[j], cnt[j] - 1)
    suf[k] = 0
    for j in range(k - 1, -1, -1):
        suf[j] = max(suf[j + 1], cnt[j])
    lo = 0
    for j in range(k + 1):
        hi = pbefore[j]
        # Within this segment S_max(G \ G1) is constant while pool records remain, and
        # |G| - s only shrinks, so only the smallest s (and the pool-exhausted s) can pass.
        base = max(pref[j], suf[j])
        p = max(lo, l - j)
        if p <= hi:
            smax = max(base, 1 if p < n_pool else 0)
            if remaining - (j + p) >= l * smax:
                return j, p
            if hi == n_pool and p < n_pool:
                if remaining - (j + n_pool) >= l * base:
                    return j, n_pool
        lo = hi
    return -1, -1


@njit(cache=True)
def _hilb_kernel(
    qrank: np.ndarray,
    qstart: np.ndarray,
    qend: np.ndarray,
    pool_start: int,
    pool_end: int,
    l: int,
) -> tuple[np.ndarray, int, int, int]:
    """Group of each record, indexed by rank in Hilbert order, and the step counts.

    Bucket ``b`` is ``qrank[qstart[b]:qend[b]]`` (ranks, ascending); the unconstrained records
    are ``qrank[pool_start:pool_end]``.
    """
    n = qrank.shape[0]
    n_buckets = qstart.shape[0]
    head = qstart.copy()
    ph = pool_start
    group = np.full(n, -1, dtype=np.int64)
    ids = np.empty(n_buckets, dtype=np.int64)
    key = np.empty(n_buckets, dtype=np.int64)
    cnt = np.empty(n_buckets, dtype=np.int64)
    hrank = np.empty(n_buckets, dtype=np.int64)
    pbefore = np.empty(n_buckets + 1, dtype=np.int64)
    pref = np.empty(n_buckets + 1, dtype=np.int64)
    suf = np.empty(n_buckets + 1, dtype=np.int64)
    remaining = n
    g = 0
    n_greedy = 0
    n_fallback = 0
    n_whole = 0
    while remaining > 0:
        k = 0
        for b in range(n_buckets):
            if head[b] < qend[b]:
                ids[k] = b
                k += 1
        pool = qrank[ph:pool_end]
        chosen_j = -1
        for step in range(2):
            fallback = step == 1
            for i in range(k):
                b = ids[i]
                c = qend[b] - head[b]
                r = qrank[head[b]]
                # greedy: by head rank; fall-back: largest bucket first, ties by head rank
                key[i] = r - c * (n + 1) if fallback else r
            order = np.argsort(key[:k])
            for i in range(k):
                b = ids[order[i]]
                cnt[i] = qend[b] - head[b]
                hrank[i] = qrank[head[b]]
            j, p = _first_feasible(cnt, hrank, k, pool, fallback, remaining, l, pbefore, pref, suf)
            if j >= 0:
                chosen_j = j
                for i in range(j):
                    b = ids[order[i]]
                    group[qrank[head[b]]] = g
                    head[b] += 1
                for i in range(p):
                    group[qrank[ph + i]] = g
                ph += p
                remaining -= j + p
                if fallback:
                    n_fallback += 1
                else:
                    n_greedy += 1
                break
        if chosen_j < 0:  # safety net: the remainder is l-eligible, publish it whole
            for b in range(n_buckets):
                for i in range(head[b], qend[b]):
                    group[qrank[i]] = g
                head[b] = qend[b]
            for i in range(ph, pool_end):
                group[qrank[i]] = g
            ph = pool_end
            remaining = 0
            n_whole += 1
        g += 1
    return group, n_greedy, n_fallback, n_whole


def _hilb_groups(
    keys: np.ndarray, bucket: np.ndarray, n_buckets: int, l: int
) -> tuple[np.ndarray, int, int, int]:
    """Hilb on precomputed 1-D keys: group id per record and (greedy, fall-back, whole) counts.

    ``bucket`` is each record's constrained sensitive code in ``0 .. n_buckets-1``, or
    ``n_buckets`` for an unconstrained record (a bucket of one). Ties in ``keys`` go by row
    number. The input must be ℓ-eligible.
    """
    n = len(keys)
    order = np.argsort(keys, kind="stable")  # rank -> record
    b_rank = bucket[order]
    qrank = np.argsort(b_rank, kind="stable").astype(np.int64)  # ranks grouped by bucket
    bounds = np.r_[0, np.cumsum(np.bincount(b_rank, minlength=n_buckets + 1))]
    group_rank, n_greedy, n_fallback, n_whole = _hilb_kernel(
        qrank, bounds[:n_buckets], bounds[1 : n_buckets + 1], int(bounds[n_buckets]), n, l
    )
    group = np.empty(n, dtype=np.int64)
    group[order] = group_rank
    return group, int(n_greedy), int(n_fallback), int(n_whole)


@takes_table_or_frame
def hilb(
    table: Table,
    l: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    scheme: str = "generalization",
    seed: int = 0,
) -> Release:
    """Group ``table`` into ℓ-diverse groups along the Hilbert curve (Hilb, Ghinita et al.).

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute and at least one quasi-identifier.
    l : int
        ℓ >= 1; every group satisfies ``|G| >= ℓ·S_max(G)`` (ℓ = 1: groups of one record).
    sensitive_values : sequence of str, optional
        Constrain only these values (default: every value is sensitive); the others act as
        values of their own.
    scheme : {"generalization", "bucketization"}
        How the groups are published.
    seed : int
        Hilb is deterministic; the seed is only stored in the manifest.

    Returns
    -------
    Release
        With manifest counts ``greedy_groups``, ``fallback_groups``, ``remainder_groups`` and the
        grid's ``hilbert_bits``.

    Raises
    ------
    IneligibleError
        If some constrained value occurs in more than n/ℓ records (or, with unconstrained
        records, the table has fewer than ℓ records).
    AnonlabError
        On bad parameters, or when the QI grid needs more than 64 bits (``d·bits > 64``).

    References
    ----------
    G. Ghinita, P. Karras, P. Kalnis, N. Mamoulis. Fast data anonymization with low information
    loss. VLDB 2007. X. Jin, N. Zhang, G. Das. ASAP, Information Systems 2011, §6.2.2.
    """
    l = check_int("l", l, minimum=1)
    scheme = check_choice("scheme", scheme, SCHEMES)
    seed = check_seed(seed)
    sens = table.require_sensitive()
    if not table.quasi_identifiers:
        raise AnonlabError("Hilb needs at least one quasi-identifier to order the records")
    codes = table.codes[sens]
    n_values = table.domain_size(sens)
    constrained = table.value_mask(sens, sensitive_values)
    n = table.n_rows

    require_l_eligible(table, l, constrained)
    if 0 < n < l:
        raise IneligibleError(
            f"the table has {n} records, fewer than ℓ = {l}; the largest ℓ this table allows is {n}"
        )

    qis = table.quasi_identifiers
    bits = max(1, max(int(table.domain_size(q) - 1).bit_length() for q in qis))
    if len(qis) * bits > 64:
        raise AnonlabError(
            f"the Hilbert index over {len(qis)} quasi-identifiers with {bits} bits each (largest "
            f"domain) needs {len(qis) * bits} bits; at most 64 fit. Use fewer or coarser "
            f"quasi-identifiers"
        )
    keys = hilbert_index(table.qi_matrix(), bits)

    # Constrained values keep their code (renumbered densely); the rest go to the pool.
    remap = np.full(n_values, -1, dtype=np.int64)
    remap[constrained] = np.arange(int(constrained.sum()))
    n_buckets = int(constrained.sum())
    bucket = remap[codes]
    bucket[bucket < 0] = n_buckets
    group, n_greedy, n_fallback, n_whole = _hilb_groups(keys, bucket, n_buckets, l)

    manifest = {
        "algorithm": "hilb",
        "parameters": {
            "l": l,
            "sensitive_values": None
            if sensitive_values is None
            else [str(v) for v in sensitive_values],
        },
        "seed": seed,
        "hilbert_bits": bits,
        "greedy_groups": n_greedy,
        "fallback_groups": n_fallback,
        "remainder_groups": n_whole,
    }
    return Release(table, group, scheme, manifest)
