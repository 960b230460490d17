"""Driver-side partitioning: cut a table into parts that each fit a worker and keep the model.

Two ways, one per family of algorithm (issue 10, §2):

**Mondrian, Mondrian+ and Mondrian++: the first cuts of the algorithm itself.**
:func:`mondrian_cuts` runs the top of Mondrian's recursion on the driver, with *the same rule*
as :func:`anonlab.anonymize.mondrian.mondrian_kernel`: attributes by decreasing normalized
range (the partition's code range over the whole domain's), the strict lower-median cut of
:func:`~anonlab.anonymize.mondrian.median_cut` (the same compiled helper), and a cut made only
if it is *allowable* — both halves have at least k records and are ℓ-diverse (Mondrian), or both
halves have at least ``ℓ·S_max(parent)`` records (the look-ahead of Mondrian+, Jin et al.
§6.2.1). A partition is cut again while it has more than ``max_partition_rows`` records and an
allowable cut exists. Every part is therefore a node of the single-machine Mondrian's recursion
tree: a worker running the single-machine algorithm on it (whose attribute widths come from the
domains, which :meth:`Table.take` keeps) makes exactly the cuts the single-machine run makes
below that node. Hence, by construction, **distributed Mondrian and Mondrian+ publish the same
groups as the single-machine ones** for any ``max_partition_rows``, and the model holds for the
same reason it holds there (tested). Mondrian++ adds stratified pick-up inside each group; groups
never span parts, so only its random draws differ.

Medians are exact, from the histogram of a partition's codes (a code domain is small: a
histogram is a few hundred integers). No sample is needed, and a sampled median would make the
cuts differ from the single-machine run. On a real cluster the histogram is a map-reduce of
per-worker ``bincount``s over the partition's rows (see docs/distributed.md).

**Anatomy, Hilb, Hilb+ and their "++": chunks that are each ℓ-eligible.** These algorithms only
need their input to be ℓ-eligible (Xiao & Tao, VLDB 2006, Property I: no protected value in more
than n/ℓ of the records; and at least ℓ records). :func:`ordered_chunks` cuts an order of the
records (the Hilbert order for Hilb, a seeded random order for Anatomy) into equal runs of at
most ``max_partition_rows``; :func:`merge_ineligible` then merges every run that is not
ℓ-eligible with its neighbour and reports each merge. It never fails when the whole table is
ℓ-eligible: in the worst case every run is merged into one, which is the whole table.

Choices where no paper speaks (there is no distributed version of these algorithms in the papers):

* Merge rule: runs are scanned in order, a run that is not eligible absorbs the next run until
  the union is eligible; a non-eligible tail is merged backwards into the previous part (and
  further back while still not eligible). Merges only join neighbours in the order, so a merged
  part is still a contiguous run of the Hilbert order.
* Eligibility counts the protected values only (``sensitive_values``), with the pool of
  unprotected values free, and requires at least ℓ records, as the algorithms do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from anonlab.anonymize.mondrian import median_cut


@dataclass(frozen=True)
class Partitioning:
    """Which part each record goes to, and what the driver did to get there.

    Attributes
    ----------
    part : ndarray of shape (n_rows,), dtype=int32
        The part of each record, ``0 .. n_parts-1``.
    n_parts : int
    method : str
        ``"mondrian-cuts"``, ``"hilbert-runs"`` or ``"random-runs"``.
    cuts : int
        Mondrian: allowable cuts the driver made.
    refused_splits : int
        Mondrian: median cuts with two non-empty halves that the driver found not allowable at
        the partitions it cut (the workers count those below).
    oversized : int
        Parts larger than ``max_partition_rows`` because no allowable cut exists (Mondrian
        publishes such a partition as one group anyway).
    merges : list of list of int
        Runs merged into one part because a run was not ℓ-eligible, as lists of run indices.
    runs : int
        Runs before merging (the parts of ``ordered_chunks``).
    """

    part: np.ndarray
    n_parts: int
    method: str
    cuts: int = 0
    refused_splits: int = 0
    oversized: int = 0
    merges: list[list[int]] = field(default_factory=list)
    runs: int = 0

    def rows(self) -> list[np.ndarray]:
        """The rows of each part, ascending, in part order (one stable argsort, no row loop)."""
        order = np.argsort(self.part, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(self.part, minlength=self.n_parts))]
        return [order[bounds[p] : bounds[p + 1]] for p in range(self.n_parts)]

    def to_json(self) -> dict:
        return {
            "method": self.method,
            "driver_cuts": int(self.cuts),
            "driver_refused_splits": int(self.refused_splits),
            "oversized_parts": int(self.oversized),
            "runs": int(self.runs),
            "merges": int(sum(len(m) - 1 for m in self.merges)),
            "merged_runs": [list(map(int, m)) for m in self.merges],
        }


def mondrian_cuts(
    qi: np.ndarray,
    sensitive: np.ndarray,
    constrained: np.ndarray,
    width: np.ndarray,
    *,
    k: int,
    l: int,
    look_ahead: bool,
    max_partition_rows: int,
) -> Partitioning:
    """The first cuts of Mondrian (``look_ahead=False``) or Mondrian+ (``True``) on the driver.

    Parameters
    ----------
    qi : ndarray of shape (n, d)
        Quasi-identifier codes (:meth:`Table.qi_matrix`).
    sensitive : ndarray of shape (n,)
        Sensitive codes.
    constrained : ndarray of bool
        Protected values over the sensitive domain.
    width : ndarray of shape (d,)
        ``domain_size - 1`` of each quasi-identifier (normalizes ranges, as the kernel does).
    k, l : int
        The model (``l = 1``: k-anonymity only; with ``look_ahead`` ``k`` is 1).
    look_ahead : bool
        Mondrian+'s acceptance test: both halves ``>= max(k, ℓ·S_max(parent))``.
    max_partition_rows : int
        Cut while a partition has more records than this (and an allowable cut exists).

    Returns
    -------
    Partitioning
        Parts in left-to-right order of the cuts. Each is a node of the single-machine
        recursion, so it satisfies the model (every allowable cut keeps both halves valid).
    """
    # column-major, so each attribute of a partition is one gather from a contiguous column
    # (the median-cut helper is compiled for this layout too)
    qi = np.asfortranarray(qi)
    sensitive = np.asarray(sensitive, dtype=np.int64)
    constrained = np.asarray(constrained, dtype=bool)
    width = np.asarray(width, dtype=np.int64)
    n, d = qi.shape
    n_values = len(constrained)
    idx = np.arange(n, dtype=np.int64)
    part = np.zeros(n, dtype=np.int32)
    stack = [(0, n)]
    leaves: list[tuple[int, int]] = []
    cuts = refused_total = oversized = 0
    while stack:
        s, e = stack.pop()
        m = e - s
        if m <= max_partition_rows or d == 0:
            leaves.append((s, e))
            continue
        rows = idx[s:e]
        columns = [qi[:, a][rows] for a in range(d)]
        lo = np.array([c.min() for c in columns], dtype=np.int64)
        hi = np.array([c.max() for c in columns], dtype=np.int64)
        total_hist = np.bincount(sensitive[rows], minlength=n_values)
        threshold = k
        if look_ahead:
            smax = int(np.where(constrained, total_hist, 0).max()) if n_values else 0
            threshold = max(threshold, l * smax)
        span = np.where(width > 0, (hi - lo) / np.maximum(width, 1), 0.0)
        # the kernel's order: decreasing normalized range, ties by column order
        order = np.argsort(-span, kind="stable")
        refused = 0
        cut_at = None
        if not (look_ahead and m < 2 * threshold):
            for a in order.tolist():
                if span[a] <= 0:
                    break
                split, n_left = median_cut(qi, idx, s, e, a, lo[a], hi[a])
                if n_left == 0 or n_left == m:
                    continue
                if n_left < threshold or m - n_left < threshold:
                    refused += 1
                    continue
                left = columns[a] <= lo[a] + split
                if l > 1 and not look_ahead:
                    left_hist = np.bincount(sensitive[rows[left]], minlength=n_values)
                    right_hist = total_hist - left_hist
                    if np.any(constrained & (l * left_hist > n_left)) or np.any(
                        constrained & (l * right_hist > m - n_left)
                    ):
                        refused += 1
                        continue
                cut_at = (left, int(n_left))
                break
        if cut_at is None:  # no allowable cut: a leaf; the worker recounts its trials
            leaves.append((s, e))
            oversized += 1
            continue
        left, n_left = cut_at
        idx[s:e] = np.concatenate([rows[left], rows[~left]])
        cuts += 1
        refused_total += refused
        stack.append((s + n_left, e))
        stack.append((s, s + n_left))  # popped first: leaves come out left to right
    for p, (s, e) in enumerate(leaves):
        part[idx[s:e]] = p
    return Partitioning(
        part=part,
        n_parts=len(leaves),
        method="mondrian-cuts",
        cuts=cuts,
        refused_splits=refused_total,
        oversized=oversized,
    )


def ordered_chunks(order: np.ndarray, max_partition_rows: int) -> np.ndarray:
    """Run id of each record: ``order`` (a permutation of the rows) cut into
    ``ceil(n / max_partition_rows)`` runs of near-equal size (``np.array_split`` sizes)."""
    n = len(order)
    n_runs = max(1, -(-n // max_partition_rows))
    sizes = np.full(n_runs, n // n_runs, dtype=np.int64)
    sizes[: n % n_runs] += 1
    run = np.empty(n, dtype=np.int32)
    run[order] = np.repeat(np.arange(n_runs, dtype=np.int32), sizes)
    return run


def eligible(histogram: np.ndarray, constrained: np.ndarray, l: int) -> np.ndarray:
    """Per row of ``histogram`` (parts x sensitive values): is the part ℓ-eligible?

    At least ℓ records, and no protected value in more than ``size / ℓ`` of them.
    """
    histogram = np.atleast_2d(histogram)
    size = histogram.sum(axis=1)
    smax = np.where(constrained, histogram, 0).max(axis=1) if histogram.shape[1] else 0
    return (size >= l) & (l * smax <= size)


def merge_plan(
    histogram: np.ndarray, constrained: np.ndarray, l: int
) -> tuple[np.ndarray, list[list[int]]]:
    """Which runs merge, from the runs' sensitive histograms (runs x values) alone.

    Returns ``(part_of_run, members)``: the part each run joins and the runs of each part.
    Runs are scanned in order; a run that is not ℓ-eligible absorbs the next until the union
    is; a tail that is not eligible is merged backwards. If the runs together are ℓ-eligible,
    so is every part (at worst everything merges into one part).
    """
    histogram = np.atleast_2d(np.asarray(histogram, dtype=np.int64))
    n_runs, n_values = histogram.shape
    ok = eligible(histogram, constrained, l)
    groups: list[list[int]] = []  # runs of each part
    group_hist: list[np.ndarray] = []
    current: list[int] = []
    current_hist = np.zeros(n_values, dtype=np.int64)
    for r in range(n_runs):  # a loop over runs (hundreds), not records
        current.append(r)
        current_hist = current_hist + histogram[r]
        if (len(current) == 1 and ok[r]) or eligible(current_hist, constrained, l)[0]:
            groups.append(current)
            group_hist.append(current_hist)
            current, current_hist = [], np.zeros(n_values, dtype=np.int64)
    if current:  # a tail that is not eligible: merge backwards until it is
        while groups and not eligible(current_hist, constrained, l)[0]:
            current = groups.pop() + current
            current_hist = current_hist + group_hist.pop()
        groups.append(current)
        group_hist.append(current_hist)
    part_of_run = np.empty(n_runs, dtype=np.int32)
    for p, members in enumerate(groups):
        part_of_run[members] = p
    return part_of_run, groups


def merge_ineligible(
    run: np.ndarray, sensitive: np.ndarray, constrained: np.ndarray, l: int, method: str
) -> Partitioning:
    """Merge runs that are not ℓ-eligible with their neighbours (in run order) and report it
    (:func:`merge_plan` on the runs' histograms).

    ``run`` is the run id of each record (``0 .. R-1``, in the order's sequence). The whole table
    must be ℓ-eligible (checked by the caller); then so is every part returned.
    """
    n_values = len(constrained)
    n_runs = int(run.max()) + 1 if len(run) else 1
    hist = np.bincount(
        run.astype(np.int64) * n_values + np.asarray(sensitive, dtype=np.int64),
        minlength=n_runs * n_values,
    ).reshape(n_runs, n_values)
    part_of_run, groups = merge_plan(hist, constrained, l)
    return Partitioning(
        part=part_of_run[run],
        n_parts=len(groups),
        method=method,
        merges=[g for g in groups if len(g) > 1],
        runs=n_runs,
    )
