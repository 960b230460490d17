"""Several privacy models at once and several sensitive attributes (issue 19), checked against
the individual checks of one model on separately built one-attribute tables.

``models.check(release, "k-anonymity,distinct-l-diversity", k=5, l=3)`` holds iff every model
holds; a group's value is the number of models it violates. On a release with several
sensitive attributes a model that reads them holds iff it holds for each; the expectations
here are the verdicts of one model on a table built with ``sensitive="dx"`` alone (never
through ``for_sensitive``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import Table, models
from anonlab.errors import AnonlabError
from anonlab.release import Release

SENS = ("dx", "ins")

#: Models checked per attribute, each with a strategy for its parameters (written out here,
#: not read from the registry).
PARAMETERS = {
    "k-anonymity": st.fixed_dictionaries({"k": st.integers(1, 4)}),
    "l-diversity": st.fixed_dictionaries({"l": st.integers(1, 3)}),
    "distinct-l-diversity": st.fixed_dictionaries({"l": st.integers(1, 3)}),
    "entropy-l-diversity": st.fixed_dictionaries({"l": st.sampled_from([1, 1.5, 2, 2.5])}),
    "recursive-cl-diversity": st.fixed_dictionaries(
        {"c": st.sampled_from([0.5, 1, 2, 3]), "l": st.integers(1, 3)}
    ),
    "t-closeness": st.fixed_dictionaries(
        {"t": st.sampled_from([0.05, 0.1, 0.2, 0.4])},
        optional={"distance": st.sampled_from(["equal", "ordered"])},
    ),
    "m-confidentiality": st.fixed_dictionaries({"m": st.integers(1, 3)}),
}
#: Whether a smaller ("min") or larger ("max") per-group value is worse, per model.
WORST = {
    "k-anonymity": "min",
    "l-diversity": "min",
    "distinct-l-diversity": "min",
    "entropy-l-diversity": "min",
    "recursive-cl-diversity": "max",
    "t-closeness": "max",
    "m-confidentiality": "min",
}


@st.composite
def frames(draw) -> pd.DataFrame:
    """A quasi-identifier q, dx (letters) and ins (numbers, so t-closeness's automatic distance
    is ordered), and a group per record (column g, not part of the table)."""
    n = draw(st.integers(1, 30))
    n_groups = draw(st.integers(1, 6))
    dx = draw(st.sampled_from(["ab", "abc", "abcde"]))
    ins = draw(st.integers(1, 4))
    column = lambda values: draw(st.lists(values, min_size=n, max_size=n))  # noqa: E731
    return pd.DataFrame(
        {
            "q": column(st.integers(0, 9)),
            "dx": column(st.sampled_from(dx)),
            "ins": column(st.integers(0, ins - 1)),
            "g": column(st.integers(0, n_groups - 1)),
        }
    )


def release_of(df: pd.DataFrame, sensitive) -> Release:
    """The groups ``df["g"]`` over a table with ``sensitive`` (one name or a list)."""
    names = [sensitive] if isinstance(sensitive, str) else list(sensitive)
    table = Table.from_frame(df[["q", *names]], quasi_identifiers=["q"], sensitive=sensitive)
    return Release(table, df["g"].to_numpy(), "generalization")


def violating(result) -> np.ndarray:
    out = np.zeros(len(result.per_group), dtype=bool)
    out[np.asarray(result.violating_groups, dtype=np.int64)] = True
    return out


def per_attribute(df: pd.DataFrame, model: str, params: dict) -> dict:
    """``model`` checked on each attribute's own release (a separately built table)."""
    return {a: models.check(release_of(df, a), model, **params) for a in SENS}


# ---------------------------------------------------------------------- per attribute
@pytest.mark.parametrize("model", sorted(PARAMETERS))
@settings(max_examples=40, deadline=None)
@given(df=frames(), data=st.data())
def test_a_model_holds_on_several_attributes_iff_it_holds_on_each(model, df, data):
    params = data.draw(PARAMETERS[model])
    release = release_of(df, list(SENS))
    result = models.check(release, model, **params)
    alone = per_attribute(df, model, params)
    assert result.holds == all(r.holds for r in alone.values())
    union = np.logical_or.reduce([violating(r) for r in alone.values()])
    assert violating(result).tolist() == union.tolist()
    sizes = release.group_sizes
    assert result.violating_records == int(sizes[union].sum())
    stack = np.stack([np.asarray(r.per_group, dtype=float) for r in alone.values()])
    worst = stack.min(axis=0) if WORST[model] == "min" else stack.max(axis=0)
    assert np.asarray(result.per_group, dtype=float).tolist() == worst.tolist()
    assert float(result.value) == float(worst.min() if WORST[model] == "min" else worst.max())
    if model == "k-anonymity":  # reads no sensitive value: one check, no per-attribute details
        return
    details = result.details["per_attribute"]
    assert list(details) == list(SENS)
    for a, r in alone.items():
        assert details[a]["holds"] == r.holds
        assert details[a]["value"] == r.value
        assert details[a]["violating_groups"] == r.n_violating_groups
        assert details[a]["violating_records"] == r.violating_records


