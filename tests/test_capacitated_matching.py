"""capacitated_matching against brute-force enumeration on tiny instances."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.release_io import capacitated_matching


def brute_force_feasible(candidates: list[list[int]], capacity: list[int]) -> bool:
    for choice in itertools.product(*candidates):
        if all(choice.count(s) <= capacity[s] for s in set(choice)):
            return True
    return False


@st.composite
def instances(draw):
    n_slots = draw(st.integers(1, 4))
    capacity = draw(st.lists(st.integers(0, 2), min_size=n_slots, max_size=n_slots))
    n_items = draw(st.integers(1, 6))
    candidates = [
        sorted(draw(st.sets(st.integers(0, n_slots - 1), max_size=n_slots))) for _ in range(n_items)
    ]
    return candidates, capacity


@settings(max_examples=400, deadline=None)
@given(instances())
def test_matches_brute_force(instance):
    candidates, capacity = instance
    assigned, failed = capacitated_matching(
        [np.array(c, dtype=np.int64) for c in candidates], np.array(capacity)
    )
    feasible = brute_force_feasible(candidates, capacity)
    assert (failed is None) == feasible
    if failed is None:
        for item, slot in enumerate(assigned.tolist()):
            assert slot in candidates[item]
        counts = np.bincount(assigned, minlength=len(capacity))
        assert (counts <= np.array(capacity)).all()


def test_needs_an_augmenting_path():
    # Greedy (fewest candidates first, most room) places A on 0 and B on 1; C (candidates 0, 1
    # and the empty slot 3) is then stuck until A moves to slot 2.
    candidates = [np.array([0, 2]), np.array([1, 2]), np.array([0, 1, 3])]
    assigned, failed = capacitated_matching(candidates, np.array([1, 1, 1, 0]))
    assert failed is None
    assert assigned.tolist() == [2, 1, 0]
