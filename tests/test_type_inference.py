"""Typed columns, never a silent coercion (issue 17, item 1): how each column's type is decided,
the errors for a stray word or an infinite number (naming column, row and value), declared
types (``types=``, ``--types``), pandas dtypes, and the decisions shown in the CLI's output.

Rows in messages are numbered from 1, the first data row (a CSV's header is not counted)."""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import pandas as pd
import pytest

from anonlab.errors import AnonlabError
from anonlab.schema import ColumnType, Kind
from anonlab.table import Table, read_frame

ROLES = dict(quasi_identifiers=["q"], sensitive="s")


def _csv(tmp_path, cells: list[str], name: str = "d.csv"):
    """A CSV of column q holding ``cells`` and a sensitive column s."""
    path = tmp_path / name
    path.write_text("q,s\n" + "".join(f"{c},{'xy'[i % 2]}\n" for i, c in enumerate(cells)))
    return path


def _readers(path, **kw):
    """The same file through the whole-file path and the chunked reader (3-row chunks)."""
    return {
        "whole": lambda: Table.from_frame(read_frame(path), **ROLES, **kw),
        "chunked": lambda: Table.from_csv(path, chunk_rows=3, **ROLES, **kw),
    }


def _both(path, **kw) -> Table:
    tables = [read() for read in _readers(path, **kw).values()]
    a, b = tables
    assert a.values["q"].tolist() == b.values["q"].tolist()
    assert a.codes["q"].tolist() == b.codes["q"].tolist()
    assert a.types == b.types
    return b


def _error_in_both(path, **kw) -> str:
    messages = []
    for read in _readers(path, **kw).values():
        with pytest.raises(AnonlabError) as exc:
            read()
        messages.append(str(exc.value))
    assert messages[0] == messages[1]
    return messages[0]


# ---------------------------------------------------------------------- inference


def test_integers_and_decimals(tmp_path):
    t = _both(_csv(tmp_path, ["30", "4", "100", "-2", "+7"]))
    assert t.types["q"] == {"type": "integer", "how": "inferred", "note": ""}
    assert t.schema["q"].kind is Kind.NUMERIC
    assert t.values["q"].dtype == np.int64 and t.values["q"].tolist() == [-2, 4, 7, 30, 100]
    t = _both(_csv(tmp_path, ["1.5", "2", "2.50", "1e3"]))
    assert t.types["q"]["type"] == "decimal"
    assert t.values["q"].tolist() == [1.5, 2.0, 2.5, 1000.0]


@pytest.mark.parametrize(
    "cells",
    [
        ["01656", "02139", "10001"],  # zips, some with a leading zero
        ["10001", "60614", "00501"],  # the zero first seen in a later chunk
        ["007", "12", "5"],
        ["-01", "3", "4"],
    ],
)
def test_a_leading_zero_keeps_the_column_text(tmp_path, cells):
    t = _both(_csv(tmp_path, cells * 2))
    assert t.types["q"]["type"] == "text"
    assert t.types["q"]["note"].startswith("leading zeros kept, e.g. ")
    assert t.schema["q"].kind is Kind.CATEGORICAL
    assert sorted(t.values["q"].tolist()) == sorted(cells)  # exactly as written
    assert t.column("q").tolist() == cells * 2


def test_zero_and_zero_point_five_are_numbers(tmp_path):
    t = _both(_csv(tmp_path, ["0", "0.5", "10", "-0.25"]))
    assert t.types["q"]["type"] == "decimal"


def test_integers_beyond_2_53_stay_text(tmp_path):
    cells = ["9111111111111111", "12345678901234567", "5"]
    t = _both(_csv(tmp_path, cells))
    assert t.types["q"]["type"] == "text" and "beyond 2**53" in t.types["q"]["note"]
    assert sorted(t.values["q"].tolist()) == sorted(cells)


def test_text_with_a_few_numbers_is_text_with_a_note(tmp_path):
    cells = ["E11.9", "I10", "J45", "250", "C50", "N39"]
    t = _both(_csv(tmp_path, cells))
    assert t.types["q"] == {
        "type": "text",
        "how": "inferred",
        "note": "1 of 6 values look like numbers (e.g. '250'); all read as text",
    }


