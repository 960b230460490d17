"""Matching ℓ-diversity (Li & Li, ICDE 2008): the notes' worked examples and brute force.

The reference for the matching reading enumerates every one-to-one assignment of a group's
sensitive multiset to its members (all permutations of the slots) and collects, per member, the
values it receives in the assignments where every member gets a value it can take (Definition 1
read literally). The compiled SCC test must agree with it exactly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Release, Table, models
from anonlab.models.matching_l_diversity import (
    matching_l_diversity,
    matching_possible_values,
    member_valid_values,
    possible_values,
    simple_possible_values,
)

# Table I of the paper with the groups of Table II (notes §10, E1).
SEX = list("FFMMFMMMM")
DISEASE = ["OC", "OC", "PC", "Flu", "HD", "HD", "HD", "Flu", "Flu"]
TABLE_II_GROUPS = [0, 0, 0, 1, 1, 1, 2, 2, 2]


def table_one() -> Table:
    df = pd.DataFrame(
        {
            "zip": "47677 47602 47678 47905 47909 47906 47605 47673 47607".split(),
            "age": [29, 22, 27, 43, 52, 47, 30, 36, 32],
            "sex": SEX,
            "disease": DISEASE,
        }
    )
    return Table.from_frame(df, quasi_identifiers=["zip", "age", "sex"], sensitive="disease")


def male_not_oc(table: Table) -> np.ndarray:
    """The rule Sex = M ⇒ ¬Ovarian Cancer as an incompatibility matrix."""
    values = list(table.values["disease"])
    inc = np.zeros((table.n_rows, len(values)), dtype=bool)
    inc[table.column("sex") == "M", values.index("OC")] = True
    return inc


def as_sets(table: Table, possible: np.ndarray) -> list[set[str]]:
    values = table.values["disease"]
    return [set(values[row]) for row in possible]


# ---------------------------------------------------------------------------------------------
# Worked examples
# ---------------------------------------------------------------------------------------------


def test_table_two_matching_versus_simple():
    """E4: with Sex = M ⇒ ¬OC, group 1 pins all three members by matching, one by exclusion."""
    t = table_one()
    inc = male_not_oc(t)
    codes = t.codes["disease"]
    matching, consistent = matching_possible_values(TABLE_II_GROUPS, codes, inc)
    simple = simple_possible_values(TABLE_II_GROUPS, codes, inc)
    assert consistent.all()
    assert as_sets(t, matching)[:3] == [{"OC"}, {"OC"}, {"PC"}]
    assert as_sets(t, simple)[:3] == [{"OC", "PC"}, {"OC", "PC"}, {"PC"}]
    assert all(s == {"Flu", "HD"} for s in as_sets(t, matching)[3:])
    assert int((matching.sum(axis=1) < 2).sum()) == 3
    assert int((simple.sum(axis=1) < 2).sum()) == 1
    assert (possible_values(TABLE_II_GROUPS, codes, inc, "simple") == simple).all()


def test_table_two_as_a_model_check():
    t = table_one()
    rel = Release(t, TABLE_II_GROUPS, "bucketization")
    r = models.check(rel, "matching-l-diversity", l=2, incompatibility=male_not_oc(t))
    assert not r.holds
    assert r.per_group.tolist() == [1, 2, 2]
    assert r.violating_groups.tolist() == [0]
    assert r.violating_records == 3
    assert r.details["vulnerable_records"] == 3
    assert r.details["pinned_records"] == 3
    s = models.check(
        rel, "matching-l-diversity", l=2, incompatibility=male_not_oc(t), reading="simple"
    )
    assert s.details["vulnerable_records"] == 1 and s.per_group.tolist() == [1, 2, 2]
    # Without background knowledge the release is 2-diverse in both readings.
    none = matching_l_diversity(rel, l=2, incompatibility=np.zeros_like(male_not_oc(t)))
    assert none.holds and none.value == 2


def test_paper_counterexample_simple_holds_matching_fails():
    """E5: one woman (OC) and three men (d1, d2, d3); Male ⇒ ¬OC; ℓ = 3."""
    codes = np.array([0, 1, 2, 3])  # 0 = OC, 1..3 = diseases of both sexes
    inc = np.zeros((4, 4), dtype=bool)
    inc[1:, 0] = True
    group = np.zeros(4, dtype=np.int64)
    simple = simple_possible_values(group, codes, inc).sum(axis=1)
    matching, _ = matching_possible_values(group, codes, inc)
    assert simple.tolist() == [4, 3, 3, 3]  # the simple requirement holds at ℓ = 3
    assert matching[0].tolist() == [True, False, False, False]  # the woman must have OC
    assert matching[1:, 1:].all() and not matching[1:, 0].any()


def test_member_valid_values_of_a_subset():
    t = table_one()
    possible, ok = member_valid_values([0, 1, 2], t.codes["disease"], male_not_oc(t))
    assert ok and as_sets(t, possible) == [{"OC"}, {"OC"}, {"PC"}]


def test_generalization_scheme_is_read_as_buckets():
    t = table_one()
    inc = male_not_oc(t)
    gen = Release(t, TABLE_II_GROUPS, "generalization")
    buck = Release(t, TABLE_II_GROUPS, "bucketization")
    a = matching_l_diversity(gen, l=2, incompatibility=inc)
    b = matching_l_diversity(buck, l=2, incompatibility=inc)
    assert a.per_group.tolist() == b.per_group.tolist()


# ---------------------------------------------------------------------------------------------
# Brute force
# ---------------------------------------------------------------------------------------------


def brute_force(group: np.ndarray, codes: np.ndarray, inc: np.ndarray) -> tuple[np.ndarray, list]:
    """Every one-to-one assignment of each group's slots to its members (Definition 1)."""
    n, d = inc.shape
    possible = np.zeros((n, d), dtype=bool)
    consistent = []
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        slots = codes[members]
        any_world = False
        for perm in itertools.permutations(range(len(members))):
            values = slots[list(perm)]
            if all(not inc[m, v] for m, v in zip(members, values, strict=True)):
                any_world = True
                possible[members, values] = True
        consistent.append(any_world)
    return possible, consistent


