"""(c,k)-safety (Martin et al., ICDE 2007, Def. 13)."""

from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from anonlab import AnonlabError, Release, Table
from anonlab.attacks import maximum_disclosure
from anonlab.models.ck_safety import ck_safety


def make_release(buckets, scheme="generalization") -> Release:
    values = [str(v) for b in buckets for v in b]
    groups = [i for i, b in enumerate(buckets) for _ in b]
    df = pd.DataFrame({"q": np.arange(len(values)), "s": values})
    table = Table.from_frame(df, quasi_identifiers=["q"], sensitive="s")
    return Release(table, np.array(groups), scheme)


FIG3 = [["flu", "lc", "mumps", "flu", "lc"], ["flu", "bc", "flu", "hd", "oc"]]
CROSS = [list("aaaaaaabbbbbbcd"), list("xxxxxxxxyyyzzww")]


def test_figure3_strict_threshold():
    release = make_release(FIG3)
    r = ck_safety(release, c=F(2, 3), k=1, exact=True)
    assert not r.holds  # 2/3 is not below 2/3
    assert r.value == pytest.approx(2 / 3)
    assert r.per_group.tolist() == pytest.approx([2 / 3, 4 / 7])
    assert r.violating_groups.tolist() == [0] and r.violating_records == 5
    assert r.details["max_disclosure"] == "2/3"
    assert r.details["target_group"] == 0 and len(r.details["knowledge"]) == 1
    ok = ck_safety(release, c=0.7, k=1)
    assert ok.holds and ok.n_violating_groups == 0
    assert ck_safety(release, c=0.6, k=1).violating_groups.tolist() == [0]
    assert ck_safety(release, c=0.5, k=1).violating_groups.tolist() == [0, 1]
    json.dumps(ok.to_json(), allow_nan=False)
    assert "ck-safety" in ok.summary()


def test_per_group_counts_knowledge_spent_in_other_groups():
    """Target in group 1 with both antecedents about one person of group 0: 60/67."""
    r = ck_safety(make_release(CROSS), c=0.9, k=2)
    assert r.holds
    assert r.per_group.tolist() == pytest.approx([15 / 17, 60 / 67])
    assert r.value == pytest.approx(60 / 67) and r.worst_group == 1
    assert not ck_safety(make_release(CROSS), c=0.89, k=2).holds


def test_c_one_and_k_zero():
    release = make_release([list("aab"), list("ab")])
    assert not ck_safety(release, c=1, k=1).holds  # disclosure 1 is not below 1
    r = ck_safety(release, c=1, k=0)
    assert r.holds and r.value == pytest.approx(2 / 3)


def test_value_equals_maximum_disclosure_and_monotone_under_merging():
    rng = np.random.default_rng(5)
    for _ in range(30):
        buckets = [list(rng.choice(list("abcdef"), size=rng.integers(2, 9))) for _ in range(4)]
        k = int(rng.integers(0, 5))
        release = make_release(buckets)
        r = ck_safety(release, c=0.8, k=k)
        assert r.value == pytest.approx(float(maximum_disclosure(release, k).value))
        merged = make_release([buckets[0] + buckets[1], *buckets[2:]])
        if r.holds:  # Theorem 14: a coarser release stays safe
            assert ck_safety(merged, c=0.8, k=k).holds


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"c": 0.5, "k": -1}, "'k' must be an integer >= 0"),
        ({"c": 0, "k": 1}, r"'c' must be a number in \(0, 1\]"),
        ({"c": 1.5, "k": 1}, "'c' must be a number in"),
        ({"c": -0.1, "k": 1}, "'c' must be a number in"),
        ({"c": "high", "k": 1}, "'c' must be a number"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(AnonlabError, match=match):
        ck_safety(make_release(FIG3), **kwargs)
