"""The guard of ``anonlab serve`` through Starlette's TestClient: login by one-time token, the
session cookie, the Host check (DNS rebinding), CSRF on every POST route, the security headers,
ids and file names that never become paths, and uploads that are refused before anything is
left in the work folder.

Most tests run against one project written on disk by hand (a schema, a release with its
audit files, a comparison): no CLI job runs, so each test is quick; the uploads run the real
``anonlab init`` job where one is accepted.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import anonlab_app_test_support as _support  # tests/app/conftest.py
import pytest
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from anonlab.app import Sessions, create_app
from anonlab.app.pages import RELEASE_FILES
from anonlab.app.projects import Project, write_json
from anonlab.app.security import COOKIE, PAGE_POLICY, REPORT_POLICY

LoggedIn = _support.LoggedIn
write_discharges = _support.write_discharges

CANARY = "CANARY-7f3a-must-never-be-served"
COLUMNS = ["patient_id", "zip", "birth_date", "sex", "icd10", "insurer", "stay"]
SCHEMA = {
    "format": "anonlab-schema",
    "format_version": 1,
    "columns": [
        {"name": "patient_id", "role": "identifier"},
        {
            "name": "zip",
            "role": "quasi-identifier",
            "type": "text",
            "hierarchy": {"builder": "prefix"},
        },
        {
            "name": "birth_date",
            "role": "quasi-identifier",
            "type": "date",
            "hierarchy": {"builder": "date", "levels": ["month", "year"]},
        },
        {"name": "sex", "role": "quasi-identifier", "hierarchy": {"builder": "suppress"}},
        {"name": "icd10", "role": "sensitive"},
        {"name": "insurer", "role": "sensitive"},
        {"name": "stay", "role": "insensitive"},
    ],
}


# ---------------------------------------------------------------------------- fixtures


@dataclass
class Site:
    """A logged-in client over a work folder holding one project written by hand: a schema,
    release r1 (audited), and a comparison with one ok row."""

    logged: object  # LoggedIn
    project: Project
    root: Path  # holds the work folder and, beside it, a secret file

    @property
    def client(self) -> TestClient:
        return self.logged.client

    @property
    def csrf(self) -> str:
        return self.logged.csrf

    @property
    def guard(self):
        return self.logged.app

    @property
    def work(self) -> Path:
        return self.root / "work"


def _fabricate(project: Project) -> None:
    """A project as the jobs would leave it: data, schema, release r1 with its audit files, a
    comparison; every file that must not be served holds the canary."""
    write_discharges(project.data, 40)
    write_json(project.schema_path, SCHEMA)
    release = project.folder / "releases" / "r1"
    (release / "published").mkdir(parents=True)
    (release / "published" / "generalized.csv").write_text("zip,stay\n010**,3\n", "utf-8")
    (release / "publisher").mkdir()
    (release / "publisher" / "export-key").write_text(CANARY, "utf-8")
    (release / "publisher" / "records.parquet").write_text(CANARY, "utf-8")
    write_json(
        release / "manifest.json",
        {
            "algorithm": "mondrian",
            "parameters": {"k": 5},
            "rows": 40,
            "groups": 4,
            "scheme": "generalization",
            "note": CANARY,
        },
    )
    (release / "audit.html").write_text("<html><body><h1>internal</h1></body></html>", "utf-8")
    (release / "audit-redacted.html").write_text("<html><body>shareable</body></html>", "utf-8")
    write_json(
        release / "audit.json",
        {
            "decision": {"release": False, "summary": "Do not release", "next_steps": ["raise l"]},
            "findings": [
                {
                    "key": "definetti/icd10",
                    "title": "deFinetti",
                    "verdict": "at risk",
                    "at_risk": 3,
                    "considered": 40,
                    "headline": "3 of 40",
                }
            ],
        },
    )
    write_json(release / "audit-redacted.json", {"redacted": True})
    (release / "at-risk.csv").write_text("row\n3\n", "utf-8")
    write_json(project.folder / "releases" / "r1.request.json", {"algorithm": "mondrian"})
    compare = project.compare_folder
    row = {
        "status": "ok",
        "reason": None,
        "at_risk_share": 0.1,
        "strongest_attack": "definetti",
        "query_error": 0.2,
        "groups": 4,
        "meets_thresholds": False,
        "pareto": True,
    }
    write_json(
        compare / "compare.json",
        {
            "rows": [
                {**row, "name": "mondrian-l2"},
                {
                    **row,
                    "name": "anatomy-l2",
                    "status": "failed",
                    "reason": "one sensitive",
                    "at_risk_share": None,
                    "query_error": None,
                },
            ],
            "recommended": None,
        },
    )
    for name in ("mondrian-l2", "anatomy-l2", "extra"):
        (compare / name).mkdir()
        text = "<html>compare report</html>" if name == "mondrian-l2" else CANARY
        (compare / name / "audit.html").write_text(text, "utf-8")
    (project.folder / "audit.html").write_text(CANARY, "utf-8")  # compare/../audit.html


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Site:
    root = tmp_path_factory.mktemp("security")
    (root / "secret.txt").write_text(CANARY, "utf-8")  # beside the work folder
    logged = LoggedIn(root / "work")
    state = logged.app.app.state.anonlab
    project = state.projects.create("discharges.csv", ".csv", "upload")
    _fabricate(project)
    return Site(logged, project, root)


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (to show a refused request changed nothing)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _routes(guard, method: str) -> list[str]:
    """The paths of the app's routes that take ``method`` (from the router itself, so a route
    added later is covered)."""
    routes = [r.path for r in guard.app.routes if isinstance(r, Route) and method in r.methods]
    assert routes, f"no {method} route found: does create_app still return the Guard?"
    return routes


def _fill(path: str, project: str) -> str:
    values = {"project": project, "release": "r1", "column": "1"}
    if path.endswith("/file/{name}"):
        values["name"] = "report"
    elif "/compare/{name}" in path:
        values["name"] = "mondrian-l2"
    return path.format(**values)


def _get_paths(site: Site) -> list[str]:
    paths = [_fill(p, site.project.id) for p in _routes(site.guard, "GET")]
    mounts = [r.path for r in site.guard.app.routes if isinstance(r, Mount)]
    assert "/static" in mounts
    return paths + ["/static/app.js", "/static/app.css"]


def _error(text: str) -> str | None:
    import html

    m = re.search(r'id="error"[^>]*>(.*?)</p>', text, re.S)
    return html.unescape(m.group(1)) if m else None


HTML = {"accept": "text/html"}


# ---------------------------------------------------------------------------- login and session


def _fresh(tmp_path: Path) -> tuple[Sessions, TestClient]:
    sessions = Sessions()
    app = create_app(tmp_path / "work", sessions, {"testserver"})
    return sessions, TestClient(app)


def test_every_get_route_answers_with_the_cookie(site):
    session = site.client.cookies[COOKIE]
    for path in _get_paths(site):
        r = site.client.get(path)
        assert r.status_code == 200, (path, r.status_code, r.text[:300])
        assert session not in r.text  # the session id is never in a page (HttpOnly is for it)


def test_no_cookie_401_on_every_get_route(site):
    bare = TestClient(site.guard)
    for path in _get_paths(site) + ["/p/000000000000", "/nowhere"]:
        r = bare.get(path, headers=HTML)
        assert r.status_code == 401, (path, r.status_code)
        assert "token" in r.text and CANARY not in r.text
        r = bare.get(path, cookies={COOKIE: "forged-" + "x" * 40})
        assert r.status_code == 401, (path, "forged cookie")
        r = bare.get(path, headers={"cookie": f'{COOKIE}=\x7f;;;="unterminated'})
        assert r.status_code == 401, (path, "malformed cookie")


def test_no_cookie_401_on_every_post_route(site):
    bare = TestClient(site.guard)
    before = _snapshot(site.work)
    for path in _routes(site.guard, "POST"):
        r = bare.post(_fill(path, site.project.id), data={"csrf": site.csrf})
        assert r.status_code == 401, (path, r.status_code)
    assert _snapshot(site.work) == before


def test_the_login_token_works_once(tmp_path):
    sessions, client = _fresh(tmp_path)
    r = client.get("/login?token=" + "A" * len(sessions.token), follow_redirects=False)
    assert r.status_code == 403 and "set-cookie" not in r.headers
    assert client.get("/login", follow_redirects=False).status_code == 403  # no token
    assert client.get("/login?token=", follow_redirects=False).status_code == 403
    r = client.get(f"/login?token={sessions.token}", follow_redirects=False)
    assert r.status_code == 303  # the wrong tries did not spend it
    assert r.headers["location"] == "/"  # the token leaves the address bar
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers["cache-control"] == "no-store"
    cookie = r.cookies
    r2 = client.get(f"/login?token={sessions.token}", follow_redirects=False)
    assert r2.status_code == 403 and "set-cookie" not in r2.headers
    client.cookies = cookie
    assert client.get("/").status_code == 200
    other = TestClient(client.app)  # another browser with the spent link
    assert other.get(f"/login?token={sessions.token}", follow_redirects=False).status_code == 403
    assert other.get("/").status_code == 401


def test_the_session_cookie_is_httponly_and_samesite_strict(tmp_path):
    sessions, client = _fresh(tmp_path)
    r = client.get(f"/login?token={sessions.token}", follow_redirects=False)
    header = r.headers["set-cookie"]
    parts = [p.strip() for p in header.split(";")]
    name, _, value = parts[0].partition("=")
    assert name == COOKIE and len(value) >= 32
    flags = {p.split("=")[0].lower(): (p.split("=", 1)[1] if "=" in p else True) for p in parts[1:]}
    assert flags.get("httponly") is True
    assert flags.get("samesite", "").lower() == "strict"
    assert flags.get("path") == "/"
    assert value != sessions.token and sessions.token not in header


# ---------------------------------------------------------------------------- host header


@pytest.mark.parametrize(
    "host", ["evil.example", "testserver:8080", "testserver.evil.example", "127.0.0.1", ""]
)
def test_another_host_gets_421_even_with_a_valid_cookie(site, host):
    before = _snapshot(site.work)
    r = site.client.get("/", headers={"host": host})
    assert r.status_code == 421
    assert CANARY not in r.text and site.csrf not in r.text
    r = site.client.get(f"/p/{site.project.id}/r/r1/file/report", headers={"host": host})
    assert r.status_code == 421
    r = site.client.post(
        f"/p/{site.project.id}/job/cancel", data={"csrf": site.csrf}, headers={"host": host}
    )
    assert r.status_code == 421
    assert _snapshot(site.work) == before


def test_a_login_at_another_host_does_not_spend_the_token(tmp_path):
    sessions, client = _fresh(tmp_path)
    r = client.get(
        f"/login?token={sessions.token}", headers={"host": "evil.example"}, follow_redirects=False
    )
    assert r.status_code == 421 and "set-cookie" not in r.headers
    assert not sessions.spent
    r = client.get(f"/login?token={sessions.token}", follow_redirects=False)
    assert r.status_code == 303


def test_the_host_check_ignores_only_case(site):
    assert site.client.get("/", headers={"host": "TestServer"}).status_code == 200


# ---------------------------------------------------------------------------- CSRF


def _post_variants(site: Site, path: str) -> list[tuple[str, dict]]:
    """Requests to ``path`` that lack a right CSRF token (each with the fields the route would
    otherwise take)."""
    fields = {
        "action": "preview",
        "builder": "prefix",
        "params": "",
        "algorithm": "mondrian",
        "k": "5",
        "l": "2",
        "algorithm-mondrian": "1",
        "dataset": "adult",
    }
    other = "t" * 43
    bad = {
        "missing": None,
        "wrong": "x" * 43,
        "empty": "",
        "another session's": other,
        "prefixed": site.csrf + "x",
        "truncated": site.csrf[:-1],
    }
    out = []
    for what, token in bad.items():
        data = dict(fields) if token is None else {**fields, "csrf": token}
        kwargs: dict = {"data": data}
        if path.endswith("upload"):
            kwargs["files"] = {"file": ("d.csv", b"a,b\n1,2\n", "text/csv")}
        out.append((what, kwargs))
    return out


def test_every_post_route_refuses_a_missing_or_wrong_csrf_token(site):
    sessions = site.logged.sessions.sessions
    sessions["another-session"] = "t" * 43  # another session's token is not ours
    try:
        _refuses_csrf(site)
    finally:
        del sessions["another-session"]


def _refuses_csrf(site: Site) -> None:
    posts = _routes(site.guard, "POST")
    for known in (
        "/projects/upload",
        "/projects/dataset",
        "/p/{project}/anonymize",
        "/p/{project}/r/{release}/audit",
        "/p/{project}/hierarchies/{column}/upload",
    ):
        assert known in posts
    before = _snapshot(site.work)
    failures = []
    for path in posts:
        url = _fill(path, site.project.id)
        for what, kwargs in _post_variants(site, path):
            r = site.client.post(url, follow_redirects=False, **kwargs)
            if r.status_code != 403:
                failures.append((path, what, r.status_code, r.text[:200]))
    assert not failures
    assert _snapshot(site.work) == before  # no project, job, schema or file was written
    assert site.client.get(f"/p/{site.project.id}/job").json()["state"] == "none"


def test_every_post_route_refuses_a_body_without_its_length(site):
    before = _snapshot(site.work)
    for path in _routes(site.guard, "POST"):

        def body():
            yield f"csrf={site.csrf}&action=preview&builder=prefix".encode()

        r = site.client.post(
            _fill(path, site.project.id),
            content=body(),
            follow_redirects=False,
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert r.status_code == 411, (path, r.status_code)
    assert _snapshot(site.work) == before


def test_a_post_from_another_origin_is_refused(site):
    before = _snapshot(site.work)
    for origin in ("http://evil.example", "null", "https://testserver", "http://testserver:81"):
        for path in _routes(site.guard, "POST"):
            kwargs: dict = {"data": {"csrf": site.csrf, "action": "preview", "builder": "prefix"}}
            if path.endswith("upload"):
                kwargs["files"] = {"file": ("d.csv", b"a,b\n1,2\n", "text/csv")}
            r = site.client.post(
                _fill(path, site.project.id),
                headers={"origin": origin},
                follow_redirects=False,
                **kwargs,
            )
            assert r.status_code == 403, (origin, path, r.status_code)
    assert _snapshot(site.work) == before
    # the app's own origin is fine (nothing runs: cancel answers with a redirect)
    r = site.client.post(
        f"/p/{site.project.id}/job/cancel",
        data={"csrf": site.csrf},
        headers={"origin": "http://testserver"},
        follow_redirects=False,
    )
    assert r.status_code == 303


def test_a_websocket_is_never_accepted(site):
    from starlette.websockets import WebSocketDisconnect

    bare = TestClient(site.guard)
    for client in (bare, site.client):
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect("/"):
                pass  # pragma: no cover


# ---------------------------------------------------------------------------- headers


def _directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0].lower()] = words[1:]
    return out


def test_pages_carry_the_security_headers(site):
    bare = TestClient(site.guard)
    reports = ("/file/", "/compare/mondrian-l2/report")
    answers = [(p, site.client.get(p, headers=HTML)) for p in _get_paths(site)]
    answers += [
        ("404 page", site.client.get("/p/000000000000", headers=HTML)),
        ("404 text", site.client.get("/nowhere")),
        ("401", bare.get("/")),
        ("421", site.client.get("/", headers={"host": "evil.example"})),
        ("403 csrf", site.client.post("/projects/dataset", data={"dataset": "adult"})),
        ("405", site.client.get("/projects/upload", headers=HTML)),
    ]
    for path, r in answers:
        policies = r.headers.get_list("content-security-policy")
        assert len(policies) == 1, (path, policies)
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["referrer-policy"] == "same-origin", path
        assert r.headers["cache-control"] == "no-store", path
        if any(mark in path for mark in reports):
            continue
        assert policies[0] == PAGE_POLICY, path
        d = _directives(policies[0])
        assert d["default-src"] == ["'none'"]
        assert d["script-src"] == ["'self'"], path  # no 'unsafe-inline', no 'unsafe-eval'
        assert d["frame-ancestors"] == ["'self'"] and d["base-uri"] == ["'none'"]
        assert not any("unsafe" in v for vs in d.values() for v in vs), path


def test_pages_hold_no_inline_script(site):
    for path in _get_paths(site):
        r = site.client.get(path)
        if r.headers["content-type"].startswith("text/html") and "/file/" not in path:
            scripts = re.findall(r"<script\b([^>]*)>", r.text)
            assert all('src="/static/' in s for s in scripts), (path, scripts)
            assert not re.search(r"<[^>]*\son[a-z]+\s*=", r.text), path  # no inline handlers


@pytest.mark.parametrize("name", list(RELEASE_FILES))
def test_reports_and_downloads_carry_the_report_policy(site, name):
    r = site.client.get(f"/p/{site.project.id}/r/r1/file/{name}")
    assert r.status_code == 200
    policy = r.headers["content-security-policy"]
    assert policy == REPORT_POLICY
    d = _directives(policy)
    assert "script-src" not in d and d["default-src"] == ["'none'"]
    assert "sandbox" in d and "allow-scripts" not in d["sandbox"]
    assert "allow-same-origin" not in d["sandbox"]
    assert r.headers["cache-control"] == "no-store"
    file, media, inline = RELEASE_FILES[name]
    assert r.headers["content-type"].startswith(media)
    if inline:
        assert "attachment" not in r.headers.get("content-disposition", "")
    else:
        assert r.headers["content-disposition"].startswith("attachment")


def test_the_compare_report_carries_the_report_policy(site):
    r = site.client.get(f"/p/{site.project.id}/compare/mondrian-l2/report")
    assert r.status_code == 200 and "compare report" in r.text
    assert r.headers["content-security-policy"] == REPORT_POLICY


def test_zip_downloads_are_attachments(site):
    for path in (f"/p/{site.project.id}/r/r1/published.zip", f"/p/{site.project.id}/schema.zip"):
        r = site.client.get(path)
        assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
        assert r.headers["content-disposition"].startswith("attachment")
        assert r.headers["cache-control"] == "no-store"


# ---------------------------------------------------------------------------- ids and paths


def _bad_paths(pid: str, root: Path) -> list[str]:
    """Paths as the client sends them (httpx removes literal dot segments itself, so they are
    percent-encoded here; the server decodes them into the path it routes)."""
    secret = str(root / "secret.txt")
    long = "a" * 5000
    return [
        # projects
        "/p/%2e%2e",
        "/p/%2E%2E",
        "/p/%2e%2e/r/r1",
        "/p/..%2F..%2Fsecret.txt",
        f"/p/{pid.upper()}",
        f"/p/{pid}0",
        f"/p/{pid[:-1]}",
        f"/p/{long}",
        "/p/000000000000",
        f"/p/{pid}%00",
        f"/p/%2F{secret.lstrip('/')}",
        f"/p/{pid}%2F..%2F..%2Fsecret.txt",
        # releases
        *(
            f"/p/{pid}/r/{rid}"
            for rid in [
                "r0",
                "r01",
                "R1",
                "r2",
                "r1.request",
                "r1.request.json",
                "%2e%2e",
                "r" + "9" * 7,
                long,
                "r1%2F..",
                "r1%00",
                "%2Ftmp",
            ]
        ),
        f"/p/{pid}/r/%2e%2e/file/report",
        f"/p/{pid}/r/..%2Fr1/file/report",
        f"/p/{pid}/r/r2/published.zip",
        f"/p/{pid}/r/%2e%2e/published.zip",
        # release files: only the names of RELEASE_FILES
        *(
            f"/p/{pid}/r/r1/file/{name}"
            for name in [
                "manifest.json",
                "audit.html",
                "%2e%2e",
                "..%2Fmanifest.json",
                "publisher%2Fexport-key",
                "export-key",
                "REPORT",
                "report%20",
                "report.",
                f"%2F{secret.lstrip('/')}",
                "at-risk.csv%2F..",
                long,
                "records.parquet",
                "%2e%2e%2f%2e%2e%2f%2e%2e%2fsecret.txt",
            ]
        ),
        # comparison reports: only the ok rows of compare.json
        *(
            f"/p/{pid}/compare/{name}/report"
            for name in [
                "extra",
                "anatomy-l2",
                "%2e",
                "compare.json",
                "%2e%2e%2fcompare",
                long,
                "mondrian-l2%2F..%2F..%2Fanatomy-l2",
            ]
        ),
        # static files
        "/static/..%2F__init__.py",
        "/static/%2e%2e/pages.py",
        "/static/%2e%2e%2fsecurity.py",
        f"/static/{secret}",
        f"/static/%2F{secret.lstrip('/')}",
        "/static/",
    ]


def test_malformed_or_traversing_ids_give_404_and_read_nothing_outside(site):
    pid = site.project.id
    failures = []
    for path in _bad_paths(pid, site.root):
        for headers in ({}, HTML):
            r = site.client.get(path, headers=headers)
            body = r.content
            if (
                r.status_code != 404
                or CANARY.encode() in body
                or b"def " in body
                or b"import " in body
            ):
                failures.append((path, r.status_code, body[:120]))
    assert not failures


@pytest.mark.parametrize(
    "column",
    ["-1", "01", "7", "99999", "100000", "1e3", "%2e%2e", "0x1", " 1", "1%2F..", "a" * 3000],
)
def test_a_hierarchy_post_for_a_column_that_is_not_one_gives_404(site, column):
    before = _snapshot(site.work)
    pid = site.project.id
    r = site.client.post(
        f"/p/{pid}/hierarchies/{column}",
        data={"csrf": site.csrf, "action": "use", "builder": "prefix", "params": ""},
    )
    assert r.status_code == 404
    r = site.client.post(
        f"/p/{pid}/hierarchies/{column}/upload",
        data={"csrf": site.csrf},
        files={"file": ("h.csv", b"a;*\n", "text/csv")},
    )
    assert r.status_code == 404
    assert _snapshot(site.work) == before


def test_the_compare_report_confines_itself_to_the_compare_folder(app_client, tmp_path):
    """A name in compare.json is still never a way out of ``compare/`` (its check compares
    ``path.parent.parent`` unresolved, which ``..`` passes)."""
    state = app_client.app.app.state.anonlab
    project = state.projects.create("d.csv", ".csv", "upload")
    (project.folder / "audit.html").write_text(CANARY, "utf-8")
    write_json(project.compare_folder / "compare.json", {"rows": [{"name": "..", "status": "ok"}]})
    r = app_client.client.get(f"/p/{project.id}/compare/%2e%2e/report")
    assert r.status_code == 404 and CANARY not in r.text


# ---------------------------------------------------------------------------- hierarchy form


def test_the_builder_form_refuses_a_server_path_and_the_mapping_builder(site):
    pid = site.project.id
    before = _snapshot(site.work)
    secret = str(site.root / "secret.txt")
    cases = [
        ("prefix", f"file={secret}", "'file' names a path"),
        ("prefix", "file=../../../secret.txt", "'file' names a path"),
        ("prefix", "keep=3,1\nfile=schema.json", "'file' names a path"),
        ("mapping", f"file={secret}", "builder: choose one of"),
        ("mapping", "levels=a,b", "builder: choose one of"),
        ("mapping", "", "builder: choose one of"),
        ("prefix", "builder=mapping\nfile=x.csv", "builder"),
        ("../mapping", "", "builder: choose one of"),
    ]
    for builder, params, words in cases:
        for action in ("preview", "use"):
            r = site.client.post(
                f"/p/{pid}/hierarchies/1",
                data={"csrf": site.csrf, "action": action, "builder": builder, "params": params},
            )
            assert r.status_code == 400, (builder, params, action)
            assert words in (_error(r.text) or ""), (builder, params, _error(r.text))
            assert CANARY not in r.text
    assert _snapshot(site.work) == before
    # the builders offered on the page never include mapping (a table is uploaded)
    page = site.client.get(f"/p/{pid}/hierarchies").text
    select = re.search(r'<select name="builder"[^>]*>(.*?)</select>', page, re.S).group(1)
    offered = set(re.findall(r'<option value="([a-z]+)"', select))
    assert "prefix" in offered and "mapping" not in offered


# ---------------------------------------------------------------------------- uploads


@pytest.fixture
def uploads(app_client):
    """``app_client``, whose init jobs are waited for at the end (an upload a test expected to be
    refused but that was taken leaves no job running past its test)."""
    yield app_client
    for folder in _projects(app_client):
        app_client.wait(folder.name, timeout=60)


def _projects(client) -> list[Path]:
    root = client.app.app.state.anonlab.projects.root
    return sorted(root.iterdir())


def _post_upload(client, name: str, content: bytes | io.BytesIO, **kwargs):
    return client.client.post(
        "/projects/upload",
        data={"csrf": client.csrf},
        files={"file": (name, content, "text/csv")},
        headers=HTML,
        follow_redirects=False,
        **kwargs,
    )


def _csv_of_size(size: int) -> bytes:
    row = b"01234,2020-01-01,F\n"
    head = b"zip,date,sex\n"
    body = head + row * ((size - len(head)) // len(row) + 1)
    return body[:size].rsplit(b"\n", 1)[0] + b"\n"


def test_an_upload_above_the_limit_is_refused_with_413_and_leaves_nothing(uploads):
    r = _post_upload(uploads, "big.csv", _csv_of_size(3 * 2**20))
    assert r.status_code == 413
    assert "--max-upload-mb" in r.text
    assert _projects(uploads) == []


def test_an_upload_just_above_the_limit_is_refused(uploads):
    r = _post_upload(uploads, "big.csv", _csv_of_size(2 * 2**20 + 16 * 1024))
    assert r.status_code == 413
    assert _projects(uploads) == []


def test_an_upload_at_the_limit_is_taken(uploads):
    r = _post_upload(uploads, "at-limit.csv", _csv_of_size(2 * 2**20 - 4096))
    assert r.status_code == 303
    uploads.wait(r.headers["location"].rsplit("/", 1)[1])


def test_an_upload_without_content_length_gets_411(uploads):
    boundary = "b0undary"

    def body():
        yield f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n'.encode()
        yield uploads.csrf.encode() + b"\r\n"
        yield (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="d.csv"\r\nContent-Type: text/csv\r\n\r\n'
        ).encode()
        yield b"a,b\n1,2\n\r\n"
        yield f"--{boundary}--\r\n".encode()

    r = uploads.client.post(
        "/projects/upload",
        content=body(),
        follow_redirects=False,
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    assert r.status_code == 411
    assert _projects(uploads) == []


@pytest.mark.parametrize(
    "name", ["data.exe", "data.xlsx", "data.csv.exe", "data", ".csv", "data.CSV.zip", "data.json"]
)
def test_an_upload_with_another_suffix_is_refused_naming_the_valid_types(uploads, name):
    r = _post_upload(uploads, name, b"a,b\n1,2\n")
    assert r.status_code == 400
    error = _error(r.text) or ""
    assert ".csv" in error and ".parquet" in error
    assert _projects(uploads) == []


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("nul.csv", b"a,b\n1,\x002\n", "NUL"),
        ("bin.csv", bytes(range(256)) * 8, "NUL"),
        ("latin1.csv", b"name,city\ncaf\xe9,Z\xfcrich\n" + b"x,y\n" * 20, "UTF-8"),
        ("utf16.csv", "a,b\n1,2\n".encode("utf-16"), "not"),
        ("empty.csv", b"", "empty"),
        ("blank.csv", b"  \n\n \t\n", "empty"),
        ("fake.parquet", b"a,b\n1,2\n" * 10, "PAR1"),
        ("head-only.parquet", b"PAR1" + b"\x00" * 64, "PAR1"),
        ("tail-only.parquet", b"\x00" * 64 + b"PAR1", "PAR1"),
        ("fake.pq", b"not parquet at all", "PAR1"),
    ],
)
def test_an_upload_that_is_not_what_its_name_says_is_refused(uploads, name, content, words):
    r = _post_upload(uploads, name, content)
    assert r.status_code == 400, r.text[:300]
    assert words in (_error(r.text) or ""), _error(r.text)
    assert _projects(uploads) == []


def test_a_csv_that_is_not_utf8_at_its_end_is_refused(uploads):
    r = _post_upload(uploads, "latin1-end.csv", b"name,city\nx,caf\xe9\n")
    assert r.status_code == 400
    assert "UTF-8" in (_error(r.text) or "")
    assert _projects(uploads) == []


@pytest.mark.parametrize("content", [b"PAR1", b"PAR1PAR1"])
def test_a_parquet_too_short_to_hold_a_footer_is_refused(uploads, content):
    r = _post_upload(uploads, "tiny.parquet", content)
    assert r.status_code == 400
    assert "PAR1" in (_error(r.text) or "")
    assert _projects(uploads) == []


def test_a_real_parquet_upload_is_taken(uploads, tmp_path):
    import pandas as pd

    path = tmp_path / "d.parquet"
    pd.DataFrame({"zip": ["01000", "01001"] * 10, "stay": list(range(20))}).to_parquet(path)
    r = _post_upload(uploads, "d.pq", path.read_bytes())
    assert r.status_code == 303
    project = r.headers["location"].rsplit("/", 1)[1]
    assert uploads.wait(project)["state"] == "done"
    folder = _projects(uploads)[0]
    assert (folder / "data.parquet").read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    "name, shown",
    [
        ("../../etc/passwd.csv", "passwd.csv"),
        ("/etc/cron.d/evil.csv", "evil.csv"),
        ("C:\\x\\y.csv", None),
        ("..\\..\\boot.ini.csv", None),
        ("<img src=x onerror=alert(1)>.csv", "<img src=x onerror=alert(1)>.csv"),
    ],
)
def test_an_uploaded_file_name_never_becomes_a_path(uploads, tmp_path, name, shown):
    content = write_discharges(tmp_path / "source.csv", 20).read_bytes()
    r = _post_upload(uploads, name, content)
    assert r.status_code == 303
    project = r.headers["location"].rsplit("/", 1)[1]
    uploads.wait(project)
    [folder] = _projects(uploads)
    assert folder.name == project
    assert (folder / "data.csv").read_bytes() == content  # the data is always data.csv
    info = json.loads((folder / "project.json").read_text("utf-8"))
    if shown is not None:
        assert info["name"] == shown
    assert "/" not in info["name"]
    # nothing but the project's own files was written, anywhere under the test's folder
    made = {p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()}
    outside = {p for p in made if p.parts[:2] != ("work", "projects") and p.name != "source.csv"}
    assert outside == set()
    assert not any(
        p.name in ("passwd.csv", "evil.csv", "y.csv", "boot.ini.csv") for p in tmp_path.rglob("*")
    )
    for page in ("/", f"/p/{project}"):
        text = uploads.client.get(page).text
        assert "<img src=x" not in text
    if "<img" in name:
        assert "&lt;img src=x onerror=alert(1)&gt;.csv" in uploads.client.get("/").text