@pytest.mark.parametrize(
    ("cells", "row", "value"),
    [
        (["30", "41", "thirty", "52"], 3, "thirty"),
        (["30", "41", "52", "60", "61", "n/a"], 6, "n/a"),  # in the second chunk
        (["1.5", "x", "2", "y", "3"], 2, "x"),  # the first of several, in row order
    ],
)
def test_a_stray_word_in_a_numeric_column_names_column_row_and_value(tmp_path, cells, row, value):
    msg = _error_in_both(_csv(tmp_path, cells))
    assert "column 'q' looks numeric" in msg
    assert f"row {row} holds {value!r}, which is not a number" in msg
    assert "--types q=text" in msg and "types={'q': 'text'}" in msg


def test_half_numbers_is_still_an_error(tmp_path):
    assert "row 2 holds 'b'" in _error_in_both(_csv(tmp_path, ["1", "b", "2", "c"]))


@pytest.mark.parametrize("bad", ["inf", "-inf", "1e400", "-1e999", "Infinity"])
def test_an_infinite_number_names_column_row_and_value(tmp_path, bad):
    msg = _error_in_both(_csv(tmp_path, ["30", "41", "52", "60", bad, "7"]))
    assert f"column 'q': row 5 holds {bad!r}, which is not a finite number" in msg
    assert "--types q=text" in msg


def test_an_infinite_float_in_a_frame_is_refused():
    frame = pd.DataFrame({"q": [1.0, 2.5, -np.inf, 4.0], "s": list("xyxy")})
    with pytest.raises(AnonlabError, match=r"column 'q': row 3 holds '-inf'"):
        Table.from_frame(frame, **ROLES)
    with pytest.raises(AnonlabError, match=r"row 3 holds '-inf'"):  # also when declared
        Table.from_frame(frame, **ROLES, numeric=["q"])


def test_rows_are_counted_in_the_file_even_after_dropping_missing(tmp_path):
    path = _csv(tmp_path, ["1", "?", "2", "", "3", "oops", "4"])
    msg = _error_in_both(path, drop_missing=True)
    assert "row 6 holds 'oops'" in msg


# ---------------------------------------------------------------------- declared types


def test_declared_types_override_inference(tmp_path):
    path = _csv(tmp_path, ["01656", "2.50", "10", "02139"])
    t = _both(path, types={"q": "text"})
    assert t.types["q"] == {"type": "text", "how": "declared", "note": ""}
    assert sorted(t.values["q"].tolist()) == ["01656", "02139", "10", "2.50"]
    t = _both(path, types={"q": "decimal"})
    assert t.values["q"].tolist() == [2.5, 10.0, 1656.0, 2139.0]
    t = _both(_csv(tmp_path, ["01656", "02139"]), types={"q": "INTEGER"})
    assert t.types["q"]["type"] == "integer" and t.values["q"].tolist() == [1656, 2139]
    t = _both(_csv(tmp_path, ["3", "10", "9"]), types={"q": "categorical"})
    assert t.schema["q"].kind is Kind.CATEGORICAL
    assert t.values["q"].tolist() == ["10", "3", "9"]  # labels, in label order


def test_types_win_over_the_legacy_numeric_keyword(tmp_path):
    t = _both(_csv(tmp_path, ["1", "2"]), numeric=[], types={"q": "integer"})
    assert t.schema["q"].kind is Kind.NUMERIC
    t = _both(_csv(tmp_path, ["1", "2"]), numeric=["q"], types={"q": "text"})
    assert t.schema["q"].kind is Kind.CATEGORICAL


@pytest.mark.parametrize(
    ("declared", "cells", "expected"),
    [
        ("integer", ["1", "2.5", "3"], "declared integer but row 2 holds '2.5'"),
        ("integer", ["1", "2", "abc"], "is numeric but holds the value 'abc' (row 3)"),
        ("decimal", ["1", "x", "3"], "is numeric but holds the value 'x' (row 2)"),
        ("decimal", ["1", "2", "inf"], "row 3 holds 'inf', which is not a finite number"),
        ("integer", ["1", "9007199254740993"], "not a whole number below 2**53"),
    ],
)
def test_a_declared_number_that_does_not_parse_is_an_error(tmp_path, declared, cells, expected):
    msg = _error_in_both(_csv(tmp_path, cells), types={"q": declared})
    assert "column 'q'" in msg and expected in msg


