"""ARX's options of its quality models, against ARX 3.9.2's own values on Adult.

Every expected value was printed by ARX 3.9.2 (``shared/arx/lib/arx-core-3.9.2-aacd487.jar``),
run here on ARX's ``data/adult.csv`` with its hierarchies, in ArxBench's setting (QIs sex, age,
race, marital-status, education, native-country, workclass; occupation and salary-class
insensitive), 5-anonymity with a 100% suppression limit and each attribute's minimum and
maximum generalization set to the node's level, so that ARX's lattice is that one node and
every class under 5 is suppressed. The quality models: ``Metric.createLossMetric(gs, f)``,
``createPrecisionMetric(false, gs, f)``, ``createAECSMetric(gs)``,
``createDiscernabilityMetric(false)``; weights with ``ARXConfiguration.setAttributeWeight``.
ARX is not run by the tests (shared/arx/README.md); these are facts about it.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonlab import AnonlabError, Release, Table
from anonlab.anonymize import generalize, lattice
from anonlab.utility import average_class_size, discernibility, measure
from anonlab.utility.arx_loss import arx_factors, arx_loss, combine_losses, normalized_weights
from anonlab.utility.information_loss import precision_loss

QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
# node (ARX's order, as QI) -> (suppressed records, classes), as ARX 3.9.2 reports them
NODES = {
    (0, 3, 0, 1, 2, 1, 1): (552, 233),
    (0, 1, 0, 1, 1, 1, 1): (1825, 559),
    (0, 4, 0, 1, 3, 2, 2): (0, 20),
    (1, 2, 1, 0, 1, 0, 2): (1710, 237),
}
WEIGHTS = {
    "age": 1.0,
    "sex": 0.25,
    "race": 0.5,
    "marital-status": 0.75,
    "education": 1.0,
    "native-country": 0.1,
    "workclass": 0.5,
}
# ARX 3.9.2's value at each node of NODES, in that order (rank: the vector ARX prints).
ARX_LOSS = {
    "gs=0.5 geometric-mean (ARX's default)": (
        {},
        (0.22599955116101444, 0.21639583841589305, 0.5643898584690297, 0.4364007914751591),
    ),
    "gs=0.0": (
        {"gs_factor": 0.0},
        (0.21105462709211742, 0.16446878676860477, 0.5643898584690297, 0.39699707392252837),
    ),
    "gs=0.1": (
        {"gs_factor": 0.1},
        (0.2140451893301385, 0.17487016241668218, 0.5643898584690297, 0.4049473151355434),
    ),
    "gs=0.33": (
        {"gs_factor": 0.33},
        (0.22092047558224803, 0.19876259601431756, 0.5643898584690297, 0.42309986963400803),
    ),
    "gs=0.66": (
        {"gs_factor": 0.66},
        (0.15753873928554918, 0.16480163586159446, 0.3871748786950411, 0.2985685450656972),
    ),
    "gs=1.0": (
        {"gs_factor": 1.0},
        (0.01830117359999961, 0.06050659770000011, 0.0, 0.056693853099999414),
    ),
    "arithmetic-mean": (
        {"aggregate": "arithmetic-mean"},
        (0.2359318912571428, 0.22496435121428573, 0.6333087044142857, 0.4988687063428571),
    ),
    "sum": ({"aggregate": "sum"}, (1.6515232388, 1.5747504585, 4.4331609309, 3.4920809444)),
    "maximum": ({"aggregate": "maximum"}, (0.4432564153, 0.4673043343, 1.0, 1.0)),
    "rank": (
        {"aggregate": "rank"},
        (
            (0.4432564153, 0.3791746789, 0.2987865526, 0.2869952257, 0.2067080191,
             0.0183011736, 0.0183011736),
            (0.4673043343, 0.328933284, 0.3185456866, 0.2404880312, 0.098465927,
             0.0605065977, 0.0605065977),
            (1.0, 1.0, 1.0, 1.0, 0.4331609309, 0.0, 0.0),
            (1.0, 1.0, 1.0, 0.2362442808, 0.1424489574, 0.0566938531, 0.0566938531),
        ),
    ),
    "geometric-mean weighted": (
        {"weights": WEIGHTS},
        (0.14987920851496828, 0.12722583954934907, 0.3631104947932571, 0.2260565123877436),
    ),
    "arithmetic-mean weighted": (
        {"weights": WEIGHTS, "aggregate": "arithmetic-mean"},
        (0.15859195550642854, 0.13301905255142857, 0.4178386711678571, 0.23955471619071428),
    ),
    "rank weighted": (
        {"weights": WEIGHTS, "aggregate": "rank"},
        (
            (0.3791746789, 0.332442311475, 0.2067080191, 0.1493932763, 0.028699522570000004,
             0.0091505868, 0.0045752934),
            (0.350478250725, 0.2404880312, 0.164466642, 0.098465927, 0.03185456866,
             0.03025329885, 0.015126649425),
            (1.0, 1.0, 0.5, 0.32487069817500003, 0.1, 0.0, 0.0),
            (0.5, 0.5, 0.25, 0.2362442808, 0.1424489574, 0.042520389825, 0.00566938531),
        ),
    ),
    "gs=0.2 sum weighted": (
        {"weights": WEIGHTS, "aggregate": "sum", "gs_factor": 0.2},
        (1.076261997045, 0.8075913612250001, 2.9248706981750003, 1.58920489942),
    ),
}  # fmt: skip
ARX_PRECISION = {  # Metric.createPrecisionMetric(false, ...)
    "default (arithmetic mean)": (
        {},
        (0.42734235130296405, 0.3401177293409241, 0.6428571428571428, 0.573266266920534),
    ),
    "gs=0.2": (
        {"gs_factor": 0.2},
        (0.41636164710562956, 0.3038137707174906, 0.6428571428571428, 0.5392499550048784),
    ),
    "geometric-mean weighted": (
        {"aggregate": "geometric-mean", "weights": WEIGHTS},
        (0.2731157608527268, 0.19427399704405346, 0.37036176714791, 0.2971505365434619),
    ),
}
ARX_AECS = {  # Metric.createAECSMetric(gs)
    0.5: (128.89743589743588, 53.86071428571429, 1508.1, 126.73109243697479),
    0.2: (320.1910828025478, 134.29207479964379, 3770.25, 314.8434237995824),
}
ARX_DM = (50815576.0, 62479545.0, 222882126.0, 76925624.0)  # createDiscernabilityMetric(false)


@pytest.fixture(scope="module")
def adult() -> Table:
    return Table.from_dataset(
        "adult-train", quasi_identifiers=QI, sensitive="occupation", hierarchy_set="arx"
    )


@pytest.fixture(scope="module")
def releases(adult) -> list[Release]:
    """Each node of NODES with its classes under 5 withheld, as ARX suppresses them."""
    out = []
    for node, (suppressed, classes) in NODES.items():
        full = generalize(adult, dict(zip(QI, node, strict=True)))
        keep = full.group_sizes[full.group] >= 5
        kept = adult.take(np.flatnonzero(keep))
        kept.dropped = dict(adult.dropped, suppressed_records=int((~keep).sum()))
        release = Release(
            kept,
            full.group[keep],
            "generalization",
            {"suppressed_records": int((~keep).sum())},
            levels=dict(zip(QI, node, strict=True)),
        )
        assert (release.manifest["suppressed_records"], release.n_groups) == (suppressed, classes)
        out.append(release)
    return out


@pytest.mark.parametrize("option", list(ARX_LOSS))
def test_loss_options_equal_arx(adult, releases, option):
    params, expected = ARX_LOSS[option]
    for release, want in zip(releases, expected, strict=True):
        got = arx_loss(release, original=adult, **params)
        if params.get("aggregate") == "rank":
            assert got.ranking == want, option
            assert got.value == want[0]
        else:
            assert got.value == want, option


@pytest.mark.parametrize("option", list(ARX_PRECISION))
def test_precision_with_suppression_equals_arx(releases, option):
    params, expected = ARX_PRECISION[option]
    for release, want in zip(releases, expected, strict=True):
        assert precision_loss(release, "arx", **params).value == want, option


@pytest.mark.parametrize("gs_factor", list(ARX_AECS))
def test_aecs_equals_arx(releases, gs_factor):
    for release, want in zip(releases, ARX_AECS[gs_factor], strict=True):
        assert average_class_size(release, definition="arx", gs_factor=gs_factor).value == want


def test_discernibility_equals_arx_non_monotonic_dm(releases):
    assert tuple(float(discernibility(r).value) for r in releases) == ARX_DM


def test_defaults_and_outputs_are_unchanged(releases):
    """The options default to ARX's defaults; the default results' JSON has the same keys as
    before the options existed; anonlab's own AECS and precision stay the defaults."""
    release = releases[0]
    loss = measure(release, "arx-loss")
    assert loss.value == ARX_LOSS["gs=0.5 geometric-mean (ARX's default)"][1][0]
    assert set(loss.to_json()) == {"measure", "value", "per_attribute", "levels", "suppressed"}
    aecs = average_class_size(release, k=5)
    assert aecs.value == release.table.n_rows / release.n_groups  # published records per class
    assert set(aecs.to_json()) == {"measure", "value", "normalized", "k", "n_rows", "n_groups"}
    assert aecs.normalized == aecs.value / 5
    arx = average_class_size(release, definition="arx")
    assert arx.value == (release.table.n_rows + 552) / (release.n_groups + 1)
    assert arx.to_json()["definition"] == "arx"
    # anonlab's precision: the mean of level / height, the lattice search's "precision".
    heights = [release.table.schema[q].hierarchy.height for q in QI]
    mean = np.mean([release.levels[q] / h for q, h in zip(QI, heights, strict=True)])
    assert precision_loss(release).value == pytest.approx(mean, abs=1e-15)
    assert measure(release, "arx-loss", aggregate="rank").to_json()["aggregate"] == "rank"


