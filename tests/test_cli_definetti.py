"""``anonlab attack definetti`` end to end: scores beside the baseline, records file, bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anonlab.release_io import load_release

QI = "workclass,relationship,sex,income"


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    import sys

    from anonlab.cli import main

    out = tmp_path_factory.mktemp("definetti") / "rel"
    argv = ["anonlab", "anonymize", "--dataset", "adult-train", "--qi", QI]
    argv += ["--sensitive", "occupation", "--algorithm", "anatomy", "--l", "2", "--out", str(out)]
    old, sys.argv = sys.argv, argv
    try:
        main()
    except SystemExit as exc:
        assert exc.code in (0, None)
    finally:
        sys.argv = old
    return out


def test_json_scores_beat_random_worlds(release_dir, cli):
    argv = ["attack", "definetti", str(release_dir), "--targets", "300", "--iterations", "30"]
    code, out, err = cli([*argv, "--chains", "2", "--json"])
    assert code == 0, err
    res = json.loads(out)
    assert res["targets"] == 300
    assert res["random_worlds"]["ACC"] == pytest.approx(0.5)
    assert res["random_worlds"]["ABS"] == pytest.approx(300.0)
    assert res["definetti"]["ACC"] > res["random_worlds"]["ACC"] + 0.15
    assert res["random_worlds"]["confident_precision"] is None  # NaN -> null
    assert res["breached_beyond"] == "1/2"
    assert 0 < res["breached_records"] <= 300
    assert "with probability" in res["strongest_inference"]


def test_records_file_and_matching_data(release_dir, tmp_path, cli):
    records = tmp_path / "post.parquet"
    original = tmp_path / "orig.csv"
    release = load_release(release_dir)
    release.table.to_frame().to_csv(original, index=False)
    argv = ["attack", "definetti", str(release_dir), "--targets", "50", "--iterations", "10"]
    code, out, err = cli([*argv, "--data", str(original), "--records", str(records)])
    assert code == 0, err
    assert "random worlds" in out
    frame = pd.read_parquet(records)
    assert len(frame) == 50
    probs = frame[[c for c in frame.columns if c.startswith("p[")]].to_numpy()
    assert np.allclose(probs.sum(axis=1), 1)
    assert np.allclose(probs.max(axis=1), frame.top_probability)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--targets", "0"], "--targets must be at least 1"),
        (["--records", "out.txt"], "use a .parquet or .csv"),
        (["--model", "tree"], "model"),
        (["--sampler", "gibbs"], "sampler"),
        (["--threshold", "1.5"], "--threshold"),
    ],
)
def test_bad_options_exit_2(release_dir, tmp_path, cli, extra, words):
    code, _, err = cli(["attack", "definetti", str(release_dir), "--iterations", "2", *extra])
    assert code == 2
    assert words in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.txt").exists()


def test_data_that_does_not_match(release_dir, tmp_path, cli):
    release = load_release(release_dir)
    frame = release.table.to_frame()
    short = tmp_path / "short.csv"
    frame.head(10).to_csv(short, index=False)
    code, _, err = cli(["attack", "definetti", str(release_dir), "--data", str(short)])
    assert code == 2 and "has 10 rows but the release has 30,162" in err
    swapped = frame.copy()
    swapped.loc[0, "sex"] = "Female" if swapped.loc[0, "sex"] == "Male" else "Male"
    bad = tmp_path / "bad.csv"
    swapped.to_csv(bad, index=False)
    code, _, err = cli(["attack", "definetti", str(release_dir), "--data", str(bad)])
    assert code == 2 and "row 0 has sex" in err
    no_col = tmp_path / "nocol.csv"
    frame.drop(columns=["occupation"]).to_csv(no_col, index=False)
    code, _, err = cli(["attack", "definetti", str(release_dir), "--data", str(no_col)])
    assert code == 2 and "lacks column(s) ['occupation']" in err
    strange = frame.copy()
    strange.loc[3, "occupation"] = "Astronaut"
    odd = tmp_path / "odd.csv"
    strange.to_csv(odd, index=False)
    code, _, err = cli(["attack", "definetti", str(release_dir), "--data", str(odd)])
    assert code == 2 and "['Astronaut']" in err and "domain lacks" in err


def test_the_audits_count_beside_the_attacks(release_dir, cli):
    """Issue 19: the command and the audit report the same count for the same settings (the
    audit's definition adds the Monte-Carlo margin, so it counts at most the command's)."""
    from anonlab.report import audit

    argv = ["attack", "definetti", str(release_dir), "--targets", "200", "--iterations", "30"]
    code, out, err = cli([*argv, "--chains", "2", "--seed", "4", "--json"])
    assert code == 0, err
    res = json.loads(out)
    finding = audit(load_release(release_dir), stages=["definetti"], targets=200, chains=2,
                    sweeps=30, seed=4).finding("definetti")  # fmt: skip
    assert res["audit_at_risk"] == finding.at_risk <= res["breached_records"]
    assert res["audit_promise"] == finding.promise == "1/ℓ = 1/2"
    assert res["strongest_inference"] == finding.strongest
