"""Injector (Li & Li, ICDE 2008, §V-C, Fig. 2): bucketization that negative rules cannot break.

The background knowledge is a set of negative association rules ``X ⇒ ¬s`` with confidence 1,
mined from the table itself (``anonlab.mining.negative_rules``), or any boolean incompatibility
matrix (records × sensitive values). The release is a bucketization (QIT + ST, as Anatomy) in
which every record keeps at least ℓ distinct sensitive values that are still possible in some
one-to-one assignment of its bucket's values to its members (*matching ℓ-diversity*,
Definition 1; :mod:`anonlab.models.matching_l_diversity`).

Fig. 2 (OCR-repaired in notes/li-injector-negative-rules.md §6.2), with ``IVS[t]`` the values
record ``t`` cannot take. Records ``t_i, t_j`` are *incompatible* (Definition 2) when they share
their sensitive value, or one cannot take the other's value; ``NIT[g]`` is the number of records
in the pool ``T`` incompatible with some member of ``g``.

1. *Grouping.* While ``|T| >= ℓ``: take the record with the largest ``NIT[{t}]`` (the hardest
   one) as a seed; repeatedly add the compatible record minimizing ``NIT[g ∪ {t}]`` until the
   group has ℓ members. If no compatible record is left, the others go back to ``T`` and the seed
   to the leftovers ``T_r``. Every group formed has ℓ pairwise compatible records: ℓ distinct
   values, each possible for each member.
2. *Assignment.* Each leftover joins the group with the fewest records incompatible with it;
   while it has fewer than ℓ valid values there, the group absorbs the group adding the most new
   distinct values. Adding records never shrinks anyone's valid values (each new record can take
   its own value), so only the newcomer is checked.

Implementation: records with the same sensitive value and the same ``IVS`` are interchangeable
(same NIT, same compatibilities), so the pool is a count per *type* ``(s, IVS)``. With
``M[u, v]`` = the number of pool records (compatible with the current group) with value ``u``
that can take ``v``, the records compatible with a candidate of type ``(s, IVS)`` number
``Σ_{u ≠ s, u ∉ IVS} M[u, s]``, so each NIT costs ``O(d)`` and each step ``O(K·d)`` for ``K``
types and ``d`` sensitive values (only the types still compatible with the group are visited):
``O(n·K·d)`` in all (the paper: ``O(q·n²)``), compiled with numba. Phase 2 keeps, per leftover
type and group, the number of incompatible members (updated on joins and merges), so line 19
costs ``O(groups)`` instead of a scan of the table; the newcomer's check first tries two exact
bounds (values of the group not excluded for it, above; its own value and the values of
members it can swap with, below) and runs the compiled SCC matching test only when they do not
decide.

Choices where the paper is silent (notes §6, ambiguities A7-A9):

* Ties (equal NIT; equal numbers of incompatible records; equal numbers of new values) go to the
  lowest record index, or the lowest group index, as the notes propose
  (``ties="index"``). ``ties="random"`` breaks them by a random priority per record drawn from
  ``seed`` instead. The seed is stored in the manifest either way.
* Fig. 2 lines 8-9 put every member of a failed group back into the counts, the seed included,
  although the seed goes to ``T_r``; the counts must describe the pool, so the seed is not put
  back (A7).
* "while |T| > ℓ" is read as ``|T| >= ℓ`` (A8).
* Records that cannot be protected even by the whole table (fewer than ℓ valid values in it) are
  not handled by the paper (A9). They are found first; by default an error names how many there
  are; with ``suppress=True`` they are withheld, repeatedly until none is left (withholding a
  record can shrink others' valid values), counted in the manifest (``suppressed_records``) and
  in ``table.dropped``. The rest of the table then satisfies matching ℓ-diversity as one group,
  so when phase 2 runs out of groups to merge, the group absorbs the remaining leftovers and the
  whole table is one bucket; no further record is ever suppressed.
* The release is checked against matching ℓ-diversity before it is returned.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import njit

from anonlab._validation import (
    check_choice,
    check_float,
    check_int,
    check_seed,
    rng_from_seed,
    takes_table_or_frame,
)
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.models.matching_l_diversity import (
    group_valid,
    incompatibility_matrix,
    matching_possible_values,
)
from anonlab.release import Release
from anonlab.table import Table

TIES = ("index", "random")

#: Largest (leftover types × groups) count table of the assignment phase; beyond it the
#: records are scanned for every leftover instead (same result, ``O(n)`` per leftover).
_COUNT_TABLE_LIMIT = 50_000_000


# ---------------------------------------------------------------------------------------------
# Phase 1: grouping (Fig. 2 lines 1-17)
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _compatible(type_s: np.ndarray, type_ivs: np.ndarray, j: int, k: int) -> bool:
    sj = type_s[j]
    sk = type_s[k]
    return sj != sk and not type_ivs[j, sk] and not type_ivs[k, sj]


@njit(cache=True)
def _fill_m(
    m_counts: np.ndarray,
    type_s: np.ndarray,
    type_ivs: np.ndarray,
    count: np.ndarray,
    types: np.ndarray,
    n_listed: int,
) -> None:
    """``M[u, v]``: pool records (of ``types[:n_listed]``) with value ``u`` that can take ``v``."""
    d = type_ivs.shape[1]
    m_counts[:, :] = 0
    for a in range(n_listed):
        j = types[a]
        c = count[j]
        if c == 0:
            continue
        u = type_s[j]
        for v in range(d):
            if not type_ivs[j, v]:
                m_counts[u, v] += c


@njit(cache=True)
def _compatible_mass(m_counts: np.ndarray, type_s: np.ndarray, type_ivs: np.ndarray, k: int):
    """Pool records counted in ``M`` that are compatible with a record of type ``k``."""
    sk = type_s[k]
    total = 0
    for u in range(type_ivs.shape[1]):
        if u != sk and not type_ivs[k, u]:
            total += m_counts[u, sk]
    return total


@njit(cache=True)
def _take(
    j: int,
    slot: int,
    g_types: np.ndarray,
    g_recs: np.ndarray,
    order: np.ndarray,
    ptr: np.ndarray,
    count: np.ndarray,
) -> None:
    """Put the front pool record of type ``j`` into the group's ``slot`` (its seed at 0)."""
    g_types[slot] = j
    g_recs[slot] = order[ptr[j]]
    ptr[j] += 1
    count[j] -= 1


