"""Typed chunked reading kept equal to the whole-file path while it was made fast again.

``Table.from_csv`` (chunked, with a small ``chunk_rows`` so that values, missing cells and
errors cross chunk boundaries) must give exactly ``Table.from_frame(read_frame(path))``: same
schema, codes, domains (values and dtype), row ids, ``dropped`` and ``types``, or the same
error with the same message, on random CSVs with leading zeros, blanks after the separator and
around cells, missing-value markers, formula-guarded cells, numbers, words, stray words in
numeric columns, infinities, short rows and quoted cells.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.table import Table, read_frame

INTEGERS = ["0", "1", "7", "12", "42", "-3", "+5", "1000", "2", "3"]
DECIMALS = ["2.50", "0.5", ".5", "-1.25", "1e3", "3.0", "2.5"]
LEADING_ZEROS = ["007", "01656", "-01", "00"]
WORDS = ["x", "Male", "Female", "thirty", "a b", "Zürich", "é", "abc"]
MISSING = ["", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None", " NA", "? "]
GUARDED = ["'=x", "'-a", "'abc", "'-5", "''=y", "=SUM(1)", "-a", "'@b", "'+1+1", "'"]
INFINITE = ["inf", "-inf", "1e400", "Infinity"]
QUOTED = ['"a, b"', '" padded "', '"7"', '"=x"']
EVERYTHING = INTEGERS + DECIMALS + LEADING_ZEROS + WORDS + MISSING + GUARDED + INFINITE + QUOTED
POOLS = [INTEGERS, INTEGERS + DECIMALS, LEADING_ZEROS + INTEGERS, WORDS, GUARDED + WORDS]


@st.composite
def csv_texts(draw) -> tuple[str, int]:
    n_cols = draw(st.integers(1, 4))
    pools = [draw(st.sampled_from(POOLS)) for _ in range(n_cols)]
    n_rows = draw(st.integers(1, 25))
    lines = [",".join(f"c{j}" for j in range(n_cols))]
    for _ in range(n_rows):
        cells = []
        for pool in pools:
            odd = draw(st.integers(0, 9)) == 0  # about one cell in ten from anywhere
            cell = draw(st.sampled_from(EVERYTHING if odd else pool))
            cell = " " * draw(st.integers(0, 2)) + cell  # blanks after the separator
            if draw(st.integers(0, 7)) == 0:
                cell += " "
            cells.append(cell)
        if n_cols > 1 and draw(st.integers(0, 15)) == 0:  # a short row: absent fields
            cells = cells[: draw(st.integers(1, n_cols - 1))]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n", n_cols


def outcome(make):
    try:
        return make()
    except AnonlabError as exc:
        return str(exc)


def assert_same(a, b, same_table) -> None:
    """The same error message, or the same Table (``same_table``: the conftest fixture)."""
    if isinstance(a, str) or isinstance(b, str):  # error messages
        assert a == b
        return
    same_table(a, b)


def compare(
    same_table, tmp_path, text: str, n_cols: int, chunk_rows: int, drop_missing: bool, types=None
):
    path = tmp_path / "data.csv"
    path.write_text(text, encoding="utf-8")
    names = text.split("\n", 1)[0].split(",")
    assert len(names) == n_cols
    kw = {
        "quasi_identifiers": names[:-1] or names,
        "sensitive": names[-1] if n_cols > 1 else None,
        "drop_missing": drop_missing,
        "types": types,
    }
    whole = outcome(lambda: Table.from_frame(read_frame(path), **kw))
    chunked = outcome(lambda: Table.from_csv(path, chunk_rows=chunk_rows, **kw))
    assert_same(chunked, whole, same_table)
    return whole


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=csv_texts(),
    chunk_rows=st.sampled_from([1, 3, 7, 1000]),
    drop_missing=st.booleans(),
    declare=st.sampled_from([None, "integer", "decimal", "text", "categorical"]),
)
@example(data=("a,b\n01,1\n 02, 2\n003,3\n", 2), chunk_rows=7, drop_missing=False, declare=None)
@example(data=("a,b\n1,x\n2,y\nthirty,z\n", 2), chunk_rows=1, drop_missing=False, declare=None)
@example(data=("a,b\n1,x\ninf,y\n", 2), chunk_rows=1, drop_missing=False, declare=None)
@example(data=("a\n'=x\n'-5\n=y\n", 1), chunk_rows=2, drop_missing=True, declare=None)
def test_chunked_csv_equals_whole_file(
    assert_same_table, tmp_path, data, chunk_rows, drop_missing, declare
):
    text, n_cols = data
    types = None if declare is None else {"c0": declare}
    compare(assert_same_table, tmp_path, text, n_cols, chunk_rows, drop_missing, types)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("age,sex\n" + "30,M\n" * 10 + "thirty,F\n" + "31,F\n" * 3, ["thirty", "row 11"]),
        ("age,sex\n" + "30,M\n" * 9 + " 1e400,F\n", ["1e400", "row 10", "finite"]),
        ("age,sex\n" + "30,M\n" * 9 + "-inf ,F\n", ["-inf", "row 10", "finite"]),
        ("zip,sex\n" + "01656,M\n" * 3 + " 2345,F\n", None),
        ("age,sex\n" + "30,M\n" * 9 + "NA,F\n", ["missing", "rows 10"]),
    ],
)
def test_errors_and_decisions_identical(assert_same_table, tmp_path, text, words):
    got = compare(assert_same_table, tmp_path, text, 2, 7, False)
    if words is None:
        assert got.types["zip"]["type"] == "text"
    else:
        assert isinstance(got, str)
        for word in words:
            assert word in got


def test_invalid_utf8_same_error(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"a,b\n1,x\n2,y\xff\xfe\n3,z\n")
    kw = {"quasi_identifiers": ["a"], "sensitive": "b"}
    whole = outcome(lambda: Table.from_frame(read_frame(path), **kw))
    chunked = outcome(lambda: Table.from_csv(path, chunk_rows=1, **kw))
    assert isinstance(whole, str) and chunked == whole


@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(st.sampled_from(["a", " b", "c ", "'=d", "NA", "?", "e", "a"]), min_size=1),
    chunk_rows=st.sampled_from([1, 2, 3, 7]),
    drop_missing=st.booleans(),
)
def test_hierarchy_error_names_the_same_first_value(
    assert_same_table, tmp_path_factory, cells, chunk_rows, drop_missing
):
    """The first value absent from a hierarchy depends on the order the distinct values were met
    (first appearance over the file, after dropped rows): the same in both paths."""
    path = tmp_path_factory.mktemp("h") / "data.csv"
    rows = [f"{i},{cell}" for i, cell in enumerate(cells)]
    path.write_text("n,s\n" + "\n".join(rows) + "\n", encoding="utf-8")
    hierarchy = Hierarchy([["a", "*"]], "s")
    kw = {
        "quasi_identifiers": ["s"],
        "insensitive": ["n"],
        "hierarchies": {"s": hierarchy},
        "drop_missing": drop_missing,
    }
    whole = outcome(lambda: Table.from_frame(read_frame(path), **kw))
    chunked = outcome(lambda: Table.from_csv(path, chunk_rows=chunk_rows, **kw))
    assert_same(chunked, whole, assert_same_table)


@settings(max_examples=200, deadline=None)
@given(
    picks=st.lists(st.tuples(st.integers(0, 5), st.booleans()), max_size=40),
)
def test_factorize_cells_is_pandas_factorize(picks):
    """Grouping cells by object identity first gives exactly ``pandas.factorize``, whether equal
    cells share one object or not, with missing cells (NaN, None) coded -1."""
    from anonlab.table.column_types import factorize_cells

    shared = ["ab", "cd", "", "ab "]
    values = np.empty(len(picks), dtype=object)
    for i, (k, fresh) in enumerate(picks):
        if k == 4:
            values[i] = float("nan")
        elif k == 5:
            values[i] = None
        else:  # a fresh object equal to the shared one, or the shared one itself
            values[i] = "".join(list(shared[k])) + "" if fresh else shared[k]
            if fresh and len(shared[k]) > 1:
                assert values[i] is not shared[k]
    expected_codes, expected_cells = pd.factorize(values, sort=False)
    codes, cells = factorize_cells(values)
    assert np.array_equal(codes, expected_codes)
    assert cells.tolist() == list(expected_cells)
