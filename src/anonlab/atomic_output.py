"""Output that is whole or absent: temporary names, renames, ``--force`` and cleanup.

Every folder anonlab writes (a release, the demo, a comparison, a reproduction) is built in a
hidden temporary folder beside its target and renamed into place only when complete; single
files go through a temporary file the same way. Three guards where the simple scheme would lose
or expose data:

* ``--force`` replaces only a folder that anonlab wrote, recognised by the marker file
  :data:`MARKER` (or, for releases written before the marker existed, a ``manifest.json``
  object with an ``anonlab_version`` beside a ``publisher/`` folder). It never replaces the
  working folder or one of its ancestors, a plain file, or a user's folder that merely has the
  same name.
* Temporary folders and files carry the writing process's id in their name
  (``.NAME.tmp-PID-XXXX``). A process killed mid-write leaves one behind, holding ground truth;
  the next write to the same target removes every such leftover whose process is gone.
* Temporary folders are created readable by the owner only (``mkdtemp``), and
  :func:`owner_only` restricts a finished folder (the publisher's copy) to its owner.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from anonlab.errors import AnonlabError

#: File that marks a folder as written by anonlab (so ``--force`` may replace it).
MARKER = ".anonlab"
_MARKER_TEXT = "written by anonlab; `--force` may replace this folder\n"


def is_anonlab_output(folder: Path) -> bool:
    """Whether ``folder`` is a folder anonlab wrote (marker file, or an anonlab manifest)."""
    marker = folder / MARKER
    if marker.is_file() and not marker.is_symlink():
        return True
    # a release written before the marker existed: an anonlab manifest beside publisher/
    manifest = folder / "manifest.json"
    if not (manifest.is_file() and not manifest.is_symlink() and (folder / "publisher").is_dir()):
        return False
    try:
        with open(manifest, "rb") as fh:
            data = json.loads(fh.read(64 * 2**20).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and isinstance(data.get("anonlab_version"), str)


def require_output_free(out: str | os.PathLike, force: bool = False) -> Path:
    """Raise unless ``out`` can be written: absent, or (with ``force``) a folder anonlab wrote;
    and its parent folder exists. Callers check this before any work, so bad output fails
    fast."""
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if out.is_symlink():
        raise AnonlabError(
            f"output path {str(out)!r} is a symbolic link; anonlab writes only to a real path"
        )
    if out.exists():
        if not force:
            raise AnonlabError(
                f"output directory {str(out)!r} already exists; choose another or pass --force"
            )
        if not out.is_dir():
            raise AnonlabError(f"output path {str(out)!r} exists and is not a directory")
        here = Path.cwd().resolve()
        target = out.resolve()
        if target == here or target in here.parents:
            raise AnonlabError(
                f"output directory {str(out)!r} is the working folder or contains it; "
                "--force will not replace it: choose a new folder for --out"
            )
        if not is_anonlab_output(out):
            raise AnonlabError(
                f"--force replaces only a folder that anonlab wrote, and {str(out)!r} is not one "
                f"(it has no {MARKER} marker or anonlab manifest.json); move it away yourself "
                "or choose another --out"
            )
    if not parent.is_dir():
        raise AnonlabError(f"the folder {str(parent)!r} for the output does not exist")
    return out


def _pid_of(name: str, prefix: str) -> int | None:
    """The process id in a temporary name ``PREFIX<pid>-XXXX``, or None."""
    head = name[len(prefix) :].split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else
    return True


def remove_leftovers(folder: Path, name: str) -> list[Path]:
    """Remove temporary folders and files for target ``name`` in ``folder`` left by processes
    that no longer run (killed mid-write); returns what was removed."""
    removed = []
    prefixes = [f".{name}.tmp-", f".{name}.old-"]
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        prefix = next((p for p in prefixes if entry.name.startswith(p)), None)
        if prefix is None:
            continue
        pid = _pid_of(entry.name, prefix)
        if pid is None or _alive(pid):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                path.unlink()
        removed.append(path)
    return removed


@contextlib.contextmanager
def atomic_directory(out: str | os.PathLike, force: bool = False) -> Iterator[Path]:
    """Yield a temporary directory that replaces ``out`` only if the block succeeds.

    The finished folder holds the :data:`MARKER` file, so a later ``--force`` may replace it.
    """
    out = require_output_free(out, force)
    parent = out.parent if str(out.parent) else Path(".")
    remove_leftovers(parent, out.name)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{os.getpid()}-", dir=parent))
    try:
        yield tmp
        (tmp / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=parent))
            os.replace(out, old / "x")
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write a binary file through a temporary name in the same folder. The file is readable
    by its owner only (``mkstemp``'s mode 0600): what anonlab writes this way (reports,
    per-record results) is the publisher's."""
    path = Path(path)
    if not path.parent.is_dir():
        raise AnonlabError(f"the folder {str(path.parent)!r} for {path.name!r} does not exist")
    if path.is_symlink():
        raise AnonlabError(f"{str(path)!r} is a symbolic link; anonlab writes only to a real path")
    remove_leftovers(path.parent, path.name)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-{os.getpid()}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write a text file (UTF-8) through a temporary name in the same folder."""
    atomic_write_bytes(path, text.encode("utf-8"))


def require_file_free(path: str | os.PathLike | None, option: str, force: bool) -> None:
    """Raise unless output file ``path`` may be written: absent, or ``force``; never a folder
    or a symbolic link; its folder exists. Call before any work."""
    if path is None:
        return
    path = Path(path)
    if path.is_symlink():
        raise AnonlabError(f"{option} {str(path)!r} is a symbolic link; give a real path")
    if path.is_dir():
        raise AnonlabError(f"{option} {str(path)!r} is a folder; give a file name")
    if path.exists() and not force:
        raise AnonlabError(
            f"{option} {str(path)!r} already exists; choose another name or pass --force"
        )
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise AnonlabError(f"the folder {str(parent)!r} for {option} does not exist")


def owner_only(folder: Path) -> None:
    """Make ``folder`` and everything in it readable and writable by its owner only."""
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(root, d), stat.S_IRWXU)
        for f in files:
            os.chmod(os.path.join(root, f), stat.S_IRUSR | stat.S_IWUSR)
    os.chmod(folder, stat.S_IRWXU)
