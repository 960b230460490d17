"""The lattice search reads the models' registered properties, refuses lattices too large to
list, and the faster paths it relies on (the release's level check and group numbering, the
kept table, the encoding of pyarrow text) give what the plain ones give (issue 20)."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import Hierarchy, Table, models
from anonlab.anonymize import generalize
from anonlab.anonymize.lattice import inputs as lattice_inputs
from anonlab.errors import AnonlabError
from anonlab.grouping import dense_group_ids
from anonlab.models.result import build_result
from anonlab.release import Release

L = importlib.import_module("anonlab.anonymize.lattice")  # the package, not the function

#: Three quasi-identifiers: 3 x 3 x 2 = 18 nodes.
HIERARCHIES = {
    "age": Hierarchy.intervals(range(12), (3, 6)),
    "colour": Hierarchy(
        [
            [leaf, "warm" if leaf in ("red", "pink") else "cold", "*"]
            for leaf in ("red", "pink", "blue", "navy", "teal")
        ]
    ),
    "size": Hierarchy([[leaf, "*"] for leaf in "SML"]),
}
COLOUR, SIZE = HIERARCHIES["colour"], HIERARCHIES["size"]
QI = list(HIERARCHIES)


@st.composite
def tables(draw, min_rows: int = 1) -> Table:
    """Tables of records (age, colour, size; sensitive s) drawn row by row."""
    record = st.tuples(
        st.integers(0, 11), st.sampled_from(list(COLOUR.leaves)),
        st.sampled_from(list(SIZE.leaves)), st.sampled_from("abcde"),
    )  # fmt: skip
    rows = draw(st.lists(record, min_size=min_rows, max_size=40))
    df = pd.DataFrame(rows, columns=[*QI, "s"])
    return Table.from_frame(df, quasi_identifiers=QI, sensitive="s", hierarchies=HIERARCHIES)


def _odd_groups(release: Release) -> models.CheckResult:
    """A toy model, not monotone under generalization: every group has an odd size (two odd
    groups merge into an even one)."""
    sizes = np.asarray(release.group_sizes, dtype=np.int64)
    return build_result("odd-groups", {}, sizes % 2, sizes % 2 == 0, sizes, worst="min")


@pytest.fixture
def odd_groups(monkeypatch):
    """The toy model registered as not monotone (or, with ``.claim(True)``, falsely as
    monotone)."""

    class Register:
        def claim(self, monotone: bool) -> None:
            spec = models.Model(
                "odd-groups", _odd_groups, "every group has an odd size", "max",
                monotone=monotone, reads_sensitive=False,
            )  # fmt: skip
            monkeypatch.setitem(models.MODELS, "odd-groups", spec)

    register = Register()
    register.claim(False)
    return register


def _nodes() -> np.ndarray:
    heights = [HIERARCHIES[q].height for q in QI]
    return np.array(list(itertools.product(*(range(h + 1) for h in heights))), dtype=np.int64)


def _brute_force(table: Table, metric: str) -> tuple[tuple[int, ...] | None, int]:
    """The lattice's answer by checking every node on generalize's release: the node of least
    metric that holds (ties: fewer levels, then node order), and its position in the metric
    order (node-only metrics)."""
    nodes = _nodes()
    holds, cost = [], []
    for node in nodes:
        release = generalize(table, dict(zip(QI, node.tolist(), strict=True)))
        holds.append(models.check(release, "odd-groups").holds)
        sizes = release.group_sizes.astype(float)
        cost.append(float((sizes**2).sum()) if metric == "discernibility" else np.nan)
    if metric != "discernibility":
        cost = L.node_metric(table, nodes, metric)
    order = np.lexsort((nodes.sum(axis=1), np.asarray(cost)))
    for position, i in enumerate(order.tolist()):
        if holds[i]:
            return tuple(nodes[i].tolist()), position + 1
    return None, len(nodes)


@settings(  # the fixture registers the same model for every example
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tables(min_rows=2), st.sampled_from(["arx-loss", "height", "discernibility"]))
def test_a_model_not_monotone_is_checked_node_by_node(odd_groups, table, metric):
    """A model registered ``monotone=False`` gets the brute-force optimum: no node is inferred
    to fail from another's failure; with a node-only metric every node before the optimum in
    the metric order is checked, and with a class metric every node."""
    expected, position = _brute_force(table, metric)
    if expected is None:
        with pytest.raises(AnonlabError, match="no node of the lattice"):
            L.lattice(table, "odd-groups", metric=metric)
        return
    release = L.lattice(table, "odd-groups", metric=metric)
    assert tuple(release.levels[q] for q in QI) == expected
    assert models.check(release, "odd-groups").holds
    checked = release.manifest["lattice"]["checked"]
    assert checked == (position if metric != "discernibility" else len(_nodes()))


def test_the_monotone_property_is_read(odd_groups):
    """The same toy model registered falsely as monotone is pruned, and then misses the
    optimum (here: finds no node at all) on a table where the checked search finds it: the
    search reads ``Model.monotone``."""
    df = pd.DataFrame(
        {
            "age": [6, 9, 11, 0, 1, 9],
            "colour": ["blue", "red", "red", "blue", "pink", "red"],
            "size": ["L", "S", "M", "M", "M", "S"],
            "s": ["a"] * 6,
        }
    )
    table = Table.from_frame(df, quasi_identifiers=QI, sensitive="s", hierarchies=HIERARCHIES)
    honest = L.lattice(table, "odd-groups")
    assert tuple(honest.levels[q] for q in QI) == _brute_force(table, "arx-loss")[0] == (1, 0, 1)
    odd_groups.claim(True)
    with pytest.raises(AnonlabError, match="no node of the lattice"):
        L.lattice(table, "odd-groups")


def test_suppression_pruning_follows_the_registry(monkeypatch):
    """``prunes_failures`` is the model's ``monotone`` without suppression and also its
    ``monotone_with_suppression`` with it, as registered."""
    assert L.prunes_failures("k-anonymity", 0) and L.prunes_failures("k-anonymity", 5)
    assert L.prunes_failures("distinct-l-diversity", 5)
    assert L.prunes_failures("t-closeness", 0) and not L.prunes_failures("t-closeness", 5)
    spec = models.MODELS["k-anonymity"]
    monkeypatch.setitem(
        models.MODELS,
        "k-anonymity",
        models.Model(spec.name, spec.function, spec.description, spec.worst,
                     monotone_with_suppression=False, reads_sensitive=False),
    )  # fmt: skip
    assert L.prunes_failures("k-anonymity", 0) and not L.prunes_failures("k-anonymity", 5)


def test_what_the_model_needs_is_checked_before_the_search():
    df = pd.DataFrame({"age": [0, 1, 3, 4], "colour": ["red"] * 4, "size": ["S"] * 4,
                       "s": list("abab")})  # fmt: skip
    table = Table.from_frame(df, quasi_identifiers=QI, sensitive="s", hierarchies=HIERARCHIES)
    with pytest.raises(AnonlabError, match="hierarchy on the sensitive attribute 's'"):
        L.lattice(table, "t-closeness", t=0.2, distance="hierarchical")
    with pytest.raises(AnonlabError, match="hierarchy on the sensitive attribute 's'"):
        L.NodeCheck(table, "t-closeness", {"t": 0.2, "distance": "hierarchical"})
    no_sensitive = Table.from_frame(
        df.drop(columns="s"), quasi_identifiers=QI, hierarchies=HIERARCHIES
    )
    with pytest.raises(AnonlabError, match="a sensitive attribute"):
        L.lattice(no_sensitive, "distinct-l-diversity", l=2)
    assert L.lattice(no_sensitive, "k-anonymity", k=2).group_sizes.min() >= 2  # needs none


def _chain(leaf: str, height: int) -> list[str]:
    return [leaf, *(f"{leaf}{i}" for i in range(1, height)), "*"]


def test_a_lattice_of_millions_of_nodes_is_refused_naming_lightning():
    """7 quasi-identifiers of 8 levels each: 8**7 = 2,097,152 nodes. Refused before any node
    is listed, naming the count and the heuristic search."""
    qi = [f"q{j}" for j in range(7)]
    hierarchy = Hierarchy([_chain("a", 7), _chain("b", 7)])
    df = pd.DataFrame({**{q: ["a", "b", "a", "b"] for q in qi}, "s": list("xyxy")})
    table = Table.from_frame(
        df, quasi_identifiers=qi, sensitive="s", hierarchies=dict.fromkeys(qi, hierarchy)
    )
    with pytest.raises(AnonlabError) as error:
        L.lattice(table, "k-anonymity", k=2)
    message = str(error.value)
    assert "2,097,152 nodes" in message
    assert "--algorithm lightning --max-checks" in message
    with pytest.raises(AnonlabError, match="2,097,152 nodes"):
        L.lattice(table, "k-anonymity", k=2, suppression=0.5)


def test_the_node_limit_is_the_one_enforced(monkeypatch):
    """A lattice of exactly MAX_NODES nodes is searched; one more node is refused."""
    df = pd.DataFrame({"age": [0, 1, 3, 4], "colour": ["red"] * 4, "size": ["S"] * 4,
                       "s": list("abab")})  # fmt: skip
    table = Table.from_frame(df, quasi_identifiers=QI, sensitive="s", hierarchies=HIERARCHIES)
    n_nodes = len(_nodes())  # 3 * 3 * 2 = 18
    monkeypatch.setattr(lattice_inputs, "MAX_NODES", n_nodes)
    L.lattice(table, "k-anonymity", k=2)
    monkeypatch.setattr(lattice_inputs, "MAX_NODES", n_nodes - 1)
    with pytest.raises(AnonlabError, match=f"{n_nodes} nodes"):
        L.lattice(table, "k-anonymity", k=2)


# --- the faster paths the search's release takes --------------------------------------------


@settings(max_examples=60, deadline=None)
@given(tables(), st.data())
def test_level_check_accepts_full_domain_groups_and_names_a_split(table, data):
    """``Release(..., levels=...)`` accepts generalize's groups at their node, and for groups
    that hold two nodes of some quasi-identifier names the first such one, as checking each
    quasi-identifier alone does."""
    node = {q: data.draw(st.integers(0, HIERARCHIES[q].height)) for q in QI}
    release = generalize(table, node)
    assert Release(table, release.group, "generalization", levels=node).levels == node
    finer = {q: data.draw(st.integers(0, node[q])) for q in QI}
    split = [
        q for q in QI
        if len(set(zip(release.group.tolist(),
                       HIERARCHIES[q].map(finer[q])[table.leaf_codes(q)[table.codes[q]]].tolist(),
                       strict=True)))
        > release.n_groups
    ]  # fmt: skip
    if split:
        with pytest.raises(AnonlabError, match=f"two different nodes of {split[0]!r}"):
            Release(table, release.group, "generalization", levels=finer)
    else:
        assert Release(table, release.group, "generalization", levels=finer).levels == finer


@pytest.mark.parametrize(
    "group", [[0, 1, 0, 2], [2, 1, 2, 0], [0, 0, 0, 0], [0, 2, 1, 1], [5, 3, 5, 1], [1, 0, 1, 1]]
)
def test_release_numbers_groups_as_dense_group_ids(group):
    df = pd.DataFrame({"age": [0, 1, 3, 4], "colour": ["red"] * 4, "size": ["S"] * 4,
                       "s": list("abab")})  # fmt: skip
    table = Table.from_frame(df, quasi_identifiers=QI, sensitive="s", hierarchies=HIERARCHIES)
    import numba  # noqa: F401  (the compiled check runs once numba is loaded)

    for dtype in (np.int32, np.int64, np.uint8):
        given_group = np.array(group, dtype=dtype)
        release = Release(table, given_group, "generalization")
        expected, n = dense_group_ids(np.array(group))
        assert release.group.dtype == expected.dtype
        assert np.array_equal(release.group, expected) and release.n_groups == n
        assert given_group.flags.writeable  # the caller's array is left as it was


@settings(max_examples=40, deadline=None)
@given(tables(), st.data())
def test_take_equals_indexing(table, data):
    picks = data.draw(st.lists(st.integers(0, table.n_rows - 1), max_size=30))
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=table.n_rows,
                                       max_size=table.n_rows)), dtype=bool)  # fmt: skip
    for rows, index in [
        (np.array(picks, dtype=np.int32), np.array(picks, dtype=np.intp)),
        (np.array(picks, dtype=np.int64), np.array(picks, dtype=np.intp)),
        (mask, np.flatnonzero(mask)),
    ]:
        taken = table.take(rows)
        for name in table.codes:
            assert np.array_equal(taken.codes[name], table.codes[name][index])
        assert np.array_equal(taken.row_id, table.row_id[index])
        for q in QI:
            assert np.array_equal(taken.leaf_codes(q), table.leaf_codes(q))


CELLS = ["a", " a", "a ", "b", "\tb", "?", " NA ", "", "10", "010", "x y", "é", "\u3000c"]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.one_of(st.sampled_from(CELLS), st.none()), min_size=1, max_size=25),
    st.integers(1, 3),
    st.booleans(),
)
def test_pyarrow_text_encodes_as_python_text(cells, copies, drop_missing):
    """A column of pyarrow strings (one chunk or several, as ``pd.concat`` makes them) is
    encoded exactly as the same cells held as Python objects: codes, domain, type decision,
    missing rows (or the same error)."""
    arrow = pd.concat([pd.Series(cells, dtype="str")] * copies, ignore_index=True)
    plain = pd.Series(arrow.tolist(), dtype=object)
    results = []
    for column in (arrow, plain):
        frame = pd.DataFrame({"q": column, "s": ["u", "v"] * (len(column) // 2) + ["u"] * (
            len(column) % 2)})  # fmt: skip
        try:
            t = Table.from_frame(frame, quasi_identifiers=["q"], sensitive="s",
                                 drop_missing=drop_missing)  # fmt: skip
        except AnonlabError as e:
            results.append(("error", str(e)))
            continue
        results.append((t.codes["q"].tolist(), [str(v) for v in t.values["q"]], t.types["q"],
                        t.dropped, t.row_id.tolist()))  # fmt: skip
    assert results[0] == results[1]
