"""Re-identification risk: hand computations on tiny tables, ARX 3.9.2's values on Adult,
properties, and errors that name the parameter.

Reference values marked "ARX" were printed by ARX 3.9.2 (``lib/arx-core-3.9.2-aacd487.jar`` in
``../shared/arx/``) run on its Adult data (the rows of anonlab's ``adult-train``, same order),
with ``ARXPopulationModel.create(n, f)``, ``getPopulationBasedUniquenessRisk()`` and
``getSampleBasedRiskSummary(threshold)``; the Dankar values at f = 0.1, 0.2, 0.01 and 1 are also
the assertions of ARX's own JUnit ``TestRiskMetrics.testDecisionRule2`` (to four digits).
The programs that printed them are ``benchmarks/ArxRisk.java`` and ``benchmarks/ArxGen.java``
(``javac -cp '../shared/arx/lib/*' -d BUILD benchmarks/ArxRisk.java benchmarks/ArxGen.java``,
then ``java -cp 'BUILD:../shared/arx/lib/*' ArxRisk ../shared/arx/data``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Release, Table
from anonlab.datasets import load_frame, load_hierarchies
from anonlab.utility import available, measure
from anonlab.utility.population_uniqueness import (
    DEFAULT_SAMPLING_FRACTION,
    REGIONS,
    dankar,
    pitman,
    population_model,
    snb,
    zayatz,
)
from anonlab.utility.published_classes import population_class_sizes, published_classes
from anonlab.utility.reidentification import (
    NO_POPULATION_NOTE,
    k_map,
    population_uniqueness,
    reidentification_risk,
)

RISK_MEASURES = [
    "reidentification-risk",
    "journalist-risk",
    "marketer-risk",
    "sample-uniqueness",
    "population-uniqueness",
    "k-map",
]


# ----------------------------------------------------------------------------- tiny tables
def tiny(ages: list[int], scheme: str, groups: list[int] | None = None) -> Release:
    df = pd.DataFrame({"age": ages, "s": ["x", "y"] * (len(ages) // 2) + ["x"] * (len(ages) % 2)})
    table = Table.from_frame(df, quasi_identifiers=["age"], sensitive="s")
    return Release(table, np.array(groups if groups is not None else ages), scheme)


def test_prosecutor_journalist_marketer_by_hand():
    # Exact ages 10,10,10,20,20,30 bucketized: classes of the exact values, sizes 3, 2, 1.
    release = tiny([10, 10, 10, 20, 20, 30], "bucketization", groups=[0, 0, 1, 1, 2, 2])
    r = reidentification_risk(release, threshold=0.4)
    np.testing.assert_allclose(r.prosecutor.per_record, [1 / 3] * 3 + [1 / 2] * 2 + [1])
    assert r.prosecutor.highest == 1.0 and r.prosecutor.lowest == pytest.approx(1 / 3)
    assert r.prosecutor.average == pytest.approx(3 / 6)  # classes / records
    assert r.prosecutor.n_records_at_risk == 3  # 1/2 and 1 are above 0.4
    assert r.sample_uniques.n_unique == 1 and r.sample_uniques.fraction == pytest.approx(1 / 6)
    # No population: journalist = prosecutor, marketer = classes / records; said in words.
    assert r.journalist.highest == 1.0 and r.journalist.average == pytest.approx(0.5)
    assert r.marketer.expected_share == pytest.approx(0.5)
    assert r.journalist.note == NO_POPULATION_NOTE and not r.journalist.population
    # Population: the sample plus 10 (x1), 20 (x2), 30 (x3), 40 (x5, matches no class).
    pop = pd.DataFrame({"age": [10, 10, 10, 20, 20, 30] + [10, 20, 20, 30, 30, 30] + [40] * 5})
    r = reidentification_risk(release, threshold=0.4, population=pop)  # F = 4, 4, 4
    np.testing.assert_allclose(r.journalist.per_record, [1 / 4] * 6)
    assert r.journalist.highest == 0.25 and r.journalist.n_records_at_risk == 0
    # El Emam: max(C / sum F, mean f/F / n) = max(3/12, (3/4 + 2/4 + 1/4) / 6) = 0.25
    assert r.journalist.average == pytest.approx(0.25)
    assert r.marketer.expected_share == pytest.approx((3 / 4 + 2 / 4 + 1 / 4) / 6)
    assert r.marketer.expected_records == pytest.approx(1.5)
    km = k_map(release, population=pop, k=5)
    assert km.k_map == 4 and km.satisfied is False
    assert km.n_classes_below == 3 and km.n_records_below == 6 and km.n_population == 17
    assert k_map(release, population=pop, k=4).satisfied is True


def test_generalized_classes_merge_equal_published_values_and_match_ranges():
    # Groups {10, 19} and {10, 19}: both publish [10-19] and are one class of 4 records.
    release = tiny([10, 19, 10, 19, 30, 31], "generalization", groups=[0, 0, 1, 1, 2, 2])
    classes = published_classes(release)
    assert sorted(classes.sizes.tolist()) == [2, 4]
    # A population value inside a published range matches it; one outside every range does not.
    pop = pd.DataFrame({"age": [10, 19, 10, 19, 30, 31, 15, 15, 30.5, 50]})
    sizes = dict(
        zip(classes.sizes.tolist(), population_class_sizes(release, pop).tolist(), strict=True)
    )
    assert sizes == {4: 6, 2: 3}
    r = reidentification_risk(release, population=pop)
    assert r.journalist.highest == pytest.approx(1 / 3)
    assert r.marketer.expected_share == pytest.approx((4 / 6 + 2 / 3) / 6)


def test_generalized_hierarchy_nodes_against_arx_adult():
    """Adult, QIs age/sex/race/education at levels age 2 (10 years), education 1, others 0; the
    sample is every 10th row and the population all rows (ARX: a DataSubset view of its
    output at that node; journalist and marketer from ``getSampleBasedRiskSummary``)."""
    df = load_frame("adult-train")
    hierarchies = load_hierarchies("adult-train")
    qis = ["age", "sex", "race", "education"]
    levels = {"age": 2, "education": 1, "race": 0, "sex": 0}
    table = Table.from_frame(
        df[[*qis, "occupation"]],
        quasi_identifiers=qis,
        sensitive="occupation",
        hierarchies={q: hierarchies[q] for q in qis},
    )

    def at_levels(t: Table) -> Release:
        keys = [t.schema[q].hierarchy.map(levels[q])[t.leaf_codes(q)[t.codes[q]]] for q in qis]
        _, group = np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)
        return Release(t, group.ravel(), "generalization", levels=levels)

    full = reidentification_risk(at_levels(table), threshold=0.05)
    assert full.prosecutor.records_at_risk == pytest.approx(0.034745706518135404, rel=1e-12)
    assert full.prosecutor.average == pytest.approx(0.0093163583316756180, rel=1e-12)
    assert full.prosecutor.lowest == pytest.approx(0.00045913682277318640, rel=1e-12)
    pu = population_uniqueness(at_levels(table), sampling_fraction=0.1)
    assert pu.estimates["pitman"].uniques == pytest.approx(65.240420203930170, rel=1e-6)
    assert pu.estimates["zayatz"].uniques == pytest.approx(36.154054195301640, rel=1e-6)
    assert not pu.estimates["snb"].converged  # ARX: SNB fails here too
    sample = at_levels(table.take(np.arange(0, len(df), 10)))
    for threshold, p_at, j_at in (
        (0.2, 0.058004640371229696, 0.0043089161418627780),
        (0.05, 0.18627775936360624, 0.034471329134902220),
    ):
        r = reidentification_risk(sample, threshold=threshold, population=df)
        assert r.prosecutor.records_at_risk == pytest.approx(p_at, rel=1e-12)
        assert r.prosecutor.average == pytest.approx(0.053032814053695726, rel=1e-12)
        assert r.journalist.records_at_risk == pytest.approx(j_at, rel=1e-12)
        assert r.journalist.highest == 1.0
        assert r.journalist.average == pytest.approx(0.0089912654063032500, rel=1e-12)
        assert r.marketer.expected_share == pytest.approx(0.0089912654063032500, rel=1e-12)


# ----------------------------------------------------------------------------- ARX on Adult
@pytest.fixture(scope="module")
def adult_exact():
    """Adult with ARX's 9 QIs (TestRiskMetrics' setup), bucketized: classes = exact values."""
    df = load_frame("adult-train").rename(columns={"income": "salary-class"})
    qis = ["age", "education", "marital-status", "native-country", "occupation", "race",
           "salary-class", "sex", "workclass"]  # fmt: skip
    frame = df[qis].assign(s="x")
    table = Table.from_frame(frame, quasi_identifiers=qis, sensitive="s")
    return Release(table, np.zeros(len(frame), dtype=int), "bucketization")


# ARX 3.9.2 on Adult, 9 QIs: (f, Pitman, Zayatz, SNB or None, Dankar's choice)
ARX_ADULT = [
    (0.001, 2278255.6921012570, 8000118.8984171650, None, "pitman"),
    (0.01, 436167.71467070630, 819539.90587196220, None, "pitman"),
    (0.05, 137350.02293962502, 178797.86207251020, None, "pitman"),
    (0.1, 83503.478551875970, 96741.670991727180, None, "pitman"),
    (0.2, 50766.871246382390, 53946.233560458030, None, "zayatz"),
    (0.5, 26295.400390415320, 26056.918512805987, None, "zayatz"),
    (0.9, 17242.651883685314, 16756.004848635806, 16653.113544962660, "snb"),
    (1.0, 15986.581986078201, 15512.0, 15512.000000688842, "zayatz"),
]


@pytest.mark.parametrize(("f", "p", "z", "s", "chosen"), ARX_ADULT)
def test_population_uniques_match_arx_on_adult(adult_exact, f, p, z, s, chosen):
    classes = published_classes(adult_exact)
    model = population_model(adult_exact.table.n_rows, sampling_fraction=f)
    assert model.population_size == round(30162 / f)
    assert pitman(classes.sizes, model).uniques == pytest.approx(p, rel=1e-6)
    assert zayatz(classes.sizes, model).uniques == pytest.approx(z, rel=1e-6)
    got = snb(classes.sizes, model)
    if s is None:
        assert not got.converged and got.uniques is None and got.note
    else:
        assert got.uniques == pytest.approx(s, rel=1e-6)
    d = dankar(classes.sizes, model)
    assert d.chosen == chosen


@pytest.mark.parametrize(
    ("f", "fraction"),
    [
        (0.1, 0.27684993883653597),
        (0.2, 0.3577099234829125),
        (0.01, 0.1446083531167384),
        (1.0, 0.5142895033485844),
    ],  # fmt: skip
)
def test_dankar_matches_arx_test_risk_metrics(adult_exact, f, fraction):
    result = measure(adult_exact, "population-uniqueness", sampling_fraction=f)
    assert result.value == pytest.approx(fraction, rel=1e-6)
    assert int(result.value * 1e4) == int(fraction * 1e4)  # ARX's four-digit comparison


def test_sample_summary_matches_arx_on_adult(adult_exact):
    r = reidentification_risk(adult_exact, threshold=0.2)
    assert r.prosecutor.average == 0.6465751607983555  # TestRiskMetrics.testAverageRisk2
    assert r.prosecutor.records_at_risk == pytest.approx(0.77813142364564680, rel=1e-12)
    assert r.prosecutor.lowest == pytest.approx(0.022222222222222223, rel=1e-12)
    assert r.sample_uniques.fraction == pytest.approx(0.51428950334858440, rel=1e-12)
    assert reidentification_risk(adult_exact, threshold=0.05).prosecutor.records_at_risk == (
        pytest.approx(0.97092367880114050, rel=1e-12)
    )


def test_journalist_against_a_population_matches_arx(adult_exact):
    """Every 10th row of Adult (QIs age, sex, race, education) against all of Adult."""
    df = load_frame("adult-train")
    qis = ["age", "sex", "race", "education"]
    table = Table.from_frame(df[qis].assign(s="x"), quasi_identifiers=qis, sensitive="s")
    sample = table.take(np.arange(0, len(df), 10))
    release = Release(sample, np.zeros(sample.n_rows, dtype=int), "bucketization")
    for threshold, p_at, j_at in (
        (0.2, 0.45541929068611203, 0.11733510109380178),
        (0.05, 0.94464700033145510, 0.33443818362611866),
    ):
        r = reidentification_risk(release, threshold=threshold, population=table)
        assert r.prosecutor.records_at_risk == pytest.approx(p_at, rel=1e-12)
        assert r.prosecutor.average == pytest.approx(0.34869075240304936, rel=1e-12)
        assert r.journalist.records_at_risk == pytest.approx(j_at, rel=1e-12)
        assert r.journalist.average == pytest.approx(0.10297378850157017, rel=1e-12)
        assert r.marketer.expected_share == pytest.approx(0.10297378850157017, rel=1e-12)


# ----------------------------------------------------------------------------- bucketization
def test_bucketized_release_says_the_qi_table_shows_who_is_in_the_data():
    release = tiny([10, 11, 12, 13], "bucketization", groups=[0, 0, 0, 0])
    r = reidentification_risk(release)
    assert r.prosecutor.highest == 1.0 and r.prosecutor.n_records_at_risk == 4
    assert "shows who is in the data" in r.statement and "4 of 4 records" in r.statement
    assert "attribute disclosure" in r.statement
    assert measure(release, "prosecutor-risk").highest == 0.25  # the bucket link, 1/|bucket|
    assert "not the risk of identity" in measure(release, "prosecutor-risk").statement
    for name in ("sample-uniqueness", "population-uniqueness", "journalist-risk"):
        assert "shows who is in the data" in measure(release, name).to_json()["statement"]
    generalized = tiny([10, 11, 12, 13], "generalization", groups=[0, 0, 0, 0])
    assert reidentification_risk(generalized).prosecutor.highest == 0.25
    assert "shows who is in the data" not in reidentification_risk(generalized).statement


# ----------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(
    groups=st.lists(st.integers(0, 5), min_size=1, max_size=25),
    extra=st.lists(st.integers(0, 8), max_size=25),
)
def test_properties(groups, extra):
    # Generalization with one distinct age per group: classes = groups.
    ages = [10 * g for g in groups]
    release = tiny(ages, "generalization", groups=groups)
    r = reidentification_risk(release)
    sizes = np.bincount(groups)
    sizes = sizes[sizes > 0]
    assert r.marketer.expected_share == pytest.approx(len(sizes) / len(groups))
    assert r.prosecutor.average == pytest.approx(len(sizes) / len(groups))
    assert r.sample_uniques.n_unique == int(np.sum(sizes == 1))
    # A population containing the sample: F >= f, so k-map >= min f and journalist <= prosecutor.
    pop = pd.DataFrame({"age": ages + [10 * e for e in extra]})
    rp = reidentification_risk(release, population=pop)
    km = k_map(release, population=pop)
    assert km.k_map >= sizes.min()
    assert np.all(rp.journalist.per_record <= rp.prosecutor.per_record + 1e-15)
    assert rp.journalist.highest <= rp.prosecutor.highest
    assert rp.marketer.expected_share <= r.marketer.expected_share + 1e-15
    # The sample as its own population gives the no-population numbers.
    same = reidentification_risk(release, population=pd.DataFrame({"age": ages}))
    np.testing.assert_allclose(same.journalist.per_record, r.prosecutor.per_record)


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=2, max_size=40),
    f=st.sampled_from([0.01, 0.1, 0.3, 0.7, 1.0]),
)
def test_estimates_are_bounded(sizes, f):
    """Each estimate that converges is a number of people in [0, N]; Zayatz scales the sample
    uniques that are population uniques by 1 / f, so it is at most c_1 / f; at f = 1 it is c_1."""
    n = sum(sizes)
    model = population_model(n, sampling_fraction=f)
    c1 = sizes.count(1)
    for fn in (pitman, zayatz, snb, dankar):
        est = fn(np.array(sizes), model)
        if est.converged:
            assert 0.0 <= est.uniques <= model.population_size
        if c1 == 0:
            assert est.uniques == 0.0
    z = zayatz(np.array(sizes), model).uniques
    assert z <= c1 / model.sampling_fraction + 1e-9
    if f == 1.0:
        assert z == pytest.approx(c1)


def test_population_model_choices():
    assert population_model(100).sampling_fraction == DEFAULT_SAMPLING_FRACTION
    assert population_model(100).population_size == 10_000
    assert population_model(30162, sampling_fraction=0.9).population_size == 33513  # round
    assert population_model(100, population_size=400).sampling_fraction == 0.25
    assert population_model(100, region="USA").population_size == REGIONS["usa"] == 317_238_626


# ----------------------------------------------------------------------------- registry, errors
def test_registered_as_risk_measures():
    from anonlab.utility import MEASURES

    for name in RISK_MEASURES:
        assert name in available() and MEASURES[name].kind == "risk"
    release = tiny([10, 10, 20], "generalization", groups=[0, 0, 1])
    pop = pd.DataFrame({"age": [10, 10, 20, 20]})
    for name in RISK_MEASURES:
        params = {"population": pop} if name == "k-map" else {}
        result = measure(release, name, **params)
        js = result.to_json()
        assert js["measure"] == name and result.value is not None
        assert js["scheme"] == "generalization"


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("reidentification-risk", {"threshold": 1.5}, "'threshold'"),
        ("journalist-risk", {"threshold": "high"}, "'threshold'"),
        ("population-uniqueness", {"sampling_fraction": 0.0}, "'sampling_fraction'"),
        ("population-uniqueness", {"sampling_fraction": 2}, "'sampling_fraction'"),
        ("population-uniqueness", {"estimator": "chao"}, "'estimator'"),
        ("population-uniqueness", {"region": "mars"}, "'region'"),
        ("population-uniqueness", {"population_size": 2}, "'population_size'"),
        (
            "population-uniqueness",
            {"sampling_fraction": 0.5, "region": "uk"},
            "at most one of sampling_fraction, population_size, region",
        ),
        ("k-map", {}, "population"),
        ("k-map", {"population": pd.DataFrame({"age": [10, 10, 20]}), "k": 0}, "'k'"),
        ("marketer-risk", {"population": pd.DataFrame({"x": [1]})}, "'population' lacks"),
        ("marketer-risk", {"population": [10, 20]}, "'population' must be"),
        ("journalist-risk", {"population": pd.DataFrame({"age": ["ten"]})}, "'age'"),
        ("journalist-risk", {"population": pd.DataFrame({"age": [10]})}, "does not contain"),
    ],
)
def test_bad_input_names_the_parameter(name, params, match):
    release = tiny([10, 10, 20], "generalization", groups=[0, 0, 1])
    with pytest.raises(AnonlabError, match=match):
        measure(release, name, **params)


def test_cli_utility_population_and_sampling_fraction(tmp_path, cli):
    import json

    from anonlab.release_io import save_release

    release = tiny([10, 10, 20, 20, 30, 31], "bucketization", groups=[0, 0, 0, 1, 1, 1])
    save_release(release, tmp_path / "rel")
    pop = tmp_path / "pop.csv"
    pd.DataFrame({"age": [10, 10, 10, 20, 20, 30, 31, 31]}).to_csv(pop, index=False)
    argv = ["utility", str(tmp_path / "rel"), "--queries", "20", "--qd", "1"]
    code, out, err = cli([*argv, "--population", str(pop), "--sampling-fraction", "0.5", "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["k-map"]["k_map"] == 1  # the class of 30 matches one person
    assert report["reidentification-risk"]["journalist"]["population"] is True
    assert report["reidentification-risk"]["marketer"]["expected_share"] == pytest.approx(
        (2 / 3 + 2 / 2 + 1 + 1 / 2) / 6
    )
    assert report["population-uniqueness"]["population_model"]["population_size"] == 12
    code, out, err = cli(argv)
    assert code == 0 and "shows who is in the data" in " ".join(out.split())
    code, _, err = cli([*argv, "--sampling-fraction", "0"])
    assert code == 2 and "sampling_fraction" in err and "Traceback" not in err


def test_bucketized_classes_by_row_keys_equal_the_rows_own_unique(monkeypatch):
    """The classes of a bucketized release, found from one mixed-radix key per record, are
    those of ``np.unique`` over the quasi-identifier rows (same ids, sizes, representatives),
    also when the key space would overflow int64 (the keys renumbered between attributes)."""
    import numpy as np

    from anonlab import Table
    from anonlab.anonymize import anonymize
    from anonlab.utility import published_classes as module

    table = Table.from_dataset("census-kdd-workers").take(np.arange(30_000))
    _, first, inverse = np.unique(table.qi_matrix(), axis=0, return_index=True,
                                  return_inverse=True)  # fmt: skip
    for overflow in (False, True):
        if overflow:
            monkeypatch.setattr(module, "KEY_LIMIT", 2)
        fresh = anonymize(table, "anatomy", l=4, seed=2)
        classes = module.published_classes(fresh)
        assert np.array_equal(classes.record_class, inverse.ravel())
        assert np.array_equal(classes.representative, first)
        assert np.array_equal(classes.sizes, np.bincount(inverse.ravel()))
    assert 1 < classes.n_classes < table.n_rows
