"""Algorithm 7 of Jin, Zhang, Das (ASAP, Information Systems 2011, §8.3.1): an attack on Hilb.

Hilb (:mod:`anonlab.anonymize.hilb`) forms each *greedy* group ``G1`` from the ``|G1|`` frontier
heads (lowest Hilbert index ``Q_T`` of each sensitive-value bucket) with the lowest ``Q_T``. If a
record ``t`` that was still unassigned when ``G1`` formed has ``Q_T(t)`` inside
``[min Q_T(G1), max Q_T(G1)]``, then ``t`` was not the head of its bucket, so the head — a record
of ``G1`` with the same sensitive value and a lower ``Q_T`` — is in ``G1``. Hence ``t[S]`` is
the value of a member of ``G1`` ranked below ``t`` (in particular ``t[S] ∈ SA(G1) ∩ SA(group
of t)``; notes/jin-asap-algorithm-safe-publishing.md §2.11-D, §3.7).

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
* **strict rule**: records whose value is pinned down. The adversary's constraints are the
  published multiset of each group and, for every *flag* — a record ``t`` and a vulnerable group
  ``G1`` whose ``Q_T`` range held ``t`` while ``t`` was unassigned — the paper's inference taken
  to the end: ``t`` "would have been included when generating G1" had it been a frontier head
  (§8.3.1), so the head of its bucket is in ``G1`` *and ranked below* ``t`` (members ranked
  above ``t`` are the heads of other buckets; notes §2.11-D). Hence ``t[S]`` is the value of a
  member of ``G1`` ranked below ``t`` — not any value of ``G1``. A record flagged by several
  vulnerable groups (their ranges overlap while it waits) gets the constraint of the last of
  them, which with the other flags implies the earlier ones (see :func:`_scan`). Each record's
  domain of possible values — initially its group's published values — is narrowed to a fixed
  point by three sound rules: (i) *source*: ``t``'s domain is cut to the union of the domains
  of the members of ``G1`` ranked below ``t``; (ii) *holder*: if only one of those members can
  share a value with ``t``, its domain is cut to ``t``'s; (iii) *counting* in a group: a value
  with as many copies as members that can hold it goes to all of them, and a value whose copies
  all sit on members pinned to it leaves the others. A record is pinned when one value is left;
  records of a touched group with a single published value are not counted (the publication
  discloses them, not the attack). Pinned values are compared with the true ones
  (``strict_precision``); a reduction that would leave a record no value (only when the
  inference is unsound, e.g. ``tie_break="index"``) is refused and counted as a conflict.

  The propagation is sound but not complete: it is a lower bound on the records the
  constraints determine (a full enumeration can pin more, e.g. through an equality ``x_t =
  x_h`` combined with the distinct values of ``t``'s group; tests/attacks/test_hilb_strict_rule.py
  checks soundness against enumeration on small releases). Two earlier simplifications made the
  count fall with ℓ: candidates were ``SA(G1) ∩ SA(group of t)`` whatever the members' ranks,
  and only the *first* vulnerable group to flag ``t`` was used, whose constraint the later ones
  imply (issue 18, part 5).

Ties (many records share a Hilbert index when QIs repeat; the Figure 9 share depends on this):
``tie_break="rank"`` (default) uses Hilb's own total order — Hilbert index, then row number — as
the adversary's ``Q_T``, i.e. an adversary who knows the tie order (it is the order of the input
rows). ``tie_break="index"`` uses the raw index with an inclusive range: a record of a later
group sharing ``G1``'s lowest or highest index counts, which flags more records but can be wrong
(the strict rule's precision then shows it). The grid is Hilb's: each QI's integer codes on a
common ``2**bits`` grid, ``bits`` = bit length of the largest ``domain_size − 1`` (as in
:func:`anonlab.anonymize.hilb.hilb`).

The attack reads only what the adversary has: the partition, the published sensitive values,
each record's exact QI (published under bucketization; external knowledge under generalization)
and ℓ from the manifest (the attacker knows the algorithm and its parameters). The steps are
apart (issue 18, item 2): :func:`algorithm7_inference` is the inference and never reads the
ground truth (an unscored :class:`Algorithm7Result`); :meth:`Algorithm7Result.score` compares
it with the truth (``strict_correct``, ``strict_precision``, ``union_precision``);
:func:`hilb_algorithm7` is both, the inference run on :meth:`Release.adversary_copy()
<anonlab.release.Release.adversary_copy>`.

The scan is compiled (numba): one pass over the groups in order, each looking at the ranks in its
``Q_T`` range and keeping each record's last flagging group; then the fixed-point propagation,
a worklist over the flags and the touched groups. Domains are stored for the records of
touched groups only, one flag per (record, distinct value of its group).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from anonlab._validation import check_choice, check_int, takes_release
from anonlab.anonymize.hilbert import hilbert_index
from anonlab.errors import AnonlabError
from anonlab.release import Release

TIE_BREAKS = ("rank", "index")


@dataclass(frozen=True)
class Algorithm7Result:
    """Outcome of Algorithm 7 on one release: the inference, and once :meth:`score` has compared
    it with the truth, the scores.

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
    flagger : ndarray of int, shape (n_rows,)
        The last vulnerable group whose ``Q_T`` range held each record while it was unassigned
        (``-1``: not flagged); its constraint is the one the strict rule applies.
    key : ndarray of int, shape (n_rows,)
        The adversary's ``Q_T`` order of each record (rank, or the dense raw index under
        ``tie_break="index"``): "ranked below t" means a smaller key.
    pinned_value : ndarray of int, shape (n_rows,)
        Sensitive code pinned by the strict rule, ``-1`` if none.
    domain : ndarray of bool, shape (n_rows, n_values)
        Each record's possible values after the strict rule's propagation: narrowed for the
        records of groups a flag touched, its group's published values elsewhere.
    conflicts : int
        Records at which the rules contradicted each other (a reduction that would have left no
        value was refused); 0 whenever the inference is sound.
    candidate_ok : ndarray of bool, shape (n_rows,), or None
        Scoring only (None until :meth:`score`): flagged records whose flag's inference holds on
        the true values (a member of the last flagging group ranked below the record holds its
        value).
    true_value : ndarray of int, shape (n_rows,), or None
        Ground truth (scoring only; None until :meth:`score`).
    """

    l: int
    tie_break: str
    vulnerable_groups: np.ndarray
    examined_groups: int
    union_records: np.ndarray
    flagged_records: np.ndarray
    flagger: np.ndarray
    key: np.ndarray
    pinned_value: np.ndarray
    domain: np.ndarray
    conflicts: int
    candidate_ok: np.ndarray | None = None
    true_value: np.ndarray | None = None

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
    def scored(self) -> bool:
        """Whether :meth:`score` has compared the inference with the truth."""
        return self.true_value is not None

    def _truth(self, what: str) -> np.ndarray:
        if self.true_value is None:
            raise AnonlabError(
                f"{what} compares the inference with the ground truth: call "
                "result.score(release) first (the inference alone never reads it)"
            )
        return self.true_value

    def score(self, release: Release) -> Algorithm7Result:
        """This result scored against ``release``'s ground truth (the publisher's copy).

        Sets ``true_value`` and ``candidate_ok``: a flag's inference holds when some member of
        the flagging group ranked below the record holds the record's true value (the bucket
        head Hilb put there, §8.3.1)."""
        true = np.asarray(release.table.codes[release.sensitive], dtype=np.int64)
        if true.shape != (self.n_rows,):
            raise AnonlabError(
                f"score: the release has {len(true)} records, the inference {self.n_rows}"
            )
        ok = self.flagged_records & flag_holds(self.flagger, self.key, release.group, true)
        return replace(self, candidate_ok=ok, true_value=true)

    @property
    def strict_correct(self) -> int:
        """Pinned records whose pinned value is the true one (scoring)."""
        p = self.pinned_value
        return int(((p >= 0) & (p == self._truth("strict_correct"))).sum())

    @property
    def strict_precision(self) -> float:
        """Share of pinned records whose pinned value is the true one (nan if none)."""
        correct = self.strict_correct
        return correct / self.strict_count if self.strict_count else float("nan")

    @property
    def union_precision(self) -> float:
        """Share of flagged records for which the inference holds on the truth: the (last)
        flagging group has a member ranked below the record holding its value (nan if none)."""
        self._truth("union_precision")
        f = int(self.flagged_records.sum())
        return int(self.candidate_ok.sum()) / f if f else float("nan")

    def to_json(self) -> dict:
        """The counts; the scores (``union_precision``, ``strict_correct``,
        ``strict_precision``) only once scored."""
        n = self.n_rows
        out = {
            "attack": "hilb-algorithm7",
            "l": self.l,
            "tie_break": self.tie_break,
            "records": n,
            "examined_groups": self.examined_groups,
            "vulnerable_groups": int(len(self.vulnerable_groups)),
            "union_compromised": self.union_count,
            "union_share": self.union_count / n if n else 0.0,
            "flagged_records": int(self.flagged_records.sum()),
            "union_precision": None,
            "strict_compromised": self.strict_count,
            "strict_share": self.strict_count / n if n else 0.0,
            "strict_correct": None,
            "strict_precision": None,
            "conflicts": self.conflicts,
        }
        if not self.scored:
            return {k: v for k, v in out.items() if k not in SCORES}
        out["union_precision"] = _nan_none(self.union_precision)
        out["strict_correct"] = self.strict_correct
        out["strict_precision"] = _nan_none(self.strict_precision)
        return out


#: The keys of :meth:`Algorithm7Result.to_json` that need the ground truth.
SCORES = ("union_precision", "strict_correct", "strict_precision")


def flag_holds(
    flagger: np.ndarray, key: np.ndarray, group: np.ndarray, true: np.ndarray
) -> np.ndarray:
    """Scoring only: per record, whether its flag's inference holds on the true values ``true``
    (a member of the flagging group ``flagger`` with a smaller ``key`` holds the record's
    value); True for unflagged records.

    One pass: the smallest key of each (group, value) pair present, looked up per flag.
    """
    flagger = np.asarray(flagger, dtype=np.int64)
    key = np.asarray(key, dtype=np.int64)
    group = np.asarray(group, dtype=np.int64)
    true = np.asarray(true, dtype=np.int64)
    ok = np.ones(len(true), dtype=bool)
    t = np.flatnonzero(flagger >= 0)
    if not len(t):
        return ok
    width = int(true.max()) + 1
    pairs, inverse = np.unique(group * width + true, return_inverse=True)
    lowest = np.full(len(pairs), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(lowest, inverse.ravel(), key)
    want = flagger[t] * width + true[t]
    at = np.minimum(np.searchsorted(pairs, want), len(pairs) - 1)
    ok[t] = (pairs[at] == want) & (lowest[at] < key[t])
    return ok


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
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Lines 3-14. Returns (vulnerable flag per group, partner flag per group, the *last*
    vulnerable group whose ``Q_T`` range held each record while it was unassigned (-1), number
    of groups examined).

    The last flagging group ``G1'`` says all the earlier ones ``G1`` say: ``t`` holds the value
    of some ``h'`` of ``G1'`` ranked below ``t``; ``h'`` lies in ``G1``'s range (above its
    lowest member, below ``t``) and was unassigned when ``G1`` formed, so it is flagged by
    ``G1`` with fewer members below it; by induction on the rank, the constraint of
    ``(t, G1)`` follows from the last-flagger constraints. Keeping one flag per record bounds
    the memory by ``n`` (the flags of all groups number 24 per flagged record on the 300,000-row
    resample at ℓ = 4)."""
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
    return vulnerable, partner, flagger, examined


