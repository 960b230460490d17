"""Release: dense group ids, published histograms, generalization labels, the adversary's view."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.release import PublishedView, Release
from anonlab.table import Table

CITY = Hierarchy(
    [
        ["Paris", "FR", "EU"],
        ["Lyon", "FR", "EU"],
        ["Berlin", "DE", "EU"],
        ["Tokyo", "JP", "AS"],
        ["Osaka", "JP", "AS"],
    ],
    name="city",
)


@pytest.fixture
def table():
    df = pd.DataFrame(
        {
            "age": [20, 25, 30, 35, 40, 40, 50, 60],
            "city": ["Paris", "Lyon", "Berlin", "Paris", "Tokyo", "Paris", "Osaka", "Tokyo"],
            "sex": ["M", "F", "M", "F", "M", "M", "F", "F"],
            "s": ["flu", "hiv", "flu", "flu", "cold", "hiv", "cold", "flu"],
        }
    )
    return Table.from_frame(
        df, quasi_identifiers=["age", "city", "sex"], sensitive="s", hierarchies={"city": CITY}
    )


GROUPS = [7, 7, 3, 3, 9, 9, 4, 4]


def test_group_ids_are_renumbered_dense_by_first_appearance(table):
    r = Release(table, np.array(GROUPS), "generalization")
    assert r.group.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert r.n_groups == 4
    assert r.group_sizes.tolist() == [2, 2, 2, 2]
    assert r.manifest["groups"] == 4 and r.manifest["rows"] == 8
    r2 = Release(table, np.array([5, -1, 5, 100, -1, 5, 100, 0]), "bucketization")
    assert r2.group.tolist() == [0, 1, 0, 2, 1, 0, 2, 3]


def test_bad_release_arguments_raise(table):
    with pytest.raises(AnonlabError, match="scheme"):
        Release(table, np.zeros(8, int), "suppression")
    with pytest.raises(AnonlabError, match=r"one id per record \(8\)"):
        Release(table, np.zeros(7, int), "generalization")
    no_sens = Table.from_frame(pd.DataFrame({"a": [1, 2]}), quasi_identifiers=["a"])
    with pytest.raises(AnonlabError, match="sensitive"):
        Release(no_sens, np.zeros(2, int), "bucketization")
    assert Release(no_sens, np.zeros(2, int), "generalization").n_groups == 1  # plain k-anon.


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_sensitive_histogram_equals_brute_force(data):
    n = data.draw(st.integers(1, 30))
    sens = data.draw(st.lists(st.sampled_from("abcde"), min_size=n, max_size=n))
    labels = data.draw(st.lists(st.integers(-3, 6), min_size=n, max_size=n))
    t = Table.from_frame(
        pd.DataFrame({"q": range(n), "s": sens}), quasi_identifiers=["q"], sensitive="s"
    )
    r = Release(t, np.array(labels), "bucketization")
    values = list(t.values["s"])
    # brute force: groups numbered by first appearance
    ids: dict[int, int] = {}
    for g in labels:
        ids.setdefault(g, len(ids))
    expected = np.zeros((len(ids), len(values)), dtype=int)
    for g, v in zip(labels, sens, strict=True):
        expected[ids[g], values.index(v)] += 1
    assert np.array_equal(r.sensitive_histogram, expected)
    assert r.group.tolist() == [ids[g] for g in labels]
    assert r.group_sizes.tolist() == expected.sum(axis=1).tolist()


def test_generalization_labels(table):
    r = Release(table, np.array(GROUPS), "generalization")
    gen = r.generalization
    assert gen["age"].labels.tolist() == ["[20-25]", "[30-35]", "40", "[50-60]"]
    # city: {Paris, Lyon} -> FR; {Berlin, Paris} -> EU; {Tokyo, Paris} -> *; {Osaka, Tokyo} -> JP
    assert gen["city"].labels.tolist() == ["FR", "EU", "*", "JP"]
    # sex without a hierarchy: the set of values present (sorted by code), or the value itself
    assert gen["sex"].labels.tolist() == ["{F,M}", "{F,M}", "M", "F"]


def test_generalization_cover(table):
    r = Release(table, np.array(GROUPS), "generalization")
    gen = r.generalization
    city_values = list(table.values["city"])  # leaf order of the hierarchy
    assert city_values == ["Paris", "Lyon", "Berlin", "Tokyo", "Osaka"]
    covered = [[city_values[j] for j in np.flatnonzero(row)] for row in gen["city"].mask]
    assert covered == [
        ["Paris", "Lyon"],
        ["Paris", "Lyon", "Berlin"],
        city_values,
        ["Tokyo", "Osaka"],
    ]
    assert gen["city"].cover_size().tolist() == [2, 3, 5, 2]
    ages = table.values["age"].tolist()
    assert [ages[a] for a in gen["age"].lo] == [20, 30, 40, 50]
    assert [ages[b] for b in gen["age"].hi] == [25, 35, 40, 60]
    assert gen["age"].cover_size().tolist() == [2, 2, 1, 2]
    # a predicate selecting ages 25 and 50: covered once by groups 0 and 3
    pred = np.isin(table.values["age"], [25, 50])
    assert gen["age"].covered(pred).tolist() == [1, 0, 0, 1]
    pred_city = np.isin(table.values["city"], ["Lyon", "Tokyo"])
    assert gen["city"].covered(pred_city).tolist() == [1, 1, 2, 1]


def test_single_record_groups_publish_exact_values(table):
    r = Release(table, np.arange(8), "generalization")
    gen = r.generalization
    assert gen["age"].labels.tolist() == [str(a) for a in table.column("age")]
    assert gen["city"].labels.tolist() == table.column("city").tolist()
    assert gen["sex"].labels.tolist() == table.column("sex").tolist()


def _perturbed(table):
    orig = table.codes["s"]
    published = orig.copy()
    published[[0, 2]] = table.values["s"].tolist().index("cold")  # two flu -> cold
    return Release(
        table,
        np.array(GROUPS),
        "generalization",
        {"algorithm": "mask", "seed": 3},
        published_sensitive=published,
    )


def test_published_view_hides_original_sensitive_codes(table):
    r = _perturbed(table)
    orig = table.codes["s"]
    assert r.manifest["perturbed_records"] == 2
    assert np.array_equal(r.sensitive_codes, r.published_sensitive)
    view = r.published()
    assert isinstance(view, PublishedView)
    names = {f.name for f in dataclasses.fields(view)}
    assert not names & {"table", "row_id", "codes", "published_sensitive"}
    assert not hasattr(view, "table") and not hasattr(view, "row_id")
    # No array in the view is the original sensitive column.
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        arrays = value.values() if isinstance(value, dict) else [value]
        for a in arrays:
            if isinstance(a, np.ndarray) and a.shape == orig.shape:
                assert not np.array_equal(a, orig), f.name
    assert set(view.qi_codes) == {"age", "city", "sex"}
    # The view's histogram is the published one, which differs from the original one.
    values = table.values["s"].tolist()
    cold, flu = values.index("cold"), values.index("flu")
    assert view.sensitive_histogram[0, cold] == 1 and view.sensitive_histogram[0, flu] == 0
    original_hist = Release(table, np.array(GROUPS), "generalization").sensitive_histogram
    assert original_hist[0, flu] == 1
    assert not np.array_equal(view.sensitive_histogram, original_hist)
    assert view.sensitive_values.tolist() == values
    assert view.generalization is not None and view.scheme == "generalization"


def test_bucketized_view_has_no_generalization(table):
    view = Release(table, np.array(GROUPS), "bucketization").published()
    assert view.generalization is None
    assert view.n_groups == 4 and view.group.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]


def test_with_scheme_keeps_groups_and_perturbation(table):
    r = _perturbed(table)
    b = r.with_scheme("bucketization")
    assert b.scheme == "bucketization" and b.manifest["scheme"] == "bucketization"
    assert np.array_equal(b.group, r.group)
    assert np.array_equal(b.published_sensitive, r.published_sensitive)
    assert b.manifest["seed"] == 3 and b.manifest["algorithm"] == "mask"


def test_manifest_records_provenance(table):
    r = Release(table, np.array(GROUPS), "generalization", {"algorithm": "x", "seed": 5})
    m = r.manifest
    assert m["algorithm"] == "x" and m["seed"] == 5 and m["parameters"] == {}
    assert m["scheme"] == "generalization" and m["perturbed_records"] == 0
    assert [a["name"] for a in m["schema"]] == ["age", "city", "sex", "s"]
    assert m["schema"][1]["hierarchy_height"] == 3
    assert "anonlab_version" in m
    assert r.sensitive_mask(["hiv"]).tolist() == [False, False, True]


def test_published_sensitive_is_validated_and_frozen(table):
    with pytest.raises(AnonlabError, match="published_sensitive"):
        Release(table, np.array(GROUPS), "generalization", published_sensitive=np.zeros(7, int))
    with pytest.raises(AnonlabError, match=r"published_sensitive must hold one code in 0\.\.2"):
        Release(table, np.array(GROUPS), "generalization", published_sensitive=np.full(8, 3))
    with pytest.raises(AnonlabError, match="published_sensitive"):
        Release(table, np.array(GROUPS), "generalization", published_sensitive=np.full(8, -1))
    given = table.codes["s"].copy()
    r = Release(table, np.array(GROUPS), "generalization", published_sensitive=given)
    given[0] = 0 if given[0] else 1  # the release keeps its own copy
    assert np.array_equal(r.published_sensitive, table.codes["s"])
    assert r.manifest["perturbed_records"] == 0
    # Arrays shared with attacks cannot be changed in place.
    for arr in (r.group, r.published_sensitive, r.group_sizes, r.sensitive_histogram):
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 1