def test_bad_declarations_are_named():
    frame = pd.DataFrame({"q": ["1"], "s": ["x"]})
    with pytest.raises(AnonlabError, match=r"column 'q' has type 'time'; a type is one of text"):
        Table.from_frame(frame, **ROLES, types={"q": "time"})
    with pytest.raises(AnonlabError, match=r"type is given for unknown column 'zz'"):
        Table.from_frame(frame, **ROLES, types={"zz": "text"})
    with pytest.raises(AnonlabError, match="types must map column names"):
        Table.from_frame(frame, **ROLES, types=["q"])


def test_column_type_kinds():
    assert [t.kind for t in ColumnType] == [
        Kind.CATEGORICAL,
        Kind.NUMERIC,
        Kind.NUMERIC,
        Kind.CATEGORICAL,
        Kind.CATEGORICAL,  # dates: labels in time order, with a date hierarchy
        Kind.CATEGORICAL,
    ]


# ---------------------------------------------------------------------- pandas dtypes


def test_pandas_dtypes():
    n = 6
    frame = pd.DataFrame(
        {
            "when": pd.to_datetime(
                ["2020-01-31", "2019-12-01", None, "2020-01-31", "2021-06-15", "2019-12-01"]
            ),  # fmt: skip
            "stamp": pd.to_datetime(["2020-01-31 08:15"] * n),
            "count": pd.array([3, 1, 2, None, 3, 1], dtype="Int64"),
            "zip": pd.array(["01656", "02139"] * 3, dtype="string"),
            "grade": pd.Categorical(["lo", "hi", "mid"] * 2, ["lo", "mid", "hi"], ordered=True),
            "arrow": pd.array([1, 2, 3, 4, 5, 6], dtype="int64[pyarrow]"),
            "flag": [True, False] * 3,
            "s": list("xyxyxy"),
        }
    )
    qi = ["when", "stamp", "count", "zip", "grade", "arrow", "flag"]
    t = Table.from_frame(frame, quasi_identifiers=qi, sensitive="s", drop_missing=True)
    assert t.dropped["rows_with_missing"] == 2
    assert t.values["when"].tolist() == ["2019-12-01", "2020-01-31", "2021-06-15"]
    assert t.types["when"]["type"] == "date" and t.types["when"]["note"] == "pandas datetime"
    assert t.values["stamp"].tolist() == ["2020-01-31T08:15:00"]
    assert t.types["stamp"]["type"] == "datetime"
    assert t.types["count"]["type"] == "integer" and t.values["count"].dtype == np.int64
    assert t.types["zip"]["type"] == "text" and t.values["zip"].tolist() == ["01656", "02139"]
    assert t.values["grade"].tolist() == ["lo", "mid", "hi"]  # the category's order
    assert t.types["grade"] == {
        "type": "categorical",
        "how": "inferred",
        "note": "pandas category, ordered (its order kept)",
    }
    assert t.types["arrow"]["type"] == "integer" and t.values["arrow"].tolist() == [1, 2, 5, 6]
    assert t.types["flag"]["type"] == "categorical"
    assert t.values["flag"].tolist() == ["False", "True"]