@njit(cache=True)
def _push(queue, in_queue, head_tail, slot, item) -> None:
    """Append ``item`` to the circular queue ``queue`` unless it is already waiting."""
    if in_queue[item]:
        return
    in_queue[item] = True
    tail = head_tail[slot + 1]
    queue[tail] = item
    head_tail[slot + 1] = tail + 1 if tail + 1 < queue.shape[0] else 0


@njit(cache=True)
def _pop(queue, in_queue, head_tail, slot) -> int:
    """Next item of the circular queue, ``-1`` if it is empty."""
    head = head_tail[slot]
    if head == head_tail[slot + 1]:
        return -1
    item = queue[head]
    in_queue[item] = False
    head_tail[slot] = head + 1 if head + 1 < queue.shape[0] else 0
    return item


@njit(cache=True)
def _drop(r, j, state) -> None:
    """Remove local value ``j`` from record ``r``'s domain (the caller checks one value stays)
    and queue what may change in turn: ``r``'s group, the flags of ``t = r`` and the flags of
    ``r``'s group on records ranked above ``r`` (``r`` may hold their value). ``state`` is the
    tuple built in :func:`_pin`."""
    (dom, dom_start, dsize, nd, group, vals_start, poss, fixed, key) = state[:9]
    (pair_t, pt_start, pt_idx, pg_lo, pg_hi, pq, pq_in, gq, gq_in, head_tail, done) = state[9:]
    g = group[r]
    off = dom_start[r]
    dom[off + j] = False
    dsize[r] -= 1
    vs = vals_start[g]
    poss[vs + j] -= 1
    if dsize[r] == 1:
        for jj in range(nd[g]):
            if dom[off + jj]:
                fixed[vs + jj] += 1
    _push(gq, gq_in, head_tail, 2, g)
    for k in range(pt_start[r], pt_start[r + 1]):
        if not done[pt_idx[k]]:
            _push(pq, pq_in, head_tail, 0, pt_idx[k])
    # the flags of g are stored in rank order of t: those above r are a suffix
    lo = pg_lo[g]
    hi = pg_hi[g]
    while lo < hi:
        mid = (lo + hi) // 2
        if key[pair_t[mid]] > key[r]:
            hi = mid
        else:
            lo = mid + 1
    for p in range(lo, pg_hi[g]):
        if not done[p]:
            _push(pq, pq_in, head_tail, 0, p)


