"""The schema file and ``anonlab init`` (issue 17, item 1): a draft inferred from a hospital CSV
(zip codes stay text with a prefix builder, ISO dates get the date builder, unique ids and names
are identifiers), edited as a publisher would, then applied by ``anonymize --schema``; malformed
schema files are refused naming the field."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab.errors import AnonlabError
from anonlab.schema_file import read_schema_file, validate_schema_file

N = 240


def hospital_csv(path: Path, seed: int = 3) -> pd.DataFrame:
    """A synthetic discharge table written as CSV. Each zip code and each birth date occurs
    exactly twice, so that a group of at least 3 records never shares one exact value: any
    full zip or exact birth date in a 3-anonymous release would be a leak, not a coincidence."""
    rng = np.random.default_rng(seed)
    zips = [f"0{1 + i % 2}{(i // 2) % 10}{i // 20:02d}" for i in range(N // 2)]  # 01000 ...
    zip_column = np.array(zips * 2)
    rng.shuffle(zip_column)
    days = rng.choice(np.arange(20_000), N // 2, replace=False)
    births = pd.to_datetime("1940-01-01") + pd.to_timedelta(np.repeat(days, 2), unit="D")
    admissions = pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 700, N), "D")
    frame = pd.DataFrame(
        {
            "patient_id": [f"P{i:05d}" for i in range(N)],
            "name": [f"Person {i}" for i in range(N)],
            "zip": zip_column,
            "birth_date": rng.permutation(births.strftime("%Y-%m-%d").to_numpy()),
            "sex": rng.choice(["F", "M"], N),
            "admission_date": admissions.strftime("%Y-%m-%d"),
            "icd10": rng.choice(["E11.9", "I10", "J45.909", "C50.911", "N39.0"], N),
            "length_of_stay": rng.integers(1, 30, N),
            "insurer": rng.choice(["Aetna", "Blue", "Cigna"], N),
        }
    )
    frame.to_csv(path, index=False)
    return pd.read_csv(path, dtype=str)  # the cells as written


def _columns(schema: dict) -> dict[str, dict]:
    return {c["name"]: c for c in schema["columns"]}


@pytest.fixture
def hospital(tmp_path):
    data = tmp_path / "discharges.csv"
    frame = hospital_csv(data)
    return data, frame


@pytest.fixture
def draft(cli, hospital, tmp_path):
    data, _ = hospital
    schema = tmp_path / "schema.json"
    code, out, err = cli(["init", str(data), "--out", str(schema)])
    assert code == 0, err
    return schema, out


def test_init_drafts_types_roles_and_builders(draft):
    schema, out = draft
    obj = json.loads(schema.read_text())
    cols = _columns(obj)
    assert list(cols) == [
        "patient_id",
        "name",
        "zip",
        "birth_date",
        "sex",
        "admission_date",
        "icd10",
        "length_of_stay",
        "insurer",
    ]
    # zip codes: text (leading zeros), masked by prefix levels; never a number
    assert cols["zip"]["type"] == "text"
    assert cols["zip"]["hierarchy"] == {"builder": "prefix"}
    for date_column in ("birth_date", "admission_date"):  # dates are dates
        assert cols[date_column]["type"] == "date"
        assert cols[date_column]["hierarchy"]["builder"] == "date"
    assert cols["patient_id"]["role"] == "identifier"
    assert cols["name"]["role"] == "identifier"
    # other text: a value or *, never null (which would publish each group's values as a set)
    assert cols["sex"]["role"] == "quasi-identifier"
    assert cols["sex"]["hierarchy"] == {"builder": "suppress"}
    assert "builders that fit: prefix, order, mapping, suppress" in cols["sex"]["note"]
    assert cols["length_of_stay"]["type"] == "integer"
    assert cols["length_of_stay"]["hierarchy"] == {"builder": "interval", "width": 5}
    assert "GUESSES to review" in obj["note"]
    assert all(c["note"].startswith("guessed: ") for c in obj["columns"])
    # the output shows every decision and says the roles are guesses
    flat = " ".join(out.split())
    for word in ("zip", "prefix", "identifier", "date"):
        assert word in flat
    assert "zip: text (inferred: leading zeros kept, e.g. '0" in out
    assert "roles are guesses to review" in flat
    assert validate_schema_file(obj, "x").names("identifier") == ["patient_id", "name"]


def test_init_never_reads_a_zip_like_column_as_a_number(cli, tmp_path):
    data = tmp_path / "codes.csv"
    data.write_text("zip,code,age\n02139,007,30\n10001,123,40\n60614,999,50\n")
    schema = tmp_path / "s.json"
    code, _, err = cli(["init", str(data), "--out", str(schema)])
    assert code == 0, err
    cols = _columns(json.loads(schema.read_text()))
    assert cols["zip"]["type"] == "text" and cols["code"]["type"] == "text"
    assert cols["age"]["type"] == "integer"


def test_init_does_not_overwrite_without_force(cli, hospital, tmp_path):
    data, _ = hospital
    schema = tmp_path / "schema.json"
    schema.write_text("keep me")
    code, out, err = cli(["init", str(data), "--out", str(schema)])
    assert code == 2
    assert "already exists" in err and "--force" in err and "Traceback" not in err
    assert schema.read_text() == "keep me"
    code, _, err = cli(["init", str(data), "--out", str(schema), "--force"])
    assert code == 0, err
    assert json.loads(schema.read_text())["format"] == "anonlab-schema"


def _edit(schema: Path, **changes: dict) -> Path:
    obj = json.loads(schema.read_text())
    for entry in obj["columns"]:
        entry.update(changes.get(entry["name"], {}))
    schema.write_text(json.dumps(obj, indent=2))
    return schema


def _reviewed(schema: Path) -> Path:
    return _edit(
        schema,
        icd10={"role": "sensitive", "hierarchy": None},
        length_of_stay={"role": "insensitive", "hierarchy": None},
        insurer={"role": "insensitive", "hierarchy": None},
    )


def test_anonymize_with_the_reviewed_schema(cli, hospital, draft, tmp_path):
    data, frame = hospital
    schema = _reviewed(draft[0])
    release = tmp_path / "release"
    code, out, err = cli(
        [
            "anonymize",
            "--data",
            str(data),
            "--schema",
            str(schema),
            "--algorithm",
            "mondrian",
            "--k",
            "3",
            "--out",
            str(release),
        ]
    )
    assert code == 0, err
    assert "identifiers dropped" in out and "patient_id, name" in out
    # every type decision is in the command's output, one line per kept column
    flat = " ".join(out.split())
    for line in (
        "zip: text (declared)",
        "birth_date: date (declared)",
        "admission_date: date (declared)",
        "length_of_stay: integer (declared)",
    ):
        assert line in flat, line
    kept = [c for c in frame.columns if c not in ("patient_id", "name")]
    assert all(f"{c}: " in flat for c in kept)
    with open(release / "published" / "generalized.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    published = pd.DataFrame(rows)
    assert len(published) == N
    assert "patient_id" not in published.columns and "name" not in published.columns
    # kept as they are: the insensitive columns, the sensitive one
    for column in ("length_of_stay", "insurer", "icd10"):
        assert column in published.columns
        assert sorted(published[column]) == sorted(frame[column])
    # no full zip: each is masked by prefix levels, leading zero kept
    full_zips = set(frame["zip"])
    assert not full_zips & set(published["zip"])
    assert all(z.startswith("0") and len(z) == 5 and z.endswith("*") for z in published["zip"])
    # no exact birth or admission date
    assert not set(frame["birth_date"]) & set(published["birth_date"])
    assert all(len(b) < 10 for b in published["birth_date"])  # month, year or band or *
    text = (release / "published" / "generalized.csv").read_text()
    for zip_code in full_zips:
        assert zip_code not in text
    # the manifest records the schema's builders, not the data
    manifest = json.loads((release / "manifest.json").read_text())
    recorded = _columns(manifest["schema_file"])
    assert recorded["zip"]["hierarchy"] == {"builder": "prefix"}
    assert recorded["icd10"]["role"] == "sensitive"
    assert "01000" not in json.dumps(manifest["schema_file"])


def test_a_date_builder_from_the_schema_is_not_reported_as_the_automatic_one(
    cli, hospital, draft, tmp_path
):
    # the schema's date levels replace the automatic ones a date quasi-identifier gets when it
    # has none: the output and the manifest's column types must not name the automatic levels
    data, _ = hospital
    schema = _edit(
        _reviewed(draft[0]),
        birth_date={"hierarchy": {"builder": "date", "levels": ["year"]}},
        admission_date={"hierarchy": None},
    )
    release = tmp_path / "release"
    argv = ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "mondrian"]
    code, out, err = cli([*argv, "--k", "3", "--out", str(release)])
    assert code == 0, err
    manifest = json.loads((release / "manifest.json").read_text())
    assert "hierarchy" not in manifest["column_types"]["birth_date"]
    assert "automatic" not in " ".join(out.split()).split("birth_date:")[1].split(";")[0]
    # admission_date has none in the schema, so it gets the automatic one, and says so
    assert manifest["column_types"]["admission_date"]["hierarchy"].startswith("automatic: ")
    published = pd.read_csv(release / "published" / "generalized.csv", dtype=str)
    assert all(len(b) == 4 or b == "*" for b in published["birth_date"])  # years, or *


def test_schema_hierarchy_file_and_mapping_resolve_against_the_schema_folder(
    cli, hospital, draft, tmp_path
):
    data, frame = hospital
    folder = tmp_path / "schemas"
    folder.mkdir()
    codes = sorted(set(frame["insurer"]))
    (folder / "insurer.csv").write_text("".join(f"{c};private;*\n" for c in codes))
    (folder / "icd.csv").write_text("code,chapter\nE11.9,E\nI10,I\nJ45.909,J\nC50.911,C\nN39.0,N\n")
    schema = folder / "schema.json"
    schema.write_text(draft[0].read_text())
    _edit(
        _reviewed(schema),
        insurer={"role": "quasi-identifier", "hierarchy": "insurer.csv"},
        icd10={"hierarchy": {"builder": "mapping", "file": "icd.csv"}},
    )
    code, out, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "mondrian"]
        + ["--k", "3", "--out", str(tmp_path / "r")]
    )
    assert code == 0, err
    published = pd.read_csv(tmp_path / "r" / "published" / "generalized.csv", dtype=str)
    assert set(published["insurer"]) <= {*codes, "private", "*"}


def _run_with(cli, data: Path, schema: Path, tmp_path: Path, *extra: str):
    out_dir = tmp_path / "never"
    code, out, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "mondrian"]
        + ["--k", "3", "--out", str(out_dir), *extra]
    )
    assert not out_dir.exists()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize(
    "change, field, words",
    [
        ({"zip": {"role": "secret"}}, "columns[2].role", ["'secret'", "quasi-identifier"]),
        (
            {"zip": {"hierarchy": {"builder": "zigzag"}}},
            "columns[2].hierarchy.builder",
            ["'zigzag'", "prefix"],
        ),
        (
            {"zip": {"hierarchy": {"builder": "prefix", "keep_it": 3}}},
            "columns[2].hierarchy.keep_it",
            ["unknown parameter", "mask_char"],
        ),
        (
            {"zip": {"hierarchy": {"builder": "prefix", "keep": [9, 1]}}},
            "columns[2].hierarchy",
            ["'zip'", "keep"],
        ),
        (
            {
                "length_of_stay": {
                    "role": "quasi-identifier",
                    "hierarchy": {"builder": "interval", "width": -5},
                }
            },
            "columns[7].hierarchy",
            ["'width'", "positive"],
        ),
        ({"zip": {"type": "zipcode"}}, "columns[2].type", ["'zipcode'", "text"]),
        ({"zip": {"hierachy": None}}, "columns[2].hierachy", ["unknown field"]),
        (
            {"length_of_stay": {"hierarchy": {"builder": "interval"}}},
            "columns[7].hierarchy",
            ["only a quasi-identifier"],
        ),
    ],
)
def test_malformed_schema_is_refused_naming_the_field(
    cli, hospital, draft, tmp_path, change, field, words
):
    data, _ = hospital
    schema = _edit(_reviewed(draft[0]), **change)
    code, out, err = _run_with(cli, data, schema, tmp_path)
    assert code == 2, err
    assert err.startswith("error: ") and str(schema) in err
    assert f": {field}" in err, err
    for word in words:
        assert word in err, err
    assert out == ""


def test_bad_json_is_refused_with_its_line(cli, hospital, tmp_path):
    data, _ = hospital
    schema = tmp_path / "bad.json"
    schema.write_text('{"format": "anonlab-schema",\n "columns": [,]}')
    code, _, err = _run_with(cli, data, schema, tmp_path)
    assert code == 2
    assert "not valid JSON (line 2" in err and str(schema) in err


def test_missing_and_extra_columns_are_listed(cli, hospital, draft, tmp_path):
    data, _ = hospital
    obj = json.loads(_reviewed(draft[0]).read_text())
    obj["columns"] = [c for c in obj["columns"] if c["name"] != "insurer"]
    obj["columns"].append({"name": "ward", "role": "drop"})
    schema = tmp_path / "edited.json"
    schema.write_text(json.dumps(obj))
    code, _, err = _run_with(cli, data, schema, tmp_path)
    assert code == 2
    assert "missing from the schema: 'insurer'" in err
    assert "not in the data: 'ward'" in err


def test_schema_with_role_options_is_a_conflict(cli, hospital, draft, tmp_path):
    data, _ = hospital
    schema = _reviewed(draft[0])
    for extra in (["--qi", "zip"], ["--sensitive", "icd10"], ["--types", "zip=text"]):
        code, _, err = _run_with(cli, data, schema, tmp_path, *extra)
        assert code == 2
        assert f"do not also give {extra[0]}" in err


def test_drop_role_and_missing_markers(cli, hospital, draft, tmp_path):
    data, frame = hospital
    edited = frame.copy()
    edited.loc[[0, 5], "icd10"] = "unknown"
    edited.to_csv(data, index=False)
    # declared missing: the two rows are refused, named, or dropped with --drop-missing
    schema = _edit(_reviewed(draft[0]), insurer={"role": "drop"}, icd10={"missing": ["unknown"]})
    code, _, err = _run_with(cli, data, schema, tmp_path)
    assert code == 2 and "missing values" in err and "'icd10': 2 missing" in err
    release = tmp_path / "r2"
    code, out, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "mondrian"]
        + ["--k", "3", "--out", str(release), "--drop-missing"]
    )
    assert code == 0, err
    published = pd.read_csv(release / "published" / "generalized.csv", dtype=str)
    assert len(published) == N - 2 and "unknown" not in set(published["icd10"])
    assert "insurer" not in published.columns
    assert "role 'drop' in" in out


def test_read_schema_file_api(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "format": "anonlab-schema",
                "format_version": 1,
                "columns": [
                    {"name": "a", "role": "quasi-identifier", "hierarchy": "h/a.csv"},
                    {"name": "b", "role": "sensitive"},
                ],
                "sensitive_values": ["x"],
            }
        )
    )
    spec = read_schema_file(path)
    assert spec.sensitive == ["b"] and spec.sensitive_values == ("x",)
    assert spec.resolve("h/a.csv") == tmp_path / "h" / "a.csv"
    with pytest.raises(AnonlabError, match=r"format_version: 2 must be 1"):
        validate_schema_file({"format": "anonlab-schema", "format_version": 2, "columns": []}, "s")
    with pytest.raises(AnonlabError, match=r"s: format: 'x' is not \"anonlab-schema\""):
        validate_schema_file({"format": "x"}, "s")
    with pytest.raises(AnonlabError, match=r"listed twice"):
        validate_schema_file(
            {
                "format": "anonlab-schema",
                "format_version": 1,
                "columns": [{"name": "a", "role": "drop"}, {"name": "a", "role": "drop"}],
            },
            "s",
        )


def test_sensitive_values_from_the_schema_and_an_interval_builder(cli, hospital, draft, tmp_path):
    data, _ = hospital
    schema = _edit(
        _reviewed(draft[0]),
        length_of_stay={
            "role": "quasi-identifier",
            "hierarchy": {"builder": "interval", "width": 5},
        },
    )
    obj = json.loads(schema.read_text())
    obj["sensitive_values"] = ["C50.911"]
    schema.write_text(json.dumps(obj))
    release = tmp_path / "r"
    code, _, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "mondrian"]
        + ["--k", "3", "--out", str(release)]
    )
    assert code == 0, err
    manifest = json.loads((release / "manifest.json").read_text())
    assert manifest["parameters"]["sensitive_values"] == ["C50.911"]
    # both the option and the file: one source of truth
    code, _, err = _run_with(cli, data, schema, tmp_path, "--sensitive-values", "I10")
    assert code == 2 and "--sensitive-values is given" in err


def test_the_unreviewed_draft_has_no_sensitive_attribute(cli, hospital, draft, tmp_path):
    """The draft names no sensitive attribute: it runs as plain k-anonymity (issue 19), says so,
    and publishes no sensitive column."""
    data, _ = hospital
    out_dir = tmp_path / "plain"
    code, out, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(draft[0]), "--algorithm", "mondrian",
         "--k", "3", "--out", str(out_dir)]
    )  # fmt: skip
    assert code == 0, err
    assert "no sensitive attribute: plain k-anonymity" in " ".join(out.split())
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert "sensitive" not in {a["role"] for a in manifest["schema"]}
    code, out, err = _run_with(cli, data, draft[0], tmp_path, "--l", "2")
    assert code == 2 and "--sensitive" in err and out == ""


def test_schema_with_drop_missing_keeps_the_input_row_ids(cli, tmp_path):
    # the schema's hierarchies are given after reading (Table.with_roles): the records must keep
    # their row numbers in the input, not be renumbered after the dropped rows
    data = tmp_path / "d.csv"
    data.write_text("zip,s\n02139,x\n?,y\n02142,x\n02139,y\n02142,z\n02139,y\n")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"format": "anonlab-schema", "format_version": 1, "columns": [
        {"name": "zip", "role": "quasi-identifier", "hierarchy": {"builder": "prefix"}},
        {"name": "s", "role": "sensitive"}]}))  # fmt: skip
    out = tmp_path / "rel"
    code, _, err = cli(["anonymize", "--data", str(data), "--schema", str(schema), "--drop-missing",
                        "--algorithm", "anatomy", "--l", "2", "--out", str(out)])  # fmt: skip
    assert code == 0, err
    from anonlab.release_io import load_release

    assert sorted(load_release(out).table.row_id.tolist()) == [0, 2, 3, 4, 5]


def test_discharges_with_diagnosis_and_insurer_sensitive_under_k_and_l_together(
    cli, hospital, draft, tmp_path
):
    """Issue 19's done-when: the discharge table released with icd10 and insurer both
    sensitive, under k = 5 and ℓ = 3 together, through the CLI; the audit's verdict follows
    from the publisher's thresholds, and its risk figure is the published file's."""
    data, frame = hospital
    schema = _edit(_reviewed(draft[0]), insurer={"role": "sensitive", "hierarchy": None})
    release = tmp_path / "release"
    code, out, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "lattice"]
        + ["--model", "k-anonymity,distinct-l-diversity", "--k", "5", "--l", "3"]
        + ["--suppression", "0.05", "--out", str(release)]
    )
    assert code == 0, err
    published = pd.read_csv(release / "published" / "generalized.csv", dtype=str)
    qi = ["zip", "birth_date", "sex", "admission_date"]
    assert {"icd10", "insurer"} <= set(published.columns)
    classes = published.groupby(qi)
    assert classes.size().min() >= 5
    assert classes["icd10"].nunique().min() >= 3 and classes["insurer"].nunique().min() >= 3
    manifest = json.loads((release / "manifest.json").read_text())
    suppressed = manifest["suppressed_records"]
    assert len(published) + suppressed == len(frame) and suppressed <= 0.05 * len(frame)
    # every published (icd10, insurer) pair is an input record's: nothing invented or recoded
    pairs = frame.groupby(["icd10", "insurer"]).size()
    shown = published.groupby(["icd10", "insurer"]).size()
    assert (shown <= pairs.reindex(shown.index)).all()

    code, out, err = cli(
        ["audit", str(release), "--json", "--max-risk", "0.25", "--max-share-at-risk", "0.10"]
        + ["--targets", "40", "--chains", "2", "--sweeps", "30", "--stages"]
        + ["checks,definetti,negative-rules,risk"]
    )
    assert code == 0, err
    summary = json.loads((release / "audit.json").read_text())
    keys = [f["key"] for f in summary["findings"]]
    for stage in ("definetti", "negative-rules"):
        assert f"{stage}/icd10" in keys and f"{stage}/insurer" in keys
    decision = summary["decision"]
    for c in decision["criteria"]:  # each verdict is its number against the threshold
        if isinstance(c["threshold"], float):
            assert c["holds"] == (c["value"] <= c["threshold"] + 1e-12), c
    deciding = [c["holds"] for c in decision["criteria"] if c.get("decides", True)]
    assert decision["release"] == all(deciding)
    assert decision["summary"].startswith("Release" if decision["release"] else "Do not release")
    own = next(c for c in decision["criteria"] if c["criterion"] == "its own model")
    assert own["holds"] and "k-anonymity, distinct-l-diversity" in own["value"]
    risk = next(f for f in summary["findings"] if f["key"] == "risk")
    assert risk["measures"]["highest"] == pytest.approx(1 / classes.size().min())
    # the attack command, told which attribute, counts what the audit counts for it
    for attribute in ("icd10", "insurer"):
        argv = ["attack", "definetti", str(release), "--sensitive", attribute, "--targets", "40"]
        code, out, err = cli([*argv, "--chains", "2", "--iterations", "30", "--json"])
        assert code == 0, err
        finding = next(f for f in summary["findings"] if f["key"] == f"definetti/{attribute}")
        assert json.loads(out)["audit_at_risk"] == finding["at_risk"]
    code, out, err = cli(["attack", "definetti", str(release), "--targets", "40"])
    assert code == 2 and "'icd10', 'insurer'" in err and "--sensitive icd10" in err
    code, out, err = cli(["attack", "definetti", str(release), "--sensitive", "zip"])
    assert code == 2 and "'zip' is not a sensitive attribute" in err
    code, out, err = cli(["utility", str(release), "--queries", "200", "--json"])
    assert code == 2 and "--sensitive icd10" in err
    code, out, err = cli(["utility", str(release), "--queries", "200", "--sensitive", "insurer",
                          "--json"])  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["workload-error"]["n_queries"] == 200


def test_compare_with_two_sensitive_attributes(cli, hospital, draft, tmp_path):
    """compare with diagnosis and insurer sensitive: the algorithms that protect one attribute
    fail with the reason, the others' attacks are judged per attribute, and a row's strongest
    attack is the largest share over the attacks and attributes."""
    data, _ = hospital
    schema = _edit(_reviewed(draft[0]), insurer={"role": "sensitive", "hierarchy": None})
    out_dir = tmp_path / "cmp"
    code, out, err = cli(
        ["compare", "--data", str(data), "--schema", str(schema), "--algorithms"]
        + ["lattice,anatomy", "--l", "2", "--out", str(out_dir), "--targets", "30"]
        + ["--chains", "2", "--sweeps", "20", "--stages", "checks,negative-rules,risk,utility"]
    )
    assert code == 0, err
    rows = {r["name"]: r for r in json.loads((out_dir / "compare.json").read_text())["rows"]}
    assert rows["anatomy-l2"]["status"] != "ok"
    assert "protects one sensitive attribute" in rows["anatomy-l2"]["reason"]
    lattice = rows["lattice-l2"]
    assert set(lattice["attacks"]) == {"negative-rules/icd10", "negative-rules/insurer"}
    shares = {k: a["share"] for k, a in lattice["attacks"].items()}
    assert lattice["at_risk_share"] == max(shares.values())
    assert lattice["strongest_attack"] == max(shares, key=shares.get)


def test_several_sensitive_attributes_hostile_inputs(cli, hospital, draft, tmp_path):
    """An empty --sensitive list is refused, not read as 'no sensitive attribute'; a set or an
    iterator of names is refused (no order, or used up by the first read); the audit's --data
    check reads every sensitive attribute; t-closeness without t names the parameter."""
    from anonlab.table import Table

    data, frame = hospital
    code, out, err = cli(["anonymize", "--data", str(data), "--qi", "zip", "--value-sets", "zip",
                          "--sensitive", " , ", "--algorithm", "mondrian", "--k", "3",
                          "--out", str(tmp_path / "never")])  # fmt: skip
    assert code == 2 and "names no column" in err and not (tmp_path / "never").exists()
    for names in ({"icd10", "insurer"}, (n for n in ["icd10", "insurer"])):
        with pytest.raises(AnonlabError, match="a list of names"):
            Table.from_frame(frame, quasi_identifiers=["zip"], sensitive=names,
                             unassigned="drop")  # fmt: skip
    schema = _edit(_reviewed(draft[0]), insurer={"role": "sensitive", "hierarchy": None})
    release = tmp_path / "release"
    code, out, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "lattice"]
        + ["--model", "k-anonymity,t-closeness", "--k", "3", "--out", str(tmp_path / "t")]
    )
    assert code == 2 and "needs parameter 't'" in err
    code, out, err = cli(
        ["anonymize", "--data", str(data), "--schema", str(schema), "--algorithm", "mondrian"]
        + ["--k", "5", "--out", str(release)]
    )
    assert code == 0, err
    code, out, err = cli(["audit", str(release), "--data", str(data), "--stages", "checks"])
    assert code == 0, err
    bad = frame.copy()
    bad.loc[4, "insurer"] = "Unknown Mutual"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    code, out, err = cli(["audit", str(release), "--data", str(tmp_path / "bad.csv"), "--force",
                          "--stages", "checks"])  # fmt: skip
    assert code == 2 and "'insurer'" in err and "Unknown Mutual" in err
