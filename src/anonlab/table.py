"""The microdata table T: one integer-coded numpy array per attribute, plus each domain.

Everything downstream (anonymizers, checks, attacks, utility) works on the integer codes; pandas
is used only here, to read and write. Codes follow each attribute's natural order: numeric values
ascending, categorical values in their hierarchy's leaf order (depth-first, so every subtree is a
contiguous run of codes) or, without a hierarchy, sorted by label.

Dtypes (issue 10; measured in docs/benchmarks.md, "Scale"): codes are **int32** in every table
and every compute path. Numba kernels and numpy arithmetic on codes (``code - lo``,
``group * n_values + code``, ``l * count``) assume int32 (or wider) and would overflow silently
in uint8/int16; narrowing them would save 3 bytes per record per attribute (240 MB at 10M
records of 8 attributes), which the 4 GB goal does not need. The smallest dtype is used where
it is free: :meth:`Table.from_csv` / :meth:`Table.from_parquet` keep each chunk's provisional
codes in uint8/uint16/uint32 (whichever holds the domain seen so far) until the table is
assembled, which lowers the reading peak at 10M by about 185 MB (measured; 240 MB computed).
Row ids are int64 (a file may exceed 2**31 rows); group ids of a release are int32
(:func:`anonlab.grouping.dense_group_ids`).

Reading a file: :meth:`Table.from_csv` and :meth:`Table.from_parquet` read ``chunk_rows`` rows
at a time (only the kept columns) and give exactly the table of
``Table.from_frame(read_frame(path))``, at about 77 bytes per record above the interpreter
instead of about 350 for CSV and 400 for Parquet (census-kdd-workers, 10M records, 8 columns),
and 2-5 times faster (measured before issue 17; see below).

Types (issue 17, item 1): a CSV is read as text and each column's type (integer, decimal, text,
categorical: :class:`~anonlab.schema.ColumnType`) is decided on its distinct values by
:func:`_decide`, the same way for the whole file and for the chunks, or declared (``types=``).
Nothing is coerced silently: leading zeros keep a column text, a stray word in a numeric column
or an infinite number is an error naming the column, row and value, and every decision is kept
in :attr:`Table.types`. Reading every cell as text need not cost much: :meth:`Table.from_csv`
takes each chunk's cells as the parser's Python strings, factorizes them once, and removes the
formula guard, strips blanks, finds missing markers and decides types on the distinct cells
only (:class:`_TextChunk`). On this 2-core machine (possibly shared) census-kdd-workers at 1M
rows x 8 columns read in 0.73-0.94 s, against 0.60-0.73 s before typed reading and 1.32-1.36 s
when every cell went through pandas' pyarrow-backed ``str`` dtype (docs/benchmarks.md, "Reading
a CSV"; the 10M-row figures above predate typed reading).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

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
from anonlab.formula_guard import unguard_frame, unguard_names
from anonlab.hierarchy import Hierarchy
from anonlab.hierarchy import leaf_label as _label
from anonlab.schema import Attribute, ColumnType, Kind, Role, Schema, parse_column_types

#: Column names anonlab uses for itself in a release's publisher records file
#: (``publisher/records.parquet``, see :mod:`anonlab.release_io`): the input row id, the group
#: id and, where an algorithm perturbs them, the published sensitive values. A data column may
#: not be given a role under one of these names (it would be overwritten on save, or read back as
#: anonlab's own column); :func:`_check_roles` refuses it. Defined here, not in release_io, so
#: that both modules see them without an import cycle.
ROW_ID_COLUMN = "__row_id__"
GROUP_ID_COLUMN = "__group__"
PUBLISHED_SENSITIVE_COLUMN = "__published_sensitive__"
RESERVED_COLUMNS = (ROW_ID_COLUMN, GROUP_ID_COLUMN, PUBLISHED_SENSITIVE_COLUMN)

#: Strings read as a missing value (UCI's '?' among them).
MISSING_MARKERS = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None")

#: Rows per chunk of :meth:`Table.from_csv` / :meth:`Table.from_parquet`. A chunk of 500,000
#: rows of census-kdd-workers' 8 default columns is about 100-200 MB in pandas while it is
#: encoded; the codes kept per row are 1-4 bytes per column.
CHUNK_ROWS = 500_000

_EMPTY = "the table is empty (0 rows); nothing to anonymize"
_ALL_MISSING = "every row has a missing value; nothing is left to anonymize"


class Table:
    """An integer-coded microdata table with a schema.

    Build one with :meth:`from_frame`, :meth:`from_csv`, :meth:`from_parquet` or
    :meth:`from_dataset`; do not call the constructor with hand-made codes unless they are valid.

    Attributes
    ----------
    schema : Schema
    codes : dict of str to ndarray of shape (n_rows,), dtype=int32
        The code of each record's value.
    values : dict of str to ndarray
        The domain of each attribute in code order (``values[a][codes[a]]`` decodes).
    row_id : ndarray of shape (n_rows,), dtype=int64
        The record's row number in the input (ground truth; never published).
    dropped : dict
        What loading removed and why: ``columns`` (given no role), ``identifiers`` (dropped as
        direct identifiers), ``rows_with_missing``.
    types : dict of str to dict
        How each column's type was decided: ``{"type": "text", "how": "inferred", "note":
        "leading zeros kept, e.g. '01656'"}`` (``how``: ``inferred`` or ``declared``); empty for
        a table built from codes. :meth:`type_lines` words it.
    """

    def __init__(
        self,
        schema: Schema,
        codes: Mapping[str, np.ndarray],
        values: Mapping[str, np.ndarray],
        row_id: np.ndarray | None = None,
        dropped: Mapping | None = None,
        types: Mapping[str, Mapping] | None = None,
    ) -> None:
        self.schema = schema
        self.codes = {a.name: np.asarray(codes[a.name], dtype=np.int32) for a in schema.attributes}
        self.values = {a.name: np.asarray(values[a.name]) for a in schema.attributes}
        n = {len(c) for c in self.codes.values()}
        if len(n) > 1:
            raise AnonlabError(f"columns have different lengths: {sorted(n)}")
        self.n_rows = n.pop() if n else 0
        self.row_id = (
            np.arange(self.n_rows, dtype=np.int64) if row_id is None else np.asarray(row_id)
        )
        self.dropped = dict(dropped or {})
        self.types = {k: dict(v) for k, v in (types or {}).items()}
        self._leaf_cache: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return self.n_rows

    def __repr__(self) -> str:
        return (
            f"Table(rows={self.n_rows}, quasi_identifiers={list(self.quasi_identifiers)}, "
            f"sensitive={self.sensitive!r})"
        )

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return self.schema.quasi_identifiers

    @property
    def sensitive(self) -> str | None:
        return self.schema.sensitive

    def require_sensitive(self) -> str:
        if self.sensitive is None:
            raise AnonlabError("the table has no sensitive attribute; name one (--sensitive COL)")
        return self.sensitive

    def domain_size(self, name: str) -> int:
        return len(self.values[self.schema[name].name])

    def column(self, name: str) -> np.ndarray:
        """The decoded values of one attribute."""
        return self.values[name][self.codes[self.schema[name].name]]

    def qi_matrix(self, qi: Sequence[str] | None = None) -> np.ndarray:
        """Codes of the quasi-identifiers, shape (n_rows, n_qi), dtype=int32."""
        qi = self.quasi_identifiers if qi is None else qi
        if not qi:
            return np.empty((self.n_rows, 0), dtype=np.int32)
        return np.stack([self.codes[q] for q in qi], axis=1)

    def leaf_codes(self, name: str) -> np.ndarray:
        """For an attribute with a hierarchy: code -> leaf index in the hierarchy."""
        if name not in self._leaf_cache:
            att = self.schema[name]
            if att.hierarchy is None:
                raise AnonlabError(f"attribute {name!r} has no hierarchy")
            self._leaf_cache[name] = att.hierarchy.leaf_index(
                [_label(v) for v in self.values[name]], attribute=name
            )
        return self._leaf_cache[name]

    def value_mask(self, name: str, labels: Sequence[object] | None) -> np.ndarray:
        """Bool mask over the domain of ``name`` selecting ``labels`` (None: every value)."""
        domain = [_label(v) for v in self.values[self.schema[name].name]]
        mask = np.zeros(len(domain), dtype=bool)
        if labels is None:
            mask[:] = True
            return mask
        for v in labels:
            if _label(v) not in domain:
                raise AnonlabError(
                    f"value {v!r} does not occur in column {name!r}; its values are "
                    f"{domain[:20]}{' ...' if len(domain) > 20 else ''}"
                )
            mask[domain.index(_label(v))] = True
        return mask

    def take(self, rows: np.ndarray) -> Table:
        """A table of the given rows (same schema and domains)."""
        rows = np.asarray(rows)
        if rows.dtype == bool and rows.shape == (self.n_rows,):
            rows = np.flatnonzero(rows)
        integer = np.issubdtype(rows.dtype, np.integer)
        if integer:  # np.take gathers fastest by intp
            rows = rows.astype(np.intp, copy=False)

        def pick(column: np.ndarray) -> np.ndarray:
            return np.take(column, rows) if integer else column[rows]

        out = Table(
            self.schema,
            {k: pick(c) for k, c in self.codes.items()},
            self.values,
            pick(self.row_id),
            self.dropped,
            self.types,
        )
        out._leaf_cache = dict(self._leaf_cache)  # same schema and domains
        return out

    def resample(self, n_rows: int, seed: int = 0) -> Table:
        """``n_rows`` records drawn uniformly with replacement from this table, seeded.

        For scale tests (issue 10): a bundled dataset grown (or shrunk) to any size with the
        same schema, the same domains (codes are not re-encoded, so a value that no drawn record
        holds stays in the domain) and, in expectation, the same joint distribution. One
        ``Generator.integers`` draw of row indices, then a gather per column; no per-row Python.

        Choices (no paper covers this): the draws come from
        ``rng_from_seed(seed).integers(0, n_rows_of_self, size=n_rows)``; ``row_id`` of the result
        is ``0..n_rows-1`` (each drawn copy is a distinct record of the new input, so attacks
        that use ``row_id`` as ground truth see copies as different people); ``dropped`` is kept.
        Record the draw in the release manifest (the CLI's ``--resample N`` writes
        ``manifest["resample"] = {"rows", "seed", "source", "with_replacement"}``).

        Raises
        ------
        AnonlabError
            If ``n_rows`` is not a positive integer or the table is empty.
        """
        from anonlab._validation import rng_from_seed

        if isinstance(n_rows, bool) or not isinstance(n_rows, int | np.integer) or n_rows < 1:
            raise AnonlabError(
                f"resample: the number of rows must be a positive integer, got {n_rows!r}"
            )
        if self.n_rows == 0:
            raise AnonlabError("resample: the table is empty; there is nothing to draw from")
        rows = rng_from_seed(seed).integers(0, self.n_rows, size=int(n_rows), dtype=np.int64)
        return Table(
            self.schema,
            {k: c[rows] for k, c in self.codes.items()},
            self.values,
            np.arange(int(n_rows), dtype=np.int64),
            self.dropped,
            self.types,
        )

    def type_lines(self) -> list[str]:
        """One line per column saying its type and how it was decided, e.g.
        ``zip: text (inferred: leading zeros kept, e.g. '01656')``, ``age: integer (inferred)``,
        ``sex: categorical (declared)``; the columns in schema order."""
        lines = []
        for a in self.schema.attributes:
            t = self.types.get(a.name)
            if t is None:
                continue
            how = t.get("how", "")
            note = t.get("note") or ""
            line = f"{a.name}: {t['type']} ({how}{': ' + note if note else ''})"
            if t.get("hierarchy"):
                line += f"; hierarchy {t['hierarchy']}"
            lines.append(line)
        return lines

    def with_automatic_intervals(self) -> Table:
        """The same table (codes shared) where every numeric quasi-identifier without a
        hierarchy has the automatic ``interval`` one
        (:func:`~anonlab.hierarchy_builders.automatic_interval_spec`), for the algorithms that
        need a hierarchy per quasi-identifier (full-domain generalization, the lattice search;
        issue 17, item 3). Mondrian and the other partitioning algorithms publish a number as
        its group's range and do not call this. The decision is added to ``types``
        (``hierarchy``), which the manifest and :meth:`type_lines` show."""
        from dataclasses import replace

        from anonlab.hierarchy_builders import automatic_interval_spec, build_hierarchy

        types = {k: dict(v) for k, v in self.types.items()}
        attributes, changed = [], []
        for a in self.schema.attributes:
            if a.role is Role.QUASI_IDENTIFIER and a.kind is Kind.NUMERIC and a.hierarchy is None:
                values = self.values[a.name]
                spec = automatic_interval_spec(
                    values, integer=bool(np.issubdtype(values.dtype, np.integer))
                )
                a = replace(a, hierarchy=build_hierarchy(spec, values.tolist(), a.name))
                types.setdefault(a.name, {})["hierarchy"] = (
                    f"automatic: intervals of {spec['width']}, merged two by two, *"
                )
                changed.append(a.name)
            attributes.append(a)
        if not changed:
            return self
        table = Table(Schema(tuple(attributes)), self.codes, self.values, self.row_id, self.dropped)
        table.types = types
        for name in changed:  # every value is a leaf, in the codes' (numeric) order
            leaf = table.leaf_codes(name)
            if not np.array_equal(leaf, np.arange(len(leaf))):
                raise AssertionError(f"automatic hierarchy of {name!r} out of value order")
        return table

    def with_value_sets(self, names: Sequence[str]) -> Table:
        """The same table (codes shared, not copied) with ``names`` marked as quasi-identifiers
        the publisher chose to publish as value sets (see ``value_sets`` in
        :meth:`from_frame`)."""
        attributes = _with_value_sets(list(self.schema.attributes), names)
        table = Table(Schema(tuple(attributes)), self.codes, self.values, self.row_id, self.dropped)
        table.types = {k: dict(v) for k, v in self.types.items()}
        return table

    def to_frame(self) -> pd.DataFrame:
        """The decoded table as a DataFrame (columns in schema order)."""
        return pd.DataFrame({a.name: self.column(a.name) for a in self.schema.attributes})

    def with_roles(
        self,
        quasi_identifiers: Sequence[str],
        sensitive: str | None,
        hierarchies: Mapping[str, Hierarchy] | None = None,
    ) -> Table:
        """The same records with other roles; attributes with no role given are dropped. The
        records keep their input row ids (``row_id``)."""
        df = self.to_frame()
        kinds = {a.name: a.kind for a in self.schema.attributes}
        hier = {a.name: a.hierarchy for a in self.schema.attributes if a.hierarchy is not None}
        hier.update(hierarchies or {})
        keep_ins = [
            a for a in self.schema.insensitive if a not in quasi_identifiers and a != sensitive
        ]
        dates = {
            k: v["type"]
            for k, v in self.types.items()
            if k in df.columns and v.get("type") in (ColumnType.DATE, ColumnType.DATETIME)
        }
        table = Table.from_frame(
            df,
            quasi_identifiers=quasi_identifiers,
            sensitive=sensitive,
            insensitive=keep_ins,
            numeric=[k for k, v in kinds.items() if v is Kind.NUMERIC],
            hierarchies=hier,
            types=dates,
            value_sets=[
                a
                for a in self.schema.value_sets
                if a in quasi_identifiers and a not in (hierarchies or {})
            ],
        )
        table.row_id = self.row_id.copy()  # the input's row numbers, not 0..n-1 again
        automatic = {k: v["hierarchy"] for k, v in table.types.items() if "hierarchy" in v}
        table.types = {k: dict(v) for k, v in self.types.items() if k in table.schema}
        for name, hierarchy in automatic.items():  # a date that became a quasi-identifier
            table.types.setdefault(name, {})["hierarchy"] = hierarchy
        return table

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        quasi_identifiers: Sequence[str],
        sensitive: str | None = None,
        insensitive: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        numeric: Iterable[str] | None = None,
        hierarchies: Mapping[str, Hierarchy] | None = None,
        drop_missing: bool = False,
        types: Mapping[str, str] | None = None,
        unassigned: str = "drop",
        value_sets: Sequence[str] = (),
        missing: Mapping[str, Sequence[str]] | None = None,
    ) -> Table:
        """Encode a DataFrame.

        Parameters
        ----------
        frame : DataFrame
        quasi_identifiers : sequence of str
            Columns an attacker can link to outside data.
        sensitive : str, optional
            The column whose value must not be inferred.
        insensitive : sequence of str
            Columns published unchanged (beside the generalized or bucketized ones).
        identifiers : sequence of str
            Direct identifiers: removed, never published; named in ``dropped["identifiers"]``.
        numeric : iterable of str, optional
            Legacy: columns to read as numbers (integer or decimal, as their values are); the
            other kept columns are then categorical. Default: each column's type is inferred
            (see ``types``).
        hierarchies : mapping of str to Hierarchy, optional
            Generalization hierarchies; every value of the column must be a leaf.
        drop_missing : bool
            If False (default), a missing value in a kept column raises an error that says how
            many there are and where. If True, those rows are removed and counted in
            ``dropped["rows_with_missing"]``.
        types : mapping of str to str, optional
            Declared types, ``{"zip": "text", "age": "integer"}`` (text, integer, decimal,
            categorical; :class:`~anonlab.schema.ColumnType`), overriding inference and
            ``numeric``. A declared integer or decimal column holding a value that is not a
            (finite, for integer whole) number is an error naming the column, row and value.
            A column not declared is inferred from its values (:func:`_decide`): numbers are
            integer or decimal, text with a leading zero (``01656``) stays text, a mostly
            numeric column with a stray word (``thirty``) or any infinite value (``inf``,
            ``1e400``) is an error. Each decision is in :attr:`types`.
        unassigned : {"drop", "error"}
            What happens to a column given no role: ``"drop"`` (default) leaves it out and
            names it in ``dropped["columns"]``; ``"error"`` refuses the data, listing every such
            column.
        value_sets : sequence of str
            Quasi-identifiers without a hierarchy that a generalized release may publish as the
            set of each group's values (``{a,b}``: every member's exact value), by the
            publisher's explicit choice. Any other text or categorical quasi-identifier without
            a hierarchy makes a generalized release refuse to be published, naming the builders
            that fit (:func:`anonlab.release.require_no_value_sets`). Date and datetime
            quasi-identifiers get an automatic date hierarchy instead.
        missing : mapping of str to list of str, optional
            More cell values read as missing in a column (``{"icd10": ["unknown"]}``), besides
            :data:`MISSING_MARKERS`; compared with the cell stripped of blanks.

        Rows in error messages are numbered from 1, the first data row (a CSV's header is
        not counted), as in the missing-value messages.
        """
        if not isinstance(frame, pd.DataFrame):
            raise AnonlabError(f"expected a pandas DataFrame, got {type(frame).__name__}")
        quasi_identifiers = list(quasi_identifiers)
        insensitive = list(insensitive)
        hierarchies = dict(hierarchies or {})
        columns = [str(c) for c in frame.columns]
        check_unique_columns(columns, "the DataFrame")
        frame = frame.set_axis(columns, axis=1)
        kept = _check_roles(
            columns,
            quasi_identifiers,
            sensitive,
            insensitive,
            identifiers,
            hierarchies,
            unassigned,
        )
        declared = _declared_types(kept, columns, numeric, types)
        extra = _check_missing(missing, kept)
        if len(frame) == 0:
            raise AnonlabError(_EMPTY)
        sub = frame[kept]

        # Missing values: count, locate, then refuse or drop. A plain text column is judged on
        # its distinct cells (stripped, marker-tested and typed once per distinct cell, as
        # Table.from_csv does per chunk), every other column cell by cell.
        text = {name: _TextColumn(sub[name], _markers(name, extra)) for name in kept
                if _plain_text(sub[name].dtype)}  # fmt: skip
        others = [name for name in kept if name not in text]
        other_missing = _missing_mask(sub[others], extra=extra) if others else None
        missing = {
            name: text[name].missing if name in text else other_missing[name].to_numpy()
            for name in kept
        }
        row_id = np.arange(len(frame), dtype=np.int64)
        dropped = _dropped_columns(columns, kept, identifiers)
        keep_rows = None
        if any(m.any() for m in missing.values()):
            bad = {c: int(m.sum()) for c, m in missing.items() if m.any()}
            if not drop_missing:
                first = {c: list(np.flatnonzero(missing[c])[:5] + 1) for c in bad}
                raise AnonlabError(_missing_message(bad, first))
            keep_rows = ~np.logical_or.reduce(list(missing.values()))
            dropped["rows_with_missing"] = int((~keep_rows).sum())
            dropped["rows_with_missing_by_column"] = bad
            sub = sub[others][keep_rows]  # the text columns are taken from their codes
            row_id = row_id[keep_rows]
            if len(row_id) == 0:
                raise AnonlabError(_ALL_MISSING)

        attributes, codes, values, decisions = [], {}, {}, {}
        for name in kept:
            hier = hierarchies.get(name)
            if name in text:
                codes[name], values[name], decisions[name] = text.pop(name).encode(
                    name, declared[name], hier, row_id, keep_rows
                )
            else:
                codes[name], values[name], decisions[name] = _encode(
                    sub[name], name, declared[name], hier, row_id
                )
            kind = ColumnType(decisions[name]["type"]).kind
            attributes.append(
                Attribute(name, _role(name, quasi_identifiers, sensitive), kind, hier)
            )
        return cls._assemble(attributes, codes, values, row_id, dropped, decisions, value_sets)

    @classmethod
    def _assemble(
        cls, attributes, codes, values, row_id, dropped, types=None, value_sets=()
    ) -> Table:
        types = types or {}
        attributes = [_with_automatic_hierarchy(a, values[a.name], types) for a in attributes]
        attributes = _with_value_sets(attributes, value_sets)
        table = cls(Schema(tuple(attributes)), codes, values, row_id, dropped, types)
        for a in attributes:  # every value must be a leaf of its hierarchy
            if a.hierarchy is not None:
                table.leaf_codes(a.name)
        return table

    @classmethod
    def from_csv(
        cls,
        path: str | os.PathLike,
        *,
        sep: str = ",",
        chunk_rows: int = CHUNK_ROWS,
        **kwargs,
    ) -> Table:
        """Read a CSV file with a header row, ``chunk_rows`` rows at a time.

        The same table as ``Table.from_frame(read_frame(path, sep=sep), **kwargs)`` (same
        kinds, domains in the same order, same codes, same ``row_id`` and ``dropped``, same
        errors), without holding the file's text: only the kept columns are parsed, and each
        chunk is turned into small provisional codes before the next is read (see
        :func:`_from_chunks`), so the peak is the final codes plus one chunk. See
        :meth:`from_frame` for the keywords.
        """
        path = check_input_path(path)
        chunk_rows = _check_chunk_rows(chunk_rows)
        header = read_csv_header(path, sep)
        check_field_counts(path, sep, len(header))
        options = _csv_options(sep, header)

        # Every cell as text (the types are decided on it), read as Python strings (dtype
        # object: pandas' ``str`` dtype would copy every cell into pyarrow) and factorized
        # once per chunk, so that the guard, blanks and missing markers are handled on each
        # chunk's distinct cells only (:class:`_TextChunk`). Not pandas' ``category`` dtype:
        # it turns a chunk whose cells are all numbers into numbers (``01656`` -> 1656).
        options["dtype"] = object

        def chunks(kept: list[str]):
            positions = sorted(header.index(c) for c in kept)
            extra = _check_missing(kwargs.get("missing"), kept)
            reader = pd.read_csv(path, usecols=positions, chunksize=chunk_rows, **options)
            with reader:
                for chunk in reader:
                    text = _TextChunk(chunk, kept, extra)
                    del chunk
                    yield text

        return _from_chunks(cls, path, header, chunks, **kwargs)

    @classmethod
    def from_parquet(
        cls, path: str | os.PathLike, *, chunk_rows: int = CHUNK_ROWS, **kwargs
    ) -> Table:
        """Read a Parquet file in record batches of ``chunk_rows`` rows (pyarrow).

        The same table as ``Table.from_frame(read_frame(path), **kwargs)``; only the kept
        columns are read, one batch at a time (see :meth:`from_csv`). Columns that hold a
        stored pandas index are not data columns (as in ``pandas.read_parquet``).
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = check_input_path(path)
        chunk_rows = _check_chunk_rows(chunk_rows)
        try:
            parquet = pq.ParquetFile(path)
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
        schema = parquet.schema_arrow
        index_columns = {
            c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)
        }
        header = [str(c) for c in schema.names if c not in index_columns]
        check_unique_columns(header, repr(str(path)))

        def chunks(kept: list[str]):  # a column's type is fixed here
            # The file's own schema (with its pandas metadata) so that each batch converts to
            # the dtypes pandas.read_parquet gives the whole file (e.g. nullable Int64).
            sub = pa.schema([schema.field(c) for c in kept], metadata=schema.metadata)
            for batch in parquet.iter_batches(batch_size=chunk_rows, columns=kept):
                frame = pa.Table.from_batches([batch], schema=sub).to_pandas()
                yield frame.set_axis(kept, axis=1)[kept]

        return _from_chunks(cls, path, header, chunks, **kwargs)

    @classmethod
    def from_dataset(
        cls,
        name: str,
        *,
        quasi_identifiers: Sequence[str] | None = None,
        sensitive: str | None = None,
        insensitive: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        hierarchy_set: str | None = None,
    ) -> Table:
        """A bundled dataset (see ``anonlab datasets``); default roles from its catalog entry.

        Its columns' types are the catalog's (``numeric``); ``identifiers`` are dropped and
        named in ``dropped["identifiers"]``; the other unused columns are not reported (a
        bundled dataset's unused columns are not dropped data)."""
        from anonlab import datasets

        info = datasets.info(name)
        frame = datasets.load_frame(name)
        hierarchies = datasets.load_hierarchies(name, hierarchy_set)
        qi = list(info.default_qi if quasi_identifiers is None else quasi_identifiers)
        sens = (
            info.default_sensitive if sensitive is None and quasi_identifiers is None else sensitive
        )
        table = cls.from_frame(
            frame,
            quasi_identifiers=qi,
            sensitive=sens,
            insensitive=insensitive,
            identifiers=identifiers,
            numeric=info.numeric,
            hierarchies={k: v for k, v in hierarchies.items() if k in frame.columns},
        )
        table.dropped["columns"] = []  # a bundled dataset's unused columns are not "dropped" data
        return table