def test_equal_weights_change_nothing(releases):
    for release in releases:
        assert arx_loss(release, weights=dict.fromkeys(QI, 3.0)).value == arx_loss(release).value
        assert arx_loss(release, weights={}).value == arx_loss(release).value  # all 0.5


def test_gs_factor_below_half_needs_the_withheld_records(adult, releases):
    with pytest.raises(AnonlabError, match="original=TABLE"):
        arx_loss(releases[0], gs_factor=0.2)
    with pytest.raises(AnonlabError, match="the table the release was made from"):
        arx_loss(releases[0], gs_factor=0.2, original=adult.take(np.arange(100)))
    # No suppressed record: nothing to look up.
    assert arx_loss(releases[2], gs_factor=0.2).value == ARX_LOSS["gs=0.0"][1][2]


def test_lattice_release_with_suppression(adult):
    """A release from the lattice search (records withheld) takes the same options."""
    release = lattice(adult, "k-anonymity", k=5, suppression=0.02)
    assert tuple(release.levels[q] for q in QI) == (0, 3, 0, 1, 2, 1, 1)
    assert arx_loss(release, gs_factor=0.1, original=adult).value == ARX_LOSS["gs=0.1"][1][0]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"gs_factor": 1.5}, "gs_factor must lie in"),
        ({"gs_factor": "x"}, "gs_factor must be a number"),
        ({"aggregate": "median"}, "aggregate must be one of"),
        ({"weights": {"zip": 1.0}}, "not quasi-identifiers"),
        ({"weights": {"age": -1.0}}, "finite number >= 0"),
        ({"weights": [1, 2]}, "must map attribute names"),
    ],
)
def test_bad_options_are_refused_by_name(releases, params, message):
    with pytest.raises(AnonlabError, match=message):
        arx_loss(releases[2], **params)


