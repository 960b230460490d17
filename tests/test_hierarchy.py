"""Hierarchy: ARX CSV files, depth-first leaf order, lowest common ancestors, interval builder."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.hierarchy import ROOT, Hierarchy

INTERVAL = re.compile(r"^\[(-?\d+)-(-?\d+)\[$")
ARX_DIR = Path("/work/shared/datasets/adult/arx-hierarchies")


# ---------------------------------------------------------------------- random trees
@st.composite
def trees(draw):
    """Rows (leaf first, root last) of a random tree, in a random file order.

    Level j has nodes ``L{j}_{i}``; every node below the top gets a random parent one level up.
    The top level may have one node (no root is added) or several (``*`` is added).
    """
    n_leaves = draw(st.integers(1, 14))
    n_levels = draw(st.integers(0, 3))  # intermediate levels above the leaves
    parents = []
    width = n_leaves
    for _ in range(n_levels):
        n_nodes = draw(st.integers(1, width))
        parents.append(draw(st.lists(st.integers(0, n_nodes - 1), min_size=width, max_size=width)))
        width = n_nodes
    rows = []
    for leaf in range(n_leaves):
        row, node = [f"v{leaf}"], leaf
        for j, par in enumerate(parents, start=1):
            node = par[node]
            row.append(f"L{j}_{node}")
        rows.append(row)
    return draw(st.permutations(rows))


def _as_given(rows: list[list[str]]) -> list[list[str]]:
    """The rows the hierarchy should hold: a root level is added unless there is one top node."""
    if len(rows[0]) == 1 or len({r[-1] for r in rows}) > 1:
        return [r + [ROOT] for r in rows]
    return [list(r) for r in rows]


@settings(max_examples=150, deadline=None)
@given(trees())
def test_every_subtree_is_a_contiguous_run_of_leaf_codes(rows):
    h = Hierarchy(rows)
    expected = _as_given(rows)
    # Same tree: every leaf keeps its own chain of ancestors.
    assert sorted(h.rows()) == sorted(expected)
    by_leaf = {r[0]: r for r in expected}
    for code, leaf in enumerate(h.leaves):
        chain = [h.labels(j)[h.map(j)[code]] for j in range(h.height + 1)]
        assert chain == by_leaf[leaf]
    # Contiguity: the leaves under any node at any level are one run of codes.
    for j in range(h.height + 1):
        for node in range(len(h.labels(j))):
            idx = np.flatnonzero(h.map(j) == node)
            assert len(idx) > 0
            assert np.array_equal(idx, np.arange(idx[0], idx[-1] + 1)), (j, node, idx)
    assert len({r[-1] for r in h.rows()}) == 1
    assert h.height == len(expected[0]) - 1


@settings(max_examples=150, deadline=None)
@given(trees(), st.data())
def test_lowest_common_level_equals_brute_force_lca(rows, data):
    h = Hierarchy(rows)
    n = len(h)
    sets = data.draw(st.lists(st.sets(st.integers(0, n - 1), min_size=1), min_size=1, max_size=6))
    lo = np.array([min(s) for s in sets])
    hi = np.array([max(s) for s in sets])
    got = h.lowest_common_level(lo, hi)
    for s, level in zip(sets, got.tolist(), strict=True):
        brute = next(j for j in range(h.height + 1) if len({int(h.map(j)[i]) for i in s}) == 1)
        assert level == brute, (s, level, brute)


def test_siblings_keep_their_order_of_first_appearance():
    h = Hierarchy([["b", "X"], ["a", "Y"], ["c", "X"], ["d", "Y"], ["e", "Z"]])
    assert h.leaves == ("b", "c", "a", "d", "e")
    assert list(h.labels(1)) == ["X", "Y", "Z"]
    assert list(h.labels(2)) == [ROOT]
    assert h.height == 2
    assert h.node_size(1).tolist() == [2, 2, 1]


def test_flat_and_single_column_rows_get_a_root():
    h = Hierarchy.flat(["x", "y"], name="f")
    assert h.height == 1 and h.rows() == [["x", ROOT], ["y", ROOT]]
    assert Hierarchy([["x"], ["y"]]) == h
    assert h.leaf_index(["y", "x", "y"]).tolist() == [1, 0, 1]


# ---------------------------------------------------------------------- ARX files
@pytest.mark.parametrize(
    "name", ["age", "workclass", "marital-status", "education", "native-country", "sex"]
)
def test_arx_csv_round_trip(tmp_path, name):
    src = ARX_DIR / f"adult_hierarchy_{name}.csv"
    first = Hierarchy.read_csv(src)
    assert first.name == f"adult_hierarchy_{name}"
    file_rows = [line.split(";") for line in src.read_text().splitlines() if line.strip()]
    assert sorted(first.rows()) == sorted(file_rows)
    out = tmp_path / "h.csv"
    text = first.to_csv(out)
    assert out.read_text() == text
    assert not list(tmp_path.glob("*.tmp"))
    second = Hierarchy.read_csv(out, name=name)
    assert second == first
    assert second.leaves == first.leaves
    assert np.array_equal(second.matrix, first.matrix)
    # The written file is already in leaf order: writing again gives the same text.
    assert second.to_csv() == text


def test_read_csv_reorders_to_depth_first():
    h = Hierarchy.read_csv(ARX_DIR / "adult_hierarchy_marital-status.csv")
    # "Married-AF-spouse" is the last row of the file but belongs to "spouse present", the
    # first subtree, so it moves up beside Married-civ-spouse.
    assert h.leaves[:2] == ("Married-civ-spouse", "Married-AF-spouse")
    assert list(h.labels(1)) == ["spouse present", "spouse not present"]


def test_read_csv_with_other_separator_and_bom(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("\ufeffa,G1,*\nb,G1,*\nc,G2,*\n", encoding="utf-8")
    h = Hierarchy.read_csv(p, sep=",")
    assert h.leaves == ("a", "b", "c") and h.name == "h"
    assert h.to_csv(sep=",") == "a,G1,*\nb,G1,*\nc,G2,*\n"


def test_read_csv_missing_file(tmp_path):
    with pytest.raises(AnonlabError, match="nope.csv"):
        Hierarchy.read_csv(tmp_path / "nope.csv")


# ---------------------------------------------------------------------- intervals
def test_intervals_nest_with_arx_labels():
    h = Hierarchy.intervals([22, 3, 47, 22], (5, 10, 20, 40), name="age")
    assert h.height == 5
    assert h.leaves == ("3", "22", "47")
    rows = {r[0]: r for r in h.rows()}
    assert rows["22"] == ["22", "[20-25[", "[20-30[", "[20-40[", "[0-40[", ROOT]
    assert rows["3"] == ["3", "[0-5[", "[0-10[", "[0-20[", "[0-40[", ROOT]
    assert rows["47"] == ["47", "[45-50[", "[40-50[", "[40-60[", "[40-80[", ROOT]
    assert list(h.labels(4)) == ["[0-40[", "[40-80["]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(-200, 200), min_size=1, max_size=30),
    st.sampled_from([(5, 10, 20, 40), (2, 6), (10,), (3, 9, 27)]),
    st.integers(-7, 7),
)
def test_intervals_contain_their_value_and_nest(values, widths, origin):
    h = Hierarchy.intervals(values, widths, origin=origin)
    assert h.height == len(widths) + 1
    for row in h.rows():
        v = float(row[0])
        prev = None
        for label, w in zip(row[1:-1], widths, strict=True):
            m = INTERVAL.match(label)
            assert m, label
            a, b = float(m.group(1)), float(m.group(2))
            assert b - a == w and a <= v < b and (a - origin) % w == 0
            if prev is not None:
                assert a <= prev[0] and prev[1] <= b  # nesting
            prev = (a, b)


def test_intervals_reject_widths_that_do_not_divide():
    with pytest.raises(AnonlabError, match="divide"):
        Hierarchy.intervals([1, 2], (5, 7))


@pytest.mark.parametrize("widths", [(0,), (-5,), (), (float("inf"),), (-5, 10)])
def test_intervals_reject_non_positive_widths(widths):
    with pytest.raises(AnonlabError, match="positive"):
        Hierarchy.intervals([1, 2, 3], widths)


# ---------------------------------------------------------------------- errors
def test_ragged_rows_raise():
    with pytest.raises(AnonlabError, match=r"row 2 .* 2 levels, row 1 has 3"):
        Hierarchy([["a", "X", "*"], ["b", "X"]], name="city")


def test_node_with_two_parents_raises():
    with pytest.raises(AnonlabError, match=r"node 'X' at level 1 has two parents, 'R' and 'S'"):
        Hierarchy([["a", "X", "R"], ["b", "X", "S"], ["c", "Y", "S"]])


def test_duplicate_leaf_raises():
    with pytest.raises(AnonlabError, match=r"leaf value 'a' appears in more than one row"):
        Hierarchy([["a", "X"], ["b", "X"], ["a", "Y"]])


def test_empty_hierarchy_raises():
    with pytest.raises(AnonlabError, match="no rows"):
        Hierarchy([], name="x")


def test_unknown_value_in_leaf_index_names_it():
    h = Hierarchy([["a", "X"], ["b", "X"]], name="city")
    with pytest.raises(AnonlabError, match=r"value 'zzz' of attribute 'city'"):
        h.leaf_index(["a", "zzz"])
    with pytest.raises(AnonlabError, match=r"'other'"):
        h.leaf_index(["b", "q"], attribute="other")


def test_bad_level_raises():
    h = Hierarchy([["a", "X"], ["b", "Y"]], name="city")
    assert h.height == 2  # two top nodes: a root "*" is added
    with pytest.raises(AnonlabError, match=r"level 3 .*'city'.* 0\.\.2"):
        h.map(3)
    # A single top node is the root itself: nothing is added.
    assert Hierarchy([["a", "X"], ["b", "X"]]).height == 1
    with pytest.raises(AnonlabError, match="level -1"):
        h.labels(-1)
