"""The pages of ``anonlab serve`` over the real CLI jobs (``python -m anonlab ...``), through
Starlette's TestClient: upload → schema → hierarchies → anonymize → audit → download, compare,
cancel, hostile data, and a restart.

One project (:func:`flow`) goes through the whole workflow once per module; the tests read what
each step left (the answers recorded on the way, the files on disk, the pages). Tests that
change a project, or need a job of their own, use projects of their own.
"""

from __future__ import annotations

import html
import io
import json
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import anonlab_app_test_support as _support  # tests/app/conftest.py
import markupsafe
import pandas as pd
import pytest

from anonlab.app.forms import COMPARE_ALGORITHMS
from anonlab.app.security import REPORT_POLICY
from anonlab.schema_file import read_schema_file

LoggedIn = _support.LoggedIn
write_discharges = _support.write_discharges
HOSTILE = _support.HOSTILE

COLUMNS = ["patient_id", "zip", "birth_date", "sex", "icd10", "insurer", "stay"]
ROLES = {
    "patient_id": "identifier",
    "icd10": "sensitive",
    "insurer": "sensitive",
    "stay": "insensitive",
}
SEX_ARX = "F;person;*\nM;person;*\n"


# ---------------------------------------------------------------------------- helpers


def _folder(logged, project: str) -> Path:
    return logged.app.app.state.anonlab.projects.get(project).folder


def _post(logged, path: str, **data):
    return logged.client.post(path, data={"csrf": logged.csrf, **data}, follow_redirects=False)


def _names(logged, project: str) -> list[str]:
    page = logged.client.get(f"/p/{project}/schema").text
    return [html.unescape(n) for n in re.findall(r'<td class="name">([^<]*)</td>', page)]


def _save_roles(logged, project: str, roles: dict[str, str] | None = None):
    """Post the schema form as a browser does: every column's role and type (inferred)."""
    roles = ROLES if roles is None else roles
    form = {}
    for i, name in enumerate(_names(logged, project)):
        key = "sex" if name.startswith("sex") else name
        form[f"role-{i}"] = roles.get(key, "quasi-identifier")
        form[f"type-{i}"] = ""
    return _post(logged, f"/p/{project}/schema", **form)


def _error(text: str) -> str | None:
    m = re.search(r'id="error"[^>]*>(.*?)</p>', text, re.S)
    return html.unescape(m.group(1)) if m else None


def _job_error(text: str) -> str | None:
    m = re.search(r'id="job-error">(.*?)</p>', text, re.S)
    return html.unescape(m.group(1)) if m else None


def _esc(value: object) -> str:
    """``value`` as Jinja's autoescape writes it."""
    return str(markupsafe.escape(str(value)))


def _wait_idle(logged, project: str) -> dict:
    job = logged.wait(project, timeout=120)
    assert job["state"] != "running", job
    return job


@dataclass
class Flow:
    """The module's project after upload, roles, hierarchies, anonymize and audit."""

    logged: object  # LoggedIn
    work: Path
    csv: Path
    project: str
    folder: Path
    answers: dict = field(default_factory=dict)
    jobs: dict = field(default_factory=dict)


@pytest.fixture(scope="module")
def flow(tmp_path_factory) -> Flow:
    root = tmp_path_factory.mktemp("pages")
    csv = write_discharges(root / "discharges.csv", 300)
    logged = LoggedIn(root / "work")
    project = logged.upload(csv)
    f = Flow(logged, root / "work", csv, project, _folder(logged, project))
    f.jobs["init"] = logged.client.get(f"/p/{project}/job").json()
    f.answers["schema"] = _save_roles(logged, project)
    f.answers["zip"] = _post(
        logged, f"/p/{project}/hierarchies/1", builder="prefix", params="", action="use"
    )
    f.answers["birth_date"] = _post(
        logged,
        f"/p/{project}/hierarchies/2",
        builder="date",
        params="levels=month,year",
        action="use",
    )
    f.answers["sex"] = logged.client.post(
        f"/p/{project}/hierarchies/3/upload",
        data={"csrf": logged.csrf, "kind": "arx"},
        files={"file": ("sex.csv", SEX_ARX.encode(), "text/csv")},
    )
    f.answers["anonymize"] = _post(
        logged, f"/p/{project}/anonymize", algorithm="mondrian", k="5", l="2", seed="0"
    )
    f.jobs["anonymize"] = logged.wait(project)
    # thresholds the release misses, so the page has a verdict with next steps
    f.answers["audit"] = _post(
        logged, f"/p/{project}/r/r1/audit", max_risk="0.2", max_share_at_risk="0.001"
    )
    f.jobs["audit"] = logged.wait(project)
    return f


