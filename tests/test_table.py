"""Table: encoding a DataFrame into integer codes and back, and every refusal with its message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.schema import Kind, Role
from anonlab.table import MISSING_MARKERS, Table

# Labels that survive a round trip: no surrounding blanks (labels are stripped, as CSV cells
# are), not one of the missing-value markers, and not a number (a text column whose values
# are numbers is read as numbers: tests/test_type_inference.py).
LABELS = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=6,
).filter(
    lambda s: (
        s == s.strip()
        and s not in MISSING_MARKERS
        and pd.isna(pd.to_numeric(pd.Series([s], dtype=object), errors="coerce")[0])
    )
)


@st.composite
def frames(draw):
    n = draw(st.integers(1, 25))
    ints = draw(st.lists(st.integers(-(2**40), 2**40), min_size=n, max_size=n))
    floats = draw(
        st.lists(
            st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False), min_size=n, max_size=n
        )
    )
    pool = draw(st.lists(LABELS, min_size=1, max_size=5, unique=True))
    text = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    sens = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n))
    return pd.DataFrame({"i": ints, "f": floats, "t": text, "s": sens})


@settings(max_examples=80, deadline=None)
@given(frames())
def test_from_frame_decodes_back_exactly(df):
    t = Table.from_frame(df, quasi_identifiers=["i", "f", "t"], sensitive="s")
    assert len(t) == len(df)
    assert t.schema.names == ("i", "f", "t", "s")
    assert [t.schema[c].kind for c in ("i", "f", "t", "s")] == [
        Kind.NUMERIC,
        Kind.NUMERIC,
        Kind.CATEGORICAL,
        Kind.CATEGORICAL,
    ]
    for c in df.columns:
        assert t.codes[c].dtype == np.int32
        assert list(t.column(c)) == list(df[c]), c
        # Codes are dense: every code in 0..domain-1 is used, and values are distinct.
        assert set(t.codes[c].tolist()) == set(range(t.domain_size(c)))
        assert len(set(t.values[c].tolist())) == t.domain_size(c)
    back = t.to_frame()
    pd.testing.assert_frame_equal(
        back.astype(object), df.astype(object), check_dtype=False, check_exact=True
    )
    assert t.row_id.tolist() == list(range(len(df)))


@settings(max_examples=60, deadline=None)
@given(frames())
def test_codes_follow_the_natural_order(df):
    t = Table.from_frame(df, quasi_identifiers=["i", "f", "t"], sensitive="s")
    for c in ("i", "f"):
        v = t.values[c]
        assert np.all(v[1:] > v[:-1])  # numeric: ascending values
        # Code order is value order, record by record.
        x = df[c].to_numpy()
        code = t.codes[c]
        assert np.array_equal(
            np.sign(np.subtract.outer(code, code)), np.sign(np.subtract.outer(x, x))
        )
    labels = [str(v) for v in t.values["t"]]
    assert labels == sorted(labels)  # categorical without hierarchy: by label


def test_categorical_codes_follow_hierarchy_leaf_order():
    h = Hierarchy([["Tokyo", "JP"], ["Paris", "FR"], ["Osaka", "JP"], ["Lyon", "FR"]], "city")
    assert h.leaves == ("Tokyo", "Osaka", "Paris", "Lyon")
    df = pd.DataFrame({"city": ["Lyon", "Paris", "Tokyo", "Lyon", "Osaka"], "s": list("abcab")})
    t = Table.from_frame(df, quasi_identifiers=["city"], sensitive="s", hierarchies={"city": h})
    assert list(t.values["city"]) == ["Tokyo", "Osaka", "Paris", "Lyon"]
    assert t.codes["city"].tolist() == [3, 2, 0, 3, 1]
    assert t.leaf_codes("city").tolist() == [0, 1, 2, 3]
    assert t.schema["city"].hierarchy is h
    # A hierarchy with more leaves than the data: codes are still increasing in leaf order.
    df2 = pd.DataFrame({"city": ["Lyon", "Tokyo"], "s": ["a", "b"]})
    t2 = Table.from_frame(df2, quasi_identifiers=["city"], sensitive="s", hierarchies={"city": h})
    assert list(t2.values["city"]) == ["Tokyo", "Lyon"]
    assert t2.leaf_codes("city").tolist() == [0, 3]


def test_numeric_hierarchy_labels_match_integers_written_as_floats():
    h = Hierarchy.intervals([20, 30, 40], (10,), name="age")
    df = pd.DataFrame({"age": [40.0, 20.0, 30.0], "s": ["a", "b", "a"]})
    t = Table.from_frame(df, quasi_identifiers=["age"], sensitive="s", hierarchies={"age": h})
    assert t.values["age"].tolist() == [20, 30, 40]
    assert t.leaf_codes("age").tolist() == [0, 1, 2]


def test_roles_insensitive_identifiers_and_unused_columns():
    df = pd.DataFrame(
        {"name": ["a", "b"], "age": [1, 2], "zip": ["x", "y"], "note": [5, 6], "s": ["p", "q"]}
    )
    t = Table.from_frame(
        df, quasi_identifiers=["age"], sensitive="s", insensitive=["note"], identifiers=["name"]
    )
    assert t.schema.names == ("age", "s", "note")
    assert t.schema["note"].role is Role.INSENSITIVE
    assert t.quasi_identifiers == ("age",) and t.sensitive == "s"
    assert t.dropped["columns"] == ["zip"]  # identifiers are not reported as unused
    assert "name" not in t.codes


def test_numeric_override_treats_numbers_as_categories():
    df = pd.DataFrame({"code": [10, 9, 100], "s": ["a", "b", "c"]})
    t = Table.from_frame(df, quasi_identifiers=["code"], sensitive="s", numeric=[])
    assert t.schema["code"].kind is Kind.CATEGORICAL
    assert list(t.values["code"]) == ["10", "100", "9"]


def test_text_digits_can_be_declared_numeric():
    df = pd.DataFrame({"age": ["30", "4", "100"], "s": ["a", "b", "c"]})
    t = Table.from_frame(df, quasi_identifiers=["age"], sensitive="s", numeric=["age"])
    assert t.values["age"].tolist() == [4, 30, 100]
    assert t.codes["age"].tolist() == [1, 0, 2]


def test_large_integer_valued_floats_decode_exactly():
    # Integer-valued floats become int64 only where that is exact (|x| <= 2**53); 1e19 once
    # came back as -9223372036854775808.
    df = pd.DataFrame({"x": [1e19, 2.0, -3.0, 2.0**53 + 2], "s": ["a", "b", "c", "d"]})
    t = Table.from_frame(df, quasi_identifiers=["x"], sensitive="s")
    assert t.column("x").tolist() == [1e19, 2.0, -3.0, 2.0**53 + 2]
    assert t.codes["x"].tolist() == [3, 1, 0, 2]
    small = Table.from_frame(df.iloc[1:3], quasi_identifiers=["x"], sensitive="s")
    assert small.values["x"].dtype == np.int64


# ---------------------------------------------------------------------- missing values
def test_missing_values_raise_naming_column_and_count():
    df = pd.DataFrame(
        {
            "age": [1.0, np.nan, 3.0, np.nan, 5.0],
            "job": ["a", "?", "b", " ", "c"],
            "s": ["x", "y", "x", "y", "x"],
        }
    )
    with pytest.raises(AnonlabError) as err:
        Table.from_frame(df, quasi_identifiers=["age", "job"], sensitive="s")
    msg = str(err.value)
    assert "column 'age': 2 missing (rows 2, 4)" in msg
    assert "column 'job': 2 missing (rows 2, 4)" in msg
    assert "drop_missing=True" in msg


def test_missing_values_in_unused_columns_are_ignored():
    df = pd.DataFrame({"age": [1, 2], "other": [None, "?"], "s": ["x", "y"]})
    t = Table.from_frame(df, quasi_identifiers=["age"], sensitive="s")
    assert len(t) == 2 and "rows_with_missing" not in t.dropped


def test_drop_missing_drops_and_counts():
    df = pd.DataFrame(
        {
            "age": [1.0, np.nan, 3.0, 4.0, 5.0, 6.0],
            "job": ["a", "b", "NA", "b", "c", "null"],
            "s": ["x", "y", "x", None, "x", "y"],
        }
    )
    t = Table.from_frame(df, quasi_identifiers=["age", "job"], sensitive="s", drop_missing=True)
    assert len(t) == 2
    assert t.row_id.tolist() == [0, 4]
    assert t.column("age").tolist() == [1, 5]
    assert t.column("job").tolist() == ["a", "c"]
    assert t.dropped["rows_with_missing"] == 4
    assert t.dropped["rows_with_missing_by_column"] == {"age": 1, "job": 2, "s": 1}
    # take() keeps the input row ids
    assert t.take(np.array([1])).row_id.tolist() == [4]


def test_drop_missing_with_nothing_left_raises():
    df = pd.DataFrame({"age": [np.nan, np.nan], "s": ["x", "y"]})
    with pytest.raises(AnonlabError, match="every row"):
        Table.from_frame(df, quasi_identifiers=["age"], sensitive="s", drop_missing=True)


# ---------------------------------------------------------------------- refusals
@pytest.fixture
def df():
    return pd.DataFrame({"age": [30, 40, 50], "city": ["a", "b", "c"], "s": ["x", "y", "z"]})


def test_unknown_column_raises(df):
    with pytest.raises(AnonlabError, match=r"unknown column 'zip'"):
        Table.from_frame(df, quasi_identifiers=["age", "zip"], sensitive="s")
    with pytest.raises(AnonlabError, match=r"unknown column 'disease'"):
        Table.from_frame(df, quasi_identifiers=["age"], sensitive="disease")
    with pytest.raises(AnonlabError, match=r"unknown column 'town'"):
        Table.from_frame(
            df, quasi_identifiers=["age"], sensitive="s", hierarchies={"town": Hierarchy.flat("a")}
        )


def test_column_with_two_roles_raises(df):
    with pytest.raises(AnonlabError, match=r"column 'age' is given more than one role"):
        Table.from_frame(df, quasi_identifiers=["age", "city"], sensitive="age")
    with pytest.raises(AnonlabError, match=r"column 'city' is given more than one role"):
        Table.from_frame(df, quasi_identifiers=["age", "city"], sensitive="s", insensitive=["city"])


def test_no_quasi_identifier_raises(df):
    with pytest.raises(AnonlabError, match="quasi-identifier"):
        Table.from_frame(df, quasi_identifiers=[], sensitive="s")


def test_empty_table_raises(df):
    with pytest.raises(AnonlabError, match="empty"):
        Table.from_frame(df.iloc[:0], quasi_identifiers=["age"], sensitive="s")


def test_value_absent_from_its_hierarchy_raises(df):
    h = Hierarchy([["a", "G"], ["b", "G"]], "city")
    with pytest.raises(AnonlabError, match=r"value 'c' of attribute 'city'"):
        Table.from_frame(df, quasi_identifiers=["city"], sensitive="s", hierarchies={"city": h})


def test_numeric_column_holding_text_raises(df):
    df.loc[1, "city"] = "b"
    with pytest.raises(AnonlabError, match=r"column 'city' is numeric but holds the value 'a'"):
        Table.from_frame(df, quasi_identifiers=["city"], sensitive="s", numeric=["city"])


def test_not_a_frame_raises():
    with pytest.raises(AnonlabError, match="DataFrame"):
        Table.from_frame({"a": [1]}, quasi_identifiers=["a"])


# ---------------------------------------------------------------------- files
def test_from_csv_missing_file_raises(tmp_path):
    with pytest.raises(AnonlabError, match=r"does not exist"):
        Table.from_csv(tmp_path / "nope.csv", quasi_identifiers=["a"])
    with pytest.raises(AnonlabError, match=r"is a directory"):
        Table.from_csv(tmp_path, quasi_identifiers=["a"])


def test_from_csv_reads_uci_style_file(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("age, job, s\n39, State-gov, a\n50, ?, b\n38, Private, a\n")
    with pytest.raises(AnonlabError, match=r"column 'job': 1 missing \(rows 2\)"):
        Table.from_csv(p, quasi_identifiers=["age", "job"], sensitive="s")
    t = Table.from_csv(p, quasi_identifiers=["age", "job"], sensitive="s", drop_missing=True)
    assert t.column("job").tolist() == ["State-gov", "Private"]
    assert t.schema["age"].kind is Kind.NUMERIC
    assert t.row_id.tolist() == [0, 2]


def test_from_parquet_round_trip(tmp_path, df):
    p = tmp_path / "d.parquet"
    df.to_parquet(p)
    t = Table.from_parquet(p, quasi_identifiers=["age", "city"], sensitive="s")
    pd.testing.assert_frame_equal(t.to_frame(), df, check_dtype=False)


def test_with_roles_keeps_records_and_hierarchies(df):
    h = Hierarchy([["a", "G"], ["b", "G"], ["c", "H"]], "city")
    t = Table.from_frame(
        df, quasi_identifiers=["age"], sensitive="s", insensitive=["city"], hierarchies={"city": h}
    )
    t2 = t.with_roles(["city"], "age")
    assert t2.quasi_identifiers == ("city",) and t2.sensitive == "age"
    assert t2.schema["city"].hierarchy == h
    assert t2.schema["age"].kind is Kind.NUMERIC
    assert t2.column("age").tolist() == [30, 40, 50]


def test_value_mask_names_unknown_value(df):
    t = Table.from_frame(df, quasi_identifiers=["age"], sensitive="s")
    assert t.value_mask("s", ["z", "x"]).tolist() == [True, False, True]
    assert t.value_mask("s", None).all()
    with pytest.raises(AnonlabError, match=r"value 'w' does not occur in column 's'"):
        t.value_mask("s", ["w"])