@njit(cache=True)
def _pin(
    pair_t: np.ndarray,
    pair_g: np.ndarray,
    members_start: np.ndarray,
    group: np.ndarray,
    key: np.ndarray,
    hist: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strict rule: each record's domain of possible values, narrowed to a fixed point.

    Records are *slots*: group ``g`` holds slots ``members_start[g]`` to
    ``members_start[g + 1]``, in ``key`` order (groups numbered in the order Algorithm 7 visits
    them, so the memory follows ``Q_T``); the flags (``pair_t``, ``pair_g``) come grouped by
    ``G1`` and, within a group, in ``key`` order of ``t``. Domains start as the published
    values of the record's group and shrink by three sound rules: (i) *source*: a flagged ``t``
    holds the value of a member of ``G1`` ranked below ``t``, so its domain is cut to the union
    of those members' domains; (ii) *holder*: if exactly one member of ``G1`` ranked below ``t``
    can share a value with ``t``, that member's domain is cut to ``t``'s; (iii) *counting* in a
    group: a value whose copies equal the members that can hold it goes to all of them; a value
    whose copies are all on members pinned to it leaves every other member. A reduction that
    would empty a domain is refused and the record marked as a conflict (only with an unsound
    inference, e.g. ``tie_break="index"``). A flag is settled once ``t`` and its only possible
    holder are both pinned. Only groups touched by a flag get domains. Returns the pinned value
    per slot (``-1``: none, or a touched group with a single published value, disclosed by the
    publication itself), the conflict flags, and every slot's domain as a ``(slots, n_values)``
    bool array (an untouched group's published values).
    """
    n = group.shape[0]
    n_groups, n_values = hist.shape
    n_pairs = pair_t.shape[0]
    touched = np.zeros(n_groups, dtype=np.bool_)
    for p in range(n_pairs):
        touched[pair_g[p]] = True
        touched[group[pair_t[p]]] = True
    # the distinct published values of each touched group, sorted (CSR)
    nd = np.zeros(n_groups, dtype=np.int64)
    for g in range(n_groups):
        if touched[g]:
            for v in range(n_values):
                if hist[g, v] > 0:
                    nd[g] += 1
    vals_start = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        vals_start[g + 1] = vals_start[g] + nd[g]
    gvals = np.empty(vals_start[n_groups], dtype=np.int64)
    gcnt = np.empty(vals_start[n_groups], dtype=np.int64)
    poss = np.zeros(vals_start[n_groups], dtype=np.int64)  # members that can hold the value
    fixed = np.zeros(vals_start[n_groups], dtype=np.int64)  # members pinned to it
    for g in range(n_groups):
        if touched[g]:
            k = vals_start[g]
            size = members_start[g + 1] - members_start[g]
            for v in range(n_values):
                if hist[g, v] > 0:
                    gvals[k] = v
                    gcnt[k] = hist[g, v]
                    poss[k] = size
                    fixed[k] = size if nd[g] == 1 else 0
                    k += 1
    # domains: one flag per (record of a touched group, distinct value of its group)
    dom_start = np.full(n, -1, dtype=np.int64)
    dsize = np.zeros(n, dtype=np.int64)
    total = 0
    for g in range(n_groups):
        if touched[g]:
            for r in range(members_start[g], members_start[g + 1]):
                dom_start[r] = total
                dsize[r] = nd[g]
                total += nd[g]
    dom = np.ones(total, dtype=np.bool_)
    # flags by t (CSR); those of one G1 are contiguous already: [pg_lo, pg_hi)
    pt_start = np.zeros(n + 1, dtype=np.int64)
    pg_lo = np.zeros(n_groups, dtype=np.int64)
    pg_hi = np.zeros(n_groups, dtype=np.int64)
    for p in range(n_pairs):
        pt_start[pair_t[p] + 1] += 1
        if p == 0 or pair_g[p - 1] != pair_g[p]:
            pg_lo[pair_g[p]] = p
        pg_hi[pair_g[p]] = p + 1
    for r in range(n):
        pt_start[r + 1] += pt_start[r]
    pt_idx = np.empty(n_pairs, dtype=np.int64)
    fill_t = pt_start[:-1].copy()
    for p in range(n_pairs):
        pt_idx[fill_t[pair_t[p]]] = p
        fill_t[pair_t[p]] += 1
    conflict = np.zeros(n, dtype=np.bool_)
    done = np.zeros(n_pairs, dtype=np.bool_)
    pq = np.empty(n_pairs + 1, dtype=np.int64)
    pq_in = np.zeros(n_pairs, dtype=np.bool_)
    gq = np.empty(n_groups + 1, dtype=np.int64)
    gq_in = np.zeros(n_groups, dtype=np.bool_)
    head_tail = np.zeros(4, dtype=np.int64)  # pair queue head, tail; group queue head, tail
    state = (dom, dom_start, dsize, nd, group, vals_start, poss, fixed, key)
    state = state + (pair_t, pt_start, pt_idx, pg_lo, pg_hi, pq, pq_in, gq, gq_in, head_tail, done)
    for p in range(n_pairs):
        _push(pq, pq_in, head_tail, 0, p)
    for g in range(n_groups):
        if touched[g]:
            _push(gq, gq_in, head_tail, 2, g)
    source = np.zeros(n_values, dtype=np.bool_)  # scratch: global value masks
    mine = np.zeros(n_values, dtype=np.bool_)
    while True:
        p = _pop(pq, pq_in, head_tail, 0)
        if p >= 0:
            t = pair_t[p]
            if conflict[t]:
                continue
            g1 = pair_g[p]
            g2 = group[t]
            vs1 = vals_start[g1]
            vs2 = vals_start[g2]
            ot = dom_start[t]
            below = members_start[g1]
            while below < members_start[g1 + 1] and key[below] < key[t]:
                below += 1
            # (i) source: the values the members of G1 ranked below t can hold
            for h in range(members_start[g1], below):
                oh = dom_start[h]
                for jj in range(nd[g1]):
                    if dom[oh + jj]:
                        source[gvals[vs1 + jj]] = True
            keep = 0
            for j in range(nd[g2]):
                if dom[ot + j] and source[gvals[vs2 + j]]:
                    keep += 1
            if keep == 0:
                conflict[t] = True
            elif keep < dsize[t]:
                for j in range(nd[g2]):
                    if dom[ot + j] and not source[gvals[vs2 + j]]:
                        _drop(t, j, state)
            for jj in range(nd[g1]):
                source[gvals[vs1 + jj]] = False
            if conflict[t]:
                continue
            # (ii) holder: the members ranked below t that can share a value with t
            for j in range(nd[g2]):
                if dom[ot + j]:
                    mine[gvals[vs2 + j]] = True
            n_hold = 0
            holder = -1
            for h in range(members_start[g1], below):
                oh = dom_start[h]
                for jj in range(nd[g1]):
                    if dom[oh + jj] and mine[gvals[vs1 + jj]]:
                        n_hold += 1
                        holder = h
                        break
            if n_hold == 0:
                conflict[t] = True
            elif n_hold == 1 and not conflict[holder]:
                oh = dom_start[holder]
                for jj in range(nd[g1]):
                    if dom[oh + jj] and not mine[gvals[vs1 + jj]]:
                        _drop(holder, jj, state)
                if dsize[t] == 1 and dsize[holder] == 1:
                    done[p] = True
            for j in range(nd[g2]):
                mine[gvals[vs2 + j]] = False
            continue
        g = _pop(gq, gq_in, head_tail, 2)
        if g < 0:
            break
        vs = vals_start[g]
        for j in range(nd[g]):
            c = gcnt[vs + j]
            if poss[vs + j] == c and fixed[vs + j] < c:
                # (iii) every member that can hold this value holds it
                for r in range(members_start[g], members_start[g + 1]):
                    o = dom_start[r]
                    if dom[o + j] and dsize[r] > 1 and not conflict[r]:
                        for jj in range(nd[g]):
                            if jj != j and dom[o + jj]:
                                _drop(r, jj, state)
            elif fixed[vs + j] == c and poss[vs + j] > c:
                # (iii) every copy is taken: no other member holds this value
                for r in range(members_start[g], members_start[g + 1]):
                    o = dom_start[r]
                    if dom[o + j] and dsize[r] > 1 and not conflict[r]:
                        _drop(r, j, state)
            elif poss[vs + j] < c or fixed[vs + j] > c:
                for r in range(members_start[g], members_start[g + 1]):
                    if dom[dom_start[r] + j]:
                        conflict[r] = True
    pinned = np.full(n, -1, dtype=np.int64)
    for g in range(n_groups):
        if touched[g] and nd[g] > 1:
            vs = vals_start[g]
            for r in range(members_start[g], members_start[g + 1]):
                if dsize[r] == 1:
                    o = dom_start[r]
                    for jj in range(nd[g]):
                        if dom[o + jj]:
                            pinned[r] = gvals[vs + jj]
    domain = np.zeros((n, n_values), dtype=np.bool_)
    for g in range(n_groups):
        vs = vals_start[g]
        for r in range(members_start[g], members_start[g + 1]):
            if touched[g]:
                o = dom_start[r]
                for jj in range(nd[g]):
                    if dom[o + jj]:
                        domain[r, gvals[vs + jj]] = True
            else:
                for v in range(n_values):
                    if hist[g, v] > 0:
                        domain[r, v] = True
    return pinned, conflict, domain


@takes_release
def hilb_algorithm7(
    release: Release,
    l: int | None = None,
    *,
    tie_break: str = "rank",
    keys: np.ndarray | None = None,
) -> Algorithm7Result:
    """Run Algorithm 7 (Jin et al. §8.3.1) on a Hilb release, count compromised records and
    score the inference against the truth: :func:`algorithm7_inference` (parameters as there)
    on :meth:`release.adversary_copy() <anonlab.release.Release.adversary_copy>`, which cannot
    read the truth, then :meth:`Algorithm7Result.score` on ``release``."""
    view = release.adversary_copy()
    return algorithm7_inference(view, l, tie_break=tie_break, keys=keys).score(release)


@takes_release
def algorithm7_inference(
    view: Release,
    l: int | None = None,
    *,
    tie_break: str = "rank",
    keys: np.ndarray | None = None,
) -> Algorithm7Result:
    """Algorithm 7 (Jin et al. §8.3.1) and the strict rule, from what is published only.

    Reads the partition, the published sensitive histogram, each record's exact
    quasi-identifiers (the Hilbert keys) and ℓ; never the original sensitive values. Score the
    result with :meth:`Algorithm7Result.score`.

    Parameters
    ----------
    view : Release
        Made by Hilb (any release works, but the inference is only sound for Hilb); the
        adversary's copy (:meth:`~anonlab.release.Release.adversary_copy`) or the release itself.
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
        Unscored (``candidate_ok`` and ``true_value`` are None).
    """
    if l is None:
        l = view.manifest.get("parameters", {}).get("l")
        if l is None:
            raise AnonlabError("give l: the release's manifest has no parameter 'l'")
    l = check_int("l", l, minimum=1)
    tie_break = check_choice("tie_break", tie_break, TIE_BREAKS)
    n = view.table.n_rows
    keys = hilbert_keys(view) if keys is None else np.asarray(keys)
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
    group = view.group.astype(np.int64)
    n_groups = view.n_groups
    sizes = view.group_sizes.astype(np.int64)
    hist = np.ascontiguousarray(view.sensitive_histogram, dtype=np.int64)
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
    vulnerable, partner, flagger, examined = _scan(
        lo, hi, order_groups, pos, sizes, hist, order.astype(np.int64), rank_key, group, l
    )
    union_groups = vulnerable | partner
    union = union_groups[group]
    flagged = flagger >= 0
    # the strict rule works on slots: groups in the order of the scan, each group's records in
    # Q_T order ("ranked below t" is a prefix of G1's slots; memory follows Q_T)
    slot_of = np.empty(n, dtype=np.int64)
    by_slot = order[np.argsort(pos[group[order]], kind="stable")]  # order is by key
    slot_of[by_slot] = np.arange(n)
    group_s = pos[group[by_slot]]
    key_s = key[by_slot]
    starts = np.r_[0, np.cumsum(sizes[order_groups])].astype(np.int64)
    hist_s = np.ascontiguousarray(hist[order_groups])
    # one flag per flagged record (its last flagging group), grouped by G1, t in Q_T order
    pair_t = slot_of[np.flatnonzero(flagged)]
    pair_g = pos[flagger[flagged]]
    by = np.argsort(key_s[pair_t], kind="stable")
    by = by[np.argsort(pair_g[by], kind="stable")]
    pair_t, pair_g = pair_t[by], pair_g[by]
    pinned_s, conflict_s, domain_s = _pin(pair_t, pair_g, starts, group_s, key_s, hist_s)
    return Algorithm7Result(
        l=l,
        tie_break=tie_break,
        vulnerable_groups=np.flatnonzero(vulnerable),
        examined_groups=int(examined),
        union_records=union,
        flagged_records=flagged,
        flagger=flagger,
        key=key,
        pinned_value=pinned_s[slot_of],
        domain=domain_s[slot_of],
        conflicts=int(conflict_s.sum()),
    )
