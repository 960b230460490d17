"""`anonlab attack algorithm` and `anonlab asap-check` (Jin et al.: algorithm-based disclosure)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

FIG8 = ["gastritis", "gastritis", "heart disease", "diabetes", "cancer", "mumps", "AIDS", "AIDS"]


@pytest.fixture
def fig8_csv(tmp_path: Path) -> Path:
    path = tmp_path / "fig8.csv"
    pd.DataFrame({"x": range(1, 9), "s": FIG8}).to_csv(path, index=False)
    return path


def _release(cli, csv: Path, out: Path, algorithm: str, *extra: str) -> Path:
    code, _, err = cli(
        ["anonymize", "--data", str(csv), "--qi", "x", "--sensitive", "s"]
        + ["--algorithm", algorithm, "--out", str(out), *extra]
    )
    assert code == 0, err
    return out


def test_attack_algorithm_on_hilb_runs_algorithm7_and_the_checker(cli, fig8_csv, tmp_path):
    rel = _release(cli, fig8_csv, tmp_path / "r", "hilb", "--l", "2")
    code, out, err = cli(["attack", "algorithm", str(rel), "--json"])
    assert code == 0, err
    res = json.loads(out)
    assert res["algorithm"] == "hilb"
    assert res["applied"]["hilb-algorithm7"]["union_compromised"] == 4
    assert res["applied"]["hilb-algorithm7"]["strict_compromised"] == 4
    assert res["applied"]["asap-check"]["safe"] is False
    assert "mask-phd25" in res["skipped"]
    code, out, _ = cli(["attack", "algorithm", str(rel)])
    assert code == 0 and "union compromised" in out and "algorithm-based disclosure" in out


def test_attack_algorithm_says_when_nothing_applies(cli, tmp_path):
    rng = np.random.default_rng(0)
    csv = tmp_path / "big.csv"
    pd.DataFrame({"x": rng.integers(0, 50, 40), "s": list("abcd") * 10}).to_csv(csv, index=False)
    rel = _release(cli, csv, tmp_path / "r", "mondrian", "--l", "2")
    code, out, err = cli(["attack", "algorithm", str(rel)])
    assert code == 0, err
    assert "No algorithm-based attack applies" in out
    assert "at most 12 records" in out


def test_asap_check_json_flags_hilb_and_passes_cut_variant(cli, fig8_csv):
    args = ["asap-check", "--algorithm", "hilb", str(fig8_csv), "--qi", "x", "--sensitive", "s"]
    code, out, err = cli([*args, "--l", "2", "--json"])
    assert code == 0, err
    res = json.loads(out)
    assert res["safe"] is False and sorted(res["rising_records"]) == [0, 1, 2, 3]
    assert res["max_increase"] == pytest.approx(0.5)
    args[2] = "hilb+"
    code, out, err = cli([*args, "--l", "2", "--param", "variant=cut", "--json"])
    assert code == 0, err
    assert json.loads(out)["safe"] is True


def test_asap_check_negative_fact_and_table_output(cli, tmp_path):
    csv = tmp_path / "run.csv"
    pd.DataFrame(
        {
            "x": [7, 9, 6, 1, 2, 8, 3, 5],
            "y": [6, 5, 2, 1, 3, 1, 4, 5],
            "s": ["AIDS", "diabetes", "hd", "cancer", "cancer", "mumps", "gastritis", "gastritis"],
        }
    ).to_csv(csv, index=False)
    code, out, err = cli(
        ["asap-check", "--algorithm", "mondrian", str(csv), "--qi", "x,y", "--sensitive", "s"]
        + ["--l", "2", "--not", "3=gastritis"]
    )
    assert code == 0, err
    assert "algorithm-based disclosure" in out and "0.3333" in out and "1.0000" in out


def test_asap_check_errors_are_clear(cli, tmp_path, fig8_csv):
    big = tmp_path / "big.csv"
    pd.DataFrame({"x": range(13), "s": list("abc") * 4 + ["a"]}).to_csv(big, index=False)
    base = ["--qi", "x", "--sensitive", "s", "--l", "2"]
    code, _, err = cli(["asap-check", "--algorithm", "mondrian", str(big), *base])
    assert code == 2 and "at most 12 records" in err and "Traceback" not in err
    code, _, err = cli(["asap-check", "--algorithm", "nope", str(fig8_csv), *base])
    assert code == 2 and "unknown algorithm" in err
    code, _, err = cli(["asap-check", "--algorithm", "hilb", str(fig8_csv), *base, "--not", "x"])
    assert code == 2 and "ROW=VALUE" in err
    code, _, err = cli(
        ["asap-check", "--algorithm", "hilb", str(fig8_csv), *base, "--param", "bogus=1"]
    )
    assert code == 2 and "bogus" in err


def test_anonymize_mask_plus_fill_option(cli, tmp_path):
    """--fill reaches MASK+ (recorded in the manifest, same as the API); bad values and
    algorithms without a fill exit 2 naming the parameter."""
    from anonlab import Table
    from anonlab.anonymize import anonymize
    from anonlab.release_io import load_release

    base = ["anonymize", "--dataset", "adult", "--qi", "age,sex,race", "--sensitive",
            "education", "--k", "50", "--m", "3", "--seed", "4"]  # fmt: skip
    code, _, err = cli([*base, "--algorithm", "mask+", "--fill", "random", "--out",
                        str(tmp_path / "r")])  # fmt: skip
    assert code == 0, err
    release = load_release(tmp_path / "r")
    assert release.manifest["parameters"]["fill"] == "random"
    table = Table.from_dataset("adult", quasi_identifiers=["age", "sex", "race"],
                               sensitive="education")  # fmt: skip
    api = anonymize(table, "mask+", k=50, m=3, fill="random", seed=4)
    assert (release.published_sensitive == api.published_sensitive).all()
    code, _, err = cli([*base, "--algorithm", "mask+", "--fill", "bogus", "--out",
                        str(tmp_path / "b")])  # fmt: skip
    assert code == 2 and "fill" in err and "random" in err and "Traceback" not in err
    code, _, err = cli([*base, "--algorithm", "mondrian", "--fill", "random", "--out",
                        str(tmp_path / "c")])  # fmt: skip
    assert code == 2 and "fill" in err
