"""The builder spec: which builders there are, their parameters, and :func:`build_hierarchy`.

:func:`build_hierarchy` checks a spec such as ``{"builder": "prefix"}`` (the builder's name
among :data:`BUILDERS` and its parameters, :func:`builder_params`), turns the column's values
into distinct text and hands them to the builder's module (:mod:`.intervals`,
:mod:`.date_levels`, :mod:`.masking`, :mod:`.ordering`, :mod:`.mapping`, :mod:`.suppression`).
:func:`describe_builders` and :func:`fitting_builders` suggest a builder in messages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.hierarchy_builders.common import BuilderContext, distinct_text
from anonlab.hierarchy_builders.date_levels import date_rows, parse_dates
from anonlab.hierarchy_builders.intervals import interval_rows
from anonlab.hierarchy_builders.mapping import mapping_rows
from anonlab.hierarchy_builders.masking import prefix_rows
from anonlab.hierarchy_builders.ordering import order_rows
from anonlab.hierarchy_builders.suppression import suppress_rows

__all__ = [
    "BUILDERS",
    "build_hierarchy",
    "builder_params",
    "describe_builders",
    "fitting_builders",
]

#: The builders :func:`build_hierarchy` knows, by name.
BUILDERS: tuple[str, ...] = ("interval", "date", "prefix", "order", "mapping", "suppress")

_PARAMS: dict[str, tuple[str, ...]] = {
    "interval": ("width", "fanout", "origin", "bands"),
    "date": ("levels", "age_at", "width", "fanout"),
    "prefix": ("keep", "mask_char", "pad"),
    "order": ("order", "fanout"),
    "mapping": ("file", "levels", "sep"),
    "suppress": (),
}

_DESCRIPTIONS: dict[str, str] = {
    "interval": "numbers into [lo, hi) bands of `width`, `fanout` bands merged per level "
    "(or explicit `bands`), then *",
    "date": "ISO dates to `levels` (week, month, quarter, year, 5-year, 10-year), or ages at "
    "`age_at` then age bands of `width`, then *",
    "prefix": "codes and zip codes masked from the right, one more character per level "
    "(02139 -> 0213* -> ... -> *****; `keep`, `mask_char`, `pad`)",
    "order": "ordered categories merged in runs of `fanout` adjacent values (`order`), then *",
    "mapping": "a user table: CSV `file` (leaf column, then one column per level) or inline "
    "`levels`",
    "suppress": "each value or * (nothing in between: a group of several values publishes *)",
}

_BUILD: dict[str, Callable[[Mapping[str, object], np.ndarray, BuilderContext], list]] = {
    "interval": interval_rows,
    "date": date_rows,
    "prefix": prefix_rows,
    "order": order_rows,
    "mapping": mapping_rows,
    "suppress": suppress_rows,
}


def describe_builders() -> str:
    """One line per builder, ``name: what it does (params)``, for messages that suggest one."""
    return "\n".join(f"{b}: {_DESCRIPTIONS[b]} [params: {', '.join(_PARAMS[b])}]" for b in BUILDERS)


def builder_params(builder: str) -> tuple[str, ...]:
    """The parameter names that ``builder`` accepts (besides ``builder`` itself)."""
    if builder not in _PARAMS:
        raise AnonlabError(
            f"unknown hierarchy builder {builder!r}; valid builders are {', '.join(BUILDERS)}"
        )
    return _PARAMS[builder]


def fitting_builders(values: Sequence[str]) -> tuple[str, ...]:
    """The builders that can build a hierarchy for these values, the most specific first.

    ``date`` if every value is an ISO date or datetime; ``interval`` if every value is a finite
    number and none is written with a leading zero (``02139`` is a code, not a number);
    ``prefix`` if every value has the same length; ``order``, ``mapping`` and ``suppress``
    always. For messages that suggest a builder for a column without a hierarchy.

    >>> fitting_builders(["02139", "10001"])
    ('prefix', 'order', 'mapping', 'suppress')
    >>> fitting_builders(["2020-01-31", "1999-12-01"])
    ('date', 'prefix', 'order', 'mapping', 'suppress')
    """
    ctx = BuilderContext("", "")
    try:
        distinct = distinct_text(values, ctx)
    except AnonlabError:
        return ("order", "mapping", "suppress")
    found = []
    texts = pd.Series(distinct, dtype=object)
    try:
        parse_dates(distinct, ctx)
        found.append("date")
    except AnonlabError:
        nums = pd.to_numeric(texts, errors="coerce").to_numpy(float)
        leading_zero = texts.str.fullmatch(r"[+-]?0\d+.*").to_numpy(bool)
        if np.isfinite(nums).all() and not leading_zero.any():
            found.append("interval")
    if texts.str.len().nunique() == 1:
        found.append("prefix")
    return (*found, "order", "mapping", "suppress")


def build_hierarchy(spec: Mapping[str, object], values: Sequence[str], name: str) -> Hierarchy:
    """Build the hierarchy of column ``name`` from a builder spec and its distinct values.

    Parameters
    ----------
    spec : mapping
        ``{"builder": NAME, PARAM: VALUE, ...}`` with NAME one of :data:`BUILDERS` and the
        parameters that builder accepts (:func:`builder_params`; see the package docstring,
        :mod:`anonlab.hierarchy_builders`).
    values : sequence of str
        The column's distinct values as text (repeats are allowed and ignored). Numbers and
        dates given as Python objects are written as text first (``39.0`` as ``39``, a
        ``date`` in ISO format).
    name : str
        The column (named in messages and stored as the hierarchy's name).

    Returns
    -------
    Hierarchy
        One row per distinct value, in the values' natural order, top level ``*`` (or all
        masks for ``prefix``).

    Raises
    ------
    AnonlabError
        For an unknown builder or parameter (naming the valid ones), a bad parameter value, or
        a value the builder cannot place (naming the value and the format expected).

    Examples
    --------
    >>> h = build_hierarchy({"builder": "prefix", "keep": [3, 1]}, ["02139", "02142"], "zip")
    >>> h.rows()
    [['02139', '021**', '0****', '*'], ['02142', '021**', '0****', '*']]
    """
    if not isinstance(spec, Mapping):
        raise AnonlabError(
            f"the hierarchy builder spec of column {name!r} must be a mapping such as "
            f"{{'builder': 'prefix'}}, got {type(spec).__name__}"
        )
    builder = spec.get("builder")
    if not isinstance(builder, str) or builder not in _PARAMS:
        raise AnonlabError(
            f"column {name!r}: unknown hierarchy builder {builder!r}; valid builders:\n"
            + describe_builders()
        )
    ctx = BuilderContext(str(name), str(builder))
    params = {k: v for k, v in spec.items() if k != "builder"}
    unknown = sorted(str(k) for k in params if k not in _PARAMS[builder])
    if unknown:
        ctx.fail(
            f"unknown parameter(s) {', '.join(map(repr, unknown))}; valid parameters are "
            f"{', '.join(_PARAMS[builder])}"
        )
    distinct = distinct_text(values, ctx)
    rows = _BUILD[builder](params, distinct, ctx)
    return Hierarchy(rows, name=str(name))
