"""The app's jobs (anonlab.app.jobs): the CLI's commands in child processes, one job per
project, steps in order, the command's error line, cancel, and a job a restart interrupted."""

from __future__ import annotations

import sys
import time

import pytest

from anonlab.app import jobs as jobs_module
from anonlab.app.jobs import Busy, Jobs
from anonlab.app.projects import Projects, read_json


def _wait(jobs: Jobs, project, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while jobs.running(project) and time.monotonic() < deadline:
        time.sleep(0.05)
    return jobs.status(project)


@pytest.fixture
def project(tmp_path):
    project = Projects(tmp_path / "work").create("t.csv", ".csv", "upload")
    project.data.write_text("a,b\n1,x\n2,y\n", encoding="utf-8")
    return project


def test_steps_run_in_order_and_the_first_failure_stops_the_job(project):
    jobs = Jobs()
    done = []
    jobs.start(project, "check", [["version"], ["anonymize", "--algorithm", "x-ray", "--out", "o",
                                                "--dataset", "adult"], ["version"]],
               label="three steps", on_success=done.append)  # fmt: skip
    status = _wait(jobs, project)
    assert status["state"] == "failed" and status["kind"] == "check"
    # the CLI's own one-line message, not a traceback, and no third step run
    assert "x-ray" in status["error"] and "Traceback" not in status["error"]
    folder = project.folder / "jobs" / "1"
    assert (folder / "stdout-0.txt").read_text().strip()  # `anonlab version` printed
    assert not (folder / "stdout-2.txt").exists() and done == []


def test_success_runs_the_hook_with_the_job_folder(project):
    jobs = Jobs()
    seen = []
    jobs.start(project, "version", [["version"]], label="v", on_success=seen.append)
    status = _wait(jobs, project)
    assert status["state"] == "done" and status["error"] is None
    assert seen == [project.folder / "jobs" / "1"]
    assert (seen[0] / "stdout-0.txt").read_text().strip()


def test_one_job_per_project_and_cancel(project, monkeypatch):
    # a step that would take a minute: cancel stops it at once, and the next job may start
    monkeypatch.setattr(
        jobs_module, "_command", lambda argv: [sys.executable, "-c", "import time; time.sleep(60)"]
    )
    jobs = Jobs()
    jobs.start(project, "sleep", [["x"], ["y"]], label="a minute")
    with pytest.raises(Busy, match="already running"):
        jobs.start(project, "sleep", [["x"]], label="another")
    assert jobs.status(project)["state"] == "running"
    time.sleep(0.3)
    assert jobs.cancel(project)
    status = _wait(jobs, project, timeout=20)
    assert status["state"] == "cancelled" and status["seconds"] < 30
    assert not (project.folder / "jobs" / "1" / "stdout-1.txt").exists()  # no second step
    assert not jobs.cancel(project)
    monkeypatch.setattr(jobs_module, "_command", lambda argv: [sys.executable, "-c", "pass"])
    jobs.start(project, "quick", [["x"]], label="after")
    assert _wait(jobs, project)["state"] == "done"


def test_a_job_the_server_did_not_finish_reads_interrupted(project, monkeypatch):
    monkeypatch.setattr(
        jobs_module, "_command", lambda argv: [sys.executable, "-c", "import time; time.sleep(60)"]
    )
    first = Jobs()
    first.start(project, "sleep", [["x"]], label="cut short")
    # a new server over the same folder (the old one died): no status was written
    again = Jobs()
    assert again.status(project)["state"] == "interrupted"
    first.cancel(project)
    _wait(first, project)
    assert read_json(project.folder / "jobs" / "1" / "status.json")["state"] == "cancelled"


def test_progress_is_read_from_the_command(project):
    # `anonlab init` writes its stage to $ANONLAB_PROGRESS_FILE
    jobs = Jobs()
    jobs.start(project, "init", [["init", "data.csv", "--out", "schema.json", "--json"]],
               label="init")  # fmt: skip
    status = _wait(jobs, project)
    assert status["state"] == "done"
    assert status["step"] == "reading data.csv"
    assert read_json(project.schema_path)["format"] == "anonlab-schema"


def test_no_project_before_its_first_job(project):
    assert Jobs().status(project) == {"state": "none"}


def test_cancel_all_stops_every_running_job(tmp_path, monkeypatch):
    # what the server does when it stops: no job's process outlives it
    monkeypatch.setattr(
        jobs_module, "_command", lambda argv: [sys.executable, "-c", "import time; time.sleep(60)"]
    )
    projects = Projects(tmp_path / "work")
    jobs = Jobs()
    started = [projects.create(f"{i}.csv", ".csv", "upload") for i in range(2)]
    for project in started:
        jobs.start(project, "sleep", [["x"]], label="a minute")
    time.sleep(0.3)
    assert jobs.cancel_all() == 2
    for project in started:
        assert _wait(jobs, project, timeout=20)["state"] == "cancelled"
    assert jobs.cancel_all() == 0
