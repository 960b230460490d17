"""CSV formula-injection guard: text cells that a spreadsheet would run as a formula.

A spreadsheet (Excel, LibreOffice, Google Sheets) opening a CSV treats a cell that starts with
``=``, ``+``, ``-`` or ``@`` as a formula (``=HYPERLINK(...)``, ``=cmd|' /C calc'!A0``,
``@SUM(1)``, ``+1+1``), and some also after a leading tab or carriage return. Every CSV that
anonlab writes is guarded (:func:`guard_frame`; the published files, written in chunks, through
:func:`guard_series` on each column's distinct values, :mod:`anonlab.release_io.export`), and
every CSV it reads goes through :func:`unguard_frame`, so that anonlab reads its own output
back exactly. Published Parquet files are typed and not guarded (a spreadsheet does not open
Parquet as text; whoever converts one to CSV guards it).

Choices made (OWASP's "CSV injection" advice):

* A text cell is *guarded* by prefixing one apostrophe ``'``: spreadsheets show the cell as
  text and hide the apostrophe.
* Trigger characters: ``=``, ``+``, ``-``, ``@``, tab and carriage return, as the first
  character of the cell. A cell that reads as a plain number (``-5``, ``+1.5``, ``-1e3``,
  ``.5``) is a number, not a formula, and is left alone, as are columns of a numeric dtype and
  cells that are not strings (``None``, NaN, Python numbers in an object column).
* To make the guard invertible, a text cell that starts with apostrophes followed by a
  trigger (``'=x``, ``''-a``) is guarded too: it gets one more apostrophe. So
  ``unguard(guard(x)) == x`` for every string ``x``: :func:`unguard_frame` removes one leading
  apostrophe from exactly the cells :func:`guard_frame` would have produced, i.e. cells that
  start with ``'`` and whose remainder needs the guard.
* Column names are guarded the same way (a header cell is a cell).
* A consequence for input files: a cell written by hand as ``'=x`` (or by a spreadsheet that
  guards the same way) is read as ``=x``. A cell ``'abc`` or ``'-5`` is read unchanged.

Everything is vectorised with pandas string methods; only cells starting with a trigger or an
apostrophe are touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

#: First characters that make a spreadsheet read a cell as a formula.
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

_TRIGGER = r"[=+\-@\t\r]"
# A plain decimal number (what a spreadsheet reads as a number, not as a formula).
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
# Needs the guard: apostrophes, then a trigger, and what follows the apostrophes is not a
# plain number. (\Z, not $: "-5\n" is not a plain number.)
_NEEDS = rf"(?!'*{_NUMBER}\Z)'*{_TRIGGER}"
_NEEDS_RE = re.compile(_NEEDS)


def _text(values: pd.Series) -> tuple[pd.Series, pd.Series] | None:
    """(the column as str with non-strings as "", which cells are strings), or None for a
    column of a numeric, boolean or datetime dtype (never guarded)."""
    dtype = values.dtype
    if (
        pd.api.types.is_numeric_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_datetime64_any_dtype(dtype)
        or isinstance(dtype, pd.CategoricalDtype)
        and not pd.api.types.is_string_dtype(dtype.categories.dtype)
    ):
        return None
    if isinstance(dtype, pd.CategoricalDtype):
        values = values.astype(object)
    if isinstance(dtype, pd.StringDtype):
        is_str = values.notna().to_numpy()
    else:
        inferred = pd.api.types.infer_dtype(values, skipna=True)
        if inferred in ("string", "empty"):
            is_str = values.notna().to_numpy()
        elif inferred in ("mixed", "mixed-integer"):  # only its str cells are text (a loop)
            is_str = values.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
        else:  # numbers, booleans, dates, bytes... held as objects: no text cell
            return None
    text = values.where(is_str, "").astype(str)
    return text, pd.Series(is_str, index=values.index)


_FIRST = ["'", *TRIGGERS]  # a cell that needs the guard starts with one of these


def _needs_guard(text: pd.Series) -> pd.Series:
    """Bool per cell of a str Series. The regular expression (with a look-ahead, which
    pyarrow's engine lacks) runs only on the few cells that start with a trigger or ``'``."""
    candidate = text.str.slice(0, 1).isin(_FIRST).to_numpy(dtype=bool)
    out = pd.Series(False, index=text.index)
    if candidate.any():
        out[candidate] = text[candidate].str.match(_NEEDS).astype(bool).to_numpy()
    return out


_Change = tuple[pd.Series, pd.Series] | None  # (which cells, their new text), or no change


def _rewrite(values: pd.Series, change: Callable[[pd.Series, pd.Series], _Change]) -> pd.Series:
    """``values`` with the text cells ``change(text, is_str)`` names set to its new text (the
    column is returned as it is when it has no text cells, or nothing changes); a changed
    categorical column becomes an object column."""
    found = _text(values)
    if found is None:
        return values
    cells = change(*found)
    if cells is None:
        return values
    where, new = cells
    out = values.astype(object) if isinstance(values.dtype, pd.CategoricalDtype) else values.copy()
    out[where] = new
    return out


def _guarded(text: pd.Series, is_str: pd.Series) -> _Change:
    needs = _needs_guard(text) & is_str
    return (needs, "'" + text[needs]) if needs.any() else None


def _unguarded(text: pd.Series, is_str: pd.Series) -> _Change:
    quoted = text.str.startswith("'").astype(bool) & is_str
    if not quoted.any():
        return None
    rest = text[quoted].str.slice(1)
    strip = _needs_guard(rest)
    return (strip.index[strip.to_numpy()], rest[strip]) if strip.any() else None


def guard_series(values: pd.Series) -> pd.Series:
    """One column guarded (see the module docstring); numeric columns are returned as they are."""
    return _rewrite(values, _guarded)


def unguard_series(values: pd.Series) -> pd.Series:
    """Inverse of :func:`guard_series`: one apostrophe removed where the guard put one."""
    return _rewrite(values, _unguarded)


def guard_text(value: object) -> object:
    """One cell guarded (a str; anything else is returned as it is)."""
    if isinstance(value, str) and _NEEDS_RE.match(value):
        return "'" + value
    return value


def unguard_text(value: object) -> object:
    """Inverse of :func:`guard_text`."""
    if isinstance(value, str) and value.startswith("'") and _NEEDS_RE.match(value[1:]):
        return value[1:]
    return value


def guard_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` safe to open in a spreadsheet: formula-like text cells and column
    names prefixed with ``'`` (see the module docstring). Numeric columns are not touched; the
    index is not guarded (write with ``index=False``)."""
    out = frame.copy(deep=False)
    for i in range(frame.shape[1]):
        out.isetitem(i, guard_series(frame.iloc[:, i]))
    out.columns = frame.columns.map(guard_text)
    return out


def unguard_frame(frame: pd.DataFrame, *, columns: bool = True) -> pd.DataFrame:
    """Exact inverse of :func:`guard_frame` on what it wrote: ``unguard_frame(guard_frame(f))``
    equals ``f`` (cells and column names). ``columns=False`` leaves the column names as they
    are (for names already unguarded, e.g. by :func:`anonlab.table.read_csv_header`: the guard
    must be removed exactly once)."""
    out = frame.copy(deep=False)
    for i in range(frame.shape[1]):
        out.isetitem(i, unguard_series(frame.iloc[:, i]))
    if columns:
        out.columns = frame.columns.map(unguard_text)
    return out


def unguard_names(names: list) -> list:
    """Column names as read from a header row, with the guard removed."""
    return [unguard_text(n) for n in names]
