"""Every column accounted for (issue 17, item 4): --insensitive columns are published as they
are, --identifiers never are, a column given no role is named in the command's output and at the
top of the audit report (or refused with --unassigned error), and a column may have one role."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab.errors import AnonlabError
from anonlab.table import Table

ZIPS = ["01656", "02139", "00501", "10001", "60614"]


def hospital_frame(n: int = 48, seed: int = 7) -> pd.DataFrame:
    """A small discharge table: zip codes with leading zeros, birth dates, sex, ICD-10 codes,
    lengths of stay, insurer and a patient id (all as text, as a CSV holds them)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "patient_id": [f"P{i:05d}" for i in range(n)],
            "zip": rng.choice(ZIPS, n),
            "birth_date": [
                f"19{y}-{m:02d}-{d:02d}"
                for y, m, d in zip(
                    rng.integers(40, 99, n),
                    rng.integers(1, 13, n),
                    rng.integers(1, 29, n),
                    strict=True,
                )
            ],  # fmt: skip
            "sex": rng.choice(["F", "M"], n),
            "icd10": rng.choice(["E11.9", "I10", "J45.909", "C50.911", "N39.0"], n),
            "length_of_stay": rng.integers(1, 30, n).astype(str),
            "insurer": rng.choice(["Aetna", "Medicare", "BCBS"], n),
        }
    )


def write_hospital(path: Path, n: int = 48) -> pd.DataFrame:
    frame = hospital_frame(n)
    frame.to_csv(path, index=False)
    return frame


def read_cells(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


ANONYMIZE = ["anonymize", "--qi", "zip,sex", "--sensitive", "icd10"]


def _anonymize(cli, tmp_path, *extra, algorithm=("--algorithm", "anatomy", "--l", "2")):
    data = tmp_path / "discharges.csv"
    frame = write_hospital(data)
    out = tmp_path / "release"
    code, stdout, stderr = cli(
        [*ANONYMIZE, "--data", str(data), *algorithm, "--out", str(out), *extra]
    )
    return frame, out, code, stdout, stderr


def test_insensitive_published_identifiers_never_unassigned_named(cli, tmp_path):
    frame, out, code, stdout, stderr = _anonymize(
        cli, tmp_path, "--insensitive", "length_of_stay", "--identifiers", "patient_id"
    )
    assert code == 0, stderr
    flat = " ".join(stdout.split())
    # the columns given no role are named, with the options that give one
    assert "not published (no role given;" in flat
    assert re.search(r"--insensitive or --identifiers.*: birth_date, insurer", flat)
    assert "identifiers dropped (--identifiers; never published): patient_id" in flat
    qit = read_cells(out / "published" / "qit.csv")
    header, rows = qit[0], qit[1:]
    assert "length_of_stay" in header and "patient_id" not in header
    assert "birth_date" not in header and "insurer" not in header
    # the insensitive column is published as it is: the same multiset of values
    col = header.index("length_of_stay")
    assert sorted(r[col] for r in rows) == sorted(frame["length_of_stay"])
    # leading zeros survive: the published zips are exactly the input's
    zc = header.index("zip")
    assert sorted(r[zc] for r in rows) == sorted(frame["zip"])
    assert any(r[zc].startswith("0") for r in rows)
    # no patient id anywhere in what is published
    for f in (out / "published").glob("*"):
        text = f.read_text(encoding="utf-8")
        assert not any(pid in text for pid in frame["patient_id"]), f.name
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["dropped"]["columns"] == ["birth_date", "insurer"]
    assert manifest["dropped"]["identifiers"] == ["patient_id"]
    assert manifest["column_types"]["zip"]["type"] == "text"


def test_generalized_release_keeps_leading_zeros_and_insensitive(cli, tmp_path):
    frame, out, code, stdout, stderr = _anonymize(
        cli,
        tmp_path,
        "--insensitive",
        "length_of_stay,insurer",
        "--identifiers",
        "patient_id,birth_date",
        "--value-sets",  # no hierarchies: zips and sexes published as sets, by choice
        "zip,sex",
        algorithm=("--algorithm", "mondrian", "--k", "3"),
    )
    assert code == 0, stderr
    assert "not published" not in stdout  # every column has a role
    cells = read_cells(out / "published" / "generalized.csv")
    header, rows = cells[0], cells[1:]
    assert {"length_of_stay", "insurer"} <= set(header)
    assert not {"patient_id", "birth_date"} & set(header)
    zips = " ".join(r[header.index("zip")] for r in rows)
    assert "01656" in zips or "00501" in zips
    assert not re.search(r"(?<![0-9])(1656|501)(?![0-9])", zips)  # never as a number


def test_unassigned_error_lists_every_column_and_writes_nothing(cli, tmp_path):
    _, out, code, stdout, stderr = _anonymize(cli, tmp_path, "--unassigned", "error")
    assert code == 2
    assert stdout == "" and "Traceback" not in stderr
    assert stderr.startswith("error: ")
    for name in ("patient_id", "birth_date", "length_of_stay", "insurer"):
        assert name in stderr
    assert "--insensitive" in stderr and "--identifiers" in stderr and "--qi" in stderr
    assert not out.exists()


def test_unassigned_error_passes_when_every_column_has_a_role(cli, tmp_path):
    _, out, code, stdout, stderr = _anonymize(
        cli,
        tmp_path,
        "--unassigned",
        "error",
        "--insensitive",
        "length_of_stay,insurer",
        "--identifiers",
        "patient_id,birth_date",
    )
    assert code == 0, stderr
    assert (out / "published" / "qit.csv").exists()


def test_bad_unassigned_value_is_refused(cli, tmp_path):
    _, out, code, stdout, stderr = _anonymize(cli, tmp_path, "--unassigned", "keep")
    assert code == 2 and "--unassigned" in stderr and "'keep'" in stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("extra", "roles"),
    [
        (["--insensitive", "sex"], "quasi-identifier (--qi) and insensitive (--insensitive)"),
        (["--identifiers", "icd10"], "sensitive (--sensitive) and identifier (--identifiers)"),
        (["--insensitive", "insurer,insurer"], "twice as insensitive (--insensitive)"),
    ],
)
def test_a_column_with_two_roles_is_named(cli, tmp_path, extra, roles):
    _, out, code, stdout, stderr = _anonymize(cli, tmp_path, *extra)
    assert code == 2 and stdout == ""
    assert "is given more than one role" in stderr and roles in stderr
    assert not out.exists()


