"""Types: how a column's cells are read (issue 17, item 1).

A column's type (integer, decimal, text, categorical, date, datetime:
:class:`~anonlab.schema.ColumnType`) is decided on its distinct values by :func:`_decide`, the
same way for a whole DataFrame (:func:`encode_column`, :class:`TextColumn`) and for the chunks
of a file (:func:`encode_keys`, called by :mod:`anonlab.table.chunked`), or declared. Nothing is
coerced silently: leading zeros keep a column text, a stray word in a numeric column or an
infinite number is an error naming the column, row and value. The values are then encoded in
their natural order (numbers ascending, labels in hierarchy leaf order or sorted); a date
quasi-identifier without a hierarchy gets the automatic one (:func:`with_automatic_hierarchy`),
and the quasi-identifiers the publisher chose to publish as value sets are marked
(:func:`mark_value_sets`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from anonlab.dates import (
    DATETIME_FORM,
    ISO_FORMS,
    canonical_labels,
    has_time,
    iso_forms,
    parse_iso,
)
from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.schema import Attribute, ColumnType, Kind, Role, parse_column_types

#: A cell with a leading zero (``01656``, ``007``, ``-01``; not ``0`` or ``0.5``): a code.
_LEADING_ZERO = r"^[+-]?0[0-9]"
#: Integers are exact in float64 below this magnitude (cells are parsed through float64).
_EXACT = 2**53

#: What a caller declared for a column: a :class:`ColumnType`, or ``"number"`` (the legacy
#: ``numeric=`` keyword: integer or decimal, whichever the values are).
Declared = ColumnType | str | None


def declared_types(
    kept: Sequence[str],
    columns: Sequence[str],
    numeric: Iterable[str] | None,
    types: Mapping[str, object] | None,
) -> dict[str, Declared]:
    """The declared type of every kept column (None: infer it). ``types`` wins over
    ``numeric``; with ``numeric`` given, the kept columns it does not name are categorical."""
    parsed = parse_column_types(types)
    for name in parsed:
        if name not in columns:
            raise AnonlabError(
                f"a type is given for unknown column {name!r}; the data has columns {columns}"
            )
    numeric_set = None if numeric is None else {str(c) for c in numeric}
    out: dict[str, Declared] = {}
    for name in kept:
        if name in parsed:
            out[name] = parsed[name]
        elif numeric_set is not None:
            out[name] = "number" if name in numeric_set else ColumnType.CATEGORICAL
        else:
            out[name] = None
    return out


def _show(value: object) -> str:
    """A cell as the user wrote it, quoted (``'thirty'``, ``'inf'``), for messages."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value if isinstance(value, str) else str(value))


def prepare_column(col: pd.Series) -> tuple[object, str, list[str] | None]:
    """A column (or chunk) as numbers or as labels, before its type is decided.

    Returns ``(data, source, order)``: ``source`` is ``"number"`` (``data`` a numpy array; any
    numeric dtype but bool, nullable and pyarrow-backed ones included), ``"datetime"`` (ISO
    8601 text: ``2020-01-31``, or ``2020-01-31T08:15:00`` where some time is not midnight),
    ``"category"`` (its labels; ``order`` lists the categories of an *ordered* categorical),
    ``"bool"`` (``True``/``False``) or ``"text"`` (every other column, stripped of blanks).
    Missing values must have been removed or masked by the caller.
    """
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        order = None
        if dtype.ordered:
            order = [str(c).strip() for c in dtype.categories]
        return stripped_text(col.astype(object)), "category", order
    if pd.api.types.is_bool_dtype(dtype):
        return col.astype(object).astype(str), "bool", None
    if pd.api.types.is_datetime64_any_dtype(dtype) or _is_arrow_temporal(dtype):
        stamps = pd.to_datetime(col)
        source = "datetime"
        if stamps.dt.tz is not None:  # the wall-clock time where it was recorded
            stamps, source = stamps.dt.tz_localize(None), "datetime-tz"
        if bool((stamps.dropna() == stamps.dropna().dt.normalize()).all()):
            text = stamps.dt.strftime("%Y-%m-%d")
        else:
            text = stamps.dt.strftime("%Y-%m-%dT%H:%M:%S")
        return text.astype(object), source, None
    if pd.api.types.is_numeric_dtype(dtype):
        floating = pd.api.types.is_float_dtype(dtype)
        if isinstance(dtype, np.dtype):
            return col.to_numpy(), "number", None
        return col.to_numpy(dtype=np.float64 if floating else np.int64), "number", None
    return stripped_text(col), "text", None


