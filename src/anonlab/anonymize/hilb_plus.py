"""Hilb+ and Hilb++ (Jin, Zhang, Das, ASAP, §6.2.2 Algorithm 2, §7).

*Global look-ahead* applied to Hilb (:mod:`anonlab.anonymize.hilb`). Hilb grows a candidate group
``G1`` of frontier heads, and falls back to an Anatomy-like step, by testing whether the
remainder stays ℓ-eligible, ``|G| − |G1| >= ℓ·S_max(G \\ G1)``; ``S_max(G \\ G1)`` is never
published. Hilb+ (Algorithm 2) tests the worst case with the published ``S_max(G)`` instead, and
never grows ``G1`` nor falls back:

    Q_T = Hilbert index; sort by Q_T; one bucket (queue) per sensitive value
    repeat
        |G1| = ℓ;  if |G| − ℓ < ℓ·S_max(G): |G1| = |G|        # global look-ahead (line 7)
        G1 = the |G1| frontier heads with the lowest Q_T       # all of G when |G1| = |G| (E4)
        G = G \\ G1
    until G = ∅

The remainder stays ℓ-eligible by induction (``|G \\ G1| >= ℓ·S_max(G) >= ℓ·S_max(G \\ G1)``),
the frontier always holds at least ℓ heads when a group of ℓ is cut, and the last group is the
whole (eligible) remainder, so every group is ℓ-diverse.

**Known leak (notes §5 I1).** Line 10 takes the ℓ lowest *frontier heads*, and which records are
heads depends on the unpublished per-record bucket (sensitive) membership. The paper's own
Algorithm 7 still applies: on Figure 8's data Hilb+ outputs {t1,t3}, {t2,t4}, {t5..t8} and the
attacker still derives t1 = t2 = gastritis (tested in tests/anonymize/test_asap_repairs.py).
Theorem 6.2's proof only considers ``S_max``. ``variant="paper"`` (default) reproduces the paper;
``variant="cut"`` is the notes' simulatable alternative: Mondrian+'s look-ahead cut in one
dimension, i.e. :func:`~anonlab.anonymize.mondrian_plus.look_ahead_groups` on the Hilbert order
(cut a run of consecutive ``Q_T`` at its median if both halves keep ``>= ℓ·S_max(run)``
records; equal ``Q_T`` never straddle a cut). It consults only the QI and the ``S_max`` of unions
of published groups (Theorem 5.3).

**Hilb++** = Hilb+ then :mod:`stratified pick-up <anonlab.anonymize.stratified_pickup>`, in either
scheme. Since pick-up keeps groups of fewer than 2ℓ records, Hilb++ (paper variant) inherits the
leak of Hilb+'s size-ℓ groups.

Choices where the paper is silent (as in :mod:`anonlab.anonymize.hilb`): the same Hilbert grid
(codes unscaled, side ``2**bits`` for the largest domain), ties in ``Q_T`` broken by row number,
and with ``sensitive_values`` every unprotected record is a bucket of its own. The manifest
records ``remainder_group_size`` (the group taken whole by the look-ahead) for the paper variant
and ``refused_splits`` for the cut variant.

References
----------
X. Jin, N. Zhang, G. Das. ASAP: Eliminating algorithm-based disclosure in privacy-preserving data
publishing. Information Systems 36(5), 2011, §6.2.2, §7, §8.3.1.
G. Ghinita, P. Karras, P. Kalnis, N. Mamoulis. Fast data anonymization with low information loss.
VLDB 2007.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from anonlab._validation import check_choice, check_int, check_seed, takes_table_or_frame
from anonlab.anonymize.eligibility import require_l_eligible
from anonlab.anonymize.hilbert import hilbert_index
from anonlab.anonymize.mondrian_plus import look_ahead_groups
from anonlab.anonymize.stratified_pickup import counting_order, pickup_groups
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table

VARIANTS = ("paper", "cut")


@njit(cache=True)
def _heap_push(hkey: np.ndarray, hval: np.ndarray, size: int, key: int, val: int) -> int:
    i = size
    hkey[i] = key
    hval[i] = val
    while i > 0:
        parent = (i - 1) // 2
        if hkey[parent] <= hkey[i]:
            break
        hkey[parent], hkey[i] = hkey[i], hkey[parent]
        hval[parent], hval[i] = hval[i], hval[parent]
        i = parent
    return size + 1


@njit(cache=True)
def _heap_pop(hkey: np.ndarray, hval: np.ndarray, size: int) -> int:
    """Remove the root (smallest key); returns the new size."""
    size -= 1
    hkey[0] = hkey[size]
    hval[0] = hval[size]
    i = 0
    while True:
        a = 2 * i + 1
        b = a + 1
        s = i
        if a < size and hkey[a] < hkey[s]:
            s = a
        if b < size and hkey[b] < hkey[s]:
            s = b
        if s == i:
            break
        hkey[s], hkey[i] = hkey[i], hkey[s]
        hval[s], hval[i] = hval[i], hval[s]
        i = s
    return size


@njit(cache=True)
def _hilb_plus_kernel(
    qrank: np.ndarray,
    qstart: np.ndarray,
    qend: np.ndarray,
    pool_start: int,
    pool_end: int,
    l: int,
) -> tuple[np.ndarray, int]:
    """Group of each record (indexed by Hilbert rank) and the size of the last group.

    Bucket ``b`` is ``qrank[qstart[b]:qend[b]]`` (ranks, ascending); the unconstrained records
    (each a bucket of its own) are ``qrank[pool_start:pool_end]``.
    """
    n = qrank.shape[0]
    n_buckets = qstart.shape[0]
    head = qstart.copy()
    group = np.full(n, -1, dtype=np.int64)
    # S_max(G) by a count-of-counts: cc[c] = number of buckets holding c records.
    biggest = 0
    for b in range(n_buckets):
        biggest = max(biggest, qend[b] - qstart[b])
    cc = np.zeros(biggest + 2, dtype=np.int64)
    for b in range(n_buckets):
        cc[qend[b] - qstart[b]] += 1
    smax = biggest
    hkey = np.empty(n_buckets + 1, dtype=np.int64)
    hval = np.empty(n_buckets + 1, dtype=np.int64)
    hsize = 0
    for b in range(n_buckets):
        if head[b] < qend[b]:
            hsize = _heap_push(hkey, hval, hsize, qrank[head[b]], b)
    taken = np.empty(l, dtype=np.int64)
    ph = pool_start
    remaining = n
    g = 0
    last = 0
    while remaining > 0:
        while smax > 0 and cc[smax] == 0:
            smax -= 1
        if remaining - l < l * smax or remaining < 2 * l:
            # Global look-ahead (line 7): the rest could not stay ℓ-diverse in the worst case:
            # publish the whole remainder. (remaining < 2ℓ is implied when S_max >= 1; it only
            # matters with unprotected records, and keeps every group >= ℓ records.)
            for b in range(n_buckets):
                for i in range(head[b], qend[b]):
                    group[qrank[i]] = g
            for i in range(ph, pool_end):
                group[qrank[i]] = g
            last = remaining
            remaining = 0
            g += 1
            break
        n_taken = 0
        for _ in range(l):
            pool_rank = qrank[ph] if ph < pool_end else n
            if hsize > 0 and hkey[0] < pool_rank:
                b = hval[0]
                hsize = _heap_pop(hkey, hval, hsize)
                group[qrank[head[b]]] = g
                c = qend[b] - head[b]
                cc[c] -= 1
                cc[c - 1] += 1
                head[b] += 1
                taken[n_taken] = b
                n_taken += 1
            else:
                group[pool_rank] = g
                ph += 1
        for i in range(n_taken):
            b = taken[i]
            if head[b] < qend[b]:
                hsize = _heap_push(hkey, hval, hsize, qrank[head[b]], b)
        remaining -= l
        g += 1
    return group, last


def hilbert_keys(table: Table) -> tuple[np.ndarray, int]:
    """``Q_T`` of every record on Hilb's grid (:mod:`anonlab.anonymize.hilb`), and its bits."""
    qis = table.quasi_identifiers
    if not qis:
        raise AnonlabError("Hilb+ needs at least one quasi-identifier to order the records")
    bits = max(1, max(int(table.domain_size(q) - 1).bit_length() for q in qis))
    if len(qis) * bits > 64:
        raise AnonlabError(
            f"the Hilbert index over {len(qis)} quasi-identifiers with {bits} bits each (largest "
            f"domain) needs {len(qis) * bits} bits; at most 64 fit. Use fewer or coarser "
            f"quasi-identifiers"
        )
    return hilbert_index(table.qi_matrix(), bits), bits


