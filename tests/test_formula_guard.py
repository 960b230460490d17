"""CSV formula-injection guard (issue 16, item 2): guard on write, exact unguard on read."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.formula_guard import (
    TRIGGERS,
    guard_frame,
    guard_text,
    unguard_frame,
    unguard_text,
)
from anonlab.hierarchy import Hierarchy
from anonlab.table import Table, read_frame

# Text biased towards the characters that matter: triggers, apostrophes, digits, signs.
# (no lone surrogates: they are not UTF-8 text and cannot be written to a CSV)
_ALPHABET = st.sampled_from(list("=+-@\t\r'0123456789.eE ,;\"{}*\\ax\n")) | st.characters(
    exclude_categories=("Cs",)
)
hostile_text = st.text(_ALPHABET, max_size=12)


def _starts_with_trigger(cell: str) -> bool:
    return cell[:1] in TRIGGERS


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return cell.strip() == cell and cell.lower().lstrip("+-") not in ("inf", "nan", "infinity")


@pytest.mark.parametrize(
    "cell",
    ["=cmd|' /C calc'!A0", "@SUM(1)", "+1+1", '=HYPERLINK("http://x")', "-2+3", "\tx", "\r=1"],
)
def test_formula_cells_are_guarded(cell):
    guarded = guard_frame(pd.DataFrame({"c": [cell]}))["c"].iloc[0]
    assert guarded == "'" + cell


@pytest.mark.parametrize("cell", ["-5", "+1.5", "-1e3", ".5", "-0.25", "abc", "'abc", "'-5", ""])
def test_numbers_and_plain_text_are_untouched(cell):
    assert guard_frame(pd.DataFrame({"c": [cell, "x"]}))["c"].iloc[0] == cell


def test_apostrophe_before_a_trigger_is_guarded_so_it_round_trips():
    frame = pd.DataFrame({"c": ["'=x", "''@y", "=x"]})
    guarded = guard_frame(frame)
    assert guarded["c"].tolist() == ["''=x", "'''@y", "'=x"]
    assert unguard_frame(guarded)["c"].tolist() == frame["c"].tolist()


def test_numeric_columns_and_non_strings_untouched():
    frame = pd.DataFrame(
        {
            "n": [-5, 3],
            "f": [-1.5, np.nan],
            "b": [True, False],
            "mixed": [-7, "=x"],
        }
    )
    guarded = guard_frame(frame)
    pd.testing.assert_series_equal(guarded["n"], frame["n"])
    pd.testing.assert_series_equal(guarded["f"], frame["f"])
    pd.testing.assert_series_equal(guarded["b"], frame["b"])
    assert guarded["mixed"].tolist() == [-7, "'=x"]
    assert frame["mixed"].tolist() == [-7, "=x"]  # the input is not modified


def test_column_names_are_guarded_and_unguarded():
    frame = pd.DataFrame({"=SUM(A1)": ["a"], "-x": ["b"], "ok": ["c"]})
    guarded = guard_frame(frame)
    assert list(guarded.columns) == ["'=SUM(A1)", "'-x", "ok"]
    assert list(unguard_frame(guarded).columns) == list(frame.columns)


@settings(max_examples=300, deadline=None)
@given(st.lists(hostile_text, min_size=1, max_size=8))
def test_unguard_inverts_guard_and_no_cell_starts_with_a_trigger(cells):
    frame = pd.DataFrame({"c": pd.Series(cells, dtype=object)})
    guarded = guard_frame(frame)
    assert unguard_frame(guarded)["c"].tolist() == cells
    for cell in guarded["c"]:
        assert not _starts_with_trigger(cell) or _is_number(cell), repr(cell)
    for cell in cells:  # scalar versions agree with the frame versions
        assert unguard_text(guard_text(cell)) == cell


_MISSING = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None")
file_text = st.text(st.sampled_from(list("=+-@\t'0123456789.e ,;\"{}*\\ax")), max_size=10)


@settings(max_examples=100, deadline=None)
@given(st.lists(file_text, min_size=1, max_size=6))
def test_csv_written_guarded_reads_back_exactly(tmp_path_factory, cells):
    """Through a real file: guard_frame + to_csv, then anonlab's read_frame gives the cells
    back (those read_frame keeps as they are: no surrounding blanks, not a missing marker)."""
    cells = [c for c in cells if c.strip() == c and c not in _MISSING] + ["anchor"]
    path = tmp_path_factory.mktemp("g") / "t.csv"
    frame = pd.DataFrame({"=c": pd.Series(cells, dtype=object), "n": range(len(cells))})
    guard_frame(frame).to_csv(path, index=False)
    back = read_frame(path)
    assert list(back.columns) == ["=c", "n"]
    assert back["=c"].tolist() == cells


@pytest.mark.parametrize("reader", ["read_frame", "from_csv"])
def test_column_names_are_unguarded_exactly_once(tmp_path, reader):
    names = ["'=x", "''-y", "=z", "'plain"]
    frame = pd.DataFrame([["a", "b", "c", "d"], ["e", "f", "g", "h"]], columns=names)
    path = tmp_path / "t.csv"
    guard_frame(frame).to_csv(path, index=False)
    assert path.read_text().splitlines()[0] == "''=x,'''-y,'=z,'plain"
    if reader == "read_frame":
        assert list(read_frame(path).columns) == names
    else:
        table = Table.from_csv(
            path, quasi_identifiers=names[:2], sensitive=names[2], insensitive=names[3:]
        )
        assert list(table.schema.names) == names


def test_guarded_file_has_no_formula_cell(tmp_path):
    frame = pd.DataFrame({"v": ["=1+1", "@x", "-y", "+z", "-5"], "n": [1, 2, 3, 4, 5]})
    path = tmp_path / "t.csv"
    guard_frame(frame).to_csv(path, index=False)
    lines = path.read_text().splitlines()
    assert lines[1:] == ["'=1+1,1", "'@x,2", "'-y,3", "'+z,4", "-5,5"]


def test_chunked_reader_unguards_like_read_frame(tmp_path):
    frame = pd.DataFrame(
        {"=q": ["=a", "'=b", "-c", "'x", "=a", "-c"], "s": ["@1", "@2", "+3", "'@4", "@1", "+3"]}
    )
    path = tmp_path / "t.csv"
    guard_frame(frame).to_csv(path, index=False)
    whole = Table.from_frame(read_frame(path), quasi_identifiers=["=q"], sensitive="s")
    chunked = Table.from_csv(path, quasi_identifiers=["=q"], sensitive="s", chunk_rows=2)
    assert whole.column("=q").tolist() == frame["=q"].tolist()
    assert chunked.column("=q").tolist() == frame["=q"].tolist()
    assert chunked.column("s").tolist() == frame["s"].tolist()


def test_hierarchy_file_is_guarded_and_reads_back(tmp_path):
    h = Hierarchy([["=a", "@g", "*"], ["-b", "@g", "*"], ["c;d", "'=h", "*"]], name="x")
    text = h.to_csv(tmp_path / "x.csv")
    assert all(not line.startswith(tuple(TRIGGERS)) for line in text.splitlines())
    assert "'=a;'@g;*" in text
    assert Hierarchy.read_csv(tmp_path / "x.csv", name="x") == h


def test_cli_records_and_published_files_are_guarded(tmp_path, cli):
    """A dataset whose values and column names are formulas: every CSV the CLI writes starts
    no cell with a trigger, and anonlab reads the values back exactly."""
    rng = np.random.default_rng(0)
    n = 60
    sens = ["=1+1", "-cmd", "@SUM(1)", "+x", "=HYPERLINK(1)", "ok"]
    frame = pd.DataFrame(
        {
            "=age": rng.integers(20, 30, n),
            "@zip": rng.choice(["=A1", "-B", "+C"], n),
            "-dis": np.tile(sens, n // len(sens)),
        }
    )
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)  # written unguarded, as a hostile user would
    out = tmp_path / "rel"
    base = ["--data", str(data), "--qi", "=age,@zip", "--sensitive", "-dis", "--out", str(out)]
    code, _, err = cli(["anonymize", *base, "--algorithm", "anatomy", "--l", "3"])
    assert code == 0, err
    fg = tmp_path / "fg.csv"
    code, _, err = cli(["attack", "foreground", str(out), "--records", str(fg)])
    assert code == 0, err
    df = tmp_path / "df.csv"
    code, _, err = cli(
        ["attack", "definetti", str(out), "--all", "--iterations", "2", "--chains", "1",
         "--data", str(data), "--records", str(df)]
    )  # fmt: skip
    assert code == 0, err
    written = [fg, df, *sorted((out / "published").glob("*.csv"))]
    for path in written:
        for row in csv.reader(path.open(newline="")):
            bad = [c for c in row if c[:1] in TRIGGERS and not _is_number(c)]
            assert bad == [], (path.name, bad)
    back = read_frame(df)
    assert set(back["top_value"]) <= set(sens)
    assert {f"p[{v}]" for v in sens} <= set(back.columns)
    qit = read_frame(out / "published" / "qit.csv")
    assert {"=age", "@zip"} <= set(qit.columns)
    assert set(qit["@zip"]) <= {"=A1", "-B", "+C"}
