"""Lattice search: equal to exhaustive search on small lattices, and ARX 3.9.2's nodes on Adult."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Hierarchy, IneligibleError, Table, models
from anonlab.anonymize import anonymize, generalize
from anonlab.anonymize.lattice import lattice
from anonlab.release import Release
from anonlab.release_io import load_release, save_release
from anonlab.utility import measure

ARX_QI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]

# ARX 3.9.2 on adult-train, 0% suppression (shared/datasets/adult/arx-hierarchies/README.md).
ARX_ROWS = [
    ("k-anonymity", {"k": 5}, (4, 0, 0, 1, 3, 2, 2), 20, 0.5644),
    ("distinct-l-diversity", {"l": 4}, (4, 0, 0, 1, 3, 2, 2), 20, 0.5644),
    ("t-closeness", {"t": 0.2, "distance": "equal"}, (4, 1, 1, 1, 3, 2, 2), 2, 0.9070),
]


# ... and at 2% suppression: node, classes, suppressed records, Loss.
ARX_ROWS_2 = [
    ("k-anonymity", {"k": 5}, (3, 0, 0, 1, 2, 1, 1), 233, 552, 0.2260),
    ("distinct-l-diversity", {"l": 4}, (4, 0, 0, 0, 2, 1, 1), 184, 588, 0.2546),
    ("t-closeness", {"t": 0.2, "distance": "equal"}, (4, 1, 1, 1, 3, 1, 2), 6, 235, 0.7900),
]


@pytest.fixture(scope="module")
def adult_train() -> Table:
    return Table.from_dataset(
        "adult-train", quasi_identifiers=ARX_QI, sensitive="occupation", hierarchy_set="arx"
    )


@pytest.mark.parametrize(("model", "params", "levels", "classes", "loss"), ARX_ROWS)
def test_finds_arx_node(adult_train, model, params, levels, classes, loss):
    release = lattice(adult_train, model, **params)
    assert tuple(release.levels[q] for q in ARX_QI) == levels
    assert release.n_groups == classes
    assert round(measure(release, "arx-loss").value, 4) == loss
    info = release.manifest["lattice"]
    assert info["nodes"] == 2160 and info["checked"] < 2160


@pytest.mark.parametrize(("model", "params", "levels", "classes", "suppressed", "loss"), ARX_ROWS_2)
def test_finds_arx_node_with_suppression(
    adult_train, model, params, levels, classes, suppressed, loss, tmp_path
):
    release = lattice(adult_train, model, suppression=0.02, **params)
    assert tuple(release.levels[q] for q in ARX_QI) == levels
    assert release.n_groups == classes
    assert release.manifest["suppressed_records"] == suppressed
    assert release.table.n_rows == adult_train.n_rows - suppressed
    assert round(measure(release, "arx-loss").value, 4) == loss
    assert models.check(release, model, **params).holds
    loaded = load_release(save_release(release, tmp_path / "rel"))
    assert round(measure(loaded, "arx-loss").value, 4) == loss  # suppression survives the files
    assert models.check(loaded, model, **params).holds


AGE = Hierarchy.intervals(range(12), (3, 6))
COLOUR = Hierarchy([["red", "warm", "*"], ["pink", "warm", "*"], ["blue", "cold", "*"],
                    ["navy", "cold", "*"], ["teal", "cold", "*"]])  # fmt: skip
SIZE = Hierarchy([["S", "*"], ["M", "*"], ["L", "*"]])


@st.composite
def cases(draw):
    n = draw(st.integers(4, 40))
    df = pd.DataFrame(
        {
            "age": draw(st.lists(st.integers(0, 11), min_size=n, max_size=n)),
            "colour": draw(st.lists(st.sampled_from(list(COLOUR.leaves)), min_size=n, max_size=n)),
            "size": draw(st.lists(st.sampled_from(list(SIZE.leaves)), min_size=n, max_size=n)),
            "s": draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n)),
        }
    )
    model, params = draw(
        st.sampled_from(
            [
                ("k-anonymity", {"k": 2}),
                ("k-anonymity", {"k": 4}),
                ("l-diversity", {"l": 2}),
                ("distinct-l-diversity", {"l": 2}),
                ("entropy-l-diversity", {"l": 2}),
                ("recursive-cl-diversity", {"c": 2, "l": 2}),
                ("t-closeness", {"t": 0.3}),
            ]
        )
    )
    metric = draw(st.sampled_from(["arx-loss", "height", "precision", "discernibility", "aecs"]))
    return df, model, params, metric


@settings(max_examples=120, deadline=None)
@given(cases())
def test_equals_exhaustive_search(case):
    df, model, params, metric = case
    table = Table.from_frame(
        df, quasi_identifiers=["age", "colour", "size"], sensitive="s",
        hierarchies={"age": AGE, "colour": COLOUR, "size": SIZE},
    )  # fmt: skip
    qi = table.quasi_identifiers
    heights = [AGE.height, COLOUR.height, SIZE.height]
    nodes = np.array(list(itertools.product(*(range(h + 1) for h in heights))))
    releases = [generalize(table, dict(zip(qi, n.tolist(), strict=True))) for n in nodes]
    if metric == "arx-loss":
        cost = [measure(r, "arx-loss").value for r in releases]
    elif metric == "height":
        cost = nodes.sum(axis=1).tolist()
    elif metric == "precision":
        cost = (nodes / np.array(heights)).mean(axis=1).tolist()
    elif metric == "discernibility":
        cost = [measure(r, "discernibility").value for r in releases]
    else:
        cost = [measure(r, "average-class-size").value for r in releases]
    holding = [
        (cost[i], nodes[i].sum(), i)
        for i, r in enumerate(releases)
        if models.check(r, model, **params).holds
    ]
    if not holding:
        with pytest.raises(IneligibleError):
            lattice(table, model, metric=metric, **params)
        return
    got = lattice(table, model, metric=metric, **params)
    index = int(np.flatnonzero((nodes == [got.levels[q] for q in qi]).all(axis=1))[0])
    best_cost = min(holding)[0]
    # The node is optimal (float ties within 1e-12 may resolve either way) ...
    assert cost[index] <= best_cost + 1e-12
    # ... and when the optimum is unique up to the tie-break, it is the same node.
    ties = [h for h in holding if h[0] <= best_cost + 1e-12]
    if len(ties) == 1:
        assert index == ties[0][2]
    assert models.check(got, model, **params).holds


def test_registry_and_manifest(adult_train):
    release = anonymize(adult_train, "lattice", model="k-anonymity", k=5, metric="height")
    assert release.manifest["algorithm"] == "lattice"
    assert release.manifest["parameters"]["metric"] == "height"
    assert models.check(release, "k-anonymity", k=5).holds


def test_errors(adult_train):
    with pytest.raises(AnonlabError, match="unknown model"):
        lattice(adult_train, "x-anonymity", k=2)
    with pytest.raises(AnonlabError, match="'metric'"):
        lattice(adult_train, "k-anonymity", k=2, metric="entropy")
    with pytest.raises(IneligibleError, match="even the most general"):
        lattice(adult_train, "k-anonymity", k=40_000)
    no_hierarchy = Table.from_frame(
        pd.DataFrame({"a": list("wxyz"), "s": list("abab")}), quasi_identifiers=["a"], sensitive="s"
    )
    with pytest.raises(AnonlabError, match="'a' has no hierarchy"):
        lattice(no_hierarchy, "k-anonymity", k=2)


def test_a_number_without_hierarchy_gets_automatic_intervals():
    # issue 17, item 3: ages 20..59 get bands of 5 merged two by two; k = 4 needs a level up
    frame = pd.DataFrame({"age": list(range(20, 60)), "s": list("abcd") * 10})
    table = Table.from_frame(frame, quasi_identifiers=["age"], sensitive="s")
    release = lattice(table, "k-anonymity", k=4)
    h = release.table.schema["age"].hierarchy
    assert h.labels(1).tolist()[:2] == ["[20, 25)", "[25, 30)"]
    assert release.levels == {"age": 1}  # bands of 5: 5 records each
    assert "automatic: intervals of 5" in release.manifest["column_types"]["age"]["hierarchy"]


@settings(max_examples=80, deadline=None)
@given(
    cases(),
    st.sampled_from([0.1, 0.25]),
    st.sampled_from(["arx-loss", "height", "precision", "discernibility", "aecs"]),
)
def test_equals_exhaustive_search_with_suppression(case, suppression, metric):
    df, model, params, _ = case
    table = Table.from_frame(
        df, quasi_identifiers=["age", "colour", "size"], sensitive="s",
        hierarchies={"age": AGE, "colour": COLOUR, "size": SIZE},
    )  # fmt: skip
    qi = table.quasi_identifiers
    limit = int(np.floor(suppression * table.n_rows + 1e-9))
    reference = np.bincount(table.codes["s"], minlength=table.domain_size("s"))
    heights = [AGE.height, COLOUR.height, SIZE.height]
    nodes = np.array(list(itertools.product(*(range(h + 1) for h in heights))))
    feasible = []
    for i, node in enumerate(nodes):
        levels = dict(zip(qi, node.tolist(), strict=True))
        full = generalize(table, levels)
        check = models.check(
            Release(table, full.group, "generalization", reference_counts=reference),
            model, **params,
        )  # fmt: skip
        if check.violating_records > limit:
            continue
        keep = ~np.isin(full.group, check.violating_groups)
        kept = Release(
            table.take(np.flatnonzero(keep)), full.group[keep], "generalization",
            {"suppressed_records": int((~keep).sum())}, levels=levels,
        )  # fmt: skip
        if metric == "height":
            cost = float(node.sum())
        elif metric == "precision":
            cost = float((node / np.array(heights)).mean())
        elif metric == "aecs":
            cost = measure(kept, "average-class-size").value
        else:
            cost = measure(kept, metric).value
        feasible.append((cost, i))
    if not feasible:
        with pytest.raises(IneligibleError):
            lattice(table, model, metric=metric, suppression=suppression, **params)
        return
    got = lattice(table, model, metric=metric, suppression=suppression, **params)
    index = int(np.flatnonzero((nodes == [got.levels[q] for q in qi]).all(axis=1))[0])
    costs = dict((i, c) for c, i in feasible)
    assert index in costs  # the node found is acceptable ...
    assert costs[index] <= min(feasible)[0] + 1e-12  # ... and optimal
    assert got.manifest["suppressed_records"] <= limit


def test_verdicts_cover_the_whole_lattice(adult_train):
    release = lattice(adult_train, "k-anonymity", k=5, suppression=0.02, verdicts=True)
    v = release.manifest["lattice"]["verdicts"]
    assert v["quasi_identifiers"] == ARX_QI and len(v["levels"]) == 2160
    acceptable = np.array(v["acceptable"])
    suppressed = np.array(v["suppressed"])
    assert ((suppressed <= 603) == acceptable).all()  # floor(0.02 * 30,162) = 603
    chosen = v["levels"].index([release.levels[q] for q in ARX_QI])
    assert acceptable[chosen] and suppressed[chosen] == 552
    # k-anonymity with suppression is monotone: a generalization of an acceptable node is too.
    levels = np.array(v["levels"])
    for i in np.flatnonzero(acceptable)[:50]:
        above = (levels >= levels[i]).all(axis=1)
        assert acceptable[above].all()