def is_plain_text(dtype: object) -> bool:
    """Whether :func:`prepare_column` reads a column of this dtype as plain text."""
    return not (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_datetime64_any_dtype(dtype)
        or _is_arrow_temporal(dtype)
        or pd.api.types.is_numeric_dtype(dtype)
    )


def _is_arrow_temporal(dtype: object) -> bool:
    if not isinstance(dtype, pd.ArrowDtype):
        return False
    import pyarrow as pa

    return pa.types.is_timestamp(dtype.pyarrow_dtype) or pa.types.is_date(dtype.pyarrow_dtype)


_SOURCE_NOTES = {
    "datetime": "pandas datetime",
    "datetime-tz": "pandas datetime with a time zone: the local times kept, the zone dropped",
    "category": "pandas category",
    "bool": "pandas bool",
}


def _type_hint(name: str, to: str = "text") -> str:
    return f"--types {name}={to}, or types={{{name!r}: {to!r}}} in Python"


def _decide(
    name: str,
    keys: np.ndarray,
    source: str,
    declared: Declared,
    locate,
    counts,
) -> tuple[ColumnType, str, str, np.ndarray | None]:
    """The type of one column from its distinct values ``keys`` (numbers or labels).

    ``locate(mask)`` gives ``(row, key)`` of the first row (1-based) holding a key where
    ``mask`` (over ``keys``) is True; ``counts()`` the rows per key. Returns ``(type, how,
    note, numbers)``: ``numbers`` the value of each key for integer and decimal, else None.

    The rule when nothing is declared (numbers and labels alike are judged on their text):

    * every value a number, none with a leading zero: ``integer`` if all are whole and below
      2**53 in magnitude, else ``decimal``; an infinite value (``inf``, ``-inf``, ``1e400``) is
      an error naming the column, row and value;
    * every value a number but some with a leading zero (``01656``): ``text``, so the zeros are
      kept (zip codes, ICD or other fixed-width codes);
    * whole numbers beyond 2**53 in magnitude: ``text`` (a float64 does not hold them
      exactly: card or account numbers);
    * some values numbers and some not: an error naming the first row that is not a number
      when at least half of the rows are numbers (a stray ``thirty`` among ages), else
      ``text`` with a note;
    * no value a number: ``text``; a pandas ``category`` or ``bool`` column is ``categorical``
      and a datetime column ``text`` (ISO 8601), each with a note.
    """
    temporal = isinstance(declared, ColumnType) and declared.temporal
    if source == "number" and temporal:
        raise AnonlabError(
            f"column {name!r} is declared {declared.value} but holds numbers (dtype "
            f"{keys.dtype}); dates are read from ISO 8601 text ({ISO_FORMS}) or a datetime "
            f"column: convert it, or declare it integer ({_type_hint(name, 'integer')})"
        )
    if source == "number" and declared not in (ColumnType.TEXT, ColumnType.CATEGORICAL):
        return _decide_numbers(name, keys, declared, locate)
    if source == "number":  # declared text/categorical: the numbers' text
        return declared, "declared", "", None
    if declared in (ColumnType.TEXT, ColumnType.CATEGORICAL):
        return declared, "declared", "", None
    if temporal or source.startswith("datetime"):
        note = "" if temporal else _SOURCE_NOTES[source]
        return _decide_dates(name, keys, declared, note, locate)
    date_note = ""
    if declared is None and source == "text":
        forms = iso_forms(keys)
        if forms.all() and len(keys):
            return _decide_dates(name, keys, None, "", locate)
        if forms.any():
            rows = counts()
            date_rows, total = int(rows[forms > 0].sum()), int(rows.sum())
            if 2 * date_rows >= total:
                row, key = locate(forms == 0)
                raise AnonlabError(
                    f"column {name!r} looks like dates ({date_rows:,} of {total:,} values are "
                    f"ISO 8601 dates) but row {row} holds {_show(keys[key])}, which is not a "
                    f"date ({ISO_FORMS}); fix or blank that value (or name it a missing "
                    f"marker), or declare the column text ({_type_hint(name)})"
                )
            _, key = locate(forms > 0)
            date_note = (
                f"{date_rows:,} of {total:,} values look like dates (e.g. {_show(keys[key])}); "
                "all read as text"
            )
    numbers = pd.to_numeric(pd.Series(keys, dtype=object), errors="coerce").to_numpy(
        dtype=np.float64
    )
    parsed = ~np.isnan(numbers)
    finite = np.isfinite(numbers)
    whole = finite & (np.mod(np.where(finite, numbers, 0), 1) == 0)
    exact = whole & (np.abs(np.where(finite, numbers, 0)) < _EXACT)
    if declared is not None:  # integer, decimal or number
        bad = ~finite
        if bad.any():
            row, key = locate(bad)
            raise AnonlabError(_not_numeric(name, keys[key], row, parsed[key]))
        if declared == ColumnType.INTEGER and not exact.all():
            row, key = locate(~exact)
            raise AnonlabError(_not_integer(name, keys[key], row))
        if declared == ColumnType.INTEGER or (declared == "number" and exact.all()):
            return ColumnType.INTEGER, "declared", "", numbers.astype(np.int64)
        return ColumnType.DECIMAL, "declared", "", numbers
    if source != "text":
        return ColumnType.CATEGORICAL, "inferred", _SOURCE_NOTES[source], None
    if not parsed.any():
        return ColumnType.TEXT, "inferred", date_note, None
    if parsed.all():
        zeros = _leading_zeros(keys)
        if zeros.any():
            _, key = locate(zeros)
            return ColumnType.TEXT, "inferred", f"leading zeros kept, e.g. {_show(keys[key])}", None
        if not finite.all():
            row, key = locate(~finite)
            raise AnonlabError(_not_finite(name, keys[key], row))
        if exact.all():
            return ColumnType.INTEGER, "inferred", "", numbers.astype(np.int64)
        if whole.all():
            note = "whole numbers beyond 2**53 (not exact as numbers), kept as text"
            return ColumnType.TEXT, "inferred", note, None
        return ColumnType.DECIMAL, "inferred", "", numbers
    rows = counts()
    numeric_rows = int(rows[parsed].sum())
    total = int(rows.sum())
    if 2 * numeric_rows >= total:
        row, key = locate(~parsed)
        raise AnonlabError(
            f"column {name!r} looks numeric ({numeric_rows:,} of {total:,} values are numbers) "
            f"but row {row} holds {_show(keys[key])}, which is not a number; fix or blank that "
            f"value, or declare the column text to read every value as written "
            f"({_type_hint(name)})"
        )
    _, key = locate(parsed)
    return (
        ColumnType.TEXT,
        "inferred",
        f"{numeric_rows:,} of {total:,} values look like numbers (e.g. {_show(keys[key])}); "
        "all read as text",
        None,
    )


