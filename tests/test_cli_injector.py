"""CLI: ``anonymize --algorithm injector`` and ``attack rules`` (Li & Li, ICDE 2008)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from anonlab.attacks.negative_rules import negative_rule_attack
from anonlab.mining.negative_rules import mine_negative_rules
from anonlab.release_io import load_release

SEX = list("FFMMFMMMM")
DISEASE = ["OC", "OC", "PC", "Flu", "HD", "HD", "HD", "Flu", "Flu"]


@pytest.fixture
def csv(tmp_path: Path) -> Path:
    """Table I of the paper, three times (27 records), so Anatomy at ℓ = 2 is eligible."""
    df = pd.DataFrame(
        {
            "zip": ["z77", "z02", "z78", "z05", "z09", "z06", "z05", "z73", "z07"] * 3,
            "age": [29, 22, 27, 43, 52, 47, 30, 36, 32] * 3,
            "sex": SEX * 3,
            "disease": DISEASE * 3,
        }
    )
    path = tmp_path / "table1.csv"
    df.to_csv(path, index=False)
    return path


def base(csv: Path) -> list[str]:
    return ["--data", str(csv), "--qi", "zip,age,sex", "--sensitive", "disease"]


def run_json(cli, argv: list[str]) -> dict:
    code, out, err = cli([*argv, "--json"])
    assert code == 0, err
    return json.loads(out)


def test_anonymize_with_injector_then_attack(csv, tmp_path, cli):
    out = tmp_path / "inj"
    summary = run_json(
        cli,
        ["anonymize", *base(csv), "--algorithm", "injector", "--l", "2", "--min-exp", "0.75",
         "--out", str(out)],
    )  # fmt: skip
    assert summary["algorithm"] == "injector" and summary["scheme"] == "bucketization"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["parameters"]["min_expectation"] == 0.75
    assert manifest["parameters"]["max_conditions"] == 1
    assert manifest["suppressed_records"] == 0
    report = run_json(cli, ["attack", "rules", str(out), *base(csv), "--min-exp", "0.75"])
    mined = mine_negative_rules(load_release(out).table, min_expectation=0.75)
    assert report["vulnerable_matching"] == 0 and report["n_rules"] == len(mined) > 0
    assert manifest["n_rules"] == len(mined)
    assert report["records"] == 27 and report["l"] == 2  # ℓ from the manifest


def test_attack_rules_matches_the_api(csv, tmp_path, cli):
    out = tmp_path / "ana"
    run_json(
        cli, ["anonymize", *base(csv), "--algorithm", "anatomy", "--l", "2", "--out", str(out)]
    )
    rules_file = tmp_path / "rules.json"
    release = load_release(out)
    rules = mine_negative_rules(release.table, min_expectation=0.75)
    rules.write(rules_file)
    expected = negative_rule_attack(release, rules, l=3).counts()
    records = tmp_path / "records.csv"
    report = run_json(
        cli, ["attack", "rules", str(out), "--rules", str(rules_file), "--l", "3",
              "--records", str(records)],
    )  # fmt: skip
    for key, value in expected.items():
        assert report[key] == value, key
    per = pd.read_csv(records)
    assert len(per) == 27 and int(per["vulnerable"].sum()) == expected["vulnerable_matching"]
    code, text, err = cli(["attack", "rules", str(out), "--rules", str(rules_file), "--l", "3"])
    assert code == 0, err
    assert "matching" in text and "random worlds" in text
    # Injector from the same rule file; a generalized release (Mondrian) attacked as buckets.
    inj = tmp_path / "inj"
    run_json(
        cli, ["anonymize", *base(csv), "--algorithm", "injector", "--l", "3", "--rules",
              str(rules_file), "--out", str(inj)],
    )  # fmt: skip
    manifest = json.loads((inj / "manifest.json").read_text())
    assert manifest["rules"] == str(rules_file) and manifest["n_rules"] == len(rules)
    report = run_json(cli, ["attack", "rules", str(inj), "--rules", str(rules_file)])
    assert report["vulnerable_matching"] == 0 and report["l"] == 3
    gen = tmp_path / "gen"
    run_json(
        cli,
        ["anonymize", *base(csv), "--algorithm", "mondrian", "--k", "3", "--out", str(gen),
         "--value-sets", "zip,sex"],  # no hierarchies: the sets published by choice
    )  # fmt: skip
    report = run_json(cli, ["attack", "rules", str(gen), "--rules", str(rules_file), "--l", "2"])
    expected = negative_rule_attack(load_release(gen), rules, l=2).counts()
    assert all(report[key] == value for key, value in expected.items())


def assert_clean_failure(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    for w in words:
        assert w in err, f"{w!r} not in {err!r}"


def test_cli_errors_exit_2(csv, tmp_path, cli):
    out = tmp_path / "x"
    inj = ["anonymize", *base(csv), "--algorithm", "injector", "--out", str(out)]
    assert_clean_failure(*cli([*inj, "--l", "5"])[::2], "larger than the sensitive domain")
    assert_clean_failure(*cli([*inj, "--l", "2", "--min-exp", "1.5"])[::2], "min_expectation")
    assert_clean_failure(*cli([*inj, "--l", "2", "--min-exp", "0"])[::2], "(0, 1)")
    assert not out.exists()
    rel = tmp_path / "rel"
    run_json(
        cli, ["anonymize", *base(csv), "--algorithm", "anatomy", "--l", "2", "--out", str(rel)]
    )
    attack = ["attack", "rules", str(rel)]
    assert_clean_failure(*cli(attack)[::2], "--rules")
    assert_clean_failure(*cli([*attack, "--rules", "r.json", *base(csv)])[::2], "either")
    assert_clean_failure(*cli([*attack, *base(csv), "--min-exp", "1"])[::2], "--min-exp")
    assert_clean_failure(*cli([*attack, *base(csv), "--l", "9"])[::2], "sensitive domain")
    assert_clean_failure(*cli([*attack, "--rules", str(tmp_path / "none.json")])[::2])


def test_unprotectable_records_need_suppress(tmp_path, cli):
    """Two women with OC among men who cannot have it: no bucket protects them at ℓ = 2."""
    df = pd.DataFrame(
        {
            "sex": ["F", "F"] + ["M"] * 40,
            "disease": ["OC", "OC"] + ["Flu", "HD", "PC", "Cold"] * 10,
        }
    )
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    args = ["anonymize", "--data", str(path), "--qi", "sex", "--sensitive", "disease",
            "--algorithm", "injector", "--l", "2", "--min-exp", "0.5"]  # fmt: skip
    code, _, err = cli([*args, "--out", str(tmp_path / "a")])
    assert_clean_failure(code, err, "--suppress", "2 of 42 records")
    summary = run_json(cli, [*args, "--suppress", "--out", str(tmp_path / "b")])
    assert summary["suppressed_records"] == 2 and summary["rows"] == 40
    code, text, err = cli([*args, "--suppress", "--out", str(tmp_path / "c")])
    assert code == 0 and "suppressed 2 records" in text
