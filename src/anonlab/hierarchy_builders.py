"""Hierarchy builders: a column's generalization hierarchy from a short spec, as ARX builds them.

:func:`build_hierarchy` turns a spec such as ``{"builder": "prefix"}`` or
``{"builder": "date", "levels": ["month", "year"]}`` and a column's distinct values into a
:class:`~anonlab.hierarchy.Hierarchy` (rows ``leaf;level1;...;*``, the ARX CSV format), so a
publisher need not write hierarchies by hand. The six builders (:data:`BUILDERS`):

``interval`` (numbers)
    ARX's ``HierarchyBuilderIntervalBased``: the first level puts each number in a band
    ``[lo, hi)`` of ``width`` starting at ``origin`` (default 0, so bands are multiples of the
    width: ``[20, 25)``); each higher level merges ``fanout`` (default 2) adjacent bands, until
    one band covers every value; then ``*``. Or explicit ``bands``: one list of bounds per level
    (``[[0, 18, 65, 130], [0, 65, 130]]``), each level's bounds a subset of the level below's.
``date`` (ISO dates and datetimes)
    ``levels`` from ``day, week, month, quarter, year, 5-year, 10-year`` (default
    ``["month", "year", "5-year"]``), coarser ones later, then ``*``. With ``age_at`` (a
    reference date) the column holds birth dates: the first level is the age in whole years at
    that date, then age bands of ``width`` (default 5) merged by ``fanout`` (default 2).
``prefix`` (codes and zip codes kept as text)
    ARX's ``HierarchyBuilderRedactionBased``: each level masks one more trailing character
    (``02139`` → ``0213*`` → ``021**`` → ... → ``*****``); ``keep`` lists how many leading
    characters each level keeps, ``mask_char`` is the mask (default ``*``).
``order`` (ordered categories)
    ARX's ordering builder: ``order`` lists the values in order (default: sorted, numerically if
    every value is a number), level ``j`` merges runs of ``fanout ** j`` adjacent values,
    labelled by the first and last of the run (``low-mid``), until one run is left; then ``*``.
``mapping`` (a user table)
    A CSV ``file`` with a header, the leaf column first and then one column per level (e.g.
    ICD-10 code → 3-character category → chapter), or the same inline as ``levels``, a list of
    dicts (level ``j``'s dict maps each node of level ``j - 1`` to its parent). Every value of
    the column must be mapped; rows of the file for values not in the column are ignored.
``suppress`` (any values)
    Each value, then ``*``: a group publishes its one value or ``*``, nothing in between (ARX's
    usual hierarchy for sex, and the safe choice for a category with no natural grouping).

Choices made where ARX and the papers are silent
------------------------------------------------
* Values are the column's values as text (a Table's domain values); each is stripped of
  surrounding blanks, as :class:`~anonlab.hierarchy.Hierarchy` does. A missing value (``None``,
  NaN, an empty string) is refused: missing cells are dropped or refused when the table is
  loaded, so a hierarchy never has a leaf for them.
* Interval and age labels are half-open ``[lo, hi)``, numbers written with up to 12 significant
  digits (``[0.1, 0.2)``); a value that lies on a bound within 1e-9 of a band's width belongs to
  the band it starts (floating-point ``0.3 / 0.1`` is 2.999...). Band levels stop at the first
  level that has a single band (kept if it is the first level) or that groups the values
  exactly as the level below (merging then widens labels but hides nothing more; bands either
  side of ``origin`` never merge: ``[-80, 0)`` and ``[0, 80)`` stay apart); the top is always
  ``*``. Explicit bands are half-open too: a value equal to the last bound is outside.
* Date labels: ``day`` ``2020-01-31``, ``week`` the ISO 8601 week ``2020-W05``, ``month``
  ``2020-01``, ``quarter`` ``2020-Q1``, ``year`` ``2020``, ``5-year`` ``2020-2024`` and
  ``10-year`` ``2020-2029`` (calendar years aligned to multiples of 5 and 10, both ends
  inclusive). ISO weeks straddle months and years; so that the levels nest, a week belongs to
  the month, quarter and year of its Thursday (the ISO 8601 rule that numbers weeks): once a
  ``week`` level is used, 2019-12-30 is in ``2020-W01`` and then in ``2020-01`` and ``2020``.
  A datetime's time of day is ignored by every level (``day`` included).
* Ages: whole years completed at the reference date (a birthday on the reference date counts).
  Someone born on 29 February has their birthday on 1 March in non-leap years. A birth date after
  the reference date is an error naming it. Age bands are ``[lo, hi)`` from 0.
* Prefix masking needs every value to have the same length (a zip code that lost its leading
  zero, ``2139``, is refused, not grouped with ``2139x``); ``pad: true`` accepts shorter values,
  right-padded with the mask to the longest length before masking (``A01`` → ``A01*``).
  Without ``keep``, the levels keep ``L - 1, L - 2, ..., 0`` characters, so the top is all
  masks (``*****``); a ``keep`` that does not end in 0 gets ``*`` above it.
* Order labels name the first and last value of the run in the full ``order`` (values listed in
  ``order`` but absent from the column still count for positions), a run of one its value.
* Rows come in the values' natural order (numbers ascending, dates chronological, prefix codes
  lexically, ``order``'s order, the mapping file's or dicts' order), which fixes the leaf order
  that Mondrian and Hilbert use (:mod:`anonlab.hierarchy`).
* Parameters may be given as text where a number or list is expected (``"5"``, ``"month,year"``),
  as a command line passes them.

References
----------
Prasser, F., Kohlmayer, F. (2015). Putting statistical disclosure control into practice: the ARX
data anonymization tool. In *Medical Data Privacy Handbook*, Springer (hierarchy builders).
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import NoReturn

import numpy as np
import pandas as pd

from anonlab.dates import ISO_FORMS, iso_forms, parse_iso
from anonlab.errors import AnonlabError
from anonlab.formula_guard import unguard_text
from anonlab.hierarchy import ROOT, Hierarchy

__all__ = [
    "BUILDERS",
    "DATE_LEVELS",
    "build_hierarchy",
    "builder_params",
    "describe_builders",
    "fitting_builders",
]

#: The builders :func:`build_hierarchy` knows, by name.
BUILDERS: tuple[str, ...] = ("interval", "date", "prefix", "order", "mapping", "suppress")

#: The date levels, finest first (a ``levels`` list must follow this order).
DATE_LEVELS: tuple[str, ...] = ("day", "week", "month", "quarter", "year", "5-year", "10-year")

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


#: The ``date`` builder's levels when none are given (and ``anonlab init``'s draft).
DEFAULT_DATE_LEVELS = ("month", "year", "5-year")


def automatic_date_spec(with_time: bool) -> dict[str, object]:
    """The ``date`` builder spec a date (or, ``with_time``, datetime) quasi-identifier gets when
    no hierarchy is given: :data:`DEFAULT_DATE_LEVELS`, with ``day`` first for datetimes (a
    datetime's day is the first step up from its exact time)."""
    levels = (("day",) if with_time else ()) + DEFAULT_DATE_LEVELS
    return {"builder": "date", "levels": list(levels)}


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
    ctx = _Context("", "")
    try:
        distinct = _distinct_text(values, ctx)
    except AnonlabError:
        return ("order", "mapping", "suppress")
    found = []
    texts = pd.Series(distinct, dtype=object)
    try:
        _parse_dates(distinct, ctx)
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
        parameters that builder accepts (:func:`builder_params`; see the module docstring).
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
    ctx = _Context(str(name), str(builder))
    params = {k: v for k, v in spec.items() if k != "builder"}
    unknown = sorted(str(k) for k in params if k not in _PARAMS[builder])
    if unknown:
        ctx.fail(
            f"unknown parameter(s) {', '.join(map(repr, unknown))}; valid parameters are "
            f"{', '.join(_PARAMS[builder])}"
        )
    distinct = _distinct_text(values, ctx)
    rows = _BUILD[builder](params, distinct, ctx)
    return Hierarchy(rows, name=str(name))


# ---------------------------------------------------------------------- shared helpers
class _Context:
    """The column and builder a message is about."""

    def __init__(self, column: str, builder: str) -> None:
        self.column = column
        self.builder = builder

    def fail(self, message: str) -> NoReturn:
        raise AnonlabError(f"column {self.column!r} ({self.builder} builder): {message}")

    def param_int(self, params: Mapping[str, object], key: str, default: int, minimum: int) -> int:
        value = params.get(key, default)
        number = _to_number(value)
        if number is None or not float(number).is_integer() or number < minimum:
            self.fail(f"parameter {key!r} must be an integer >= {minimum}, got {value!r}")
        return int(number)

    def param_number(
        self, params: Mapping[str, object], key: str, default: float, positive: bool
    ) -> float:
        value = params.get(key, default)
        number = _to_number(value)
        if number is None or not math.isfinite(number) or (positive and number <= 0):
            what = "a positive number" if positive else "a finite number"
            self.fail(f"parameter {key!r} must be {what}, got {value!r}")
        return float(number)

    def param_list(self, params: Mapping[str, object], key: str) -> list[object]:
        value = params[key]
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return [value]  # one number, as a command line gives ``keep=3``
        if isinstance(value, Iterable) and not isinstance(value, bytes | Mapping):
            return list(value)
        self.fail(f"parameter {key!r} must be a list, got {value!r}")


def _to_number(value: object) -> float | None:
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


def _as_text(value: object) -> str | None:
    """A value as its leaf label (None for a missing value)."""
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


def _distinct_text(values: Sequence[str], ctx: _Context) -> np.ndarray:
    """The distinct values as stripped text, in order of first appearance (object array)."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        ctx.fail(f"values must be a sequence of the column's values, got {type(values).__name__}")
    if not isinstance(values, np.ndarray | pd.Series | pd.Index | list | tuple):
        values = list(values)
    uniq = pd.Series(pd.unique(pd.Series(values, dtype=object)), dtype=object)
    if pd.api.types.infer_dtype(uniq, skipna=False) == "string":  # the usual case, vectorised
        texts = uniq.str.strip().tolist()
    else:
        texts = [_as_text(v) for v in uniq]
    if any(t is None or t == "" for t in texts):
        ctx.fail(
            "a value is missing (empty, None or NaN); drop or refuse missing cells before "
            "building the hierarchy (a hierarchy has no leaf for them)"
        )
    out = np.array(list(dict.fromkeys(texts)), dtype=object)
    if len(out) == 0:
        ctx.fail("the column has no values; a hierarchy needs at least one")
    return out


def _preview(items: Sequence[object], n: int = 5) -> str:
    shown = ", ".join(repr(str(v)) for v in list(items)[:n])
    return shown + (f", ... ({len(items)} in all)" if len(items) > n else "")


def _level(keys: np.ndarray, label: Callable[[np.ndarray], Sequence[str]]) -> np.ndarray:
    """Per-value labels of one level: ``label`` is called once on the distinct node keys."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    labels = np.asarray(list(label(uniq)), dtype=object)
    return labels[inverse.reshape(-1)]


def _rows(leaves: np.ndarray, levels: list[np.ndarray], order: np.ndarray, top: bool) -> list:
    """Rows ``[leaf, level1, ..., (*)]`` for the values in ``order`` (an index array)."""
    cols = [leaves[order], *(lv[order] for lv in levels)]
    if top:
        cols.append(np.full(len(order), ROOT, dtype=object))
    return np.stack(cols, axis=1).tolist()


def _num(x: float) -> str:
    """A bound as text: integers without a decimal point, others with <= 12 digits."""
    x = float(x) + 0.0  # no "-0"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return format(x, ".12g")


def _band(lo: float, hi: float) -> str:
    return f"[{_num(lo)}, {_num(hi)})"


# ---------------------------------------------------------------------- interval
def _parse_numbers(values: np.ndarray, ctx: _Context) -> np.ndarray:
    nums = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
    bad = ~np.isfinite(nums)
    if bad.any():
        ctx.fail(
            f"value {values[np.flatnonzero(bad)[0]]!r} is not a finite number; the interval "
            "builder takes numbers such as 42 or -3.5 (use 'order' or 'prefix' for text)"
        )
    return nums


def _fanout_bands(nums: np.ndarray, width: float, fanout: int, origin: float, ctx: _Context):
    """Band levels: ``[lo, lo + width)`` from ``origin``, ``fanout`` merged per level."""
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
            _level(node, lambda u, w=w: [_band(origin + i * w, origin + (i + 1) * w) for i in u])
        )
        if n_nodes == 1:
            break
        previous = n_nodes
        step *= fanout
    return levels


