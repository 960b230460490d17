"""MASK (Wong et al., VLDB 2007): models hold on the published values, only violating groups
change, the manifest's counts are true, exports carry only published values, errors."""

from __future__ import annotations

import time
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from anonlab import models
from anonlab.anonymize.mask import mask
from anonlab.anonymize.mondrian import mondrian
from anonlab.errors import AnonlabError, IneligibleError
from anonlab.grouping import group_histogram
from anonlab.release_io import GROUP_COLUMN, load_release, save_release
from anonlab.table import Table

LETTERS = list("abcdef")
OPTIONS = st.fixed_dictionaries(
    {
        "proportion": st.sampled_from(["total", "per-value"]),
        "rounding": st.sampled_from(["floor", "nearest", "ceil"]),
        "replacement": st.sampled_from(["uniform", "global"]),
    }
)


@st.composite
def cases(draw):
    """(table, k, m, sensitive_values): skewed sensitive columns so that groups violate."""
    n = draw(st.integers(2, 60))
    present = draw(st.integers(2, len(LETTERS)))
    weights = draw(st.lists(st.integers(1, 10), min_size=present, max_size=present))
    pool = [LETTERS[i] for i, w in enumerate(weights) for _ in range(w)]
    sens = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    if len(set(sens)) < 2:
        sens[0], sens[-1] = "a", "b"
    q1 = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    q2 = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    table = Table.from_frame(
        pd.DataFrame({"q1": q1, "q2": q2, "s": sens}), quasi_identifiers=["q1", "q2"], sensitive="s"
    )
    domain = sorted(set(sens))
    sensitive = draw(
        st.lists(st.sampled_from(domain), min_size=1, max_size=len(domain) - 1, unique=True)
    )
    k = draw(st.integers(1, min(n, 8)))
    m = draw(st.integers(1, k))
    return table, k, m, sensitive


def _violating(table: Table, group: np.ndarray, n_groups: int, m: int, sensitive) -> np.ndarray:
    """Groups of the partition that violate m-confidentiality on the *original* values."""
    s = table.sensitive
    hist = group_histogram(group, table.codes[s], n_groups, table.domain_size(s))
    sizes = hist.sum(axis=1)
    mask_ = table.value_mask(s, sensitive)
    return ((hist[:, mask_] * m) > sizes[:, None]).any(axis=1)


# ---------------------------------------------------------------------- properties
@settings(max_examples=300, deadline=None)
@given(cases(), OPTIONS, st.integers(0, 2**32))
def test_every_output_satisfies_its_models(case, options, seed):
    table, k, m, sensitive = case
    base = mondrian(table, k=k)
    violating = _violating(table, base.group, base.n_groups, m, sensitive)
    if violating.all():
        event("no compliant group")
        with pytest.raises(IneligibleError, match="no group"):
            mask(table, k, m, sensitive_values=sensitive, seed=seed, **options)
        return
    r = mask(table, k, m, sensitive_values=sensitive, seed=seed, **options)
    assert models.check(r, "k-anonymity", k=k).holds
    assert models.check(r, "m-confidentiality", m=m, sensitive_values=sensitive).holds
    # The partition is Mondrian-k's, on the QI only.
    assert np.array_equal(r.group, base.group)

    orig = table.codes["s"]
    pub = r.published_sensitive
    changed = orig != pub
    smask = table.value_mask("s", sensitive)
    event("perturbed" if changed.any() else "unchanged")
    # Only records of violating groups change; compliant groups are published as they are.
    assert not changed[~violating[r.group]].any()
    # Only sensitive values change, and always to a non-sensitive value.
    assert smask[orig[changed]].all()
    assert not smask[pub[changed]].any()
    # The manifest's counts are the true ones.
    assert r.manifest["perturbed_records"] == int(changed.sum())
    assert r.manifest["violating_groups"] == int(violating.sum())
    assert r.manifest["compliant_groups"] == int((~violating).sum())
    expected = {"k": k, "m": m, "sensitive_values": sensitive, **options}
    assert r.manifest["parameters"] == expected
    assert r.manifest["seed"] == seed
    # The original values stay in the publisher's table.
    assert np.array_equal(r.table.codes["s"], orig)


