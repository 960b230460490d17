"""The ``interval`` builder: numbers into ``[lo, hi)`` bands, merged level by level.

ARX's ``HierarchyBuilderIntervalBased``: the first level puts each number in a band ``[lo, hi)``
of ``width`` starting at ``origin`` (default 0, so bands are multiples of the width:
``[20, 25)``); each higher level merges ``fanout`` (default 2) adjacent bands, until one band
covers every value; then ``*``. Or explicit ``bands``: one list of bounds per level
(``[[0, 18, 65, 130], [0, 65, 130]]``), each level's bounds a subset of the level below's.
:func:`fanout_bands` also gives the ``date`` builder's age bands; :func:`automatic_interval_spec`
is the spec a numeric quasi-identifier gets when it has no hierarchy.

Choices made where ARX and the papers are silent:

* Labels are half-open ``[lo, hi)``, numbers written with up to 12 significant digits
  (``[0.1, 0.2)``); a value that lies on a bound within 1e-9 of a band's width belongs to the
  band it starts (floating-point ``0.3 / 0.1`` is 2.999...).
* Band levels stop at the first level that has a single band (kept if it is the first level) or
  that groups the values exactly as the level below (merging then widens labels but hides
  nothing more; bands either side of ``origin`` never merge: ``[-80, 0)`` and ``[0, 80)`` stay
  apart); the top is always ``*``.
* Explicit bands are half-open too: a value equal to the last bound is outside.
* Rows come in ascending numeric order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from anonlab.hierarchy_builders.common import (
    BuilderContext,
    hierarchy_rows,
    level_labels,
    to_number,
)

__all__ = ["automatic_interval_spec", "fanout_bands", "interval_rows"]


def automatic_interval_spec(
    values: Sequence[float], integer: bool, bands: int = 10
) -> dict[str, object]:
    """The ``interval`` builder spec a numeric quasi-identifier gets when it has no hierarchy
    and one is needed (a full-domain search; ``anonlab init``'s draft): bands of the smallest
    width of 1, 2 or 5 times a power of ten that cuts the values' range into at most ``bands``
    bands (at least 1 for integers), merged two by two above.

    >>> automatic_interval_spec([17, 90], integer=True)
    {'builder': 'interval', 'width': 10}
    """
    nums = np.asarray(values, dtype=np.float64)
    lo, hi = (float(nums.min()), float(nums.max())) if len(nums) else (0.0, 0.0)
    width = _nice_width((hi - lo) / bands, integer=integer)
    return {"builder": "interval", "width": int(width) if float(width).is_integer() else width}


def _nice_width(raw: float, integer: bool) -> float:
    """The smallest of 1, 2, 5 times a power of ten at least ``raw`` (at least 1 for
    integers)."""
    if not np.isfinite(raw) or raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        width = factor * power
        if width >= raw * (1 - 1e-12):
            break
    width = float(f"{width:.12g}")
    return max(width, 1.0) if integer else width


def _num(x: float) -> str:
    """A bound as text: integers without a decimal point, others with <= 12 digits."""
    x = float(x) + 0.0  # no "-0"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return format(x, ".12g")


def _band(lo: float, hi: float) -> str:
    return f"[{_num(lo)}, {_num(hi)})"


def _parse_numbers(values: np.ndarray, ctx: BuilderContext) -> np.ndarray:
    nums = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
    bad = ~np.isfinite(nums)
    if bad.any():
        ctx.fail(
            f"value {values[np.flatnonzero(bad)[0]]!r} is not a finite number; the interval "
            "builder takes numbers such as 42 or -3.5 (use 'order' or 'prefix' for text)"
        )
    return nums


def fanout_bands(
    nums: np.ndarray, width: float, fanout: int, origin: float, ctx: BuilderContext
) -> list[np.ndarray]:
    """Band levels of the numbers ``nums``: ``[lo, lo + width)`` from ``origin``, ``fanout``
    bands merged per level, stopping at one band or at a level that groups the values as the
    level below (see the module docstring). One array of per-value labels per level."""
    q = (nums - origin) / width
    r = np.round(q)
    band = np.where(np.abs(q - r) <= 1e-9, r, np.floor(q))
    if np.abs(band).max() >= 2**52:
        ctx.fail(f"width {width:g} is too small for values as large as {np.abs(nums).max():g}")
    band = band.astype(np.int64)
    levels = []
    step = 1
    previous = None
    while True:
        node = np.floor_divide(band, step)
        n_nodes = len(np.unique(node))
        if levels and (n_nodes == 1 or n_nodes == previous):
            break  # one band left, or the same grouping as the level below
        w = width * step
        levels.append(
            level_labels(
                node, lambda u, w=w: [_band(origin + i * w, origin + (i + 1) * w) for i in u]
            )
        )
        if n_nodes == 1:
            break
        previous = n_nodes
        step *= fanout
    return levels


def _explicit_bands(raw: object, nums: np.ndarray, values: np.ndarray, ctx: BuilderContext):
    if isinstance(raw, str):
        raw = [raw.split(",")]  # "0,18,65,130": one level, as text
    if not isinstance(raw, Iterable) or isinstance(raw, Mapping):
        ctx.fail(f"parameter 'bands' must be a list of bounds or a list of such lists, got {raw!r}")
    raw = list(raw)
    if raw and not any(isinstance(b, Iterable) and not isinstance(b, str) for b in raw):
        raw = [raw]  # one level given as a flat list
    bounds_per_level: list[np.ndarray] = []
    for j, level in enumerate(raw):
        items = level.split(",") if isinstance(level, str) else level
        bounds = [to_number(b) for b in items] if isinstance(items, Iterable) else [None]
        arr = np.array([np.nan if b is None else b for b in bounds], dtype=float)
        if len(arr) < 2 or not np.isfinite(arr).all() or (np.diff(arr) <= 0).any():
            ctx.fail(
                f"bands level {j + 1} ({level!r}) must be at least two increasing numbers "
                "(bounds of [lo, hi) bands)"
            )
        if bounds_per_level:
            below = bounds_per_level[-1]
            if arr[0] != below[0] or arr[-1] != below[-1] or not np.isin(arr, below).all():
                ctx.fail(
                    f"bands level {j + 1} ({level!r}) must use bounds of level {j} "
                    f"({below.tolist()}) with the same first and last bound, so the levels nest"
                )
        bounds_per_level.append(arr)
    if not bounds_per_level:
        ctx.fail("parameter 'bands' is empty; give the bounds of at least one level")
    first = bounds_per_level[0]
    outside = (nums < first[0]) | (nums >= first[-1])
    if outside.any():
        ctx.fail(
            f"value {values[np.flatnonzero(outside)[0]]!r} is outside the bands "
            f"[{_num(first[0])}, {_num(first[-1])}); widen the first or last bound"
        )
    levels = []
    for bounds in bounds_per_level:
        node = np.searchsorted(bounds, nums, side="right") - 1
        levels.append(level_labels(node, lambda u, b=bounds: [_band(b[i], b[i + 1]) for i in u]))
    return levels


def interval_rows(params: Mapping[str, object], values: np.ndarray, ctx: BuilderContext) -> list:
    """The ``interval`` builder: the hierarchy's rows for the distinct values ``values`` (text
    that reads as finite numbers), from ``width``/``fanout``/``origin`` or explicit
    ``bands``; parameters already checked against the builder's names."""
    nums = _parse_numbers(values, ctx)
    if "bands" in params:
        clash = [k for k in ("width", "fanout", "origin") if k in params]
        if clash:
            ctx.fail(f"give either 'bands' or {', '.join(map(repr, clash))}, not both")
        levels = _explicit_bands(params["bands"], nums, values, ctx)
    else:
        if "width" not in params:
            ctx.fail(
                "parameter 'width' is required (the first level's band width, e.g. 5), or "
                "give explicit 'bands'"
            )
        width = ctx.param_number(params, "width", 0, positive=True)
        fanout = ctx.param_int(params, "fanout", 2, minimum=2)
        origin = ctx.param_number(params, "origin", 0, positive=False)
        levels = fanout_bands(nums, width, fanout, origin, ctx)
    order = np.lexsort((values.astype(str), nums))
    return hierarchy_rows(values, levels, order, top=True)
