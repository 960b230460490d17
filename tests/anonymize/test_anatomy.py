"""Anatomy (Xiao & Tao, VLDB 2006): group sizes, distinct values, round count, seeds, errors."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.anonymize import anatomy, anonymize, available, parameters
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.table import Table

VALUES = [f"v{i}" for i in range(8)]


def textbook_rounds(counts: list[int], l: int) -> int:
    """Rounds of Anatomize's group-creation step: take one from each of the l largest buckets."""
    c = [x for x in counts if x > 0]
    rounds = 0
    while sum(1 for x in c if x > 0) >= l:
        c.sort(reverse=True)
        for i in range(l):
            c[i] -= 1
        rounds += 1
    return rounds


@st.composite
def eligible(draw, subset: bool = False):
    """(table, l, sensitive_values) with the table l-eligible for the constrained values."""
    n_values = draw(st.integers(1, 6))
    counts = draw(st.lists(st.integers(1, 8), min_size=n_values, max_size=n_values))
    sens = [VALUES[v] for v, c in enumerate(counts) for _ in range(c)]
    sens = draw(st.permutations(sens))
    n = len(sens)
    constrained = VALUES[:n_values]
    if subset:
        constrained = draw(st.lists(st.sampled_from(VALUES[:n_values]), min_size=1, unique=True))
    worst = max(counts[VALUES.index(v)] for v in constrained)
    l = draw(st.integers(1, n // worst))
    qi = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    table = Table.from_frame(
        pd.DataFrame({"q": qi, "s": sens}), quasi_identifiers=["q"], sensitive="s"
    )
    return table, l, (constrained if subset else None)


def _groups(r):
    return [np.flatnonzero(r.group == g) for g in range(r.n_groups)]


@settings(max_examples=150, deadline=None)
@given(eligible(), st.integers(0, 2**32))
def test_groups_are_l_to_2l_minus_1_distinct_values(case, seed):
    table, l, _ = case
    r = anatomy(table, l, seed=seed)
    n = table.n_rows
    sens = table.codes["s"]
    assert r.scheme == "bucketization"
    # every record in exactly one group: one id per record, ids 0..G-1 all used
    assert r.group.shape == (n,)
    assert set(r.group.tolist()) == set(range(r.n_groups))
    assert r.group_sizes.sum() == n
    for members in _groups(r):
        assert l <= len(members) <= 2 * l - 1
        assert len(set(sens[members].tolist())) == len(members)  # pairwise distinct
    counts = np.bincount(sens).tolist()
    assert r.n_groups == textbook_rounds(counts, l)
    assert r.manifest["residue_records"] == n - l * r.n_groups
    assert r.manifest["seed"] == seed and r.manifest["parameters"]["l"] == l
    # frequency l-diversity on the published histogram
    assert np.all(l * r.sensitive_histogram.max(axis=1) <= r.group_sizes)


@settings(max_examples=150, deadline=None)
@given(eligible(subset=True), st.integers(0, 2**32))
def test_sensitive_values_subset(case, seed):
    table, l, constrained = case
    r = anatomy(table, l, sensitive_values=constrained, seed=seed)
    n = table.n_rows
    values = table.values["s"].tolist()
    hist = r.sensitive_histogram
    sizes = r.group_sizes
    assert sizes.sum() == n and set(r.group.tolist()) == set(range(r.n_groups))
    for v in constrained:
        assert np.all(l * hist[:, values.index(v)] <= sizes), v
    assert np.all((sizes >= l) & (sizes <= 2 * l - 1))
    # Exactly Anatomize on the table where every unconstrained record has a value of its own.
    counts = Counter(table.column("s").tolist())
    relabelled = [counts[v] for v in constrained] + [1] * sum(
        c for v, c in counts.items() if v not in constrained
    )
    assert r.n_groups == textbook_rounds(relabelled, l)
    assert r.manifest["parameters"]["sensitive_values"] == list(constrained)


@settings(max_examples=40, deadline=None)
@given(eligible(), st.integers(0, 1000))
def test_same_seed_same_release(case, seed):
    table, l, _ = case
    a = anatomy(table, l, seed=seed)
    b = anatomy(table, l, seed=seed)
    assert np.array_equal(a.group, b.group)
    assert a.manifest == b.manifest


def _table60(qi_seed: int = 0) -> Table:
    rng = np.random.default_rng(qi_seed)
    sens = np.repeat(VALUES[:6], 10)
    return Table.from_frame(
        pd.DataFrame({"q": rng.integers(0, 100, 60), "s": sens}),
        quasi_identifiers=["q"],
        sensitive="s",
    )


def test_different_seeds_differ(partition_of):
    table = _table60()
    parts = [partition_of(anatomy(table, 3, seed=s).group) for s in range(5)]
    assert len(set(parts)) == 5


def test_groups_do_not_depend_on_quasi_identifiers():
    # Simulatable (Jin et al. §2.8): same sensitive column and seed -> same groups, whatever QI.
    a = anatomy(_table60(0), 4, seed=8)
    b = anatomy(_table60(1), 4, seed=8)
    assert not np.array_equal(a.table.codes["q"], b.table.codes["q"])
    assert np.array_equal(a.group, b.group)


def test_ineligible_table_names_value_and_largest_l():
    table = Table.from_frame(
        pd.DataFrame({"q": range(10), "s": list("aaaaabbbcc")}),
        quasi_identifiers=["q"],
        sensitive="s",
    )
    assert anatomy(table, 2).n_groups == 5
    with pytest.raises(IneligibleError) as err:
        anatomy(table, 3)
    msg = str(err.value)
    assert "'a'" in msg and "5 of 10" in msg
    assert "the largest ℓ this table allows is 2" in msg
    # Constraining only b and c makes l = 3 possible; l = 4 is not (b: 3 of 10).
    r = anatomy(table, 3, sensitive_values=["b", "c"])
    assert r.n_groups == 3
    with pytest.raises(IneligibleError, match=r"'b'.*largest ℓ this table allows is 3"):
        anatomy(table, 4, sensitive_values=["b", "c"])


def test_l_equal_one_gives_singletons():
    table = _table60()
    r = anatomy(table, 1, seed=4)
    assert r.n_groups == 60 and np.all(r.group_sizes == 1)
    assert r.manifest["residue_records"] == 0


@pytest.mark.parametrize("bad", [0, -2, "x", 2.5, None, True])
def test_bad_l_raises(bad):
    with pytest.raises(AnonlabError, match="'l'"):
        anatomy(_table60(), bad)


def test_bad_seed_and_missing_sensitive_raise():
    with pytest.raises(AnonlabError, match="'seed'"):
        anatomy(_table60(), 2, seed=-1)
    no_sens = Table.from_frame(pd.DataFrame({"q": [1, 2]}), quasi_identifiers=["q"])
    with pytest.raises(AnonlabError, match="sensitive"):
        anatomy(no_sens, 2)
    with pytest.raises(AnonlabError, match="'nope'"):
        anatomy(_table60(), 2, sensitive_values=["nope"])


def test_registry_runs_anatomy():
    assert "anatomy" in available()
    assert parameters("anatomy") == ["l", "sensitive_values", "as_one_value", "seed"]
    table = _table60()
    r = anonymize(table, "anatomy", l=2, seed=1, sensitive_values=None)
    assert np.array_equal(r.group, anatomy(table, 2, seed=1).group)
    with pytest.raises(AnonlabError, match=r"does not take parameter\(s\) \['k'\]"):
        anonymize(table, "anatomy", l=2, k=3)
    with pytest.raises(AnonlabError, match="unknown algorithm 'anatomi'"):
        anonymize(table, "anatomi", l=2)


def test_empty_sensitive_values_constrains_nothing():
    # With no value constrained, 'x' (3 of 4) once raised IneligibleError: the eligibility
    # check took value 0 from an argmax over an all -1 array.
    table = Table.from_frame(
        pd.DataFrame({"q": [1, 2, 3, 4, 5], "s": ["x", "x", "x", "z", "x"]}),
        quasi_identifiers=["q"],
        sensitive="s",
    )
    r = anatomy(table, 2, sensitive_values=[], seed=1)
    assert r.n_groups == 2 and sorted(r.group_sizes.tolist()) == [2, 3]
    with pytest.raises(IneligibleError, match="'x'"):
        anatomy(table, 2)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 4), st.integers(0, 10_000), st.integers(20, 80))