@settings(max_examples=150, deadline=None)
@given(cases(), st.sampled_from(["uniform", "global"]), st.integers(0, 2**32))
def test_floor_total_never_exceeds_a_compliant_groups_share(case, replacement, seed):
    """Default options: each perturbed group's sensitive share is <= some compliant group's."""
    table, k, m, sensitive = case
    try:
        r = mask(table, k, m, sensitive_values=sensitive, seed=seed, replacement=replacement)
    except IneligibleError:
        return
    smask = table.value_mask("s", sensitive)
    violating = _violating(table, r.group, r.n_groups, m, sensitive)
    share = r.sensitive_histogram[:, smask].sum(axis=1) / r.group_sizes
    if violating.any():
        assert share[violating].max() <= share[~violating].max() + 1e-12


@settings(max_examples=60, deadline=None)
@given(cases(), OPTIONS, st.integers(0, 2**31))
def test_same_seed_same_release(case, options, seed):
    table, k, m, sensitive = case
    try:
        a = mask(table, k, m, sensitive_values=sensitive, seed=seed, **options)
    except IneligibleError:
        return
    b = mask(table, k, m, sensitive_values=sensitive, seed=seed, **options)
    assert np.array_equal(a.group, b.group)
    assert np.array_equal(a.published_sensitive, b.published_sensitive)
    assert a.manifest == b.manifest


# ---------------------------------------------------------------------- worked example
def table2() -> Table:
    """Jin et al. Table 2a (notes §3.2): QI Country, Age, Sex; SA Disease; only AIDS sensitive."""
    frame = pd.DataFrame(
        {
            "Country": ["Mexico"] * 4 + ["Japan"] * 4,
            "Age": [46, 49, 32, 35, 24, 38, 25, 37],
            "Sex": ["F", "F", "F", "F", "F", "F", "M", "M"],
            "Disease": ["cancer", "heart disease", "heart disease", "AIDS"] + ["AIDS"] * 4,
        }
    )
    # Country first so that Mondrian's first (tied) cut is on it, as in Table 2b.
    return Table.from_frame(frame, quasi_identifiers=["Country", "Age", "Sex"], sensitive="Disease")


@pytest.mark.parametrize("seed", range(10))
def test_table_2_example(seed):
    """k = 4, m = 2: Mexico unchanged; Japan keeps 1 AIDS (p = 1/4 from Mexico), 3 changed."""
    t = table2()
    r = mask(t, 4, 2, sensitive_values=["AIDS"], seed=seed)
    assert r.n_groups == 2
    pub = t.values["Disease"][r.published_sensitive]
    assert list(pub[:4]) == ["cancer", "heart disease", "heart disease", "AIDS"]
    japan = Counter(pub[4:].tolist())
    assert japan["AIDS"] == 1
    assert sum(japan.values()) == 4
    assert set(japan) <= {"AIDS", "cancer", "heart disease"}
    assert r.manifest["perturbed_records"] == 3
    assert r.manifest["violating_groups"] == 1
    assert models.check(r, "m-confidentiality", m=2, sensitive_values=["AIDS"]).holds
    # Table 4's S* for the Japan group has AIDS 1/4: the published share equals the donor's.
    h = r.sensitive_histogram[r.group[4]]
    assert h[list(t.values["Disease"]).index("AIDS")] == 1


