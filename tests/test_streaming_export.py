"""Issue 21, part 3: the published files are written in chunks, never as one whole-table frame.

The reference is what the export wrote before: ``guard_frame(frame).to_csv(path, index=False)``
for the frames of :func:`generalized_frame` and :func:`bucketized_frames` (kept, public and
tested as they were). The streaming writer (:func:`write_published`, ``chunk_rows`` rows at a
time, each distinct value guarded and formatted once) must write the same bytes for the same
release and export key, with chunks far smaller than the table so that many are written. The
Parquet output holds the same rows (unguarded, typed), in the same order, one row group per
chunk; ``publisher/records.parquet``, now written in chunks too, is the file
``DataFrame.to_parquet`` wrote whole.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonlab import Hierarchy, Table
from anonlab.anonymize import anonymize
from anonlab.errors import AnonlabError
from anonlab.formula_guard import guard_frame
from anonlab.release import Release
from anonlab.release_io import (
    bucketized_frames,
    generalized_frame,
    load_release,
    published_file_names,
    save_release,
    write_published,
)
from anonlab.release_io import folder as release_folder

KEY = bytes(range(32))
#: Text a spreadsheet would run, text that only looks like it, and text the CSV must quote.
HOSTILE = [
    "=1+1",
    "+x",
    "-cmd",
    "@SUM(1)",
    "\tx",
    "\r=1",
    "'=x",
    "''-a",
    "'plain",
    "'-5",
    "-5",
    "+1.5",
    "-1e3",
    ".5",
    "-\u0665",  # an Arabic-Indic digit
    "a,b",
    'say "hi"',
    "two\nlines",
    "cr\rin",
    '=HYPERLINK("http://x")',
    "ünï",
    "{a,b}",
    "",
    " ",
    "plain",
]
CHUNKS = [1, 3, 10, 10**6]

CITY = Hierarchy(
    [
        ["Paris", "FR", "EU"],
        ["Lyon", "FR", "EU"],
        ["Berlin", "DE", "EU"],
        ["Tokyo", "JP", "AS"],
        ["Osaka", "JP", "AS"],
    ],
    name="city",
)


# ---------------------------------------------------------------------- releases
def _frame(n: int = 90, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "city": rng.choice(list(CITY.leaves), n),
            "=zip": rng.choice(["=A1", "-B2", "@C3", "+D4", "e5"], n),
            "n": rng.integers(-3, 1000, n),
            "x": rng.choice([0.1, 1e-05, 1e20, -0.0, 2.5, 1.0 / 3.0, -7.0], n),
            "@tag": [f"=t{i}" if i % 3 else f"plain {i}" for i in range(n)],
            "dx": rng.choice([v for v in HOSTILE if v.strip() == v and v][:14], n),
            "ins": rng.choice(["a", "-b", "@c", "d", "'=e"], n),
        }
    )


def _table(sensitive, frame: pd.DataFrame | None = None) -> Table:
    return Table.from_frame(
        _frame() if frame is None else frame,
        quasi_identifiers=["age", "city", "=zip"],
        sensitive=sensitive,
        insensitive=["n", "x", "@tag"] + ([] if sensitive and "ins" in sensitive else ["ins"]),
        hierarchies={"city": CITY},
        value_sets=["=zip"],
    )


def _with_values(table: Table, values: dict[str, np.ndarray]) -> Table:
    """The same codes with some domains replaced (as a hand-made table may hold them)."""
    out = dict(table.values)
    for name, v in values.items():
        assert len(v) == len(table.values[name]), name
        out[name] = v
    return Table(table.schema, table.codes, out, table.row_id, table.dropped, table.types)


def _hand_made() -> Table:
    """Missing values, tabs, mixed objects, bools, numpy str, float32 and NaN in published
    columns."""
    table = _table("dx")
    k = {a: len(table.values[a]) for a in table.schema.names}
    text = np.array((HOSTILE * 3)[: k["dx"]], dtype=object)
    text[1] = None
    tags = np.array([(HOSTILE + [None, np.nan])[i % 27] for i in range(k["@tag"])], dtype=object)
    mixed = np.array(
        [[1, "=x", 2.5, None, True, "-y", np.float64(0.25)][i % 7] for i in range(k["ins"])],
        dtype=object,
    )
    floats = table.values["x"].astype(float).copy()
    floats[0] = np.nan
    return _with_values(
        table,
        {
            "dx": text,
            "@tag": tags,
            "ins": mixed,
            "x": floats,
            "n": (table.values["n"] % 2 == 0),  # a bool domain
            "age": table.values["age"].astype(np.float32) + np.float32(0.1),  # float32
            "=zip": np.array(["=A1", "-B2", "@C3", "\t+D4", "e,5"]),  # numpy str (dtype <U4)
        },
    )


def _perturbed(table: Table, scheme: str) -> Release:
    published = table.codes["dx"].copy()
    published[::7] = (published[::7] + 1) % table.domain_size("dx")
    return Release(
        table,
        np.arange(table.n_rows) // 5,
        scheme,
        {"algorithm": "test-perturb", "seed": 1},
        published_sensitive=published,
    )


def _named_group_and_count() -> Release:
    frame = _frame().rename(columns={"n": "group", "dx": "count"})
    table = Table.from_frame(
        frame,
        quasi_identifiers=["age", "city"],
        sensitive="count",
        insensitive=["group", "@tag"],
        hierarchies={"city": CITY},
    )
    return anonymize(table, "anatomy", l=2, seed=4)


def _full_domain() -> Release:
    table = Table.from_dataset(
        "adult", quasi_identifiers=["age", "sex", "race", "marital-status"], sensitive="occupation"
    ).take(np.arange(400))
    return anonymize(
        table, "generalize", levels={"age": 2, "sex": 0, "race": 1, "marital-status": 1}, seed=0
    )


RELEASES = {
    "mondrian": lambda: anonymize(_table("dx"), "mondrian", l=2, seed=1),
    "mondrian-bucketized": lambda: anonymize(
        _table("dx"), "mondrian", l=2, scheme="bucketization", seed=2
    ),
    "anatomy": lambda: anonymize(_table("dx"), "anatomy", l=3, seed=3),
    "several-sensitive": lambda: anonymize(_table(["dx", "ins"]), "mondrian", l=2, seed=5),
    "k-anonymity": lambda: anonymize(_table(None), "mondrian", k=4, seed=6),
    "perturbed": lambda: _perturbed(_table("dx"), "generalization"),
    "perturbed-bucketized": lambda: _perturbed(_table("dx"), "bucketization"),
    "hand-made": lambda: Release(_hand_made(), np.arange(90) // 6, "generalization"),
    "hand-made-bucketized": lambda: Release(_hand_made(), np.arange(90) % 13, "bucketization"),
    "group-and-count": _named_group_and_count,
    "full-domain": _full_domain,
}


@pytest.fixture(scope="module", params=list(RELEASES))
def release(request) -> Release:
    r = RELEASES[request.param]()
    r.export_key = KEY
    return r


def _reference(release: Release, folder) -> dict[str, bytes]:
    """What the export wrote before this change: whole frames, guarded, ``to_csv``."""
    folder.mkdir()
    if release.scheme == "generalization":
        frames = {"generalized.csv": generalized_frame(release)}
    else:
        qit, st_ = bucketized_frames(release)
        frames = {"qit.csv": qit, "st.csv": st_}
    for name, frame in frames.items():
        guard_frame(frame).to_csv(folder / name, index=False)
    return {name: (folder / name).read_bytes() for name in frames}


def _streamed(release: Release, folder, chunk_rows: int, fmt: str = "csv") -> dict[str, bytes]:
    names = write_published(release, folder, fmt, chunk_rows=chunk_rows)
    assert names == published_file_names(release.scheme, fmt)
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)
    return {name: (folder / name).read_bytes() for name in names}


# ---------------------------------------------------------------------- CSV: the same bytes
@pytest.mark.parametrize("chunk_rows", CHUNKS)
def test_streamed_csv_is_byte_identical_to_the_whole_frame_export(release, tmp_path, chunk_rows):
    want = _reference(release, tmp_path / "reference")
    got = _streamed(release, tmp_path / "streamed", chunk_rows)
    assert list(got) == list(want)
    for name in want:
        assert got[name] == want[name], name
    assert release.table.n_rows > 3 * 10  # several chunks for chunk_rows 1, 3 and 10


def test_the_cases_publish_what_they_are_meant_to(tmp_path):
    """The releases above do exercise the guard, quoting, several sensitive columns, none,
    missing values and numbers (so the identity test is about something)."""
    text = _streamed(RELEASES["hand-made"](), tmp_path / "a", 4)["generalized.csv"].decode()
    assert "'=1+1" in text and "'\tx" in text and '"two\nlines"' in text and '"a,b"' in text
    assert ",,," in text or ",," in text  # an empty (missing) cell
    assert "True" in text and "False" in text and "nan" not in text.lower().split(",")
    several = generalized_frame(RELEASES["several-sensitive"]())
    assert {"dx", "ins"} <= set(several.columns)
    plain = generalized_frame(RELEASES["k-anonymity"]())
    assert "dx" not in plain.columns and list(plain.columns)[-1] == "ins"  # insensitive
    named = _streamed(RELEASES["group-and-count"](), tmp_path / "b", 7)
    assert named["qit.csv"].startswith(b"_group,age,city,group,")
    assert named["st.csv"].startswith(b"_group,count,_count\n")
    header = _streamed(RELEASES["mondrian"](), tmp_path / "c", 5)["generalized.csv"]
    assert header.startswith(b"group,age,city,'=zip,n,x,'@tag,ins,dx\n")


#: Any text but lone surrogates, which no UTF-8 file holds (both writers refuse them, below).
text_values = st.text(
    st.sampled_from(list("=+-@\t\r'0123456789.eE ,;\"{}*\\ax\n"))
    | st.characters(exclude_categories=("Cs",)),
    max_size=8,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(text_values, min_size=14, max_size=14, unique=True),
    st.integers(1, 40),
    st.sampled_from(["generalization", "bucketization"]),
    st.integers(1, 30),
)
def test_streamed_csv_matches_on_random_text(tmp_path_factory, texts, chunk_rows, scheme, size):
    table = _table("dx")
    k = len(table.values["dx"])
    values = np.array(
        [texts[i % len(texts)] + ("" if i < 14 else str(i)) for i in range(k)], dtype=object
    )
    table = _with_values(table, {"dx": values})
    release = Release(table, np.arange(table.n_rows) // size, scheme)
    release.export_key = KEY
    folder = tmp_path_factory.mktemp("random")
    want = _reference(release, folder / "reference")
    assert _streamed(release, folder / "streamed", chunk_rows) == want


def test_no_rows_write_the_header_only(tmp_path):
    from anonlab.release_io.export import _Column, _write_csv, _write_parquet

    cols = [_Column("group", np.arange(3)), _Column("=a", np.array([], dtype=object))]
    _write_csv(tmp_path / "a.csv", cols, np.zeros(0, dtype=np.int64), 2)
    empty = pd.DataFrame({"group": np.zeros(0, np.int64), "=a": np.array([], dtype=object)})
    guard_frame(empty).to_csv(tmp_path / "b.csv", index=False)
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes() == b"group,'=a\n"
    _write_parquet(tmp_path / "a.parquet", cols, np.zeros(0, dtype=np.int64), 2)
    back = pq.read_table(tmp_path / "a.parquet")
    assert back.num_rows == 0 and back.column_names == ["group", "=a"]


@pytest.mark.parametrize("with_time", [False, True])
def test_datetime64_values_are_formatted_as_pandas_formats_the_column(tmp_path, with_time):
    """numpy dates (a hand-made table; anonlab's readers keep dates as ISO text): pandas shows
    no time of day when every published value is at midnight, so the used values decide."""
    table = _table("dx").take(np.arange(60))  # 30 of the 90 tags unused
    k = len(table.values["@tag"])
    stamps = np.datetime64("2020-01-31") + np.arange(k).astype("timedelta64[D]")
    unused = np.setdiff1d(np.arange(k), table.codes["@tag"])
    stamps = stamps.astype("datetime64[s]")
    if with_time:
        stamps[table.codes["@tag"][5]] += np.timedelta64(3600 * 8 + 15, "s")
    assert len(unused) == 30
    stamps[unused] += np.timedelta64(1, "s")  # not published: no influence
    ns = np.array([1, 2], dtype="timedelta64[h]")[np.arange(len(table.values["ins"])) % 2]
    release = Release(
        _with_values(table, {"@tag": stamps, "ins": ns}), np.arange(60) // 5, "generalization"
    )
    release.export_key = KEY
    want = _reference(release, tmp_path / "reference")
    assert _streamed(release, tmp_path / "streamed", 4) == want
    assert (b"08:00:15" in want["generalized.csv"]) == with_time


def test_a_file_of_one_column(tmp_path):
    """csv quotes a lone empty field (a row of one empty cell is not an empty line)."""
    from anonlab.release_io.export import _Column, _write_csv

    values = np.array(["", "=x", None, "a,b", "ok", np.nan], dtype=object)
    codes = np.array([0, 1, 2, 3, 4, 5, 0, 2, 1], dtype=np.int32)
    order = np.arange(len(codes))[::-1].copy()
    for chunk_rows in (1, 2, 100):
        _write_csv(tmp_path / "a.csv", [_Column("=a", values, codes)], order, chunk_rows)
        frame = pd.DataFrame({"=a": values[codes][order]})
        guard_frame(frame).to_csv(tmp_path / "b.csv", index=False)
        assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert b'\n""\n' in (tmp_path / "a.csv").read_bytes()


def test_text_no_utf8_file_can_hold_is_refused_as_before(tmp_path):
    table = _table("dx")
    values = table.values["dx"].copy()
    values[0] = "\ud800"
    release = Release(_with_values(table, {"dx": values}), np.arange(90) // 5, "generalization")
    release.export_key = KEY
    with pytest.raises(UnicodeEncodeError):
        _reference(release, tmp_path / "reference")
    with pytest.raises(UnicodeEncodeError):
        write_published(release, tmp_path / "streamed", chunk_rows=7)


# ---------------------------------------------------------------------- Parquet
def _plain(frame: pd.DataFrame) -> dict[str, list]:
    """Cells as comparable Python values: missing as None, numbers of a numeric column as
    they are, any other object as the CSV's text of it."""

    def cells(column: pd.Series) -> list:
        numeric = pd.api.types.is_numeric_dtype(column.dtype)
        out = []
        for v in column.tolist():
            if v is None or (not isinstance(v, str) and pd.isna(v)):
                out.append(None)
            elif numeric or isinstance(v, str):
                out.append(v)
            else:
                out.append(repr(v) if isinstance(v, float) else str(v))
        return out

    return {c: cells(frame[c]) for c in frame.columns}


@pytest.mark.parametrize("chunk_rows", [7, 10**6])
def test_parquet_holds_the_reference_rows_unguarded(release, tmp_path, chunk_rows):
    names = write_published(release, tmp_path, "parquet", chunk_rows=chunk_rows)
    if release.scheme == "generalization":
        frames = [generalized_frame(release)]
    else:
        frames = list(bucketized_frames(release))
    for name, frame in zip(names, frames, strict=True):
        f = pq.ParquetFile(tmp_path / name)
        assert f.metadata.num_row_groups == max(math.ceil(len(frame) / chunk_rows), 1)
        back = f.read().to_pandas()
        assert list(back.columns) == list(frame.columns)  # names unguarded
        for col in frame.columns:
            if pd.api.types.is_numeric_dtype(frame[col].dtype):
                assert back[col].dtype == frame[col].dtype, col
        assert _plain(back) == _plain(frame), name


def test_parquet_cells_and_names_are_not_guarded_and_keep_the_csv_order(tmp_path):
    release = RELEASES["anatomy"]()
    release.export_key = KEY
    write_published(release, tmp_path / "pq", "parquet", chunk_rows=8)
    write_published(release, tmp_path / "csv", chunk_rows=8)
    qit = pd.read_parquet(tmp_path / "pq" / "qit.parquet")
    assert "=zip" in qit.columns and set(qit["=zip"]) <= {"=A1", "-B2", "@C3", "+D4", "e5"}
    assert qit["@tag"].str.startswith("=").any()
    csv_qit = pd.read_csv(tmp_path / "csv" / "qit.csv", keep_default_na=False)
    assert qit["group"].tolist() == csv_qit["group"].tolist()
    assert qit["age"].tolist() == csv_qit["age"].tolist()
    assert qit["age"].dtype == np.int64 and qit["x"].dtype == np.float64
    st_ = pd.read_parquet(tmp_path / "pq" / "st.parquet")
    assert st_["dx"].isin(["=1+1", "+x", "-cmd", "@SUM(1)"]).any()
    assert st_["count"].sum() == release.table.n_rows


def test_parquet_missing_values_are_null(tmp_path):
    release = RELEASES["hand-made"]()
    release.export_key = KEY
    write_published(release, tmp_path, "parquet", chunk_rows=9)
    table = pq.read_table(tmp_path / "generalized.parquet")
    assert table.schema.field("x").type == pa.float64()
    assert table.schema.field("n").type == pa.bool_()
    assert table.schema.field("ins").type == pa.large_string()  # mixed objects: their text
    assert table.column("@tag").null_count > 0 and table.column("x").null_count > 0
    assert set(table.column("ins").to_pylist()) <= {"1", "=x", "2.5", None, "True", "-y", "0.25"}


# ---------------------------------------------------------------------- the release folder
def test_a_parquet_release_is_sealed_listed_and_loads(tmp_path):
    release = RELEASES["anatomy"]()
    out = save_release(release, tmp_path / "rel", export_key=KEY, published_format="parquet")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["published_files"] == ["qit.parquet", "st.parquet"]
    assert {"published/qit.parquet", "published/st.parquet"} <= set(manifest["files"])
    assert sorted(p.name for p in (out / "published").iterdir()) == ["qit.parquet", "st.parquet"]
    loaded = load_release(out)
    assert np.array_equal(loaded.group, release.group) and loaded.export_key == KEY
    again = save_release(loaded, tmp_path / "again", published_format="parquet")
    for name in ("qit.parquet", "st.parquet"):  # same release and key: same bytes
        assert (again / "published" / name).read_bytes() == (out / "published" / name).read_bytes()
    csv_copy = save_release(loaded, tmp_path / "csv")  # the default stays CSV
    assert sorted(p.name for p in (csv_copy / "published").iterdir()) == ["qit.csv", "st.csv"]


def test_a_tampered_parquet_file_is_refused(tmp_path):
    out = save_release(RELEASES["mondrian"](), tmp_path / "rel", published_format="parquet")
    path = out / "published" / "generalized.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(AnonlabError, match="was changed after the release was written"):
        load_release(out)


def test_an_unknown_format_is_refused_before_any_work(tmp_path):
    with pytest.raises(AnonlabError, match="published format must be one of"):
        save_release(RELEASES["mondrian"](), tmp_path / "rel", published_format="xlsx")
    assert not (tmp_path / "rel").exists()
    with pytest.raises(AnonlabError, match="chunk_rows"):
        write_published(RELEASES["mondrian"](), tmp_path / "p", chunk_rows=0)


# ---------------------------------------------------------------------- publisher/records.parquet
def _records_hand_made() -> Release:
    """Missing text and NaN, numpy str, float32, bools and dates (no mixed-object column, which
    Parquet cannot hold in one type: such records were and are refused)."""
    table = _hand_made()
    stamps = np.datetime64("2021-03-04T05:06", "s") + np.arange(len(table.values["ins"]))
    return Release(_with_values(table, {"ins": stamps}), np.arange(90) // 6, "generalization")


RECORDS = {
    **{k: RELEASES[k] for k in ("perturbed", "several-sensitive", "k-anonymity", "anatomy")},
    "hand-made": _records_hand_made,
}


@pytest.mark.parametrize("name", list(RECORDS))
def test_records_written_in_chunks_are_the_whole_frame_file(tmp_path, name):
    release = RECORDS[name]()
    whole = release_folder._records_frame(release, slice(None))
    pq.write_table(
        pa.Table.from_pandas(whole, preserve_index=False),
        tmp_path / "whole.parquet",
        compression="zstd",
        row_group_size=16,
    )
    release_folder._write_records(release, tmp_path / "chunked.parquet", chunk_rows=16)
    assert (tmp_path / "chunked.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
    first = release_folder._records_frame(release, slice(0, 16))
    schema = pa.Table.from_pandas(first, preserve_index=False).schema
    assert release_folder._record_domains(release, schema) is not None  # the gathered path


def test_records_whose_chunks_differ_in_type_are_written_whole(tmp_path):
    table = _table("dx")
    tags = np.array(["t"] * len(table.values["@tag"]), dtype=object)
    first = table.codes["@tag"][0]
    tags[:] = None
    tags[table.codes["@tag"][40:]] = "late"  # a column all missing in the first chunk
    tags[first] = None
    release = Release(_with_values(table, {"@tag": tags}), np.arange(90) // 5, "generalization")
    release_folder._write_records(release, tmp_path / "r.parquet", chunk_rows=20)
    release_folder._to_parquet(
        release_folder._records_frame(release, slice(None)), tmp_path / "whole.parquet"
    )
    assert (tmp_path / "r.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()


def test_a_release_saved_in_small_record_chunks_loads_the_same(tmp_path, monkeypatch):
    monkeypatch.setattr(release_folder, "_RECORD_ROWS", 8)
    release = RELEASES["perturbed"]()
    out = save_release(release, tmp_path / "rel")
    assert pq.ParquetFile(out / "publisher" / "records.parquet").metadata.num_row_groups == 12
    loaded = load_release(out)
    assert np.array_equal(loaded.group, release.group)
    assert np.array_equal(loaded.published_sensitive, release.published_sensitive)
    for a in release.table.schema.names:
        assert loaded.table.column(a).tolist() == release.table.column(a).tolist(), a


# ---------------------------------------------------------------------- the command line
def test_cli_published_format(tmp_path, cli):
    out = tmp_path / "rel"
    base = [
        "anonymize",
        "--dataset",
        "adult",
        "--qi",
        "age,sex,race",
        "--sensitive",
        "occupation",
        "--algorithm",
        "anatomy",
        "--l",
        "3",
    ]
    code, stdout, err = cli([*base, "--out", str(out), "--published-format", "parquet", "--json"])
    assert code == 0, err
    summary = json.loads(stdout)
    assert [p.rsplit("/", 1)[1] for p in summary["published_files"]] == [
        "qit.parquet",
        "st.parquet",
    ]
    assert all((out / "published" / n).is_file() for n in ("qit.parquet", "st.parquet"))
    code, _, err = cli([*base, "--out", str(tmp_path / "x"), "--published-format", "xlsx"])
    assert code == 2 and "published format must be one of ['csv', 'parquet']" in err
    assert not (tmp_path / "x").exists()
