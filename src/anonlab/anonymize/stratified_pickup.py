"""Stratified pick-up (Jin, Zhang, Das, ASAP, §7, Algorithm 4): Anatomy inside every large group.

The look-ahead repairs (Mondrian+, Hilb+, MASK+) publish larger groups than the algorithms they
fix. Stratified pick-up wins utility back: every group G of a simulatable release with
``ℓ <= |G|/2`` is re-partitioned by Anatomy (Xiao & Tao's *Anatomize*, notes §2.8) into groups of
ℓ to 2ℓ−1 records with distinct sensitive values (Theorem 7.1); smaller groups are kept as they
are, since a group of fewer than 2ℓ records cannot be split into two ℓ-diverse groups.

Anatomy reads only the group's sensitive histogram — published anyway — and chooses records at
random, independently of the quasi-identifiers, so a simulatable input stays simulatable
(Theorem 7.2). In the generalization scheme each new group is generalized to its own bounding
box or lowest common ancestor, which is where the utility comes from; in the bucketization scheme
(Algorithm 6) the exact QI are published with each new group's sensitive counts.

Implementation: one compiled pass over the groups. Inside a group, the rounds of Anatomize are
:func:`anonlab.anonymize.anatomy.anatomize_rounds` (the same code the whole-table Anatomy uses:
take one record from each of the ℓ largest buckets until fewer than ℓ are non-empty); records are
then dealt to the rounds in a random order, and each leftover record (at most ℓ−1 with distinct
values, plus unconstrained ones) joins a uniformly random new group that does not hold its value.

Choices where the paper is silent (shared with :mod:`anonlab.anonymize.anatomy`):

* Ties between buckets of equal size are broken by a random priority, drawn independently for
  every (group, value); the record taken from a bucket is random.
* With a subset of protected values (``sensitive_values``), every unprotected record acts as a
  bucket of its own (the "pool"), exactly as in :func:`~anonlab.anonymize.anatomy.anatomy`.
* The input groups must be ℓ-eligible (``|G| >= ℓ·S_max(G)``, over the protected values), which
  every ℓ-diverse release satisfies; otherwise :class:`~anonlab.errors.IneligibleError` names the
  first offending group.

References
----------
X. Jin, N. Zhang, G. Das. ASAP: Eliminating algorithm-based disclosure in privacy-preserving data
publishing. Information Systems 36(5), 2011, §7.
X. Xiao and Y. Tao. Anatomy: Simple and effective privacy preservation. VLDB 2006.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from anonlab._validation import check_int, check_seed, rng_from_seed
from anonlab.anonymize.anatomy import anatomize_rounds
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.grouping import group_histogram
from anonlab.release import Release


@njit(cache=True)
def counting_order(keys: np.ndarray, n_keys: int) -> np.ndarray:
    """Stable order of ``keys`` (integers in ``0 .. n_keys-1``) by counting sort, O(n + n_keys)."""
    start = np.zeros(n_keys + 1, dtype=np.int64)
    for k in keys:
        start[k + 1] += 1
    for k in range(n_keys):
        start[k + 1] += start[k]
    order = np.empty(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        k = keys[i]
        order[start[k]] = i
        start[k] += 1
    return order


@njit(cache=True)
def _pickup_kernel(
    order: np.ndarray,
    bucket: np.ndarray,
    key: np.ndarray,
    choice: np.ndarray,
    starts: np.ndarray,
    pool_id: int,
    l: int,
) -> tuple[np.ndarray, int, int, int]:
    """New group of each record; counts (groups split, new groups, residue records).

    ``order`` lists the records sorted by (group, bucket), in random order within; group ``g`` is
    ``order[starts[g]:starts[g + 1]]``. ``bucket`` is the record's protected value, or
    ``pool_id`` for an unprotected record; ``key`` and ``choice`` are uniform in [0, 1).
    """
    n = order.shape[0]
    n_in = starts.shape[0] - 1
    new_group = np.empty(n, dtype=np.int64)
    next_id = 0
    n_split = 0
    n_residue = 0
    for g in range(n_in):
        gs = starts[g]
        ge = starts[g + 1]
        size = ge - gs
        if size < 2 * l:
            for i in range(gs, ge):
                new_group[order[i]] = next_id
            next_id += 1
            continue
        n_split += 1
        # Runs of equal bucket inside the group (sorted by bucket; the pool id is the largest).
        n_runs = 0
        pool_start = ge
        for i in range(gs, ge):
            b = bucket[order[i]]
            if b == pool_id:
                pool_start = i
                break
            if i == gs or b != bucket[order[i - 1]]:
                n_runs += 1
        run_start = np.empty(n_runs + 1, dtype=np.int64)
        counts = np.empty(n_runs, dtype=np.int64)
        priority = np.empty(n_runs, dtype=np.float64)
        r = -1
        for i in range(gs, pool_start):
            if i == gs or bucket[order[i]] != bucket[order[i - 1]]:
                r += 1
                run_start[r] = i
                priority[r] = key[order[i]]  # a random record's key: uniform, QI-blind
        run_start[n_runs] = pool_start
        for r in range(n_runs):
            counts[r] = run_start[r + 1] - run_start[r]
        pool = ge - pool_start
        slots = anatomize_rounds(counts, pool, l, priority)
        p = slots.shape[0]
        holds = np.zeros((p, n_runs + 1), dtype=np.bool_)
        ptr = run_start[:n_runs].copy()
        pptr = pool_start
        for gi in range(p):
            for j in range(l):
                b = slots[gi, j]
                if b >= 0:
                    new_group[order[ptr[b]]] = next_id + gi
                    ptr[b] += 1
                    holds[gi, b] = True
                else:
                    new_group[order[pptr]] = next_id + gi
                    pptr += 1
        # Leftovers: at most l-1 protected records with distinct values, plus pool records.
        for r in range(n_runs + 1):
            lo = ptr[r] if r < n_runs else pptr
            hi = run_start[r + 1] if r < n_runs else ge
            for i in range(lo, hi):
                rec = order[i]
                n_ok = 0
                for gi in range(p):
                    if r == n_runs or not holds[gi, r]:
                        n_ok += 1
                if n_ok == 0:  # cannot happen for an l-eligible group (checked before)
                    return new_group, -1, -1, -1
                pick = min(int(choice[rec] * n_ok), n_ok - 1)
                for gi in range(p):
                    if r == n_runs or not holds[gi, r]:
                        if pick == 0:
                            new_group[rec] = next_id + gi
                            if r < n_runs:
                                holds[gi, r] = True
                            break
                        pick -= 1
                n_residue += 1
        next_id += p
    return new_group, n_split, next_id, n_residue


def pickup_groups(
    group: np.ndarray,
    n_groups: int,
    sensitive_codes: np.ndarray,
    constrained: np.ndarray,
    l: int,
    seed: int,
) -> tuple[np.ndarray, dict]:
    """Stratified pick-up on raw arrays: (new group per record, counts for the manifest).

    ``group`` holds ids ``0 .. n_groups-1``; ``sensitive_codes`` are the *published* sensitive
    codes; ``constrained`` is the bool mask of protected values.
    """
    l = check_int("l", l, minimum=1)
    seed = check_seed(seed)
    group = np.asarray(group, dtype=np.int64)
    codes = np.asarray(sensitive_codes, dtype=np.int64)
    n_values = len(constrained)
    hist = group_histogram(group, codes, n_groups, n_values)
    sizes = hist.sum(axis=1)
    smax = np.where(constrained, hist, 0).max(axis=1) if n_values else np.zeros(n_groups)
    bad = np.flatnonzero(l * smax > sizes)
    if len(bad):
        g = int(bad[0])
        raise IneligibleError(
            f"stratified pick-up needs ℓ-eligible groups (|G| >= ℓ·S_max(G)); {len(bad)} of "
            f"{n_groups} groups are not, e.g. group {g} with {int(sizes[g])} records and "
            f"S_max = {int(smax[g])} at ℓ = {l}; run it on an ℓ-diverse release"
        )
    rng = rng_from_seed(seed)
    n = len(group)
    key = rng.random(n)
    choice = rng.random(n)
    # Groups of fewer than 2ℓ records are kept; only the others go through the kernel.
    big = sizes >= 2 * l
    new_group = np.empty(n, dtype=np.int64)
    n_split = n_out = n_residue = 0
    if big.any():
        rows = np.flatnonzero(big[group])
        big_id = np.cumsum(big) - 1  # old group id -> index among the big groups
        sub_group = big_id[group[rows]]
        bucket = np.where(constrained[codes[rows]], codes[rows], n_values)
        # records by (group, bucket), in random order inside each: a stable counting sort of a
        # random permutation on one integer key
        perm = rng.permutation(len(rows))
        flat = sub_group[perm] * (n_values + 1) + bucket[perm]
        order = perm[counting_order(flat, int(big.sum()) * (n_values + 1))]
        starts = np.r_[0, np.cumsum(sizes[big])].astype(np.int64)
        sub_new, n_split, n_out, n_residue = _pickup_kernel(
            order, bucket.astype(np.int64), key[rows], choice[rows], starts, n_values, l
        )
        if n_out < 0:  # pragma: no cover - excluded by the eligibility check above
            raise AnonlabError("stratified pick-up found no group for a leftover record")
        new_group[rows] = sub_new
    small_rows = np.flatnonzero(~big[group])
    if len(small_rows):
        small_id = np.cumsum(~big) - 1
        new_group[small_rows] = n_out + small_id[group[small_rows]]
    n_out += int(np.count_nonzero(~big))
    counts = {
        "l": l,
        "groups_in": int(n_groups),
        "groups_split": int(n_split),
        "groups_out": int(n_out),
        "residue_records": int(n_residue),
    }
    return new_group, counts


def stratified_pickup(
    release: Release,
    l: int,
    *,
    sensitive_values: Sequence[str] | None = None,
    seed: int = 0,
) -> Release:
    """Apply stratified pick-up (Algorithm 4) to the groups of a release.

    Parameters
    ----------
    release : Release
        The output of a simulatable algorithm (Mondrian+, Hilb+, MASK+, Anatomy, ...); its
        groups must be ℓ-eligible over the protected values. Published (possibly perturbed)
        sensitive values are the ones used, and they are kept.
    l : int
        ℓ >= 1; groups with at least 2ℓ records are re-partitioned by Anatomy with this ℓ.
    sensitive_values : sequence of str, optional
        Protected values (default: every value).
    seed : int
        Seed of the random choices; stored in the manifest.

    Returns
    -------
    Release
        Same scheme and published sensitive values; manifest ``algorithm`` is the input's with
        ``"+pickup"`` appended, the input manifest is kept under ``"input"``, and ``pickup``
        holds the counts (groups split, groups out, residue records).
    """
    if not isinstance(release, Release) or release.group is None:
        raise AnonlabError("stratified_pickup needs a Release with a group per record")
    table = release.table
    sens = table.require_sensitive()
    constrained = table.value_mask(sens, sensitive_values)
    new_group, counts = pickup_groups(
        release.group, release.n_groups, release.sensitive_codes, constrained, l, seed
    )
    inner = {k: v for k, v in release.manifest.items() if k not in ("schema",)}
    manifest = {
        "algorithm": f"{release.manifest.get('algorithm', 'unknown')}+pickup",
        "parameters": {
            "l": counts["l"],
            "sensitive_values": None
            if sensitive_values is None
            else [str(v) for v in sensitive_values],
        },
        "seed": check_seed(seed),
        "input": inner,
        "pickup": counts,
    }
    return Release(
        table,
        new_group,
        release.scheme,
        manifest,
        published_sensitive=release.published_sensitive,
    )
