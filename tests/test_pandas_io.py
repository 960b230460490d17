"""pandas in, pandas out (issue 17, item 5), and pandas dtypes in Table.from_frame (item 1).

* Every public entry point checks its first argument up front: a Table (anonymizers, and
  ``asap_check``) or a Release (models, measures, attacks, audit). A wrong type is an
  AnonlabError naming the parameter, the type received, the type expected and how to make one.
* The anonymizers and ``anonymize`` also take a DataFrame with the keywords of
  ``Table.from_frame``; every column must then get a role, and the manifest records them.
* ``Release.published_frames()`` is exactly what ``save_release`` writes to ``published/``;
  ``Release.publisher_frame()`` is ``publisher/records.parquet``, the ground truth.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import anonlab.attacks
from anonlab import models, utility
from anonlab._validation import frame_keywords
from anonlab.anonymize import ALGORITHMS, anonymize, available, mask, mondrian, parameters
from anonlab.errors import AnonlabError
from anonlab.formula_guard import unguard_frame
from anonlab.release import Release
from anonlab.release_io import load_release, save_release
from anonlab.report.audit import audit
from anonlab.schema import Kind
from anonlab.table import (
    GROUP_ID_COLUMN,
    PUBLISHED_SENSITIVE_COLUMN,
    ROW_ID_COLUMN,
    Table,
    read_frame,
)

TYPED = "issue 17 item 1: typed columns"
QI = ["zip", "age", "sex"]
ROLES = dict(
    quasi_identifiers=QI,
    sensitive="diagnosis",
    insensitive=["length_of_stay"],
    identifiers=["patient_id"],
    value_sets=["zip", "sex"],  # no hierarchies: published as sets, by choice
)
EXPECTED_ROLES = {
    "patient_id": "identifier",
    "zip": "quasi-identifier",
    "age": "quasi-identifier",
    "sex": "quasi-identifier",
    "length_of_stay": "insensitive",
    "diagnosis": "sensitive",
}


def _discharges(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """Discharge-like records: zip codes with leading zeros, a unique patient id, a diagnosis
    one value of which a spreadsheet would run as a formula."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "patient_id": np.arange(1000, 1000 + n),
            "zip": rng.choice(["01656", "02139", "02140", "10001"], n),
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "length_of_stay": rng.integers(1, 30, n),
            "diagnosis": rng.choice(
                ["flu", "hiv", "cancer", "cold", "=1+1"], n, p=[0.3, 0.3, 0.2, 0.1, 0.1]
            ),
        }
    )


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _discharges()


@pytest.fixture(scope="module")
def table(frame) -> Table:
    return Table.from_frame(frame, **ROLES)


@pytest.fixture(scope="module")
def release(table) -> Release:
    return mondrian(table, k=5)


# ---------------------------------------------------------------------- wrong types, everywhere
def _bad_inputs(table: Table, release: Release) -> dict[str, tuple[object, str]]:
    """Wrong first arguments and how the message must name the type received."""
    return {
        "dataframe": (pd.DataFrame({"a": [1, 2]}), "got a pandas DataFrame"),
        "dict": ({"age": [1, 2]}, "got dict"),
        "none": (None, "got None"),
        "path": ("data.csv", "got str 'data.csv'"),
    }


def _assert_table_error(exc: AnonlabError, kind: str, received: str) -> None:
    text = str(exc)
    assert "parameter 'table' must be an anonlab Table" in text
    assert received in text
    if kind == "dataframe":
        assert "Table.from_frame(df, quasi_identifiers=[...], sensitive=...)" in text
        assert "pass the DataFrame with quasi_identifiers=[...] and sensitive=..." in text
    if kind == "path":
        assert "Table.from_csv(path" in text


