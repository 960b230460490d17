"""Fuzz: a corrupted release directory is refused by ``anonlab check`` (issue 16, item 3).

A real small release (written by :func:`anonlab.release_io.save_release`) is copied and corrupted
in one way — its ``manifest.json`` edited, truncated, made a list or binary; ``records.parquet``
truncated, overwritten or swapped for another release's; a hierarchy, published or key file
truncated, extended or made binary; a file replaced by a symbolic link, deleted or added — and
``anonlab check DIR`` is run through the real entry point (:func:`anonlab.cli.main`, in-process).
Every corruption must give exit code 2, a message on stderr that starts with ``error:`` and names
the damaged file (or the manifest field), no traceback, and leave every file as it was.

The mutations are drawn by hypothesis (the kind, and a seed for its details, so a failure is
reported as a kind and a seed that reproduce it); ``test_each_kind_of_corruption_is_refused``
runs one of each kind so that a failing kind is named in the test id.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.anonymize import anonymize
from anonlab.release_io import save_release
from anonlab.table import Table

QI = ["age", "sex", "race"]


# ---------------------------------------------------------------------- releases
@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> dict[str, Path]:
    """Pristine releases: bucketized (Anatomy), generalized (Mondrian, MASK with published
    sensitive values), and an Anatomy release of other records with the same schema."""
    root = tmp_path_factory.mktemp("pristine")
    table = Table.from_dataset("adult", quasi_identifiers=QI, sensitive="occupation")
    first, other = table.take(np.arange(240)), table.take(np.arange(240, 480))
    made = {
        "anatomy": anonymize(first, "anatomy", l=3),
        "mondrian": anonymize(first, "mondrian", l=3),
        "mask": anonymize(first, "mask", k=4, m=2, sensitive_values=["Prof-specialty"]),
        "other": anonymize(other, "anatomy", l=3),
    }
    return {name: save_release(r, root / name) for name, r in made.items()}


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``anonlab ARGV...`` in-process through the real entry point: (exit code, out, err)."""
    from anonlab.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = ["anonlab", *argv]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # a crash is reported like the CLI would show it
                import traceback

                err.write(traceback.format_exc())
                code = 1
    finally:
        sys.argv = old
    return code, out.getvalue(), err.getvalue()


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` (links not followed): kind, mode, content hash or target."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            info = os.lstat(p)
            if stat.S_ISLNK(info.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(info.st_mode):
                out[rel] = ("dir", stat.S_IMODE(info.st_mode))
            else:
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
                out[rel] = ("file", stat.S_IMODE(info.st_mode), digest)
    return out


# ---------------------------------------------------------------------- mutations
def _files(root: Path, under: str = "") -> list[str]:
    """Release files (relative POSIX paths) under ``under``, sorted."""
    base = root / under if under else root
    if base.is_file() and not base.is_symlink():
        return [under]
    out = []
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not p.is_symlink() and rel != ".anonlab":
            out.append(rel)
    return out


def _json_type(value: object) -> str:
    return {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}.get(
        type(value), "null"
    )


def _typed_paths(m: dict) -> list[tuple]:
    """Manifest fields whose JSON type the schema fixes (a value of another type is invalid)."""
    paths: list[tuple] = [(k,) for k in m if k not in ("lattice", "pickup", "input")]
    for i, a in enumerate(m["schema"]):
        paths += [("schema", i, k) for k in a]
    for rel in m["files"]:
        paths += [("files", rel, "sha256"), ("files", rel, "bytes")]
    paths += [("published_files", i) for i in range(len(m["published_files"]))]
    return paths


def _get(m: object, path: tuple) -> object:
    for p in path:
        m = m[p]
    return m


def _put(m: dict, path: tuple, value: object) -> None:
    _get(m, path[:-1])[path[-1]] = value


def _field_word(path: tuple) -> str:
    """The word of a field path that a message must show (its last named part)."""
    return next(str(p) for p in reversed(path) if isinstance(p, str) and "/" not in p)


def m_delete_key(root: Path, rng: random.Random) -> tuple[str, ...]:
    path = root / "manifest.json"
    m = json.loads(path.read_text())
    key = rng.choice(sorted(m))
    del m[key]
    path.write_text(json.dumps(m, indent=2))
    return ("manifest.json",)


def m_wrong_type(root: Path, rng: random.Random) -> tuple[str, ...]:
    path = root / "manifest.json"
    m = json.loads(path.read_text())
    field = rng.choice(_typed_paths(m))
    old = _get(m, field)
    choices = [v for v in ("x", [], {}, True, 1.5, 7) if _json_type(v) != _json_type(old)]
    if old is None:
        choices = [[], {}, True]  # null fields (seed, hierarchy_*) take no list, object or bool
    _put(m, field, rng.choice(choices))
    path.write_text(json.dumps(m, indent=2))
    return ("manifest.json", _field_word(field))


def m_edit_value(root: Path, rng: random.Random) -> tuple[str, ...]:
    """A well-typed, plausible edit (rows, groups, seed, a role, a sha256): the seal's job."""
    path = root / "manifest.json"
    m = json.loads(path.read_text())
    field = rng.choice(["rows", "groups", "seed", "perturbed_records", "role", "sha256"])
    if field in ("rows", "groups", "seed", "perturbed_records"):
        m[field] += 1 if m[field] == 0 else rng.choice([-1, 1])  # always a change
    elif field == "role":
        qi = [a for a in m["schema"] if a["role"] == "quasi-identifier"]
        rng.choice(qi)["role"] = "insensitive"
    else:  # the file and its entry disagree: naming either is right
        rel = rng.choice(sorted(m["files"]))
        entry = m["files"][rel]
        entry["sha256"] = hashlib.sha256(entry["sha256"].encode()).hexdigest()
        path.write_text(json.dumps(m, indent=2))
        return ("manifest.json", Path(rel).name)
    path.write_text(json.dumps(m, indent=2))
    return ("manifest.json",)


def m_truncate(root: Path, rng: random.Random) -> tuple[str, ...]:
    path = root / "manifest.json"
    data = path.read_bytes().rstrip()
    path.write_bytes(data[: rng.randrange(len(data))])
    return ("manifest.json",)


def m_list(root: Path, rng: random.Random) -> tuple[str, ...]:
    path = root / "manifest.json"
    m = json.loads(path.read_text())
    path.write_text(json.dumps(rng.choice([[m], [], list(m)])))
    return ("manifest.json",)


def m_binary(root: Path, rng: random.Random) -> tuple[str, ...]:
    path = root / "manifest.json"
    n = rng.randrange(1, 4096)
    path.write_bytes(bytes(rng.randrange(128, 256) for _ in range(n)))
    return ("manifest.json",)


def m_deep(root: Path, rng: random.Random) -> tuple[str, ...]:
    depth = rng.choice([10_000, 100_000, 1_000_000])
    (root / "manifest.json").write_bytes(b"[" * depth + b"]" * depth)
    return ("manifest.json",)


def _corrupt_bytes(path: Path, rng: random.Random, how: str) -> None:
    data = path.read_bytes()
    if how == "truncate":
        path.write_bytes(data[: rng.randrange(len(data))])
    elif how == "overwrite":
        at = rng.randrange(len(data))
        n = min(len(data) - at, rng.randrange(1, 64))
        new = bytes((b + rng.randrange(1, 256)) % 256 for b in data[at : at + n])
        path.write_bytes(data[:at] + new + data[at + n :])
    elif how == "append":
        junk = rng.choice([b"\n,,,,\n", b"x;y;z\n", b"\x00\xff" * 8, b"=cmd|' /C calc'!A0\n"])
        path.write_bytes(data + junk)
    elif how == "binary":
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2048))))
    else:  # pragma: no cover - a typo in a test
        raise ValueError(how)


def _file_mutation(under: str, how: str) -> Callable[[Path, random.Random], tuple[str, ...]]:
    def mutate(root: Path, rng: random.Random) -> tuple[str, ...]:
        rel = rng.choice(_files(root, under))
        _corrupt_bytes(root / rel, rng, how)
        return (Path(rel).name,)

    mutate.__name__ = f"{under.replace('/', '_') or 'any'}_{how}"
    return mutate


def records_from_other_release(other: Path) -> Callable[[Path, random.Random], tuple[str, ...]]:
    def mutate(root: Path, rng: random.Random) -> tuple[str, ...]:
        shutil.copyfile(other / "publisher/records.parquet", root / "publisher/records.parquet")
        return ("records.parquet",)

    return mutate


def symlink_file(root: Path, rng: random.Random) -> tuple[str, ...]:
    """Replace a file by a link to an identical copy outside the release."""
    rel = rng.choice(["manifest.json", *_files(root, "publisher"), *_files(root, "published")])
    outside = root.parent / "outside" / rel.replace("/", "_")
    outside.parent.mkdir(exist_ok=True)
    shutil.copyfile(root / rel, outside)
    (root / rel).unlink()
    os.symlink(outside, root / rel)
    return (Path(rel).name,)


def symlink_folder(root: Path, rng: random.Random) -> tuple[str, ...]:
    """Replace publisher/ or published/ (or the hierarchies folder) by a link to a copy."""
    rel = rng.choice(["publisher", "published", "publisher/hierarchies"])
    outside = root.parent / "outside" / rel.replace("/", "_")
    shutil.copytree(root / rel, outside, symlinks=True)
    shutil.rmtree(root / rel)
    os.symlink(outside, root / rel, target_is_directory=True)
    return (Path(rel).name,)


def delete_file(root: Path, rng: random.Random) -> tuple[str, ...]:
    rel = rng.choice(["manifest.json", *_files(root, "publisher"), *_files(root, "published")])
    (root / rel).unlink()
    return (Path(rel).name,)


def add_file(root: Path, rng: random.Random) -> tuple[str, ...]:
    name = rng.choice(["published/extra.csv", "publisher/hierarchies/zip.csv", "publisher/x"])
    (root / name).write_text("a,b\n1,2\n")
    return (Path(name).name,)


def _reseal(root: Path) -> None:
    """Recompute the checksums and the seal, as someone holding the export key could; what
    is refused then is refused by the checks of the records against the manifest."""
    from anonlab import export_order
    from anonlab.release_io.folder import _file_table
    from anonlab.release_io.folder import canonical_manifest as _canonical

    path = root / "manifest.json"
    m = json.loads(path.read_text())
    m["files"] = _file_table(root)
    m["seal"] = export_order.mac(
        export_order.read_export_key(root / export_order.KEY_FILE), _canonical(m)
    )
    path.write_text(json.dumps(m, indent=2))


def resealed_records(root: Path, rng: random.Random) -> tuple[str, ...]:
    """An inconsistent records file (bad ids, too few rows, a column gone), resealed."""
    import pandas as pd

    path = root / "publisher/records.parquet"
    frame = pd.read_parquet(path)
    how = rng.choice(["negative", "fraction", "beyond", "head", "same-ids", "neg-id", "column"])
    at = rng.randrange(len(frame))
    if how == "negative":
        frame.loc[at, "__group__"] = -1 - rng.randrange(3)
    elif how == "fraction":
        frame["__group__"] = frame["__group__"] + 0.5
    elif how == "beyond":
        frame.loc[at, "__group__"] = frame["__group__"].max() + 1 + rng.randrange(5)
    elif how == "head":
        frame = frame.head(rng.randrange(len(frame)))
    elif how == "same-ids":
        frame["__row_id__"] = rng.randrange(len(frame))
    elif how == "neg-id":
        frame.loc[at, "__row_id__"] = -1 - rng.randrange(3)
    else:
        frame = frame.drop(columns=[rng.choice(list(QI) + ["occupation", "__group__"])])
    os.chmod(path, 0o600)
    frame.to_parquet(path, index=False)
    _reseal(root)
    return ("records.parquet",)


def resealed_counts(root: Path, rng: random.Random) -> tuple[str, ...]:
    """A manifest whose rows or groups disagree with the records, resealed."""
    path = root / "manifest.json"
    m = json.loads(path.read_text())
    field = rng.choice(["rows", "groups"])
    m[field] = rng.choice([m[field] + 1, m[field] - 1, 999, m["rows"] * 2 + 1])
    path.write_text(json.dumps(m, indent=2))
    _reseal(root)
    return ("records.parquet", field)


def mutations(other: Path) -> dict[str, Callable[[Path, random.Random], tuple[str, ...]]]:
    """Every kind of corruption, by name."""
    kinds = {
        f.__name__: f
        for f in (
            m_delete_key,
            m_wrong_type,
            m_edit_value,
            m_truncate,
            m_list,
            m_binary,
            m_deep,
            symlink_file,
            symlink_folder,
            delete_file,
            add_file,
            resealed_records,
            resealed_counts,
        )
    }
    for under, hows in (
        ("publisher/records.parquet", ("truncate", "overwrite", "append")),
        ("publisher/hierarchies", ("truncate", "append", "binary", "overwrite")),
        ("published", ("truncate", "append", "binary", "overwrite")),
        ("publisher/export-key", ("truncate", "overwrite")),
    ):
        for how in hows:
            f = _file_mutation(under, how)
            kinds[f.__name__] = f
    kinds["records_from_other_release"] = records_from_other_release(other)
    return kinds


KINDS = sorted(mutations(Path("unused")))


# ---------------------------------------------------------------------- the check
def run_process(argv: list[str]) -> tuple[int, str, str]:
    """``anonlab ARGV...`` in a fresh interpreter (``python -m anonlab.cli`` has no
    ``__main__``; this is what the ``anonlab`` script runs)."""
    code = "from anonlab.cli import main; main()"
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=300
    )
    return proc.returncode, proc.stdout, proc.stderr


def check_refused(
    releases: dict[str, Path],
    which: str,
    kind: str,
    seed: int,
    run: Callable[[list[str]], tuple[int, str, str]] = run_cli,
) -> None:
    """Copy a pristine release, corrupt it, run ``anonlab check`` and assert the refusal."""
    work = Path(tempfile.mkdtemp(prefix="fuzz-"))
    try:
        root = work / "rel"
        shutil.copytree(releases[which], root, symlinks=True)
        names = mutations(releases["other"])[kind](root, random.Random(seed))
        before = snapshot(work)
        code, out, err = run(["check", str(root)])
        after = snapshot(work)
        context = f"{kind} (seed {seed}) on the {which} release: exit {code}\n{err}{out[:2000]}"
        assert "Traceback" not in err, context
        assert code == 2, context
        assert err.startswith("error:"), context
        assert any(n in err for n in names), f"none of {names} named; {context}"
        assert len(err) < 2000, context
        assert after == before, f"files changed: {context}"
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("which", ["anatomy", "mondrian", "mask"])
def test_pristine_release_passes_check(releases, which):
    work = Path(tempfile.mkdtemp(prefix="fuzz-"))
    try:
        root = work / "rel"
        shutil.copytree(releases[which], root, symlinks=True)
        before = snapshot(work)
        code, out, err = run_cli(["check", str(root)])
        assert code == 0, err
        assert "Traceback" not in err
        assert snapshot(work) == before
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_corruption_is_refused(releases, kind):
    which = "mondrian" if "published" in kind else "anatomy"
    check_refused(releases, which, kind, seed=KINDS.index(kind))


@settings(max_examples=40, deadline=None, database=None)
@given(
    which=st.sampled_from(["anatomy", "mondrian", "mask"]),
    kind=st.sampled_from(KINDS),
    seed=st.integers(0, 2**32 - 1),
)
def test_corrupted_release_is_refused(releases, which, kind, seed):
    check_refused(releases, which, kind, seed)


@pytest.mark.parametrize("kind", ["m_truncate", "m_deep", "records_from_other_release"])
def test_corrupted_release_is_refused_in_a_fresh_process(releases, kind):
    check_refused(releases, "anatomy", kind, seed=1, run=run_process)