@pytest.fixture(scope="module")
def spare(tmp_path_factory):
    """A second project with its roles saved, for jobs that are cancelled or refused."""
    root = tmp_path_factory.mktemp("spare")
    logged = LoggedIn(root / "work")
    project = logged.upload(write_discharges(root / "d.csv", 300, seed=1))
    assert _save_roles(logged, project).status_code == 303
    return logged, project


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A small project whose data has missing cells (the drafted schema, roles not saved)."""
    root = tmp_path_factory.mktemp("sample")
    csv = write_discharges(root / "d.csv", 60, seed=2)
    frame = pd.read_csv(csv, dtype=str, keep_default_na=False)
    frame.loc[[3, 7, 11, 20, 41], "stay"] = ""
    frame.loc[[0, 5, 9], "insurer"] = "NA"
    frame.loc[[2, 59], "zip"] = "?"
    frame.to_csv(csv, index=False)
    logged = LoggedIn(root / "work")
    project = logged.upload(csv)
    return logged, project, csv


# ---------------------------------------------------------------------------- upload and schema


def test_upload_runs_init_and_the_schema_is_drafted(flow):
    assert flow.jobs["init"]["state"] == "done" and flow.jobs["init"]["kind"] == "init"
    assert (flow.folder / "data.csv").read_bytes() == flow.csv.read_bytes()
    assert [c.name for c in read_schema_file(flow.folder / "schema.json").columns] == COLUMNS
    page = flow.logged.client.get(f"/p/{flow.project}").text
    assert f'href="/p/{flow.project}/schema" id="go-schema"' in page
    home = flow.logged.client.get("/").text
    assert "discharges.csv" in home and f'href="/p/{flow.project}"' in home


def test_the_schema_page_lists_every_column_with_samples_and_missing_counts(sample):
    logged, project, csv = sample
    r = logged.client.get(f"/p/{project}/schema")
    assert r.status_code == 200
    frame = pd.read_csv(csv, dtype=str, keep_default_na=False)
    assert _names(logged, project) == list(frame.columns)
    missing = {"stay": 5, "insurer": 3, "zip": 2}
    for i, name in enumerate(frame.columns):
        row = re.search(rf'<tr id="row-{i}">(.*?)</tr>', r.text, re.S).group(1)
        assert f'<td class="name">{_esc(name)}</td>' in row
        sample_cell = re.search(r'<td class="sample">(.*?)</td>', row, re.S).group(1)
        values = pd.unique(frame[name].str.strip())
        for value in values[:6]:
            assert f"<code>{_esc(value)}</code>" in sample_cell, (name, value)
        distinct, missed = re.findall(r'<td class="num">([^<]*)</td>', row)
        assert int(distinct.replace(",", "")) == len(values), name
        assert int(missed.replace(",", "")) == missing.get(name, 0), name
        # the role and type selects, with the drafted role selected
        assert f'name="role-{i}"' in row and f'name="type-{i}"' in row
    schema = json.loads((_folder(logged, project) / "schema.json").read_text("utf-8"))
    for i, column in enumerate(schema["columns"]):
        row = re.search(rf'<tr id="row-{i}">(.*?)</tr>', r.text, re.S).group(1)
        assert f'<option value="{column["role"]}" selected>' in row


def test_saving_roles_writes_a_schema_the_cli_reads(flow):
    r = flow.answers["schema"]
    assert r.status_code == 303 and r.headers["location"] == f"/p/{flow.project}/hierarchies"
    schema = read_schema_file(flow.folder / "schema.json")
    roles = {c.name: c.role for c in schema.columns}
    assert roles == {
        "patient_id": "identifier",
        "zip": "quasi-identifier",
        "birth_date": "quasi-identifier",
        "sex": "quasi-identifier",
        "icd10": "sensitive",
        "insurer": "sensitive",
        "stay": "insensitive",
    }
    assert schema.sensitive == ["icd10", "insurer"]
    # the drafted placeholder builders of the columns turned sensitive are gone
    assert {c.name: c.hierarchy for c in schema.columns if c.role == "sensitive"} == {
        "icd10": None,
        "insurer": None,
    }


def test_an_invalid_role_re_renders_with_400_naming_the_column(sample):
    logged, project, _ = sample
    path = _folder(logged, project) / "schema.json"
    before = path.read_bytes()
    names = _names(logged, project)
    form = {f"role-{i}": "quasi-identifier" for i in range(len(names))}
    r = _post(logged, f"/p/{project}/schema", **{**form, "role-2": "secret"})
    assert r.status_code == 400
    error = _error(r.text)
    assert "'birth_date'" in error and "'secret'" in error
    assert 'id="schema-form"' in r.text  # the form again, to fix
    r = _post(logged, f"/p/{project}/schema", **{**form, "type-6": "blob"})
    assert r.status_code == 400 and "'stay'" in _error(r.text)
    assert path.read_bytes() == before


def test_roles_invalid_together_re_render_with_400_naming_the_columns(sample):
    """Each role is valid, the schema is not: ``sensitive_values`` protects the values of one
    sensitive attribute and the form makes two."""
    logged, project, _ = sample
    path = _folder(logged, project) / "schema.json"
    original = path.read_bytes()
    schema = json.loads(original)
    schema["sensitive_values"] = ["public"]
    path.write_text(json.dumps(schema), "utf-8")
    try:
        before = path.read_bytes()
        r = _save_roles(logged, project)
        assert r.status_code == 400
        error = _error(r.text)
        assert "sensitive_values" in error and "'icd10'" in error and "'insurer'" in error
        assert str(_folder(logged, project)) not in r.text  # no server folder on the page
        assert path.read_bytes() == before
    finally:
        path.write_bytes(original)


def test_the_schema_of_a_wide_table_can_be_saved(app_client, tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"c{i}": rng.integers(0, 4, 30) for i in range(120)})
    frame.to_csv(tmp_path / "wide.csv", index=False)
    project = app_client.upload(tmp_path / "wide.csv")
    form = {f"role-{i}": "insensitive" for i in range(120)}
    form |= {f"type-{i}": "" for i in range(120)}
    r = _post(app_client, f"/p/{project}/schema", **form)
    assert r.status_code == 303, r.text[:200]


# ---------------------------------------------------------------------------- hierarchies


def _preview(text: str) -> dict:
    box = re.search(r'<div class="preview" id="preview-table">(.*?)</div>', text, re.S).group(1)
    levels = re.findall(
        r'<tr><td>(\d+)[^<]*</td><td class="num">([\d,]+)</td><td><code>'
        r"([^<]*)</code></td></tr>",
        box,
    )
    rows = [
        re.findall(r"<td><code>([^<]*)</code></td>", tr)
        for tr in re.findall(r"<tr>((?:<td><code>[^<]*</code></td>)+)</tr>", box)
    ]
    return {
        "title": re.search(r"<h3>(.*?)</h3>", box, re.S).group(1),
        "levels": levels,
        "rows": [[html.unescape(c) for c in r] for r in rows],
    }


def test_using_builders_for_zip_and_birth_date(flow):
    for key, column in (("zip", 1), ("birth_date", 2)):
        r = flow.answers[key]
        assert r.status_code == 303
        assert r.headers["location"] == f"/p/{flow.project}/hierarchies#column-{column}"
    schema = json.loads((flow.folder / "schema.json").read_text("utf-8"))["columns"]
    assert schema[1]["hierarchy"] == {"builder": "prefix"}
    assert schema[2]["hierarchy"] == {"builder": "date", "levels": ["month", "year"]}
    page = flow.logged.client.get(f"/p/{flow.project}/hierarchies").text
    zip_section = re.search(r'id="column-1">(.*?)</section>', page, re.S).group(1)
    assert "builder <code>prefix</code>" in zip_section
    date_section = re.search(r'id="column-2">(.*?)</section>', page, re.S).group(1)
    now = re.search(r'<p class="current">(.*?)</p>', date_section, re.S).group(1)
    assert "builder <code>date</code>" in now and "month" in now and "year" in now
    assert "5-year" not in now
    # the sensitive columns have no builder form (only quasi-identifiers are listed)
    assert 'id="column-4"' not in page and 'id="column-6"' not in page


def test_previews_show_the_levels_and_change_nothing(flow):
    path = flow.folder / "schema.json"
    before = path.read_bytes()
    zips = sorted(set(pd.read_csv(flow.csv, dtype=str)["zip"]))
    r = _post(
        flow.logged,
        f"/p/{flow.project}/hierarchies/1",
        builder="prefix",
        params="keep=3,1",
        action="preview",
    )
    assert r.status_code == 200
    preview = _preview(r.text)
    assert preview["title"].startswith(f"zip: {len(zips)} values, 3 levels above them")
    assert [e for _, _, e in preview["levels"]] == [zips[0], "010**", "0****", "*"]
    assert preview["rows"][0] == [zips[0], "010**", "0****", "*"]
    r = _post(
        flow.logged,
        f"/p/{flow.project}/hierarchies/2",
        builder="date",
        params="levels=month,year",
        action="preview",
    )
    assert r.status_code == 200
    preview = _preview(r.text)
    dates = sorted(set(pd.read_csv(flow.csv, dtype=str)["birth_date"]))
    assert preview["title"].startswith(f"birth_date: {len(dates)} values, 3 levels above them")
    assert preview["rows"][0] == [dates[0], dates[0][:7], dates[0][:4], "*"]
    assert path.read_bytes() == before


def test_an_uploaded_arx_hierarchy_is_used_and_previewed(flow):
    r = flow.answers["sex"]
    assert r.status_code == 200, _error(r.text)
    preview = _preview(r.text)
    assert preview["title"].startswith("sex: 2 values, 2 levels above them")
    assert preview["rows"] == [["F", "person", "*"], ["M", "person", "*"]]
    schema = json.loads((flow.folder / "schema.json").read_text("utf-8"))["columns"]
    assert schema[3]["hierarchy"] == "hierarchies/h3.csv"
    assert (flow.folder / "hierarchies" / "h3.csv").read_text("utf-8") == SEX_ARX
    page = flow.logged.client.get(f"/p/{flow.project}/hierarchies").text
    assert "the uploaded file <code>hierarchies/h3.csv</code>" in page
    # the release used it: sex is published as F, M or person
    published = pd.read_csv(flow.folder / "releases/r1/published/generalized.csv", dtype=str)
    assert set(published["sex"]) <= {"F", "M", "person", "*"}


@pytest.mark.parametrize(
    "column, builder, params, words",
    [
        (1, "prefix", "keep=abc", "parameter 'keep' must list decreasing numbers"),
        (2, "date", "levels=decade", "unknown date level 'decade'"),
        (1, "prefix", "width=5", "unknown parameter of the prefix builder"),
        (2, "interval", "width=5", "is not a finite number"),
        (1, "prefix", "keep", "is not NAME=VALUE"),
    ],
)
def test_a_bad_builder_parameter_shows_the_builders_error(flow, column, builder, params, words):
    path = flow.folder / "schema.json"
    before = path.read_bytes()
    for action in ("preview", "use"):
        r = _post(
            flow.logged,
            f"/p/{flow.project}/hierarchies/{column}",
            builder=builder,
            params=params,
            action=action,
        )
        assert r.status_code == 400
        error = _error(r.text)
        assert words in error, error
        assert error.startswith(COLUMNS[column] + ": ")
        assert str(flow.folder) not in r.text
        assert "Traceback" not in r.text
    assert path.read_bytes() == before


def test_a_refused_hierarchy_upload_changes_no_file(sample):
    logged, project, _ = sample
    folder = _folder(logged, project)
    names = _names(logged, project)
    sex = names.index("sex")

    def upload(column: int, text: bytes):
        return logged.client.post(
            f"/p/{project}/hierarchies/{column}/upload",
            data={"csrf": logged.csrf},
            files={"file": ("h.csv", text, "text/csv")},
        )

    assert upload(sex, SEX_ARX.encode()).status_code == 200
    before = {p.name: p.read_bytes() for p in (folder / "hierarchies").iterdir()}
    schema = (folder / "schema.json").read_bytes()
    r = upload(sex, b"F;person;*\nM;*\n")  # rows of different lengths
    assert r.status_code == 400 and "every row must list" in _error(r.text)
    r = upload(names.index("patient_id"), SEX_ARX.encode())  # an identifier takes none
    assert r.status_code == 400 and "only a quasi-identifier" in _error(r.text)
    assert (folder / "schema.json").read_bytes() == schema
    after = {p.name: p.read_bytes() for p in (folder / "hierarchies").iterdir()}
    assert after == before


# ---------------------------------------------------------------------------- anonymize


def test_anonymize_makes_release_r1_listed_with_its_rows(flow):
    r = flow.answers["anonymize"]
    assert r.status_code == 303 and r.headers["location"] == f"/p/{flow.project}"
    assert flow.jobs["anonymize"]["state"] == "done", flow.jobs["anonymize"]
    manifest = json.loads((flow.folder / "releases/r1/manifest.json").read_text("utf-8"))
    assert manifest["rows"] == 300
    page = flow.logged.client.get(f"/p/{flow.project}").text
    table = re.search(r'<table id="releases">(.*?)</table>', page, re.S).group(1)
    row = re.search(
        r"<tr>\s*<td><a href=\"/p/[0-9a-f]+/r/r1\"[^>]*>r1</a></td>(.*?)</tr>", table, re.S
    ).group(1)
    cells = re.findall(r"<td>(.*?)</td>", row, re.S)
    assert "mondrian" in cells[0] and "k = 5" in cells[0] and "l = 2" in cells[0]
    assert cells[1] == "300"
    assert cells[2] == f"{manifest['groups']:,}"


def test_a_failed_anonymize_shows_the_cli_error_and_leaves_no_release(flow):
    logged, project = flow.logged, flow.project
    _wait_idle(logged, project)
    r = _post(logged, f"/p/{project}/anonymize", algorithm="mondrian", k="5", l="50")
    assert r.status_code == 303
    job = logged.wait(project)
    assert job["state"] == "failed" and job["kind"] == "anonymize"
    stderr = sorted((flow.folder / "jobs").iterdir(), key=lambda p: int(p.name))[-1]
    lines = (stderr / "stderr-0.txt").read_text("utf-8").splitlines()
    assert f"error: {job['error']}" in lines  # the CLI's one line, as it printed it
    assert "\n" not in job["error"] and "50" in job["error"]
    page = logged.client.get(f"/p/{project}").text
    assert _job_error(page) == job["error"]
    assert "Traceback" not in page and "Traceback" not in json.dumps(job)
    assert not (flow.folder / "releases" / "r2").exists()
    assert not [p for p in (flow.folder / "releases").iterdir() if p.name.startswith(".")]
    assert re.findall(r'class="release-link">(r\d+)<', page) == ["r1"]


# ---------------------------------------------------------------------------- audit and downloads


def test_the_release_page_shows_the_audit_as_audit_json_says(flow):
    assert flow.answers["audit"].status_code == 303
    assert flow.jobs["audit"]["state"] == "done", flow.jobs["audit"]
    audit = json.loads((flow.folder / "releases/r1/audit.json").read_text("utf-8"))
    page = flow.logged.client.get(f"/p/{flow.project}/r/r1").text
    decision = re.search(r'id="decision">(.*?)</p>', page).group(1)
    assert decision == ("Release" if audit["decision"]["release"] else "Do not release")
    assert decision == "Do not release"  # at a 0.1% threshold
    summary = html.unescape(re.search(r'id="decision-summary">(.*?)</p>', page, re.S).group(1))
    assert summary == audit["decision"]["summary"]
    steps = re.search(r'<ul id="next-steps">(.*?)</ul>', page, re.S).group(1)
    shown = [html.unescape(s) for s in re.findall(r"<li>(.*?)</li>", steps, re.S)]
    assert shown == audit["decision"]["next_steps"] and shown
    table = re.search(r'<table id="findings">(.*?)</table>', page, re.S).group(1)
    rows = re.findall(
        r"<tr><td><a href=\"[^\"]*#([^\"]*)\"[^>]*>(.*?)</a></td>\s*"
        r"<td[^>]*>(.*?)</td>\s*<td class=\"num\">(.*?)</td>",
        table,
        re.S,
    )
    assert len(rows) == len(audit["findings"])
    by_key = {key: (title, verdict, risk) for key, title, verdict, risk in rows}
    for finding in audit["findings"]:
        title, verdict, risk = by_key[finding["key"]]
        assert html.unescape(title) == finding["title"] and verdict == finding["verdict"]
        if finding["at_risk"] is not None:
            assert risk == f"{finding['at_risk']:,} / {finding['considered']:,}", finding["key"]
    definetti = next(f for f in audit["findings"] if f["key"] == "definetti/icd10")
    assert by_key["definetti/icd10"][2].split(" / ")[0] == str(definetti["at_risk"])
    # the overview says the same
    overview = flow.logged.client.get(f"/p/{flow.project}").text
    assert '<span class="bad">do not release</span>' in overview


def test_the_reports_are_served_and_the_redacted_one_holds_no_patient_value(flow):
    folder = flow.folder / "releases" / "r1"
    base = f"/p/{flow.project}/r/r1/file"
    internal = flow.logged.client.get(f"{base}/report")
    redacted = flow.logged.client.get(f"{base}/report-redacted")
    for r in (internal, redacted):
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert r.headers["content-security-policy"] == REPORT_POLICY
    assert internal.content == (folder / "audit.html").read_bytes()
    assert redacted.content == (folder / "audit-redacted.html").read_bytes()
    data = pd.read_csv(flow.csv, dtype=str)
    values = set(data["zip"]) | set(data["birth_date"]) | set(data["patient_id"])
    assert any(v in internal.text for v in values)  # the internal one names records
    leaked = sorted(v for v in values if v in redacted.text)
    assert leaked == []
    summary = flow.logged.client.get(f"{base}/audit.json")
    assert summary.json() == json.loads((folder / "audit.json").read_text("utf-8"))
    at_risk = flow.logged.client.get(f"{base}/at-risk.csv")
    assert at_risk.content == (folder / "at-risk.csv").read_bytes()
    page = flow.logged.client.get(f"/p/{flow.project}/r/r1").text
    for name in ("audit-internal.html", "at-risk.csv", "audit-redacted.html"):
        assert f'href="/p/{flow.project}/r/r1/file/{name}"' in page


def test_published_zip_holds_exactly_the_published_files(flow):
    r = flow.logged.client.get(f"/p/{flow.project}/r/r1/published.zip")
    assert r.status_code == 200
    published = flow.folder / "releases" / "r1" / "published"
    on_disk = {
        str(p.relative_to(published)): p.read_bytes() for p in published.rglob("*") if p.is_file()
    }
    with zipfile.ZipFile(io.BytesIO(r.content)) as archive:
        zipped = {name: archive.read(name) for name in archive.namelist()}
    assert on_disk and zipped == on_disk


def test_the_rerun_zip_reruns_the_release_from_a_terminal(flow, tmp_path):
    r = flow.logged.client.get(f"/p/{flow.project}/schema.zip")
    assert r.status_code == 200
    with zipfile.ZipFile(io.BytesIO(r.content)) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "rerun")
    assert {"schema.json", "README.txt", "hierarchies/h3.csv"} <= names
    folder = tmp_path / "rerun"
    assert (folder / "schema.json").read_bytes() == (flow.folder / "schema.json").read_bytes()
    assert (folder / "hierarchies/h3.csv").read_bytes() == (
        flow.folder / "hierarchies/h3.csv"
    ).read_bytes()
    schema = read_schema_file(folder / "schema.json")  # its hierarchy paths are in the zip
    for column in schema.columns:
        if isinstance(column.hierarchy, str):
            assert column.hierarchy in names
    readme = (folder / "README.txt").read_text("utf-8")
    commands = [shlex.split(line) for line in readme.splitlines() if line.startswith("anonlab ")]
    assert commands, readme
    for argv in commands:
        assert argv[:2] == ["anonlab", "anonymize"]
    first = commands[0]
    assert first[first.index("--out") + 1] == "r1"
    assert first[first.index("--schema") + 1] == "schema.json"
    # run it, as the README says: in a folder with these files and the data
    shutil.copy(flow.folder / "data.csv", folder / first[first.index("--data") + 1])
    done = subprocess.run(
        [sys.executable, "-m", "anonlab", *first[1:]],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    again = json.loads((folder / "r1" / "manifest.json").read_text("utf-8"))
    original = json.loads((flow.folder / "releases/r1/manifest.json").read_text("utf-8"))
    assert (again["rows"], again["groups"]) == (original["rows"], original["groups"])


# ---------------------------------------------------------------------------- jobs: cancel, busy


def test_cancel_ends_the_job_and_another_can_start(spare):
    logged, project = spare
    _wait_idle(logged, project)
    compared = set((_folder(logged, project) / "compare").glob("*.json"))  # none, or the old
    every = {f"algorithm-{a}": "1" for a in COMPARE_ALGORITHMS}
    r = _post(logged, f"/p/{project}/compare", l="2..6", **every)
    assert r.status_code == 303
    assert logged.client.get(f"/p/{project}/job").json()["state"] == "running"
    page = logged.client.get(f"/p/{project}").text
    assert 'id="cancel"' in page and 'data-state="running"' in page
    r = _post(logged, f"/p/{project}/job/cancel")
    assert r.status_code == 303
    job = logged.wait(project)
    assert job["state"] == "cancelled" and job["kind"] == "compare", job
    assert job["error"] == "cancelled"
    assert _folder(logged, project) / "compare" / "compare.json" not in compared
    # a second job starts and finishes
    r = _post(logged, f"/p/{project}/compare", l="2", **{"algorithm-mondrian": "1"})
    assert r.status_code == 303
    job = logged.wait(project)
    assert job["state"] == "done" and job["kind"] == "compare", job
    page = logged.client.get(f"/p/{project}/compare").text
    assert f'href="/p/{project}/compare/mondrian-l2/report"' in page
    assert 'id="frontier"' in page
    report = logged.client.get(f"/p/{project}/compare/mondrian-l2/report")
    assert report.status_code == 200
    assert report.headers["content-security-policy"] == REPORT_POLICY
    for name in ("anatomy-l2", "mondrian-l3", "compare.json", "%2e%2e", "mondrian-l2x"):
        assert logged.client.get(f"/p/{project}/compare/{name}/report").status_code == 404
    # cancelling when nothing runs is harmless
    assert _post(logged, f"/p/{project}/job/cancel").status_code == 303
    assert logged.client.get(f"/p/{project}/job").json()["state"] == "done"


def _files(folder: Path) -> list[str]:
    """The files of a project besides its jobs' (what a refused request must not add to)."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and "jobs" not in p.relative_to(folder).parts
    )