def read_frame(path: str | os.PathLike, sep: str = ",") -> pd.DataFrame:
    """Read CSV or Parquet (by extension) into a DataFrame, with a clear error on failure.

    Holds the whole file in pandas (about 350 bytes per row of census-kdd-workers as CSV);
    :meth:`Table.from_csv` and :meth:`Table.from_parquet` read in chunks instead.

    A CSV's cells are read as **text** (pandas' ``str`` dtype; missing-value markers as NaN):
    pandas' own guess would turn ``01656`` into 1656 and ``1e400`` into ``inf`` before anyone
    could see it. :meth:`Table.from_frame` decides each column's type on that text (integer,
    decimal or text; see its ``types`` parameter). A Parquet file's columns keep their stored
    types.

    Checks made on every file (and by the chunked readers, with the same messages):

    * duplicate column names are refused, naming the column (pandas would rename the second
      ``a`` to ``a.1`` in a CSV);
    * a CSV row with **more** fields than the header is refused, naming its line (pandas would
      drop the extras, or silently turn the first columns into an index);
    * a CSV row with **fewer** fields than the header is read with its absent trailing fields as
      missing values, exactly like empty fields (``a,b`` under header ``a,b,c`` reads as
      ``a,b,``): loading a table then refuses them with the rows named, unless missing rows are
      dropped (``drop_missing=True``, ``--drop-missing``), where they are counted;
    * CSV cells and column names are read through
      :func:`anonlab.formula_guard.unguard_frame`, so the formula guard anonlab puts on the
      CSVs it writes is removed (``'=x`` reads as ``=x``; ``'abc`` and ``'-5`` are unchanged).
    """
    path = check_input_path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(path)
            index = {
                c
                for c in (schema.pandas_metadata or {}).get("index_columns", [])
                if isinstance(c, str)
            }
            names = [str(c) for c in schema.names if c not in index]
            check_unique_columns(names, repr(str(path)))
            return pd.read_parquet(path)
        except (OSError, ValueError, pa.ArrowException) as exc:
            if isinstance(exc, AnonlabError):
                raise
            raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
    header = read_csv_header(path, sep)
    check_field_counts(path, sep, len(header))
    try:
        frame = pd.read_csv(path, **_csv_options(sep, header))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
    return unguard_frame(frame, columns=False)  # the names were unguarded with the header


