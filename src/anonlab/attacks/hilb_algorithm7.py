"""Algorithm 7 of Jin, Zhang, Das (ASAP, Information Systems 2011, §8.3.1): an attack on Hilb.

Hilb (:mod:`anonlab.anonymize.hilb`) forms each *greedy* group ``G1`` from the ``|G1|`` frontier
heads (lowest Hilbert index ``Q_T`` of each sensitive-value bucket) with the lowest ``Q_T``. If a
record ``t`` that was still unassigned when ``G1`` formed has ``Q_T(t)`` inside
``[min Q_T(G1), max Q_T(G1)]``, then ``t`` was not the head of its bucket, so the head — a record
of ``G1`` with the same sensitive value and a lower ``Q_T`` — is in ``G1``. Hence
``t[S] ∈ SA(G1) ∩ SA(group of t)``, and the member of ``G1`` ranked before ``t`` that holds that
value has it too (notes/jin-asap-algorithm-safe-publishing.md §2.11-D, §3.7).

Algorithm 7 (the paper's lines; "Goto Line 14" read as *stop*, notes E11):

1. sort the published groups by their lowest ``Q_T``;
2. for the first remaining group ``G1``: if ``|G| − |G1| >= ℓ·S_max(G)`` (``G`` = the records of
   the remaining groups, ``S_max`` over their *published* sensitive values — a sufficient
   condition for ``G1`` to come from the greedy step), let ``G~`` = the later groups holding a
   record whose ``Q_T`` falls in ``G1``'s range; if ``G~`` is not empty and ``|G1| + 1 < 2ℓ``,
   label ``G1`` *vulnerable*; otherwise (line 5 fails) stop;
3. remove ``G1`` and repeat.

Counting compromised records (the paper does not say how; notes E12), both reported:

* **union rule**: every record of a vulnerable group and of the groups in its ``G~``. This is the
  reading that reproduces the paper's worked count of 4 on Figure 8.
* **strict rule**: records whose value is pinned down, by propagating to a fixed point
  (i) *intersection*: a flagged ``t`` whose candidate set — the values of ``G1`` and of ``t``'s
  group not already pinned to another member — has one value is pinned to it, and so is the only
  unpinned member of ``G1`` ranked before ``t`` if there is just one; (ii) *completion*: when the
  values left in a group after removing the pinned ones are all equal, its unpinned members get
  that value. Pinned values are compared with the true ones (``strict_precision``); a conflict
  (two rules pin different values) unpins nothing and is counted.

Ties (many records share a Hilbert index when QIs repeat; the Figure 9 share depends on this):
``tie_break="rank"`` (default) uses Hilb's own total order — Hilbert index, then row number — as
the adversary's ``Q_T``, i.e. an adversary who knows the tie order (it is the order of the input
rows). ``tie_break="index"`` uses the raw index with an inclusive range: a record of a later
group sharing ``G1``'s lowest or highest index counts, which flags more records but can be wrong
(the strict rule's precision then shows it). The grid is Hilb's: each QI's integer codes on a
common ``2**bits`` grid, ``bits`` = bit length of the largest ``domain_size − 1`` (as in
:func:`anonlab.anonymize.hilb.hilb`).

The attack reads only what the adversary has: the partition, the published sensitive values and
each record's exact QI (published under bucketization; external knowledge under generalization).
Ground truth is read only to score (``strict_precision``, ``union_precision``).

The scan is compiled (numba): one pass over the groups in order, each looking at the ranks in its
``Q_T`` range, then the fixed-point propagation over the flagged records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from anonlab._validation import check_choice, check_int, takes_release
from anonlab.anonymize.hilbert import hilbert_index
from anonlab.errors import AnonlabError
from anonlab.release import Release

TIE_BREAKS = ("rank", "index")


@dataclass(frozen=True)
class Algorithm7Result:
    """Outcome of Algorithm 7 on one release.

    Attributes
    ----------
    l : int
    tie_break : str
    vulnerable_groups : ndarray of int
        Group ids labelled vulnerable (line 8).
    examined_groups : int
        Groups that passed line 5 before the early stop.
    union_records : ndarray of bool, shape (n_rows,)
        Compromised under the union rule.
    flagged_records : ndarray of bool, shape (n_rows,)
        The records ``t`` found inside a vulnerable group's ``Q_T`` range.
    pinned_value : ndarray of int, shape (n_rows,)
        Sensitive code pinned by the strict rule, ``-1`` if none.
    true_value : ndarray of int, shape (n_rows,)
        Ground truth (scoring only).
    conflicts : int
        Records two rules tried to pin to different values.
    """

    l: int
    tie_break: str
    vulnerable_groups: np.ndarray
    examined_groups: int
    union_records: np.ndarray
    flagged_records: np.ndarray
    candidate_ok: np.ndarray
    pinned_value: np.ndarray
    true_value: np.ndarray
    conflicts: int

    @property
    def n_rows(self) -> int:
        return len(self.union_records)

    @property
    def union_count(self) -> int:
        return int(self.union_records.sum())

    @property
    def strict_count(self) -> int:
        return int((self.pinned_value >= 0).sum())

    @property
    def strict_correct(self) -> int:
        p = self.pinned_value
        return int(((p >= 0) & (p == self.true_value)).sum())

    @property
    def strict_precision(self) -> float:
        """Share of pinned records whose pinned value is the true one (nan if none)."""
        return self.strict_correct / self.strict_count if self.strict_count else float("nan")

    @property
    def union_precision(self) -> float:
        """Share of flagged records whose true value is in their candidate set (nan if none)."""
        f = int(self.flagged_records.sum())
        return int(self.candidate_ok.sum()) / f if f else float("nan")

    def to_json(self) -> dict:
        n = self.n_rows
        return {
            "attack": "hilb-algorithm7",
            "l": self.l,
            "tie_break": self.tie_break,
            "records": n,
            "examined_groups": self.examined_groups,
            "vulnerable_groups": int(len(self.vulnerable_groups)),
            "union_compromised": self.union_count,
            "union_share": self.union_count / n if n else 0.0,
            "flagged_records": int(self.flagged_records.sum()),
            "union_precision": _nan_none(self.union_precision),
            "strict_compromised": self.strict_count,
            "strict_share": self.strict_count / n if n else 0.0,
            "strict_correct": self.strict_correct,
            "strict_precision": _nan_none(self.strict_precision),
            "conflicts": self.conflicts,
        }


def _nan_none(x: float) -> float | None:
    return None if x != x else float(x)


def hilbert_keys(release: Release) -> np.ndarray:
    """Hilbert index of each record's exact QI on Hilb's grid (see the module docstring)."""
    table = release.table
    qis = table.quasi_identifiers
    if not qis:
        raise AnonlabError("Algorithm 7 needs the quasi-identifiers (the release has none)")
    bits = max(1, max(int(table.domain_size(q) - 1).bit_length() for q in qis))
    if len(qis) * bits > 64:
        raise AnonlabError(
            f"the Hilbert index over {len(qis)} quasi-identifiers with {bits} bits needs "
            f"{len(qis) * bits} bits; at most 64 fit"
        )
    return hilbert_index(table.qi_matrix(), bits)


@njit(cache=True)
def _scan(
    lo: np.ndarray,
    hi: np.ndarray,
    order_groups: np.ndarray,
    pos: np.ndarray,
    sizes: np.ndarray,
    hist: np.ndarray,
    by_rank: np.ndarray,
    rank_key: np.ndarray,
    group: np.ndarray,
    l: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Lines 3-14. Returns (vulnerable flag per group, partner flag per group, flagged record,
    the vulnerable group that flagged each record (-1), number of groups examined)."""
    n_groups, n_values = hist.shape
    n = by_rank.shape[0]
    remaining_hist = np.zeros(n_values, dtype=np.int64)
    for g in range(n_groups):
        for v in range(n_values):
            remaining_hist[v] += hist[g, v]
    # count_of[c] = number of values with remaining count c (to track S_max as it falls)
    count_of = np.zeros(n + 2, dtype=np.int64)
    smax = 0
    for v in range(n_values):
        count_of[remaining_hist[v]] += 1
        if remaining_hist[v] > smax:
            smax = remaining_hist[v]
    remaining = n
    vulnerable = np.zeros(n_groups, dtype=np.bool_)
    partner = np.zeros(n_groups, dtype=np.bool_)
    flagged = np.zeros(n, dtype=np.bool_)
    flagger = np.full(n, -1, dtype=np.int64)
    examined = 0
    for i in range(n_groups):
        g1 = order_groups[i]
        size = sizes[g1]
        if remaining - size < l * smax:
            break  # line 11: early termination
        examined += 1
        if size + 1 < 2 * l:
            found = False
            # records with key in [lo, hi] of G1: by_rank is sorted by rank_key
            start = np.searchsorted(rank_key, lo[g1], side="left")
            stop = np.searchsorted(rank_key, hi[g1], side="right")
            for r in range(start, stop):
                rec = by_rank[r]
                g2 = group[rec]
                if pos[g2] > i:
                    found = True
                    partner[g2] = True
                    if flagger[rec] < 0:
                        flagged[rec] = True
                        flagger[rec] = g1
            if found:
                vulnerable[g1] = True
        # remove G1 from the remaining records
        for v in range(n_values):
            c = hist[g1, v]
            if c > 0:
                old = remaining_hist[v]
                count_of[old] -= 1
                count_of[old - c] += 1
                remaining_hist[v] = old - c
        while smax > 0 and count_of[smax] == 0:
            smax -= 1
        remaining -= size
    return vulnerable, partner, flagged, flagger, examined


