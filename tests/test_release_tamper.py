"""Issue 16, items 4 and 5: release directories are tamper-evident; nothing is lost by accident.

Each case edits a real release the way the issue's hostile user did and asserts that loading it
fails with an AnonlabError naming the problem, through the API and through the CLI (exit 2, no
traceback). "Resealed" edits are made by someone holding the export key (they recompute the
checksums and the seal), so they test the checks on the records themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from anonlab import export_order
from anonlab.anonymize import anatomy, mondrian
from anonlab.atomic_output import MARKER, atomic_directory, atomic_write_text
from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.release_io import load_release, save_release
from anonlab.release_io.folder import _file_table
from anonlab.release_io.folder import canonical_manifest as _canonical
from anonlab.table import Table


@pytest.fixture(scope="module")
def table() -> Table:
    rng = np.random.default_rng(4)
    n = 200
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "zip": rng.choice(["13053", "13068", "14850", "14853"], n),
            "disease": rng.choice(["flu", "cold", "hiv", "ulcer", "acne"], n),
        }
    )
    zip_h = Hierarchy(
        [["13053", "130**"], ["13068", "130**"], ["14850", "148**"], ["14853", "148**"]],
        name="zip",
    )
    return Table.from_frame(
        frame, quasi_identifiers=["age", "zip"], sensitive="disease", hierarchies={"zip": zip_h}
    )


@pytest.fixture
def release_dir(table, tmp_path):
    return save_release(anatomy(table, l=2, seed=3), tmp_path / "rel")


def _reseal(path) -> None:
    """Recompute the checksums and the seal, as someone holding the export key could."""
    manifest = json.loads((path / "manifest.json").read_text())
    key = export_order.read_export_key(path / "publisher" / "export-key")
    manifest["files"] = _file_table(path)
    manifest["seal"] = export_order.mac(key, _canonical(manifest))
    (path / "manifest.json").write_text(json.dumps(manifest))


def _edit_records(path, edit) -> None:
    records = path / "publisher" / "records.parquet"
    os.chmod(records, 0o600)
    frame = pd.read_parquet(records)
    edit(frame).to_parquet(records, index=False)


def _edit_manifest(path, edit) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    edit(manifest)
    (path / "manifest.json").write_text(json.dumps(manifest))


def _set(key, value):
    def edit(m):
        m[key] = value

    return edit


def _negative_groups(f):
    f["__group__"] = -f["__group__"] - 1
    return f


def _fractional_groups(f):
    f["__group__"] = f["__group__"] + 0.5
    return f


def _equal_row_ids(f):
    f["__row_id__"] = 0
    return f


CASES = {
    # (edit, reseal, the message must match)
    "manifest rows 999": (lambda p: _edit_manifest(p, _set("rows", 999)), False, "seal"),
    "manifest rows 999, resealed": (
        lambda p: _edit_manifest(p, _set("rows", 999)),
        True,
        "200 records but manifest.json says rows = 999",
    ),
    "records truncated to 50 rows": (
        lambda p: _edit_records(p, lambda f: f.head(50)),
        False,
        "records.parquet.*changed",
    ),
    "records truncated to 50 rows, resealed": (
        lambda p: _edit_records(p, lambda f: f.head(50)),
        True,
        "50 records but manifest.json says rows = 200",
    ),
    "negative group ids, resealed": (
        lambda p: _edit_records(p, _negative_groups),
        True,
        "group ids must lie in 0..",
    ),
    "fractional group ids, resealed": (
        lambda p: _edit_records(p, _fractional_groups),
        True,
        "'__group__' holds float64 values, not integers",
    ),
    "all row ids equal, resealed": (
        lambda p: _edit_records(p, _equal_row_ids),
        True,
        "row ids must be distinct",
    ),
    "published file edited": (
        lambda p: (p / "published" / "st.csv").write_text("group,disease,count\n0,flu,200\n"),
        False,
        "st.csv.*changed",
    ),
    "published file appended to": (
        lambda p: open(p / "published" / "qit.csv", "a").write("0,20,13053\n"),
        False,
        "qit.csv.*changed",
    ),
    "an extra published file": (
        lambda p: (p / "published" / "extra.csv").write_text("a\n1\n"),
        False,
        "extra.csv.*not a file of this release",
    ),
    "hierarchy deleted": (
        lambda p: (p / "publisher" / "hierarchies" / "zip.csv").unlink(),
        False,
        "zip.csv.*missing",
    ),
    "export key deleted": (
        lambda p: (p / "publisher" / "export-key").unlink(),
        False,
        "export-key.*missing",
    ),
    "export key replaced": (
        lambda p: (p / "publisher" / "export-key").write_text("ab" * 32),
        False,
        "export-key.*changed",
    ),
    "export key replaced, resealed with the old key's checksums only": (
        lambda p: (
            (p / "publisher" / "export-key").write_text("ab" * 32 + "\n"),
            _edit_manifest(p, lambda m: m["files"].update(_file_table(p))),
        ),
        False,
        "seal does not match",
    ),
    "manifest path leaves the folder": (
        lambda p: _edit_manifest(
            p, lambda m: m["schema"][1].update(hierarchy_file="../../../etc/passwd")
        ),
        False,
        "not a path inside the release folder|hierarchy_file",
    ),
    "manifest lists an absolute path": (
        lambda p: _edit_manifest(
            p, lambda m: m["files"].update({"/etc/passwd": {"sha256": "0" * 64, "bytes": 1}})
        ),
        False,
        "/etc/passwd",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_tampered_release_is_refused(release_dir, case):
    edit, reseal, message = CASES[case]
    edit(release_dir)
    if reseal:
        _reseal(release_dir)
    with pytest.raises(AnonlabError, match=message):
        load_release(release_dir)


def test_a_records_file_linked_to_another_release_is_refused(table, tmp_path):
    a = save_release(anatomy(table, l=2, seed=3), tmp_path / "a")
    b = save_release(anatomy(table, l=2, seed=4), tmp_path / "b")
    target = b / "publisher" / "records.parquet"
    target.unlink()
    target.symlink_to(a / "publisher" / "records.parquet")
    with pytest.raises(AnonlabError, match="symbolic link"):
        load_release(b)


def test_a_linked_publisher_folder_is_refused(table, tmp_path):
    a = save_release(anatomy(table, l=2, seed=3), tmp_path / "a")
    b = save_release(anatomy(table, l=2, seed=4), tmp_path / "b")
    shutil.rmtree(b / "publisher")
    (b / "publisher").symlink_to(a / "publisher")
    with pytest.raises(AnonlabError, match="symbolic link"):
        load_release(b)


def test_reading_outside_the_folder_echoes_nothing(release_dir, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("TOPSECRETLINE;x\n")
    rel = os.path.relpath(secret, release_dir)
    _edit_manifest(release_dir, lambda m: m["schema"][1].update(hierarchy_file=rel))
    with pytest.raises(AnonlabError) as info:
        load_release(release_dir)
    assert "TOPSECRETLINE" not in str(info.value)


@pytest.mark.parametrize("name", ["../../x", "a/b", "..", "/abs", "c:evil", "ok.", "AGE"])
def test_attribute_names_never_become_paths(tmp_path, name):
    frame = pd.DataFrame(
        {name: ["a", "b", "a", "b"] * 5, "age": list(range(20)), "s": ["x", "y"] * 10}
    )
    h = Hierarchy([["a", "*"], ["b", "*"]], name=name)
    hierarchies = {name: h}
    if name == "AGE":  # differs from another attribute's name only by case
        hierarchies["age"] = Hierarchy([[str(a), "*"] for a in range(20)], name="age")
    table = Table.from_frame(
        frame, quasi_identifiers=[name, "age"], sensitive="s", hierarchies=hierarchies
    )
    out = tmp_path / "deep" / "rel"
    out.parent.mkdir()
    save_release(mondrian(table, k=2, seed=0), out)
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")}
    assert all(w.startswith("deep") for w in written)
    hierarchy_files = sorted(p.name for p in (out / "publisher" / "hierarchies").iterdir())
    assert len(hierarchy_files) == len(hierarchies)
    loaded = load_release(out)
    assert loaded.table.schema[name].hierarchy is not None


def test_publisher_copy_is_readable_by_the_owner_only(release_dir):
    for p in [release_dir / "publisher", *(release_dir / "publisher").rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode & 0o077 == 0, (p, oct(mode))
    assert stat.S_IMODE((release_dir / "manifest.json").stat().st_mode) & 0o077 == 0


# ---------------------------------------------------------------------- --force and leftovers
def test_force_refuses_a_folder_anonlab_did_not_write(table, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    (out / "sub").mkdir()
    with pytest.raises(AnonlabError, match="only a folder that anonlab wrote"):
        save_release(anatomy(table, l=2, seed=3), out, force=True)
    assert (out / "thesis.tex").read_text() == "years of work" and (out / "sub").is_dir()
    assert sorted(os.listdir(tmp_path)) == ["mine"]


def test_force_replaces_a_release(table, tmp_path):
    out = save_release(anatomy(table, l=2, seed=3), tmp_path / "rel")
    assert (out / MARKER).is_file()
    save_release(anatomy(table, l=2, seed=5), out, force=True)
    assert load_release(out).manifest["seed"] == 5
    assert sorted(os.listdir(tmp_path)) == ["rel"]


@pytest.mark.parametrize("where", [".", ".."])
def test_force_never_replaces_the_working_folder(table, tmp_path, monkeypatch, where):
    work = tmp_path / "work"
    work.mkdir()
    (work / MARKER).write_text("x")  # even one that looks like anonlab's
    monkeypatch.chdir(work)
    with pytest.raises(AnonlabError, match="working folder"):
        save_release(anatomy(table, l=2, seed=3), where, force=True)
    assert sorted(os.listdir(tmp_path)) == ["work"]
    assert sorted(os.listdir(work)) == [MARKER]


def test_leftovers_of_a_killed_writer_are_removed_on_the_next_run(table, tmp_path):
    """A writer killed mid-write (SIGKILL: no cleanup runs) leaves its temporary folder with
    ground truth in it; the next write to the same target removes it."""
    code = (
        "import os, sys\n"
        "from anonlab.atomic_output import atomic_directory\n"
        f"with atomic_directory({str(tmp_path / 'rel')!r}) as tmp:\n"
        "    (tmp / 'records.txt').write_text('ground truth')\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=False)
    left = [p for p in os.listdir(tmp_path) if p.startswith(".rel.tmp-")]
    assert len(left) == 1  # the kill left it behind
    save_release(anatomy(table, l=2, seed=3), tmp_path / "rel")
    assert sorted(os.listdir(tmp_path)) == ["rel"]


def test_a_live_writers_temporary_folder_is_left_alone(tmp_path):
    with atomic_directory(tmp_path / "a") as tmp_a:
        with atomic_directory(tmp_path / "a.b"):
            pass
        assert tmp_a.is_dir()  # the other target's cleanup did not touch it
        atomic_write_text(tmp_a / "x.txt", "x")
    assert (tmp_path / "a" / "x.txt").read_text() == "x"


# ---------------------------------------------------------------------- the CLI
CLI_CASES = ["manifest rows 999", "records truncated to 50 rows, resealed", "hierarchy deleted"]


@pytest.mark.parametrize("case", CLI_CASES)
@pytest.mark.parametrize("command", [["check"], ["utility", "--queries", "10"]])
def test_the_cli_refuses_a_tampered_release(release_dir, cli, case, command):
    edit, reseal, message = CASES[case]
    edit(release_dir)
    if reseal:
        _reseal(release_dir)
    before = {p: p.read_bytes() for p in release_dir.rglob("*") if p.is_file()}
    code, out, err = cli([command[0], str(release_dir), *command[1:]])
    assert code == 2
    assert err.startswith("error:") and "Traceback" not in err + out
    assert {p: p.read_bytes() for p in release_dir.rglob("*") if p.is_file()} == before


def test_cli_force_refuses_a_user_folder(table, tmp_path, cli):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep")
    code, _, err = cli(
        [
            "anonymize",
            "--dataset",
            "adult",
            "--qi",
            "age,sex",
            "--sensitive",
            "occupation",
            "--algorithm",
            "anatomy",
            "--l",
            "2",
            "--out",
            str(out),
            "--force",
        ]
    )
    assert code == 2 and "only a folder that anonlab wrote" in err
    assert (out / "notes.txt").read_text() == "keep"


def test_force_replaces_an_old_release_without_the_marker(table, tmp_path):
    out = save_release(anatomy(table, l=2, seed=3), tmp_path / "rel")
    (out / MARKER).unlink()  # as written before the marker existed
    save_release(anatomy(table, l=2, seed=5), out, force=True)
    assert load_release(out).manifest["seed"] == 5


@pytest.mark.parametrize(
    "manifest",
    ['{"anonlab_version": "0.1.0"}', 'notes mentioning "anonlab_version"', "[1, 2]"],
)
def test_force_refuses_a_folder_that_merely_has_a_manifest(table, tmp_path, manifest):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "manifest.json").write_text(manifest)  # no publisher/ folder, or not a manifest
    with pytest.raises(AnonlabError, match="only a folder that anonlab wrote"):
        save_release(anatomy(table, l=2, seed=3), out, force=True)
    assert (out / "manifest.json").read_text() == manifest