def test_rounding_options_on_a_group_of_five():
    """Donor share 1/4 on a group of 5: floor -> 1, nearest -> 1, ceil -> 2 (capped at 2)."""
    frame = pd.DataFrame(
        {
            "q": [0, 0, 0, 0, 9, 9, 9, 9, 9],
            "s": ["x", "n", "n", "n", "x", "x", "x", "x", "n"],
        }
    )
    t = Table.from_frame(frame, quasi_identifiers=["q"], sensitive="s")
    kept = {}
    for rounding in ("floor", "nearest", "ceil"):
        r = mask(t, 4, 2, sensitive_values=["x"], rounding=rounding, seed=1)
        assert r.n_groups == 2
        kept[rounding] = int((t.values["s"][r.published_sensitive[4:]] == "x").sum())
    assert kept == {"floor": 1, "nearest": 1, "ceil": 2}


def test_per_value_copies_each_sensitive_share():
    """Donor {x, y, n, n}; violating group of 4 with 3 x, 1 y: per-value keeps 1 x and 1 y,
    total (floor 2/4 * 4 = 2) keeps 2 of the sensitive records with x capped at 2."""
    frame = pd.DataFrame(
        {"q": [0, 0, 0, 0, 9, 9, 9, 9], "s": ["x", "y", "n", "n", "x", "x", "x", "y"]}
    )
    t = Table.from_frame(frame, quasi_identifiers=["q"], sensitive="s")
    for seed in range(5):
        r = mask(t, 4, 2, sensitive_values=["x", "y"], proportion="per-value", seed=seed)
        got = Counter(t.values["s"][r.published_sensitive[4:]].tolist())
        assert got == {"x": 1, "y": 1, "n": 2}
        r = mask(t, 4, 2, sensitive_values=["x", "y"], seed=seed)
        got = Counter(t.values["s"][r.published_sensitive[4:]].tolist())
        assert got["x"] + got["y"] == 2 and got["x"] <= 2 and got["n"] == 2


def test_compliant_table_is_published_unchanged():
    t = table2()
    r = mask(t, 8, 2, sensitive_values=["heart disease"])
    assert r.manifest["perturbed_records"] == 0
    assert r.manifest["violating_groups"] == 0
    assert np.array_equal(r.published_sensitive, t.codes["Disease"])


def test_no_compliant_group_is_an_error():
    with pytest.raises(IneligibleError, match="no group of the 8-anonymization is 2-conf"):
        mask(table2(), 8, 2, sensitive_values=["AIDS"])


def test_uniform_replacement_reaches_every_non_sensitive_value():
    """Uniform: changed records spread over all non-sensitive values, even rare ones."""
    n = 400
    frame = pd.DataFrame(
        {
            "q": np.r_[np.zeros(200, int), np.ones(200, int)],
            "s": ["x"] * 200 + ["n"] * 199 + ["rare"],
        }
    )
    t = Table.from_frame(frame, quasi_identifiers=["q"], sensitive="s")
    r = mask(t, 200, 2, sensitive_values=["x"], seed=3)
    new = Counter(t.values["s"][r.published_sensitive[:200]].tolist())
    assert new["x"] == 0 and new["rare"] > 50 and new["n"] > 50
    r = mask(t, 200, 2, sensitive_values=["x"], seed=3, replacement="global")
    new = Counter(t.values["s"][r.published_sensitive[:200]].tolist())
    assert new["rare"] < 10
    assert r.table.n_rows == n


