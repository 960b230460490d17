"""Bad input at the command line: a clear message, exit code 2, no traceback, no partial output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "zip": rng.choice(["10001", "10002", "10003"], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": np.tile(["flu", "cold", "hiv", "cancer", "ulcer", "gastritis"], n // 6),
        }
    )
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


def anonymize_args(csv: Path, out: Path, *extra: str) -> list[str]:
    return [
        "anonymize",
        "--data",
        str(csv),
        "--qi",
        "age,zip,sex",
        "--sensitive",
        "disease",
        "--algorithm",
        "mondrian",
        "--l",
        "2",
        "--value-sets",  # zip and sex have no hierarchy: their sets are published by choice
        "sex",
        "--out",
        str(out),
        *extra,
    ]


def assert_clean_failure(code: int, err: str, out_dir: Path, *words: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    for w in words:
        assert w in err, f"{w!r} not in {err!r}"
    assert not out_dir.exists()
    leftovers = [p for p in out_dir.parent.iterdir() if p.name.startswith(f".{out_dir.name}.")]
    assert leftovers == []


def test_good_run_writes_release(csv, tmp_path, cli):
    out = tmp_path / "rel"
    code, stdout, err = cli(anonymize_args(csv, out))
    assert code == 0, err
    assert (out / "manifest.json").is_file()
    assert (out / "published" / "generalized.csv").is_file()


def test_missing_file(tmp_path, cli):
    out = tmp_path / "rel"
    code, _, err = cli(anonymize_args(tmp_path / "nope.csv", out))
    assert_clean_failure(code, err, out, "nope.csv", "does not exist")


def test_unknown_column(csv, tmp_path, cli):
    out = tmp_path / "rel"
    argv = anonymize_args(csv, out)
    argv[argv.index("age,zip,sex")] = "age,zipcode"
    code, _, err = cli(argv)
    assert_clean_failure(code, err, out, "zipcode", "columns")


def test_sensitive_also_quasi_identifier(csv, tmp_path, cli):
    out = tmp_path / "rel"
    argv = anonymize_args(csv, out)
    argv[argv.index("age,zip,sex")] = "age,zip,disease"
    code, _, err = cli(argv)
    assert_clean_failure(code, err, out, "disease", "role")


def test_empty_table(tmp_path, cli):
    path = tmp_path / "empty.csv"
    path.write_text("age,zip,sex,disease\n")
    out = tmp_path / "rel"
    code, _, err = cli(anonymize_args(path, out))
    assert_clean_failure(code, err, out, "empty")


def test_missing_values_in_qi(csv, tmp_path, cli):
    df = pd.read_csv(csv)
    df["zip"] = df["zip"].astype(str)
    df.loc[[3, 7], "zip"] = "?"
    path = tmp_path / "missing.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "rel"
    code, _, err = cli(anonymize_args(path, out))
    assert_clean_failure(code, err, out, "'zip'", "2 missing", "--drop-missing")
    code, stdout, err = cli(anonymize_args(path, out, "--drop-missing"))
    assert code == 0, err
    assert "dropped 2 rows" in stdout


def test_value_absent_from_hierarchy(csv, tmp_path, cli):
    hier = tmp_path / "hier"
    hier.mkdir()
    (hier / "zip.csv").write_text("10001;1000*;*\n10002;1000*;*\n")
    out = tmp_path / "rel"
    code, _, err = cli(anonymize_args(csv, out, "--hierarchies", str(hier)))
    assert_clean_failure(code, err, out, "10003", "zip", "hierarchy")


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--l", "7", ("not 7-eligible", "largest ℓ")),
        ("--k", "1000", ("k = 1000", "largest k")),
        ("--l", "-1", ("'l'", ">= 1")),
        ("--k", "0", ("'k'", ">= 1")),
        ("--seed", "-5", ("'seed'", ">= 0")),
    ],
)
def test_bad_parameters(csv, tmp_path, cli, flag, value, words):
    out = tmp_path / "rel"
    argv = anonymize_args(csv, out)
    if flag in argv:
        argv[argv.index(flag) + 1] = value
    else:
        argv += [flag, value]
    code, _, err = cli(argv)
    assert_clean_failure(code, err, out, *words)


def test_non_integer_parameter(csv, tmp_path, cli):
    out = tmp_path / "rel"
    argv = anonymize_args(csv, out)
    argv[argv.index("--l") + 1] = "2.5"
    code, _, err = cli(argv)
    assert code == 2
    assert "--l" in err and "Traceback" not in err
    assert not out.exists()


def test_unknown_algorithm(csv, tmp_path, cli):
    out = tmp_path / "rel"
    argv = anonymize_args(csv, out)
    argv[argv.index("mondrian")] = "quantum"
    code, _, err = cli(argv)
    assert_clean_failure(code, err, out, "quantum", "anatomy")


def test_existing_output_directory(csv, tmp_path, cli):
    out = tmp_path / "rel"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, _, err = cli(anonymize_args(csv, out))
    assert code == 2
    assert "--force" in err and "Traceback" not in err
    assert (out / "keep.txt").read_text() == "mine"
    # --force replaces only a folder anonlab wrote: not this one, however asked
    code, _, err = cli(anonymize_args(csv, out, "--force"))
    assert code == 2 and "only a folder that anonlab wrote" in err
    assert (out / "keep.txt").read_text() == "mine"
    # a release is replaced
    (out / "keep.txt").unlink()
    out.rmdir()
    assert cli(anonymize_args(csv, out))[0] == 0
    first = (out / "published" / "generalized.csv").read_bytes()
    code, _, err = cli(anonymize_args(csv, out, "--force"))
    assert code == 0, err
    assert (out / "manifest.json").is_file()
    assert (out / "published" / "generalized.csv").read_bytes() != first  # a fresh export key


def test_check_on_a_folder_that_is_not_a_release(tmp_path, cli):
    code, _, err = cli(["check", str(tmp_path)])
    assert code == 2
    assert "not a release directory" in err


def test_subprocess_exit_code_and_no_traceback(tmp_path):
    """The installed entry point itself (not only main()) exits 2 without a traceback."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from anonlab.cli import main; main()",
            "anonymize",
            "--data",
            str(tmp_path / "none.csv"),
            "--qi",
            "a",
            "--sensitive",
            "b",
            "--algorithm",
            "anatomy",
            "--l",
            "2",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "does not exist" in proc.stderr


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("bad.parquet", b"\x00\x01 not parquet", ("cannot read", "bad.parquet")),
        ("broken.csv", b'age,zip,sex,disease\n1,"x\n', ("cannot read", "broken.csv")),
    ],
)
def test_unreadable_file(tmp_path, cli, name, content, words):
    path = tmp_path / name
    path.write_bytes(content)
    out = tmp_path / "rel"
    code, _, err = cli(anonymize_args(path, out))
    assert_clean_failure(code, err, out, *words)


def test_data_that_is_a_directory(tmp_path, cli):
    out = tmp_path / "rel"
    code, _, err = cli(anonymize_args(tmp_path, out))
    assert_clean_failure(code, err, out, "is a directory")


def test_levels_that_do_not_parse(csv, tmp_path, cli):
    out = tmp_path / "rel"
    argv = anonymize_args(csv, out, "--levels", "age:3")
    argv[argv.index("mondrian")] = "generalize"
    code, _, err = cli(argv)
    assert_clean_failure(code, err, out, "--levels", "NAME=LEVEL")