@njit(cache=True)
def _keep_compatible(
    types: np.ndarray,
    n_types: int,
    out: np.ndarray,
    count: np.ndarray,
    type_s: np.ndarray,
    type_ivs: np.ndarray,
    k: int,
) -> int:
    """Write to ``out`` the types of ``types[:n_types]``, in order, that still have pool
    records and are compatible with type ``k``; return how many. ``out`` may be ``types``
    (filtered in place: each is written at or before the position it is read from)."""
    kept = 0
    for a in range(n_types):
        j = types[a]
        if count[j] > 0 and _compatible(type_s, type_ivs, j, k):
            out[kept] = j
            kept += 1
    return kept


@njit(cache=True)
def _grouping_phase(
    type_s: np.ndarray,
    type_ivs: np.ndarray,
    type_start: np.ndarray,
    order: np.ndarray,
    rank: np.ndarray,
    l: int,
    label: np.ndarray,
    leftovers: np.ndarray,
) -> tuple[int, int, np.ndarray]:
    """Fig. 2 lines 2-16. Writes group ids to ``label`` and failed seeds to ``leftovers``.

    The pool of type ``k`` is ``order[ptr[k] : type_start[k + 1]]`` (records of the type by
    rank); a record is always taken from the front, and a failed group's members are put back
    at the front (each type occurs at most once in a group), so the pool stays a suffix.
    Returns (number of groups, number of failed seeds, ptr).
    """
    n_types, d = type_ivs.shape
    ptr = type_start[:-1].copy()
    count = type_start[1:] - ptr
    pool = 0
    for k in range(n_types):
        pool += count[k]
    m_counts = np.zeros((d, d), dtype=np.int64)
    active = np.empty(n_types, dtype=np.int64)  # types with pool records
    cand = np.empty(n_types, dtype=np.int64)  # of those, the ones compatible with the group
    g_types = np.empty(l, dtype=np.int64)
    g_recs = np.empty(l, dtype=np.int64)
    n_groups = 0
    n_left = 0
    while pool >= l:
        # line 3: the seed maximizes NIT[{t}] = pool - (compatible pool records)
        n_active = 0
        for k in range(n_types):
            if count[k] > 0:
                active[n_active] = k
                n_active += 1
        _fill_m(m_counts, type_s, type_ivs, count, active, n_active)
        best = -1
        best_mass = 0
        best_rank = 0
        for a in range(n_active):
            k = active[a]
            mass = _compatible_mass(m_counts, type_s, type_ivs, k)
            r = rank[order[ptr[k]]]
            if best < 0 or mass < best_mass or (mass == best_mass and r < best_rank):
                best = k
                best_mass = mass
                best_rank = r
        k = best
        _take(k, 0, g_types, g_recs, order, ptr, count)
        pool -= 1
        size = 1
        n_cand = _keep_compatible(active, n_active, cand, count, type_s, type_ivs, k)
        ok = True
        while size < l:
            # lines 12-13: the compatible record minimizing NIT[g ∪ {t}]
            _fill_m(m_counts, type_s, type_ivs, count, cand, n_cand)
            best = -1
            for a in range(n_cand):
                j = cand[a]
                mass = _compatible_mass(m_counts, type_s, type_ivs, j)
                r = rank[order[ptr[j]]]
                if best < 0 or mass > best_mass or (mass == best_mass and r < best_rank):
                    best = j
                    best_mass = mass
                    best_rank = r
            if best < 0:
                ok = False
                break
            j = best
            _take(j, size, g_types, g_recs, order, ptr, count)
            pool -= 1
            size += 1
            n_cand = _keep_compatible(cand, n_cand, cand, count, type_s, type_ivs, j)
        if ok:
            for t in range(l):
                label[g_recs[t]] = n_groups
            n_groups += 1
        else:  # lines 8-11: members back to the pool, the seed to the leftovers
            for t in range(1, size):
                ptr[g_types[t]] -= 1
                count[g_types[t]] += 1
                pool += 1
            leftovers[n_left] = g_recs[0]
            n_left += 1
    return n_groups, n_left, ptr