@njit(cache=True)
def _assign(r, g, v, pinned, left, distinct, unpinned, queue, qlen) -> int:
    """Pin record ``r`` of group ``g`` to value ``v``; queue ``g`` for completion if ready."""
    pinned[r] = v
    left[g, v] -= 1
    if left[g, v] == 0:
        distinct[g] -= 1
    unpinned[g] -= 1
    if distinct[g] == 1 and unpinned[g] > 0:
        queue[qlen] = g
        qlen += 1
    return qlen


@njit(cache=True)
def _pin(
    flagged_recs: np.ndarray,
    flagger: np.ndarray,
    members_start: np.ndarray,
    members: np.ndarray,
    group: np.ndarray,
    key: np.ndarray,
    hist: np.ndarray,
) -> tuple[np.ndarray, int]:
    """The strict rule: intersection and completion, iterated to a fixed point.

    A record is pinned to ``v`` only while its group still has an unassigned copy of ``v``
    (``left``); a pin that would break this is refused and counted as a conflict (it happens
    only when the inference is unsound, e.g. with ``tie_break="index"``). Completion runs only
    on groups the attack touched, so a group whose published values are all equal (possible
    only with ℓ = 1 or unconstrained values) is not counted as the attack's doing.
    """
    n = group.shape[0]
    n_groups, n_values = hist.shape
    pinned = np.full(n, -1, dtype=np.int64)
    conflict = np.zeros(n, dtype=np.bool_)
    left = hist.copy()  # copies of each value of each group not yet pinned to a member
    unpinned = np.empty(n_groups, dtype=np.int64)
    distinct = np.zeros(n_groups, dtype=np.int64)
    for g in range(n_groups):
        unpinned[g] = members_start[g + 1] - members_start[g]
        for v in range(n_values):
            if left[g, v] > 0:
                distinct[g] += 1
    queue = np.empty(n + 1, dtype=np.int64)  # each pin queues at most one group
    n_conflicts = 0
    after = np.zeros(n_values, dtype=np.int64)
    resolved = np.zeros(flagged_recs.shape[0], dtype=np.bool_)
    # a flagged record is re-examined only when one of its two groups changed
    stamp = np.zeros(n_groups, dtype=np.int64)
    seen = np.full(flagged_recs.shape[0], -1, dtype=np.int64)
    clock = 0  # incremented at every pin; stamp[g] = clock of g's last pin
    changed = True
    while changed:
        changed = False
        qlen = 0
        for j in range(flagged_recs.shape[0]):
            if resolved[j]:
                continue
            t = flagged_recs[j]
            g1 = flagger[t]
            g2 = group[t]
            last = max(stamp[g1], stamp[g2])
            if seen[j] >= last:
                continue
            seen[j] = clock
            g1 = flagger[t]
            g2 = group[t]
            value = pinned[t]
            if value < 0:
                if conflict[t]:
                    continue
                # copies of G1's values pinned to members ranked after t cannot be t's
                for k in range(members_start[g1], members_start[g1 + 1]):
                    h = members[k]
                    if key[h] > key[t] and pinned[h] >= 0:
                        after[pinned[h]] += 1
                count = 0
                only = -1
                for v in range(n_values):
                    if hist[g1, v] - after[v] > 0 and left[g2, v] > 0:
                        count += 1
                        only = v
                for k in range(members_start[g1], members_start[g1 + 1]):
                    h = members[k]
                    if pinned[h] >= 0:
                        after[pinned[h]] = 0
                if count != 1:
                    continue
                qlen = _assign(t, g2, only, pinned, left, distinct, unpinned, queue, qlen)
                clock += 1
                stamp[g2] = clock
                value = only
                changed = True
            # the member of G1 holding t's value is ranked before t
            holder = -1
            n_open = 0
            done = False
            for k in range(members_start[g1], members_start[g1 + 1]):
                h = members[k]
                if key[h] < key[t]:
                    if pinned[h] == value:
                        done = True
                    elif pinned[h] < 0 and not conflict[h]:
                        holder = h
                        n_open += 1
            if not done and n_open == 1:
                if left[g1, value] > 0:
                    qlen = _assign(holder, g1, value, pinned, left, distinct, unpinned, queue, qlen)
                    clock += 1
                    stamp[g1] = clock
                    changed = True
                    done = True
                else:
                    conflict[holder] = True
                    n_conflicts += 1
            if done or n_open == 0:
                resolved[j] = True
        # completion: a touched group whose unassigned copies are all one value
        q = 0
        while q < qlen:
            g = queue[q]
            q += 1
            if distinct[g] != 1 or unpinned[g] == 0:
                continue
            val = -1
            for v in range(n_values):
                if left[g, v] > 0:
                    val = v
            for k in range(members_start[g], members_start[g + 1]):
                h = members[k]
                if pinned[h] < 0 and not conflict[h] and left[g, val] > 0:
                    qlen = _assign(h, g, val, pinned, left, distinct, unpinned, queue, qlen)
                    clock += 1
                    stamp[g] = clock
                    changed = True
    return pinned, n_conflicts


