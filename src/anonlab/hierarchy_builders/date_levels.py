"""The ``date`` builder: ISO dates and datetimes to calendar levels, or birth dates to ages.

``levels`` from ``day, week, month, quarter, year, 5-year, 10-year`` (:data:`DATE_LEVELS`;
default :data:`DEFAULT_DATE_LEVELS`, ``["month", "year", "5-year"]``), coarser ones later, then
``*``. With ``age_at`` (a reference date) the column holds birth dates: the first level is the
age in whole years at that date, then age bands of ``width`` (default 5) merged by ``fanout``
(default 2), as the ``interval`` builder merges bands (:func:`~.intervals.fanout_bands`).
:func:`automatic_date_spec` is the spec a date quasi-identifier gets when it has no hierarchy.

Choices made where ARX and the papers are silent:

* Labels: ``day`` ``2020-01-31``, ``week`` the ISO 8601 week ``2020-W05``, ``month``
  ``2020-01``, ``quarter`` ``2020-Q1``, ``year`` ``2020``, ``5-year`` ``2020-2024`` and
  ``10-year`` ``2020-2029`` (calendar years aligned to multiples of 5 and 10, both ends
  inclusive). ISO weeks straddle months and years; so that the levels nest, a week belongs to
  the month, quarter and year of its Thursday (the ISO 8601 rule that numbers weeks): once a
  ``week`` level is used, 2019-12-30 is in ``2020-W01`` and then in ``2020-01`` and ``2020``.
  A datetime's time of day is ignored by every level (``day`` included).
* Ages: whole years completed at the reference date (a birthday on the reference date counts).
  Someone born on 29 February has their birthday on 1 March in non-leap years. A birth date after
  the reference date is an error naming it. Age bands are ``[lo, hi)`` from 0.
* Rows come in chronological order.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import numpy as np
import pandas as pd

from anonlab.dates import ISO_FORMS, iso_forms, parse_iso
from anonlab.hierarchy_builders.common import (
    BuilderContext,
    as_text,
    hierarchy_rows,
    level_labels,
)
from anonlab.hierarchy_builders.intervals import fanout_bands

__all__ = [
    "DATE_LEVELS",
    "DEFAULT_DATE_LEVELS",
    "automatic_date_spec",
    "date_rows",
    "parse_dates",
]

#: The date levels, finest first (a ``levels`` list must follow this order).
DATE_LEVELS: tuple[str, ...] = ("day", "week", "month", "quarter", "year", "5-year", "10-year")

#: The ``date`` builder's levels when none are given (and ``anonlab init``'s draft).
DEFAULT_DATE_LEVELS = ("month", "year", "5-year")


def automatic_date_spec(with_time: bool) -> dict[str, object]:
    """The ``date`` builder spec a date (or, ``with_time``, datetime) quasi-identifier gets when
    no hierarchy is given: :data:`DEFAULT_DATE_LEVELS`, with ``day`` first for datetimes (a
    datetime's day is the first step up from its exact time)."""
    levels = (("day",) if with_time else ()) + DEFAULT_DATE_LEVELS
    return {"builder": "date", "levels": list(levels)}


def parse_dates(values: np.ndarray, ctx: BuilderContext, what: str = "value") -> np.ndarray:
    """ISO dates/datetimes as datetime64[s]; an error names the first that is not one
    (:mod:`anonlab.dates` reads them, as the table reader does); ``what`` names the values in
    that message."""
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
            levels.append(
                level_labels(base, lambda u: np.datetime_as_string(u.astype("datetime64[D]")))
            )
        elif lv == "week":
            thursday = base - (base + 3) % 7 + 3  # 1970-01-01 was a Thursday
            base = thursday

            def week_label(u: np.ndarray) -> list[str]:
                year, _, _ = _ymd(u)
                jan1 = (year - 1970).astype("datetime64[Y]").astype("datetime64[D]")
                week = (u - jan1.astype(np.int64)) // 7 + 1
                return [f"{y}-W{w:02d}" for y, w in zip(year, week, strict=True)]

            levels.append(level_labels(thursday, week_label))
        elif lv == "month":
            months = base.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)
            levels.append(
                level_labels(months, lambda u: np.datetime_as_string(u.astype("datetime64[M]")))
            )
        elif lv == "quarter":
            quarters = base.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64) // 3
            levels.append(
                level_labels(quarters, lambda u: [f"{q // 4 + 1970}-Q{q % 4 + 1}" for q in u])
            )
        else:
            year, _, _ = _ymd(base)
            span = {"year": 1, "5-year": 5, "10-year": 10}[lv]
            node = year // span
            if span == 1:
                levels.append(level_labels(node, lambda u: [str(y) for y in u]))
            else:
                levels.append(
                    level_labels(node, lambda u, s=span: [f"{y * s}-{y * s + s - 1}" for y in u])
                )
    return levels


def _ages(days: np.ndarray, ref_days: int, values: np.ndarray, ref: object, ctx: BuilderContext):
    by, bm, bd = _ymd(days)
    ry, rm, rd = (int(x[0]) for x in _ymd(np.array([ref_days])))
    age = ry - by - ((rm * 100 + rd) < (bm * 100 + bd)).astype(np.int64)
    if (age < 0).any():
        ctx.fail(
            f"birth date {values[np.flatnonzero(age < 0)[0]]!r} is after the reference date "
            f"age_at={ref!r}; give a reference date after every birth date"
        )
    return age


def date_rows(params: Mapping[str, object], values: np.ndarray, ctx: BuilderContext) -> list:
    """The ``date`` builder: the hierarchy's rows for the distinct values ``values`` (ISO
    dates or datetimes), to calendar ``levels`` or, with ``age_at``, ages and age bands;
    parameters already checked against the builder's names."""
    stamps = parse_dates(values, ctx)
    days = stamps.astype("datetime64[D]").astype(np.int64)
    if "age_at" in params:
        if "levels" in params:
            ctx.fail("give either 'levels' (date levels) or 'age_at' (ages, then age bands)")
        ref = params["age_at"]
        ref_text = as_text(ref) if isinstance(ref, date) else str(ref).strip()
        ref_stamp = parse_dates(np.array([ref_text], dtype=object), ctx, "age_at")
        ref_days = int(ref_stamp.astype("datetime64[D]").astype(np.int64)[0])
        width = ctx.param_int(params, "width", 5, minimum=1)
        fanout = ctx.param_int(params, "fanout", 2, minimum=2)
        age = _ages(days, ref_days, values, ref, ctx)
        levels = [level_labels(age, lambda u: [str(a) for a in u])]
        levels += fanout_bands(age.astype(float), float(width), fanout, 0.0, ctx)
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
    return hierarchy_rows(values, levels, order, top=True)
