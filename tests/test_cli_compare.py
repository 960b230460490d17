"""CLI: ``anonlab compare`` — rows, frontier and files from the command line; progress per
release on stderr; bad input exits 2 before any work."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from anonlab.release_io import load_release
from anonlab.table import Table

QI = "age,workclass,education,marital-status,race,sex,native-country"
# the CSV has no hierarchies: Mondrian and MASK publish these as value sets, by choice here
VALUE_SETS = "workclass,education,marital-status,race,sex,native-country"
BUDGET = ["--targets", "20", "--chains", "2", "--sweeps", "10", "--k-max", "1",
          "--queries", "100", "--foreground-attributes", "1"]  # fmt: skip


@pytest.fixture(scope="module")
def csv(tmp_path_factory) -> Path:
    """600 seeded rows of adult-train as a CSV."""
    table = Table.from_dataset(
        "adult-train", quasi_identifiers=QI.split(","), sensitive="occupation"
    )
    rows = np.sort(np.random.default_rng(11).choice(table.n_rows, 600, replace=False))
    path = tmp_path_factory.mktemp("data") / "adult600.csv"
    table.take(rows).to_frame().to_csv(path, index=False)
    return path


def args(csv: Path, out: Path, algorithms: str, l: str, *extra: str) -> list[str]:
    return ["compare", "--data", str(csv), "--qi", QI, "--sensitive", "occupation",
            "--algorithms", algorithms, "--l", l, "--out", str(out), *BUDGET,
            "--value-sets", VALUE_SETS, *extra]  # fmt: skip


def dominated(p, q) -> bool:
    """q dominates p."""
    return q[0] <= p[0] and q[1] <= p[1] and (q[0] < p[0] or q[1] < p[1])


def test_compare_json_files_and_progress(csv, tmp_path, cli):
    out = tmp_path / "cmp"
    code, stdout, stderr = cli(args(csv, out, "anatomy,mondrian,mask", "2..3", "--json"))
    assert code == 0, stderr
    payload = json.loads(stdout)
    rows = payload["rows"]
    assert [r["name"] for r in rows] == [f"{a}-l{l}" for a in ("anatomy", "mondrian", "mask")
                                         for l in (2, 3)]  # fmt: skip
    # MASK without --sensitive-values cannot run: a row with the reason, never dropped
    for r in rows[4:]:
        assert r["status"] == "failed" and "sensitive_values" in r["reason"] and not r["pareto"]
        assert not (out / r["name"]).exists()
    placed = [(r["query_error"], r["at_risk_share"]) for r in rows if r["status"] == "ok"]
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) == 4
    for r, p in zip(ok, placed, strict=True):
        assert r["pareto"] == (not any(dominated(p, q) for q in placed))
        assert r["strongest_attack"] in ("definetti", "foreground", "negative-rules",
                                         "algorithm")  # fmt: skip
        assert r["at_risk_share"] == pytest.approx(r["at_risk"] / r["considered"])
        folder = out / r["name"]
        assert (folder / "audit.html").is_file() and (folder / "audit.json").is_file()
        assert load_release(folder).manifest["parameters"]["l"] == r["l"]
    assert set(payload["frontier"]) == {r["name"] for r in ok if r["pareto"]}
    assert json.loads((out / "compare.json").read_text())["rows"] == rows
    assert "<svg" in (out / "compare.html").read_text()
    assert payload["report"] == str(out / "compare.html")
    # one progress line per release on stderr, failures with their reason
    lines = [s for s in stderr.splitlines() if s.startswith("[")]
    assert len(lines) == 6 and lines[0].startswith("[1/6] anatomy-l2:")
    assert "failed" in lines[4] and "sensitive_values" in lines[4]

    # --force replaces the folder; the table output names the frontier
    code, stdout, stderr = cli(args(csv, out, "anatomy", "2", "--force"))
    assert code == 0, stderr
    assert "frontier: anatomy-l2" in stdout and "compare.html" in stdout
    assert sorted(p.name for p in out.iterdir()) == [
        ".anonlab",
        "anatomy-l2",
        "compare.html",
        "compare.json",
    ]


@pytest.mark.parametrize(
    ("algorithms", "l", "extra", "words"),
    [
        ("anatomy", "6..2", [], "range is empty"),
        ("anatomy", "1..3", [], "'l'"),
        ("anatomy,bogus", "2..3", [], "unknown algorithm 'bogus'"),
        ("generalize", "2", [], "takes no ℓ"),
        ("anatomy", "2", ["--stages", "checks,definetti"], "'utility'"),
        ("anatomy", "2", ["--min-exp", "1.5"], "--min-exp"),
    ],
)
def test_bad_input_exits_2(csv, tmp_path, cli, algorithms, l, extra, words):
    out = tmp_path / "cmp"
    code, stdout, stderr = cli(args(csv, out, algorithms, l, *extra))
    assert code == 2
    assert words in stderr and stderr.startswith("error:") and "Traceback" not in stderr
    assert not out.exists()


def test_existing_out_needs_force(csv, tmp_path, cli):
    out = tmp_path / "cmp"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, _, stderr = cli(args(csv, out, "anatomy", "2"))
    assert code == 2 and "already exists" in stderr and "--force" in stderr
    assert (out / "keep.txt").read_text() == "mine"