def test_unknown_role_column_is_named(cli, tmp_path):
    _, out, code, _, stderr = _anonymize(cli, tmp_path, "--identifiers", "ssn")
    assert code == 2 and "unknown column 'ssn'" in stderr


def test_json_summary_carries_the_columns_and_nothing_else_is_printed(cli, tmp_path):
    _, out, code, stdout, stderr = _anonymize(
        cli, tmp_path, "--identifiers", "patient_id", "--json"
    )
    assert code == 0, stderr
    summary = json.loads(stdout)  # nothing but the JSON on stdout
    cols = summary["columns"]
    assert cols["not_published"] == ["birth_date", "length_of_stay", "insurer"]
    assert cols["identifiers_dropped"] == ["patient_id"]
    assert cols["types"]["zip"]["type"] == "text" and cols["types"]["zip"]["how"] == "inferred"
    assert cols["types"]["zip"]["note"].startswith("leading zeros kept, e.g. '0")
    assert cols["types"]["sex"] == {"type": "text", "how": "inferred", "note": ""}


def test_audit_report_names_the_columns_at_its_top(cli, tmp_path):
    _, out, code, _, stderr = _anonymize(
        cli, tmp_path, "--insensitive", "length_of_stay", "--identifiers", "patient_id"
    )
    assert code == 0, stderr
    for redact in ([], ["--redact"]):
        report = tmp_path / f"audit{len(redact)}.html"
        code, _, stderr = cli(
            ["audit", str(out), "--stages", "checks", "--report", str(report),
             "--summary", str(tmp_path / f"a{len(redact)}.json"), *redact]
        )  # fmt: skip
        assert code == 0, stderr
        page = report.read_text(encoding="utf-8")
        top = page[: page.index("<h2>Verdicts</h2>")]  # before any finding
        assert "Not published" in top and "birth_date, insurer" in top
        assert "Identifiers dropped" in top and "patient_id" in top
        assert "Published as they are" in top and "length_of_stay" in top
        assert "leading zeros kept" in top
        summary = json.loads((tmp_path / f"a{len(redact)}.json").read_text())
        assert summary["release"]["columns"]["not_published"] == ["birth_date", "insurer"]