@pytest.mark.parametrize("kind", ["dataframe", "dict", "none", "path"])
@pytest.mark.parametrize("name", available())
def test_every_anonymizer_refuses_a_wrong_first_argument(name, kind, table, release):
    bad, received = _bad_inputs(table, release)[kind]
    if kind == "dataframe":  # a DataFrame without roles: how to give them
        with pytest.raises(
            AnonlabError,
            match=f"^{ALGORITHMS[name].__name__}: parameter 'table' is a pandas DataFrame",
        ):
            ALGORITHMS[name](bad)
        with pytest.raises(AnonlabError, match="quasi_identifiers= and sensitive= must be given"):
            anonymize(bad, name)
        return
    with pytest.raises(AnonlabError, match=f"^{ALGORITHMS[name].__name__}: ") as direct:
        ALGORITHMS[name](bad)
    _assert_table_error(direct.value, kind, received)
    with pytest.raises(AnonlabError, match="^" + re.escape(f"anonymize({name!r}): ")) as registry:
        anonymize(bad, name)
    _assert_table_error(registry.value, kind, received)


@pytest.mark.parametrize("name", available())
def test_every_anonymizer_refuses_a_release(name, release):
    with pytest.raises(AnonlabError, match="got Release; a Release is already anonymized"):
        ALGORITHMS[name](release)
    with pytest.raises(AnonlabError, match="its input table is release.table"):
        anonymize(release, name)


def test_a_wrong_type_is_checked_before_the_other_arguments():
    # mondrian(df) used to fail with "'DataFrame' object has no attribute 'n_rows'"; anatomy
    # (positional l) and injector fail on the type, not on the missing argument
    for fn in (ALGORITHMS["mondrian"], ALGORITHMS["anatomy"], ALGORITHMS["injector"]):
        with pytest.raises(AnonlabError, match="got dict"):
            fn({})
    with pytest.raises(AnonlabError, match="got list"):
        mondrian(table=[1, 2], k=2)  # by keyword too


def _assert_release_error(exc: AnonlabError, where: str, received: str) -> None:
    text = str(exc)
    assert text.startswith(f"{where}: parameter 'release' must be an anonlab Release"), text
    assert received in text
    if received == "got a pandas DataFrame":
        assert "Table.from_frame(df, quasi_identifiers=[...], sensitive=...)" in text
    if received == "got Table":
        assert "anonymize the Table first" in text
    if received.startswith("got str"):
        assert "load_release(path)" in text


def _release_bad_inputs(table: Table) -> list[tuple[object, str]]:
    return [
        (pd.DataFrame({"a": [1]}), "got a pandas DataFrame"),
        ({}, "got dict"),
        (None, "got None"),
        ("release-dir", "got str 'release-dir'"),
        (table, "got Table"),
    ]


@pytest.mark.parametrize("name", models.available())
def test_every_model_refuses_a_wrong_release(name, table):
    for bad, received in _release_bad_inputs(table):
        for call in (models.check, models.MODELS[name]):
            with pytest.raises(AnonlabError) as exc:
                call(bad) if call is models.MODELS[name] else call(bad, name)
            _assert_release_error(exc.value, "models.check", received)


@pytest.mark.parametrize("name", utility.available())
def test_every_measure_refuses_a_wrong_release(name, table):
    for bad, received in _release_bad_inputs(table):
        with pytest.raises(AnonlabError) as exc:
            utility.measure(bad, name)
        _assert_release_error(exc.value, f"measure({name!r})", received)
        with pytest.raises(AnonlabError) as exc:
            utility.MEASURES[name](bad)
        _assert_release_error(exc.value, f"measure({name!r})", received)


def _public_attacks() -> dict[str, tuple[object, str]]:
    """Every function of anonlab.attacks whose first parameter is a release or a table."""
    out = {}
    for name in anonlab.attacks.__all__:
        fn = getattr(anonlab.attacks, name)
        if not inspect.isfunction(fn):
            continue
        first = next(iter(inspect.signature(fn).parameters), None)
        if first in ("release", "table"):
            out[name] = (fn, first)
    return out


