"""Per-group statistics over integer codes: sizes, histograms, ranges. No Python loop over rows.

These are the primitives every check, attack and utility measure builds on (design.md: "per-group
histograms of the sensitive attribute are one ``np.bincount(group * n_values + sa)``").
"""

from __future__ import annotations

import numpy as np


def group_sizes(group: np.ndarray, n_groups: int) -> np.ndarray:
    """Number of records in each group, shape (n_groups,), dtype=int64."""
    return np.bincount(group, minlength=n_groups)


def group_histogram(
    group: np.ndarray, codes: np.ndarray, n_groups: int, n_values: int
) -> np.ndarray:
    """Counts of each value in each group, shape (n_groups, n_values), dtype=int64."""
    flat = group.astype(np.int64) * n_values + codes
    return np.bincount(flat, minlength=n_groups * n_values).reshape(n_groups, n_values)


def count_dtype(max_count: int) -> np.dtype:
    """The narrowest unsigned integer dtype that holds every count up to ``max_count``
    (uint8 for groups of at most 255 records): a per-group histogram stored in it is 8x
    smaller than in int64 for the small groups anonymizers make."""
    return np.min_scalar_type(max(int(max_count), 0))


def compact_group_histogram(
    group: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    n_values: int,
    max_count: int,
    chunk: int = 1 << 20,
) -> np.ndarray:
    """:func:`group_histogram` in :func:`count_dtype` ``(max_count)`` instead of int64.

    ``max_count`` bounds every cell (the largest group size does). The counts are added with
    ``np.add.at`` over blocks of ``chunk`` records, so no (n_groups, n_values) int64 array and no
    int64 copy of all the flat indices is ever made: at 10 million records in 2.5 million groups
    of 46 values the int64 histogram is 877 MiB and this one (uint8) 110 MiB.
    """
    out = np.zeros(n_groups * n_values, dtype=count_dtype(max_count))
    for start in range(0, len(group), chunk):
        flat = group[start : start + chunk].astype(np.int64)
        flat *= n_values
        flat += codes[start : start + chunk]
        np.add.at(out, flat, 1)
    return out.reshape(n_groups, n_values)


def row_blocks(n_rows: int, width: int, cells: int = 1 << 20) -> list[slice]:
    """Consecutive slices covering ``range(n_rows)``, each of about ``cells / width`` rows (at
    least one), so that a per-block temporary of shape (rows, width) stays near ``cells``
    elements (8 MiB in float64) however many groups there are."""
    step = max(1, cells // max(int(width), 1))
    return [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def group_min_max(
    group: np.ndarray, codes: np.ndarray, n_groups: int, order: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest code in each (non-empty) group. ``order``: ``np.argsort(group)``
    when the caller already has it (one sort for several attributes)."""
    if order is None:
        order = np.argsort(group, kind="stable")
    g_sorted = group[order]
    c_sorted = codes[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    lo = np.zeros(n_groups, dtype=codes.dtype)
    hi = np.zeros(n_groups, dtype=codes.dtype)
    ids = g_sorted[starts]
    lo[ids] = np.minimum.reduceat(c_sorted, starts)
    hi[ids] = np.maximum.reduceat(c_sorted, starts)
    return lo, hi


def dense_group_ids(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Renumber arbitrary integer labels to 0..G-1 in order of first appearance."""
    labels = np.asarray(labels)
    n = len(labels)
    if (
        n
        and np.issubdtype(labels.dtype, np.integer)
        and labels.min() >= 0
        and labels.max() < 4 * n + 1024
    ):
        # Small non-negative labels: counting passes instead of a sort.
        first = np.full(int(labels.max()) + 1, n, dtype=np.int64)
        first[labels[::-1]] = np.arange(n - 1, -1, -1)  # the last write is the first occurrence
        used = first < n
        # the first occurrences in position order are the labels in order of first appearance
        is_first = np.zeros(n, dtype=bool)
        is_first[first[used]] = True
        rank = np.empty(len(first), dtype=np.int64)
        n_used = int(used.sum())
        rank[labels[is_first]] = np.arange(n_used)
        return rank[labels].astype(np.int32), n_used
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse].astype(np.int32), len(first)