def _leading_zeros(labels: np.ndarray) -> np.ndarray:
    """Which labels have a leading zero (:data:`_LEADING_ZERO`), by pyarrow's regex kernel."""
    import pyarrow as pa
    import pyarrow.compute as pc

    found = pc.match_substring_regex(pa.array(labels, type=pa.string()), _LEADING_ZERO)
    return found.to_numpy(zero_copy_only=False).astype(bool)


def _decide_numbers(
    name: str, keys: np.ndarray, declared: Declared, locate
) -> tuple[ColumnType, str, str, np.ndarray]:
    """:func:`_decide` for a column with a numeric dtype (a DataFrame's or a Parquet file's)."""
    how = "inferred" if declared is None else "declared"
    note = "" if declared is not None else f"dtype {keys.dtype}"
    if np.issubdtype(keys.dtype, np.floating):
        finite = np.isfinite(keys)
        if not finite.all():
            row, key = locate(~finite)
            raise AnonlabError(_not_finite(name, keys[key], row))
        exact = (np.mod(keys, 1) == 0) & (np.abs(keys) < _EXACT)
    else:
        exact = np.ones(len(keys), dtype=bool)
    if declared == ColumnType.INTEGER and not exact.all():
        row, key = locate(~exact)
        raise AnonlabError(_not_integer(name, keys[key], row))
    if declared == ColumnType.DECIMAL:
        return ColumnType.DECIMAL, how, note, keys.astype(np.float64)
    values = _integral(keys)
    integer = declared == ColumnType.INTEGER or not np.issubdtype(values.dtype, np.floating)
    if declared == ColumnType.INTEGER:
        values = values.astype(np.int64)
    return (ColumnType.INTEGER if integer else ColumnType.DECIMAL), how, note, values