def _csv_options(sep: str, header: list[str]) -> dict:
    """pandas.read_csv options shared by :func:`read_frame` and :meth:`Table.from_csv`: the
    header's names given explicitly (checked unique, guard removed, never mangled), no index
    column guessed from a long first row."""
    return {
        "sep": sep,
        "header": 0,
        "names": header,
        "index_col": False,
        "skipinitialspace": True,
        "keep_default_na": False,
        "na_values": list(MISSING_MARKERS),
        "dtype": str,  # the file's text: types are decided by Table, never by pandas' guess
    }


def read_csv_header(path: str | os.PathLike, sep: str = ",") -> list[str]:
    """The column names of a CSV file as written (not renamed by pandas), with the formula guard
    removed; an empty name is called ``Unnamed: i`` (its position), as pandas does.

    Raises
    ------
    AnonlabError
        If ``sep`` is not one character, the file cannot be read, or two columns share a name.
    """
    path = Path(path)
    if not isinstance(sep, str) or len(sep) != 1:
        raise AnonlabError(f"sep must be a single character, got {sep!r}")
    try:
        first = pd.read_csv(
            path,
            sep=sep,
            header=None,
            nrows=1,
            dtype=str,
            na_filter=False,
            skipinitialspace=True,
            index_col=False,
        )
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None
    raw = first.iloc[0].tolist() if len(first) else []
    names = [str(n) if str(n) != "" else f"Unnamed: {i}" for i, n in enumerate(raw)]
    names = unguard_names(names)
    check_unique_columns(names, repr(str(path)))
    return names


