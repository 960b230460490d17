"""Hierarchy builders against hand-written hierarchies; ARX CSV round trips; errors; the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.hierarchy_builders import (
    BUILDERS,
    build_hierarchy,
    builder_params,
    describe_builders,
    fitting_builders,
)

ICD = """code,category,chapter
A01.0,A01,I Infectious
A01.1,A01,I Infectious
B20,B20,I Infectious
C50.9,C50,II Neoplasms
C50.1,C50,II Neoplasms
D00.0,D00,II Neoplasms
"""


def rows(spec: dict, values: list[str], name: str = "col") -> list[list[str]]:
    return build_hierarchy(spec, values, name).rows()


# ---------------------------------------------------------------------- prefix
def test_prefix_masks_one_more_character_per_level():
    assert rows({"builder": "prefix"}, ["10001", "02142", "02139", "02139"], "zip") == [
        ["02139", "0213*", "021**", "02***", "0****", "*****"],
        ["02142", "0214*", "021**", "02***", "0****", "*****"],
        ["10001", "1000*", "100**", "10***", "1****", "*****"],
    ]


def test_prefix_keep_and_mask_char_put_root_on_top():
    spec = {"builder": "prefix", "keep": [3, 1], "mask_char": "#"}
    assert rows(spec, ["02139", "02142", "10001"], "zip") == [
        ["02139", "021##", "0####", "*"],
        ["02142", "021##", "0####", "*"],
        ["10001", "100##", "1####", "*"],
    ]


def test_prefix_refuses_values_of_another_length_unless_padded():
    with pytest.raises(AnonlabError, match=r"column 'zip'.*value '2139' has 4 characters.*pad"):
        build_hierarchy({"builder": "prefix"}, ["02139", "2139", "02142"], "zip")
    assert rows({"builder": "prefix", "pad": "true", "keep": [3, 2]}, ["A01", "A011", "B2"]) == [
        ["A01", "A01*", "A0**", "*"],
        ["A011", "A01*", "A0**", "*"],
        ["B2", "B2**", "B2**", "*"],
    ]


# ---------------------------------------------------------------------- date
DATES = ["2025-01-01", "2019-12-31", "2020-04-01", "2020-01-15", "2024-12-31T23:59"]


def test_dates_to_month_quarter_year_5_year():
    spec = {"builder": "date", "levels": ["month", "quarter", "year", "5-year"]}
    assert rows(spec, DATES, "admitted") == [
        ["2019-12-31", "2019-12", "2019-Q4", "2019", "2015-2019", "*"],
        ["2020-01-15", "2020-01", "2020-Q1", "2020", "2020-2024", "*"],
        ["2020-04-01", "2020-04", "2020-Q2", "2020", "2020-2024", "*"],
        ["2024-12-31T23:59", "2024-12", "2024-Q4", "2024", "2020-2024", "*"],
        ["2025-01-01", "2025-01", "2025-Q1", "2025", "2025-2029", "*"],
    ]


def test_dates_before_1970():
    spec = {"builder": "date", "levels": "quarter,10-year"}
    assert rows(spec, ["1969-12-31", "1900-01-01"]) == [
        ["1900-01-01", "1900-Q1", "1900-1909", "*"],
        ["1969-12-31", "1969-Q4", "1960-1969", "*"],
    ]


def test_date_default_levels_are_month_year_5_year():
    assert rows({"builder": "date"}, ["2003-07-04", "1999-02-28"]) == [
        ["1999-02-28", "1999-02", "1999", "1995-1999", "*"],
        ["2003-07-04", "2003-07", "2003", "2000-2004", "*"],
    ]


def test_iso_weeks_nest_in_the_month_and_year_of_their_thursday():
    spec = {"builder": "date", "levels": "week,month,year,10-year"}
    assert rows(spec, ["2019-12-30", "2021-01-03", "2020-06-15 08:00:00"]) == [
        ["2019-12-30", "2020-W01", "2020-01", "2020", "2020-2029", "*"],
        ["2020-06-15 08:00:00", "2020-W25", "2020-06", "2020", "2020-2029", "*"],
        ["2021-01-03", "2020-W53", "2020-12", "2020", "2020-2029", "*"],
    ]


def test_ages_at_a_reference_date_with_birthday_edges():
    spec = {"builder": "date", "age_at": "2021-06-15", "width": 10}
    values = ["1991-06-15", "1991-06-16", "1991-06-14", "2000-02-29", "1970-01-01T12:00"]
    assert rows(spec, values, "born") == [
        ["1970-01-01T12:00", "51", "[50, 60)", "[40, 60)", "*"],
        ["1991-06-14", "30", "[30, 40)", "[20, 40)", "*"],
        ["1991-06-15", "30", "[30, 40)", "[20, 40)", "*"],  # birthday on the reference date
        ["1991-06-16", "29", "[20, 30)", "[20, 40)", "*"],  # birthday the day after
        ["2000-02-29", "21", "[20, 30)", "[20, 40)", "*"],
    ]
    # [0, 40) and [40, 80) would group these ages as the level below does: no such level.


@pytest.mark.parametrize(("ref", "age"), [("2021-02-28", "20"), ("2021-03-01", "21")])
def test_leap_day_birthday_falls_on_1_march(ref, age):
    h = build_hierarchy({"builder": "date", "age_at": ref}, ["2000-02-29"], "born")
    assert h.rows()[0][1] == age


# ---------------------------------------------------------------------- mapping
def test_icd10_mapping_from_a_csv_file(tmp_path):
    path = tmp_path / "icd10.csv"
    path.write_text(ICD, encoding="utf-8")
    values = ["C50.9", "A01.1", "B20", "A01.0"]  # D00.0 and C50.1 are in the file only
    assert rows({"builder": "mapping", "file": str(path)}, values, "icd") == [
        ["A01.0", "A01", "I Infectious", "*"],
        ["A01.1", "A01", "I Infectious", "*"],
        ["B20", "B20", "I Infectious", "*"],
        ["C50.9", "C50", "II Neoplasms", "*"],
    ]


def test_mapping_lists_the_first_unmapped_values(tmp_path):
    path = tmp_path / "icd10.csv"
    path.write_text(ICD, encoding="utf-8")
    with pytest.raises(AnonlabError, match=r"column 'icd'.* 2 value\(s\).*'Z99', 'E11'"):
        build_hierarchy({"builder": "mapping", "file": path}, ["A01.0", "Z99", "E11"], "icd")


def test_mapping_file_errors_name_the_row(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("code,category\nA01.0,A01\nA01.0,A02\n", encoding="utf-8")
    with pytest.raises(AnonlabError, match=r"leaf 'A01.0' is mapped twice"):
        build_hierarchy({"builder": "mapping", "file": path}, ["A01.0"], "icd")
    path.write_text("code,category\nA01.0,\n", encoding="utf-8")
    with pytest.raises(AnonlabError, match=r"row 2 has an empty 'category'"):
        build_hierarchy({"builder": "mapping", "file": path}, ["A01.0"], "icd")
    with pytest.raises(AnonlabError, match=r"cannot read mapping file .*nope.csv"):
        build_hierarchy({"builder": "mapping", "file": tmp_path / "nope.csv"}, ["A"], "icd")


def test_inline_mapping_levels():
    spec = {
        "builder": "mapping",
        "levels": [
            {"A01.0": "A01", "A01.1": "A01", "C50.9": "C50", "Z00": "Z00"},
            {"A01": "I", "C50": "II"},
        ],
    }
    assert rows(spec, ["C50.9", "A01.1", "A01.0"]) == [
        ["A01.0", "A01", "I", "*"],
        ["A01.1", "A01", "I", "*"],
        ["C50.9", "C50", "II", "*"],
    ]
    with pytest.raises(AnonlabError, match=r"node 'Z00' \(level 1\) has no parent"):
        build_hierarchy(spec, ["Z00"], "icd")


# ---------------------------------------------------------------------- order
SEVERITY = ["none", "mild", "moderate", "severe", "critical"]


def test_order_fanout_2():
    spec = {"builder": "order", "order": SEVERITY}
    assert rows(spec, ["severe", "none", "critical", "mild", "moderate"]) == [
        ["none", "none-mild", "none-severe", "*"],
        ["mild", "none-mild", "none-severe", "*"],
        ["moderate", "moderate-severe", "none-severe", "*"],
        ["severe", "moderate-severe", "none-severe", "*"],
        ["critical", "critical", "critical", "*"],
    ]


def test_order_fanout_3_labels_runs_by_the_full_order():
    spec = {"builder": "order", "order": SEVERITY, "fanout": 3}
    # "moderate" is absent from the column: the runs still follow the full order.
    assert rows(spec, ["critical", "none", "mild", "severe"]) == [
        ["none", "none-moderate", "*"],
        ["mild", "none-moderate", "*"],
        ["severe", "severe-critical", "*"],
        ["critical", "severe-critical", "*"],
    ]


def test_order_default_is_numeric_when_every_value_is_a_number():
    assert rows({"builder": "order"}, ["10", "9", "100", "2"]) == [
        ["2", "2-9", "*"],
        ["9", "2-9", "*"],
        ["10", "10-100", "*"],
        ["100", "10-100", "*"],
    ]


def test_order_must_list_every_value():
    with pytest.raises(AnonlabError, match=r"column 'sev'.*'fatal'.*not in parameter 'order'"):
        build_hierarchy({"builder": "order", "order": SEVERITY}, ["none", "fatal"], "sev")
    with pytest.raises(AnonlabError, match=r"'mild' appears twice"):
        build_hierarchy({"builder": "order", "order": ["mild", "none", "mild"]}, ["none"], "sev")


# ---------------------------------------------------------------------- interval
def test_intervals_width_and_fanout():
    spec = {"builder": "interval", "width": 10}
    assert rows(spec, ["25", "3", "-4", "40.5", "17"], "age") == [
        ["-4", "[-10, 0)", "[-20, 0)", "[-40, 0)", "[-80, 0)", "*"],
        ["3", "[0, 10)", "[0, 20)", "[0, 40)", "[0, 80)", "*"],
        ["17", "[10, 20)", "[0, 20)", "[0, 40)", "[0, 80)", "*"],
        ["25", "[20, 30)", "[20, 40)", "[0, 40)", "[0, 80)", "*"],
        ["40.5", "[40, 50)", "[40, 60)", "[40, 80)", "[0, 80)", "*"],
    ]
    spec = {"builder": "interval", "width": 5, "fanout": 3, "origin": 1}
    assert rows(spec, ["1", "6", "20"]) == [
        ["1", "[1, 6)", "[1, 16)", "*"],
        ["6", "[6, 11)", "[1, 16)", "*"],
        ["20", "[16, 21)", "[16, 31)", "*"],
    ]


def test_intervals_put_a_value_on_a_bound_in_the_band_it_starts():
    h = build_hierarchy({"builder": "interval", "width": 0.1}, ["0.3", "0.29"], "x")
    assert h.rows()[1][:2] == ["0.3", "[0.3, 0.4)"]
    assert h.rows()[0][:2] == ["0.29", "[0.2, 0.3)"]


def test_explicit_bands():
    spec = {"builder": "interval", "bands": [[0, 18, 65, 130], [0, 65, 130]]}
    assert rows(spec, ["70", "3", "18", "64"]) == [
        ["3", "[0, 18)", "[0, 65)", "*"],
        ["18", "[18, 65)", "[0, 65)", "*"],
        ["64", "[18, 65)", "[0, 65)", "*"],
        ["70", "[65, 130)", "[65, 130)", "*"],
    ]
    flat = [["3", "[0, 18)", "*"], ["70", "[65, 130)", "*"]]
    assert rows({"builder": "interval", "bands": "0, 18, 65, 130"}, ["70", "3"]) == flat
    assert rows({"builder": "interval", "bands": [0, "18", 65, 130]}, ["70", "3"]) == flat
    with pytest.raises(AnonlabError, match=r"value '130' is outside the bands \[0, 130\)"):
        build_hierarchy(spec, ["130"], "age")
    with pytest.raises(AnonlabError, match=r"bands level 2 .* must use bounds of level 1"):
        build_hierarchy({"builder": "interval", "bands": [[0, 18, 65], [0, 50, 65]]}, ["1"], "a")


# ---------------------------------------------------------------------- round trips
@pytest.fixture
def icd_file(tmp_path) -> Path:
    path = tmp_path / "icd10.csv"
    path.write_text(ICD, encoding="utf-8")
    return path


def _examples(icd_file: Path) -> list[tuple[dict, list[str]]]:
    return [
        ({"builder": "prefix"}, ["02139", "02142", "10001"]),
        ({"builder": "date", "levels": ["week", "month", "quarter", "year"]}, DATES),
        ({"builder": "date", "age_at": "2021-06-15"}, ["1991-06-15", "2000-02-29"]),
        ({"builder": "mapping", "file": str(icd_file)}, ["A01.0", "B20", "C50.9"]),
        ({"builder": "order", "order": SEVERITY, "fanout": 2}, SEVERITY),
        ({"builder": "interval", "width": 5}, ["-12", "3", "22", "47.5"]),
        ({"builder": "suppress"}, ["M", "F", "x;y"]),
    ]


def test_every_builder_round_trips_through_arx_csv(tmp_path, icd_file):
    examples = _examples(icd_file)
    assert {spec["builder"] for spec, _ in examples} == set(BUILDERS)
    for i, (spec, values) in enumerate(examples):
        h = build_hierarchy(spec, values, "col")
        path = tmp_path / f"h{i}.csv"
        h.to_csv(path)
        back = Hierarchy.read_csv(path)
        assert back == h, spec
        assert back.rows() == h.rows()
        assert back.leaves == tuple(dict.fromkeys(r[0] for r in h.rows()))
        assert set(back.leaves) == set(values), spec


def test_built_hierarchy_encodes_a_table_with_leading_zeros():
    from anonlab.table import Table

    frame = pd.DataFrame({"zip": ["02139", "02142", "10001", "02139"], "d": list("abab")})
    h = build_hierarchy({"builder": "prefix", "keep": [3]}, frame["zip"].unique(), "zip")
    table = Table.from_frame(
        frame, quasi_identifiers=["zip"], sensitive="d", hierarchies={"zip": h}
    )
    leaf = table.leaf_codes("zip")[table.codes["zip"]]
    labels = h.labels(1)[h.map(1)[leaf]]
    assert labels.tolist() == ["021**", "021**", "100**", "021**"]


# ---------------------------------------------------------------------- errors
def test_unknown_builder_lists_the_builders():
    with pytest.raises(AnonlabError, match=r"column 'x': unknown hierarchy builder 'zip'") as e:
        build_hierarchy({"builder": "zip"}, ["1"], "x")
    for b in BUILDERS:
        assert f"\n{b}:" in "\n" + str(e.value).split("\n", 1)[1]
    assert len(describe_builders().splitlines()) == len(BUILDERS)
    with pytest.raises(AnonlabError, match=r"unknown hierarchy builder \['prefix'\]"):
        build_hierarchy({"builder": ["prefix"]}, ["1"], "x")
    with pytest.raises(AnonlabError, match="mapping such as"):
        build_hierarchy("prefix", ["1"], "x")  # type: ignore[arg-type]


@pytest.mark.parametrize("builder", BUILDERS)
def test_unknown_parameter_names_the_valid_ones(builder):
    with pytest.raises(AnonlabError, match=r"unknown parameter\(s\) 'widht'") as e:
        build_hierarchy({"builder": builder, "widht": 5}, ["1"], "x")
    assert ", ".join(builder_params(builder)) in str(e.value)


@pytest.mark.parametrize(
    ("spec", "values", "match"),
    [
        (
            {"builder": "date"},
            ["2020-01-01", "31/01/2020"],
            r"'31/01/2020' is not a date.*YYYY-MM-DD",
        ),
        ({"builder": "date"}, ["2020-02-30"], r"'2020-02-30' is not a valid date"),
        ({"builder": "date"}, ["2020-01-01T25:00"], r"'2020-01-01T25:00' is not a valid date"),
        ({"builder": "date", "levels": ["year", "month"]}, ["2020-01-01"], "fine to coarse"),
        ({"builder": "date", "levels": ["fortnight"]}, ["2020-01-01"], "unknown date level"),
        ({"builder": "date", "age_at": "2020-01-01"}, ["2020-01-02"], r"'2020-01-02' is after"),
        ({"builder": "date", "age_at": "soon"}, ["2020-01-02"], r"age_at 'soon' is not a date"),
        ({"builder": "date", "width": 5}, ["2020-01-02"], "only with 'age_at'"),
        ({"builder": "interval", "width": 5}, ["3", "thirty"], r"'thirty' is not a finite number"),
        ({"builder": "interval", "width": 5}, ["inf"], r"'inf' is not a finite number"),
        ({"builder": "interval", "width": 0}, ["3"], r"'width' must be a positive number"),
        ({"builder": "interval", "width": True}, ["3"], r"'width' must be a positive number"),
        ({"builder": "interval"}, ["3"], r"'width' is required"),
        (
            {"builder": "interval", "width": 5, "fanout": 1},
            ["3"],
            r"'fanout' must be an integer >= 2",
        ),
        ({"builder": "interval", "width": 5, "bands": [0, 5]}, ["3"], "either 'bands' or"),
        ({"builder": "prefix", "keep": [2, 3]}, ["021"], r"'keep' must list decreasing"),
        ({"builder": "prefix", "keep": [5]}, ["021"], r"each in 0..2"),
        ({"builder": "prefix", "mask_char": "**"}, ["021"], "'mask_char' must be one"),
        ({"builder": "prefix"}, ["021", ""], "a value is missing"),
        ({"builder": "prefix"}, ["021", None], "a value is missing"),
        ({"builder": "mapping"}, ["a"], "exactly one of 'file'"),
    ],
)
def test_bad_parameters_and_values_are_named(spec, values, match):
    with pytest.raises(AnonlabError, match=match) as e:
        build_hierarchy(spec, values, "col")
    assert "column 'col'" in str(e.value)


def test_values_may_be_numbers_or_dates_as_objects():
    import datetime as dt

    h = build_hierarchy({"builder": "date", "levels": ["year"]}, [dt.date(2020, 5, 1)], "d")
    assert h.rows() == [["2020-05-01", "2020", "*"]]
    h = build_hierarchy({"builder": "interval", "width": 10}, np.array([39.0, 5.0]), "a")
    assert [r[0] for r in h.rows()] == ["5", "39"]
    h = build_hierarchy({"builder": "order"}, pd.Series([" b", "a ", "b"]), "o")
    assert h.rows() == [["a", "*"], ["b", "*"]]  # one run of two: no level below *"
    h = build_hierarchy({"builder": "order"}, (v for v in "ba"), "o")  # any iterable
    assert h.leaves == ("a", "b")


# ---------------------------------------------------------------------- CLI
@pytest.fixture
def discharges(tmp_path) -> Path:
    path = tmp_path / "discharges.csv"
    path.write_text(
        "zip,born,sev\n02139,1980-05-01,mild\n02142,1990-03-01,[bold]x\n10001,,mild\n"
        "02139,1980-05-01,none\n",
        encoding="utf-8",
    )
    return path


def test_cli_build_writes_the_arx_file_and_refuses_to_overwrite(cli, discharges, tmp_path):
    target = tmp_path / "zip.csv"
    argv = ["hierarchy", "build", "--data", str(discharges), "--column", "zip"]
    argv += ["--builder", "prefix", "--param", "keep=3,1", "--out", str(target)]
    code, out, err = cli(argv)
    assert code == 0, err
    assert "3 distinct values" in out and "021**" in out and f"wrote {target}" in out
    written = target.read_text(encoding="utf-8")
    assert written == "02139;021**;0****;*\n02142;021**;0****;*\n10001;100**;1****;*\n"
    target.write_text("mine\n", encoding="utf-8")
    code, out, err = cli(argv)
    assert code == 2 and "already exists" in err and "--force" in err
    assert target.read_text(encoding="utf-8") == "mine\n"
    code, out, err = cli([*argv, "--force"])
    assert code == 0, err
    assert target.read_text(encoding="utf-8") == written


def test_cli_build_json_skips_missing_cells(cli, discharges):
    argv = ["hierarchy", "build", "--data", str(discharges), "--column", "born", "--builder"]
    code, out, err = cli([*argv, "date", "--param", "age_at=2020-03-01", "--json"])
    assert code == 0, err
    payload = json.loads(out)
    assert payload["missing_skipped"] == 1
    assert payload["rows"] == [
        ["1980-05-01", "39", "[35, 40)", "*"],
        ["1990-03-01", "30", "[30, 35)", "*"],
    ]
    assert [lv["nodes"] for lv in payload["levels"]] == [2, 2, 2, 1]


def test_cli_prints_values_literally(cli, discharges):
    argv = ["hierarchy", "build", "--data", str(discharges), "--column", "sev"]
    code, out, err = cli([*argv, "--builder", "order", "--param", "order=none,mild,[bold]x"])
    assert code == 0, err
    assert "[bold]x" in out


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--column", "zipp", "--builder", "prefix"], "'zipp' is not a column"),
        (["--column", "zip", "--builder", "zipcode"], "not a builder"),
        (["--column", "zip", "--builder", "prefix", "--param", "keep"], "not NAME=VALUE"),
        (["--column", "born", "--builder", "interval", "--param", "width=5"], "not a finite"),
        (["--column", "zip", "--builder", "prefix", "--param", "bad=1"], "unknown parameter"),
        (
            ["--column", "zip", "--builder", "prefix", "--param", "keep=1", "--param", "keep=2"],
            "twice",
        ),
        (["--column", "zip"], "give --data FILE, --column COL and --builder NAME"),
    ],
)
def test_cli_build_errors_exit_2(cli, discharges, extra, match):
    code, out, err = cli(["hierarchy", "build", "--data", str(discharges), *extra])
    assert code == 2
    assert match in err


def test_cli_show(cli, tmp_path):
    path = tmp_path / "h.csv"
    build_hierarchy({"builder": "prefix"}, ["02139", "02142"], "zip").to_csv(path)
    code, out, err = cli(["hierarchy", "show", str(path)])
    assert code == 0, err
    assert "2 leaves" in out and "0213*" in out
    code, out, err = cli(["hierarchy", "show", str(path), "--json"])
    assert code == 0, err
    assert [lv["nodes"] for lv in json.loads(out)["levels"]] == [2, 2, 1, 1, 1, 1]
    code, out, err = cli(["hierarchy", "show", str(tmp_path / "nope.csv")])
    assert code == 2 and "nope.csv" in err


# ---------------------------------------------------------------------- properties
BAND = re.compile(r"^\[(-?[\d.e+-]+), (-?[\d.e+-]+)\)$")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-500, 500), min_size=1, max_size=40),
    st.sampled_from([1, 2, 5, 7]),
    st.integers(2, 4),
)
def test_interval_bands_contain_their_value_and_nest(values, width, fanout):
    h = build_hierarchy(
        {"builder": "interval", "width": width, "fanout": fanout}, list(map(str, values)), "x"
    )
    for row in h.rows():
        v, below = float(row[0]), None  # below: the band one level down
        for j, label in enumerate(row[1:-1]):
            lo, hi = (float(x) for x in BAND.match(label).groups())
            assert lo <= v < hi and hi - lo == width * fanout**j and lo % (hi - lo) == 0
            if below is not None:  # the band below lies inside this one
                assert lo <= below[0] and below[1] <= hi
            below = (lo, hi)
        assert row[-1] == "*"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-25_000, 50_000), min_size=1, max_size=30), st.booleans())
def test_date_levels_match_python_datetime(offsets, weeks):
    import datetime as dt

    days = [dt.date(1970, 1, 1) + dt.timedelta(days=o) for o in offsets]
    levels = ["week", "month", "quarter", "year"] if weeks else ["day", "month", "quarter", "year"]
    h = build_hierarchy({"builder": "date", "levels": levels}, [d.isoformat() for d in days], "d")
    for row in h.rows():
        d = dt.date.fromisoformat(row[0])
        if weeks:
            year, week, weekday = d.isocalendar()
            assert row[1] == f"{year}-W{week:02d}"
            d = d + dt.timedelta(days=4 - weekday)  # the week's Thursday
        else:
            assert row[1] == row[0]
        assert row[2:] == [f"{d:%Y-%m}", f"{d.year}-Q{(d.month - 1) // 3 + 1}", str(d.year), "*"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("0123456789AZ", min_size=4, max_size=4), min_size=1, max_size=20))
def test_prefix_levels_keep_leading_characters(values):
    h = build_hierarchy({"builder": "prefix"}, values, "code")
    for row in h.rows():
        assert row[1:] == [row[0][:k] + "*" * (4 - k) for k in (3, 2, 1, 0)]


def test_cli_reads_parquet_dates_and_text(cli, tmp_path):
    path = tmp_path / "d.parquet"
    frame = pd.DataFrame(
        {
            "zip": ["02139", None, "02142"],
            "admitted": pd.to_datetime(["2020-01-31", None, "2021-07-01"]),
        }
    )
    frame.to_parquet(path)
    argv = ["hierarchy", "build", "--data", str(path), "--json", "--column"]
    code, out, err = cli([*argv, "admitted", "--builder", "date", "--param", "levels=quarter"])
    assert code == 0, err
    payload = json.loads(out)
    assert payload["rows"] == [["2020-01-31", "2020-Q1", "*"], ["2021-07-01", "2021-Q3", "*"]]
    assert payload["missing_skipped"] == 1
    code, out, err = cli([*argv, "zip", "--builder", "prefix", "--param", "keep=2"])
    assert code == 0, err
    assert json.loads(out)["rows"] == [["02139", "02***", "*"], ["02142", "02***", "*"]]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["02139", "10001"], ("prefix", "order", "mapping", "suppress")),
        (["39", "5", "-2.5"], ("interval", "order", "mapping", "suppress")),
        (["10", "20"], ("interval", "prefix", "order", "mapping", "suppress")),
        (["2020-01-31", "2020-02-30"], ("prefix", "order", "mapping", "suppress")),  # no 30 Feb
        (["2020-01-31", "2020-02-03T10:00"], ("date", "order", "mapping", "suppress")),
        (["A01.0", "B2"], ("order", "mapping", "suppress")),
        (["a", ""], ("order", "mapping", "suppress")),
    ],
)
def test_fitting_builders(values, expected):
    assert fitting_builders(values) == expected
    # each one named does build with default parameters (mapping needs a table; values with a
    # missing one build nothing)
    for builder in [b for b in expected if b != "mapping"] if "" not in values else []:
        spec = {"builder": builder, **({"width": 5} if builder == "interval" else {})}
        build_hierarchy(spec, values, "col")


def test_cli_build_refuses_a_row_with_extra_fields(cli, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("zip,sex\n02139,F\n02142,M,extra\n", encoding="utf-8")
    code, out, err = cli(
        ["hierarchy", "build", "--data", str(path), "--column", "zip", "--builder", "prefix"]
    )
    assert code == 2 and "line 3" in err


def test_suppress_builder_is_each_value_or_star():
    h = build_hierarchy({"builder": "suppress"}, ["M", "F", "M"], "sex")
    assert h.rows() == [["F", "*"], ["M", "*"]]
    with pytest.raises(AnonlabError, match="unknown parameter"):
        build_hierarchy({"builder": "suppress", "fanout": 2}, ["M"], "sex")


def test_the_package_keeps_the_names_callers_import():
    # schema_file, table, release, the CLI and the benchmarks import these from the package
    import anonlab.hierarchy_builders as hb
    from anonlab.hierarchy_builders.date_levels import DEFAULT_DATE_LEVELS, automatic_date_spec
    from anonlab.hierarchy_builders.intervals import automatic_interval_spec

    assert set(hb.__all__) == {
        "BUILDERS", "DATE_LEVELS", "DEFAULT_DATE_LEVELS", "automatic_date_spec",
        "automatic_interval_spec", "build_hierarchy", "builder_params", "describe_builders",
        "fitting_builders"}  # fmt: skip
    assert hb.DEFAULT_DATE_LEVELS is DEFAULT_DATE_LEVELS
    assert hb.automatic_date_spec(True) == automatic_date_spec(True) == {
        "builder": "date", "levels": ["day", "month", "year", "5-year"]}  # fmt: skip
    assert hb.automatic_interval_spec is automatic_interval_spec
    assert hb.BUILDERS == ("interval", "date", "prefix", "order", "mapping", "suppress")