def test_the_attack_walk_is_not_empty():
    attacks = _public_attacks()
    assert {"definetti_attack", "foreground_attack", "negative_rule_attack"} <= set(attacks)
    assert {"maximum_disclosure", "hilb_algorithm7", "phd25_attack", "asap_check"} <= set(attacks)
    assert len(attacks) >= 20


@pytest.mark.parametrize("name", sorted(_public_attacks()))
def test_every_attack_refuses_a_wrong_first_argument(name, table, release):
    fn, first = _public_attacks()[name]
    where = fn.__name__
    if first == "table":
        wrong = [
            (pd.DataFrame({"a": [1]}), "got a pandas DataFrame"),
            ({}, "got dict"),
            (None, "got None"),
            (release, "got Release"),
        ]
        for bad, received in wrong:
            with pytest.raises(AnonlabError, match=f"^{where}: parameter 'table'") as exc:
                fn(bad)
            assert received in str(exc.value)
        return
    for bad, received in _release_bad_inputs(table):
        with pytest.raises(AnonlabError) as exc:
            fn(bad)
        _assert_release_error(exc.value, where, received)


def test_audit_refuses_a_wrong_release(table):
    for bad, received in _release_bad_inputs(table):
        with pytest.raises(AnonlabError) as exc:
            audit(bad, stages=["utility"])
        _assert_release_error(exc.value, "audit", received)


def test_a_release_passes_the_checks(release):
    # the checks let the right type through: one model, one measure, one attack
    assert models.check(release, "k-anonymity", k=5).holds
    assert (
        utility.MEASURES["discernibility"](release).value
        == utility.measure(release, "discernibility").value
    )
    assert anonlab.attacks.random_worlds_posterior(release).shape[0] == release.table.n_rows


# ---------------------------------------------------------------------- pandas in
def test_a_dataframe_with_roles_gives_the_release_of_its_table(frame, table):
    direct = mondrian(frame, k=5, **ROLES)
    reference = mondrian(table, k=5)
    assert np.array_equal(direct.group, reference.group)
    assert direct.table.schema == reference.table.schema
    assert direct.manifest["column_roles"] == EXPECTED_ROLES
    assert list(direct.manifest["column_roles"]) == list(frame.columns)  # input order
    assert "column_roles" not in reference.manifest  # a Table: its schema says it all
    via_registry = anonymize(frame, "mondrian", k=5, **ROLES)
    assert np.array_equal(via_registry.group, reference.group)
    assert via_registry.manifest["column_roles"] == EXPECTED_ROLES
    assert via_registry.manifest["parameters"] == reference.manifest["parameters"]


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [
        ("anatomy", {"l": 3}),
        ("hilb", {"l": 2}),
        ("mask", {"k": 6, "m": 3, "sensitive_values": ["hiv", "cancer"]}),
        ("mondrian+", {"l": 2}),
        ("mondrian++", {"l": 2}),
        ("injector", {"l": 2}),
    ],
)
def test_other_anonymizers_take_a_dataframe(frame, table, algorithm, params):
    ours = anonymize(frame, algorithm, **params, **ROLES)
    reference = anonymize(table, algorithm, **params)
    assert np.array_equal(ours.group, reference.group)
    assert ours.manifest["column_roles"] == EXPECTED_ROLES
    assert ours.manifest["algorithm"] == reference.manifest["algorithm"]


def test_column_roles_survive_save_and_load(frame, tmp_path):
    r = mondrian(frame, k=5, **ROLES)
    back = load_release(save_release(r, tmp_path / "rel"))
    assert back.manifest["column_roles"] == EXPECTED_ROLES