def check_unique_columns(columns: Sequence[str], where: str) -> None:
    """Refuse two columns with one name (pandas would silently rename or mix them)."""
    if len(set(columns)) == len(columns):
        return
    seen: set[str] = set()
    for i, name in enumerate(columns):
        if name in seen:
            raise AnonlabError(
                f"{where}: column name {name!r} appears more than once (again as column "
                f"{i + 1}); every column needs its own name"
            )
        seen.add(name)


def check_field_counts(path: str | os.PathLike, sep: str, n_columns: int) -> None:
    """Refuse a CSV whose rows have more fields than its header has columns, naming the line.

    One pass of pyarrow's CSV parser over the file (about 0.2 s per million rows of 8 columns,
    measured on a 40 MB file; one column is converted, as text, and dropped batch by batch), in
    :func:`read_frame` and :meth:`Table.from_csv` alike: pandas cannot do it in the chunked
    reader, whose ``usecols`` makes it drop extra fields silently. pyarrow knows no
    ``skipinitialspace``, so a row it flags is checked again with Python's :mod:`csv` module,
    which parses as pandas does; the error names the first row that module confirms, with its
    line number in the file (counting the header as line 1).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if n_columns == 0:
        return
    flagged: list[int] = []

    def handler(row) -> str:
        if row.actual_columns > row.expected_columns and not flagged:
            flagged.append(1)
        return "skip"

    names = [f"c{i}" for i in range(n_columns)]
    # pyarrow builds the row's text before calling the handler; on bytes that are not UTF-8
    # that fails inside pyarrow and Python would print it as "Exception ignored ... Traceback"
    # on stderr. Such a row is flagged for the exact scan instead, silently.
    hook = sys.unraisablehook
    sys.unraisablehook = lambda _: flagged.append(1)
    try:
        # read_csv, not the streaming open_csv: a streaming reader's read-ahead thread still
        # alive at interpreter exit aborted the process ("terminate called without an active
        # exception", exit 134) on about 1 error exit in 15.
        pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(skip_rows=1, column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(
                delimiter=sep, newlines_in_values=True, invalid_row_handler=handler
            ),
            convert_options=pacsv.ConvertOptions(
                include_columns=["c0"], column_types={"c0": pa.string()}, check_utf8=False
            ),
        )
    except (pa.ArrowException, ValueError, OSError):
        flagged.append(1)  # let the exact scan decide (or pandas report what is wrong)
    finally:
        sys.unraisablehook = hook
    if flagged:
        _first_long_row(Path(path), sep, n_columns)


def _first_long_row(path: Path, sep: str, n_columns: int) -> None:
    """The exact check (Python's csv module, a loop over rows: run only on files pyarrow
    flagged). Raises for the first row with more than ``n_columns`` fields."""
    import csv
    import sys

    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)  # pandas has no limit on a field's size
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as f:
            reader = csv.reader(f, delimiter=sep, skipinitialspace=True, strict=False)
            header = True
            start = 1
            for row in reader:
                if header and row:
                    header = False
                elif len(row) > n_columns:
                    preview = sep.join(row)
                    preview = preview if len(preview) <= 60 else preview[:57] + "..."
                    raise AnonlabError(
                        f"{str(path)!r}, line {start}: the row has {len(row)} fields but the "
                        f"header has {n_columns} columns ({preview!r}); a row may not have "
                        f"more fields than the header (quote values that contain {sep!r})"
                    )
                start = reader.line_num + 1
    except (OSError, csv.Error):
        return  # pandas reports what it cannot read
    finally:
        csv.field_size_limit(limit)


# ---------------------------------------------------------------------------------------------
# Types: how a column's cells are read (issue 17, item 1)
# ---------------------------------------------------------------------------------------------

#: A cell with a leading zero (``01656``, ``007``, ``-01``; not ``0`` or ``0.5``): a code.
_LEADING_ZERO = r"^[+-]?0[0-9]"
#: Integers are exact in float64 below this magnitude (cells are parsed through float64).
_EXACT = 2**53

#: What a caller declared for a column: a :class:`ColumnType`, or ``"number"`` (the legacy
#: ``numeric=`` keyword: integer or decimal, whichever the values are).
Declared = ColumnType | str | None


def _declared_types(
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


def _prepare(col: pd.Series) -> tuple[object, str, list[str] | None]:
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
        return _stripped(col.astype(object)), "category", order
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
    return _stripped(col), "text", None


def _plain_text(dtype: object) -> bool:
    """Whether :func:`_prepare` reads a column of this dtype as plain text."""
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


def _encode_keys(
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


def _encode(
    col: pd.Series,
    name: str,
    declared: Declared,
    hierarchy: Hierarchy | None,
    row_id: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, dict]:
    """One whole column (no missing value left): codes, domain and type decision."""
    data, source, order = _prepare(col)
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
    """:func:`_encode_keys` for rows given as ``codes`` into their distinct ``keys`` (first
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

    rank, values, decision = _encode_keys(
        name, keys, source, order, declared, hierarchy, locate, counts
    )
    code_of_cell = np.where(valid, rank.astype(np.int32)[np.where(valid, cells, 0)], -1)
    return np.take(code_of_cell.astype(np.int32), codes), values, decision


def _with_automatic_hierarchy(att: Attribute, values: np.ndarray, types: dict) -> Attribute:
    """A date or datetime quasi-identifier without a hierarchy gets the ``date`` builder's
    (:data:`~anonlab.hierarchy_builders.AUTOMATIC_DATE_LEVELS`), so that a generalized group
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


def _with_value_sets(attributes: list[Attribute], value_sets: Sequence[str]) -> list[Attribute]:
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


class _TextColumn:
    """A plain text column of a DataFrame as codes into its distinct stripped labels.

    The cells are factorized once (:func:`_factorize_cells`); each distinct cell is then
    stripped of blanks (:func:`_stripped`) and tested against the column's missing markers, and
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
                cell_code, cells = _factorize_cells(col.to_numpy(dtype=object))
            else:  # pandas' string dtypes: hashed by pyarrow, no Python object per cell
                cell_code, cells = pd.factorize(col, sort=False)
                cells = np.asarray(cells, dtype=object)
            stripped = _stripped(pd.Series(cells, dtype=object))
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
        """Codes, domain and type decision of the kept rows, as :func:`_encode` gives them for
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


# ---------------------------------------------------------------------------------------------
# Shared by from_frame and the chunked readers
# ---------------------------------------------------------------------------------------------


def check_input_path(path: str | os.PathLike) -> Path:
    """``path`` as a Path, or an error naming it if it does not exist or is a directory."""
    path = Path(path)
    if not path.exists():
        raise AnonlabError(f"file {str(path)!r} does not exist")
    if path.is_dir():
        raise AnonlabError(f"{str(path)!r} is a directory; give a CSV or Parquet file")
    return path


def _check_chunk_rows(chunk_rows: object) -> int:
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int | np.integer):
        raise AnonlabError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    if chunk_rows < 1:
        raise AnonlabError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    return int(chunk_rows)


#: The CLI option of each role, for messages.
ROLE_OPTIONS = {
    "quasi-identifier": "--qi",
    "sensitive": "--sensitive",
    "insensitive": "--insensitive",
    "identifier": "--identifiers",
}
UNASSIGNED_CHOICES = ("drop", "error")


def _check_roles(
    columns: list[str],
    quasi_identifiers: list[str],
    sensitive: str | None,
    insensitive: list[str],
    identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    unassigned: str = "drop",
) -> list[str]:
    """Validate the roles against the columns; return the kept columns in role order.

    Every column named must exist; a column named under two roles (or twice under one) is an
    error naming it and both roles; with ``unassigned="error"`` every column given no role is
    listed in one error with the options that give one.
    """
    if unassigned not in UNASSIGNED_CHOICES:
        raise AnonlabError(
            f"unassigned must be one of {', '.join(UNASSIGNED_CHOICES)}, got {unassigned!r}"
        )
    if not quasi_identifiers:
        raise AnonlabError("no quasi-identifier given; name at least one (--qi a,b,c)")
    named = (
        [(q, "quasi-identifier") for q in quasi_identifiers]
        + ([(sensitive, "sensitive")] if sensitive else [])
        + [(c, "insensitive") for c in insensitive]
        + [(c, "identifier") for c in identifiers]
    )
    for name, _ in named:
        if name not in columns:
            raise AnonlabError(f"unknown column {name!r}; the data has columns {columns}")
    roles: dict[str, str] = {}
    for name, role in named:
        if name in roles:
            first = roles[name]
            both = (
                f"twice as {role} ({ROLE_OPTIONS[role]})"
                if first == role
                else f"two roles: {first} ({ROLE_OPTIONS[first]}) and {role} ({ROLE_OPTIONS[role]})"
            )
            raise AnonlabError(
                f"column {name!r} is given more than one role ({both}); give each column one role"
            )
        roles[name] = role
    for name in hierarchies:
        if name not in columns:
            raise AnonlabError(f"hierarchy given for unknown column {name!r}")
    kept = quasi_identifiers + ([sensitive] if sensitive else []) + insensitive
    for name in kept:
        if name in RESERVED_COLUMNS:
            raise AnonlabError(
                f"column {name!r} has a name anonlab keeps for its own columns "
                f"({', '.join(RESERVED_COLUMNS)}); rename the column in the data"
            )
    if unassigned == "error":
        left = [c for c in columns if c not in roles]
        if left:
            raise AnonlabError(unassigned_message(left))
    return kept


def unassigned_message(columns: Sequence[str]) -> str:
    """The error for columns given no role under ``--unassigned error``."""
    return (
        f"{len(columns)} column(s) have no role: {', '.join(columns)}. Give each one: "
        "--qi (quasi-identifier), --sensitive, --insensitive (published as it is) or "
        "--identifiers (dropped, never published); or --unassigned drop to leave them out "
        "of the release"
    )


def _dropped_columns(columns: Sequence[str], kept: Sequence[str], identifiers: Sequence[str]):
    """``Table.dropped``'s columns: those given no role, and (if any) the identifiers."""
    ids = set(identifiers)
    dropped: dict = {"columns": [c for c in columns if c not in kept and c not in ids]}
    if ids:
        dropped["identifiers"] = [c for c in columns if c in ids]
    return dropped


def _role(name: str, quasi_identifiers: Sequence[str], sensitive: str | None) -> Role:
    if name in quasi_identifiers:
        return Role.QUASI_IDENTIFIER
    return Role.SENSITIVE if name == sensitive else Role.INSENSITIVE


def _missing_mask(
    frame: pd.DataFrame,
    stripped: Mapping[str, pd.Series] | None = None,
    extra: Mapping[str, Sequence[str]] | None = None,
):
    """NaN, and in a non-numeric column a missing-value marker (after stripping blanks): one of
    :data:`MISSING_MARKERS` or of the column's ``extra`` markers.

    ``stripped``: the non-numeric columns already as stripped text (computed here if None).
    """
    missing = frame.isna()
    for name in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[name]):
            text = _stripped(frame[name]) if stripped is None else stripped[name]
            missing[name] |= text.isin(_markers(name, extra))
    return missing