@settings(max_examples=40, deadline=None)
@given(frames(), st.sampled_from([0.05, 0.1, 0.2, 0.4]), st.sampled_from(["equal", "ordered"]))
def test_t_closeness_takes_a_distance_per_attribute(df, t, ins_distance):
    """A distance given per attribute (a mapping keyed by the sensitive attributes, as
    Mondrian's manifest records it) is each attribute's; without one each attribute gets its
    own automatic distance (equal for the letters of dx, ordered for the numbers of ins)."""
    release = release_of(df, list(SENS))
    distance = {"dx": "equal", "ins": ins_distance}
    result = models.check(release, "t-closeness", t=t, distance=distance)
    alone = {a: models.check(release_of(df, a), "t-closeness", t=t, distance=distance[a])
             for a in SENS}  # fmt: skip
    assert result.holds == all(r.holds for r in alone.values())
    for a, r in alone.items():
        assert result.details["per_attribute"][a]["value"] == r.value
    auto = models.check(release, "t-closeness", t=t)
    for a, own in {"dx": "equal", "ins": "ordered"}.items():
        r = models.check(release_of(df, a), "t-closeness", t=t, distance=own)
        assert auto.details["per_attribute"][a]["value"] == r.value
        assert auto.details["per_attribute"][a]["holds"] == r.holds


# ---------------------------------------------------------------------- combinations
@st.composite
def combinations(draw) -> tuple[list[str], dict]:
    """Two or three distinct models and parameters every one of them accepts (a parameter
    two models share, l or c, is drawn once, from the first one's strategy)."""
    names = draw(st.lists(st.sampled_from(sorted(PARAMETERS)), min_size=2, max_size=3,
                          unique=True))  # fmt: skip
    params: dict = {}
    for name in names:
        for key, value in draw(PARAMETERS[name]).items():
            params.setdefault(key, value)
    integer_l = {"l-diversity", "distinct-l-diversity", "recursive-cl-diversity"}
    if integer_l & set(names) and "l" in params:
        params["l"] = int(np.ceil(params["l"]))  # those forms need an integer ℓ
    if "recursive-cl-diversity" in names and "c" not in params:
        params["c"] = 2
    return names, params


TAKES = {
    "k-anonymity": {"k"},
    "l-diversity": {"l"},
    "distinct-l-diversity": {"l"},
    "entropy-l-diversity": {"l"},
    "recursive-cl-diversity": {"c", "l"},
    "t-closeness": {"t", "distance"},
    "m-confidentiality": {"m"},
}


@pytest.mark.parametrize("sensitive", [list(SENS), "dx"], ids=["two attributes", "one"])
@settings(max_examples=60, deadline=None)
@given(df=frames(), drawn=combinations())
def test_a_combination_holds_iff_every_model_holds(sensitive, df, drawn):
    """The combination against each model checked alone on each attribute's own table: it
    holds iff all hold, a group violates it iff it violates some model for some attribute,
    and a group's value is the number of models it violates (for any attribute)."""
    names, params = drawn
    release = release_of(df, sensitive)
    attributes = [sensitive] if isinstance(sensitive, str) else list(sensitive)
    result = models.check(release, ",".join(names), **params)
    count = np.zeros(release.n_groups, dtype=np.int64)
    verdicts = {}
    for name in names:
        own = {key: params[key] for key in TAKES[name] if key in params}
        alone = [models.check(release_of(df, a), name, **own) for a in attributes]
        bad = np.logical_or.reduce([violating(r) for r in alone])
        count += bad
        verdicts[name] = all(r.holds for r in alone)
    assert result.holds == all(verdicts.values())
    assert np.asarray(result.per_group).tolist() == count.tolist()
    assert violating(result).tolist() == (count > 0).tolist()
    assert result.value == (int(count.max()) if len(count) else 0)
    assert result.violating_records == int(release.group_sizes[count > 0].sum())
    per_model = result.details["per_model"]
    assert list(per_model) == names
    for name in names:
        assert per_model[name]["holds"] == verdicts[name]
    assert result.model == ",".join(names)