def test_starting_a_job_while_one_runs_gives_409(spare):
    logged, project = spare
    _wait_idle(logged, project)
    folder = _folder(logged, project)
    every = {f"algorithm-{a}": "1" for a in COMPARE_ALGORITHMS}
    assert _post(logged, f"/p/{project}/compare", l="2..6", **every).status_code == 303
    try:
        before = _files(folder)
        r = _post(logged, f"/p/{project}/compare", l="2", **{"algorithm-mondrian": "1"})
        assert r.status_code == 409, r.status_code
        r = _post(logged, f"/p/{project}/anonymize", algorithm="mondrian", k="5")
        assert r.status_code == 409, r.status_code
        after = _files(folder)
        assert [p for p in after if p not in before and "compare" not in p] == []
    finally:
        _post(logged, f"/p/{project}/job/cancel")
        logged.wait(project)


# ---------------------------------------------------------------------------- hostile data


def test_hostile_data_is_never_markup_on_any_page(app_client, discharges):
    logged = app_client
    project = logged.upload(discharges(hostile=True))
    assert _save_roles(logged, project).status_code == 303
    folder = _folder(logged, project)
    _post(logged, f"/p/{project}/anonymize", algorithm="mondrian", k="5", l="2")
    assert logged.wait(project)["state"] == "done"
    _post(logged, f"/p/{project}/r/r1/audit")
    assert logged.wait(project)["state"] == "done"
    _post(logged, f"/p/{project}/compare", l="2", **{"algorithm-mondrian": "1"})
    assert logged.wait(project)["state"] == "done"
    sex = _names(logged, project).index(f"sex{HOSTILE}")
    bad_role = _post(logged, f"/p/{project}/schema", **{f"role-{sex}": "secret"})
    assert bad_role.status_code == 400
    pages = {
        "home": "/",
        "overview": f"/p/{project}",
        "schema": f"/p/{project}/schema",
        "hierarchies": f"/p/{project}/hierarchies",
        "anonymize": f"/p/{project}/anonymize",
        "release": f"/p/{project}/r/r1",
        "compare": f"/p/{project}/compare",
    }
    texts = {name: logged.client.get(path).text for name, path in pages.items()}
    texts["schema error"] = bad_role.text
    texts["job"] = logged.client.get(f"/p/{project}/job").text
    for name, text in texts.items():
        assert "<script>document.title" not in text, name
        assert "<img src=x" not in text, name
        assert "onerror=alert" not in text or "&lt;img" in text, name
    escaped = "sex&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"
    for name in ("schema", "hierarchies", "release", "schema error"):
        assert escaped in texts[name], name
    raw_error = re.search(r'id="error"[^>]*>(.*?)</p>', bad_role.text, re.S).group(1)
    assert escaped in raw_error  # the error names the column, escaped
    # the reports (sandboxed, without script) escape it too
    for path in (
        f"/p/{project}/r/r1/file/report",
        f"/p/{project}/r/r1/file/report-redacted",
        f"/p/{project}/compare/mondrian-l2/report",
    ):
        r = logged.client.get(path)
        assert r.status_code == 200 and "<script>document.title" not in r.text, path
    # the published file guards the formula cells
    published = (folder / "releases/r1/published/generalized.csv").read_text("utf-8")
    assert "\n=HYPERLINK" not in published and ",=HYPERLINK" not in published


