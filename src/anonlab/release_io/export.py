"""Export: the published files of a release, in the order of its secret export key.

:func:`generalized_frame` (one generalized table, like ARX's output) and
:func:`bucketized_frames` (Anatomy's QIT and ST) build what is published as whole DataFrames;
:func:`write_published` writes the same rows to ``published/`` without building them: it
streams them, ``chunk_rows`` rows at a time in the export order, so that no whole-table frame
exists (at 10,000,000 records a frame of text cells took several GB). Row order and group ids
come from the release's export key (:func:`export_key_of`, :mod:`anonlab.export_order`), never
from the seed or the input order; groups' sensitive values are given as counts sorted by value
(never in member order).

Two formats (``published_format``):

* ``"csv"`` (the default): byte for byte what ``guard_frame(frame).to_csv(path, index=False)``
  writes for the frames above (tests/test_streaming_export.py checks it), with every text cell
  and column name guarded against spreadsheet formulas (:mod:`anonlab.formula_guard`). Every
  published column is a column of distinct values and a code per record (a table's domain, a
  group's published label), so each distinct value is guarded and formatted as a CSV cell once,
  and each chunk is assembled from those cells (Arrow ``take`` and an element-wise join).
* ``"parquet"``: the same rows, columns and order as typed Parquet columns (numbers as numbers,
  text as UTF-8 strings, a missing value as null; zstd), written one row group per chunk with
  :class:`pyarrow.parquet.ParquetWriter`. **Parquet cells are not guarded**: the guard is a
  defence for files that a spreadsheet parses as text and may evaluate (CSV); a Parquet cell is
  typed data that no spreadsheet runs as a formula (a spreadsheet reaches Parquet only through
  an import tool, which loads text cells as text), and a leading apostrophe would change the
  values every program reading the file sees. Whoever converts a published Parquet file to CSV
  should guard it (:func:`anonlab.formula_guard.guard_frame`).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab import export_order
from anonlab.errors import AnonlabError
from anonlab.release import Release, require_no_value_sets

GROUP_COLUMN = "group"
COUNT_COLUMN = "count"
#: Rows built and written at a time by :func:`write_published` (and rows per Parquet row group).
CHUNK_ROWS = 1_000_000
#: Formats of the published files (``save_release(..., published_format=...)``).
PUBLISHED_FORMATS = ("csv", "parquet")


def free_name(preferred: str, taken: Sequence[str]) -> str:
    """``preferred``, or ``preferred`` with leading underscores until no data column has it."""
    name = preferred
    while name in taken:
        name = "_" + name
    return name


def export_key_of(release: Release) -> bytes:
    """The release's export key, drawn fresh (and kept on the release) if it has none."""
    key = getattr(release, "export_key", None)
    if key is None:
        key = export_order.new_export_key()
        release.export_key = key
    return key


def published_file_names(scheme: str, published_format: str = "csv") -> list[str]:
    """The files of ``published/`` for a release of ``scheme`` in ``published_format``:
    ``generalized.csv``, or ``qit.csv`` and ``st.csv`` (``.parquet`` for Parquet)."""
    if published_format not in PUBLISHED_FORMATS:
        raise AnonlabError(
            f"published format must be one of {list(PUBLISHED_FORMATS)}, got "
            f"{str(published_format)[:40]!r}"
        )
    stems = ["generalized"] if scheme == "generalization" else ["qit", "st"]
    return [f"{stem}.{published_format}" for stem in stems]


def _plan(release: Release) -> tuple[np.ndarray, np.ndarray]:
    """(row order, published group id per internal group) from the release's export key."""
    fingerprint = export_order.release_fingerprint(
        release.group, release.published_sensitive, release.manifest
    )
    return export_order.export_plan(
        export_key_of(release), release.group, release.n_groups, fingerprint
    )


