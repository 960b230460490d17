"""Hierarchy files uploaded through the app: a mapping table for the ``mapping`` builder, kept
in the project and named by the schema with a path the server made (never one the client gave),
then used by the CLI's anonymize job."""

from __future__ import annotations

import json

MAPPING = (
    "code,category,chapter\nE11.9,E11,E\nI10,I10,I\nJ45.909,J45,J\nC50.911,C50,C\nN39.0,N39,N\n"
)


def _roles(client, project):
    page = client.client.get(f"/p/{project}/schema").text
    import re

    names = re.findall(r'<td class="name">([^<]+)</td>', page)
    roles = {"patient_id": "identifier", "insurer": "sensitive", "stay": "insensitive"}
    form = {"csrf": client.csrf}
    for i, name in enumerate(names):
        form[f"role-{i}"], form[f"type-{i}"] = roles.get(name, "quasi-identifier"), ""
    r = client.client.post(f"/p/{project}/schema", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    return names


def _upload(client, project, column, text, kind="mapping"):
    return client.client.post(
        f"/p/{project}/hierarchies/{column}/upload",
        data={"csrf": client.csrf, "kind": kind},
        files={"file": ("../../../etc/icd.csv", text.encode(), "text/csv")},
    )


def test_a_mapping_table_is_kept_in_the_project_and_used(app_client, discharges, tmp_path):
    project = app_client.upload(discharges())
    names = _roles(app_client, project)
    icd = names.index("icd10")
    r = _upload(app_client, project, icd, MAPPING)
    assert r.status_code == 200 and 'id="preview-table"' in r.text
    assert "E11" in r.text and "<td><code>E</code></td>" in r.text  # the chapter level
    folder = app_client.app.app.state.anonlab.projects.get(project).folder
    schema = json.loads((folder / "schema.json").read_text())
    entry = schema["columns"][icd]
    assert entry["hierarchy"] == {"builder": "mapping", "file": f"hierarchies/m{icd}.csv"}
    assert (folder / "hierarchies" / f"m{icd}.csv").read_text() == MAPPING
    assert not (tmp_path / "etc").exists()  # the client's file name made no path
    form = {"csrf": app_client.csrf, "algorithm": "mondrian", "k": "5"}
    r = app_client.client.post(f"/p/{project}/anonymize", data=form, follow_redirects=False)
    assert r.status_code == 303
    job = app_client.wait(project)
    assert job["state"] == "done", job
    manifest = json.loads((folder / "releases" / "r1" / "manifest.json").read_text())
    assert manifest["rows"] == 300


def test_a_mapping_that_misses_a_value_is_refused_and_changes_nothing(app_client, discharges):
    project = app_client.upload(discharges())
    names = _roles(app_client, project)
    icd = names.index("icd10")
    folder = app_client.app.app.state.anonlab.projects.get(project).folder
    before = (folder / "schema.json").read_text()
    r = _upload(app_client, project, icd, "code,category\nE11.9,E11\nI10,I10\n")
    assert r.status_code == 400
    assert "not mapped: &#39;J45.909&#39;" in r.text
    assert str(folder) not in r.text  # the page names schema.json, not the server's folder
    assert (folder / "schema.json").read_text() == before
    r = _upload(app_client, project, icd, MAPPING, kind="../../x")
    assert r.status_code == 400


def test_a_quasi_identifier_published_as_value_sets_by_choice(app_client, discharges):
    # without a hierarchy, a generalized release refuses a text quasi-identifier until the
    # publisher knowingly publishes each group's set of values
    project = app_client.upload(discharges())
    names = _roles(app_client, project)
    sex = names.index("sex")
    folder = app_client.app.app.state.anonlab.projects.get(project).folder
    post = app_client.client.post
    base = {"csrf": app_client.csrf, "builder": "prefix", "params": ""}
    assert (
        post(f"/p/{project}/hierarchies/{sex}", data={**base, "action": "drop"}).status_code == 400
    )
    r = post(f"/p/{project}/hierarchies/{sex}", data={**base, "action": "none"},
             follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    form = {"csrf": app_client.csrf, "algorithm": "mondrian", "k": "5"}
    post(f"/p/{project}/anonymize", data=form, follow_redirects=False)
    job = app_client.wait(project)
    assert job["state"] == "failed" and "sex" in job["error"]  # the CLI's refusal, one line
    r = post(f"/p/{project}/hierarchies/{sex}", data={**base, "action": "value-sets"},
             follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    entry = json.loads((folder / "schema.json").read_text())["columns"][sex]
    assert entry["value_sets"] is True and entry["hierarchy"] is None
    post(f"/p/{project}/anonymize", data=form, follow_redirects=False)
    job = app_client.wait(project)
    assert job["state"] == "done", job
    rid = sorted(p.name for p in (folder / "releases").iterdir() if p.is_dir())[-1]
    manifest = json.loads((folder / "releases" / rid / "manifest.json").read_text())
    assert [a["name"] for a in manifest["schema"] if a.get("value_sets")] == [names[sex]]
    import pandas as pd

    published = pd.read_csv(folder / "releases" / rid / "published" / "generalized.csv", dtype=str)
    assert set(published["sex"]) <= {"F", "M", "{F,M}"}