def test_a_dataframe_needs_quasi_identifiers_and_sensitive(frame):
    with pytest.raises(AnonlabError, match="sensitive= must be given") as exc:
        mondrian(frame, k=5, quasi_identifiers=QI)
    assert "quasi_identifiers=" not in str(exc.value).split("must be given")[0]
    assert "Table.from_frame(df, quasi_identifiers=[...], sensitive=...)" in str(exc.value)
    with pytest.raises(AnonlabError, match="quasi_identifiers= must be given"):
        anonymize(frame, "mondrian", k=5, sensitive="diagnosis")


def test_every_column_of_a_dataframe_needs_a_role(frame):
    with pytest.raises(AnonlabError) as exc:
        mondrian(frame, k=5, quasi_identifiers=QI, sensitive="diagnosis")
    text = str(exc.value)
    assert "2 have none: ['patient_id', 'length_of_stay']" in text
    assert "insensitive=[...]" in text and "identifiers=[...]" in text


def test_unassigned_columns_are_dropped_only_when_asked(frame):
    if "unassigned" not in frame_keywords():
        pytest.skip("Table.from_frame has no unassigned= keyword")
    r = mondrian(frame, k=5, quasi_identifiers=QI, sensitive="diagnosis", unassigned="drop")
    assert r.manifest["column_roles"]["patient_id"] == "dropped"
    assert r.manifest["column_roles"]["zip"] == "quasi-identifier"
    assert "patient_id" not in r.table.schema.names
    with pytest.raises(AnonlabError, match='unassigned="drop"'):
        mondrian(frame, k=5, quasi_identifiers=QI, sensitive="diagnosis")


def test_frame_keywords_with_a_table_are_refused(table):
    with pytest.raises(AnonlabError, match="quasi_identifiers=, sensitive= apply only when"):
        mondrian(table, k=5, quasi_identifiers=QI, sensitive="diagnosis")
    with pytest.raises(AnonlabError, match="table.with_roles"):
        anonymize(table, "mondrian", k=5, insensitive=["length_of_stay"])


def test_bad_roles_and_parameters_still_name_what_is_wrong(frame):
    with pytest.raises(AnonlabError, match="nope"):  # from_frame names the missing column
        anonymize(frame, "mondrian", k=5, **dict(ROLES, quasi_identifiers=["nope", *QI]))
    with pytest.raises(AnonlabError, match=r"does not take parameter\(s\) \['m'\]"):
        anonymize(frame, "mondrian", k=5, m=2, **ROLES)


def test_the_registry_lists_only_the_algorithms_parameters():
    for name in available():
        assert "quasi_identifiers" not in parameters(name)
        assert "sensitive" not in parameters(name)
    assert parameters("mondrian") == [
        "k", "l", "t", "distance", "sensitive_values", "scheme", "seed"
    ]  # fmt: skip


# ---------------------------------------------------------------------- pandas out
@pytest.fixture(scope="module", params=["generalization", "bucketization"])
def masked(request, frame) -> Release:
    r = mask(frame, k=6, m=3, sensitive_values=["hiv", "cancer"], scheme=request.param, **ROLES)
    assert r.manifest["perturbed_records"] > 0  # MASK changed some sensitive values
    return r


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype(str).astype(object).reset_index(drop=True)


