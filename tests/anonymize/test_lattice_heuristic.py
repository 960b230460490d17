"""Lightning, the heuristic lattice search: against exhaustive search on tiny lattices, against the
exact search on Adult, and on lattices far too large to list (issue 20, part 3)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import AnonlabError, Hierarchy, IneligibleError, Table, models
from anonlab.anonymize import generalize
from anonlab.anonymize.lattice import lattice
from anonlab.anonymize.lightning import lightning
from anonlab.release import Release
from anonlab.utility import measure

ARX_QI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
SETTINGS = [
    ("k-anonymity", {"k": 5}),
    ("distinct-l-diversity", {"l": 4}),
    ("t-closeness", {"t": 0.2, "distance": "equal"}),
]


@pytest.fixture(scope="module")
def adult_train() -> Table:
    return Table.from_dataset(
        "adult-train", quasi_identifiers=ARX_QI, sensitive="occupation", hierarchy_set="arx"
    )


@pytest.mark.parametrize("suppression", [0.0, 0.02])
@pytest.mark.parametrize(("model", "params"), SETTINGS)
def test_budgeted_node_is_acceptable_and_bounded_by_the_exact_optimum(
    adult_train, model, params, suppression
):
    exact = lattice(adult_train, model, suppression=suppression, **params)
    optimum = exact.manifest["lattice"]["metric_value"]
    got = lightning(adult_train, model, suppression=suppression, max_checks=120, **params)
    info = got.manifest["lattice"]
    # The node satisfies the model, within the suppression limit ...
    assert models.check(got, model, **params).holds
    assert got.manifest["suppressed_records"] <= int(np.floor(suppression * 30_162))
    assert got.table.n_rows == adult_train.n_rows - got.manifest["suppressed_records"]
    # ... its loss is the release's ARX Loss, and no better than the optimum ...
    assert measure(got, "arx-loss").value == pytest.approx(info["metric_value"], abs=1e-9)
    assert info["metric_value"] >= optimum - 1e-12
    # ... and the lower bound it reports is one: the optimum lies in [lower_bound, loss].
    assert info["lower_bound"] <= optimum + 1e-12
    assert info["gap"] == pytest.approx(info["metric_value"] - info["lower_bound"])
    assert info["checked"] <= 120 + info["top_checked_beyond_budget"]
    assert info["stopped_by"] == "checks" and info["nodes"] == 2160
    if not info["proven_optimal"]:
        assert "not proven optimal" in info["note"]


@pytest.mark.parametrize(("model", "params"), SETTINGS[:2])
def test_without_budget_it_is_exact(adult_train, model, params):
    exact = lattice(adult_train, model, suppression=0.02, **params)
    got = lightning(adult_train, model, suppression=0.02, max_checks=None, **params)
    info = got.manifest["lattice"]
    assert got.levels == exact.levels
    assert info["metric_value"] == exact.manifest["lattice"]["metric_value"]
    assert info["proven_optimal"] and info["stopped_by"] is None and info["gap"] == 0.0
    assert info["lower_bound"] == info["metric_value"]
    assert "proven optimal" in info["note"]


def test_deterministic_and_budget_grows_no_worse(adult_train):
    runs = [lightning(adult_train, "k-anonymity", k=5, max_checks=m) for m in (60, 60, 200, 400)]
    first, again = runs[0].manifest["lattice"], runs[1].manifest["lattice"]
    assert runs[0].levels == runs[1].levels and first == again
    losses = [r.manifest["lattice"]["metric_value"] for r in runs]
    assert losses[1] >= losses[2] >= losses[3]  # a larger budget extends the same search


AGE = Hierarchy.intervals(range(12), (3, 6))
COLOUR = Hierarchy([["red", "warm", "*"], ["pink", "warm", "*"], ["blue", "cold", "*"],
                    ["navy", "cold", "*"], ["teal", "cold", "*"]])  # fmt: skip
SIZE = Hierarchy([["S", "*"], ["M", "*"], ["L", "*"]])


@st.composite
def tiny_cases(draw):
    n = draw(st.integers(4, 30))
    frame = pd.DataFrame(
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
                ("distinct-l-diversity", {"l": 2}),
                ("entropy-l-diversity", {"l": 2}),
                ("t-closeness", {"t": 0.3}),
            ]
        )
    )
    suppression = draw(st.sampled_from([0.0, 0.1, 0.25]))
    metric = draw(st.sampled_from(["arx-loss", "arx-loss", "height", "precision"]))
    return frame, model, params, suppression, metric


def brute_force(table: Table, model: str, params: dict, suppression: float, metric: str):
    """Every node's cost if it is acceptable (records of violating classes withheld, at most
    ``floor(suppression * n)`` of them), by generalizing and checking each node."""
    qi = table.quasi_identifiers
    heights = [table.schema[q].hierarchy.height for q in qi]
    limit = int(np.floor(suppression * table.n_rows + 1e-9))
    reference = np.bincount(table.codes["s"], minlength=table.domain_size("s"))
    nodes = np.array(list(itertools.product(*(range(h + 1) for h in heights))))
    cost = {}
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
            cost[i] = float(node.sum())
        elif metric == "precision":
            cost[i] = float((node / np.array(heights)).mean())
        else:
            cost[i] = measure(kept, metric).value
    return nodes, cost


@settings(max_examples=40, deadline=None)
@given(tiny_cases(), st.integers(1, 6))
def test_equals_exhaustive_search_on_tiny_lattices(case, budget):
    frame, model, params, suppression, metric = case
    table = Table.from_frame(
        frame, quasi_identifiers=["age", "colour", "size"], sensitive="s",
        hierarchies={"age": AGE, "colour": COLOUR, "size": SIZE},
    )  # fmt: skip
    nodes, cost = brute_force(table, model, params, suppression, metric)
    kwargs = dict(metric=metric, suppression=suppression, **params)
    if not cost:
        with pytest.raises(IneligibleError):
            lightning(table, model, max_checks=None, **kwargs)
        return
    optimum = min(cost.values())
    qi = table.quasi_identifiers

    def index(release):
        return int(np.flatnonzero((nodes == [release.levels[q] for q in qi]).all(axis=1))[0])

    # Unbounded: optimal, and says so.
    got = lightning(table, model, max_checks=None, **kwargs)
    info = got.manifest["lattice"]
    assert index(got) in cost and cost[index(got)] <= optimum + 1e-9
    assert info["proven_optimal"] and info["lower_bound"] <= optimum + 1e-9
    # Bounded: an acceptable node, and an honest interval around the optimum.
    got = lightning(table, model, max_checks=budget, **kwargs)
    info = got.manifest["lattice"]
    assert index(got) in cost and cost[index(got)] >= optimum - 1e-9
    assert info["metric_value"] == pytest.approx(cost[index(got)], abs=1e-9)
    assert info["lower_bound"] <= optimum + 1e-9
    assert info["proven_optimal"] == (info["lower_bound"] >= info["metric_value"])


def test_a_lattice_of_ten_billion_nodes():
    # 15 quasi-identifiers with 5 levels each: 5**15 ≈ 3.1e10 nodes, never listed.
    rng = np.random.default_rng(20)
    n, q = 3000, 15
    codes = rng.integers(0, 16, size=(n, q))
    frame = pd.DataFrame({f"q{j}": codes[:, j].astype(str) for j in range(q)})
    frame["s"] = rng.choice(list("abcdef"), size=n)
    bands = Hierarchy.intervals(range(16), (2, 4, 8))  # 16 leaves, 8, 4, 2, then *: height 4
    hierarchy = Hierarchy([[str(v), *row[1:]] for v, row in enumerate(bands.rows())])
    table = Table.from_frame(
        frame, quasi_identifiers=[f"q{j}" for j in range(q)], sensitive="s",
        hierarchies={f"q{j}": hierarchy for j in range(q)},
    )  # fmt: skip
    got = lightning(table, "k-anonymity", k=3, suppression=0.05, max_checks=300)
    info = got.manifest["lattice"]
    assert info["nodes"] == 5**15
    assert info["checked"] <= 300 + info["top_checked_beyond_budget"]
    assert models.check(got, "k-anonymity", k=3).holds
    assert got.manifest["suppressed_records"] <= 150
    assert 0.0 <= info["lower_bound"] <= info["metric_value"]
    assert not info["proven_optimal"] and "not proven optimal" in info["note"]


def test_errors(adult_train):
    with pytest.raises(AnonlabError, match="'metric'"):
        lightning(adult_train, "k-anonymity", k=5, metric="discernibility")
    with pytest.raises(AnonlabError, match="max_checks"):
        lightning(adult_train, "k-anonymity", k=5, max_checks=0)
    with pytest.raises(AnonlabError, match="unknown model"):
        lightning(adult_train, "x-anonymity", k=5)
    with pytest.raises(IneligibleError, match="not even the most general"):
        lightning(adult_train, "k-anonymity", k=40_000, max_checks=20)


def test_cli_runs_lightning_and_says_it_is_not_proven_optimal(tmp_path, cli):
    out = tmp_path / "rel"
    code, stdout, stderr = cli(
        ["anonymize", "--dataset", "adult-train", "--algorithm", "lightning", "--model",
         "k-anonymity", "--k", "5", "--suppression", "0.02", "--max-checks", "40",
         "--out", str(out)]
    )  # fmt: skip
    assert code == 0, stderr
    assert "not proven optimal" in " ".join(stdout.split())
    manifest = json.loads((out / "manifest.json").read_text())
    search = manifest["lattice"]
    assert search["search"] == "lightning" and search["stopped_by"] == "checks"
    assert search["checked"] <= 40 + int(search["top_checked_beyond_budget"])
    assert search["lower_bound"] <= search["metric_value"]
