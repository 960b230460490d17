"""Chunked reading: a file read ``chunk_rows`` rows at a time into the table that
``Table.from_frame(read_frame(path))`` gives.

:meth:`Table.from_csv <anonlab.table.Table.from_csv>` hands :func:`from_chunks` each chunk of a
CSV as a :class:`TextChunk` (every column as codes into its distinct raw cells);
:meth:`Table.from_parquet <anonlab.table.Table.from_parquet>` hands it DataFrames. Each column
is kept as small provisional codes into a growing dictionary of keys (:class:`_ChunkedColumn`)
until the whole file is seen; then its type is decided and its final codes made, exactly as
:meth:`~anonlab.table.Table.from_frame` does on the whole column; the reader then assembles the
table from what :func:`from_chunks` returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.schema import Attribute, ColumnType
from anonlab.table.column_types import (
    Declared,
    declared_types,
    encode_keys,
    factorize_cells,
    is_plain_text,
    prepare_column,
    stripped_text,
)
from anonlab.table.roles import (
    ALL_MISSING_MESSAGE,
    EMPTY_MESSAGE,
    MISSING_MARKERS,
    check_missing,
    check_roles,
    dropped_columns,
    missing_mask,
    missing_message,
    role_of,
    sensitive_names,
)


def _smallest_code_dtype(n_values: int) -> type[np.unsignedinteger]:
    """The smallest unsigned dtype holding codes ``0 .. n_values - 1``."""
    if n_values <= 1 << 8:
        return np.uint8
    if n_values <= 1 << 16:
        return np.uint16
    return np.uint32


class TextChunk:
    """A chunk of a CSV's kept columns, each as codes into its distinct raw cells.

    Each column is factorized (:func:`factorize_cells`) into codes (-1: a cell the parser read
    as missing) and its distinct cells. What :func:`read_frame` and
    :meth:`Table.from_frame` do to every cell (:func:`~anonlab.formula_guard.unguard_series`,
    then :func:`stripped_text`, then the :data:`MISSING_MARKERS` test) is done here to the
    distinct cells, with the same functions on the same ``str`` dtype; all are cell by cell,
    so the result is the same. Per column: ``codes`` (one per row, into the distinct cells),
    ``cell_key`` (distinct cell -> index of its stripped label in ``labels``, -1 where it is a
    missing marker), ``labels`` (distinct stripped labels, object array) and ``missing`` (bool
    per row).
    """

    def __init__(
        self, frame: pd.DataFrame, kept: list[str], extra: Mapping[str, Sequence[str]] | None = None
    ) -> None:
        from anonlab.formula_guard import unguard_series

        self.n_rows = len(frame)
        self.filtered = False  # rows were dropped (select)
        self.codes: dict[str, np.ndarray] = {}
        self.cell_key: dict[str, np.ndarray] = {}
        self.labels: dict[str, np.ndarray] = {}
        self.missing: dict[str, np.ndarray] = {}
        factorized = [factorize_cells(frame[name].to_numpy(dtype=object)) for name in kept]
        # The distinct cells of all the columns at once (fewer pandas calls per chunk).
        cells = pd.Series(
            np.concatenate([np.empty(0, dtype=object)] + [c for _, c in factorized]), dtype=str
        )
        text = stripped_text(unguard_series(cells))
        markers = text.isin(MISSING_MARKERS).to_numpy(dtype=bool)
        text = text.to_numpy(dtype=object)
        start = 0
        for name, (codes, column_cells) in zip(kept, factorized, strict=True):
            stop = start + len(column_cells)
            marker = markers[start:stop]
            if extra and extra.get(name):  # the column's own markers (a schema's "missing")
                more = [str(m).strip() for m in extra[name]]
                marker = marker | np.isin(text[start:stop].astype(str), more)
            key, labels = pd.factorize(text[start:stop], sort=False)
            key = key.astype(np.int64)
            key[marker] = -1
            self.codes[name] = codes
            self.cell_key[name] = key
            self.labels[name] = np.asarray(labels, dtype=object)
            self.missing[name] = np.append(marker, True)[codes]  # code -1: read as missing
            start = stop

    def __len__(self) -> int:
        return self.n_rows

    def select(self, keep: np.ndarray) -> TextChunk:
        """The rows where ``keep`` is True (in place)."""
        self.codes = {name: codes[keep] for name, codes in self.codes.items()}
        self.missing = {name: m[keep] for name, m in self.missing.items()}
        self.n_rows = int(keep.sum())
        self.filtered = True
        return self


class _ChunkedColumn:
    """One column being read chunk by chunk.

    Each chunk (as :func:`prepare_column` gives it: numbers, or labels stripped of blanks) is
    factorized and its distinct values looked up in (or appended to) a growing dictionary of
    *keys*, in first-appearance order over the file; the chunk is stored as provisional codes
    (indices into that dictionary) in the smallest unsigned dtype. The type of the column and
    the final domain are decided once the whole file is seen (:meth:`finish`), from the keys,
    exactly as :func:`encode_column` decides them on the whole column.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.keys: pd.Index | None = None
        self.parts: list[np.ndarray] = []
        self.source: str | None = None
        self.order: list[str] | None = None
        self.floating = False  # some chunk's numbers were float

    def add(self, col: pd.Series, stripped: pd.Series | None = None) -> None:
        """Add a chunk of the column (no missing value left); ``stripped``: the chunk as
        stripped text when already computed (used for a plain text column)."""
        if stripped is not None and is_plain_text(col.dtype):
            data, source, order = stripped, "text", None
        else:
            data, source, order = prepare_column(col)
        if self.source is None:
            self.source, self.order = source, order
        elif source != self.source:  # e.g. a Parquet column typed differently in some batch
            raise AnonlabError(
                f"column {self.name!r} changes type between batches of the file ({self.source} "
                f"then {source}); write it with one type"
            )
        if source == "number":
            data = np.asarray(data)
            self.floating |= np.issubdtype(data.dtype, np.floating)
        codes, uniques = pd.factorize(data, sort=False)  # pyarrow's hashing for str dtype
        self._merge(codes, pd.Index(np.asarray(uniques), dtype=object))

    def add_text(
        self, codes: np.ndarray, cell_key: np.ndarray, labels: np.ndarray, filtered: bool
    ) -> None:
        """Add a chunk of a CSV column as :class:`TextChunk` holds it (no missing value
        left): the same keys, in the same first-appearance order, as :meth:`add` given the
        chunk's stripped text. ``filtered``: rows were dropped from the chunk; if not, every
        cell occurs, none is a missing marker, and cells and labels are already in
        first-appearance order."""
        if self.source is None:
            self.source = "text"
        if not filtered:
            self._merge(cell_key[codes], pd.Index(labels, dtype=object))
            return
        n = len(codes)
        first_cell = np.full(len(cell_key), n, dtype=np.int64)  # first row of each cell
        np.minimum.at(first_cell, codes, np.arange(n, dtype=np.int64))
        seen = first_cell < n
        first_label = np.full(len(labels), n, dtype=np.int64)
        np.minimum.at(first_label, cell_key[seen], first_cell[seen])
        present = np.flatnonzero(first_label < n)
        order = present[np.argsort(first_label[present], kind="stable")]
        position = np.full(len(labels), -1, dtype=np.int64)
        position[order] = np.arange(len(order))
        cell_code = position[np.where(cell_key < 0, 0, cell_key)]
        self._merge(cell_code[codes], pd.Index(labels[order], dtype=object))

    def _merge(self, codes: np.ndarray, uniques: pd.Index) -> None:
        """Store a chunk given as ``codes`` into its distinct values ``uniques`` (in
        first-appearance order), growing the keys."""
        if self.keys is None:
            ids = np.arange(len(uniques), dtype=np.int64)
            self.keys = uniques
        else:
            ids = self.keys.get_indexer(uniques).astype(np.int64)
            new = ids < 0
            if new.any():
                ids[new] = len(self.keys) + np.arange(int(new.sum()))
                self.keys = self.keys.append(uniques[new])
        dtype = _smallest_code_dtype(len(self.keys))
        self.parts.append(ids.astype(dtype)[codes])

    def finish(
        self, declared: Declared, hierarchy: Hierarchy | None, n_rows: int, row_id: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, dict]:
        """Final int32 codes (the chunks' codes freed one by one), the domain and the type
        decision."""
        keys = self.keys.to_numpy() if self.keys is not None else np.empty(0, dtype=object)
        source = self.source or "text"
        if source == "number":
            keys = np.array(keys.tolist(), dtype=np.float64 if self.floating else None)
            if keys.dtype == object:  # nothing read
                keys = keys.astype(np.float64)
        parts = self.parts

        def locate(mask: np.ndarray) -> tuple[int, int]:
            start = 0
            for part in parts:
                hit = np.flatnonzero(mask[part])
                if len(hit):
                    first = start + int(hit[0])
                    return int(row_id[first]) + 1, int(part[hit[0]])
                start += len(part)
            raise AssertionError("no row holds the value")  # pragma: no cover

        def counts() -> np.ndarray:
            total = np.zeros(len(keys), dtype=np.int64)
            for part in parts:
                total += np.bincount(part, minlength=len(keys))
            return total

        rank, values, decision = encode_keys(
            self.name, keys, source, self.order, declared, hierarchy, locate, counts
        )
        out = np.empty(n_rows, dtype=np.int32)
        start = 0
        while self.parts:
            part = self.parts.pop(0)
            out[start : start + len(part)] = rank[part]
            start += len(part)
        return out, values, decision