def test_value_set_protected_as_one_value(l, seed, n):
    rng = np.random.default_rng(seed)
    values = np.r_[list("abcdefgh"), rng.choice(list("abcdefgh"), n - 8)]  # every value occurs
    df = pd.DataFrame({"q": rng.integers(0, 5, n), "s": values})
    table = Table.from_frame(df, quasi_identifiers=["q"], sensitive="s")
    chosen = ["a", "b", "c"]
    in_set = np.isin(values, chosen)
    if l * in_set.sum() > n:
        with pytest.raises(IneligibleError):
            anatomy(table, l, sensitive_values=chosen, as_one_value=True, seed=seed)
        return
    release = anatomy(table, l, sensitive_values=chosen, as_one_value=True, seed=seed)
    per_group = np.bincount(release.group, weights=in_set, minlength=release.n_groups)
    assert (l * per_group <= release.group_sizes).all()  # the set counts as one value
    assert release.manifest["parameters"]["as_one_value"] is True


def test_as_one_value_needs_the_set():
    table = Table.from_frame(
        pd.DataFrame({"q": [1, 2, 3, 4], "s": list("abcd")}), quasi_identifiers=["q"], sensitive="s"
    )
    with pytest.raises(AnonlabError, match="as_one_value needs sensitive_values"):
        anatomy(table, 2, as_one_value=True)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=0, max_size=200),
    st.booleans(),
)
def test_order_by_bucket_then_key_is_lexsort(pairs, wide):
    """The two-sort order equals np.lexsort((key, bucket)), ties in the key included (index
    order), with bucket codes that fit uint8 and, with ``wide``, ones that need uint16."""
    from anonlab.anonymize.anatomy import _order_by_bucket_then_key

    scale = 300 if wide else 1
    bucket = np.array([b * scale for b, _ in pairs], dtype=np.int64)
    key = np.array([k / 4 for _, k in pairs], dtype=np.float64)
    got = _order_by_bucket_then_key(bucket, key, 3 * scale + 1)
    assert np.array_equal(got, np.lexsort((key, bucket)))
