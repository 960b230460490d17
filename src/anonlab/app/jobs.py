"""Long work of ``anonlab serve``: the CLI's own commands, run one after another in a child
process per project, with their progress read back for the page.

The app adds no second implementation of any step: a job is a list of ``anonlab`` command
lines (``anonymize``, ``audit``, ``compare``, ``init``) run as ``python -m anonlab ...`` with
the same checks, messages and atomic outputs as in a terminal. A command writes its progress to
the file named by ``$ANONLAB_PROGRESS_FILE`` (:func:`anonlab.cli.output.progress_event`); its
first error line (``error: ...``, exit code 2) is what the page shows when it fails.

Choices:

* One job per project at a time (:class:`Busy` otherwise); projects run side by side.
* A job runs in child processes, not threads: cancelling terminates the process (a thread
  cannot be stopped), and a crash or an out-of-memory kill takes the job, not the server.
* A job's files (``jobs/<n>/``: the command lines, output, progress, status) stay on disk, so
  after a restart the page still says how the last job ended; a job that was running when the
  server stopped reads "interrupted" (its outputs are written atomically, so none is
  half-written).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anonlab.app.projects import Project, read_json, write_json
from anonlab.cli.output import PROGRESS_FILE


class Busy(Exception):
    """The project already runs a job."""


@dataclass
class _Running:
    folder: Path
    steps: list[list[str]]
    process: subprocess.Popen | None = None
    cancelled: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def _command(argv: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "anonlab", *argv]


class Jobs:
    """The jobs of every project of one server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[str, _Running] = {}

    def start(
        self,
        project: Project,
        kind: str,
        steps: Sequence[Sequence[str]],
        *,
        label: str,
        on_success: Callable[[Path], None] | None = None,
    ) -> None:
        """Run the ``anonlab`` command lines ``steps`` in order for ``project`` (a step runs
        only if the one before succeeded); ``kind`` and ``label`` say what it is on the page;
        ``on_success(folder)`` runs in the job's thread after the last step succeeded, with the
        job's folder (its ``stdout-<i>.txt`` hold each step's output)."""
        with self._lock:
            if project.id in self._running:
                raise Busy(
                    "this project is already running a job; wait for it to finish, or cancel it"
                )
            jobs = project.folder / "jobs"
            jobs.mkdir(exist_ok=True)
            number = 1 + max((int(p.name) for p in jobs.iterdir() if p.name.isdigit()), default=0)
            folder = jobs / str(number)
            folder.mkdir()
            write_json(
                folder / "job.json",
                {"kind": kind, "label": label, "steps": [list(s) for s in steps],
                 "started": time.time()},
            )  # fmt: skip
            run = _Running(folder, [list(s) for s in steps])
            self._running[project.id] = run
        thread = threading.Thread(
            target=self._run, args=(project, run, on_success), name=f"job-{project.id}"
        )
        thread.daemon = True
        thread.start()

    def _run(self, project: Project, run: _Running, on_success) -> None:
        state, error, code = "done", None, 0
        try:
            env = dict(os.environ, **{PROGRESS_FILE: str(run.folder / "progress.json")})
            env.pop("ANONLAB_ARTIFACTS", None)
            for i, argv in enumerate(run.steps):
                with run.lock:
                    if run.cancelled:
                        break
                    with (
                        open(run.folder / f"stdout-{i}.txt", "wb") as out,
                        open(run.folder / f"stderr-{i}.txt", "wb") as err,
                    ):
                        run.process = subprocess.Popen(
                            _command(argv), stdout=out, stderr=err, env=env,
                            cwd=project.folder, stdin=subprocess.DEVNULL,
                        )  # fmt: skip
                code = run.process.wait()
                if run.cancelled:
                    break
                if code != 0:
                    state, error = "failed", _error_line(run.folder / f"stderr-{i}.txt", code)
                    break
            if run.cancelled:
                state, error = "cancelled", "cancelled"
            elif state == "done" and on_success is not None:
                on_success(run.folder)
        except Exception as exc:  # the job fails, the server goes on
            state, error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            write_json(
                run.folder / "status.json",
                {"state": state, "error": error, "exit_code": code, "finished": time.time()},
            )
            with self._lock:
                self._running.pop(project.id, None)

    def cancel(self, project: Project) -> bool:
        """Stop the project's job (its current command is terminated). False if none runs."""
        with self._lock:
            run = self._running.get(project.id)
        if run is None:
            return False
        with run.lock:
            run.cancelled = True
            if run.process is not None and run.process.poll() is None:
                run.process.terminate()
        return True

    def cancel_all(self) -> int:
        """Stop every running job (the server is stopping: its jobs' processes must not
        outlive it and finish unseen); returns how many were stopped."""
        with self._lock:
            runs = list(self._running.values())
        for run in runs:
            with run.lock:
                run.cancelled = True
                if run.process is not None and run.process.poll() is None:
                    run.process.terminate()
        return len(runs)

    def running(self, project: Project) -> bool:
        with self._lock:
            return project.id in self._running

    def status(self, project: Project) -> dict[str, Any]:
        """The project's last job: ``state`` (none, running, done, failed, cancelled,
        interrupted), ``kind``, ``label``, ``step`` with ``done``/``total`` where the command
        counts, ``error`` (the command's error line) and ``seconds``."""
        jobs = project.folder / "jobs"
        numbers = [int(p.name) for p in jobs.iterdir() if p.name.isdigit()] if jobs.is_dir() else []
        if not numbers:
            return {"state": "none"}
        folder = jobs / str(max(numbers))
        job = read_json(folder / "job.json") or {}
        status = read_json(folder / "status.json")
        progress = read_json(folder / "progress.json") or {}
        if status is not None:
            state = status.get("state", "failed")
        elif self.running(project):
            state = "running"
        else:
            state = "interrupted"
        end = (status or {}).get("finished") or time.time()
        return {
            "state": state,
            "kind": job.get("kind"),
            "label": job.get("label"),
            "step": progress.get("step"),
            "done": progress.get("done"),
            "total": progress.get("total"),
            "error": (status or {}).get("error"),
            "seconds": round(end - float(job.get("started", end)), 1),
        }


def _error_line(path: Path, code: int) -> str:
    """The command's ``error: ...`` line (its one-line message), else its last line."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        lines = []
    for line in lines:
        if line.startswith("error: "):
            return line[len("error: ") :]
    if code < 0:
        return f"the command was stopped by signal {-code}"
    return lines[-1] if lines else f"the command failed (exit code {code})"
