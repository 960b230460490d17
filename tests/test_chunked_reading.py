"""Chunked reading (issue 10): ``Table.from_csv`` / ``Table.from_parquet`` read a file a chunk at
a time and must give exactly the table of the whole-file path ``Table.from_frame(read_frame())``:
same kinds, same domains in the same order, same codes, same row ids, same errors."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab import datasets
from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.table import Table, read_frame


def whole(path, **kw) -> Table:
    """The reference: the whole file in pandas, then from_frame."""
    return Table.from_frame(read_frame(path), **kw)


def chunked(path, chunk_rows, **kw) -> Table:
    if str(path).endswith(".parquet"):
        return Table.from_parquet(path, chunk_rows=chunk_rows, **kw)
    return Table.from_csv(path, chunk_rows=chunk_rows, **kw)


def same_error(path, chunk_rows, **kw) -> str:
    with pytest.raises(AnonlabError) as ref:
        whole(path, **kw)
    with pytest.raises(AnonlabError, match=re.escape(str(ref.value))):
        chunked(path, chunk_rows, **kw)
    return str(ref.value)


@pytest.fixture(scope="module")
def adult_frame():
    return datasets.load_frame("adult")


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_bundled_adult_with_hierarchies_is_identical(
    assert_same_table, tmp_path, adult_frame, suffix
):
    path = tmp_path / f"adult{suffix}"
    if suffix == ".csv":
        adult_frame.to_csv(path, index=False)
    else:
        adult_frame.to_parquet(path, row_group_size=5_000)
    hierarchies = datasets.load_hierarchies("adult")
    info = datasets.info("adult")
    kw = dict(
        quasi_identifiers=list(info.default_qi),
        sensitive=info.default_sensitive,
        insensitive=["hours-per-week"],
        identifiers=["fnlwgt"],
        hierarchies={k: v for k, v in hierarchies.items() if k in info.default_qi},
    )
    ref = whole(path, **kw)
    assert ref.n_rows == len(adult_frame)
    assert any(a.hierarchy is not None for a in ref.schema.attributes)
    for rows in (997, 45_222, 10**6):  # many chunks, one exact chunk, one short chunk
        assert_same_table(chunked(path, rows, **kw), ref)
    # default kinds (numeric by dtype) without hierarchies, all columns kept
    cols = list(adult_frame.columns)
    kw = dict(quasi_identifiers=cols[:-1], sensitive=cols[-1])
    assert_same_table(chunked(path, 4_099, **kw), whole(path, **kw))


def test_census_kdd_workers_default_roles_identical(assert_same_table, tmp_path):
    frame = datasets.load_frame("census-kdd-workers")
    info = datasets.info("census-kdd-workers")
    path = tmp_path / "kdd.csv"
    frame.to_csv(path, index=False)
    kw = dict(
        quasi_identifiers=list(info.default_qi),
        sensitive=info.default_sensitive,
        numeric=[c for c in info.numeric if c in frame.columns],
    )
    assert_same_table(chunked(path, 3_001, **kw), whole(path, **kw))


def test_value_first_seen_in_the_last_chunk(assert_same_table, tmp_path):
    # "a" sorts first and appears only in the last row: every earlier code shifts by one.
    path = tmp_path / "d.csv"
    rows = ["q,s"] + [f"{v},{s}" for v, s in zip("zyxwzy", "pqpqpq", strict=True)] + ["a,r"]
    path.write_text("\n".join(rows) + "\n")
    ref = whole(path, quasi_identifiers=["q"], sensitive="s")
    got = chunked(path, 2, quasi_identifiers=["q"], sensitive="s")
    assert_same_table(got, ref)
    assert got.values["q"].tolist() == ["a", "w", "x", "y", "z"]
    assert got.codes["q"].tolist() == [4, 3, 2, 1, 4, 3, 0]
    # with a hierarchy the leaf order, not the label order, decides
    h = Hierarchy([["z", "Z"], ["a", "A"], ["y", "Z"], ["x", "X"], ["w", "X"]], "q")
    kw = dict(quasi_identifiers=["q"], sensitive="s", hierarchies={"q": h})
    assert_same_table(chunked(path, 2, **kw), whole(path, **kw))
    assert chunked(path, 2, **kw).values["q"].tolist() == ["z", "y", "a", "x", "w"]


def test_int_chunks_then_a_float_chunk(assert_same_table, tmp_path):
    # pandas reads the whole column as float: as a category the labels are "1.0", "2.5" ...;
    # as a number 1.0 and 2.0 stay ints only while every value is whole.
    path = tmp_path / "d.csv"
    path.write_text("n,c,s\n1,3,x\n2,3,y\n1,4,x\n2,4,y\n2.5,3.0,x\n")
    for numeric in (None, [], ["n", "c"]):
        kw = dict(quasi_identifiers=["n", "c"], sensitive="s", numeric=numeric)
        assert_same_table(chunked(path, 2, **kw), whole(path, **kw))
    cat = chunked(path, 2, quasi_identifiers=["n", "c"], sensitive="s", numeric=[])
    assert cat.values["c"].tolist() == ["3", "3.0", "4"]  # as categories: the file's text
    num = chunked(path, 2, quasi_identifiers=["n", "c"], sensitive="s")
    assert num.values["c"].dtype == np.int64 and num.values["n"].dtype == np.float64


def test_text_in_a_later_chunk_is_an_error_unless_declared_text(assert_same_table, tmp_path):
    # issue 17: a stray word in a mostly numeric column no longer turns it categorical silently
    path = tmp_path / "d.csv"
    path.write_text("z,s\n10,x\n2.50,y\n10,x\n9,y\nabc,x\n")
    kw = dict(quasi_identifiers=["z"], sensitive="s")
    msg = same_error(path, 2, **kw)
    assert "column 'z'" in msg and "row 5 holds 'abc'" in msg and "--types z=text" in msg
    got = chunked(path, 2, types={"z": "text"}, **kw)
    assert_same_table(got, whole(path, types={"z": "text"}, **kw))
    assert got.values["z"].tolist() == ["10", "2.50", "9", "abc"]  # the file's text, sorted
    # forced numeric: the error names the value, as on the whole file
    assert "'abc'" in same_error(path, 2, numeric=["z"], **kw)


def test_missing_values_refused_counted_over_all_chunks(assert_same_table, tmp_path):
    path = tmp_path / "d.csv"
    lines = ["a, b, s"]
    for i in range(14):
        a = "?" if i in (1, 5, 6, 9, 11, 13) else str(i % 3)
        b = "NA" if i == 12 else "u" if i % 2 else "v"
        lines.append(f"{a}, {b}, {'xy'[i % 2]}")
    path.write_text("\n".join(lines) + "\n")
    kw = dict(quasi_identifiers=["a", "b"], sensitive="s")
    msg = same_error(path, 4, **kw)
    assert "column 'a': 6 missing (rows 2, 6, 7, 10, 12, ...)" in msg
    assert "column 'b': 1 missing (rows 13)" in msg
    got = chunked(path, 4, drop_missing=True, **kw)
    assert_same_table(got, whole(path, drop_missing=True, **kw))
    assert got.dropped["rows_with_missing"] == 7
    assert got.dropped["rows_with_missing_by_column"] == {"a": 6, "b": 1}
    assert got.row_id.tolist() == [0, 2, 3, 4, 7, 8, 10]


def test_every_row_missing_and_empty_files(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,s\n?,x\nNA,y\n")
    same_error(path, 1, quasi_identifiers=["a"], sensitive="s", drop_missing=True)
    header_only = tmp_path / "h.csv"
    header_only.write_text("a,s\n")
    assert "empty (0 rows)" in same_error(header_only, 5, quasi_identifiers=["a"], sensitive="s")
    nothing = tmp_path / "n.csv"
    nothing.write_text("")
    with pytest.raises(AnonlabError, match=r"cannot read .*n\.csv"):
        chunked(nothing, 5, quasi_identifiers=["a"])
    empty_parquet = tmp_path / "e.parquet"
    pd.DataFrame({"a": pd.Series([], dtype="int64"), "s": pd.Series([], dtype=str)}).to_parquet(
        empty_parquet
    )
    assert "empty (0 rows)" in same_error(empty_parquet, 5, quasi_identifiers=["a"], sensitive="s")


def test_role_errors_and_bad_chunk_size(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,s\n1,2,x\n")
    same_error(path, 5, quasi_identifiers=["nope"], sensitive="s")
    same_error(path, 5, quasi_identifiers=["a"], sensitive="a")
    same_error(path, 5, quasi_identifiers=[], sensitive="s")
    same_error(path, 5, quasi_identifiers=["a"], hierarchies={"zz": Hierarchy([["1", "*"]], "zz")})
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(AnonlabError, match="chunk_rows"):
            Table.from_csv(path, chunk_rows=bad, quasi_identifiers=["a"])
    with pytest.raises(AnonlabError, match="does not exist"):
        Table.from_parquet(tmp_path / "none.parquet", quasi_identifiers=["a"])
    # the unused column is reported, the identifier is not
    got = chunked(path, 5, quasi_identifiers=["a"], sensitive="s")
    assert got.dropped == {"columns": ["b"]}


def test_parquet_nullable_and_categorical_columns(assert_same_table, tmp_path):
    frame = pd.DataFrame(
        {
            "i": pd.array([1, 2, None, 4, 2, 1], dtype="Int64"),
            "c": pd.Categorical(["u", "v", "u", "w", "v", "u"]),
            "s": ["x", "y", "x", "y", "x", "z"],
        },
        index=pd.Index([10, 11, 12, 13, 14, 15], name="idx"),
    )
    path = tmp_path / "d.parquet"
    frame.to_parquet(path, row_group_size=2)
    for numeric in (None, []):
        kw = dict(quasi_identifiers=["i", "c"], sensitive="s", numeric=numeric)
        same_error(path, 2, **kw)
        kw["drop_missing"] = True
        assert_same_table(chunked(path, 2, **kw), whole(path, **kw))
        assert_same_table(chunked(path, 4, **kw), whole(path, **kw))
    # the stored index is not a column
    assert chunked(path, 3, quasi_identifiers=["c"], drop_missing=True).dropped == {
        "columns": ["i", "s"]
    }


CELLS = st.sampled_from(["a", "b", " c", "d ", "?", "", "NA", "1", "2", "2.5", "10", "-3", "0"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(CELLS, CELLS, st.sampled_from(["x", "y", "z"])), min_size=1, max_size=30),
    st.integers(1, 8),
    st.booleans(),
)
def test_random_files_identical_to_the_whole_file_path(
    assert_same_table, tmp_path_factory, rows, chunk, drop
):
    path = tmp_path_factory.mktemp("h") / "d.csv"
    path.write_text("p,q,s\n" + "".join(f"{p},{q},{s}\n" for p, q, s in rows))
    kw = dict(quasi_identifiers=["p", "q"], sensitive="s", drop_missing=drop)
    try:
        ref = whole(path, **kw)
    except AnonlabError as exc:
        with pytest.raises(AnonlabError, match=re.escape(str(exc))):
            chunked(path, chunk, **kw)
        return
    assert_same_table(chunked(path, chunk, **kw), ref)
