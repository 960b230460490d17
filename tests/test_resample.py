"""``Table.resample`` and the CLI's ``--resample N`` (issue 10): seeded draws with replacement."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.errors import AnonlabError


@pytest.fixture(scope="module")
def small(make_table):
    return make_table(
        {
            "age": [20, 30, 30, 40, 50, 60],
            "sex": ["F", "M", "F", "M", "F", "M"],
            "s": ["a", "b", "c", "a", "b", "z"],
        },
        qi=["age", "sex"],
        sensitive="s",
    )


def test_seeded_determinism_and_seed_matters(small):
    a, b, c = small.resample(500, seed=3), small.resample(500, seed=3), small.resample(500, seed=4)
    for name in small.codes:
        assert np.array_equal(a.codes[name], b.codes[name])
    assert any(not np.array_equal(a.codes[n], c.codes[n]) for n in small.codes)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 300), seed=st.integers(0, 2**32))
def test_rows_are_whole_source_records(small, n, seed):
    """Every drawn record equals some source record (columns drawn together, not independently),
    the row count is n, domains and schema are unchanged, row ids are 0..n-1."""
    r = small.resample(n, seed=seed)
    assert r.n_rows == n and len(r.row_id) == n
    assert np.array_equal(r.row_id, np.arange(n))
    assert r.schema == small.schema
    for name in small.codes:
        assert list(r.values[name]) == list(small.values[name])
        assert r.codes[name].dtype == small.codes[name].dtype
    source = {tuple(row) for row in np.stack(list(small.codes.values()), axis=1).tolist()}
    drawn = {tuple(row) for row in np.stack(list(r.codes.values()), axis=1).tolist()}
    assert drawn <= source


def test_with_replacement_and_uniform(small):
    """More rows than the source (so repeats), each source row drawn ~n/6 times."""
    r = small.resample(60_000, seed=0)
    # the sensitive value z occurs once in 6 source rows
    share = np.mean(r.column("s") == "z")
    assert abs(share - 1 / 6) < 0.01  # 6 sigma is about 0.009
    assert set(r.column("age")) == {20, 30, 40, 50, 60}


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_bad_n(small, bad):
    with pytest.raises(AnonlabError, match="positive integer"):
        small.resample(bad, seed=0)


def test_cli_resample_manifest(cli, tmp_path):
    out = tmp_path / "rel"
    code, stdout, _ = cli(
        [
            "anonymize",
            "--dataset",
            "adult-train",
            "--algorithm",
            "anatomy",
            "--l",
            "2",
            "--resample",
            "1234",
            "--seed",
            "7",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0, stdout
    assert json.loads(stdout)["rows"] == 1234
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"] == 1234
    assert manifest["resample"] == {
        "rows": 1234,
        "seed": 7,
        "source": "adult-train",
        "with_replacement": True,
    }


@pytest.mark.parametrize("bad", ["0", "-5"])
def test_cli_bad_resample_exits_2(cli, tmp_path, bad):
    code, _, err = cli(
        [
            "anonymize",
            "--dataset",
            "adult-train",
            "--algorithm",
            "anatomy",
            "--l",
            "2",
            "--resample",
            bad,
            "--out",
            str(tmp_path / "r"),
        ]
    )
    assert code == 2
    assert "--resample" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()
