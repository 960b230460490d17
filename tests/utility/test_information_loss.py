"""Discernibility, average class size and NCP: hand-computed values and a per-record reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Hierarchy, Release, Table
from anonlab.utility import (
    average_class_size,
    discernibility,
    measure,
    normalized_certainty_penalty,
)

HIER = Hierarchy([["a", "ab"], ["b", "ab"], ["c", "c"], ["d", "de"], ["e", "de"]])


def small_table() -> Table:
    df = pd.DataFrame(
        {
            "age": [20, 30, 40, 50, 50, 60],
            "job": ["a", "b", "c", "a", "c", "c"],
            "city": ["a", "b", "a", "c", "d", "e"],
            "s": ["x", "y", "x", "y", "x", "y"],
        }
    )
    return Table.from_frame(
        df, quasi_identifiers=["age", "job", "city"], sensitive="s", hierarchies={"city": HIER}
    )


GROUPS = np.array([0, 0, 0, 1, 1, 2])  # sizes 3, 2, 1


def test_discernibility_hand_computed():
    release = Release(small_table(), GROUPS, "generalization")
    result = discernibility(release)
    assert result.value == 3 * 3 + 2 * 2 + 1 * 1
    assert (result.n_rows, result.n_groups, result.suppressed) == (6, 3, 0)
    assert discernibility(release.with_scheme("bucketization")).value == 14
    assert discernibility(Release(small_table(), np.arange(6), "generalization")).value == 6
    assert discernibility(Release(small_table(), np.zeros(6, int), "generalization")).value == 36


def test_average_class_size_hand_computed():
    release = Release(small_table(), GROUPS, "bucketization")
    assert average_class_size(release).value == 2.0
    assert average_class_size(release).normalized is None
    result = average_class_size(release, k=2)
    assert result.normalized == 1.0 and result.k == 2
    assert average_class_size(release, k=4).normalized == 0.5
    with pytest.raises(AnonlabError, match="'k'"):
        average_class_size(release, k=0)


def test_ncp_hand_computed():
    # age domain 20..60 (range 40). job {a,b,c} without hierarchy, city {a..e} with HIER.
    # group 0 (rows 0-2): age 20-40 -> 20/40; job {a,b,c} -> (3-1)/(3-1) = 1;
    #                     city {a,b,a} -> node "ab" covers 2 of 5 -> (2-1)/(5-1) = 1/4.
    # group 1 (rows 3-4): age 50-50 -> 0; job {a,c} -> 1/2; city {c,d} -> root * -> 1.
    # group 2 (row 5):    all 0.
    release = Release(small_table(), GROUPS, "generalization")
    result = normalized_certainty_penalty(release)
    per_group = [(0.5 + 1 + 0.25) / 3, (0 + 0.5 + 1) / 3, 0.0]
    np.testing.assert_allclose(result.per_group, per_group)
    assert result.value == pytest.approx((3 * per_group[0] + 2 * per_group[1]) / 6)
    assert result.per_attribute["age"] == pytest.approx(3 * 0.5 / 6)
    assert result.per_attribute["job"] == pytest.approx((3 * 1 + 2 * 0.5) / 6)
    assert result.per_attribute["city"] == pytest.approx((3 * 0.25 + 2 * 1) / 6)
    assert result.total == pytest.approx(3 * 1.75 + 2 * 1.5)
    # Xu et al.'s printed categorical form: |u| / |A| when |u| > 1.
    xu = normalized_certainty_penalty(release, categorical="xu")
    assert xu.per_attribute["job"] == pytest.approx((3 * 1 + 2 * 2 / 3) / 6)
    assert xu.per_attribute["city"] == pytest.approx((3 * 2 / 5 + 2 * 1) / 6)
    assert xu.per_attribute["age"] == result.per_attribute["age"]


def test_ncp_bounds_and_bucketization():
    t = small_table()
    assert normalized_certainty_penalty(Release(t, np.arange(6), "generalization")).value == 0
    one = normalized_certainty_penalty(Release(t, np.zeros(6, int), "generalization"))
    assert one.value == pytest.approx(1.0)
    bucket = normalized_certainty_penalty(Release(t, GROUPS, "bucketization"))
    assert bucket.value == 0.0 and bucket.total == 0.0 and bucket.scheme == "bucketization"
    with pytest.raises(AnonlabError, match="'categorical'"):
        normalized_certainty_penalty(Release(t, GROUPS, "generalization"), categorical="leaves")


def test_registry_names():
    release = Release(small_table(), GROUPS, "generalization")
    assert measure(release, "discernibility").value == 14
    assert measure(release, "average-class-size", k=3).normalized == pytest.approx(2 / 3)
    assert measure(release, "ncp").to_json()["measure"] == "ncp"
    with pytest.raises(AnonlabError, match="unknown measure 'dm'"):
        measure(release, "dm")
    with pytest.raises(AnonlabError, match="unexpected keyword"):
        measure(release, "discernibility", k=3)
    with pytest.raises(AnonlabError, match="must be an anonlab Release, got Table"):
        measure(small_table(), "discernibility")


# ------------------------------------------------------------------------ per-record reference
def brute_ncp(release: Release) -> float:
    """Per record and attribute, from the group's raw values (not the published form)."""
    t = release.table
    total = 0.0
    for r in range(t.n_rows):
        members = [i for i in range(t.n_rows) if release.group[i] == release.group[r]]
        for q in t.quasi_identifiers:
            vals = [t.column(q)[i] for i in members]
            if t.schema[q].kind.value == "numeric":
                span = max(t.values[q]) - min(t.values[q])
                total += (max(vals) - min(vals)) / span if span else 0.0
                continue
            domain = [str(v) for v in t.values[q]]
            h = t.schema[q].hierarchy
            if h is None:
                covered = len(set(vals))
            else:
                rows = {row[0]: row for row in h.rows()}
                level = next(
                    lv for lv in range(h.height + 1) if len({rows[v][lv] for v in vals}) == 1
                )
                node = rows[vals[0]][level]
                covered = sum(rows[v][level] == node for v in domain)
            total += (covered - 1) / (len(domain) - 1) if len(domain) > 1 else 0.0
    return total / (t.n_rows * len(t.quasi_identifiers))


@st.composite
def releases(draw):
    n = draw(st.integers(1, 12))
    cols, numeric, hierarchies = {}, [], {}
    qis = []
    for i in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["num", "cat", "hier"]))
        name = f"q{i}"
        qis.append(name)
        if kind == "num":
            cols[name] = draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
            numeric.append(name)
        else:
            cols[name] = draw(st.lists(st.sampled_from("abcde"), min_size=n, max_size=n))
            if kind == "hier":
                hierarchies[name] = HIER
    cols["s"] = ["x"] * n
    t = Table.from_frame(
        pd.DataFrame(cols),
        quasi_identifiers=qis,
        sensitive="s",
        numeric=numeric,
        hierarchies=hierarchies,
    )
    group = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return Release(t, np.array(group), "generalization")


@settings(max_examples=150, deadline=None)
@given(release=releases())
def test_ncp_matches_per_record_reference(release):
    result = normalized_certainty_penalty(release)
    assert result.value == pytest.approx(brute_ncp(release), abs=1e-12)
    assert 0.0 <= result.value <= 1.0
    n, d = release.table.n_rows, len(release.table.quasi_identifiers)
    assert result.total == pytest.approx(result.value * n * d, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(release=releases())
def test_discernibility_and_class_size_match_definition(release):
    group = release.group.tolist()
    n = len(group)
    assert discernibility(release).value == sum(group.count(g) for g in group)
    assert average_class_size(release).value == pytest.approx(n / len(set(group)))