def hilb_plus_groups(
    keys: np.ndarray, bucket: np.ndarray, n_buckets: int, l: int
) -> tuple[np.ndarray, int]:
    """Algorithm 2 on precomputed 1-D keys: (group id per record, size of the last group).

    ``bucket`` is each record's protected sensitive code in ``0 .. n_buckets-1``, or
    ``n_buckets`` for an unprotected record (a bucket of one). Ties in ``keys`` go by row number.
    The input must be ℓ-eligible.
    """
    n = len(keys)
    order = np.argsort(keys, kind="stable")  # rank -> record
    b_rank = np.asarray(bucket)[order]
    qrank = counting_order(b_rank.astype(np.int64), n_buckets + 1)  # ranks grouped by bucket
    bounds = np.r_[0, np.cumsum(np.bincount(b_rank, minlength=n_buckets + 1))].astype(np.int64)
    group_rank, last = _hilb_plus_kernel(
        qrank, bounds[:n_buckets], bounds[1 : n_buckets + 1], int(bounds[n_buckets]), n, int(l)
    )
    group = np.empty(n, dtype=np.int64)
    group[order] = group_rank
    return group, int(last)


def _hilb_plus_partition(
    table: Table, l: int, sensitive_values: Sequence[str] | None, variant: str
) -> tuple[np.ndarray, int, dict, np.ndarray]:
    sens = table.require_sensitive()
    if sensitive_values is not None and isinstance(sensitive_values, str | bytes):
        raise AnonlabError(
            f"parameter 'sensitive_values' must be a list of values, got the string "
            f"{sensitive_values!r}; write [{sensitive_values!r}]"
        )
    codes = table.codes[sens]
    constrained = table.value_mask(sens, sensitive_values)
    n = table.n_rows
    require_l_eligible(table, l, constrained)
    if 0 < n < l:
        raise IneligibleError(
            f"the table has {n} records, fewer than ℓ = {l}; the largest ℓ this table allows is {n}"
        )
    keys, bits = hilbert_keys(table)
    info: dict = {"hilbert_bits": bits}
    if variant == "paper":
        remap = np.full(len(constrained), -1, dtype=np.int64)
        n_buckets = int(constrained.sum())
        remap[constrained] = np.arange(n_buckets)
        bucket = remap[codes]
        bucket[bucket < 0] = n_buckets
        group, last = hilb_plus_groups(keys, bucket, n_buckets, l)
        info["remainder_group_size"] = last
        n_groups = int(group.max()) + 1 if n else 0
    else:
        # 1-D Mondrian+ on the Hilbert order: dense rank of Q_T (equal indices share a rank).
        _, rank = np.unique(keys, return_inverse=True)
        rank = rank.astype(np.int64).reshape(-1, 1)
        width = np.array([max(int(rank.max()) if n else 0, 0)], dtype=np.int64)
        group, n_groups, refused = look_ahead_groups(rank, codes, constrained, width, l)
        info["refused_splits"] = int(refused)
    return group, n_groups, info, constrained


