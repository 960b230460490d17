"""The ``mapping`` builder: a user's table from each leaf to its node at every level.

A CSV ``file`` with a header, the leaf column first and then one column per level (e.g.
ICD-10 code → 3-character category → chapter), or the same inline as ``levels``, a list of
dicts (level ``j``'s dict maps each node of level ``j - 1`` to its parent). Every value of the
column must be mapped; rows of the file for values not in the column are ignored. Cells of the
file go through the formula guard's :func:`~anonlab.formula_guard.unguard_text`. Rows come in
the file's or the dicts' order.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from anonlab.formula_guard import unguard_text
from anonlab.hierarchy_builders.common import BuilderContext, as_text, preview

__all__ = ["mapping_rows"]


def _read_mapping_file(params: Mapping[str, object], ctx: BuilderContext) -> list[list[str]]:
    sep = params.get("sep", ",")
    if not isinstance(sep, str) or len(sep) != 1:
        ctx.fail(f"parameter 'sep' must be one character, got {sep!r}")
    file = params["file"]
    if not isinstance(file, str | Path):
        ctx.fail(f"parameter 'file' must be a path to a CSV file, got {file!r}")
    path = Path(file)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        ctx.fail(f"cannot read mapping file {str(path)!r}: {reason}")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    try:
        table = [[unguard_text(c.strip()) for c in r] for r in reader if any(c.strip() for c in r)]
    except csv.Error as exc:
        ctx.fail(f"cannot read mapping file {str(path)!r}, line {reader.line_num}: {exc}")
    if len(table) < 2 or len(table[0]) < 2:
        ctx.fail(
            f"mapping file {str(path)!r} needs a header and at least one row, with the leaf "
            f"column and at least one level column separated by {sep!r} (e.g. 'code{sep}category')"
        )
    header = table[0]
    for i, row in enumerate(table[1:], start=2):
        if len(row) != len(header):
            ctx.fail(
                f"mapping file {str(path)!r}: row {i} has {len(row)} fields, the header has "
                f"{len(header)} ({sep.join(header)})"
            )
        if "" in row:
            ctx.fail(
                f"mapping file {str(path)!r}: row {i} has an empty {header[row.index('')]!r}; "
                "every leaf needs a node at every level"
            )
    return table[1:]


def _inline_mapping(raw: object, values: np.ndarray, ctx: BuilderContext) -> list[list[str]]:
    if not isinstance(raw, Sequence) or isinstance(raw, str) or not raw:
        ctx.fail(
            "parameter 'levels' must be a non-empty list of mappings, one per level, each from "
            f"a node to its parent (e.g. [{{'A01.1': 'A01'}}, {{'A01': 'A00-A09'}}]), got {raw!r}"
        )
    maps = []
    for j, m in enumerate(raw):
        if not isinstance(m, Mapping):
            ctx.fail(f"levels[{j}] must be a mapping from node to parent, got {m!r}")
        maps.append({as_text(k): as_text(v) for k, v in m.items()})
    present = set(values.tolist())
    rows = []
    for leaf in maps[0]:
        if leaf not in present:
            continue  # nodes of other columns' values are fine, as in a file
        row = [leaf]
        for j, m in enumerate(maps):
            parent = m.get(row[-1])
            if parent is None or parent == "":
                if j == 0:
                    break
                ctx.fail(
                    f"node {row[-1]!r} (level {j}) has no parent in levels[{j}]; map every node "
                    "of a level to its parent in the next"
                )
            row.append(parent)
        else:
            rows.append(row)
    return rows


def mapping_rows(params: Mapping[str, object], values: np.ndarray, ctx: BuilderContext) -> list:
    """The ``mapping`` builder: the hierarchy's rows for the distinct values ``values``, from a
    CSV ``file`` (``sep``) or inline ``levels``; parameters already checked against the
    builder's names."""
    if ("file" in params) == ("levels" in params):
        ctx.fail("give exactly one of 'file' (a CSV mapping table) and 'levels' (inline)")
    if "file" in params:
        table = _read_mapping_file(params, ctx)
    else:
        if "sep" in params:
            ctx.fail("parameter 'sep' applies only with 'file'")
        table = _inline_mapping(params["levels"], values, ctx)
    by_leaf: dict[str, list[str]] = {}
    for row in table:
        known = by_leaf.setdefault(row[0], row)
        if known != row:
            ctx.fail(
                f"leaf {row[0]!r} is mapped twice, to {known[1:]} and to {row[1:]}; give each "
                "leaf one row"
            )
    unmapped = [v for v in values if v not in by_leaf]
    if unmapped:
        ctx.fail(
            f"{len(unmapped)} value(s) of the column are not mapped: {preview(unmapped)}; add a "
            "row for each"
        )
    present = set(values.tolist())
    return [row for leaf, row in by_leaf.items() if leaf in present]