def test_type_lines_word_every_decision(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("zip,age,s\n01656,30,x\n02139,41,y\n")
    t = Table.from_csv(path, quasi_identifiers=["zip", "age"], sensitive="s")
    assert t.type_lines() == [
        "zip: text (inferred: leading zeros kept, e.g. '01656')",
        "age: integer (inferred)",
        "s: text (inferred)",
    ]
    assert t.take(np.array([1])).types == t.types and t.resample(5).types == t.types


# ---------------------------------------------------------------------- the CLI

HOSPITAL = "patient_id,zip,sex,icd10,length_of_stay,insurer\n" + "".join(
    f"P{i},{['01656', '02139', '10001'][i % 3]},{'FM'[i % 2]},"
    f"{['E11.9', 'I10', 'J45.909', 'C50.911'][i % 4]},{1 + i % 9},{['Aetna', 'BCBS'][i % 2]}\n"
    for i in range(24)
)


def _anonymize(cli, tmp_path, text, *extra):
    data = tmp_path / "h.csv"
    data.write_text(text)
    out = tmp_path / "rel"
    code, stdout, stderr = cli(
        ["anonymize", "--data", str(data), "--qi", "zip,sex,length_of_stay",
         "--sensitive", "icd10", "--identifiers", "patient_id", "--algorithm", "anatomy",
         "--l", "2", "--out", str(out), *extra]
    )  # fmt: skip
    return out, code, stdout, stderr


def test_cli_prints_every_type_decision(cli, tmp_path):
    out, code, stdout, stderr = _anonymize(cli, tmp_path, HOSPITAL)
    assert code == 0, stderr
    lines = [line.strip() for line in stdout.splitlines()]
    assert "zip: text (inferred: leading zeros kept, e.g. '01656')" in lines
    assert "length_of_stay: integer (inferred)" in lines
    assert "sex: text (inferred)" in lines and "icd10: text (inferred)" in lines
    assert not any(line.startswith("insurer:") for line in lines)  # not loaded: listed below
    flat = " ".join(stdout.split())
    assert re.search(r"not published \(no role given; .*\): insurer", flat)
    with (out / "published" / "qit.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["zip"] for r in rows} == {"01656", "02139", "10001"}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (",5,BCBS\n", ",thirty,BCBS\n", r"column 'length_of_stay' looks numeric .* row 14 holds "
         r"'thirty', which is not a number"),
        (",5,BCBS\n", ",inf,BCBS\n", r"column 'length_of_stay': row 14 holds 'inf', which is not "
         r"a finite number"),
        (",5,BCBS\n", ",1e400,BCBS\n", r"row 14 holds '1e400', which is not a finite number"),
    ],
)  # fmt: skip
def test_cli_stray_word_or_infinity_exits_2_naming_column_row_value(
    cli, tmp_path, old, new, expected
):
    text = HOSPITAL.replace(old, new, 1)
    assert text != HOSPITAL
    out, code, stdout, stderr = _anonymize(cli, tmp_path, text)
    assert code == 2 and stdout == "" and "Traceback" not in stderr
    assert stderr.startswith("error: ") and re.search(expected, stderr)
    assert "--types length_of_stay=text" in stderr
    assert not out.exists()


def test_cli_types_override_inference(cli, tmp_path):
    out, code, stdout, stderr = _anonymize(
        cli, tmp_path, HOSPITAL, "--types", "zip=integer,length_of_stay=categorical", "--json"
    )
    assert code == 0, stderr
    types = json.loads(stdout)["columns"]["types"]
    assert types["zip"] == {"type": "integer", "how": "declared", "note": ""}
    assert types["length_of_stay"]["type"] == "categorical"
    with (out / "published" / "qit.csv").open(newline="") as f:
        assert {r["zip"] for r in csv.DictReader(f)} == {"1656", "2139", "10001"}
    # a stray word becomes a label once the column is declared text
    text = HOSPITAL.replace(",5,BCBS\n", ",thirty,BCBS\n", 1)
    out, code, stdout, stderr = _anonymize(
        cli, tmp_path, text, "--types", "length_of_stay=text", "--force"
    )
    assert code == 0, stderr
    assert "length_of_stay: text (declared)" in stdout


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        ("zip", "--types: 'zip' is not COLUMN=TYPE"),
        ("zip=time", "--types: column 'zip' has type 'time'; a type is one of text, integer"),
        ("zip=date", "column 'zip' is declared date but row 1 holds '01656', which is not a"),
        ("zip=text,zip=integer", "column 'zip' is given a type twice"),
        ("nope=text", "a type is given for unknown column 'nope'"),
        ("sex=integer", "column 'sex' is numeric but holds the value 'F' (row 1)"),
    ],
)
def test_cli_bad_types_exit_2(cli, tmp_path, types, expected):
    out, code, stdout, stderr = _anonymize(cli, tmp_path, HOSPITAL, "--types", types)
    assert code == 2 and stdout == "" and expected in stderr
    assert not out.exists()


def test_cli_types_refused_for_a_bundled_dataset(cli, tmp_path):
    code, stdout, stderr = cli(
        ["anonymize", "--dataset", "adult", "--algorithm", "anatomy", "--l", "2",
         "--out", str(tmp_path / "r"), "--types", "age=text"]
    )  # fmt: skip
    assert code == 2 and "--types applies to --data" in stderr