def _decide_dates(
    name: str, keys: np.ndarray, declared: Declared, note: str, locate
) -> tuple[ColumnType, str, str, np.ndarray]:
    """:func:`_decide` for dates: every value must be an ISO 8601 date or datetime that names a
    real day (:mod:`anonlab.dates`); returns the canonical label of each key. Undeclared, the
    type is ``datetime`` if some value has a time of day written, else ``date``; a declared
    ``date`` refuses a value with a time that is not midnight."""
    how = "declared" if declared is not None else "inferred"
    forms = iso_forms(keys)
    if not forms.all():
        row, key = locate(forms == 0)
        raise AnonlabError(_not_a_date(name, keys[key], row, declared))
    stamps, bad = parse_iso(keys)
    if bad.any():
        row, key = locate(bad)
        raise AnonlabError(_not_a_date(name, keys[key], row, declared, real=False))
    if declared == ColumnType.DATE:
        timed = has_time(stamps)
        if timed.any():
            row, key = locate(timed)
            raise AnonlabError(
                f"column {name!r} is declared date but row {row} holds {_show(keys[key])}, "
                f"which has a time of day; declare it datetime ({_type_hint(name, 'datetime')})"
            )
    with_time = declared == ColumnType.DATETIME or (
        declared is None and bool((forms == DATETIME_FORM).any())
    )
    kind = ColumnType.DATETIME if with_time else ColumnType.DATE
    return kind, how, note, canonical_labels(stamps, with_time)


def _not_a_date(name: str, value: object, row: int, declared: Declared, real: bool = True) -> str:
    what = f"declared {declared.value}" if isinstance(declared, ColumnType) else "read as dates"
    why = "is not a date" if real else "names no real day or time"
    return (
        f"column {name!r} is {what} but row {row} holds {_show(value)}, which {why} "
        f"({ISO_FORMS}, e.g. 2020-01-31 or 2020-01-31T08:30); fix that value, or declare the "
        f"column text ({_type_hint(name)})"
    )


