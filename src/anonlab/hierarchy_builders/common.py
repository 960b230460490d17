"""What every hierarchy builder shares: the message context, reading parameters and values.

:class:`BuilderContext` names the column and builder in every message and reads the spec's
parameters (numbers and lists may be given as text, as a command line passes them);
:func:`distinct_text` turns a column's values into the distinct leaf labels a builder works on
(:func:`as_text` for one value); :func:`level_labels` labels one level from its node keys and
:func:`hierarchy_rows` lays the levels out as the rows ``leaf;level1;...;*`` of a
:class:`~anonlab.hierarchy.Hierarchy`.

Choices: values are the column's values as text, each stripped of surrounding blanks, as
:class:`~anonlab.hierarchy.Hierarchy` does; a missing value (``None``, NaN, an empty string) is
refused, since missing cells are dropped or refused when the table is loaded, so a hierarchy
never has a leaf for them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import NoReturn

import numpy as np
import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.hierarchy import ROOT

__all__ = [
    "BuilderContext",
    "as_text",
    "distinct_text",
    "hierarchy_rows",
    "level_labels",
    "preview",
    "to_number",
]


class BuilderContext:
    """The column and builder a message is about, and the readers of the spec's parameters.

    Every error a builder raises goes through :meth:`fail`, so it names the column and the
    builder: ``column 'zip' (prefix builder): ...``.
    """

    def __init__(self, column: str, builder: str) -> None:
        self.column = column
        self.builder = builder

    def fail(self, message: str) -> NoReturn:
        """Raise an :class:`~anonlab.errors.AnonlabError` naming the column and the builder."""
        raise AnonlabError(f"column {self.column!r} ({self.builder} builder): {message}")

    def param_int(self, params: Mapping[str, object], key: str, default: int, minimum: int) -> int:
        """Parameter ``key`` (``default`` when absent) as an integer ``>= minimum``; text that
        reads as one is accepted (``"5"``)."""
        value = params.get(key, default)
        number = to_number(value)
        if number is None or not float(number).is_integer() or number < minimum:
            self.fail(f"parameter {key!r} must be an integer >= {minimum}, got {value!r}")
        return int(number)

    def param_number(
        self, params: Mapping[str, object], key: str, default: float, positive: bool
    ) -> float:
        """Parameter ``key`` (``default`` when absent) as a finite float, ``> 0`` when
        ``positive``; text that reads as one is accepted."""
        value = params.get(key, default)
        number = to_number(value)
        if number is None or not math.isfinite(number) or (positive and number <= 0):
            what = "a positive number" if positive else "a finite number"
            self.fail(f"parameter {key!r} must be {what}, got {value!r}")
        return float(number)

    def param_list(self, params: Mapping[str, object], key: str) -> list[object]:
        """Parameter ``key`` (which must be present) as a list: text is split at commas
        (``"month,year"``), one number is a list of one, any other iterable is listed."""
        value = params[key]
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return [value]  # one number, as a command line gives ``keep=3``
        if isinstance(value, Iterable) and not isinstance(value, bytes | Mapping):
            return list(value)
        self.fail(f"parameter {key!r} must be a list, got {value!r}")


def to_number(value: object) -> float | None:
    """``value`` as a float (numbers, or text that reads as one); None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def as_text(value: object) -> str | None:
    """A value as its leaf label (None for a missing value): a whole float without its decimal
    point (``39.0`` as ``39``), dates and datetimes in ISO format, anything else stripped."""
    if value is None:
        return None
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            return None
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, datetime | pd.Timestamp):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value).strip()


def distinct_text(values: Sequence[str], ctx: BuilderContext) -> np.ndarray:
    """The distinct values as stripped text, in order of first appearance (object array).

    Fails (through ``ctx``) on something that is not a sequence of values, on a missing value
    and on an empty column."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        ctx.fail(f"values must be a sequence of the column's values, got {type(values).__name__}")
    if not isinstance(values, np.ndarray | pd.Series | pd.Index | list | tuple):
        values = list(values)
    uniq = pd.Series(pd.unique(pd.Series(values, dtype=object)), dtype=object)
    if pd.api.types.infer_dtype(uniq, skipna=False) == "string":  # the usual case, vectorised
        texts = uniq.str.strip().tolist()
    else:
        texts = [as_text(v) for v in uniq]
    if any(t is None or t == "" for t in texts):
        ctx.fail(
            "a value is missing (empty, None or NaN); drop or refuse missing cells before "
            "building the hierarchy (a hierarchy has no leaf for them)"
        )
    out = np.array(list(dict.fromkeys(texts)), dtype=object)
    if len(out) == 0:
        ctx.fail("the column has no values; a hierarchy needs at least one")
    return out


def preview(items: Sequence[object], n: int = 5) -> str:
    """The first ``n`` items quoted, for a message (``'a', 'b', ... (9 in all)``)."""
    shown = ", ".join(repr(str(v)) for v in list(items)[:n])
    return shown + (f", ... ({len(items)} in all)" if len(items) > n else "")


def level_labels(keys: np.ndarray, label: Callable[[np.ndarray], Sequence[str]]) -> np.ndarray:
    """Per-value labels of one level: ``label`` is called once on the distinct node keys
    (sorted), and each value gets the label of its key."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    labels = np.asarray(list(label(uniq)), dtype=object)
    return labels[inverse.reshape(-1)]


def hierarchy_rows(
    leaves: np.ndarray, levels: list[np.ndarray], order: np.ndarray, top: bool
) -> list:
    """Rows ``[leaf, level1, ..., (*)]`` for the values in ``order`` (an index array);
    ``top`` adds the root ``*`` as the last level."""
    cols = [leaves[order], *(lv[order] for lv in levels)]
    if top:
        cols.append(np.full(len(order), ROOT, dtype=object))
    return np.stack(cols, axis=1).tolist()