def _markers(name: str, extra: Mapping[str, Sequence[str]] | None) -> list[str]:
    """The missing-value markers of column ``name``: the usual ones and its ``extra`` ones."""
    more = [] if extra is None else [str(m).strip() for m in extra.get(name, ())]
    return [*MISSING_MARKERS, *more]


def _check_missing(missing: object, kept: Sequence[str]) -> dict[str, list[str]]:
    """``missing`` (more markers per column) as a dict; an error names a column not kept."""
    if missing is None:
        return {}
    if not isinstance(missing, Mapping):
        raise AnonlabError(
            f"missing must map column names to lists of markers, got {type(missing).__name__}"
        )
    out = {}
    for name, markers in missing.items():
        if str(name) not in kept:
            raise AnonlabError(
                f"missing: markers are given for {str(name)!r}, which is not a column kept "
                f"(the kept columns are {list(kept)})"
            )
        if isinstance(markers, str) or not isinstance(markers, Iterable):
            raise AnonlabError(f"missing: the markers of {str(name)!r} must be a list of strings")
        out[str(name)] = [str(m) for m in markers]
    return out


def _stripped(col: pd.Series) -> pd.Series:
    """A column as text without surrounding blanks (how a categorical value becomes a label)."""
    return col.astype(str).str.strip()


