"""A project of ``anonlab serve``: one data file and everything made from it, in a folder.

Every step's result lives on disk, written atomically, so a server that stops (or crashes)
loses nothing that was finished::

    WORKDIR/projects/<id>/
        project.json            what the data is (shown name, source, when)
        data.csv | data.parquet the uploaded file as received (or the bundled dataset)
        init.json               ``anonlab init --json``: each column's type as read, the guesses
        schema.json             the schema file (roles, types, hierarchies): the CLI's --schema
        hierarchies/h<i>.csv    hierarchy files of column i (uploaded, or a dataset's)
        releases/r<n>/          ``anonlab anonymize --out``, then the audit's files
        compare/                ``anonlab compare --out``
        jobs/<n>/               one command run: its argv, output, progress and status

Ids are made here (``secrets``), never taken from the client as paths: a request names a
project, release or file by an id that :func:`check_id` matches against a pattern before any
path is built from it.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonlab.atomic_output import atomic_write_text
from anonlab.errors import AnonlabError

#: Ids of projects (12 hex digits), releases (``r1``, ``r2``...) and columns (their index).
ID_PATTERNS = {
    "project": re.compile(r"[0-9a-f]{12}"),
    "release": re.compile(r"r[1-9][0-9]{0,5}"),
    "column": re.compile(r"(0|[1-9][0-9]{0,4})"),
}

#: Data files a project accepts, by suffix.
DATA_SUFFIXES = (".csv", ".parquet")


class NotFound(AnonlabError):
    """A project, release or file that does not exist (HTTP 404)."""


def check_id(kind: str, value: str) -> str:
    """``value`` if it is a well-formed id of ``kind``, else :class:`NotFound` (never a path)."""
    if not isinstance(value, str) or ID_PATTERNS[kind].fullmatch(value) is None:
        raise NotFound(f"no {kind} {value!r}")
    return value


def read_json(path: Path) -> Any:
    """The JSON in ``path``, or None where the file does not exist or is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as JSON, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False))


@dataclass(frozen=True)
class Project:
    """One project's folder (see the module docstring)."""

    folder: Path

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def info(self) -> dict[str, Any]:
        return read_json(self.folder / "project.json") or {}

    @property
    def data(self) -> Path:
        """The data file (``data.csv`` or ``data.parquet``)."""
        return self.folder / f"data{self.info.get('suffix', '.csv')}"

    @property
    def schema_path(self) -> Path:
        return self.folder / "schema.json"

    @property
    def schema(self) -> dict[str, Any] | None:
        """The schema file's content, or None before ``anonlab init`` has drafted it."""
        return read_json(self.schema_path)

    @property
    def init_summary(self) -> dict[str, Any] | None:
        """``anonlab init --json``'s output (types decided, guesses and why), or None."""
        return read_json(self.folder / "init.json")

    @property
    def hierarchy_folder(self) -> Path:
        return self.folder / "hierarchies"

    def hierarchy_file(self, column: int) -> Path:
        return self.hierarchy_folder / f"h{int(column)}.csv"

    @property
    def compare_folder(self) -> Path:
        return self.folder / "compare"

    def releases(self) -> list[str]:
        """The release ids, oldest first (only folders ``anonlab anonymize`` finished)."""
        root = self.folder / "releases"
        if not root.is_dir():
            return []
        found = [
            p.name
            for p in root.iterdir()
            if ID_PATTERNS["release"].fullmatch(p.name) and (p / "manifest.json").is_file()
        ]
        return sorted(found, key=lambda name: int(name[1:]))

    def release_folder(self, release: str) -> Path:
        """The folder of release ``release`` (:class:`NotFound` if there is none)."""
        folder = self.folder / "releases" / check_id("release", release)
        if not (folder / "manifest.json").is_file():
            raise NotFound(f"no release {release!r} in this project")
        return folder

    def next_release(self) -> str:
        """A new release id (one more than any folder started, finished or not)."""
        root = self.folder / "releases"
        stems = [p.name.split(".")[0] for p in (root.iterdir() if root.is_dir() else [])]
        taken = [int(s[1:]) for s in stems if ID_PATTERNS["release"].fullmatch(s)]
        return f"r{max(taken, default=0) + 1}"

    def request_of(self, release: str) -> dict[str, Any]:
        """What the publisher asked for when making ``release`` (algorithm and parameters)."""
        return read_json(self.folder / "releases" / f"{release}.request.json") or {}


class Projects:
    """The projects under ``WORKDIR/projects``."""

    def __init__(self, workdir: Path) -> None:
        self.root = Path(workdir).resolve() / "projects"
        self.root.mkdir(parents=True, exist_ok=True)

    def create(self, name: str, suffix: str, source: str) -> Project:
        """A new, empty project for a data file shown as ``name`` (``suffix``: .csv/.parquet)."""
        if suffix not in DATA_SUFFIXES:
            raise AnonlabError(f"data files are {' or '.join(DATA_SUFFIXES)}, not {suffix!r}")
        while True:
            folder = self.root / secrets.token_hex(6)
            try:
                folder.mkdir()
                break
            except FileExistsError:  # pragma: no cover - 48 random bits
                continue
        write_json(
            folder / "project.json",
            {"name": name, "suffix": suffix, "source": source, "created": time.time()},
        )
        return Project(folder)

    def get(self, project: str) -> Project:
        """Project ``project`` (:class:`NotFound` if the id is malformed or unknown)."""
        folder = self.root / check_id("project", project)
        if not (folder / "project.json").is_file():
            raise NotFound(f"no project {project!r}")
        return Project(folder)

    def __iter__(self) -> Iterator[Project]:
        """Every project, newest first."""
        found = [
            Project(p)
            for p in self.root.iterdir()
            if ID_PATTERNS["project"].fullmatch(p.name) and (p / "project.json").is_file()
        ]
        return iter(sorted(found, key=lambda p: -float(p.info.get("created", 0))))
