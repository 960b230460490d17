"""Fixtures of the app's tests: a discharge-style CSV, a logged-in client, waiting for a job.

Skipped as a whole when the extra ``anonlab[app]`` (Starlette, uvicorn, Jinja2,
python-multipart) or httpx is not installed; the README's test command installs them.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("multipart")

HOSTILE = "<script>document.title='pwned'</script>"

#: Test modules that need these helpers at import time (module-scoped fixtures) import this
#: conftest by this name: pytest's importlib mode does not make it importable otherwise.
SUPPORT = "anonlab_app_test_support"
sys.modules.setdefault(SUPPORT, sys.modules[__name__])


def write_discharges(path: Path, n: int = 300, *, seed: int = 0, hostile: bool = False) -> Path:
    """A synthetic hospital discharge table: patient id, zip code (leading zeros), birth date,
    sex, ICD-10 diagnosis and insurer (both sensitive), length of stay. With ``hostile``, a
    column name and some values are script tags, formulas and control characters."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "patient_id": [f"P{i:05d}" for i in range(n)],
            "zip": [f"0{z}" for z in rng.integers(1000, 1100, n)],
            "birth_date": (
                pd.Timestamp("1940-01-01") + pd.to_timedelta(rng.integers(0, 25_000, n), "D")
            ).strftime("%Y-%m-%d"),
            "sex": rng.choice(["F", "M"], n),
            "icd10": rng.choice(["E11.9", "I10", "J45.909", "C50.911", "N39.0"], n),
            "insurer": rng.choice(["public", "private", "none"], n),
            "stay": rng.integers(1, 30, n),
        }
    )
    if hostile:
        frame = frame.rename(columns={"sex": f"sex{HOSTILE}"})
        frame.loc[::7, "icd10"] = HOSTILE
        frame.loc[1::7, "icd10"] = '=HYPERLINK("http://evil","x")'
        frame.loc[2::7, "insurer"] = "<img src=x onerror=alert(1)>"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def discharges(tmp_path):
    """``discharges(n=300, seed=0, hostile=False)``: the path of a new discharge CSV."""
    counter = iter(range(1_000_000))

    def make(n: int = 300, *, seed: int = 0, hostile: bool = False) -> Path:
        return write_discharges(tmp_path / f"discharges-{next(counter)}.csv", n, seed=seed,
                                hostile=hostile)  # fmt: skip

    return make


class LoggedIn:
    """A TestClient logged in through the one-time token, with the page's CSRF token."""

    def __init__(self, workdir: Path) -> None:
        from starlette.testclient import TestClient

        from anonlab.app import Sessions, create_app

        self.sessions = Sessions()
        self.app = create_app(workdir, self.sessions, {"testserver"}, max_upload=2 * 2**20)
        self.client = TestClient(self.app)
        r = self.client.get(f"/login?token={self.sessions.token}", follow_redirects=False)
        assert r.status_code == 303
        self.client.cookies = r.cookies
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', self.client.get("/").text).group(1)

    def upload(self, path: Path, name: str | None = None) -> str:
        """Upload ``path``; the new project's id (after its schema is drafted)."""
        with open(path, "rb") as fh:
            r = self.client.post(
                "/projects/upload", data={"csrf": self.csrf},
                files={"file": (name or path.name, fh, "text/csv")}, follow_redirects=False,
            )  # fmt: skip
        assert r.status_code == 303, r.text
        project = r.headers["location"].rsplit("/", 1)[1]
        self.wait(project)
        return project

    def wait(self, project: str, timeout: float = 300.0) -> dict:
        """The project's job status once it is no longer running."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.client.get(f"/p/{project}/job").json()
            if job["state"] != "running" or time.monotonic() > deadline:
                return job
            time.sleep(0.2)


@pytest.fixture
def app_client(tmp_path):
    """A :class:`LoggedIn` client over a fresh work folder."""
    return LoggedIn(tmp_path / "work")