def test_audit_data_check_compares_numbers_as_numbers(cli, tmp_path):
    # the original is read as text: 2.50 in the file is the release's 2.5, 007 stays text
    data = tmp_path / "d.csv"
    data.write_text(
        "w,code,d\n"
        + "".join(f"{['2.50', '3.75', '1.00'][i % 3]},{['007', '012'][i % 2]},{'xyz'[i % 3]}\n"
                  for i in range(12))
    )  # fmt: skip
    out = tmp_path / "rel"
    code, stdout, stderr = cli(
        ["anonymize", "--data", str(data), "--qi", "w,code", "--sensitive", "d",
         "--algorithm", "anatomy", "--l", "2", "--out", str(out)]
    )  # fmt: skip
    assert code == 0, stderr
    assert "w: decimal (inferred)" in stdout
    assert "code: text (inferred: leading zeros kept, e.g. '007')" in stdout
    code, _, stderr = cli(["audit", str(out), "--data", str(data), "--stages", "checks"])
    assert code == 0, stderr
    other = tmp_path / "other.csv"
    other.write_text(data.read_text().replace("2.50,", "2.5,").replace("3.75,", "3.76,", 1))
    code, _, stderr = cli(["audit", str(out), "--data", str(other), "--stages", "checks"])
    assert code == 2 and "do not match: row 1 has w = '3.76'" in stderr


# ---------------------------------------------------------------------- dates (issue 17, item 1)


def test_iso_dates_are_dates_in_time_order(tmp_path):
    t = _both(_csv(tmp_path, ["2021-06-15", "1999-12-31", "2020-01-31", "1999-12-31"]))
    assert t.types["q"] == {
        "type": "date",
        "how": "inferred",
        "note": "",
        "hierarchy": "automatic: month, year, 5-year, *",
    }
    assert t.values["q"].tolist() == ["1999-12-31", "2020-01-31", "2021-06-15"]
    assert t.codes["q"].tolist() == [2, 0, 1, 0]
    assert t.schema["q"].hierarchy.rows()[0] == ["1999-12-31", "1999-12", "1999", "1995-1999", "*"]


def test_datetimes_are_canonical_so_one_instant_is_one_value(tmp_path):
    # a blank or a T, seconds or not: one instant, one value; a date alone is at midnight
    cells = ["2020-01-31 08:30", "2020-01-31T08:30:00", "2020-01-31", "2019-05-01T23:59:59"]
    t = _both(_csv(tmp_path, cells))
    assert t.types["q"]["type"] == "datetime"
    assert t.values["q"].tolist() == [
        "2019-05-01T23:59:59",
        "2020-01-31T00:00:00",
        "2020-01-31T08:30:00",
    ]
    assert t.codes["q"].tolist() == [2, 2, 1, 0]
    # the automatic hierarchy of a datetime starts at its day
    assert t.schema["q"].hierarchy.rows()[2][:3] == ["2020-01-31T08:30:00", "2020-01-31", "2020-01"]


@pytest.mark.parametrize(
    ("cells", "row", "value", "why"),
    [
        (["2020-01-31", "2020-02-30", "2020-03-01"], 2, "'2020-02-30'", "names no real day"),
        (["2020-01-31", "2021-13-01"], 2, "'2021-13-01'", "names no real day"),
        (["2020-01-31", "2020-01-31 25:00"], 2, "'2020-01-31 25:00'", "names no real day"),
        # a stray word among mostly dates: refused like a stray word among numbers
        (["2020-01-31", "2020-02-01", "unknown", "2020-02-02"], 3, "'unknown'", "is not a date"),
        (["2020-01-31", "2020-02-01", "31/01/2020"], 3, "'31/01/2020'", "is not a date"),
    ],
)
def test_a_bad_date_is_an_error_naming_row_and_value(tmp_path, cells, row, value, why):
    msg = _error_in_both(_csv(tmp_path, cells))
    assert "column 'q'" in msg and f"row {row} holds {value}" in msg and why in msg
    assert "--types q=text" in msg


