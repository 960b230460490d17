"""Per-group primitives against plain-Python references (both paths of dense_group_ids)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.grouping import dense_group_ids, group_histogram, group_min_max


def first_appearance(labels: list[int]) -> list[int]:
    seen: dict[int, int] = {}
    return [seen.setdefault(x, len(seen)) for x in labels]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=60), st.sampled_from([1, 10**9 + 7]))
def test_dense_group_ids_both_paths(labels, scale):
    # scale 1 takes the counting path (small labels), a large scale the sorting path
    got, n_groups = dense_group_ids(np.array(labels, dtype=np.int64) * scale)
    assert got.tolist() == first_appearance(labels)
    assert n_groups == len(set(labels))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7)), min_size=1, max_size=50))
def test_histogram_and_ranges(pairs):
    group = np.array([g for g, _ in pairs])
    codes = np.array([c for _, c in pairs])
    n_groups = int(group.max()) + 1
    hist = group_histogram(group, codes, n_groups, 8)
    lo, hi = group_min_max(group, codes, n_groups)
    for g in set(group.tolist()):
        members = [c for gg, c in pairs if gg == g]
        assert hist[g].tolist() == [members.count(v) for v in range(8)]
        assert (lo[g], hi[g]) == (min(members), max(members))