def generalized_frame(release: Release) -> pd.DataFrame:
    """The release as one generalized table (like ARX's output) with a group id column, rows
    and group ids in the order of the release's export key (:mod:`anonlab.export_order`).
    A quasi-identifier that would be published as value sets without the publisher's choice
    is refused (:func:`anonlab.release.require_no_value_sets`).

    The whole table in memory (object columns of every cell): :func:`write_published` writes
    the same rows in chunks, and this function is the reference it is tested against."""
    table = release.table
    require_no_value_sets(table, release.scheme, release.levels)
    gen = release.generalization
    order, published_id = _plan(release)
    cols: dict[str, np.ndarray] = {
        free_name(GROUP_COLUMN, table.schema.names): published_id[release.group]
    }
    for q in release.quasi_identifiers:
        cols[q] = gen[q].labels[release.group]
    for a in table.schema.insensitive:
        cols[a] = table.column(a)
    names = table.sensitive_attributes  # none for plain k-anonymity; several as they are
    for a in names:
        codes = release.sensitive_codes if len(names) == 1 else table.codes[a]
        cols[a] = table.values[a][codes]
    return pd.DataFrame({k: v[order] for k, v in cols.items()})


def bucketized_frames(release: Release) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The QIT (exact QI + group, rows in key order) and ST (group, value, count; sorted by
    published group id and value).

    Whole tables in memory, the reference :func:`write_published`'s chunks are tested
    against."""
    table = release.table
    group_name = free_name(GROUP_COLUMN, table.schema.names)
    order, published_id = _plan(release)
    cols: dict[str, np.ndarray] = {group_name: published_id[release.group]}
    for q in release.quasi_identifiers:
        cols[q] = table.column(q)
    for a in table.schema.insensitive:
        cols[a] = table.column(a)
    qit = pd.DataFrame({k: v[order] for k, v in cols.items()})
    # rows of the histogram in published-id order: nonzero() then yields (id, value) sorted
    hist = release.sensitive_histogram[np.argsort(published_id)]
    g, v = np.nonzero(hist)
    st = pd.DataFrame(
        {
            group_name: g,
            release.sensitive: table.values[release.sensitive][v],
            free_name(COUNT_COLUMN, [release.sensitive, group_name]): hist[g, v],
        }
    )
    return qit, st


def write_published(
    release: Release,
    folder: Path,
    published_format: str = "csv",
    chunk_rows: int = CHUNK_ROWS,
    *,
    plan: tuple[np.ndarray, np.ndarray] | None = None,
    file_names: Sequence[str] | None = None,
) -> list[str]:
    """Write the export for the release's scheme into ``folder``, ``chunk_rows`` rows at a time
    (see the module docstring: CSV text cells guarded against spreadsheet formulas, Parquet
    cells typed and not guarded); returns the file names.

    ``plan`` = ``(row order, published id of each group)`` replaces the plan drawn from the
    release's export key, and ``file_names`` (paths relative to ``folder``, one per file of
    :func:`published_file_names`) the files' names: a cluster's worker writes its part of a
    release this way (:mod:`anonlab.distributed.worker_release`)."""
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise AnonlabError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    names = published_file_names(release.scheme, published_format)
    if file_names is not None:
        if len(file_names) != len(names):
            raise AnonlabError(f"{len(names)} file names needed ({names}), got {file_names}")
        names = list(file_names)
    folder = Path(folder)
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
    write = _write_csv if published_format == "csv" else _write_parquet
    order, published_id = _plan(release) if plan is None else plan
    if release.scheme == "generalization":
        write(folder / names[0], _generalized_columns(release, published_id), order, chunk_rows)
        return names
    write(folder / names[0], _qit_columns(release, published_id), order, chunk_rows)
    del order
    write(folder / names[1], _st_columns(release, published_id), None, chunk_rows)
    return names


# ---------------------------------------------------------------------- the published columns
@dataclass(frozen=True)
class _Column:
    """One published column: record ``i`` holds ``values[codes[i]]``, or, when ``codes`` is
    None, ``values[i]`` (a column given row by row, as the ST's counts)."""

    name: str
    values: np.ndarray
    codes: np.ndarray | None = None

    def rows(self, rows: np.ndarray | slice) -> np.ndarray:
        """The column's values at ``rows``."""
        return self.values[rows] if self.codes is None else self.values[self.codes[rows]]


def _generalized_columns(release: Release, published_id: np.ndarray) -> list[_Column]:
    table = release.table
    require_no_value_sets(table, release.scheme, release.levels)
    gen = release.generalization
    group = release.group
    cols = [_Column(free_name(GROUP_COLUMN, table.schema.names), published_id, group)]
    cols += [_Column(q, gen[q].labels, group) for q in release.quasi_identifiers]
    cols += [_Column(a, table.values[a], table.codes[a]) for a in table.schema.insensitive]
    names = table.sensitive_attributes  # none for plain k-anonymity; several as they are
    for a in names:
        codes = release.sensitive_codes if len(names) == 1 else table.codes[a]
        cols.append(_Column(a, table.values[a], codes))
    return cols


def _qit_columns(release: Release, published_id: np.ndarray) -> list[_Column]:
    table = release.table
    cols = [_Column(free_name(GROUP_COLUMN, table.schema.names), published_id, release.group)]
    cols += [_Column(q, table.values[q], table.codes[q]) for q in release.quasi_identifiers]
    cols += [_Column(a, table.values[a], table.codes[a]) for a in table.schema.insensitive]
    return cols


def _st_columns(release: Release, published_id: np.ndarray) -> list[_Column]:
    """The ST's rows, (published group, value) pairs present with their counts, sorted by group
    and then value code, counted by sorting one int64 key per record (the dense group x value
    histogram is 920 MB for 2.5 million groups of 46 values)."""
    table = release.table
    sensitive = release.sensitive
    group_name = free_name(GROUP_COLUMN, table.schema.names)
    n_values = max(table.domain_size(sensitive), 1)
    key = published_id[release.group]  # int64, a fresh array
    key *= n_values
    key += release.sensitive_codes
    key.sort()
    n = len(key)
    new = np.ones(n, dtype=bool)
    np.not_equal(key[1:], key[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    del new
    pair = key[starts]
    del key
    counts = np.diff(np.append(starts, n))
    del starts
    value = (pair % n_values).astype(np.int64)
    pair //= n_values  # the published group id
    return [
        _Column(group_name, pair),
        _Column(sensitive, table.values[sensitive], value),
        _Column(free_name(COUNT_COLUMN, [sensitive, group_name]), counts),
    ]


def _chunks(n: int, order: np.ndarray | None, chunk_rows: int):
    """Row selections of successive chunks: slices of ``order`` (None: rows 0..n-1)."""
    for start in range(0, n, chunk_rows):
        stop = min(start + chunk_rows, n)
        yield slice(start, stop) if order is None else order[start:stop]


def _n_rows(cols: list[_Column], order: np.ndarray | None) -> int:
    if order is not None:
        return len(order)
    return len(cols[0].values) if cols[0].codes is None else len(cols[0].codes)


# ---------------------------------------------------------------------- CSV
#: A column's cells are formatted once, for its distinct values, when it has at most this many
#: times ``chunk_rows`` of them; a larger domain (a numeric column of unique values, say) is
#: formatted chunk by chunk, for the rows of each chunk.
_DOMAIN_CHUNKS = 4


def _csv_writer(handle: io.StringIO):
    """The writer pandas' ``to_csv`` uses (its defaults: ``,``, ``"``, minimal quoting, quotes
    doubled, lines ending in ``os.linesep``)."""
    return csv.writer(
        handle,
        lineterminator=os.linesep,
        delimiter=",",
        quoting=csv.QUOTE_MINIMAL,
        doublequote=True,
        escapechar=None,
        quotechar='"',
    )


# A text cell without these characters is written as it is (csv's minimal quoting quotes a
# field holding the delimiter, the quote character or a line-terminator character); others are
# written by the csv module itself.
_PLAIN = re.compile("[^" + re.escape("".join(sorted(set(',"\r\n' + os.linesep)))) + "]*")


class _Quoter:
    """One cell as ``csv.writer`` writes it in a row of several fields (pandas hands it the
    object: a str, or any other object, which csv turns into text)."""

    def __init__(self) -> None:
        self.handle = io.StringIO()
        self.writer = _csv_writer(self.handle)
        self.tail = len("," + os.linesep)

    def __call__(self, value: object) -> str:
        self.handle.seek(0)
        self.handle.truncate()
        self.writer.writerow([value, ""])
        return self.handle.getvalue()[: -self.tail]


def _guarded(values: np.ndarray) -> np.ndarray:
    """The values as :func:`anonlab.formula_guard.guard_frame` leaves them in a column of them:
    text cells that need it prefixed with ``'``; numbers and other non-text values as they are.
    The guard decides cell by cell (a string that needs it gets it, anything else is left), so
    guarding the distinct values is guarding every cell."""
    from anonlab.formula_guard import guard_series

    if values.dtype.kind in "biufcmM":
        return values
    return guard_series(pd.Series(values, dtype=object, copy=False)).to_numpy(dtype=object)


def _csv_cells(values: np.ndarray, alone: bool) -> list[str] | object:
    """The CSV text of each value, guarded and quoted, exactly as ``to_csv`` writes it in a
    column of these values (pandas' ``get_values_for_csv``, then ``csv.writer``): floats by
    numpy's ``astype(str)``, a missing value as the empty cell, other values as the csv module
    writes the object. ``alone``: the file has one column (csv quotes a lone empty field).
    Returns a list of str, or a pyarrow array for integers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = values.dtype.kind
    empty = '""' if alone else ""
    if kind in "iu":  # decimal text, as str(int)
        return pc.cast(pa.array(values), pa.large_string())
    if kind == "f":
        text = values.astype(str).astype(object)
        text[np.isnan(values)] = empty
        return text.tolist()
    objects = _guarded(values)
    objects = np.asarray(objects, dtype=object)
    missing = pd.isna(objects).tolist()
    quote = _Quoter()
    out = []
    for value, miss in zip(objects.tolist(), missing, strict=True):
        if miss:
            out.append(empty)
        elif type(value) is str and value and _PLAIN.fullmatch(value):
            out.append(value)
        elif type(value) is str and not value:
            out.append(empty)
        else:
            out.append(quote(value))
    return out


def _temporal_cells(col: _Column, n_rows: int) -> list[str]:
    """Dates and times (numpy datetime64 / timedelta64 values, which a table read by anonlab
    does not hold: it keeps dates as ISO text): pandas picks their format from the whole
    column (no time of day shown when every value is at midnight), so the values the records
    use are formatted together, by pandas itself."""
    codes = col.codes if col.codes is not None else np.arange(n_rows)
    used = np.flatnonzero(np.bincount(codes, minlength=len(col.values)))
    text = pd.DataFrame({"v": col.values[used], "z": 0}).to_csv(
        index=False, header=False, lineterminator="\n"
    )
    cells = [""] * len(col.values)
    for i, line in zip(used.tolist(), text.split("\n")[:-1], strict=True):
        cells[i] = line[: -len(",0")]
    return cells


class _CsvColumn:
    """A column's cells for the rows of each chunk, as a large_string Arrow array; the last
    column's cells end the line (``last``)."""

    def __init__(self, col: _Column, n_rows: int, chunk_rows: int, alone: bool, last: bool) -> None:
        self.col, self.alone, self.last = col, alone, last
        self.cells = None
        temporal = col.values.dtype.kind in "mM"
        if temporal and col.codes is None:  # one value per row: give it codes
            col = _Column(col.name, col.values, np.arange(n_rows))
            self.col = col
        if temporal or (col.codes is not None and len(col.values) <= _DOMAIN_CHUNKS * chunk_rows):
            cells = _temporal_cells(col, n_rows) if temporal else _csv_cells(col.values, alone)
            self.cells = self._arrow(cells)

    def _arrow(self, cells):
        """The cells (a list of str or an Arrow array) as large_string, the line's end added
        to the last column's."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(cells, list):
            cells = pa.array(cells, pa.large_string())
        if self.last:
            text = pa.large_string()
            cells = pc.binary_join_element_wise(
                cells, pa.scalar(os.linesep, text), pa.scalar("", text)
            )
        return cells

    def chunk(self, rows: np.ndarray | slice):
        import pyarrow as pa

        if self.cells is not None:
            return self.cells.take(pa.array(np.asarray(self.col.codes[rows])))
        return self._arrow(_csv_cells(self.col.rows(rows), self.alone))


def _header(names: list[str]) -> str:
    from anonlab.formula_guard import guard_text

    handle = io.StringIO()
    _csv_writer(handle).writerow([guard_text(n) for n in names])
    return handle.getvalue()


def _write_lines(handle, lines) -> None:
    """Write a large_string array's characters, one after the other, as UTF-8."""
    if len(lines) == 0:
        return
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset :]
    start, stop = int(offsets[0]), int(offsets[len(lines)])
    if stop > start:
        handle.write(memoryview(lines.buffers()[2])[start:stop])


def _write_csv(path: Path, cols: list[_Column], order: np.ndarray | None, chunk_rows: int) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc

    n = _n_rows(cols, order)
    alone = len(cols) == 1
    columns = [
        _CsvColumn(c, n, chunk_rows, alone, last=i == len(cols) - 1) for i, c in enumerate(cols)
    ]
    comma = pa.scalar(",", pa.large_string())
    with open(path, "wb") as handle:
        handle.write(_header([c.name for c in cols]).encode("utf-8"))
        for rows in _chunks(n, order, chunk_rows):
            cells = [c.chunk(rows) for c in columns]
            lines = pc.binary_join_element_wise(*cells, comma) if len(cells) > 1 else cells[0]
            del cells
            _write_lines(handle, lines)
            del lines


# ---------------------------------------------------------------------- Parquet
def _arrow_values(values: np.ndarray, text: bool):
    """The values as an Arrow array: numbers typed (NaN as null), text as large_string with
    missing values null; ``text``: the values are not all str (or missing), so each is given
    as the text the CSV holds for it (unquoted)."""
    import pyarrow as pa

    kind = values.dtype.kind
    if kind in "biufmM":
        return pa.array(values, from_pandas=True)
    objects = np.asarray(values, dtype=object)
    missing = pd.isna(objects)
    if text:
        objects = np.array(
            [repr(v) if isinstance(v, float) else str(v) for v in objects.tolist()], dtype=object
        )
    if missing.any():
        objects = objects.copy() if objects is values else objects  # never the table's own
        objects[missing] = None
    return pa.array(objects, pa.large_string())


def _needs_text(values: np.ndarray) -> bool:
    """Whether an object column holds anything but str and missing values."""
    if values.dtype.kind in "biufmM" or values.dtype.kind == "U":
        return False
    inferred = pd.api.types.infer_dtype(np.asarray(values, dtype=object), skipna=True)
    return inferred not in ("string", "empty")


class _ParquetColumn:
    def __init__(self, col: _Column, chunk_rows: int) -> None:
        self.col = col
        self.text = _needs_text(col.values)
        self.values = None
        if col.codes is not None and len(col.values) <= _DOMAIN_CHUNKS * chunk_rows:
            self.values = _arrow_values(col.values, self.text)
        self.type = _arrow_values(col.values[:0], self.text).type

    def chunk(self, rows: np.ndarray | slice):
        import pyarrow as pa

        if self.values is not None:
            return self.values.take(pa.array(np.asarray(self.col.codes[rows])))
        return _arrow_values(self.col.rows(rows), self.text)


def _write_parquet(
    path: Path, cols: list[_Column], order: np.ndarray | None, chunk_rows: int
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = _n_rows(cols, order)
    columns = [_ParquetColumn(c, chunk_rows) for c in cols]
    schema = pa.schema([pa.field(c.name, p.type) for c, p in zip(cols, columns, strict=True)])
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for rows in _chunks(n, order, chunk_rows):
            part = pa.Table.from_arrays([c.chunk(rows) for c in columns], schema=schema)
            writer.write_table(part, row_group_size=chunk_rows)
        if n == 0:
            writer.write_table(schema.empty_table())