def encode_keys(
    name: str,
    keys: np.ndarray,
    source: str,
    order: list[str] | None,
    declared: Declared,
    hierarchy: Hierarchy | None,
    locate,
    counts,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """Decide the type of a column from its distinct values and encode them: the code of each
    key (int32), the domain in code order, and the decision (``Table.types``' entry)."""
    kind, how, note, numbers = _decide(name, keys, source, declared, locate, counts)
    decision = {"type": kind.value, "how": how, "note": note}
    if kind.temporal:  # canonical labels: two spellings of one instant are one value
        label_code, uniques = pd.factorize(numbers, sort=False)
        rank, values = _categorical_order(np.asarray(uniques, dtype=object), name, hierarchy)
        return rank[label_code].astype(np.int32), values, decision
    if numbers is not None:
        values, rank = np.unique(numbers, return_inverse=True)
        return rank.astype(np.int32), values, decision
    if source == "number":  # declared text or categorical: the numbers as pandas writes them
        labels = pd.Series(keys).astype(str).to_numpy(dtype=object)
    else:
        labels = keys
    label_code, uniques = pd.factorize(labels, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    if order is not None and hierarchy is None:  # an ordered pandas categorical
        position = {c: i for i, c in enumerate(order)}
        by = np.argsort([position.get(u, len(order)) for u in uniques.tolist()], kind="stable")
        rank = np.empty_like(by)
        rank[by] = np.arange(len(by))
        values = uniques[by]
        decision["note"] = "pandas category, ordered (its order kept)"
    else:
        rank, values = _categorical_order(uniques, name, hierarchy)
    return rank[label_code].astype(np.int32), values, decision


def encode_column(
    col: pd.Series,
    name: str,
    declared: Declared,
    hierarchy: Hierarchy | None,
    row_id: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """One whole column (no missing value left): codes, domain and type decision."""
    data, source, order = prepare_column(col)
    codes, keys = pd.factorize(data, sort=False)
    keys = np.asarray(keys) if source == "number" else np.asarray(keys, dtype=object)
    return _encode_rows(name, codes, keys, source, order, declared, hierarchy, row_id)


def _encode_rows(
    name: str,
    codes: np.ndarray,
    keys: np.ndarray,
    source: str,
    order: list[str] | None,
    declared: Declared,
    hierarchy: Hierarchy | None,
    row_id: np.ndarray,
    cells: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """:func:`encode_keys` for rows given as ``codes`` into their distinct ``keys`` (first
    appearance order); the final int32 code of each row, the domain and the type decision.

    With ``cells``, ``codes`` index ``cells`` and ``cells`` index ``keys`` (a row's key is
    ``cells[codes]``; entries of ``cells`` that no row reaches may be anything): one gather
    over the rows instead of two."""
    if cells is None:
        cells = np.arange(len(keys), dtype=np.int32)
    valid = cells >= 0

    def locate(mask: np.ndarray) -> tuple[int, int]:
        first = int(np.flatnonzero(np.where(valid, mask[cells], False)[codes])[0])
        return int(row_id[first]) + 1, int(cells[codes[first]])

    def counts() -> np.ndarray:
        per_cell = np.bincount(codes, minlength=len(cells))
        return np.bincount(cells[valid], weights=per_cell[valid], minlength=len(keys)).astype(
            np.int64
        )

    rank, values, decision = encode_keys(
        name, keys, source, order, declared, hierarchy, locate, counts
    )
    code_of_cell = np.where(valid, rank.astype(np.int32)[np.where(valid, cells, 0)], -1)
    return np.take(code_of_cell.astype(np.int32), codes), values, decision


def with_automatic_hierarchy(att: Attribute, values: np.ndarray, types: dict) -> Attribute:
    """A date or datetime quasi-identifier without a hierarchy gets the ``date`` builder's
    (:data:`~anonlab.hierarchy_builders.DEFAULT_DATE_LEVELS`), so that a generalized group
    publishes a month, a year or a span of years and never the set of its members' exact
    dates (issue 17, item 3); the decision is added to the column's entry in ``types``
    (``hierarchy``), which :meth:`Table.type_lines` prints."""
    decided = types.get(att.name) or {}
    if att.role is not Role.QUASI_IDENTIFIER or att.hierarchy is not None:
        return att
    if decided.get("type") not in (ColumnType.DATE.value, ColumnType.DATETIME.value):
        return att
    from dataclasses import replace

    from anonlab.hierarchy_builders import automatic_date_spec, build_hierarchy

    spec = automatic_date_spec(decided["type"] == ColumnType.DATETIME.value)
    hierarchy = build_hierarchy(spec, values, att.name)
    decided["hierarchy"] = "automatic: " + ", ".join(spec["levels"]) + ", *"
    return replace(att, hierarchy=hierarchy)


def mark_value_sets(attributes: list[Attribute], value_sets: Sequence[str]) -> list[Attribute]:
    """Mark the quasi-identifiers the publisher chose to publish as value sets; each must be a
    text or categorical quasi-identifier without a hierarchy (else the choice means nothing,
    and an error says why)."""
    if isinstance(value_sets, str):
        value_sets = [value_sets]
    chosen = [str(v) for v in value_sets]
    by_name = {a.name: a for a in attributes}
    for name in chosen:
        att = by_name.get(name)
        if att is None or att.role is not Role.QUASI_IDENTIFIER:
            raise AnonlabError(
                f"value_sets: {name!r} is not a quasi-identifier; value sets are a way to publish "
                f"a quasi-identifier (the quasi-identifiers are "
                f"{[a.name for a in attributes if a.role is Role.QUASI_IDENTIFIER]})"
            )
        if att.kind is Kind.NUMERIC or att.hierarchy is not None:
            what = (
                "is numeric (published as ranges)" if att.hierarchy is None else "has a hierarchy"
            )
            raise AnonlabError(
                f"value_sets: quasi-identifier {name!r} {what}; only a text or categorical "
                "quasi-identifier without a hierarchy is published as value sets"
            )
    if not chosen:
        return attributes
    from dataclasses import replace

    return [replace(a, value_sets=True) if a.name in chosen else a for a in attributes]


class TextColumn:
    """A plain text column of a DataFrame as codes into its distinct stripped labels.

    The cells are factorized once (:func:`factorize_cells`); each distinct cell is then
    stripped of blanks (:func:`stripped_text`) and tested against the column's missing markers, and
    the distinct labels are factorized again, so that the work per cell is one hash. The result
    is the same as stripping and testing every cell (all are cell by cell), which
    ``tests/test_reading_speed_equivalence.py`` checks against the chunked CSV reader.
    ``missing`` is True for a cell that is NaN/None or a marker.
    """

    def __init__(self, col: pd.Series, markers: Sequence[str]) -> None:
        arrow = _arrow_cells(col)
        if arrow is not None:  # pyarrow strings: encoded by pyarrow, no pandas on the rows
            cell_code, labels = arrow
            marker_set = set(markers)
            first: dict[str, int] = {}  # pandas.factorize of the few labels, as a dict
            key = np.array([first.setdefault(x, len(first)) for x in labels], dtype=np.int32)
            key[np.array([x in marker_set for x in labels], dtype=bool)] = -1
            self.labels = np.array(list(first), dtype=object)
        else:
            if col.dtype == object:  # Python strings, often one object per repeated cell
                cell_code, cells = factorize_cells(col.to_numpy(dtype=object))
            else:  # pandas' string dtypes: hashed by pyarrow, no Python object per cell
                cell_code, cells = pd.factorize(col, sort=False)
                cells = np.asarray(cells, dtype=object)
            stripped = stripped_text(pd.Series(cells, dtype=object))
            marker = stripped.isin(markers).to_numpy(dtype=bool)
            key, self.labels = pd.factorize(stripped.to_numpy(dtype=object), sort=False)
            key = key.astype(np.int64)
            key[marker] = -1
            self.labels = np.asarray(self.labels, dtype=object)
        # cell code -1 (NaN, None): missing (np.take reads index -1 as the appended -1; one
        # dtype for both, which np.take gathers fastest)
        self.cell_code = cell_code
        self.key_of_cell = np.append(key, -1).astype(cell_code.dtype)
        if (self.key_of_cell[:-1] < 0).any() or (cell_code < 0).any():
            self.missing = np.take(self.key_of_cell, cell_code) < 0
        else:  # no marker among the cells and no NaN: no pass over the rows
            self.missing = np.zeros(len(cell_code), dtype=bool)

    @property
    def row_key(self) -> np.ndarray:
        """The label of each row (-1: missing)."""
        return np.take(self.key_of_cell, self.cell_code)

    def encode(
        self,
        name: str,
        declared: Declared,
        hierarchy: Hierarchy | None,
        row_id: np.ndarray,
        keep_rows: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray, dict]:
        """Codes, domain and type decision of the kept rows, as :func:`encode_column` gives them for
        the column's stripped text (keys in first-appearance order over the kept rows)."""
        if keep_rows is None:  # every row kept, no cell missing: every label occurs, and the
            # labels are already in first-appearance order (the cells are, and each label's
            # first cell is its first row)
            return _encode_rows(
                name, self.cell_code, self.labels, "text", None, declared, hierarchy, row_id,
                cells=self.key_of_cell,
            )  # fmt: skip
        codes, present = pd.factorize(self.row_key[keep_rows], sort=False)
        keys = self.labels[np.asarray(present, dtype=np.int64)]
        return _encode_rows(name, codes, keys, "text", None, declared, hierarchy, row_id)


def _not_numeric(name: str, bad: object, row: int, parsed: bool = False) -> str:
    if parsed:  # a number, but not a finite one
        return _not_finite(name, bad, row)
    return (
        f"column {name!r} is numeric but holds the value {_show(bad)} (row {row}), which is not "
        f"a number; fix the value, or declare the column text or categorical ({_type_hint(name)})"
    )


def _not_integer(name: str, value: object, row: int) -> str:
    return (
        f"column {name!r} is declared integer but row {row} holds {_show(value)}, "
        f"which is not a whole number below 2**53 in magnitude; declare it decimal "
        f"({_type_hint(name, 'decimal')}) or fix the value"
    )


def _not_finite(name: str, bad: object, row: int) -> str:
    return (
        f"column {name!r}: row {row} holds {_show(bad)}, which is not a finite number (infinite, "
        "or beyond a float's range of about ±1.8e308); fix that value, or declare the column "
        f"text ({_type_hint(name)})"
    )


def _integral(arr: np.ndarray) -> np.ndarray:
    """Floats that are all whole numbers (and exact in both types) become int64."""
    if (
        np.issubdtype(arr.dtype, np.floating)
        and np.all(np.mod(arr, 1) == 0)
        and np.all(np.abs(arr) <= 2**53)  # exactly representable in both types
    ):
        return arr.astype(np.int64)
    return arr


def _categorical_order(
    uniques: np.ndarray, name: str, hierarchy: Hierarchy | None
) -> tuple[np.ndarray, np.ndarray]:
    """Code of each label in ``uniques`` (first-appearance order) and the domain in code order:
    the hierarchy's leaf order, else sorted by label (stable, so ties keep first appearance)."""
    if hierarchy is not None:
        order = np.argsort(hierarchy.leaf_index(list(uniques), attribute=name), kind="stable")
    else:
        order = np.argsort(uniques.astype(str), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank, uniques[order]


def stripped_text(col: pd.Series) -> pd.Series:
    """A column as text without surrounding blanks (how a categorical value becomes a label)."""
    return col.astype(str).str.strip()


def _arrow_cells(col: pd.Series) -> tuple[np.ndarray, list[str]] | None:
    """For a column of pyarrow strings whose stripping pandas does with pyarrow's
    ``utf8_trim_whitespace``: the code of each cell into its distinct cells (first-appearance
    order, -1 for a null) and those cells stripped of blanks, as :func:`pandas.factorize` and
    :func:`stripped_text` give them, without pandas' per-call costs. None for any other column."""
    data = getattr(col.array, "_pa_array", None)
    if data is None:  # not pyarrow-backed (and pyarrow perhaps not installed)
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(data, pa.ChunkedArray) or not (
        pa.types.is_string(data.type) or pa.types.is_large_string(data.type)
    ):
        return None
    if getattr(pd.api.types.pandas_dtype(str), "storage", None) != "pyarrow":
        return None  # stripped_text would strip with Python's str.strip
    encoded = data.dictionary_encode().combine_chunks()  # what pandas.factorize does
    indices = encoded.indices
    if indices.null_count:
        indices = pc.fill_null(indices, -1)
    cell_code = indices.to_numpy(zero_copy_only=False)
    return cell_code, pc.utf8_trim_whitespace(encoded.dictionary).to_pylist()


def factorize_cells(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize(values)`` (codes, -1 for a missing cell, and the distinct cells in
    first-appearance order) for an object array of a parser's cells, faster.

    pandas' parser hands out one ``str`` object for the repeats of a cell (within a stretch
    of the file), so the cells are first grouped by object identity (their addresses, read
    through the array's buffer, factorized as integers: no string is hashed), and only one
    cell per group is then factorized by value. Cells held by one object are equal; equal
    cells held by different objects meet in the second step, so the result is exactly
    ``pandas.factorize``'s whatever the parser shares (sharing only makes it fast).
    """
    values = np.ascontiguousarray(values, dtype=object)
    address = np.frombuffer(memoryview(values).cast("B"), dtype=np.intp)
    group, firsts = pd.factorize(address, sort=False)
    n = len(values)
    first = np.full(len(firsts), n, dtype=np.intp)  # the first row of each group
    np.minimum.at(first, group, np.arange(n, dtype=np.intp))
    code, cells = pd.factorize(values[first], sort=False)
    return code[group], np.asarray(cells, dtype=object)