def _explicit_bands(raw: object, nums: np.ndarray, values: np.ndarray, ctx: _Context):
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
        bounds = [_to_number(b) for b in items] if isinstance(items, Iterable) else [None]
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
        levels.append(_level(node, lambda u, b=bounds: [_band(b[i], b[i + 1]) for i in u]))
    return levels


def _build_interval(params: Mapping[str, object], values: np.ndarray, ctx: _Context) -> list:
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
        levels = _fanout_bands(nums, width, fanout, origin, ctx)
    order = np.lexsort((values.astype(str), nums))
    return _rows(values, levels, order, top=True)


# ---------------------------------------------------------------------- date
def _parse_dates(values: np.ndarray, ctx: _Context, what: str = "value") -> np.ndarray:
    """ISO dates/datetimes as datetime64[s]; an error names the first that is not one
    (:mod:`anonlab.dates` reads them, as the table reader does)."""
    texts = pd.Series(values, dtype=object).astype(str).to_numpy(dtype=object)
    forms = iso_forms(texts)
    if not forms.all():
        ctx.fail(
            f"{what} {values[np.flatnonzero(forms == 0)[0]]!r} is not a date; expected "
            f"{ISO_FORMS} (e.g. 2020-01-31 or 2020-01-31T08:30)"
        )
    stamps, bad = parse_iso(texts)
    if bad.any():
        ctx.fail(
            f"{what} {values[np.flatnonzero(bad)[0]]!r} is not a valid date (no such day or "
            f"time); expected {ISO_FORMS}"
        )
    return stamps


