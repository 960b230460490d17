"""The facts each :class:`~anonlab.models.Model` record states (issue 18, item 1), checked
against brute force on small random tables:

* ``monotone``: where a node of the generalization lattice satisfies the model, every coarser
  node does (all nodes of a small lattice enumerated with ``generalize``);
* ``monotone_with_suppression``: the records in violating groups never increase from a node to
  a coarser one; a model that says False has a counterexample (the field is not just cautious);
* ``reads_sensitive``: a check that says False gives the same per-group values whatever the
  sensitive values;
* ``group_statistics``: a check that says True gives the same per-group values when the
  sensitive values are permuted within each group (same sizes, same histograms);
* ``sensitive_hierarchy_when``: the check refuses, and :meth:`Model.missing` names, a missing
  hierarchy on the sensitive attribute exactly then.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Hierarchy, Release, Table, models
from anonlab.anonymize import generalize

AGE = Hierarchy.intervals(range(8), (2, 4))
COLOUR = Hierarchy([["red", "warm", "*"], ["pink", "warm", "*"], ["blue", "cold", "*"],
                    ["navy", "cold", "*"]])  # fmt: skip
SENS = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]])
VALUES = "abcd"


def parameter_strategy(name: str, n: int, d: int) -> st.SearchStrategy[dict]:
    """Valid parameters of model ``name`` on a table of ``n`` records and ``d`` sensitive
    values."""
    subsets = st.sampled_from([None, ["a"], ["a", "b"]])
    if name == "k-anonymity":
        return st.fixed_dictionaries({"k": st.integers(1, 5)})
    if name == "l-diversity":
        return st.fixed_dictionaries({"l": st.integers(1, 3), "sensitive_values": subsets})
    if name == "distinct-l-diversity":
        return st.fixed_dictionaries({"l": st.integers(1, 4)})
    if name == "entropy-l-diversity":
        return st.fixed_dictionaries({"l": st.sampled_from([1, 1.5, 2, 2.5, 3])})
    if name == "recursive-cl-diversity":
        return st.fixed_dictionaries({"c": st.sampled_from([0.5, 1, 2, 3]), "l": st.integers(1, 3)})
    if name == "t-closeness":
        return st.fixed_dictionaries(
            {
                "t": st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]),
                "distance": st.sampled_from(["equal", "ordered", "hierarchical"]),
            }
        )
    if name == "ck-safety":
        return st.fixed_dictionaries(
            {"c": st.sampled_from([0.5, 0.7, 0.9, 1.0]), "k": st.integers(0, 2)}
        )
    if name == "m-confidentiality":
        return st.fixed_dictionaries({"m": st.integers(1, 3), "sensitive_values": subsets})
    if name == "multi-attribute-l-diversity":  # one sensitive attribute here: frequency ℓ
        return st.fixed_dictionaries({"l": st.integers(1, 3)})
    if name == "matching-l-diversity":
        matrix = st.lists(st.booleans(), min_size=n * d, max_size=n * d)
        return st.fixed_dictionaries(
            {
                "l": st.integers(1, 3),
                "incompatibility": matrix.map(lambda b: np.array(b, dtype=bool).reshape(n, d)),
                "reading": st.sampled_from(["matching", "simple"]),
            }
        )
    raise AssertionError(f"no parameters for {name}: add them when registering a model")


def test_every_model_has_a_parameter_strategy():
    for name in models.available():
        parameter_strategy(name, 4, 2)


@st.composite
def lattices(draw):
    """A small random table with hierarchies on its two QIs and its sensitive attribute, a
    model and its parameters."""
    n = draw(st.integers(3, 14))
    m = n - 2
    frame = pd.DataFrame(
        {
            "age": draw(st.lists(st.integers(0, 7), min_size=n, max_size=n)),
            "colour": draw(st.lists(st.sampled_from(list(COLOUR.leaves)), min_size=n, max_size=n)),
            # "a" and "b" occur, so the value subsets drawn below name values of the table
            "s": ["a", "b"] + draw(st.lists(st.sampled_from(VALUES), min_size=m, max_size=m)),
        }
    )
    table = Table.from_frame(
        frame,
        quasi_identifiers=["age", "colour"],
        sensitive="s",
        hierarchies={"age": AGE, "colour": COLOUR, "s": SENS},
    )
    name = draw(st.sampled_from(models.available()))
    params = draw(parameter_strategy(name, n, table.domain_size("s")))
    return table, name, params


def _nodes() -> list[tuple[int, int]]:
    return list(itertools.product(range(AGE.height + 1), range(COLOUR.height + 1)))


def _verdicts(table: Table, name: str, params: dict) -> dict[tuple[int, int], tuple[bool, int]]:
    """Each node -> (the model holds, records in violating groups)."""
    out = {}
    for node in _nodes():
        release = generalize(table, {"age": node[0], "colour": node[1]})
        result = models.check(release, name, **params)
        out[node] = (bool(result.holds), int(result.violating_records))
    return out


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lattices())
def test_monotonicity_fields_hold_on_every_coarser_node(case):
    table, name, params = case
    spec = models.get(name)
    verdicts = _verdicts(table, name, params)
    for fine, coarse in itertools.product(verdicts, repeat=2):
        if fine == coarse or not all(c >= f for f, c in zip(fine, coarse, strict=True)):
            continue
        if spec.monotone and verdicts[fine][0]:
            assert verdicts[coarse][0], (name, params, fine, coarse)
        if spec.monotone_with_suppression:
            assert verdicts[coarse][1] <= verdicts[fine][1], (name, params, fine, coarse)


def _release(sensitive: str, groups: list[int]) -> Release:
    n = len(sensitive)
    frame = pd.DataFrame({"q": np.arange(n), "s": list(sensitive)})
    table = Table.from_frame(frame, quasi_identifiers=["q"], sensitive="s", hierarchies={"s": SENS})
    return Release(table, np.asarray(groups), "bucketization")


#: Per model without monotonicity under suppression: parameters, a release's sensitive values,
#: its groups and a coarser grouping (groups merged) with more records in violating groups
#: (found by hand; t-closeness's by a seeded search).
NOT_MONOTONE_WITH_SUPPRESSION = {
    # {a,b} holds, {a} violates (1 record); {a,a,b}: 3 records violate
    "l-diversity": ({"l": 2}, "aba", [0, 0, 1], [0, 0, 0]),
    "multi-attribute-l-diversity": ({"l": 2}, "aba", [0, 0, 1], [0, 0, 0]),
    "entropy-l-diversity": ({"l": 2}, "aba", [0, 0, 1], [0, 0, 0]),
    "recursive-cl-diversity": ({"c": 1, "l": 2}, "abca", [0, 0, 0, 1], [0, 0, 0, 0]),
    "m-confidentiality": ({"m": 2}, "aba", [0, 0, 1], [0, 0, 0]),
    "t-closeness": (
        {"t": 0.3, "distance": "equal"},
        "accabab",
        [1, 0, 0, 1, 0, 2, 2],
        [1, 0, 0, 1, 0, 1, 1],
    ),
    # with no implications the disclosure is the largest share: 1/2, 1 apart; 2/3 merged
    "ck-safety": ({"c": 0.6, "k": 0}, "aba", [0, 0, 1], [0, 0, 0]),
    # exclusions consistent with the truth (a seeded search): {a, c} keeps 2 values per record,
    # {a, c, c} pins 3 records; merged, all 5 are left with one value
    "matching-l-diversity": (
        {"l": 2, "incompatibility": np.array([[0, 0], [0, 1], [0, 0], [0, 0], [1, 0]], bool)},
        "aaccc",
        [1, 0, 1, 0, 0],
        [0, 0, 0, 0, 0],
    ),
}


@pytest.mark.parametrize("name", [m.name for m in models.MODELS.values()])
def test_not_monotone_with_suppression_has_a_counterexample(name):
    spec = models.get(name)
    if spec.monotone_with_suppression:
        assert name not in NOT_MONOTONE_WITH_SUPPRESSION
        return
    params, sensitive, groups, merged_groups = NOT_MONOTONE_WITH_SUPPRESSION[name]
    assert all(  # a coarser grouping: records together stay together
        merged_groups[i] == merged_groups[j]
        for i in range(len(groups))
        for j in range(len(groups))
        if groups[i] == groups[j]
    )
    apart = models.check(_release(sensitive, groups), name, **params)
    merged = models.check(_release(sensitive, merged_groups), name, **params)
    assert merged.violating_records > apart.violating_records, (apart, merged)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lattices(), st.randoms(use_true_random=False))
def test_reads_sensitive_and_group_statistics(case, rnd):
    table, name, params = case
    spec = models.get(name)
    release = generalize(table, {"age": 1, "colour": 1})
    base = models.check(release, name, **params).per_group
    codes = table.codes["s"]
    if not spec.reads_sensitive:  # any other sensitive values: the same per-group values
        d = table.domain_size("s")
        shuffled = np.array([rnd.randrange(d) for _ in codes], dtype=codes.dtype)
        for new in (shuffled, np.roll(codes, 1)):
            again = models.check(_recode(release, new), name, **params).per_group
            assert np.array_equal(again, base), (name, params)
    if spec.group_statistics:
        # records of equal sensitive value trade groups: sizes and histograms stay the same
        group = release.group.copy()
        for v in np.unique(codes):
            rows = np.flatnonzero(codes == v)
            group[rows] = group[rows[np.array(rnd.sample(range(len(rows)), len(rows)))]]
        moved = Release(release.table, group, release.scheme)
        # the Release numbers groups anew: group g of the release is group same[g] of moved
        same = np.array([moved.group[np.flatnonzero(group == g)[0]] for g in range(len(base))])
        assert np.array_equal(moved.group_sizes[same], release.group_sizes)
        assert np.array_equal(moved.sensitive_histogram[same], release.sensitive_histogram)
        again = models.check(moved, name, **params).per_group
        assert np.array_equal(again[same], base), (name, params)


def _recode(release: Release, codes: np.ndarray) -> Release:
    """``release`` with the sensitive codes replaced (same groups, same QIs)."""
    table = release.table
    frame = table.to_frame()
    labels = [str(v) for v in table.values["s"]]
    frame["s"] = [labels[c] for c in codes]
    new = Table.from_frame(
        frame,
        quasi_identifiers=list(table.quasi_identifiers),
        sensitive="s",
        hierarchies={q: table.schema[q].hierarchy for q in (*table.quasi_identifiers, "s")},
    )
    return Release(new, release.group, release.scheme)


def test_matching_l_diversity_reads_more_than_group_statistics():
    # records 0 and 2 (both a) trade groups: same sizes and histograms ({a, b}, {a, c}), but
    # record 0 cannot have b, which pins group {0, 1} and not group {2, 1}
    inc = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]], dtype=bool)
    one = models.check(_release("abac", [0, 0, 1, 1]), "matching-l-diversity", l=2,
                       incompatibility=inc)  # fmt: skip
    two = models.check(_release("abac", [1, 0, 0, 1]), "matching-l-diversity", l=2,
                       incompatibility=inc)  # fmt: skip
    assert one.per_group.tolist() == [1, 2] and two.per_group.tolist() == [2, 2]
    assert not models.get("matching-l-diversity").group_statistics


def test_sensitive_hierarchy_requirement():
    frame = pd.DataFrame({"q": range(6), "s": list("abcabc")})
    bare = Table.from_frame(frame, quasi_identifiers=["q"], sensitive="s")
    with_h = Table.from_frame(
        frame, quasi_identifiers=["q"], sensitive="s",
        hierarchies={"s": Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])},
    )  # fmt: skip
    groups = np.array([0, 0, 0, 1, 1, 1])
    for name, spec in models.MODELS.items():
        needs = spec.needs_sensitive_hierarchy(distance="hierarchical")
        assert needs == (name == "t-closeness")
        assert not spec.needs_sensitive_hierarchy(distance="equal")
    spec = models.get("t-closeness")
    missing = spec.missing(bare, t=0.2, distance="hierarchical")
    assert len(missing) == 1 and "hierarchy on the sensitive attribute 's'" in missing[0]
    with pytest.raises(AnonlabError, match="hierarch"):
        models.check(Release(bare, groups, "bucketization"), "t-closeness", t=0.2,
                     distance="hierarchical")  # fmt: skip
    assert spec.missing(with_h, t=0.2, distance="hierarchical") == []
    models.check(Release(with_h, groups, "bucketization"), "t-closeness", t=0.2,
                 distance="hierarchical")  # fmt: skip
    assert spec.missing(bare, t=0.2) == [] and spec.missing(bare, t=0.2, distance="auto") == []
    no_sensitive = Table.from_frame(frame[["q"]], quasi_identifiers=["q"])
    assert "a sensitive attribute" in models.get("l-diversity").missing(no_sensitive, l=2)[0]


def test_parameters_are_the_signatures():
    import inspect

    for spec in models.MODELS.values():
        sig = inspect.signature(spec.function).parameters
        assert spec.parameters == tuple(p for p in sig if p != "release")
        assert set(spec.required) <= set(spec.parameters)


def test_docs_table_states_the_records():
    from pathlib import Path

    def yes(flag: bool) -> str:
        return "yes" if flag else "no"

    expected = []
    for spec in models.MODELS.values():
        when = ", ".join(f"`{p}={v!r}`" for p, v in spec.sensitive_hierarchy_when.items())
        cells = [f"`{spec.name}`", yes(spec.monotone), yes(spec.monotone_with_suppression),
                 yes(spec.reads_sensitive), yes(spec.group_statistics), when or "—"]  # fmt: skip
        expected.append("| " + " | ".join(cells) + " |")
    text = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text("utf-8")
    section = text.split("## What each model's record states", 1)[1].split("\n## ", 1)[0]
    assert [line for line in section.splitlines() if line.startswith("| `")] == expected
