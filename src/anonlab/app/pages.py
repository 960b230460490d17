"""The pages of ``anonlab serve``: one handler per step of the workflow.

Load (upload or bundled dataset) → schema (roles and types) → hierarchies → anonymize →
audit → compare → download. Pages are rendered on the server from Jinja2 templates with
autoescaping on (every value of the data reaches the page as text); the one script,
``static/app.js``, polls the project's job for its progress bar.

The steps call the library (reading a schema, building a hierarchy preview) or, for long work,
run the CLI's commands as jobs (:mod:`anonlab.app.jobs`): nothing here re-implements a step.
"""

from __future__ import annotations

import io
import json
import shutil
import urllib.parse
import zipfile
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.templating import Jinja2Templates

from anonlab.app import forms
from anonlab.app.jobs import Jobs
from anonlab.app.projects import NotFound, Project, Projects, check_id, read_json, write_json
from anonlab.app.security import REPORT_POLICY, Sessions, check_csrf
from anonlab.errors import AnonlabError

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
TEMPLATES.env.autoescape = True  # every template, whatever its suffix


def _parameters(parameters: Any) -> str:
    """A manifest's parameters in words (``k = 5, l = 3``), the unset ones left out."""
    if not isinstance(parameters, dict):
        return ""
    shown = [f"{k} = {v}" for k, v in parameters.items() if v not in (None, False, "", [])]
    return ", ".join(shown)


TEMPLATES.env.filters["params"] = _parameters

#: Files of a release the app serves, by the name in the URL: (file in the release folder,
#: media type, shown inline or downloaded).
RELEASE_FILES = {
    "report": ("audit.html", "text/html", True),
    "report-redacted": ("audit-redacted.html", "text/html", True),
    "audit-internal.html": ("audit.html", "text/html", False),
    "audit-redacted.html": ("audit-redacted.html", "text/html", False),
    "audit.json": ("audit.json", "application/json", False),
    "at-risk.csv": ("at-risk.csv", "text/csv", False),
}


