"""The anonymize step of the app: several models at once for the lattice search, the refusal of
a one-attribute algorithm with several sensitive attributes (the CLI's message, on the page),
and a form that asks for what the algorithm does not do."""

from __future__ import annotations

import re

import pytest

from anonlab import models
from anonlab.release_io import load_release


@pytest.fixture
def project(app_client, discharges):
    project = app_client.upload(discharges(n=400, seed=3))
    page = app_client.client.get(f"/p/{project}/schema").text
    names = re.findall(r'<td class="name">([^<]+)</td>', page)
    roles = {"patient_id": "identifier", "icd10": "sensitive", "insurer": "sensitive",
             "stay": "insensitive"}  # fmt: skip
    form = {"csrf": app_client.csrf}
    for i, name in enumerate(names):
        form[f"role-{i}"], form[f"type-{i}"] = roles.get(name, "quasi-identifier"), ""
    assert app_client.client.post(f"/p/{project}/schema", data=form).status_code == 200
    return project


def _anonymize(app_client, project, **fields):
    form = {"csrf": app_client.csrf, **fields}
    return app_client.client.post(f"/p/{project}/anonymize", data=form, follow_redirects=False)


def test_lattice_with_two_models_holds_both_for_each_sensitive_attribute(app_client, project):
    r = _anonymize(app_client, project, algorithm="lattice", k="5", l="2", suppression="0.05",
                   **{"model-k-anonymity": "1", "model-distinct-l-diversity": "1"})  # fmt: skip
    assert r.status_code == 303
    job = app_client.wait(project)
    assert job["state"] == "done", job
    folder = app_client.app.app.state.anonlab.projects.get(project).folder
    release = load_release(folder / "releases" / "r1")
    assert release.manifest["parameters"]["model"] == "k-anonymity,distinct-l-diversity"
    assert list(release.table.sensitive_attributes) == ["icd10", "insurer"]
    for name in ("icd10", "insurer"):
        view = release.for_sensitive(name)
        assert models.check(view, "k-anonymity", k=5).holds
        assert models.check(view, "distinct-l-diversity", l=2).holds
    overview = app_client.client.get(f"/p/{project}").text
    assert "model = k-anonymity,distinct-l-diversity" in overview and "k = 5" in overview


def test_a_one_attribute_algorithm_is_refused_by_the_cli_on_the_page(app_client, project):
    assert _anonymize(app_client, project, algorithm="anatomy", l="2").status_code == 303
    job = app_client.wait(project)
    assert job["state"] == "failed"
    assert "mondrian" in job["error"] and "Traceback" not in job["error"]
    page = app_client.client.get(f"/p/{project}/anonymize").text
    assert 'id="job-error"' in page
    folder = app_client.app.app.state.anonlab.projects.get(project).folder
    assert not (folder / "releases" / "r1").exists()  # nothing half-written


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"algorithm": "mondrian", "model-t-closeness": "1", "t": "0.2"}, "lattice and lightning"),
        ({"algorithm": "mondrian", "k": "five"}, "k: &#39;five&#39; is not a whole number"),
        ({"algorithm": "rm -rf", "k": "5"}, "algorithm: choose one of"),
    ],
)
def test_a_form_asking_for_what_cannot_be_done_says_so(app_client, project, fields, words):
    r = _anonymize(app_client, project, **fields)
    assert r.status_code == 400 and words in r.text
    assert app_client.client.get(f"/p/{project}/job").json()["kind"] == "init"  # no job started


def test_parquet_published_files_are_zipped_as_released(app_client, project):
    import io
    import zipfile

    r = _anonymize(app_client, project, algorithm="mondrian", k="5", published_format="parquet")
    assert r.status_code == 303
    assert app_client.wait(project)["state"] == "done"
    folder = app_client.app.app.state.anonlab.projects.get(project).folder
    published = folder / "releases" / "r1" / "published"
    assert [p.name for p in published.iterdir()] == ["generalized.parquet"]
    page = app_client.client.get(f"/p/{project}/r/r1").text
    assert "typed Parquet columns, not guarded" in page
    for _ in range(2):  # made once, then served from disk: the same bytes
        z = app_client.client.get(f"/p/{project}/r/r1/published.zip")
        assert z.status_code == 200 and z.headers["content-type"] == "application/zip"
        with zipfile.ZipFile(io.BytesIO(z.content)) as archive:
            assert archive.namelist() == ["generalized.parquet"]
            assert (
                archive.read("generalized.parquet")
                == (published / "generalized.parquet").read_bytes()
            )
    r = _anonymize(app_client, project, algorithm="mondrian", k="5", published_format="xlsx")
    assert r.status_code == 400 and "published_format: choose one of csv, parquet" in r.text
    # the cached zip beside the releases is not mistaken for a release
    assert app_client.app.app.state.anonlab.projects.get(project).next_release() == "r2"
