"""COUNT-query workload error: hand-computed values, a brute-force reference, the generator."""

from __future__ import annotations

from unittest import mock

import anonlab_utility_test_support as _support  # tests/utility/conftest.py
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Hierarchy, Release, Table
from anonlab.utility import (
    Workload,
    actual_counts,
    available,
    estimated_counts,
    generate_workload,
    measure,
    workload_error,
)
from anonlab.utility.workload import answers as wmod  # the settings the answers read
from anonlab.utility.workload import predicate_size


# ------------------------------------------------------------------------------------ fixtures
def anatomy_table() -> Table:
    """Xiao & Tao's running example (Anatomy, VLDB 2006, Table 1): two QI-groups of 4."""
    df = pd.DataFrame(
        {
            "age": [23, 27, 35, 59, 61, 65, 65, 70],
            "sex": list("MMMMFFFF"),
            "zip": [11000, 13000, 59000, 12000, 54000, 25000, 25000, 30000],
            "disease": [
                "pneumonia",
                "dyspepsia",
                "dyspepsia",
                "pneumonia",
                "flu",
                "gastritis",
                "flu",
                "bronchitis",
            ],
        }
    )
    return Table.from_frame(df, quasi_identifiers=["age", "sex", "zip"], sensitive="disease")


ANATOMY_GROUPS = np.array([0, 0, 0, 0, 1, 1, 1, 1])
QUERY_A = {"disease": ["pneumonia"], "age": (0, 30), "zip": (10001, 20000)}


def synthetic_table(n: int = 400, seed: int = 0) -> Table:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 91, n),
            "work": rng.choice(list("abcdefg"), n),
            "country": rng.choice([f"c{i}" for i in range(12)], n),
            "sex": rng.choice(["F", "M"], n),
            "edu": rng.choice([f"e{i}" for i in range(16)], n),
        }
    )
    qis = ["age", "work", "country", "sex"]
    return Table.from_frame(df, quasi_identifiers=qis, sensitive="edu")


# ------------------------------------------------------------------------------- hand-computed
def test_anatomy_example_bucketization_estimate_is_one():
    # Group 1 holds 2 pneumonia among 4 records; 2 of its 4 records (ages 23, 27 with zip
    # 11000, 13000) satisfy the QI predicates, so est = 2 * 2/4 = 1 = the actual answer.
    t = anatomy_table()
    wl = Workload.from_queries(t, [QUERY_A])
    release = Release(t, ANATOMY_GROUPS, "bucketization")
    assert actual_counts(t, wl).tolist() == [1]
    assert estimated_counts(release, wl).tolist() == [1.0]
    assert workload_error(release, wl).mean_relative_error == 0.0


def test_anatomy_example_generalization_estimate():
    # Group 1 publishes age [23-59] (4 distinct ages: 23, 27, 35, 59) and zip [11000-59000]
    # (all 7 distinct zips). The predicates select 2 of the 4 ages and 3 of the 7 zips
    # (11000, 12000, 13000): est = 2 * 2/4 * 3/7 = 3/7. Group 2 has no pneumonia.
    # (The paper's 0.1 uses continuous ranges; anonlab counts distinct values, see release.py.)
    t = anatomy_table()
    wl = Workload.from_queries(t, [QUERY_A])
    release = Release(t, ANATOMY_GROUPS, "generalization")
    assert estimated_counts(release, wl) == pytest.approx([3 / 7])
    result = workload_error(release, wl)
    assert result.mean_relative_error == pytest.approx(4 / 7)
    assert result.median_relative_error == pytest.approx(4 / 7)
    assert result.n_queries == 1 and result.n_excluded == 0


def test_categorical_hierarchy_generalization_estimate():
    # sex generalizes to * in both groups under a flat hierarchy; a query on sex = F selects
    # 1 of the 2 values covered, so est = (#flu in each group) * 1/2 = (0 + 2) / 2 = 1.
    t0 = anatomy_table()
    t = t0.with_roles(
        ["age", "sex", "zip"], "disease", hierarchies={"sex": Hierarchy.flat(["M", "F"])}
    )
    groups = np.array([0, 0, 0, 1, 1, 1, 1, 0])  # both groups mix M and F
    release = Release(t, groups, "generalization")
    wl = Workload.from_queries(t, [{"disease": ["flu"], "sex": ["F"]}])
    assert release.generalization["sex"].labels.tolist() == ["*", "*"]
    assert estimated_counts(release, wl) == pytest.approx([1.0])
    assert actual_counts(t, wl).tolist() == [2]