def _read_pass(path: Path, chunks, kept: list[str], columns: dict, drop_missing: bool, extra=None):
    """One pass over the chunks: count and locate missing values, drop them if asked, and add
    the kept rows of every column in ``columns`` to it. Returns (rows read, rows kept, missing
    per column, first rows with a missing value per column, kept rows per chunk)."""
    n_read = 0
    n_kept = 0
    bad: dict[str, int] = {}
    first: dict[str, list[int]] = {}
    kept_rows: list = []  # per chunk: its kept row numbers, or (first row, count)
    try:
        for chunk in chunks:
            offset, n_read = n_read, n_read + len(chunk)
            if len(chunk) == 0:
                continue
            coded = isinstance(chunk, TextChunk)
            if coded:
                missing = chunk.missing
            else:
                stripped = {
                    name: stripped_text(chunk[name])
                    for name in kept
                    if not pd.api.types.is_numeric_dtype(chunk[name])
                }
                frame_missing = missing_mask(chunk, stripped, extra)
                missing = {name: frame_missing[name].to_numpy() for name in kept}
            keep = None
            if any(missing[name].any() for name in kept):
                for name in kept:
                    rows = np.flatnonzero(missing[name])
                    if len(rows):
                        bad[name] = bad.get(name, 0) + len(rows)
                        have = first.setdefault(name, [])
                        have.extend((rows[: 5 - len(have)] + offset + 1).tolist())
                if not drop_missing:
                    continue  # counted; the error is raised once the whole file is read
                keep = ~np.logical_or.reduce([missing[name] for name in kept])
                if coded:
                    chunk = chunk.select(keep)
                else:
                    chunk = chunk[keep]
                    stripped = {name: text[keep] for name, text in stripped.items()}
            if keep is not None:  # row numbers kept only for chunks that lost rows
                kept_rows.append(offset + np.flatnonzero(keep))
            else:
                kept_rows.append((offset, len(chunk)))
            n_kept += len(chunk)
            for name, column in columns.items():
                if coded:
                    column.add_text(
                        chunk.codes[name], chunk.cell_key[name], chunk.labels[name], chunk.filtered
                    )
                else:
                    column.add(chunk[name], stripped.get(name))
    except AnonlabError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
    return n_read, n_kept, bad, first, kept_rows