# ---------------------------------------------------------------------- exports
@pytest.mark.parametrize("scheme", ["generalization", "bucketization"])
def test_exports_hold_only_published_values(tmp_path, scheme):
    t = table2().with_value_sets(["Country", "Sex"])  # no hierarchies: sets, by choice
    r = mask(t, 4, 2, sensitive_values=["AIDS"], scheme=scheme, seed=5)
    out = save_release(r, tmp_path / "rel")
    groups = r.group.tolist()
    pub = Counter(zip(groups, t.values["Disease"][r.published_sensitive].tolist(), strict=True))
    orig = Counter(zip(groups, t.column("Disease").tolist(), strict=True))
    assert pub != orig
    if scheme == "generalization":
        frame = pd.read_csv(out / "published" / "generalized.csv")
        got = Counter(zip(frame[GROUP_COLUMN].tolist(), frame["Disease"].tolist(), strict=True))
        assert got == pub
    else:
        st_ = pd.read_csv(out / "published" / "st.csv")
        got = Counter()
        for g, v, c in zip(st_[GROUP_COLUMN], st_["Disease"], st_["count"], strict=True):
            got[(g, v)] += c
        assert got == pub
        qit = pd.read_csv(out / "published" / "qit.csv")
        assert "Disease" not in qit.columns
    # The publisher's copy keeps both; loading gives back the same release.
    back = load_release(out)
    assert np.array_equal(back.published_sensitive, r.published_sensitive)
    assert np.array_equal(back.table.codes["Disease"], t.codes["Disease"])


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"k": 0, "m": 1}, "'k'"),
        ({"k": 4, "m": 0}, "'m'"),
        ({"k": 2, "m": 3}, "'m'"),
        ({"k": 4, "m": 2, "sensitive_values": ["flu"]}, "'sensitive_values'"),
        ({"k": 4, "m": 2, "sensitive_values": None}, "'sensitive_values'"),
        ({"k": 4, "m": 2, "sensitive_values": "AIDS"}, "'sensitive_values'"),
        (
            {
                "k": 4,
                "m": 2,
                "sensitive_values": ["AIDS", "cancer", "heart disease"],
            },
            "'sensitive_values'",
        ),
        ({"k": 4, "m": 2, "rounding": "up"}, "'rounding'"),
        ({"k": 4, "m": 2, "proportion": "all"}, "'proportion'"),
        ({"k": 4, "m": 2, "replacement": "zero"}, "'replacement'"),
        ({"k": 4, "m": 2, "scheme": "anatomy"}, "'scheme'"),
        ({"k": 4, "m": 2, "seed": -1}, "'seed'"),
        ({"k": 2.5, "m": 2}, "'k'"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, name):
    kwargs = {"sensitive_values": ["AIDS"], **kwargs}
    with pytest.raises(AnonlabError, match=name):
        mask(table2(), **kwargs)


def test_k_larger_than_table():
    with pytest.raises(IneligibleError, match="k = 9"):
        mask(table2(), 9, 2, sensitive_values=["AIDS"])


# ---------------------------------------------------------------------- Adult (notes §4.4)
ADULT_QI = [
    "age", "workclass", "marital-status", "occupation", "race", "sex", "native-country", "income",
]  # fmt: skip
BELOW_HIGH_SCHOOL = ["Preschool", "1st-4th", "5th-6th", "7th-8th"]


@pytest.fixture(scope="module")
def adult():
    return Table.from_dataset("adult", quasi_identifiers=ADULT_QI, sensitive="education")


def test_adult_k10_m3(adult):
    """Jin et al. §8.2 / Wong et al.: SA education, 4 values below high school (1,566 tuples)."""
    smask = adult.value_mask("education", BELOW_HIGH_SCHOOL)
    assert int(smask[adult.codes["education"]].sum()) == 1566
    mask(adult, 10, 3, sensitive_values=BELOW_HIGH_SCHOOL)  # warm-up (numba, caches)
    start = time.perf_counter()
    r = mask(adult, 10, 3, sensitive_values=BELOW_HIGH_SCHOOL)
    elapsed = time.perf_counter() - start
    assert elapsed < 5.0  # the goal; the ASAP paper's MASK took 65.7 s
    assert models.check(r, "k-anonymity", k=10).holds
    assert models.check(r, "m-confidentiality", m=3, sensitive_values=BELOW_HIGH_SCHOOL).holds
    changed = r.published_sensitive != adult.codes["education"]
    assert r.manifest["perturbed_records"] == int(changed.sum()) > 0
    assert r.manifest["violating_groups"] > 0