def test_factor_and_weight_rules():
    assert arx_factors(0.5) == (1.0, 1.0)
    assert arx_factors(0.0) == (1.0, 0.0)
    assert arx_factors(1.0) == (0.0, 1.0)
    assert arx_factors(0.25) == (1.0, 0.5)
    assert arx_factors(0.75) == (0.5, 1.0)
    assert normalized_weights(["a", "b"], {"a": 2.0}) == [1.0, 0.25]  # b: ARX's default 0.5
    assert normalized_weights(["a", "b"], {"a": 0.0, "b": 0.0}) == [1.0, 1.0]
    assert normalized_weights(["a", "b"], None) is None
    x = [np.array([0.0, 0.5]), np.array([1.0, 0.25])]
    assert combine_losses(x, aggregate="maximum").tolist() == [1.0, 0.5]
    assert combine_losses(x, aggregate="sum", weights=[1.0, 0.5]).tolist() == [0.5, 0.625]


def test_precision_and_aecs_options_are_checked(releases):
    with pytest.raises(AnonlabError, match="definition"):
        average_class_size(releases[0], definition="mondrian")
    with pytest.raises(AnonlabError, match="definition='arx' only"):
        average_class_size(releases[0], gs_factor=0.2)
    with pytest.raises(AnonlabError, match="ARX's options"):
        precision_loss(releases[0], gs_factor=0.2)
    with pytest.raises(AnonlabError, match="rank"):
        precision_loss(releases[0], "arx", aggregate="rank")
