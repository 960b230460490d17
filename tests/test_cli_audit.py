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


def test_one_run_writes_the_internal_and_the_shareable_reports(release_dir, cli, tmp_path):
    # --redacted-report/--redacted-summary: the redacted audit of the same run, equal to what a
    # separate --redact run with the same seed writes; the internal files stay internal
    argv = ["audit", str(release_dir), "--stages", "checks,definetti,risk", "--targets", "60",
            "--sweeps", "6", "--force"]  # fmt: skip
    both = [*argv, "--report", str(tmp_path / "in.html"), "--summary", str(tmp_path / "in.json"),
            "--redacted-report", str(tmp_path / "out.html"),
            "--redacted-summary", str(tmp_path / "out.json")]  # fmt: skip
    code, _, err = cli(both)
    assert code == 0, err
    alone = [*argv, "--redact", "--report", str(tmp_path / "r.html"),
             "--summary", str(tmp_path / "r.json")]  # fmt: skip
    code, _, err = cli(alone)
    assert code == 0, err
    shared = json.loads((tmp_path / "out.json").read_text())
    internal = json.loads((tmp_path / "in.json").read_text())
    assert shared["redacted"] is True and internal["redacted"] is False
    separate = json.loads((tmp_path / "r.json").read_text())
    for summary in (shared, separate):  # timings differ between runs; nothing else may
        for finding in summary["findings"]:
            finding.pop("seconds", None)
    assert shared == separate
    assert (tmp_path / "out.html").read_text() != (tmp_path / "in.html").read_text()
    code, _, err = cli(both[:-4] + ["--redacted-report", str(tmp_path / "out.html")])
    assert code == 0, err  # --force replaces; without it an existing file is refused
    code, _, err = cli([a for a in both if a != "--force"])
    assert code == 2 and "already exists" in err
