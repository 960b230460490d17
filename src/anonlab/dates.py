"""Dates and datetimes as anonlab reads and publishes them: ISO 8601 text, checked and canonical.

A ``date`` or ``datetime`` column (:class:`~anonlab.schema.ColumnType`) is read from ISO 8601
text, ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM[:SS]`` (a blank instead of ``T`` is accepted), or
from a pandas datetime column. Its domain values are *canonical* labels, ``2020-01-31`` for a
date and ``2020-01-31T08:30:00`` for a datetime, so two spellings of one instant are one value,
the labels sort chronologically (four-digit years), and a hierarchy's leaves
(:mod:`anonlab.hierarchy_builders`, ``date`` builder) match them.

Choices made where ISO 8601 allows more:

* Only the calendar forms above are read as dates. Week dates (``2020-W05-1``), ordinal dates
  (``2020-031``), fractions of a second, time-zone offsets (``Z``, ``+01:00``) and other layouts
  (``31/01/2020``, ``01/31/2020``: which one is meant cannot be told from the text) stay text; a
  column of them is text and says so when it is refused.
* A datetime's seconds default to ``00``; a date read as a datetime is at midnight.
* Years 0001-9999, every real calendar day (numpy's proleptic Gregorian calendar): ``2020-02-30``
  is an error naming the row, not a wrapped-around day.
"""

from __future__ import annotations

import numpy as np

#: An ISO 8601 calendar date.
DATE_PATTERN = r"\d{4}-\d{2}-\d{2}"
#: An ISO 8601 calendar date and time of day (minutes, optional seconds), ``T`` or a blank.
DATETIME_PATTERN = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?"
#: Either.
ISO_PATTERN = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?"
#: How the accepted forms are named in messages.
ISO_FORMS = "YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS]"

_NONE, DATE_FORM, DATETIME_FORM = 0, 1, 2


def iso_forms(labels: np.ndarray) -> np.ndarray:
    """Per label: 0 (not an ISO date form), 1 (a date), 2 (a date and time); by pattern only,
    so ``2020-02-30`` is a date form (:func:`parse_iso` finds it invalid)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(labels) == 0:
        return np.zeros(0, dtype=np.int8)
    arr = pa.array(np.asarray(labels, dtype=object).astype(str), type=pa.string())
    date = pc.match_substring_regex(arr, f"^{DATE_PATTERN}$").to_numpy(zero_copy_only=False)
    stamp = pc.match_substring_regex(arr, f"^{DATETIME_PATTERN}$").to_numpy(zero_copy_only=False)
    out = np.zeros(len(labels), dtype=np.int8)
    out[date.astype(bool)] = DATE_FORM
    out[stamp.astype(bool)] = DATETIME_FORM
    return out


def parse_iso(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels in an ISO form (:func:`iso_forms` non-zero) as ``datetime64[s]``, and a mask of
    those that name no real day or time (their stamp is NaT).

    numpy parses the whole array at once; only when that fails (some ``2020-02-30``) is each
    label tried alone, to find which.
    """
    texts = np.char.replace(np.asarray(labels, dtype=object).astype(str), " ", "T")
    try:
        return texts.astype("datetime64[s]"), np.zeros(len(texts), dtype=bool)
    except ValueError:
        stamps = np.full(len(texts), np.datetime64("NaT"), dtype="datetime64[s]")
        bad = np.zeros(len(texts), dtype=bool)
        for i, text in enumerate(texts.tolist()):  # error path only, over distinct labels
            try:
                stamps[i] = np.datetime64(text, "s")
            except ValueError:
                bad[i] = True
        return stamps, bad


def canonical_labels(stamps: np.ndarray, with_time: bool) -> np.ndarray:
    """``2020-01-31`` (a date) or ``2020-01-31T08:30:00`` (a datetime) per stamp, as an object
    array: the labels a date or datetime column's domain holds."""
    unit = "s" if with_time else "D"
    texts = np.datetime_as_string(stamps.astype(f"datetime64[{unit}]"), unit=unit)
    return texts.astype(object)


def has_time(stamps: np.ndarray) -> np.ndarray:
    """Which stamps are not at midnight."""
    return stamps != stamps.astype("datetime64[D]").astype("datetime64[s]")
