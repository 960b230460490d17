"""Published labels read against the original table: which values a label covers.

A release made elsewhere publishes labels: values, ranges (``[20-30[``), hierarchy nodes, value
sets ``{a,b}`` and ``*``. :func:`cover_mask` says which values of the original's domain a label
covers, :func:`hierarchy_level_of` finds the one hierarchy level a column's labels lie at (as in
a full-domain release such as ARX's), :func:`codes_of` turns exact labels back into codes (the
publisher's records file and an ST's sensitive values).
"""

from __future__ import annotations

import re

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.release import parse_label
from anonlab.schema import Kind
from anonlab.table import Table

_RANGE = re.compile(r"^\s*([\[\(]?)\s*(-?[\d.]+)\s*(?:-|,|\.\.)\s*(-?[\d.]+)\s*([\]\[\)]?)\s*$")
#: Labels that cover every value: ARX's suppressed or fully generalized cell, and an empty one.
ANY_LABELS = ("*", "")


def codes_of(table: Table, name: str, labels: np.ndarray) -> np.ndarray:
    """Codes of decoded labels of column ``name`` (raises naming an unknown value).

    ``labels`` are values as a file holds them (a number of a numeric column is matched as a
    float, anything else as text); every one must be a value of ``table``'s column ``name``.
    Returns int32 codes, one per label."""
    values = table.values[name]
    if table.schema[name].kind is Kind.NUMERIC:
        lookup = {float(v): i for i, v in enumerate(values)}
        key = float
    else:
        lookup = {str(v): i for i, v in enumerate(values)}
        key = str
    out = np.empty(len(labels), dtype=np.int32)
    for i, v in enumerate(labels):
        code = lookup.get(key(v))
        if code is None:
            raise AnonlabError(
                f"value {v!r} of column {name!r} does not occur in the original data"
            )
        out[i] = code
    return out


def hierarchy_level_of(table: Table, name: str, labels, ignore_any: bool = True) -> int | None:
    """The one hierarchy level holding every published label of a column, the lowest if
    several do; None if the attribute has no hierarchy or no level holds them all. With
    ``ignore_any`` the labels ``*`` and empty (which cover every value anyway, e.g. ARX's
    suppressed records) are left out of the question. A full-domain release such as ARX's
    publishes each attribute at one level, so its labels are resolved there: ARX's Adult age
    hierarchy labels 20 as ``15-19`` at level 1, which read as a range would not cover 20."""
    h = table.schema[name].hierarchy
    if h is None:
        return None
    wanted = {str(v).strip() for v in labels}
    if ignore_any:
        wanted -= set(ANY_LABELS)
    if not wanted:
        return None
    for level in range(h.height + 1):
        if wanted <= set(h.labels(level).tolist()):
            return level
    return None


def cover_mask(table: Table, name: str, label: str, level: int | None = None) -> np.ndarray:
    """Which domain values of attribute ``name`` a published label covers.

    In this order: ``*`` (or empty) every value; with ``level`` (the hierarchy level the
    column's labels were found at, :func:`hierarchy_level_of`) the node of that level; a
    number, a range or a value of the original; a node of the attribute's hierarchy (at any
    level above the leaves); a numeric range; a value or a set ``{a,b}`` in the escaped form of
    :func:`anonlab.release.escape_member` (an unescaped value of another tool's file is
    accepted when it matches a value exactly). A label of a numeric attribute is looked up in
    its hierarchy before it is read as a range, so an ARX interval label such as ``15-19``
    covers what ARX's hierarchy puts under it. A set member that is not a value of the
    original is an error naming it."""
    att = table.schema[name]
    values = table.values[name]
    label = str(label).strip()
    if label in ANY_LABELS:
        return np.ones(len(values), dtype=bool)
    if level is not None and att.hierarchy is not None:
        hit = _hierarchy_mask(table, name, label, [level])
        if hit is not None:
            return hit
    if att.kind is Kind.NUMERIC and att.hierarchy is not None:
        x = values.astype(float)
        try:
            number = float(label)
        except ValueError:
            number = None
        if number is not None and np.any(x == number):
            return x == number
        hit = _hierarchy_mask(table, name, label, range(1, att.hierarchy.height + 1))
        if hit is not None:
            return hit
    if att.kind is Kind.NUMERIC:
        x = values.astype(float)
        m = _RANGE.match(label)
        if m:
            a, b = float(m.group(2)), float(m.group(3))
            upper_open = m.group(4) in ("[", ")")
            lower_open = m.group(1) == "("
            lo_ok = x > a if lower_open else x >= a
            hi_ok = x < b if upper_open else x <= b
            return lo_ok & hi_ok
        try:
            return x == float(label)
        except ValueError:
            pass
    labels = np.array([str(v) for v in values], dtype=object)
    exact = labels == label
    if att.hierarchy is None or (label.startswith("{") and label.endswith("}")):
        # A value or a set of values, escaped as release.escape_member writes them.
        members = [m.strip() for m in parse_label(label) or []]
        known = set(labels.tolist())
        unknown = [m for m in members if m not in known]
        if not unknown:
            return np.isin(labels, members)
        if exact.any():  # a value written without escapes by another tool
            return exact
        if att.hierarchy is None:
            what = "lists" if len(members) > 1 else "is"
            raise AnonlabError(
                f"published value {label!r} of column {name!r} {what} {unknown[0]!r}, which is "
                "neither a value of the original data nor a range; give the hierarchy that "
                "defines it, or write a set as {a,b} with a backslash before each ',', '{', "
                "'}' or '\\' inside a value (and \\* for the value *)"
            )
    if exact.any():
        return exact
    mask = _hierarchy_mask(table, name, label, range(1, att.hierarchy.height + 1))
    if mask is None:
        raise AnonlabError(
            f"published value {label!r} of column {name!r} is not a node of its hierarchy"
        )
    return mask


def _hierarchy_mask(table: Table, name: str, label: str, levels) -> np.ndarray | None:
    """Domain values under the nodes labelled ``label`` at the given levels of ``name``'s
    hierarchy (the union where several levels have such a node); None if none has."""
    h = table.schema[name].hierarchy
    rows = h.matrix[table.leaf_codes(name)]
    mask = np.zeros(len(table.values[name]), dtype=bool)
    found = False
    for level in levels:
        hit = np.flatnonzero(h.labels(level) == label)
        if len(hit):
            found = True
            mask |= rows[:, level] == hit[0]
    return mask if found else None