def test_rules_mine_names_the_unused_columns(cli, tmp_path):
    data = tmp_path / "d.csv"
    write_hospital(data, n=30)
    code, stdout, stderr = cli(
        ["rules", "mine", "--data", str(data), "--qi", "sex,insurer", "--sensitive", "icd10",
         "--identifiers", "patient_id", "--min-exp", "0.5"]
    )  # fmt: skip
    assert code == 0, stderr
    flat = " ".join(stdout.split())
    assert "not used (no role given;" in flat and "zip, birth_date, length_of_stay" in flat
    assert "identifiers dropped" in flat and "patient_id" in flat
    assert "sex: text (inferred)" in flat


def test_asap_check_takes_the_role_options(cli, tmp_path):
    data = tmp_path / "tiny.csv"
    data.write_text(
        "pid,age,zip,d,note\n1,30,01656,x,a\n2,31,01656,y,b\n3,40,02139,x,c\n4,41,02139,y,d\n"
    )
    code, stdout, stderr = cli(
        ["asap-check", str(data), "--algorithm", "anatomy", "--qi", "age,zip",
         "--sensitive", "d", "--l", "2", "--identifiers", "pid", "--insensitive", "note"]
    )  # fmt: skip
    assert code == 0, stderr
    flat = " ".join(stdout.split())
    assert "zip: text (inferred: leading zeros kept, e.g. '01656')" in flat
    assert "identifiers dropped" in flat and "not used" not in flat
    code, stdout, stderr = cli(
        ["asap-check", str(data), "--algorithm", "anatomy", "--qi", "age,zip",
         "--sensitive", "d", "--l", "2", "--unassigned", "error"]
    )  # fmt: skip
    assert code == 2 and "pid, note" in stderr and stdout == ""


# ---------------------------------------------------------------------- the Python API


def test_from_frame_names_identifiers_and_refuses_unassigned():
    frame = hospital_frame(12)
    t = Table.from_frame(
        frame,
        quasi_identifiers=["zip", "sex"],
        sensitive="icd10",
        insensitive=["length_of_stay"],
        identifiers=["patient_id"],
    )
    assert t.dropped == {"columns": ["birth_date", "insurer"], "identifiers": ["patient_id"]}
    assert t.schema.insensitive == ("length_of_stay",)
    with pytest.raises(AnonlabError) as exc:
        Table.from_frame(frame, quasi_identifiers=["zip"], sensitive="icd10", unassigned="error")
    msg = str(exc.value)
    assert msg.startswith("5 column(s) have no role: patient_id, birth_date, sex, ")
    with pytest.raises(AnonlabError, match="unassigned must be one of drop, error"):
        Table.from_frame(frame, quasi_identifiers=["zip"], unassigned="ignore")


def test_chunked_reader_gives_the_same_dropped(tmp_path):
    path = tmp_path / "d.csv"
    frame = write_hospital(path, n=20)
    kw = dict(quasi_identifiers=["zip"], sensitive="icd10", identifiers=["patient_id", "sex"])
    whole = Table.from_frame(frame, **kw)
    chunked = Table.from_csv(path, chunk_rows=7, **kw)
    assert whole.dropped == chunked.dropped
    assert chunked.dropped["identifiers"] == ["patient_id", "sex"]
    with pytest.raises(AnonlabError, match=r"have no role: patient_id, birth_date"):
        Table.from_csv(path, chunk_rows=7, quasi_identifiers=["zip"], unassigned="error")