class App:
    """The state one server holds: where the projects are, the jobs, the sessions, limits."""

    def __init__(self, workdir: Path, sessions: Sessions, max_upload: int) -> None:
        self.projects = Projects(workdir)
        self.jobs = Jobs()
        self.sessions = sessions
        self.max_upload = max_upload

    # ------------------------------------------------------------------ helpers
    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        session = request.scope.get("state", {}).get("session")
        context.setdefault("error", None)
        context.setdefault("project", None)
        return TEMPLATES.TemplateResponse(
            request, name, {"csrf": self.sessions.csrf_of(session) or "", **context},
            status_code=status,
        )  # fmt: skip

    async def form(self, request: Request, *, files: int = 0, fields: int = 200) -> Any:
        """The request's form, after its CSRF token was checked (403 otherwise)."""
        size = request.headers.get("content-length")
        if size is None:
            raise HTTPError(411, "the form was sent without its length")
        if not size.isdigit():
            raise HTTPError(400, "the form's length is not a number")
        if int(size) > self.max_upload + 64 * 1024:
            limit = self.max_upload / 2**20
            raise HTTPError(413, f"the upload is larger than this server takes ({limit:,.0f} MB; "
                             "start it with --max-upload-mb to take more)")  # fmt: skip
        form = await request.form(max_files=files, max_fields=fields)
        session = request.scope.get("state", {}).get("session")
        if not check_csrf(self.sessions, session, form.get("csrf")):
            raise HTTPError(403, "this form has expired or did not come from this app: reload it")
        return form

    def project(self, request: Request) -> Project:
        return self.projects.get(request.path_params["project"])

    # ------------------------------------------------------------------ home and load
    async def home(self, request: Request) -> Response:
        from anonlab import datasets

        projects = [(p, self.jobs.status(p)) for p in self.projects]
        return self.render(request, "home.html", projects=projects, datasets=datasets.names(),
                           max_mb=self.max_upload / 2**20)  # fmt: skip

    async def upload(self, request: Request) -> Response:
        form = await self.form(request, files=1)
        file = form.get("file")
        if not isinstance(file, UploadFile) or not file.filename:
            return await self._home_error(request, "choose a CSV or Parquet file to upload")
        if file.size is not None and file.size > self.max_upload:
            limit = self.max_upload / 2**20
            raise HTTPError(413, f"the upload is larger than this server takes ({limit:,.0f} MB; "
                             "start it with --max-upload-mb to take more)")  # fmt: skip
        name = Path(file.filename).name
        suffix = Path(name).suffix.lower()
        suffix = ".parquet" if suffix == ".pq" else suffix
        if suffix not in (".csv", ".parquet"):
            return await self._home_error(
                request, f"{name!r}: upload a .csv file (with a header row) or a .parquet file"
            )
        project = self.projects.create(name, suffix, "upload")
        try:
            with open(project.data, "wb") as out:
                shutil.copyfileobj(file.file, out, length=1 << 20)
            _check_content(project.data, name)
        except AnonlabError as exc:
            shutil.rmtree(project.folder, ignore_errors=True)
            return await self._home_error(request, str(exc))
        self._start_init(project)
        return RedirectResponse(f"/p/{project.id}", status_code=303)

    async def dataset(self, request: Request) -> Response:
        from anonlab import datasets

        form = await self.form(request)
        name = str(form.get("dataset") or "")
        if name not in datasets.names():
            return await self._home_error(
                request, f"dataset: choose one of {', '.join(datasets.names())}"
            )
        project = self.projects.create(f"{name} (bundled)", ".parquet", f"dataset:{name}")
        datasets.load_frame(name).to_parquet(project.data, index=False)
        self._start_init(project, dataset=name)
        return RedirectResponse(f"/p/{project.id}", status_code=303)

    async def _home_error(self, request: Request, message: str) -> Response:
        from anonlab import datasets

        projects = [(p, self.jobs.status(p)) for p in self.projects]
        return self.render(request, "home.html", status=400, error=message, projects=projects,
                           datasets=datasets.names(), max_mb=self.max_upload / 2**20)  # fmt: skip

    def _start_init(self, project: Project, dataset: str | None = None) -> None:
        """``anonlab init`` drafts the schema; for a bundled dataset, its catalog's roles and
        hierarchies then replace the guesses."""

        def done(folder: Path) -> None:
            summary = json.loads((folder / "stdout-0.txt").read_text(encoding="utf-8"))
            write_json(project.folder / "init.json", summary)
            if dataset is not None:
                _dataset_schema(project, dataset)

        self.jobs.start(
            project, "init",
            [["init", project.data.name, "--out", "schema.json", "--force", "--json"]],
            label="reading the data and drafting its schema", on_success=done,
        )  # fmt: skip

    # ------------------------------------------------------------------ project
    async def overview(self, request: Request) -> Response:
        project = self.project(request)
        releases = [
            (r, read_json(project.folder / "releases" / r / "manifest.json") or {},
             read_json(project.folder / "releases" / r / "audit.json"))
            for r in project.releases()
        ]  # fmt: skip
        return self.render(request, "project.html", project=project,
                           job=self.jobs.status(project), releases=releases,
                           schema=project.schema)  # fmt: skip

    async def job(self, request: Request) -> Response:
        return JSONResponse(self.jobs.status(self.project(request)))

    async def cancel(self, request: Request) -> Response:
        project = self.project(request)
        await self.form(request)
        self.jobs.cancel(project)
        return RedirectResponse(f"/p/{project.id}", status_code=303)

    # ------------------------------------------------------------------ schema
    async def schema(self, request: Request) -> Response:
        project = self.project(request)
        return self._schema_page(request, project)

    def _schema_page(self, request: Request, project: Project, error: str | None = None,
                     schema: dict | None = None, status: int = 200) -> Response:  # fmt: skip
        from anonlab.app.profile import column_profile

        schema = schema or project.schema
        if schema is None:
            return RedirectResponse(f"/p/{project.id}", status_code=303)
        init = {c["name"]: c for c in (project.init_summary or {}).get("columns", [])}
        return self.render(
            request, "schema.html", status=status, project=project, schema=schema, init=init,
            profile=column_profile(project), roles=forms.ROLES, types=forms.TYPES, error=error,
        )  # fmt: skip

    async def save_schema(self, request: Request) -> Response:
        from anonlab.schema_file import validate_schema_file

        project = self.project(request)
        columns = len((project.schema or {}).get("columns", []))
        form = await self.form(request, fields=2 * columns + 8)
        schema = project.schema
        if schema is None:
            return RedirectResponse(f"/p/{project.id}", status_code=303)
        try:
            new = forms.edit_schema(schema, form)
            validate_schema_file(new, "the schema")
        except AnonlabError as exc:
            return self._schema_page(request, project, str(exc), schema=None, status=400)
        write_json(project.schema_path, new)
        return RedirectResponse(f"/p/{project.id}/hierarchies", status_code=303)

    # ------------------------------------------------------------------ hierarchies
    async def hierarchies(self, request: Request) -> Response:
        return self._hierarchies_page(request, self.project(request))

    def _hierarchies_page(self, request: Request, project: Project, *, preview: dict | None = None,
                          error: str | None = None, status: int = 200,
                          previewed: tuple[int, Any] | None = None) -> Response:  # fmt: skip
        from anonlab.hierarchy_builders import BUILDERS

        schema = project.schema
        if schema is None:
            return RedirectResponse(f"/p/{project.id}", status_code=303)
        columns = [
            (i, c) for i, c in enumerate(schema["columns"]) if c.get("role") == "quasi-identifier"
        ]
        builders = [b for b in BUILDERS if b != "mapping"]  # a mapping is uploaded as a file
        return self.render(request, "hierarchies.html", status=status, project=project,
                           columns=columns, builders=builders, preview=preview,
                           error=error, previewed=previewed)  # fmt: skip

    def _column(self, request: Request, project: Project) -> tuple[int, dict]:
        index = int(check_id("column", request.path_params["column"]))
        columns = (project.schema or {}).get("columns", [])
        if index >= len(columns):
            raise NotFound(f"no column {index}")
        return index, columns[index]

    async def hierarchy(self, request: Request) -> Response:
        """Preview or use a builder for one column (``action``: preview, use, none)."""
        from anonlab.hierarchy_builders import BUILDERS

        project = self.project(request)
        index, column = self._column(request, project)
        form = await self.form(request)
        action = form.get("action")
        if action not in ("preview", "use", "none", "value-sets"):
            raise HTTPError(400, f"action: preview, use, none or value-sets, not {action!r}")
        try:
            if action in ("none", "value-sets"):
                hierarchy = None
            else:
                builder = str(form.get("builder") or "")
                if builder not in BUILDERS or builder == "mapping":
                    raise forms.FormError(
                        f"builder: choose one of {', '.join(b for b in BUILDERS if b != 'mapping')}"
                    )
                params = forms.parse_builder_params(str(form.get("params") or ""))
                hierarchy = {"builder": builder, **params}
            new = forms.with_hierarchy(project.schema, index, hierarchy)
            if action == "value-sets":  # published as each group's set of values, knowingly
                new["columns"][index]["value_sets"] = True
            preview = _build_preview(project, new, column["name"]) if hierarchy else None
        except AnonlabError as exc:
            message = f"{column['name']}: {_shown(project, exc)}"
            return self._hierarchies_page(request, project, error=message, status=400)
        if action == "preview":
            return self._hierarchies_page(request, project, preview=preview,
                                          previewed=(index, hierarchy))  # fmt: skip
        write_json(project.schema_path, new)
        return RedirectResponse(f"/p/{project.id}/hierarchies#column-{index}", status_code=303)

    async def hierarchy_upload(self, request: Request) -> Response:
        """Use an uploaded file for one column: an ARX-format hierarchy (``kind=arx``) or a
        mapping table for the ``mapping`` builder (``kind=mapping``: a header, the value column
        first, then one column per level, comma-separated)."""
        project = self.project(request)
        index, column = self._column(request, project)
        form = await self.form(request, files=1)
        file = form.get("file")
        kind = form.get("kind", "arx")
        if kind not in ("arx", "mapping"):
            raise HTTPError(400, f"kind: 'arx' or 'mapping', not {kind!r}")
        if not isinstance(file, UploadFile) or not file.filename:
            what = "an ARX hierarchy file" if kind == "arx" else "a mapping file"
            return self._hierarchies_page(
                request, project, error=f"{column['name']}: choose {what} (.csv)", status=400
            )  # fmt: skip
        project.hierarchy_folder.mkdir(exist_ok=True)
        target = project.hierarchy_file(index)
        if kind == "mapping":
            target = target.with_name(f"m{index}.csv")
        staged = target.with_name(target.name + ".upload")
        with open(staged, "wb") as out:
            shutil.copyfileobj(file.file, out, length=1 << 20)
        relative = f"hierarchies/{target.name}"
        hierarchy = relative if kind == "arx" else {"builder": "mapping", "file": relative}
        try:
            _check_content(staged, file.filename, csv_only=True)
            trial = f"hierarchies/{staged.name}"
            trial = trial if kind == "arx" else {"builder": "mapping", "file": trial}
            new = forms.with_hierarchy(project.schema, index, trial)
            preview = _build_preview(project, new, column["name"])
            new = forms.with_hierarchy(project.schema, index, hierarchy)
            staged.replace(target)
        except AnonlabError as exc:
            staged.unlink(missing_ok=True)
            message = f"{column['name']}: {_shown(project, exc)}"
            return self._hierarchies_page(request, project, error=message, status=400)
        write_json(project.schema_path, new)
        return self._hierarchies_page(request, project, preview=preview)

    # ------------------------------------------------------------------ anonymize
    async def anonymize_page(self, request: Request) -> Response:
        project = self.project(request)
        return self._anonymize_page(request, project)

    def _anonymize_page(self, request: Request, project: Project, error: str | None = None,
                        status: int = 200) -> Response:  # fmt: skip
        schema = project.schema or {"columns": []}
        sensitive = [c["name"] for c in schema["columns"] if c.get("role") == "sensitive"]
        return self.render(
            request, "anonymize.html", status=status, project=project, error=error,
            algorithms=forms.ALGORITHMS, several=forms.SEVERAL_SENSITIVE, sensitive=sensitive,
            models=list(forms.LATTICE_MODELS), metrics=forms.METRICS, schemes=forms.SCHEMES,
            formats=forms.PUBLISHED_FORMATS,
            job=self.jobs.status(project),
        )  # fmt: skip

    async def anonymize(self, request: Request) -> Response:
        project = self.project(request)
        form = await self.form(request)
        release = project.next_release()
        try:
            argv, asked = forms.anonymize_argv(form, project.data.name, f"releases/{release}")
            (project.folder / "releases").mkdir(exist_ok=True)
            self.jobs.start(project, "anonymize", [argv],
                            label=f"anonymizing with {asked['algorithm']} → {release}")  # fmt: skip
            write_json(project.folder / "releases" / f"{release}.request.json", asked)
        except AnonlabError as exc:
            return self._anonymize_page(request, project, str(exc), status=400)
        return RedirectResponse(f"/p/{project.id}", status_code=303)

    # ------------------------------------------------------------------ release and audit
    async def release(self, request: Request) -> Response:
        project = self.project(request)
        rid = request.path_params["release"]
        folder = project.release_folder(rid)
        manifest = read_json(folder / "manifest.json") or {}
        audit = read_json(folder / "audit.json")
        published = sorted(p.name for p in (folder / "published").iterdir())
        return self.render(request, "release.html", project=project, release=rid,
                           manifest=manifest, audit=audit, published=published,
                           request_=project.request_of(rid), job=self.jobs.status(project),
                           files={k: (folder / v[0]).is_file()
                                  for k, v in RELEASE_FILES.items()})  # fmt: skip

    async def audit(self, request: Request) -> Response:
        project = self.project(request)
        rid = request.path_params["release"]
        project.release_folder(rid)
        form = await self.form(request)
        target = f"releases/{rid}"
        try:
            self.jobs.start(project, "audit", [forms.audit_argv(form, target)],
                            label=f"auditing {rid}")  # fmt: skip
        except AnonlabError as exc:
            return await self._release_error(request, project, rid, str(exc))
        return RedirectResponse(f"/p/{project.id}/r/{rid}", status_code=303)

    async def _release_error(self, request, project, rid, message):
        return self.render(request, "error.html", status=400, project=project, error=message,
                           back=f"/p/{project.id}/r/{rid}")  # fmt: skip

    async def release_file(self, request: Request) -> Response:
        project = self.project(request)
        rid = request.path_params["release"]
        folder = project.release_folder(rid)
        name = request.path_params["name"]
        if name not in RELEASE_FILES:
            raise NotFound(f"no file {name!r}")
        file, media, inline = RELEASE_FILES[name]
        path = folder / file
        if not path.is_file():
            raise NotFound(f"{rid} has no {file} yet: audit it first")
        if inline:
            return Response(path.read_bytes(), media_type=f"{media}; charset=utf-8",
                            headers={"content-security-policy": REPORT_POLICY})  # fmt: skip
        return FileResponse(path, media_type=media, filename=f"{rid}-{file}",
                            headers={"content-security-policy": REPORT_POLICY})  # fmt: skip

    async def published_zip(self, request: Request) -> Response:
        """The published files, as they are released (the export's own bytes), zipped. The
        zip is written to disk once, beside the release (a release never changes), and sent
        from there: a 10M-record release's files are hundreds of MB, not for memory."""
        project = self.project(request)
        rid = request.path_params["release"]
        folder = project.release_folder(rid) / "published"
        archive_path = folder.parent.parent / f"{rid}.published.zip"
        if not archive_path.is_file():
            staged = archive_path.with_name(archive_path.name + ".part")
            with zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in sorted(folder.iterdir()):
                    if path.is_file():
                        archive.write(path, path.name)
            staged.replace(archive_path)  # atomic: a reader sees the whole zip or none
        return FileResponse(archive_path, media_type="application/zip",
                            filename=f"{rid}-published.zip")  # fmt: skip

    async def rerun_zip(self, request: Request) -> Response:
        """The schema and hierarchies, with the command lines that rerun the project's releases
        from a terminal (README.txt)."""
        project = self.project(request)
        buffer = io.BytesIO()
        lines = [
            "Rerun this project from a terminal, in a folder holding these files and the data",
            f"file (here named {project.data.name}; the original: {project.info.get('name')}):",
            "",
        ]
        for rid in project.releases():
            job = _job_of(project, rid)
            if job:
                lines.append("anonlab " + " ".join(_quote(a) for a in job))
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(project.schema_path, "schema.json")
            if project.hierarchy_folder.is_dir():
                for path in sorted(project.hierarchy_folder.glob("h*.csv")):
                    archive.write(path, f"hierarchies/{path.name}")
            archive.writestr("README.txt", "\n".join(lines) + "\n")
        return Response(buffer.getvalue(), media_type="application/zip",
                        headers={"content-disposition":
                                 f'attachment; filename="{project.id}-schema.zip"'})  # fmt: skip

    # ------------------------------------------------------------------ compare
    async def compare_page(self, request: Request) -> Response:
        return self._compare_page(request, self.project(request))

    def _compare_page(self, request: Request, project: Project, error: str | None = None,
                      status: int = 200) -> Response:  # fmt: skip
        from anonlab.app.frontier import frontier_svg

        result = read_json(project.compare_folder / "compare.json")
        rows = (result or {}).get("rows", [])
        names = {r.get("name") for r in rows}

        def link(row: dict) -> str:
            return f"/p/{project.id}/compare/{urllib.parse.quote(str(row['name']))}/report"

        return self.render(
            request, "compare.html", status=status, project=project, error=error, rows=rows,
            result=result, algorithms=forms.COMPARE_ALGORITHMS,
            frontier=frontier_svg(rows, link) if result else "", names=names,
            job=self.jobs.status(project),
        )  # fmt: skip

    async def compare(self, request: Request) -> Response:
        project = self.project(request)
        form = await self.form(request)
        try:
            argv = forms.compare_argv(form, project.data.name)
            self.jobs.start(project, "compare", [argv], label="comparing algorithms")
        except AnonlabError as exc:
            return self._compare_page(request, project, str(exc), status=400)
        return RedirectResponse(f"/p/{project.id}/compare", status_code=303)

    async def compare_report(self, request: Request) -> Response:
        project = self.project(request)
        name = request.path_params["name"]
        rows = (read_json(project.compare_folder / "compare.json") or {}).get("rows", [])
        if name not in {r.get("name") for r in rows if r.get("status") == "ok"}:
            raise NotFound(f"no release {name!r} in the comparison")
        path = project.compare_folder / name / "audit.html"
        if not path.is_file() or path.resolve().parent.parent != project.compare_folder.resolve():
            raise NotFound(f"no audit of {name!r}")
        return Response(path.read_bytes(), media_type="text/html; charset=utf-8",
                        headers={"content-security-policy": REPORT_POLICY})  # fmt: skip