def _read_text(path) -> pd.DataFrame:
    """A published CSV cell for cell as text (no type inference: ``01656`` stays ``01656``),
    with the formula guard removed as anonlab's readers remove it."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return unguard_frame(frame).astype(object)


def test_published_frames_are_the_published_files(masked, tmp_path):
    frames = masked.published_frames()
    out = save_release(masked, tmp_path / "rel")  # the key drawn above orders the files too
    files = sorted(p.name for p in (out / "published").iterdir())
    assert files == sorted(f"{key}.csv" for key in frames)
    assert set(frames) == ({"generalized"} if masked.scheme == "generalization" else {"qit", "st"})
    for key, ours in frames.items():
        written = _read_text(out / "published" / f"{key}.csv")
        assert list(ours.columns) == list(written.columns)
        pd.testing.assert_frame_equal(_as_text(ours), written)
    # the formula guard is the CSV's business: the file has it, the frame does not
    name = "generalized" if masked.scheme == "generalization" else "st"
    assert "=1+1" in set(frames[name]["diagnosis"])
    assert "'=1+1" in (out / "published" / f"{name}.csv").read_text()


def test_published_frames_read_back_with_read_frame(frame, tmp_path):
    # the QIT publishes exact zip codes; read_frame must read them back as the same text
    r = mask(frame, k=6, m=3, sensitive_values=["hiv"], scheme="bucketization", **ROLES)
    ours = r.published_frames()["qit"]
    out = save_release(r, tmp_path / "rel")
    typed = read_frame(out / "published" / "qit.csv")
    assert typed["zip"].astype(str).tolist() == ours["zip"].astype(str).tolist()


def test_published_frames_hide_row_ids_and_perturbed_originals(masked):
    frames = masked.published_frames()
    table = masked.table
    for f in frames.values():
        assert not {ROW_ID_COLUMN, GROUP_ID_COLUMN, PUBLISHED_SENSITIVE_COLUMN} & set(f.columns)
        assert "patient_id" not in f.columns
    published = table.values["diagnosis"][masked.published_sensitive]
    original = table.column("diagnosis")
    perturbed = published != original
    assert perturbed.any()
    # the row of each record, found through its (unique) input row id
    if masked.scheme == "generalization":
        g = frames["generalized"]
        assert len(g) == table.n_rows
        # rows are not in input order: the export key shuffles them
        assert g["length_of_stay"].tolist() != table.column("length_of_stay").tolist()
        assert sorted(g["diagnosis"]) == sorted(published)
        assert sorted(g["diagnosis"]) != sorted(original)
        # the group ids are the published ones, not the algorithm's
        assert sorted(g["group"].unique()) == list(range(masked.n_groups))
    else:
        st = frames["st"]
        counts = st.groupby("diagnosis")["count"].sum().to_dict()
        assert counts == pd.Series(published).value_counts().to_dict()
        assert counts != pd.Series(original).value_counts().to_dict()
        assert "diagnosis" not in frames["qit"].columns


def test_published_frames_are_stable_and_follow_a_given_key(release, tmp_path):
    first = release.published_frames()
    again = release.published_frames()  # the same key: the same frames
    pd.testing.assert_frame_equal(first["generalized"], again["generalized"])
    key = bytes(range(32))
    out = save_release(release, tmp_path / "rel", export_key=key)
    written = read_frame(out / "published" / "generalized.csv")
    pd.testing.assert_frame_equal(
        _as_text(release.published_frames()["generalized"]), _as_text(written)
    )


def test_publisher_frame_is_the_publishers_records_file(masked, tmp_path):
    ours = masked.publisher_frame()
    out = save_release(masked, tmp_path / "rel")
    records = pd.read_parquet(out / "publisher" / "records.parquet")
    pd.testing.assert_frame_equal(ours, records, check_dtype=False)
    assert ours[ROW_ID_COLUMN].tolist() == list(range(masked.table.n_rows))
    original = masked.table.column("diagnosis")
    assert ours["diagnosis"].tolist() == original.tolist()  # the truth, not the published
    assert (ours[PUBLISHED_SENSITIVE_COLUMN] != ours["diagnosis"]).sum() == masked.manifest[
        "perturbed_records"
    ]


def test_publisher_frame_without_perturbation_has_no_published_column(release):
    f = release.publisher_frame()
    assert list(f.columns) == [ROW_ID_COLUMN, GROUP_ID_COLUMN, *release.table.schema.names]
    assert np.array_equal(f[GROUP_ID_COLUMN].to_numpy(), release.group)


def test_a_search_candidate_has_no_frames(table):
    candidate = Release._from_statistics(table, 2, np.array([60, 60]), lambda: None)
    with pytest.raises(AnonlabError, match=r"published_frames: .*\(no group per record\)"):
        candidate.published_frames()
    with pytest.raises(AnonlabError, match="publisher_frame: "):
        candidate.publisher_frame()


# ---------------------------------------------------------------------- pandas dtypes in
N = 12


def _with_sensitive(column: pd.api.extensions.ExtensionArray | pd.Index | list) -> pd.DataFrame:
    return pd.DataFrame({"c": column, "s": list("abc") * (N // 3)})


DTYPES = {
    "datetime64": pd.to_datetime([f"2020-01-{d:02d}" for d in range(1, N + 1)]),
    "datetime64-tz": pd.to_datetime([f"2020-01-{d:02d}" for d in range(1, N + 1)]).tz_localize(
        "UTC"
    ),
    "Int64": pd.array(range(N), dtype="Int64"),
    "string": pd.array(["01656", "02139", "10001"] * (N // 3), dtype="string"),
    "category": pd.Categorical(["lo", "mid", "hi"] * (N // 3)),
    "ordered-category": pd.Categorical(
        ["lo", "mid", "hi"] * (N // 3), categories=["lo", "mid", "hi"], ordered=True
    ),
    "pyarrow-int64": pd.array(range(N), dtype=pd.ArrowDtype(pa.int64())),
    "pyarrow-string": pd.array(["01656", "02139", "10001"] * (N // 3), dtype="string[pyarrow]"),
    "pyarrow-float64": pd.array(np.arange(N) / 2, dtype=pd.ArrowDtype(pa.float64())),
    "pyarrow-timestamp": pd.array(
        pd.to_datetime([f"2020-01-{d:02d}" for d in range(1, N + 1)]),
        dtype=pd.ArrowDtype(pa.timestamp("ns")),
    ),
    "pyarrow-date32": pd.array(
        pd.to_datetime([f"2020-01-{d:02d}" for d in range(1, N + 1)]).date,
        dtype=pd.ArrowDtype(pa.date32()),
    ),
}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_from_frame_reads_every_dtype_without_crashing(dtype):
    table = Table.from_frame(_with_sensitive(DTYPES[dtype]), quasi_identifiers=["c"], sensitive="s")
    assert table.n_rows == N
    assert len(table.values["c"]) == len(pd.unique(np.asarray(DTYPES[dtype], dtype=object)))
    mondrian(table, k=3)  # and can be anonymized


@pytest.mark.parametrize("dtype", ["Int64", "pyarrow-int64"])
def test_nullable_integers_stay_exact_integers(dtype):
    big = 2**53 + 1  # not a float64
    values = [big, big + 2, None, *range(N - 3)]
    column = pd.array(values, dtype="Int64" if dtype == "Int64" else pd.ArrowDtype(pa.int64()))
    frame = _with_sensitive(column)
    with pytest.raises(AnonlabError, match=r"column 'c': 1 missing \(rows 3\)"):
        Table.from_frame(frame, quasi_identifiers=["c"], sensitive="s")
    table = Table.from_frame(frame, quasi_identifiers=["c"], sensitive="s", drop_missing=True)
    assert table.schema["c"].kind is Kind.NUMERIC
    assert table.dropped["rows_with_missing"] == 1
    assert table.column("c").tolist() == [v for v in values if v is not None]
    assert str(table.column("c")[0]) == str(big)  # not 9.007199254740992e+15


@pytest.mark.parametrize("dtype", ["string", "pyarrow-string"])
def test_text_keeps_leading_zeros_and_its_missing_values(dtype):
    values = ["01656", None, *(["02139", "00501"] * ((N - 2) // 2))]
    frame = _with_sensitive(
        pd.array(values, dtype=dtype.replace("pyarrow-string", "string[pyarrow]"))
    )
    with pytest.raises(AnonlabError, match="column 'c': 1 missing"):
        Table.from_frame(frame, quasi_identifiers=["c"], sensitive="s")
    table = Table.from_frame(frame, quasi_identifiers=["c"], sensitive="s", drop_missing=True)
    assert table.schema["c"].kind is Kind.CATEGORICAL
    assert sorted(table.values["c"].tolist()) == ["00501", "01656", "02139"]


def test_an_unordered_category_is_categorical():
    table = Table.from_frame(
        _with_sensitive(DTYPES["category"]), quasi_identifiers=["c"], sensitive="s"
    )
    assert table.schema["c"].kind is Kind.CATEGORICAL
    assert table.column("c").tolist() == list(DTYPES["category"])


@pytest.mark.parametrize(
    "dtype", ["datetime64", "datetime64-tz", "pyarrow-timestamp", "pyarrow-date32"]
)
def test_dates_are_dates_not_categories(dtype):
    # a pandas date column is a date (all at midnight), in time order, and as a
    # quasi-identifier gets the automatic date hierarchy: Mondrian publishes months, never the
    # set of its members' exact dates ({2020-01-01,2020-01-02,...}, the behaviour before)
    table = Table.from_frame(_with_sensitive(DTYPES[dtype]), quasi_identifiers=["c"], sensitive="s")
    assert table.types["c"]["type"] == "date"
    assert table.values["c"].tolist() == [f"2020-01-{d:02d}" for d in range(1, N + 1)]
    assert table.schema["c"].hierarchy.height == 4  # month, year, 5-year, *
    labels = mondrian(table, k=3).generalization["c"].labels
    assert set(labels.tolist()) == {"2020-01"}


def test_a_time_zone_keeps_local_times_and_says_it_dropped_the_zone():
    stamps = pd.to_datetime(["2020-01-01 23:30", "2020-01-02 08:00", "2020-01-02 23:30"])
    frame = pd.DataFrame({"c": stamps.tz_localize("America/New_York"), "s": list("abc")})
    table = Table.from_frame(frame, quasi_identifiers=["c"], sensitive="s")
    assert table.types["c"]["type"] == "datetime"
    assert "zone dropped" in table.types["c"]["note"]
    # the wall-clock times where they were recorded, not UTC (which would move two of them to
    # the next day)
    assert table.values["c"].tolist() == [
        "2020-01-01T23:30:00",
        "2020-01-02T08:00:00",
        "2020-01-02T23:30:00",
    ]


def test_an_ordered_category_keeps_its_order():
    # (at HEAD 842a69d the domain was sorted by label: hi, lo, mid)
    table = Table.from_frame(
        _with_sensitive(DTYPES["ordered-category"]), quasi_identifiers=["c"], sensitive="s"
    )
    assert table.values["c"].tolist() == ["lo", "mid", "hi"]


def test_text_columns_are_read_on_their_distinct_cells_as_cell_by_cell():
    # object cells of mixed Python types, blanks, None and markers, and a label ("z") that
    # only a dropped row holds: the same table as stripping and testing every cell
    frame = pd.DataFrame(
        {
            "c": [" a", "a", 5, "5", None, "?", "b", "z"],
            "n": [1, 2, 3, 4, 5, 6, 7, None],
            "s": pd.array(["x", "y ", "x", " y", "x", "y", "x", "y"], dtype="string"),
        }
    )
    table = Table.from_frame(frame, quasi_identifiers=["c", "n"], sensitive="s", drop_missing=True)
    assert table.row_id.tolist() == [0, 1, 2, 3, 6]
    assert table.values["c"].tolist() == ["5", "a", "b"]
    assert table.codes["c"].tolist() == [1, 1, 0, 0, 2]
    assert table.values["s"].tolist() == ["x", "y"]
    assert table.codes["s"].tolist() == [0, 1, 0, 1, 0]
    assert table.dropped["rows_with_missing_by_column"] == {"c": 2, "n": 1}
    with pytest.raises(AnonlabError, match=r"column 'c': 2 missing \(rows 5, 6\)"):
        Table.from_frame(frame, quasi_identifiers=["c", "n"], sensitive="s")
