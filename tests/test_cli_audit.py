"""``anonlab audit`` end to end: files written, the JSON summary, and bad options."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    import sys

    from anonlab.cli import main

    out = tmp_path_factory.mktemp("audit") / "rel"
    argv = ["anonlab", "anonymize", "--dataset", "adult-train", "--qi", "workclass,sex,income"]
    argv += ["--sensitive", "occupation", "--algorithm", "anatomy", "--l", "3", "--out", str(out)]
    old, sys.argv = sys.argv, argv
    try:
        main()
    except SystemExit as exc:
        assert exc.code in (0, None)
    finally:
        sys.argv = old
    return out


def test_audit_writes_report_and_summary(release_dir, cli):
    argv = ["audit", str(release_dir), "--stages", "checks,definetti,negative-rules,utility"]
    code, out, err = cli(
        [*argv, "--targets", "100", "--sweeps", "10", "--queries", "200", "--json"]
    )
    assert code == 0, err
    res = json.loads(out)
    assert [f["key"] for f in res["findings"]] == [
        "checks",
        "definetti",
        "negative-rules",
        "utility",
    ]
    page = (release_dir / "audit.html").read_text()
    assert "deFinetti attack" in page and page.count("<svg") == 3
    summary = json.loads((release_dir / "audit.json").read_text())
    assert summary["settings"]["targets"] == 100 and summary["release"]["algorithm"] == "anatomy"
    code, out, _ = cli(argv + ["--targets", "50", "--sweeps", "4", "--queries", "100"])
    assert code == 0 and "Audit of" in out and "report:" in out


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--stages", "x-ray"], "--stages: unknown"),
        (["--min-exp", "1.5"], "--min-exp must be in (0, 1)"),
        (["--report", "/nonexistent-folder/a.html"], "does not exist"),
    ],
)
def test_bad_options_exit_2(release_dir, cli, extra, words):
    code, _, err = cli(["audit", str(release_dir), *extra])
    assert code == 2 and words in err and "Traceback" not in err
