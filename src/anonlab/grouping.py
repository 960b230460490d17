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
