"""Prosecutor re-identification risk: hand-computed values and the definition per record."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Release, Table
from anonlab.utility import measure, prosecutor_risk
from anonlab.utility.risk import DEFAULT_THRESHOLD


def table(n: int = 6) -> Table:
    df = pd.DataFrame({"age": np.arange(n) * 10, "s": ["x", "y"] * (n // 2) + ["x"] * (n % 2)})
    return Table.from_frame(df, quasi_identifiers=["age"], sensitive="s")


GROUPS = np.array([0, 0, 0, 1, 1, 2])  # sizes 3, 2, 1


@pytest.mark.parametrize("scheme", ["generalization", "bucketization"])
def test_hand_computed(scheme):
    result = prosecutor_risk(Release(table(), GROUPS, scheme))
    np.testing.assert_allclose(result.per_record, [1 / 3, 1 / 3, 1 / 3, 1 / 2, 1 / 2, 1])
    assert result.highest == 1.0 == result.value
    assert result.average == pytest.approx(3 / 6)
    assert result.threshold == DEFAULT_THRESHOLD == 0.2
    assert result.records_at_risk == 1.0 and result.n_records_at_risk == 6
    assert result.scheme == scheme


def test_threshold_is_strict():
    release = Release(table(), GROUPS, "generalization")
    assert prosecutor_risk(release, threshold=0.4).n_records_at_risk == 3  # sizes 2 and 1
    assert prosecutor_risk(release, threshold=1 / 3).n_records_at_risk == 3  # 1/3 not above
    assert prosecutor_risk(release, threshold=0.5).n_records_at_risk == 1
    assert prosecutor_risk(release, threshold=1.0).records_at_risk == 0.0
    five = Release(table(10), np.arange(10) // 5, "generalization")  # groups of 5: risk = 0.2
    assert prosecutor_risk(five).records_at_risk == 0.0


@pytest.mark.parametrize("bad", [-0.1, 1.5, "high", float("nan")])
def test_bad_threshold_names_the_parameter(bad):
    with pytest.raises(AnonlabError, match="'threshold'"):
        prosecutor_risk(Release(table(), GROUPS, "generalization"), threshold=bad)


def test_registry_and_json():
    result = measure(Release(table(), GROUPS, "bucketization"), "prosecutor-risk", threshold=0.4)
    js = result.to_json()
    assert js["measure"] == "prosecutor-risk" and js["records_at_risk"] == 0.5
    assert js["scheme"] == "bucketization"


@settings(max_examples=100, deadline=None)
@given(
    groups=st.lists(st.integers(0, 6), min_size=1, max_size=30),
    threshold=st.floats(0, 1),
)
def test_matches_definition(groups, threshold):
    n = len(groups)
    release = Release(table(n), np.array(groups), "generalization")
    result = prosecutor_risk(release, threshold=threshold)
    per_record = [1 / groups.count(g) for g in groups]
    np.testing.assert_allclose(result.per_record, per_record)
    assert result.highest == pytest.approx(max(per_record))
    assert result.average == pytest.approx(sum(per_record) / n)
    assert result.average == pytest.approx(len(set(groups)) / n)
    assert result.n_records_at_risk == sum(p > threshold for p in per_record)