def from_chunks(
    path: Path,
    header: list[str],
    chunks,
    *,
    quasi_identifiers: Sequence[str],
    sensitive: str | Sequence[str] | None = None,
    insensitive: Sequence[str] = (),
    identifiers: Sequence[str] = (),
    numeric: Iterable[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    drop_missing: bool = False,
    types: Mapping[str, str] | None = None,
    unassigned: str = "drop",
    missing: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[Attribute], dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray, dict, dict]:
    """:meth:`Table.from_frame` over an iterator of DataFrame chunks (the kept columns only),
    up to the table's assembly: returns ``(attributes, codes, values, row_id, dropped, types)``,
    which :meth:`Table.from_csv` and :meth:`Table.from_parquet` assemble into the table with
    their ``value_sets`` (as :meth:`Table.from_frame` does). ``chunks(kept)`` yields the chunks
    of the kept columns: :class:`TextChunk` objects or DataFrames.

    Same checks, in the same order, with the same messages: roles against the header; empty
    table; missing values (counted over the whole file, first five rows per column, then refused
    or dropped and counted); the type of each column, decided on the distinct values of the
    whole file (:func:`anonlab.table.column_types._decide`; a CSV is read as text, so
    ``01656`` and ``2.50`` keep their text); numeric values ascending, categorical labels in
    hierarchy or sorted order, ties in first appearance; errors name the same row.
    """
    quasi_identifiers = list(quasi_identifiers)
    sensitive = sensitive_names(sensitive)  # once: the roles read it again
    insensitive = list(insensitive)
    hierarchies = dict(hierarchies or {})
    kept = check_roles(
        header, quasi_identifiers, sensitive, insensitive, identifiers, hierarchies, unassigned
    )
    declared = declared_types(kept, header, numeric, types)
    extra = check_missing(missing, kept)
    columns = {name: _ChunkedColumn(name) for name in kept}
    n_read, n_kept, bad, first, kept_rows = _read_pass(
        path, chunks(kept), kept, columns, drop_missing, extra
    )
    if n_read == 0:
        raise AnonlabError(EMPTY_MESSAGE)
    dropped = dropped_columns(header, kept, identifiers)
    if bad:
        bad = {c: bad[c] for c in kept if c in bad}
        if not drop_missing:
            raise AnonlabError(missing_message(bad, first))
        dropped["rows_with_missing"] = n_read - n_kept
        dropped["rows_with_missing_by_column"] = bad
        if n_kept == 0:
            raise AnonlabError(ALL_MISSING_MESSAGE)
    if bad:
        row_id = np.concatenate(
            [
                np.arange(p[0], p[0] + p[1], dtype=np.int64) if isinstance(p, tuple) else p
                for p in kept_rows
            ]
        )
    else:
        row_id = np.arange(n_kept, dtype=np.int64)
    del kept_rows
    attributes, codes, values, decisions = [], {}, {}, {}
    for name in kept:
        hier = hierarchies.get(name)
        codes[name], values[name], decisions[name] = columns.pop(name).finish(
            declared[name], hier, n_kept, row_id
        )
        kind = ColumnType(decisions[name]["type"]).kind
        attributes.append(Attribute(name, role_of(name, quasi_identifiers, sensitive), kind, hier))
    return attributes, codes, values, row_id, dropped, decisions