@takes_release
def hilb_algorithm7(
    release: Release,
    l: int | None = None,
    *,
    tie_break: str = "rank",
    keys: np.ndarray | None = None,
) -> Algorithm7Result:
    """Run Algorithm 7 (Jin et al. §8.3.1) on a Hilb release and count compromised records.

    Parameters
    ----------
    release : Release
        Made by Hilb (any release works, but the inference is only sound for Hilb).
    l : int, optional
        ℓ of the release (default: the manifest's ``parameters["l"]``).
    tie_break : {"rank", "index"}
        How records sharing a Hilbert index are ordered; see the module docstring.
    keys : ndarray of shape (n_rows,), optional
        The adversary's ``Q_T`` per record (default: :func:`hilbert_keys`). Ties in ``keys`` are
        broken by row number under ``"rank"``.

    Returns
    -------
    Algorithm7Result
    """
    if l is None:
        l = release.manifest.get("parameters", {}).get("l")
        if l is None:
            raise AnonlabError("give l: the release's manifest has no parameter 'l'")
    l = check_int("l", l, minimum=1)
    tie_break = check_choice("tie_break", tie_break, TIE_BREAKS)
    n = release.table.n_rows
    keys = hilbert_keys(release) if keys is None else np.asarray(keys)
    if keys.shape != (n,):
        raise AnonlabError(f"keys must hold one Q_T per record ({n}), got shape {keys.shape}")
    order = np.argsort(keys, kind="stable")  # rank -> record (ties by row number)
    if tie_break == "rank":
        key = np.empty(n, dtype=np.int64)
        key[order] = np.arange(n)
    else:
        # raw index, as a dense int64 code preserving order (uint64 keys may not fit int64)
        _, key = np.unique(keys, return_inverse=True)
        key = key.astype(np.int64).ravel()
    rank_key = key[order]
    group = release.group.astype(np.int64)
    n_groups = release.n_groups
    sizes = release.group_sizes.astype(np.int64)
    hist = np.ascontiguousarray(release.sensitive_histogram, dtype=np.int64)
    lo = np.full(n_groups, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.full(n_groups, -1, dtype=np.int64)
    np.minimum.at(lo, group, key)
    np.maximum.at(hi, group, key)
    # groups in order of their lowest record in Hilb's total order (rank), ties by group id
    first_rank = np.full(n_groups, n, dtype=np.int64)
    rank_of = np.empty(n, dtype=np.int64)
    rank_of[order] = np.arange(n)
    np.minimum.at(first_rank, group, rank_of)
    order_groups = np.argsort(first_rank, kind="stable").astype(np.int64)
    pos = np.empty(n_groups, dtype=np.int64)
    pos[order_groups] = np.arange(n_groups)
    vulnerable, partner, flagged, flagger, examined = _scan(
        lo, hi, order_groups, pos, sizes, hist, order.astype(np.int64), rank_key, group, l
    )
    union_groups = vulnerable | partner
    union = union_groups[group]
    members = np.argsort(group, kind="stable").astype(np.int64)
    members_start = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    flagged_recs = np.flatnonzero(flagged).astype(np.int64)
    pinned, conflicts = _pin(flagged_recs, flagger, members_start, members, group, key, hist)
    true = release.table.codes[release.sensitive].astype(np.int64)
    # candidate set of a flagged t: SA(G1) ∩ SA(group of t); is the truth inside?
    cand_ok = np.zeros(n, dtype=bool)
    if len(flagged_recs):
        g1 = flagger[flagged_recs]
        g2 = group[flagged_recs]
        v = true[flagged_recs]
        cand_ok[flagged_recs] = (hist[g1, v] > 0) & (hist[g2, v] > 0)
    return Algorithm7Result(
        l=l,
        tie_break=tie_break,
        vulnerable_groups=np.flatnonzero(vulnerable),
        examined_groups=int(examined),
        union_records=union,
        flagged_records=flagged,
        candidate_ok=cand_ok,
        pinned_value=pinned,
        true_value=true,
        conflicts=int(conflicts),
    )
