"""The examples in the docstrings run: every module of the package with a ``>>>`` example."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import anonlab

SRC = Path(anonlab.__file__).parent
MODULES = sorted(
    ".".join(("anonlab", *p.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
    for p in SRC.rglob("*.py")
    if ">>>" in p.read_text(encoding="utf-8")
)


def test_there_are_examples():
    assert "anonlab.attacks.definetti" in MODULES and len(MODULES) >= 6


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    result = doctest.testmod(module, optionflags=flags, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) failed in {name}"