def _missing_message(bad: Mapping[str, int], first: Mapping[str, list]) -> str:
    where = "; ".join(
        f"column {c!r}: {n} missing (rows {', '.join(map(str, first[c]))}"
        f"{', ...' if n > 5 else ''})"
        for c, n in bad.items()
    )
    return (
        f"missing values in the data: {where}. Drop those rows with drop_missing=True "
        "(CLI: --drop-missing), or fill them in"
    )


# ---------------------------------------------------------------------------------------------
# Chunked reading
# ---------------------------------------------------------------------------------------------


def _smallest_code_dtype(n_values: int) -> type[np.unsignedinteger]:
    """The smallest unsigned dtype holding codes ``0 .. n_values - 1``."""
    if n_values <= 1 << 8:
        return np.uint8
    if n_values <= 1 << 16:
        return np.uint16
    return np.uint32


def _arrow_cells(col: pd.Series) -> tuple[np.ndarray, list[str]] | None:
    """For a column of pyarrow strings whose stripping pandas does with pyarrow's
    ``utf8_trim_whitespace``: the code of each cell into its distinct cells (first-appearance
    order, -1 for a null) and those cells stripped of blanks, as :func:`pandas.factorize` and
    :func:`_stripped` give them, without pandas' per-call costs. None for any other column."""
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
        return None  # _stripped would strip with Python's str.strip
    encoded = data.dictionary_encode().combine_chunks()  # what pandas.factorize does
    indices = encoded.indices
    if indices.null_count:
        indices = pc.fill_null(indices, -1)
    cell_code = indices.to_numpy(zero_copy_only=False)
    return cell_code, pc.utf8_trim_whitespace(encoded.dictionary).to_pylist()