def test_perturbed_release_is_estimated_from_published_values():
    t = anatomy_table()
    codes = t.codes["disease"].copy()
    flu = list(t.values["disease"]).index("flu")
    published = codes.copy()
    published[[0, 1]] = flu  # two records published as flu (MASK-style perturbation)
    release = Release(t, np.arange(8), "bucketization", published_sensitive=published)
    wl = Workload.from_queries(t, [{"disease": ["flu"]}, {"disease": ["pneumonia"]}])
    assert actual_counts(t, wl).tolist() == [2, 2]  # the original values
    assert estimated_counts(release, wl).tolist() == [4.0, 1.0]  # the published values
    result = workload_error(release, wl)
    assert result.mean_relative_error == pytest.approx((1.0 + 0.5) / 2)
    assert result.settings["perturbed_records"] == 2


def test_zero_answer_queries_are_excluded_and_counted():
    t = anatomy_table()
    wl = Workload.from_queries(t, [QUERY_A, {"disease": ["flu"], "age": (0, 30)}])
    result = workload_error(Release(t, ANATOMY_GROUPS, "bucketization"), wl)
    assert result.n_queries == 1 and result.n_excluded == 1
    assert np.isnan(result.relative_error[1])


# ------------------------------------------------------------------------- brute-force reference
def _pred(wl: Workload, name: str, j: int, code: int) -> bool:
    if name in wl.intervals:
        lo, hi = wl.intervals[name][j]
        return bool(lo <= code <= hi)
    return bool(wl.masks[name][j, code])


def _satisfies_qi(t: Table, wl: Workload, j: int, r: int) -> bool:
    return all(
        _pred(wl, q, j, int(t.codes[q][r]))
        for i, q in enumerate(wl.quasi_identifiers)
        if wl.uses[j, i]
    )


def brute_actual(t: Table, wl: Workload) -> list[int]:
    s = t.sensitive
    return [
        sum(
            _satisfies_qi(t, wl, j, r) and _pred(wl, s, j, int(t.codes[s][r]))
            for r in range(t.n_rows)
        )
        for j in range(len(wl))
    ]


def brute_estimate(release: Release, wl: Workload) -> list[float]:
    """Straight from the definitions, one query and one group at a time."""
    t = release.table
    s = t.sensitive
    published = release.sensitive_codes
    out = []
    for j in range(len(wl)):
        est = 0.0
        for g in range(release.n_groups):
            members = [r for r in range(t.n_rows) if release.group[r] == g]
            matches = sum(_pred(wl, s, j, int(published[r])) for r in members)
            if release.scheme == "bucketization":
                qi_ok = sum(_satisfies_qi(t, wl, j, r) for r in members)
                est += qi_ok * matches / len(members)
            else:
                share = 1.0
                for i, q in enumerate(wl.quasi_identifiers):
                    if not wl.uses[j, i]:
                        continue
                    ga = release.generalization[q]
                    pmask = np.array([_pred(wl, q, j, v) for v in range(t.domain_size(q))])
                    share *= ga.covered(pmask)[g] / ga.cover_size()[g]
                est += matches * share
        out.append(est)
    return out


