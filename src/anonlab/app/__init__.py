"""``anonlab serve``: the whole workflow in a local web app.

A publisher goes from a file to a release they can defend without a terminal: load a CSV or
Parquet file (or a bundled dataset), review the inferred schema, choose hierarchies, anonymize,
read the audit's verdict, compare algorithms on the privacy–utility frontier, download the
published files and the reports. docs/app.md walks through it with screenshots.

Modules: :mod:`~anonlab.app.security` (token, session, CSRF, host check, headers),
:mod:`~anonlab.app.projects` (a project's folder on disk), :mod:`~anonlab.app.jobs` (the CLI's
commands run as child processes, with progress), :mod:`~anonlab.app.forms` (what a form means,
as command lines and schema edits), :mod:`~anonlab.app.pages` (the handlers),
:mod:`~anonlab.app.profile` and :mod:`~anonlab.app.frontier` (what two pages draw),
:mod:`~anonlab.app.server` (starting it). Needs the extra ``anonlab[app]`` (Starlette, uvicorn,
Jinja2, python-multipart).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from anonlab.app.security import Sessions

__all__ = ["create_app", "Sessions"]

DEFAULT_MAX_UPLOAD = 500 * 2**20


def create_app(
    workdir: str | Path,
    sessions: Sessions,
    hosts: Iterable[str],
    *,
    max_upload: int = DEFAULT_MAX_UPLOAD,
):
    """The ASGI app: projects under ``workdir``, logins through ``sessions``' one-time token,
    answering only requests whose Host header is one of ``hosts`` (``"127.0.0.1:8765"``),
    uploads up to ``max_upload`` bytes."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from anonlab.app.jobs import Busy
    from anonlab.app.pages import App, HTTPError
    from anonlab.app.projects import NotFound
    from anonlab.app.security import Guard

    state = App(Path(workdir), sessions, max_upload)
    P = "/p/{project}"
    routes = [
        Route("/", state.home),
        Route("/projects/upload", state.upload, methods=["POST"]),
        Route("/projects/dataset", state.dataset, methods=["POST"]),
        Route(P, state.overview),
        Route(P + "/job", state.job),
        Route(P + "/job/cancel", state.cancel, methods=["POST"]),
        Route(P + "/schema", state.schema),
        Route(P + "/schema", state.save_schema, methods=["POST"]),
        Route(P + "/hierarchies", state.hierarchies),
        Route(P + "/hierarchies/{column}", state.hierarchy, methods=["POST"]),
        Route(P + "/hierarchies/{column}/upload", state.hierarchy_upload, methods=["POST"]),
        Route(P + "/anonymize", state.anonymize_page),
        Route(P + "/anonymize", state.anonymize, methods=["POST"]),
        Route(P + "/r/{release}", state.release),
        Route(P + "/r/{release}/audit", state.audit, methods=["POST"]),
        Route(P + "/r/{release}/published.zip", state.published_zip),
        Route(P + "/r/{release}/file/{name}", state.release_file),
        Route(P + "/schema.zip", state.rerun_zip),
        Route(P + "/compare", state.compare_page),
        Route(P + "/compare", state.compare, methods=["POST"]),
        Route(P + "/compare/{name}/report", state.compare_report),
        Mount(
            "/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="static"
        ),  # fmt: skip
    ]

    def page(request: Request, status: int, message: str):
        if "text/html" not in request.headers.get("accept", ""):
            return PlainTextResponse(message + "\n", status_code=status)
        return state.render(request, "error.html", status=status, error=message, back="/")

    async def not_found(request: Request, exc: Exception):
        return page(request, 404, str(exc) if isinstance(exc, NotFound) else "no such page")

    async def http_error(request: Request, exc: HTTPError):
        return page(request, exc.status, str(exc))

    async def busy(request: Request, exc: Busy):
        return page(request, 409, str(exc))

    async def bad_path(request: Request, exc: Exception):
        return page(request, 405, "this address does not take that request")

    app = Starlette(
        routes=routes,
        exception_handlers={
            NotFound: not_found,
            404: not_found,
            HTTPError: http_error,
            Busy: busy,
            405: bad_path,
        },  # fmt: skip
    )
    app.state.anonlab = state
    return Guard(app, sessions, hosts)
