"""The examples run: every module of the package with a ``>>>`` example in its docstrings, and
every page of docs/ with a ``>>>`` example (docs/api.md walks the whole Python API)."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

import anonlab

SRC = Path(anonlab.__file__).parent
MODULES = sorted(
    ".".join(("anonlab", *p.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
    for p in SRC.rglob("*.py")
    if ">>>" in p.read_text(encoding="utf-8")
)
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(
    p.relative_to(DOCS).as_posix()
    for p in DOCS.rglob("*.md")
    if ">>>" in p.read_text(encoding="utf-8")
)
# A Markdown code fence ends an example's expected output, as a blank line does in a docstring.
FENCE = re.compile(r"^[ \t]*(```|~~~).*$", re.MULTILINE)


def test_there_are_examples():
    assert "anonlab.attacks.definetti" in MODULES and len(MODULES) >= 6
    assert "api.md" in PAGES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) failed in {name}"


def _markdown_doctest(path: Path) -> doctest.DocTest:
    """The page's examples as one doctest (one namespace, in order); fences become blank lines,
    so line numbers in failure reports are the page's own."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    globs = {"__name__": f"docs.{path.stem}"}
    return doctest.DocTestParser().get_doctest(text, globs, path.name, str(path), 0)


def test_fences_end_expected_output():
    page = "```python\n>>> 1 + 1\n2\n```\nText after the block.\n"
    test = doctest.DocTestParser().get_doctest(FENCE.sub("", page), {}, "p", "p.md", 0)
    assert [e.want for e in test.examples] == ["2\n"]


@pytest.mark.parametrize("page", PAGES)
def test_markdown_examples(page):
    test = _markdown_doctest(DOCS / page)
    runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) failed in docs/{page}"