def releases():
    """Up to 14 records, 1-3 quasi-identifiers, a sensitive attribute of four strings or four
    numbers, groups 0..4."""
    return _support.random_releases(
        max_rows=14,
        max_qis=3,
        max_code=6,
        sensitive=st.sampled_from([["x", "y", "z", "w"], [0, 1, 2, 3]]),
        max_group=4,
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    release=releases(),
    qd_frac=st.floats(0, 1),
    selectivity=st.floats(0.3, 1.0),
    seed=st.integers(0, 2**16),
    n_queries=st.integers(1, 12),
    path=st.sampled_from(["compressed", "records"]),
    chunk=st.sampled_from([3, 1 << 22]),
)
def test_matches_brute_force(release, qd_frac, selectivity, seed, n_queries, path, chunk):
    t = release.table
    qd = round(qd_frac * len(t.quasi_identifiers))
    min_queries = 1 if path == "compressed" else 10**9
    with (
        mock.patch.object(wmod, "_COMPRESS_MIN_QUERIES", min_queries),
        mock.patch.object(wmod, "_CHUNK", chunk),
    ):
        wl = generate_workload(t, n_queries, qd, selectivity, seed, max_redrawn=10**6)
        act = actual_counts(t, wl)
        est = estimated_counts(release, wl)
    assert act.tolist() == brute_actual(t, wl)
    assert act.tolist() == wl.actual.tolist()
    assert (act > 0).all()
    np.testing.assert_allclose(est, brute_estimate(release, wl), rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(release=releases(), data=st.data())
def test_given_queries_match_brute_force(release, data):
    """Hand-made predicates (including empty ones and zero answers)."""
    t = release.table
    queries = []
    for _ in range(data.draw(st.integers(1, 5))):
        query = {}
        for name in (*t.quasi_identifiers, t.sensitive):
            if not data.draw(st.booleans()):
                continue
            values = list(t.values[name])
            if t.schema[name].kind.value == "numeric":
                lo, hi = data.draw(st.integers(-1, 7)), data.draw(st.integers(-1, 7))
                query[name] = (lo, hi)
            else:
                query[name] = data.draw(st.lists(st.sampled_from(values), max_size=3))
        queries.append(query)
    wl = Workload.from_queries(t, queries)
    assert actual_counts(t, wl).tolist() == brute_actual(t, wl)
    np.testing.assert_allclose(
        estimated_counts(release, wl), brute_estimate(release, wl), rtol=1e-9, atol=1e-9
    )


@pytest.mark.parametrize("scheme", ["generalization", "bucketization"])
def test_wide_domains_match_brute_force(scheme):
    # > 62 categorical values (several packed words per published value set) and a key space
    # too large to count directly (the sorting path of the value-combination compression).
    rng = np.random.default_rng(11)
    n = 300
    df = pd.DataFrame(
        {
            "a": rng.choice([f"v{i}" for i in range(80)], n),
            "b": rng.integers(0, 90, n),
            "c": rng.choice([f"w{i}" for i in range(70)], n),
            "s": rng.choice(list("pqrstu"), n),
        }
    )
    t = Table.from_frame(df, quasi_identifiers=["a", "b", "c"], sensitive="s")
    release = Release(t, rng.integers(0, 40, n), scheme)
    with mock.patch.object(wmod, "_COMPRESS_MIN_QUERIES", 1):
        wl = generate_workload(t, 12, 3, 0.5, seed=1)
        est = estimated_counts(release, wl)
    assert wl.actual.tolist() == brute_actual(t, wl)
    np.testing.assert_allclose(est, brute_estimate(release, wl), rtol=1e-9)


# ---------------------------------------------------------------------------------- generator
def test_predicate_size_rule():
    assert predicate_size(16, 3, 0.05) == 8  # 16 * 0.05 ** 0.25 = 7.57
    assert predicate_size(74, 3, 0.05) == 35  # 34.99
    assert predicate_size(41, 3, 0.05) == 20  # 19.39
    assert predicate_size(2, 3, 0.05) == 1  # 0.95
    assert predicate_size(16, 1, 0.0625) == 4  # exactly 4: not rounded up to 5
    assert predicate_size(9, 2, 1 / 27) == 3  # exactly 3 (1/27 ** (1/3) = 1/3)
    assert predicate_size(10, 3, 1.0) == 10
    assert predicate_size(1, 5, 1e-6) == 1  # at least one value


@pytest.mark.parametrize(("qd", "selectivity"), [(1, 0.05), (3, 0.05), (4, 0.2), (2, 1.0)])
def test_generated_predicates_obey_b_rule(qd, selectivity):
    t = synthetic_table()
    wl = generate_workload(t, 300, qd, selectivity, seed=1)
    assert wl.uses.sum(axis=1).tolist() == [qd] * 300
    assert wl.attributes.shape == (300, qd)
    for name in (*t.quasi_identifiers, t.sensitive):
        b = predicate_size(t.domain_size(name), qd, selectivity)
        assert wl.predicate_sizes[name] == b
        used = (
            np.ones(300, bool)
            if name == t.sensitive
            else wl.uses[:, t.quasi_identifiers.index(name)]
        )
        sizes = wl.mask(name).sum(axis=1)
        assert (sizes[used] == b).all()
        assert (sizes[~used] == t.domain_size(name)).all()  # unused: no constraint
        if name in wl.intervals:  # numeric: contiguous runs of codes inside the domain
            lo, hi = wl.intervals[name][used].T
            assert (hi - lo + 1 == b).all() and (lo >= 0).all()
            assert (hi < t.domain_size(name)).all()
    assert "age" in wl.intervals and "work" in wl.masks


def test_all_attribute_subsets_and_value_subsets_are_drawn():
    t = synthetic_table()
    wl = generate_workload(t, 2000, 2, 0.05, seed=3)
    patterns = {tuple(row) for row in wl.uses.tolist()}
    assert len(patterns) == 6  # all C(4, 2) pairs of quasi-identifiers occur
    starts = wl.intervals["age"][wl.uses[:, 0], 0]
    b = wl.predicate_sizes["age"]
    assert starts.min() == 0 and starts.max() == t.domain_size("age") - b


def test_same_seed_same_workload():
    t = synthetic_table()
    a = generate_workload(t, 500, 3, 0.05, seed=7)
    b = generate_workload(t, 500, 3, 0.05, seed=7)
    c = generate_workload(t, 500, 3, 0.05, seed=8)
    assert np.array_equal(a.uses, b.uses) and np.array_equal(a.actual, b.actual)
    assert all(np.array_equal(a.masks[k], b.masks[k]) for k in a.masks)
    assert all(np.array_equal(a.intervals[k], b.intervals[k]) for k in a.intervals)
    assert a.n_redrawn == b.n_redrawn
    assert not np.array_equal(a.uses, c.uses)


def test_zero_answers_are_redrawn_and_counted():
    t = synthetic_table(n=60)
    wl = generate_workload(t, 200, 4, 0.01, seed=2)
    assert len(wl) == 200 and (wl.actual > 0).all()
    assert wl.n_redrawn > 0
    assert (actual_counts(t, wl) == wl.actual).all()
    result = workload_error(Release(t, np.arange(60) // 5, "bucketization"), wl)
    assert result.n_redrawn == wl.n_redrawn
    with pytest.raises(AnonlabError, match="'selectivity'"):
        generate_workload(t, 200, 4, 0.01, seed=2, max_redrawn=0)


@pytest.mark.parametrize("scheme", ["bucketization", "generalization"])
def test_identity_partition_has_zero_error(scheme):
    t = synthetic_table()
    release = Release(t, np.arange(t.n_rows), scheme)
    wl = generate_workload(t, 1000, 3, 0.05, seed=0)
    assert np.array_equal(estimated_counts(release, wl), wl.actual.astype(float))
    result = workload_error(release, wl)
    assert result.mean_relative_error == 0.0 and result.median_relative_error == 0.0


def test_one_group_bucketization_matches_independence():
    # One bucket: est = (#records satisfying the QI predicates) * (share of pred(S)).
    t = synthetic_table(n=100)
    release = Release(t, np.zeros(100, dtype=int), "bucketization")
    wl = generate_workload(t, 50, 2, 0.2, seed=5)
    s = t.codes["edu"]
    qi_ok = np.array(
        [[_satisfies_qi(t, wl, j, r) for r in range(100)] for j in range(len(wl))]
    ).sum(axis=1)
    share = wl.mask("edu")[:, s].sum(axis=1) / 100
    np.testing.assert_allclose(estimated_counts(release, wl), qi_ok * share)


def test_result_fields_and_registry():
    t = synthetic_table()
    release = Release(t, np.arange(t.n_rows) // 8, "generalization")
    result = measure(release, "workload-error", n_queries=400, qd=2, selectivity=0.1, seed=4)
    assert result.n_queries == 400 and result.seed == 4 and result.scheme == "generalization"
    assert result.settings["qd"] == 2 and result.settings["selectivity"] == 0.1
    assert result.value == result.mean_relative_error > 0
    assert result.actual.shape == result.estimated.shape == (400,)
    js = result.to_json()
    assert js["measure"] == "workload-error" and js["n_redrawn"] == result.n_redrawn
    assert "workload-error" in available()
    again = workload_error(release, generate_workload(t, 400, 2, 0.1, 4))
    assert again.mean_relative_error == result.mean_relative_error


# ------------------------------------------------------------------------------- bad parameters
@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"qd": 5}, "'qd'"),
        ({"qd": -1}, "'qd'"),
        ({"selectivity": 0.0}, "'selectivity'"),
        ({"selectivity": 1.5}, "'selectivity'"),
        ({"selectivity": -0.1}, "'selectivity'"),
        ({"selectivity": "high"}, "'selectivity'"),
        ({"n_queries": 0}, "'n_queries'"),
        ({"n_queries": 2.5}, "'n_queries'"),
        ({"seed": -3}, "'seed'"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, param):
    t = synthetic_table()
    with pytest.raises(AnonlabError, match=param):
        generate_workload(t, **{"n_queries": 10, **kwargs})
    release = Release(t, np.arange(t.n_rows) // 4, "bucketization")
    with pytest.raises(AnonlabError, match=param):
        measure(release, "workload-error", **{"n_queries": 10, **kwargs})


def test_workload_of_another_table_is_refused():
    wl = generate_workload(synthetic_table(), 10, 2, 0.5, seed=0)
    t = anatomy_table()
    with pytest.raises(AnonlabError, match="generate a workload for this table"):
        workload_error(Release(t, ANATOMY_GROUPS, "bucketization"), wl)


def test_given_query_errors():
    t = anatomy_table()
    with pytest.raises(AnonlabError, match="'weight'"):
        Workload.from_queries(t, [{"weight": [1]}])
    with pytest.raises(AnonlabError, match="'cholera'"):
        Workload.from_queries(t, [{"disease": ["cholera"]}])
    with pytest.raises(AnonlabError, match="pair"):
        Workload.from_queries(t, [{"age": [23, 27, 35]}])
    with pytest.raises(AnonlabError, match="'queries'"):
        Workload.from_queries(t, [])
