"""Helpers shared by the per-paper adapters of :mod:`anonlab.experiments.reproduce`."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def relative_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root``, with forward slashes (for Markdown links)."""
    return Path(os.path.relpath(path, root)).as_posix()


def seeds_text(seeds: Sequence[int]) -> str:
    """Seeds in words: ``0–4`` for a run of three or more, else a list."""
    s = list(seeds)
    if len(s) > 2 and s == list(range(s[0], s[0] + len(s))):
        return f"{s[0]}–{s[-1]}"
    return ", ".join(str(x) for x in s)


def default_of(func: Callable, name: str) -> Any:
    """A keyword's default value (the experiment's own setting, e.g. ``"comparable"``)."""
    return inspect.signature(func).parameters[name].default


def non_decreasing(values: Any) -> bool:
    """Every step ``>= 0`` (a raw ordering, no noise allowance)."""
    return bool(np.all(np.diff(np.asarray(values, dtype=float)) >= 0))