# ---------------------------------------------------------------------------------------------
# Phase 2: group assignment (Fig. 2 lines 18-23)
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _assignment_phase(
    label: np.ndarray,
    n_groups: int,
    leftovers: np.ndarray,
    codes: np.ndarray,
    inc: np.ndarray,
    l: int,
    type_of: np.ndarray,
    type_s: np.ndarray,
    type_ivs: np.ndarray,
    table_limit: int,
) -> tuple[int, int, int]:
    """Place every leftover (in order). Returns (merges, absorbed by the fallback, failures).

    Line 19 needs, per leftover, the number of records of every group incompatible with it.
    That number depends only on the leftover's type, so it is kept in a table (leftover types ×
    groups) updated when a record joins a group or two groups merge: ``O(groups)`` per leftover
    instead of a scan of the table. When the table would exceed ``table_limit`` cells the
    records are scanned instead (``O(n)`` per leftover, as the paper).
    """
    n, d = inc.shape
    n_max = n_groups + leftovers.shape[0]
    n_types = type_s.shape[0]
    row_of = np.full(n_types, -1, dtype=np.int64)
    n_rows = 0
    for q in range(leftovers.shape[0]):
        k = type_of[leftovers[q]]
        if row_of[k] < 0:
            row_of[k] = n_rows
            n_rows += 1
    use_table = n_rows * n_max <= table_limit
    row_type = np.empty(n_rows, dtype=np.int64)
    for k in range(n_types):
        if row_of[k] >= 0:
            row_type[row_of[k]] = k
    table = np.zeros((n_rows if use_table else 0, n_max), dtype=np.int64)
    if use_table:
        for r in range(n):
            g = label[r]
            if g >= 0:
                kr = type_of[r]
                for q in range(n_rows):
                    if not _compatible(type_s, type_ivs, row_type[q], kr):
                        table[q, g] += 1
    alive = np.zeros(n_max, dtype=np.bool_)
    alive[:n_groups] = True
    head = np.full(n_max, -1, dtype=np.int64)
    tail = np.full(n_max, -1, dtype=np.int64)
    size = np.zeros(n_max, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    hist = np.zeros((n_max, d), dtype=np.int64)
    for r in range(n):
        g = label[r]
        if g >= 0:
            if head[g] < 0:
                head[g] = r
            else:
                nxt[tail[g]] = r
            tail[g] = r
            size[g] += 1
            hist[g, codes[r]] += 1
    cnt = np.zeros(n_max, dtype=np.int64)
    # workspaces of the matching test, sized for the whole table
    members = np.empty(n, dtype=np.int64)
    slot = np.empty(n, dtype=np.int64)
    out = np.zeros((n, d), dtype=np.bool_)
    cap = np.zeros(d, dtype=np.int64)
    used = np.zeros(d, dtype=np.int64)
    assign = np.empty(n, dtype=np.int64)
    adj_start = np.empty(n + d + 1, dtype=np.int64)
    adj = np.empty(n * d + n + 1, dtype=np.int64)
    work = np.empty(6 * (n + d) + 1, dtype=np.int64)
    seen = np.zeros(d, dtype=np.bool_)
    merges = 0
    absorbed = 0
    failures = 0
    n_all = n_groups
    for pos in range(leftovers.shape[0]):
        t = leftovers[pos]
        if label[t] >= 0:
            continue  # absorbed by an earlier fallback
        st = codes[t]
        # line 19: the group with the fewest records incompatible with t
        g = -1
        if use_table:
            cnt[:n_all] = table[row_of[type_of[t]], :n_all]
        else:
            for h in range(n_all):
                cnt[h] = 0
            for r in range(n):
                h = label[r]
                if h >= 0:
                    sr = codes[r]
                    if sr == st or inc[t, sr] or inc[r, st]:
                        cnt[h] += 1
        for h in range(n_all):
            if alive[h] and (g < 0 or cnt[h] < cnt[g]):
                g = h
        if g < 0:  # no group at all: t starts one
            g = n_all
            n_all += 1
            alive[g] = True
        else:
            nxt[tail[g]] = t
        if head[g] < 0:
            head[g] = t
        tail[g] = t
        label[t] = g
        size[g] += 1
        hist[g, st] += 1
        if use_table:
            for q in range(n_rows):
                if not _compatible(type_s, type_ivs, row_type[q], type_of[t]):
                    table[q, g] += 1
        while True:
            # line 21: does t keep ℓ valid values in g? Two exact shortcuts before the
            # matching test: the values of g not excluded for t bound them from above; t's own
            # value and the values of members that can swap values with t (a 2-cycle from the
            # identity assignment) bound them from below.
            upper = 0
            for v in range(d):
                if hist[g, v] > 0 and not inc[t, v]:
                    upper += 1
            if upper >= l:
                seen[:] = False
                lower = 0
                r = head[g]
                while r >= 0 and lower < l:
                    v = codes[r]
                    if not seen[v] and (r == t or (not inc[t, v] and not inc[r, st])):
                        seen[v] = True
                        lower += 1
                    r = nxt[r]
                if lower >= l:
                    break
                m = 0
                r = head[g]
                while r >= 0:
                    members[m] = r
                    slot[m] = codes[r]
                    m += 1
                    r = nxt[r]
                ok = group_valid(
                    members[:m], slot[:m], inc, out, cap, assign, used, adj_start, adj, work
                )
                valid = 0
                for v in range(d):
                    if out[t, v]:
                        valid += 1
                for k in range(m):
                    out[members[k], :] = False
                if ok and valid >= l:
                    break
            # line 22: the group adding the most new distinct values
            best = -1
            best_new = -1
            for h in range(n_all):
                if not alive[h] or h == g:
                    continue
                new = 0
                for v in range(d):
                    if hist[h, v] > 0 and hist[g, v] == 0:
                        new += 1
                if new > best_new:
                    best = h
                    best_new = new
            if best >= 0:  # line 23: merge
                r = head[best]
                while r >= 0:
                    label[r] = g
                    r = nxt[r]
                nxt[tail[g]] = head[best]
                tail[g] = tail[best]
                size[g] += size[best]
                for v in range(d):
                    hist[g, v] += hist[best, v]
                alive[best] = False
                head[best] = -1
                size[best] = 0
                if use_table:
                    for q in range(n_rows):
                        table[q, g] += table[q, best]
                merges += 1
                continue
            # fallback: no group is left to merge; absorb every unplaced leftover
            took = 0
            for q in range(pos + 1, leftovers.shape[0]):
                u = leftovers[q]
                if label[u] < 0:
                    label[u] = g
                    nxt[tail[g]] = u
                    tail[g] = u
                    size[g] += 1
                    hist[g, codes[u]] += 1
                    took += 1
                    if use_table:
                        for q in range(n_rows):
                            if not _compatible(type_s, type_ivs, row_type[q], type_of[u]):
                                table[q, g] += 1
            absorbed += took
            if took == 0:
                failures += 1  # cannot happen after the whole-table pre-pass
                break
    return merges, absorbed, failures


# ---------------------------------------------------------------------------------------------
# Whole-table feasibility
# ---------------------------------------------------------------------------------------------


def unprotectable_records(
    sensitive_codes: np.ndarray, incompatibility: np.ndarray, l: int, *, fixpoint: bool = True
) -> np.ndarray:
    """Records with fewer than ℓ valid values even when the whole table is one bucket.

    By monotonicity (adding records never shrinks a record's valid values when each record can
    take its own value) no bucketization can protect them. With ``fixpoint=True`` the records
    left unprotectable once those are withheld are added too, until none is (withholding a
    record removes its value from the multiset and can shrink others' valid values).

    Returns the indices, ascending (int64).
    """
    codes = np.asarray(sensitive_codes, dtype=np.int64)
    inc = np.asarray(incompatibility, dtype=bool)
    keep = np.ones(len(codes), dtype=bool)
    while True:
        rows = np.flatnonzero(keep)
        if not len(rows):
            break
        possible, _ = matching_possible_values(
            np.zeros(len(rows), np.int64), codes[rows], inc[rows]
        )
        bad = possible.sum(axis=1) < l
        if not bad.any():
            break
        keep[rows[bad]] = False
        if not fixpoint:
            break
    return np.flatnonzero(~keep)


# ---------------------------------------------------------------------------------------------
# The anonymizer
# ---------------------------------------------------------------------------------------------


def _resolve_rules(
    table: Table,
    rules: Any,
    min_expectation: float,
    max_conditions: int,
) -> tuple[np.ndarray, dict]:
    """The incompatibility matrix and a description of where it came from."""
    info: dict = {}
    if rules is None:
        from anonlab.mining.negative_rules import mine_negative_rules

        rules = mine_negative_rules(
            table, min_expectation=min_expectation, max_conditions=max_conditions
        )
        info["rules"] = "mined"
    elif isinstance(rules, str | os.PathLike):
        from anonlab.mining.negative_rules import NegativeRuleSet

        info["rules"] = str(rules)
        rules = NegativeRuleSet.read(rules, table)
    elif hasattr(rules, "incompatibility"):
        info["rules"] = "given"
    else:
        info["rules"] = "incompatibility matrix"
    if hasattr(rules, "__len__") and hasattr(rules, "incompatibility"):
        info["n_rules"] = int(len(rules))
        for key in ("min_expectation", "max_conditions"):
            if hasattr(rules, key):
                info[f"rules_{key}"] = getattr(rules, key)
    return incompatibility_matrix(rules, table), info


@takes_table_or_frame
def injector(
    table: Table,
    l: int,
    *,
    min_expectation: float = 0.9,
    max_conditions: int = 1,
    rules: Any = None,
    suppress: bool = False,
    ties: str = "index",
    seed: int = 0,
) -> Release:
    """Bucketize ``table`` with Injector so that every record is matching ℓ-diverse.

    Parameters
    ----------
    table : Table
        Must have a sensitive attribute; mining needs hierarchies for generalized rules.
    l : int
        ℓ, from 2 to the size of the sensitive domain (and at most the number of distinct
        sensitive values in the table).
    min_expectation : float, default=0.9
        minExp in (0, 1) for mining the rules (§IV-A), when ``rules`` is None.
    max_conditions : int, default=1
        Largest number of conditions of a mined rule, when ``rules`` is None.
    rules : NegativeRuleSet, path, bool ndarray of shape (n_rows, n_values), or None
        The adversary's background knowledge: a rule set, a rule file
        (``NegativeRuleSet.read``), or an incompatibility matrix. None: mine the rules from
        ``table`` (``anonlab.mining.negative_rules.mine_negative_rules``).
    suppress : bool, default=False
        Withhold the records that no bucketization can protect (counted in the manifest)
        instead of raising :class:`~anonlab.errors.IneligibleError`.
    ties : {"index", "random"}
        Tie-breaking: lowest record/group index, or a random priority drawn from ``seed``.
    seed : int
        Seed (used by ``ties="random"``); stored in the manifest.

    Returns
    -------
    Release
        Bucketization (QIT + ST). The manifest records the rules' source, the number of groups
        formed in each phase, the merges, and ``suppressed_records``.

    Raises
    ------
    AnonlabError
        ℓ out of range, minExp outside (0, 1), a matrix of the wrong shape or one that excludes
        a record's own value.
    IneligibleError
        Some records cannot be protected by any bucketization and ``suppress`` is False.

    References
    ----------
    T. Li and N. Li. Injector: Mining Background Knowledge for Data Anonymization. ICDE 2008.
    """
    sens = table.require_sensitive()
    d = table.domain_size(sens)
    l = check_int("l", l, minimum=1)
    if l > d:
        raise AnonlabError(
            f"parameter 'l' = {l} is larger than the sensitive domain ({d} values of {sens!r}); "
            f"choose l <= {d}"
        )
    min_expectation = check_float("min_expectation", min_expectation)
    if not 0 < min_expectation < 1:
        raise AnonlabError(
            f"parameter 'min_expectation' (minExp) must lie in (0, 1), got {min_expectation}"
        )
    max_conditions = check_int("max_conditions", max_conditions, minimum=1)
    ties = check_choice("ties", ties, TIES)
    seed = check_seed(seed)
    codes = table.codes[sens].astype(np.int64)
    distinct = int(np.count_nonzero(np.bincount(codes, minlength=d)))
    if l > distinct:
        raise IneligibleError(
            f"parameter 'l' = {l} is larger than the number of distinct values of {sens!r} in "
            f"the table ({distinct}); no bucket can hold {l} distinct values"
        )
    inc, info = _resolve_rules(table, rules, min_expectation, max_conditions)
    own = inc[np.arange(table.n_rows), codes]
    if own.any():
        first = int(np.argmax(own))
        raise AnonlabError(
            f"the background knowledge excludes {int(own.sum())} records' own sensitive value "
            f"(first: record {first}, {sens} = {table.values[sens][codes[first]]!r}); Injector's "
            "rules must hold with confidence 1 on the table being published"
        )

    # Records that no bucketization protects (notes A9).
    bad = unprotectable_records(codes, inc, l) if l > 1 else np.empty(0, np.int64)
    if len(bad) and not suppress:
        raise IneligibleError(
            f"{len(bad)} of {table.n_rows} records keep fewer than {l} possible values of "
            f"{sens!r} even with the whole table as one bucket (first: record {int(bad[0])}); no "
            "bucketization protects them. Withhold them with suppress=True (CLI: --suppress), "
            "lower l, or use fewer rules (higher minExp, fewer conditions)"
        )
    keep = np.ones(table.n_rows, dtype=bool)
    keep[bad] = False
    rows = np.flatnonzero(keep)
    if not len(rows):
        raise IneligibleError(f"no record of the table can be protected at l = {l}")
    kept_codes = np.ascontiguousarray(codes[rows])
    kept_inc = np.ascontiguousarray(inc[rows])
    n = len(rows)

    # Types (s, IVS): interchangeable records.
    rank = np.arange(n, dtype=np.int64)
    if ties == "random":
        rank = rng_from_seed(seed).permutation(n).astype(np.int64)
    if d <= 56:  # one int64 key per record: value and excluded-value bits
        keys = kept_codes << d | (kept_inc.astype(np.int64) << np.arange(d)).sum(axis=1)
        _, type_of, type_count = np.unique(keys, return_inverse=True, return_counts=True)
    else:
        keys = np.column_stack([kept_codes, np.packbits(kept_inc, axis=1).astype(np.int64)])
        _, type_of, type_count = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    type_of = type_of.ravel()
    order = np.lexsort((rank, type_of)).astype(np.int64)
    type_start = np.r_[0, np.cumsum(type_count)].astype(np.int64)
    first = order[type_start[:-1]]
    type_s = kept_codes[first]
    type_ivs = np.ascontiguousarray(kept_inc[first])

    label = np.full(n, -1, dtype=np.int64)
    leftovers = np.empty(n, dtype=np.int64)
    if l > 1:
        n_groups, n_left, ptr = _grouping_phase(
            type_s, type_ivs, type_start, order, rank, l, label, leftovers
        )
        rest = np.concatenate(
            [order[ptr[k] : type_start[k + 1]] for k in range(len(type_s))]
            + [np.empty(0, np.int64)]
        )
        rest = rest[np.argsort(rank[rest], kind="stable")]
        leftovers = np.concatenate([leftovers[:n_left], rest]).astype(np.int64)
        merges, absorbed, failures = _assignment_phase(
            label,
            n_groups,
            leftovers,
            kept_codes,
            kept_inc,
            l,
            type_of.astype(np.int64),
            type_s,
            type_ivs,
            _COUNT_TABLE_LIMIT,
        )
        if failures:  # pragma: no cover - excluded by the whole-table pre-pass
            raise RuntimeError("Injector could not place a leftover record; please report")
    else:  # ℓ = 1: every record is its own bucket
        label[:] = np.arange(n)
        n_groups, n_left, merges, absorbed = n, 0, 0, 0
        leftovers = np.empty(0, np.int64)

    if len(bad):
        kept_table = table.take(rows)
        kept_table.dropped = dict(table.dropped, suppressed_records=int(len(bad)))
        reference = np.bincount(codes, minlength=d)
    else:
        kept_table, reference = table, None
    manifest = {
        "algorithm": "injector",
        "parameters": {
            "l": l,
            "min_expectation": min_expectation if rules is None else None,
            "max_conditions": max_conditions if rules is None else None,
            "ties": ties,
            "suppress": bool(suppress),
        },
        "seed": seed,
        **info,
        "input_rows": int(table.n_rows),
        "suppressed_records": int(len(bad)),
        "excluded_pairs": int(inc.sum()),
        "record_types": int(len(type_s)),
        "phase1_groups": int(n_groups),
        "leftover_records": int(len(leftovers)),
        "merges": int(merges),
        "fallback_absorbed": int(absorbed),
    }
    release = Release(kept_table, label, "bucketization", manifest, reference_counts=reference)
    possible, _ = matching_possible_values(release.group, kept_codes, kept_inc)
    if l > 1 and possible.sum(axis=1).min() < l:  # pragma: no cover - a bug if it happens
        raise RuntimeError("Injector produced a bucket that is not matching ℓ-diverse")
    return release


__all__ = ["TIES", "injector", "unprotectable_records"]