# ---------------------------------------------------------------------------- restart


def test_a_restart_loses_nothing_finished(flow):
    _wait_idle(flow.logged, flow.project)
    old_cookie = dict(flow.logged.client.cookies)
    restarted = LoggedIn(flow.work)  # a new server: new Sessions, same work folder
    assert restarted.sessions is not flow.logged.sessions
    home = restarted.client.get("/").text
    assert f'href="/p/{flow.project}"' in home and "discharges.csv" in home
    overview = restarted.client.get(f"/p/{flow.project}").text
    assert re.findall(r'class="release-link">(r\d+)<', overview) == ["r1"]
    assert '<span class="bad">do not release</span>' in overview
    release = restarted.client.get(f"/p/{flow.project}/r/r1").text
    assert 'id="decision">Do not release<' in release
    audit = json.loads((flow.folder / "releases/r1/audit.json").read_text("utf-8"))
    assert len(re.findall(r'href="[^"]*/file/report#', release)) == len(audit["findings"])
    assert restarted.client.get(f"/p/{flow.project}/r/r1/file/report").status_code == 200
    assert restarted.client.get(f"/p/{flow.project}/job").json()["state"] in ("done", "failed")
    # the old browser's session belonged to the old server
    from starlette.testclient import TestClient

    old = TestClient(restarted.app, cookies=old_cookie)
    assert old.get("/").status_code == 401
