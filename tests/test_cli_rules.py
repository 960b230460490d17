"""``anonlab rules mine`` / ``anonlab rules show`` on Table I of Li & Li (ICDE 2008)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

TABLE_I = {
    "zip": ["47677", "47602", "47678", "47905", "47909", "47906", "47605", "47673", "47607"],
    "age": [29, 22, 27, 43, 52, 47, 30, 36, 32],
    "sex": ["F", "F", "M", "M", "F", "M", "M", "M", "M"],
    "disease": ["OC", "OC", "PC", "Flu", "HD", "HD", "HD", "Flu", "Flu"],
}


@pytest.fixture
def data(tmp_path: Path) -> tuple[Path, Path]:
    csv = tmp_path / "table1.csv"
    pd.DataFrame(TABLE_I).to_csv(csv, index=False)
    folder = tmp_path / "hierarchies"
    folder.mkdir()
    zips = sorted(set(TABLE_I["zip"]))
    (folder / "zip.csv").write_text("".join(f"{z};{z[:4]}*;{z[:3]}**;*\n" for z in zips))
    ages = sorted(set(TABLE_I["age"]))
    (folder / "age.csv").write_text(
        "".join(
            f"{a};[{a // 10 * 10}-{a // 10 * 10 + 9}];[{a // 20 * 20}-{a // 20 * 20 + 19}];*\n"
            for a in ages
        )
    )
    (folder / "sex.csv").write_text("F;*\nM;*\n")
    return csv, folder


def args(data, *extra: str) -> list[str]:
    csv, folder = data
    return [
        "--data",
        str(csv),
        "--qi",
        "zip,age,sex",
        "--sensitive",
        "disease",
        "--hierarchies",
        str(folder),
        *extra,
    ]


def test_mine_json(cli, data):
    code, out, err = cli(["rules", "mine", *args(data, "--min-exp", "0.75", "--json")])
    assert code == 0, err
    payload = json.loads(out)
    assert payload["n_rules"] == 1
    (rule,) = payload["rules"]
    assert rule["conditions"] == [{"attribute": "sex", "level": 0, "value": "M"}]
    assert rule["sensitive_value"] == "OC"
    assert rule["support_count"] == 6
    assert rule["expectation"] == pytest.approx(1 - (7 / 9) ** 6)
    assert payload["incompatible_values"]["counts"] == [3, 6, 0, 0, 0, 0]


def test_mine_table_and_rule_file_round_trip(cli, data, tmp_path):
    rules = tmp_path / "rules.json"
    code, out, err = cli(
        [
            "rules",
            "mine",
            *args(data, "--min-exp", "0.7", "--max-conditions", "3", "--out", str(rules)),
        ]
    )
    assert code == 0, err
    assert "Figure 3" in out and "5 rules (8 before removing" in out
    assert rules.exists()
    code, out, err = cli(["rules", "show", str(rules), *args(data, "--json")])
    assert code == 0, err
    payload = json.loads(out)
    assert payload["n_rules"] == 5
    assert payload["incompatible_values"]["counts"] == [0, 5, 3, 1, 0, 0]


@pytest.mark.parametrize("bad", ["1.5", "0", "1", "-0.2"])
def test_bad_min_exp_exits_2(cli, data, bad):
    code, out, err = cli(["rules", "mine", *args(data, "--min-exp", bad)])
    assert code == 2
    assert "--min-exp" in err and "(0, 1)" in err
    assert "Traceback" not in err


def test_bad_max_conditions_exits_2(cli, data):
    code, _, err = cli(["rules", "mine", *args(data, "--max-conditions", "0")])
    assert code == 2 and "max_conditions" in err


def test_rule_file_with_unknown_attribute(cli, data, tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(
        json.dumps(
            {
                "sensitive": "disease",
                "rules": [
                    {
                        "conditions": [{"attribute": "gender", "level": 0, "value": "M"}],
                        "sensitive_value": "OC",
                    }
                ],
            }
        )
    )
    code, out, err = cli(["rules", "show", str(path), *args(data)])
    assert code == 2
    assert "unknown attribute 'gender'" in err and "'zip', 'age', 'sex'" in err
    assert "Traceback" not in err and out == ""


def test_rule_file_with_unknown_value(cli, data, tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(
        json.dumps(
            {
                "sensitive": "disease",
                "rules": [
                    {
                        "conditions": [{"attribute": "sex", "level": 0, "value": "M"}],
                        "sensitive_value": "Cold",
                    }
                ],
            }
        )
    )
    code, _, err = cli(["rules", "show", str(path), *args(data)])
    assert code == 2 and "unknown value 'Cold'" in err