def test_few_dates_among_text_stay_text_with_a_note(tmp_path):
    t = _both(_csv(tmp_path, ["fever", "2020-01-31", "cough", "rash"]))
    assert t.types["q"]["type"] == "text"
    assert (
        t.types["q"]["note"]
        == "1 of 4 values look like dates (e.g. '2020-01-31'); all read as text"
    )
    # other layouts are never guessed: 01/02/2020 is January or February
    t = _both(_csv(tmp_path, ["01/02/2020", "13/02/2020"]))
    assert t.types["q"]["type"] == "text" and "hierarchy" not in t.types["q"]


@pytest.mark.parametrize(
    ("declared", "cells", "expected"),
    [
        (
            "date",
            ["2020-01-31", "2020-01-31 08:30"],
            "row 2 holds '2020-01-31 08:30', which has a "
            "time of day; declare it datetime (--types q=datetime",
        ),  # fmt: skip
        ("date", ["2020-01-31", "soon"], "is declared date but row 2 holds 'soon', which is not"),
        ("datetime", ["2020-01-31", "31.01.2020"], "is declared datetime but row 2 holds"),
    ],
)
def test_a_declared_date_that_does_not_parse_is_an_error(tmp_path, declared, cells, expected):
    msg = _error_in_both(_csv(tmp_path, cells), types={"q": declared})
    assert expected in msg


def test_declared_date_types(tmp_path):
    # a date written with a midnight time is a date when declared so; datetime takes dates
    t = _both(_csv(tmp_path, ["2020-01-31 00:00", "2020-02-01"]), types={"q": "date"})
    assert t.types["q"]["type"] == "date" and t.types["q"]["how"] == "declared"
    assert t.values["q"].tolist() == ["2020-01-31", "2020-02-01"]
    t = _both(_csv(tmp_path, ["2020-01-31", "2020-02-01"]), types={"q": "datetime"})
    assert t.values["q"].tolist() == ["2020-01-31T00:00:00", "2020-02-01T00:00:00"]
    # declared text keeps the text as written, and no date hierarchy is attached
    t = _both(_csv(tmp_path, ["2020-01-31 08:30", "2020-01-31T08:30"]), types={"q": "text"})
    assert t.values["q"].tolist() == ["2020-01-31 08:30", "2020-01-31T08:30"]
    assert t.schema["q"].hierarchy is None


def test_a_numeric_column_declared_date_is_an_error():
    frame = pd.DataFrame({"q": [20200131, 20200201], "s": ["x", "y"]})
    with pytest.raises(AnonlabError, match=r"column 'q' is declared date but holds numbers"):
        Table.from_frame(frame, **ROLES, types={"q": "date"})


def test_only_a_quasi_identifier_date_gets_an_automatic_hierarchy(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("q,when,s\na,2020-01-31,x\nb,2020-02-01,y\n")
    t = Table.from_csv(path, quasi_identifiers=["q"], sensitive="s", insensitive=["when"])
    assert t.types["when"]["type"] == "date" and "hierarchy" not in t.types["when"]
    assert t.schema["when"].hierarchy is None
    assert "when: date (inferred)" in t.type_lines()
    t = Table.from_csv(path, quasi_identifiers=["q", "when"], sensitive="s")
    assert t.type_lines()[1] == "when: date (inferred); hierarchy automatic: month, year, 5-year, *"


# ---------------------------------------------------------------------- a column's own markers


def test_a_columns_own_missing_markers_in_both_readers(tmp_path):
    # 'unknown' is missing in q only (a schema file's "missing"); read in chunks, not whole
    path = _csv(tmp_path, ["2020-01-31", " unknown ", "2020-02-01", "2020-02-02", "unknown"])
    msg = _error_in_both(path, missing={"q": ["unknown"]})
    assert "column 'q': 2 missing (rows 2, 5)" in msg
    t = _both(path, missing={"q": ["unknown"]}, drop_missing=True)
    assert t.types["q"]["type"] == "date"
    assert t.dropped["rows_with_missing"] == 2 and t.row_id.tolist() == [0, 2, 3]
    with pytest.raises(AnonlabError, match="markers are given for 'nope', which is not a column"):
        Table.from_csv(path, **ROLES, missing={"nope": ["x"]})
