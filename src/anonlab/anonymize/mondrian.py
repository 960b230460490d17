"""Mondrian (LeFevre, DeWitt, Ramakrishnan, ICDE 2006): strict multidimensional partitioning.

Top-down: starting from the whole table, a partition is cut in two on one quasi-identifier at its
median; the cut is *allowable* when both halves satisfy the privacy model; a partition with no
allowable cut is published as one group. Models: k-anonymity (``|G| >= k``) and ℓ-diversity in
the frequency form the papers use (``|G| >= ℓ·S_max(G)``, optionally over a set of sensitive
values), or both at once.

Choices (the paper's Algorithm 1 leaves them open; notes/jin-asap-algorithm-safe-publishing.md
§2.2 records the ones used by the ℓ-diversity papers):

* Dimension order: attributes by decreasing *normalized range* — the partition's range of codes
  divided by the whole table's — ties by column order; if the widest attribute has no allowable
  cut, the next is tried ("the trial is revoked"), as in Jin et al. §6.2.1.
* Split value: the lower median ``m`` of the partition's values; left = ``x <= m``, right =
  ``x > m``. When more than half the records share the largest value (right half empty), the cut
  is ``x < m`` instead. This is strict partitioning: equal values never straddle a cut.
* Categorical attributes are split on their codes, which follow the hierarchy's leaf order
  (depth-first), so a partition's values tend to stay inside one subtree; the release then
  publishes the lowest common ancestor (or, without a hierarchy, the set of values present).

The recursion is an explicit stack in a numba kernel that partitions an index array in place
(as quicksort does), so the whole run is O(n log n · d) with no Python loop over records.

References
----------
K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Mondrian multidimensional k-anonymity. ICDE 2006.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from anonlab._validation import check_choice, check_float, check_int, takes_table_or_frame
from anonlab.anonymize.eligibility import require_l_eligible
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.release import SCHEMES, Release
from anonlab.table import Table


@njit(cache=True)
def _lower_median(hist: np.ndarray, m: int) -> tuple[int, int]:
    """The strict lower-median cut from a partition's value histogram (``m`` records): (split
    code offset, records left of it). Left is ``x - lo <= split``; when more than half the
    records share the largest value the cut moves below it, so ``n_left`` may be 0 or all (no
    cut)."""
    cum = 0
    split = 0
    for v in range(hist.shape[0]):
        cum += hist[v]
        if 2 * cum >= m:
            split = v
            break
    n_left = cum
    if n_left == m:  # more than half at the maximum: cut below it
        n_left = cum - hist[split]
        split -= 1
    return split, n_left


@njit(cache=True)
def median_cut(
    qi: np.ndarray, idx: np.ndarray, s: int, e: int, a: int, lo_a: int, hi_a: int
) -> tuple[int, int]:
    """:func:`_lower_median` of ``idx[s:e]`` on attribute ``a`` of a row-major ``qi``."""
    hist = np.zeros(hi_a - lo_a + 1, dtype=np.int64)
    for i in range(s, e):
        hist[qi[idx[i], a] - lo_a] += 1
    return _lower_median(hist, e - s)


@njit(cache=True)
def _column_median_cut(column: np.ndarray, s: int, e: int, lo_a: int, hi_a: int) -> tuple[int, int]:
    """:func:`_lower_median` of the contiguous segment ``column[s:e]``."""
    hist = np.zeros(hi_a - lo_a + 1, dtype=np.int64)
    for i in range(s, e):
        hist[column[i] - lo_a] += 1
    return _lower_median(hist, e - s)


#: Ground distances of t-closeness the compiled cut test covers, per sensitive attribute
#: (:func:`mondrian_kernel`'s ``t_kind``): none, equal, ordered.
NO_CLOSENESS, EQUAL_DISTANCE, ORDERED_DISTANCE = 0, 1, 2
DISTANCE_NAMES = {EQUAL_DISTANCE: "equal", ORDERED_DISTANCE: "ordered"}


@njit(cache=True)
def _half_ok(hist, m, constrained, block, l, t, t_kind, reference, n):
    """Whether a partition of ``m`` records with sensitive counts ``hist`` satisfies, for each
    sensitive attribute (its values ``block[s]..block[s+1]`` of ``hist``): frequency
    ℓ-diversity over the ``constrained`` values (``ℓ·h_v <= m``), and t-closeness to the whole
    table's counts ``reference`` (of ``n`` records) with the attribute's ``t_kind`` distance,
    the EMD's numerator summed as the exact integer anonlab.models.t_closeness sums
    (``Σ|n·h_v − m·T_v|`` over 2·n·m, or the ordered distance's cumulative sums over
    (V − 1)·n·m)."""
    for s in range(len(block) - 1):
        lo = block[s]
        hi = block[s + 1]
        if l > 1:
            for v in range(lo, hi):
                if constrained[v] and l * hist[v] > m:
                    return False
        kind = t_kind[s]
        if kind == 1 or (kind == 2 and hi - lo > 1):
            num = 0
            run = 0
            for v in range(lo, hi):
                diff = hist[v] * n - m * reference[v]
                if kind == 1:
                    num += abs(diff)
                else:
                    run += diff
                    num += abs(run)
            norm = 2 if kind == 1 else hi - lo - 1
            if num / (m * n * norm) > t:
                return False
    return True


@njit(cache=True)
def _mondrian_kernel(columns, sens, constrained, block, width, k, l, look_ahead, t, t_kind,
                     reference):  # fmt: skip
    d, n = columns.shape
    n_attr = sens.shape[0]
    n_sens = constrained.shape[0]
    idx = np.arange(n)
    group = np.empty(n, dtype=np.int32)
    stack = np.empty((2 * n + 2, 2), dtype=np.int64)
    stack[0, 0] = 0
    stack[0, 1] = n
    top = 1
    n_groups = 0
    refused = 0
    lo = np.empty(d, dtype=np.int64)
    hi = np.empty(d, dtype=np.int64)
    span = np.empty(d, dtype=np.float64)
    left_hist = np.zeros(n_sens, dtype=np.int64)
    right_hist = np.zeros(n_sens, dtype=np.int64)
    total_hist = np.zeros(n_sens, dtype=np.int64)
    closeness = False
    for s in range(n_attr):
        if t_kind[s] != 0:
            closeness = True
    test_values = (l > 1 or closeness) and not look_ahead
    count_hist = l > 1 or look_ahead or closeness
    while top > 0:
        top -= 1
        s = stack[top, 0]
        e = stack[top, 1]
        m = e - s
        for a in range(d):
            low = columns[a, s]
            high = low
            for i in range(s + 1, e):
                v = columns[a, i]
                if v < low:
                    low = v
                elif v > high:
                    high = v
            lo[a] = low
            hi[a] = high
        if count_hist:
            total_hist[:] = 0
            for b in range(n_attr):
                for i in range(s, e):
                    total_hist[sens[b, i]] += 1
        threshold = k
        if look_ahead:
            smax = 0
            for v in range(n_sens):
                if constrained[v] and total_hist[v] > smax:
                    smax = total_hist[v]
            threshold = max(threshold, l * smax)
        for a in range(d):
            span[a] = (hi[a] - lo[a]) / width[a] if width[a] > 0 else 0.0
        cut = False
        tried = 0
        too_small = look_ahead and m < 2 * threshold  # no cut can give two halves >= threshold
        while tried < d and not cut and not too_small:
            # next attribute by decreasing normalized range (ties: column order)
            a = -1
            for b in range(d):
                if span[b] >= 0 and (a < 0 or span[b] > span[a]):
                    a = b
            if a < 0 or span[a] <= 0:
                break
            span[a] = -1.0
            tried += 1
            split, n_left = _column_median_cut(columns[a], s, e, lo[a], hi[a])
            if n_left == 0 or n_left == m:
                continue
            if n_left < threshold or m - n_left < threshold:
                refused += 1
                continue
            if test_values:
                left_hist[:] = 0
                for i in range(s, e):
                    if columns[a, i] - lo[a] <= split:
                        for b in range(n_attr):
                            left_hist[sens[b, i]] += 1
                for v in range(n_sens):
                    right_hist[v] = total_hist[v] - left_hist[v]
                if not (
                    _half_ok(left_hist, n_left, constrained, block, l, t, t_kind, reference, n)
                    and _half_ok(right_hist, m - n_left, constrained, block, l, t, t_kind,
                                 reference, n)
                ):  # fmt: skip
                    refused += 1
                    continue
            # partition the segment in place: left (<= split) first
            i = s
            j = e - 1
            while i <= j:
                if columns[a, i] - lo[a] <= split:
                    i += 1
                else:
                    x = idx[i]
                    idx[i] = idx[j]
                    idx[j] = x
                    for b in range(n_attr):
                        x = sens[b, i]
                        sens[b, i] = sens[b, j]
                        sens[b, j] = x
                    for b in range(d):
                        x = columns[b, i]
                        columns[b, i] = columns[b, j]
                        columns[b, j] = x
                    j -= 1
            stack[top, 0] = s + n_left
            stack[top, 1] = e
            top += 1
            stack[top, 0] = s
            stack[top, 1] = s + n_left
            top += 1
            cut = True
        if not cut:
            if too_small:  # count the trials as Mondrian+ would make and revoke them
                for a in range(d):
                    if width[a] > 0 and hi[a] > lo[a]:
                        _, n_left = _column_median_cut(columns[a], s, e, lo[a], hi[a])
                        if 0 < n_left < m:
                            refused += 1
            for i in range(s, e):
                group[idx[i]] = n_groups
            n_groups += 1
    return group, n_groups, refused


def mondrian_kernel(
    columns: np.ndarray,
    sens: np.ndarray,
    constrained: np.ndarray,
    width: np.ndarray,
    k: int,
    l: int,
    look_ahead: bool,
    *,
    block: np.ndarray | None = None,
    t: float = 1.0,
    t_kind: np.ndarray | None = None,
    reference: np.ndarray | None = None,
) -> tuple[np.ndarray, int, int]:
    """Group id of each record, the number of groups, and the number of revoked cuts.

    ``columns`` is (d, n) codes, one row per QI; ``width`` the table's code range per QI. A cut
    is allowed when both halves have at least ``k`` records and, with ``l > 1``, are ℓ-diverse
    over the ``constrained`` values (Mondrian). With ``look_ahead`` (Mondrian+, Jin et al.
    §6.2.1) the ℓ test reads only the *parent*: both halves need at least
    ``max(k, l * S_max(parent))`` records; a partition smaller than twice that cannot be cut,
    and its would-be trials are counted as revoked without being tried.

    Several sensitive attributes (issue 19): ``sens`` is then (S, n), each row's codes offset
    into one concatenated domain whose attribute ``s`` holds values ``block[s]..block[s+1]``
    (``constrained`` over all of them), and a half must pass the test for every attribute.
    ``t_kind`` (per attribute: :data:`NO_CLOSENESS`, :data:`EQUAL_DISTANCE`,
    :data:`ORDERED_DISTANCE`) adds t-closeness with ``t`` against the whole table's counts
    ``reference``, as ARX combines criteria. The look-ahead test takes one attribute and no
    t-closeness.

    ``columns`` and ``sens`` are permuted in place together with the record index, as quicksort
    partitions: every partition is then a contiguous segment of each column, so each level of
    the recursion reads memory in order instead of through a permutation (at 10M records the
    scattered reads dominated the run time). Callers pass arrays they own.
    """
    sens2 = sens.reshape(1, -1) if sens.ndim == 1 else sens  # a view: permuted in place
    n_values = constrained.shape[0]
    if block is None:
        block = np.array([0, n_values], dtype=np.int64)
    if t_kind is None:
        t_kind = np.zeros(sens2.shape[0], dtype=np.int64)
    if reference is None:
        reference = np.zeros(n_values, dtype=np.int64)
    if look_ahead and (sens2.shape[0] > 1 or np.any(t_kind)):
        raise AnonlabError("the look-ahead test takes one sensitive attribute and no t-closeness")
    return _mondrian_kernel(
        columns, sens2, constrained, np.asarray(block, dtype=np.int64), width, k, l,
        look_ahead, float(t), np.asarray(t_kind, dtype=np.int64),
        np.asarray(reference, dtype=np.int64),
    )  # fmt: skip


def owned_columns(table: Table) -> np.ndarray:
    """A fresh (d, n) array of the table's QI codes, one row per QI, for kernels that permute
    it in place (:func:`mondrian_kernel`)."""
    names = table.quasi_identifiers
    if not names:
        return np.empty((0, table.n_rows), dtype=np.int32)
    return np.stack([table.codes[q] for q in names])


@takes_table_or_frame
def mondrian(
    table: Table,
    *,
    k: int | None = None,
    l: int | None = None,
    t: float | None = None,
    distance: str | None = None,
    sensitive_values: Sequence[str] | None = None,
    scheme: str = "generalization",
    seed: int = 0,
) -> Release:
    """Partition ``table`` with strict multidimensional Mondrian.

    Parameters
    ----------
    table : Table
        With no sensitive attribute (plain k-anonymity), one, or several (each must satisfy
        ``l`` and ``t``: a cut is allowed only if both halves satisfy every model for every
        sensitive attribute, as ARX applies its criteria per attribute).
    k : int, optional
        Every group has at least ``k`` records.
    l : int, optional
        Every group satisfies frequency ℓ-diversity, ``|G| >= ℓ·S_max(G)``.
    t : float, optional
        Every group's sensitive distribution is within Earth Mover's Distance ``t`` of the
        whole table's (t-closeness; Li, Li & Venkatasubramanian, ICDE 2007), with the exact
        arithmetic of :func:`anonlab.models.t_closeness.t_closeness`. At least one of ``k``,
        ``l`` and ``t`` must be given; any combination may (k = 5 and ℓ = 3 and t = 0.2).
    distance : {"auto", "equal", "ordered"}, optional
        t-closeness's ground distance (default ``auto``: ordered for a numeric sensitive
        attribute, equal otherwise). The hierarchical distance is not tested per cut: give
        ``equal`` or ``ordered``, or search the lattice (``lattice``) for it.
    sensitive_values : sequence of str, optional
        With ``l`` and one sensitive attribute: constrain only these sensitive values.
    scheme : {"generalization", "bucketization"}
        How the groups are published (bucketization needs one sensitive attribute).
    seed : int
        Mondrian is deterministic; the seed only orders exported rows. Stored in the manifest.

    Returns
    -------
    Release

    Raises
    ------
    IneligibleError
        When the whole table violates the model (fewer than ``k`` records, not ℓ-eligible, or
        farther than ``t`` from itself, which cannot happen).
    """
    if k is None and l is None and t is None:
        raise AnonlabError(
            "Mondrian needs a privacy model: give k (k-anonymity), l (ℓ-diversity) and/or t "
            "(t-closeness)"
        )
    k = 1 if k is None else check_int("k", k, minimum=1)
    l_ = 1 if l is None else check_int("l", l, minimum=1)
    t_ = 1.0 if t is None else check_float("t", t, low=0.0, high=1.0)
    if distance is not None and t is None:
        raise AnonlabError("parameter 'distance' is t-closeness's; give t as well (e.g. t=0.2)")
    scheme = check_choice("scheme", scheme, SCHEMES)
    seed = check_int("seed", seed, minimum=0)
    if table.n_rows < k:
        raise IneligibleError(
            f"k = {k} is larger than the table ({table.n_rows} records); the largest k is "
            f"{table.n_rows}"
        )
    names = table.sensitive_attributes
    if not names:  # plain k-anonymity: no histogram is kept
        if l is not None or t is not None or sensitive_values is not None:
            table.require_sensitive()  # the error names --sensitive
        sens = np.zeros((1, table.n_rows), dtype=np.int32)
        constrained = np.ones(1, dtype=bool)
        block = np.array([0, 1], dtype=np.int64)
        t_kind = np.zeros(1, dtype=np.int64)
    else:
        if sensitive_values is not None and len(names) > 1:
            raise AnonlabError(
                f"sensitive_values names values of one sensitive attribute and the table has "
                f"{len(names)} ({', '.join(names)}); every value of each is protected, or name "
                "one sensitive attribute"
            )
        sizes = [table.domain_size(a) for a in names]
        block = np.cumsum([0, *sizes]).astype(np.int64)
        # each attribute's codes offset into one concatenated domain; permuted by the kernel
        sens = np.stack([table.codes[a] + np.int32(block[j]) for j, a in enumerate(names)])
        constrained = np.concatenate(
            [table.value_mask(a, sensitive_values if len(names) == 1 else None) for a in names]
        )
        t_kind = np.array(
            [_closeness_kind(table, a, distance) if t is not None else 0 for a in names],
            dtype=np.int64,
        )
        for j, a in enumerate(names):
            if l_ > 1:
                require_l_eligible(table.for_sensitive(a), l_, constrained[block[j] : block[j + 1]])
    reference = np.bincount(sens.ravel(), minlength=len(constrained)).astype(np.int64)
    width = np.array([table.domain_size(q) - 1 for q in table.quasi_identifiers], dtype=np.int64)
    group, _, _ = mondrian_kernel(
        owned_columns(table), sens, constrained, width, k, l_, False,
        block=block, t=t_, t_kind=t_kind, reference=reference,
    )  # fmt: skip
    parameters: dict = {"k": None if k == 1 and (l is not None or t is not None) else k, "l": l}
    if t is not None:
        parameters["t"] = t_
        used = {a: DISTANCE_NAMES[kind] for a, kind in zip(names, t_kind.tolist(), strict=True)}
        parameters["distance"] = used if len(names) > 1 else used[names[0]]
    parameters["sensitive_values"] = (
        None if sensitive_values is None else [str(v) for v in sensitive_values]
    )
    manifest = {"algorithm": "mondrian", "parameters": parameters, "seed": seed}
    return Release(table, group, scheme, manifest)


def _closeness_kind(table: Table, name: str, distance: str | None) -> int:
    """The compiled cut test's distance for sensitive attribute ``name`` (``auto``: ordered for
    a numeric attribute, as :func:`anonlab.models.t_closeness.default_distance`, equal
    otherwise: the hierarchical distance is not tested per cut)."""
    from anonlab.models.t_closeness import DISTANCES, default_distance

    distance = check_choice("distance", distance or "auto", DISTANCES)
    if distance == "auto":
        distance = default_distance(table.schema[name])
        if distance == "hierarchical":
            distance = "equal"
    if distance == "hierarchical":
        raise AnonlabError(
            "Mondrian tests t-closeness per cut with distance 'equal' or 'ordered', not "
            "'hierarchical'; give one of those, or search the lattice (--algorithm lattice "
            "--model t-closeness --distance hierarchical)"
        )
    return EQUAL_DISTANCE if distance == "equal" else ORDERED_DISTANCE
