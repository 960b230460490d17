"""docs/cli.md is generated from the CLI; it must match the CLI as it is."""

from __future__ import annotations

from pathlib import Path

from anonlab.cli.reference import cli_reference

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_cli_reference_is_current():
    text = cli_reference()
    for command in ("anonlab audit", "anonlab attack definetti", "anonlab anonymize"):
        assert f"## `{command}`" in text
    assert DOC.read_text(encoding="utf-8") == text, (
        "docs/cli.md is out of date: run `python -m anonlab.cli.reference > docs/cli.md`"
    )