@st.composite
def groups_with_knowledge(draw, own_allowed: bool):
    n_values = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, 6), min_size=1, max_size=4))
    n = sum(sizes)
    group = np.repeat(np.arange(len(sizes)), sizes)
    codes = np.array(draw(st.lists(st.integers(0, n_values - 1), min_size=n, max_size=n)))
    density = draw(st.sampled_from([0.2, 0.4, 0.7]))
    seed = draw(st.integers(0, 2**31))
    inc = np.random.default_rng(seed).random((n, n_values)) < density
    if own_allowed:
        inc[np.arange(n), codes] = False
    perm = np.random.default_rng(seed + 1).permutation(n)  # groups need not be contiguous
    return group[perm], codes[perm], inc[perm]


@settings(max_examples=300, deadline=None)
@given(groups_with_knowledge(own_allowed=True))
def test_scc_equals_brute_force(case):
    group, codes, inc = case
    expected, consistent = brute_force(group, codes, inc)
    assert all(consistent)  # the identity assignment is always a world
    got, ok = matching_possible_values(group, codes, inc)
    assert ok.all()
    assert (got == expected).all()
    assert (got <= simple_possible_values(group, codes, inc)).all()  # matching ⊆ simple


@settings(max_examples=300, deadline=None)
@given(groups_with_knowledge(own_allowed=False))
def test_scc_equals_brute_force_when_own_values_are_excluded(case):
    """Perturbed values or foreign knowledge: a perfect matching must be searched for."""
    group, codes, inc = case
    expected, consistent = brute_force(group, codes, inc)
    got, ok = matching_possible_values(group, codes, inc)
    present = np.unique(group)
    assert ok[present].tolist() == consistent
    simple = simple_possible_values(group, codes, inc)
    for g, c in zip(present, consistent, strict=True):
        rows = group == g
        # consistent groups: exactly the brute force; others fall back to the simple reading
        assert (got[rows] == (expected[rows] if c else simple[rows])).all()


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


def test_bad_parameters():
    t = table_one()
    rel = Release(t, TABLE_II_GROUPS, "bucketization")
    with pytest.raises(AnonlabError, match="shape"):
        matching_l_diversity(rel, l=2, incompatibility=np.zeros((3, 4), dtype=bool))
    with pytest.raises(AnonlabError, match="booleans"):
        matching_l_diversity(rel, l=2, incompatibility=np.full((9, 4), 2))
    with pytest.raises(AnonlabError, match="'l'"):
        matching_l_diversity(rel, l=0, incompatibility=male_not_oc(t))
    with pytest.raises(AnonlabError, match="reading"):
        matching_l_diversity(rel, l=2, incompatibility=male_not_oc(t), reading="frequency")
    with pytest.raises(AnonlabError, match="incompatibility"):
        models.check(rel, "matching-l-diversity", l=2)
    with pytest.raises(AnonlabError, match="same records"):
        matching_possible_values([0, 0], [0, 1, 1], np.zeros((3, 2), dtype=bool))