def _fixed(n: int = 12) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "q": list(range(n)),
            "dx": list("abca" * (n // 4)),
            "ins": [0, 0, 1, 1] * (n // 4),
            "g": [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2][:n],
        }
    )


def test_a_hand_checked_combination():
    """Three groups of four: dx a,b,c,a and ins 0,0,1,1 in each. 3-distinct over dx holds, over
    ins fails (two values); 4-anonymity holds; so k-anonymity,distinct-l-diversity fails in
    every group, each violating one model."""
    release = release_of(_fixed(), list(SENS))
    result = models.check(release, "k-anonymity,distinct-l-diversity", k=4, l=3)
    assert not result.holds
    assert np.asarray(result.per_group).tolist() == [1, 1, 1]
    assert result.details["per_model"]["k-anonymity"]["holds"]
    assert not result.details["per_model"]["distinct-l-diversity"]["holds"]
    assert models.check(release, "k-anonymity,distinct-l-diversity", k=4, l=2).holds
    both_fail = models.check(release, "k-anonymity, distinct-l-diversity", k=5, l=3)
    assert np.asarray(both_fail.per_group).tolist() == [2, 2, 2]


def test_a_combination_refuses_what_no_model_takes_and_what_one_lacks():
    release = release_of(_fixed(), list(SENS))
    with pytest.raises(AnonlabError) as error:
        models.check(release, "k-anonymity,distinct-l-diversity", k=2, l=2, t=0.2)
    assert "'t'" in str(error.value) and "k-anonymity,distinct-l-diversity" in str(error.value)
    with pytest.raises(AnonlabError, match="'l'"):
        models.check(release, "k-anonymity,distinct-l-diversity", k=2)
    with pytest.raises(AnonlabError, match="'nonsense'"):
        models.check(release, "k-anonymity,nonsense", k=2)
    with pytest.raises(AnonlabError, match="named twice"):
        models.check(release, "k-anonymity,k-anonymity", k=2)
    with pytest.raises(AnonlabError, match="'m'"):  # one model alone: its own parameters
        models.check(release, "distinct-l-diversity", l=2, m=2)


@pytest.mark.parametrize("model", ["l-diversity", "m-confidentiality", "k-anonymity,l-diversity"])
def test_sensitive_values_are_refused_on_several_attributes(model):
    """They name values of one attribute: refused, alone or in a combination, even where the
    labels occur in both attributes (ins holds 'a' too)."""
    df = _fixed()
    df["ins"] = np.where(df["ins"] == 0, "a", "b")
    release = release_of(df, list(SENS))
    params = {"l-diversity": {"l": 2}, "m-confidentiality": {"m": 2},
              "k-anonymity,l-diversity": {"k": 2, "l": 2}}[model]  # fmt: skip
    with pytest.raises(AnonlabError, match="sensitive_values") as error:
        models.check(release, model, sensitive_values=["a"], **params)
    assert "dx" in str(error.value) and "ins" in str(error.value)
    one = release_of(df, "dx")  # one attribute: taken
    models.check(one, model, sensitive_values=["a"], **params)


def test_a_model_that_reads_values_needs_a_sensitive_attribute_in_a_combination():
    df = _fixed()
    table = Table.from_frame(df[["q"]], quasi_identifiers=["q"])
    release = Release(table, df["g"].to_numpy(), "generalization")
    assert models.check(release, "k-anonymity", k=4).holds
    with pytest.raises(AnonlabError, match="sensitive"):
        models.check(release, "k-anonymity,distinct-l-diversity", k=4, l=2)


def test_a_search_candidate_reads_each_attributes_histogram_and_reference():
    """A release known by its statistics only (the lattice's candidates), with the histograms
    side by side and, after suppression, the reference counts one after the other: each
    attribute's check reads its own block (here the reference of ins differs from its kept
    records' counts, as after suppression)."""
    df = _fixed()
    full = release_of(df, list(SENS))
    dx_hist = np.stack([np.bincount(full.table.codes["dx"][full.group == g], minlength=3)
                        for g in range(3)])  # fmt: skip
    ins_hist = np.stack([np.bincount(full.table.codes["ins"][full.group == g], minlength=2)
                         for g in range(3)])  # fmt: skip
    reference = np.array([7, 3, 2, 2, 10])  # dx a,b,c of 12 records; ins 0,1 of 12
    candidate = Release._from_statistics(
        full.table, 3, np.array([4, 4, 4]), lambda: np.hstack([dx_hist, ins_hist]),
        reference_counts=reference,
    )  # fmt: skip
    result = models.check(candidate, "t-closeness", t=1.0, distance="equal")
    for a, counts, ref in (("dx", dx_hist, reference[:3]), ("ins", ins_hist, reference[3:])):
        n, sizes = ref.sum(), counts.sum(axis=1)
        emd = np.abs(counts / sizes[:, None] - ref[None, :] / n).sum(axis=1) / 2
        assert result.details["per_attribute"][a]["value"] == pytest.approx(emd.max())
    distinct = models.check(candidate, "distinct-l-diversity", l=3)
    assert distinct.details["per_attribute"]["dx"]["holds"]
    assert not distinct.details["per_attribute"]["ins"]["holds"]


def test_the_result_states_the_distance_each_attribute_was_checked_with():
    release = release_of(_fixed(), list(SENS))
    result = models.check(release, "t-closeness", t=0.2)
    per_attribute = result.details["per_attribute"]
    assert per_attribute["dx"]["details"]["distance"] == "equal"
    assert per_attribute["ins"]["details"]["distance"] == "ordered"
    assert result.parameters["distance"] == {"dx": "equal", "ins": "ordered"}