def _ymd(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month (1-12) and day (1-31) of days since 1970-01-01."""
    d = days.astype("datetime64[D]")
    months = d.astype("datetime64[M]")
    year = months.astype("datetime64[Y]").astype(np.int64) + 1970
    month = months.astype(np.int64) % 12 + 1
    day = (d - months.astype("datetime64[D]")).astype(np.int64) + 1
    return year, month, day


def _date_levels(days: np.ndarray, names: list[str]) -> list[np.ndarray]:
    base = days  # the day higher levels are computed from (a week's Thursday after 'week')
    levels = []
    for lv in names:
        if lv == "day":
            levels.append(_level(base, lambda u: np.datetime_as_string(u.astype("datetime64[D]"))))
        elif lv == "week":
            thursday = base - (base + 3) % 7 + 3  # 1970-01-01 was a Thursday
            base = thursday

            def week_label(u: np.ndarray) -> list[str]:
                year, _, _ = _ymd(u)
                jan1 = (year - 1970).astype("datetime64[Y]").astype("datetime64[D]")
                week = (u - jan1.astype(np.int64)) // 7 + 1
                return [f"{y}-W{w:02d}" for y, w in zip(year, week, strict=True)]

            levels.append(_level(thursday, week_label))
        elif lv == "month":
            months = base.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)
            levels.append(
                _level(months, lambda u: np.datetime_as_string(u.astype("datetime64[M]")))
            )
        elif lv == "quarter":
            quarters = base.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64) // 3
            levels.append(_level(quarters, lambda u: [f"{q // 4 + 1970}-Q{q % 4 + 1}" for q in u]))
        else:
            year, _, _ = _ymd(base)
            span = {"year": 1, "5-year": 5, "10-year": 10}[lv]
            node = year // span
            if span == 1:
                levels.append(_level(node, lambda u: [str(y) for y in u]))
            else:
                levels.append(
                    _level(node, lambda u, s=span: [f"{y * s}-{y * s + s - 1}" for y in u])
                )
    return levels


def _ages(days: np.ndarray, ref_days: int, values: np.ndarray, ref: object, ctx: _Context):
    by, bm, bd = _ymd(days)
    ry, rm, rd = (int(x[0]) for x in _ymd(np.array([ref_days])))
    age = ry - by - ((rm * 100 + rd) < (bm * 100 + bd)).astype(np.int64)
    if (age < 0).any():
        ctx.fail(
            f"birth date {values[np.flatnonzero(age < 0)[0]]!r} is after the reference date "
            f"age_at={ref!r}; give a reference date after every birth date"
        )
    return age


def _build_date(params: Mapping[str, object], values: np.ndarray, ctx: _Context) -> list:
    stamps = _parse_dates(values, ctx)
    days = stamps.astype("datetime64[D]").astype(np.int64)
    if "age_at" in params:
        if "levels" in params:
            ctx.fail("give either 'levels' (date levels) or 'age_at' (ages, then age bands)")
        ref = params["age_at"]
        ref_text = _as_text(ref) if isinstance(ref, date) else str(ref).strip()
        ref_stamp = _parse_dates(np.array([ref_text], dtype=object), ctx, "age_at")
        ref_days = int(ref_stamp.astype("datetime64[D]").astype(np.int64)[0])
        width = ctx.param_int(params, "width", 5, minimum=1)
        fanout = ctx.param_int(params, "fanout", 2, minimum=2)
        age = _ages(days, ref_days, values, ref, ctx)
        levels = [_level(age, lambda u: [str(a) for a in u])]
        levels += _fanout_bands(age.astype(float), float(width), fanout, 0.0, ctx)
    else:
        clash = [k for k in ("width", "fanout") if k in params]
        if clash:
            ctx.fail(f"{', '.join(map(repr, clash))} apply only with 'age_at' (age bands)")
        names = list(DEFAULT_DATE_LEVELS)
        if "levels" in params:
            names = [str(n) for n in ctx.param_list(params, "levels")]
        if not names:
            ctx.fail(f"parameter 'levels' is empty; choose from {', '.join(DATE_LEVELS)}")
        unknown = [n for n in names if n not in DATE_LEVELS]
        if unknown:
            ctx.fail(f"unknown date level {unknown[0]!r}; valid levels: {', '.join(DATE_LEVELS)}")
        ranks = [DATE_LEVELS.index(n) for n in names]
        if any(b <= a for a, b in zip(ranks, ranks[1:], strict=False)):
            ctx.fail(
                f"date levels {names} must go from fine to coarse without repeats, in the order "
                f"{', '.join(DATE_LEVELS)}"
            )
        levels = _date_levels(days, names)
    order = np.lexsort((values.astype(str), stamps.astype(np.int64)))
    return _rows(values, levels, order, top=True)


# ---------------------------------------------------------------------- prefix
def _build_prefix(params: Mapping[str, object], values: np.ndarray, ctx: _Context) -> list:
    mask = params.get("mask_char", "*")
    if not isinstance(mask, str) or len(mask) != 1 or mask.isspace():
        ctx.fail(f"parameter 'mask_char' must be one visible character, got {mask!r}")
    pad = params.get("pad", False)
    if isinstance(pad, str) and pad.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        pad = pad.strip().lower() in ("true", "yes", "1")
    if not isinstance(pad, bool):
        ctx.fail(f"parameter 'pad' must be true or false, got {pad!r}")
    text = values.astype(str)
    lengths = np.char.str_len(text)
    length = int(lengths.max())
    if not pad and (lengths != length).any():
        common = np.bincount(lengths).argmax()
        odd = np.flatnonzero(lengths != common)[0]
        ctx.fail(
            f"value {values[odd]!r} has {lengths[odd]} characters but most values have {common}; "
            "prefix masking needs values of one length (a code that lost a leading zero?); "
            "fix the data, or pass pad=true to right-pad shorter values with the mask"
        )
    if "keep" in params:
        keep_raw = ctx.param_list(params, "keep")
        keep = [_to_number(k) for k in keep_raw]
        if (
            not keep
            or any(k is None or not float(k).is_integer() for k in keep)
            or any(not 0 <= k < length for k in keep)  # type: ignore[operator]
            or any(b >= a for a, b in zip(keep, keep[1:], strict=False))  # type: ignore[operator]
        ):
            ctx.fail(
                f"parameter 'keep' must list decreasing numbers of leading characters kept, each "
                f"in 0..{length - 1} (values have {length} characters), got {keep_raw!r}"
            )
        keep_n = [int(k) for k in keep]  # type: ignore[arg-type]
    else:
        keep_n = list(range(length - 1, -1, -1))
    padded = np.char.ljust(text, length, mask) if pad else text
    levels = []
    for k in keep_n:
        kept = padded.astype(f"<U{k}") if k > 0 else np.full(len(text), "", dtype="<U1")
        levels.append(np.char.add(kept, mask * (length - k)).astype(object))
    order = np.argsort(text, kind="stable")
    return _rows(values, levels, order, top=keep_n[-1] != 0)


# ---------------------------------------------------------------------- order
def _natural_sort(values: np.ndarray) -> list[str]:
    nums = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(float)
    if np.isfinite(nums).all():
        return values[np.lexsort((values.astype(str), nums))].tolist()
    return sorted(values.tolist())


def _build_order(params: Mapping[str, object], values: np.ndarray, ctx: _Context) -> list:
    fanout = ctx.param_int(params, "fanout", 2, minimum=2)
    if "order" in params:
        order = [_as_text(v) or "" for v in ctx.param_list(params, "order")]
        seen: set[str] = set()
        dup = next((v for v in order if v in seen or seen.add(v)), None)  # type: ignore[func-returns-value]
        if dup is not None:
            ctx.fail(f"value {dup!r} appears twice in parameter 'order'; list each value once")
        position = {v: i for i, v in enumerate(order)}
        missing = [v for v in values if v not in position]
        if missing:
            ctx.fail(
                f"value(s) {_preview(missing)} of the column are not in parameter 'order'; "
                "list every value of the column in its place"
            )
    else:
        order = _natural_sort(values)
        position = {v: i for i, v in enumerate(order)}
    n = len(order)
    pos = np.array([position[v] for v in values], dtype=np.int64)
    levels = []
    step = fanout
    while (n_groups := -(-n // step)) > 1:
        labels = []
        for g in range(n_groups):
            first, last = order[g * step], order[min((g + 1) * step, n) - 1]
            labels.append(first if first == last else f"{first}-{last}")
        if len(set(labels)) < n_groups:
            clash = next(lab for lab in labels if labels.count(lab) > 1)
            ctx.fail(
                f"two runs of level {len(levels) + 1} would both be labelled {clash!r} (values "
                "containing '-'); rename the values or use the 'mapping' builder"
            )
        levels.append(np.asarray(labels, dtype=object)[pos // step])
        step *= fanout
    return _rows(values, levels, np.argsort(pos, kind="stable"), top=True)


# ---------------------------------------------------------------------- mapping
def _read_mapping_file(params: Mapping[str, object], ctx: _Context) -> list[list[str]]:
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


def _inline_mapping(raw: object, values: np.ndarray, ctx: _Context) -> list[list[str]]:
    if not isinstance(raw, Sequence) or isinstance(raw, str) or not raw:
        ctx.fail(
            "parameter 'levels' must be a non-empty list of mappings, one per level, each from "
            f"a node to its parent (e.g. [{{'A01.1': 'A01'}}, {{'A01': 'A00-A09'}}]), got {raw!r}"
        )
    maps = []
    for j, m in enumerate(raw):
        if not isinstance(m, Mapping):
            ctx.fail(f"levels[{j}] must be a mapping from node to parent, got {m!r}")
        maps.append({_as_text(k): _as_text(v) for k, v in m.items()})
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


def _build_mapping(params: Mapping[str, object], values: np.ndarray, ctx: _Context) -> list:
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
            f"{len(unmapped)} value(s) of the column are not mapped: {_preview(unmapped)}; add a "
            "row for each"
        )
    present = set(values.tolist())
    return [row for leaf, row in by_leaf.items() if leaf in present]


# ---------------------------------------------------------------------- suppress
def _build_suppress(params: Mapping[str, object], values: np.ndarray, ctx: _Context) -> list:
    return _rows(values, [], np.argsort(values.astype(str), kind="stable"), top=True)


_BUILD: dict[str, Callable[[Mapping[str, object], np.ndarray, _Context], list]] = {
    "interval": _build_interval,
    "date": _build_date,
    "prefix": _build_prefix,
    "order": _build_order,
    "mapping": _build_mapping,
    "suppress": _build_suppress,
}
