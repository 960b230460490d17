"""Issue 17, item 3: no exact values in disguise.

A generalized release never publishes a quasi-identifier as the set of its group members' exact
values unless the publisher chose it for that column (``value_sets``): publishing is refused,
naming the column and the builders that fit; dates get an automatic date hierarchy; bucketized
releases and imports of releases made elsewhere are not affected."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anonlab.anonymize import anatomy, mondrian, publication_scheme
from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.release import require_no_value_sets, value_set_columns
from anonlab.release_io import import_generalized, load_release, save_release
from anonlab.report import audit
from anonlab.table import Table

N = 120


def _frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 70, N),
            "ward": rng.choice(["cardio", "neuro", "onco", "ortho", "pedia"], N),
            "born": pd.to_datetime("1950-01-01")
            + pd.to_timedelta(rng.integers(0, 20_000, N), unit="D"),
            "s": rng.choice(list("abcd"), N),
        }
    )


def _table(**kw) -> Table:
    return Table.from_frame(
        _frame(), quasi_identifiers=["age", "ward", "born"], sensitive="s", **kw
    )


def test_text_without_hierarchy_is_refused_when_published(tmp_path):
    table = _table()
    assert value_set_columns(table) == ["ward"]  # dates have their automatic hierarchy
    release = mondrian(table, k=4)  # the partition is the publisher's copy: allowed
    with pytest.raises(AnonlabError) as exc:
        save_release(release, tmp_path / "rel")
    msg = str(exc.value)
    assert "quasi-identifier 'ward' has no hierarchy" in msg
    assert "ward: builders that fit its values: order, mapping, suppress" in msg
    assert "--value-sets ward" in msg and "value_sets=['ward']" in msg
    assert not (tmp_path / "rel").exists()  # nothing half-written
    with pytest.raises(AnonlabError, match="'ward' has no hierarchy"):
        release.published_frames()


def test_value_sets_by_choice_publish_and_are_flagged(tmp_path):
    table = _table(value_sets=["ward"])
    assert table.schema.value_sets == ("ward",)
    release = mondrian(table, k=4)
    labels = release.published_frames()["generalized"]["ward"]
    assert labels.str.startswith("{").any()  # the sets the publisher asked for
    save_release(release, tmp_path / "rel")
    manifest = json.loads((tmp_path / "rel" / "manifest.json").read_text())
    entry = next(a for a in manifest["schema"] if a["name"] == "ward")
    assert entry["value_sets"] is True
    back = load_release(tmp_path / "rel")
    assert back.table.schema.value_sets == ("ward",)
    # and the audit still flags every record of a group published as a set
    finding = audit(back, stages=["checks"]).finding("checks")
    assert set(finding.settings["value_sets"]) == {"ward"}


def test_dates_publish_hierarchy_nodes_never_exact_dates():
    frame = _frame()
    release = mondrian(_table(value_sets=["ward"]), k=4)
    born = release.published_frames()["generalized"]["born"]
    exact = set(frame["born"].dt.strftime("%Y-%m-%d"))
    # a month (7 characters), a year (4), a 5-year band (9) or *; an exact date only when
    # every member of the group shares it (k of them)
    assert not born.str.startswith("{").any()
    shared = born[born.isin(exact)]
    for value in shared.unique():
        assert (born == value).sum() >= 4


def test_bucketization_and_a_hierarchy_are_not_refused(tmp_path):
    save_release(anatomy(_table(), l=2), tmp_path / "anatomy")
    ward = Hierarchy([[w, "*"] for w in ["cardio", "neuro", "onco", "ortho", "pedia"]])
    save_release(mondrian(_table(hierarchies={"ward": ward}), k=4), tmp_path / "mondrian")
    release = mondrian(_table(), k=4, scheme="bucketization")
    save_release(release, tmp_path / "bucketized")


@pytest.mark.parametrize(
    ("value_sets", "expected"),
    [
        (["age"], "quasi-identifier 'age' is numeric"),
        (["s"], "'s' is not a quasi-identifier"),
        (["nope"], "'nope' is not a quasi-identifier"),
        (["born"], "quasi-identifier 'born' has a hierarchy"),  # its automatic one
    ],
)
def test_value_sets_name_a_text_quasi_identifier_without_hierarchy(value_sets, expected):
    with pytest.raises(AnonlabError, match=expected):
        _table(value_sets=value_sets)


def test_publication_scheme():
    assert publication_scheme("mondrian") == "generalization"
    assert publication_scheme("mondrian", "bucketization") == "bucketization"
    assert publication_scheme("anatomy") == "bucketization"
    assert publication_scheme("injector") == "bucketization"
    assert publication_scheme("lattice") is None  # full-domain: hierarchies required anyway
    table = _table()
    require_no_value_sets(table, "bucketization")
    with pytest.raises(AnonlabError, match="'ward'"):
        require_no_value_sets(table, "generalization")


def test_an_import_republishes_its_sets(tmp_path):
    release = mondrian(_table(value_sets=["ward"]), k=4)
    path = tmp_path / "elsewhere.csv"
    release.published_frames()["generalized"].to_csv(path, index=False)
    imported = import_generalized(path, _table(), group_column="group")
    assert imported.table.schema.value_sets == ("ward",)  # the maker's choice, kept
    save_release(imported, tmp_path / "imported")


# ---------------------------------------------------------------------- the CLI


def _csv(tmp_path) -> str:
    frame = _frame()
    frame["born"] = frame["born"].dt.strftime("%Y-%m-%d")
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    return str(path)


def _argv(data: str, out, *extra: str) -> list[str]:
    return ["anonymize", "--data", data, "--qi", "age,ward,born", "--sensitive", "s",
            "--algorithm", "mondrian", "--k", "4", "--out", str(out), *extra]  # fmt: skip


def test_cli_refuses_before_any_work_and_names_the_way_out(cli, tmp_path):
    code, stdout, stderr = cli(_argv(_csv(tmp_path), tmp_path / "out"))
    assert code == 2 and stdout == ""
    assert "quasi-identifier 'ward' has no hierarchy" in stderr and "--value-sets ward" in stderr
    assert "Traceback" not in stderr
    assert not (tmp_path / "out").exists()


def test_cli_value_sets_by_choice_are_printed(cli, tmp_path):
    code, stdout, stderr = cli(_argv(_csv(tmp_path), tmp_path / "out", "--value-sets", "ward"))
    assert code == 0, stderr
    text = " ".join(stdout.split())  # the console wraps long lines
    assert "by choice (every member's exact value; --value-sets): ward" in text
    assert "born: date (inferred); hierarchy automatic: month, year, 5-year, *" in text
    published = pd.read_csv(tmp_path / "out" / "published" / "generalized.csv", dtype=str)
    assert not published["born"].str.startswith("{").any()
    code, stdout, stderr = cli(
        _argv(_csv(tmp_path), tmp_path / "out2", "--value-sets", "ward", "--json")
    )
    assert code == 0, stderr
    assert json.loads(stdout)["columns"]["value_sets"] == ["ward"]


def test_cli_anatomy_needs_no_choice(cli, tmp_path):
    argv = _argv(_csv(tmp_path), tmp_path / "out")
    argv[argv.index("mondrian")] = "anatomy"
    argv[argv.index("--k") : argv.index("--k") + 2] = ["--l", "2"]
    code, stdout, stderr = cli(argv)
    assert code == 0, stderr


def test_an_import_with_a_star_is_not_republished_as_sets(tmp_path):
    # another tool suppressed 'ward' to '*' in a group of several wards: re-exporting the import
    # would publish that group's exact wards as a set, so the import is not marked value_sets
    # and saving it is refused, naming the column
    release = mondrian(_table(value_sets=["ward"]), k=4)
    frame = release.published_frames()["generalized"]
    several = frame["ward"].str.startswith("{")
    assert several.any()
    frame.loc[several, "ward"] = "*"
    path = tmp_path / "elsewhere.csv"
    frame.to_csv(path, index=False)
    imported = import_generalized(path, _table(), group_column="group")
    assert imported.table.schema.value_sets == ()
    with pytest.raises(AnonlabError, match="'ward' has no hierarchy"):
        save_release(imported, tmp_path / "imported")
    assert not (tmp_path / "imported").exists()


def test_cli_import_with_a_star_names_the_way_out(cli, tmp_path):
    release = mondrian(_table(value_sets=["ward"]), k=4)
    frame = release.published_frames()["generalized"]
    frame.loc[frame["ward"].str.startswith("{"), "ward"] = "*"
    published = tmp_path / "elsewhere.csv"
    frame.to_csv(published, index=False)
    data = _csv(tmp_path)
    argv = ["import", "--generalized", str(published), "--group-column", "group",
            "--data", data, "--qi", "age,ward,born", "--sensitive", "s",
            "--out", str(tmp_path / "rel")]  # fmt: skip
    code, stdout, stderr = cli(argv)
    assert code == 2 and "'ward' has no hierarchy" in stderr and "--value-sets ward" in stderr
    code, stdout, stderr = cli([*argv, "--value-sets", "ward"])  # the publisher's choice
    assert code == 0, stderr