class HTTPError(Exception):
    """A request refused with an HTTP status and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _check_content(path: Path, shown: str, *, csv_only: bool = False) -> None:
    """Refuse a file that is not what its name says: Parquet starts and ends with ``PAR1``;
    a CSV is UTF-8 text without NUL bytes (checked on its first MiB; the reader checks the
    rest, naming the line)."""
    with open(path, "rb") as fh:
        head = fh.read(1 << 20)
        if path.suffix == ".parquet" and not csv_only:
            size = path.stat().st_size
            fh.seek(max(size - 4, 0))
            tail = fh.read(4)
            if size < 12 or head[:4] != b"PAR1" or tail != b"PAR1":
                raise AnonlabError(f"{shown!r} is not a Parquet file (no PAR1 marker)")
            return
    if not head.strip():
        raise AnonlabError(f"{shown!r} is empty")
    if b"\x00" in head:
        raise AnonlabError(f"{shown!r} is not a text file (it holds NUL bytes): upload a CSV")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        cut = len(head) == 1 << 20 and exc.reason == "unexpected end of data"
        if not cut:  # not merely a character cut at the 1 MiB boundary
            raise AnonlabError(
                f"{shown!r} is not UTF-8 text (byte {exc.start}): save it as UTF-8 CSV"
            ) from None


def _shown(project: Project, exc: Exception) -> str:
    """An error's message with the project's folder left out of the paths it names (the page
    shows ``schema.json``, not where the server keeps it)."""
    return str(exc).replace(str(project.folder) + "/", "")


def _build_preview(project: Project, schema: dict, column: str) -> dict:
    """Levels and first rows of ``column``'s hierarchy under ``schema``, built as the CLI
    builds it (:meth:`anonlab.schema_file.SchemaFile.hierarchies` on the column's distinct
    values, read as ``anonlab hierarchy build`` reads them)."""
    from anonlab.cli.hierarchy import read_column_values, summary
    from anonlab.schema_file import validate_schema_file

    spec = validate_schema_file(schema, str(project.schema_path))
    values, missing = read_column_values(project.data, column)
    built = spec.hierarchies({column: values})
    built[column].leaf_index(values, column)  # a file must cover every value, as loading checks
    info = summary(built[column], 8)
    info.update(column=column, missing=missing)
    return info


def _dataset_schema(project: Project, name: str) -> None:
    """A bundled dataset's schema: its catalog's quasi-identifiers and sensitive attribute,
    its default hierarchies written as files; the other columns left out (role ``drop``)."""
    from anonlab import datasets

    info = datasets.info(name)
    hierarchies = datasets.load_hierarchies(name)
    schema = project.schema
    project.hierarchy_folder.mkdir(exist_ok=True)
    for i, column in enumerate(schema["columns"]):
        column.pop("value_sets", None)
        column.pop("note", None)
        if column["name"] in info.default_qi:
            column["role"] = "quasi-identifier"
            if column["name"] in hierarchies:
                path = project.hierarchy_file(i)
                path.write_text(hierarchies[column["name"]].to_csv(), encoding="utf-8")
                column["hierarchy"] = f"hierarchies/{path.name}"
        elif column["name"] == info.default_sensitive:
            column["role"] = "sensitive"
            column["hierarchy"] = None
        else:
            column["role"] = "drop"
            column.pop("hierarchy", None)
    schema["note"] = (f"The bundled dataset {name}: its catalog's roles and "
                      f"{info.default_hierarchy_set} hierarchies.")  # fmt: skip
    write_json(project.schema_path, schema)


def _job_of(project: Project, release: str) -> list[str] | None:
    """The ``anonlab anonymize`` argv that made ``release`` (from its job's record)."""
    jobs = project.folder / "jobs"
    for folder in sorted(jobs.iterdir() if jobs.is_dir() else [], key=lambda p: p.name):
        job = read_json(folder / "job.json") or {}
        for step in job.get("steps", []):
            if step[:1] == ["anonymize"] and f"releases/{release}" in step:
                return [a if a != f"releases/{release}" else release for a in step]
    return None


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)