def _factorize_cells(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


class _TextChunk:
    """A chunk of a CSV's kept columns, each as codes into its distinct raw cells.

    Each column is factorized (:func:`_factorize_cells`) into codes (-1: a cell the parser read
    as missing) and its distinct cells. What :func:`read_frame` and
    :meth:`Table.from_frame` do to every cell (:func:`~anonlab.formula_guard.unguard_series`,
    then :func:`_stripped`, then the :data:`MISSING_MARKERS` test) is done here to the
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
        factorized = [_factorize_cells(frame[name].to_numpy(dtype=object)) for name in kept]
        # The distinct cells of all the columns at once (fewer pandas calls per chunk).
        cells = pd.Series(
            np.concatenate([np.empty(0, dtype=object)] + [c for _, c in factorized]), dtype=str
        )
        text = _stripped(unguard_series(cells))
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

    def select(self, keep: np.ndarray) -> _TextChunk:
        """The rows where ``keep`` is True (in place)."""
        self.codes = {name: codes[keep] for name, codes in self.codes.items()}
        self.missing = {name: m[keep] for name, m in self.missing.items()}
        self.n_rows = int(keep.sum())
        self.filtered = True
        return self


class _ChunkedColumn:
    """One column being read chunk by chunk.

    Each chunk (as :func:`_prepare` gives it: numbers, or labels stripped of blanks) is
    factorized and its distinct values looked up in (or appended to) a growing dictionary of
    *keys*, in first-appearance order over the file; the chunk is stored as provisional codes
    (indices into that dictionary) in the smallest unsigned dtype. The type of the column and
    the final domain are decided once the whole file is seen (:meth:`finish`), from the keys,
    exactly as :func:`_encode` decides them on the whole column.
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
        if stripped is not None and _plain_text(col.dtype):
            data, source, order = stripped, "text", None
        else:
            data, source, order = _prepare(col)
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
        """Add a chunk of a CSV column as :class:`_TextChunk` holds it (no missing value
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

        rank, values, decision = _encode_keys(
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
            coded = isinstance(chunk, _TextChunk)
            if coded:
                missing = chunk.missing
            else:
                stripped = {
                    name: _stripped(chunk[name])
                    for name in kept
                    if not pd.api.types.is_numeric_dtype(chunk[name])
                }
                frame_missing = _missing_mask(chunk, stripped, extra)
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


def _from_chunks(
    cls,
    path: Path,
    header: list[str],
    chunks,
    *,
    quasi_identifiers: Sequence[str],
    sensitive: str | None = None,
    insensitive: Sequence[str] = (),
    identifiers: Sequence[str] = (),
    numeric: Iterable[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    drop_missing: bool = False,
    types: Mapping[str, str] | None = None,
    unassigned: str = "drop",
    value_sets: Sequence[str] = (),
    missing: Mapping[str, Sequence[str]] | None = None,
) -> Table:
    """:meth:`Table.from_frame` over an iterator of DataFrame chunks (the kept columns only).

    Same checks, in the same order, with the same messages: roles against the header; empty
    table; missing values (counted over the whole file, first five rows per column, then refused
    or dropped and counted); the type of each column, decided on the distinct values of the
    whole file (:func:`_decide`; a CSV is read as text, so ``01656`` and ``2.50`` keep their
    text); numeric values ascending, categorical labels in hierarchy or sorted order, ties in
    first appearance; errors name the same row.
    """
    quasi_identifiers = list(quasi_identifiers)
    insensitive = list(insensitive)
    hierarchies = dict(hierarchies or {})
    kept = _check_roles(
        header, quasi_identifiers, sensitive, insensitive, identifiers, hierarchies, unassigned
    )
    declared = _declared_types(kept, header, numeric, types)
    extra = _check_missing(missing, kept)
    columns = {name: _ChunkedColumn(name) for name in kept}
    n_read, n_kept, bad, first, kept_rows = _read_pass(
        path, chunks(kept), kept, columns, drop_missing, extra
    )
    if n_read == 0:
        raise AnonlabError(_EMPTY)
    dropped = _dropped_columns(header, kept, identifiers)
    if bad:
        bad = {c: bad[c] for c in kept if c in bad}
        if not drop_missing:
            raise AnonlabError(_missing_message(bad, first))
        dropped["rows_with_missing"] = n_read - n_kept
        dropped["rows_with_missing_by_column"] = bad
        if n_kept == 0:
            raise AnonlabError(_ALL_MISSING)
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
        attributes.append(Attribute(name, _role(name, quasi_identifiers, sensitive), kind, hier))
    return cls._assemble(attributes, codes, values, row_id, dropped, decisions, value_sets)