def _validate(l: int, scheme: str, variant: str, seed: int) -> tuple[int, str, str, int]:
    l = check_int("l", l, minimum=1)
    scheme = check_choice("scheme", scheme, SCHEMES)
    variant = check_choice("variant", variant, VARIANTS)
    return l, scheme, variant, check_seed(seed)


def _parameters(l: int, sensitive_values: Sequence[str] | None, variant: str) -> dict:
    return {
        "l": l,
        "sensitive_values": None
        if sensitive_values is None
        else [str(v) for v in sensitive_values],
        "variant": variant,
    }


@takes_table_or_frame
def hilb_plus(
    table: Table,
    l: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    scheme: str = "generalization",
    variant: str = "paper",
    seed: int = 0,
) -> Release:
    """Group ``table`` with Hilb+ (global look-ahead; Jin et al. §6.2.2, Algorithm 2).

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute and at least one quasi-identifier.
    l : int
        ℓ >= 1.
    sensitive_values : sequence of str, optional
        Protect only these values (default: every value).
    scheme : {"generalization", "bucketization"}
    variant : {"paper", "cut"}
        ``"paper"``: Algorithm 2 as printed (open to Algorithm 7, notes I1). ``"cut"``: the
        look-ahead cut along the Hilbert order (simulatable; see the module docstring).
    seed : int
        Hilb+ is deterministic; the seed is only stored in the manifest.

    Returns
    -------
    Release
        Every group satisfies ``|G| >= ℓ·S_max(G)``.

    Raises
    ------
    IneligibleError
        If the table is not ℓ-eligible.
    """
    l, scheme, variant, seed = _validate(l, scheme, variant, seed)
    group, _, info, _ = _hilb_plus_partition(table, l, sensitive_values, variant)
    manifest = {
        "algorithm": "hilb+",
        "parameters": _parameters(l, sensitive_values, variant),
        "seed": seed,
        "look_ahead": "global",
        **info,
    }
    return Release(table, group, scheme, manifest)


@takes_table_or_frame
def hilb_plus_plus(
    table: Table,
    l: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    scheme: str = "generalization",
    variant: str = "paper",
    seed: int = 0,
) -> Release:
    """Hilb++: Hilb+ then stratified pick-up (Jin et al. §7), in either scheme.

    Parameters are those of :func:`hilb_plus`; ``seed`` drives the pick-up's random choices.
    """
    l, scheme, variant, seed = _validate(l, scheme, variant, seed)
    group, n_groups, info, constrained = _hilb_plus_partition(table, l, sensitive_values, variant)
    sens = table.codes[table.require_sensitive()]
    new_group, pickup = pickup_groups(group, n_groups, sens, constrained, l, seed)
    manifest = {
        "algorithm": "hilb++",
        "parameters": _parameters(l, sensitive_values, variant),
        "seed": seed,
        "look_ahead": "global",
        **info,
        "pickup": pickup,
    }
    return Release(table, new_group, scheme, manifest)
