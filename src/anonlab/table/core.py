"""The microdata table T (:class:`Table`): one integer-coded numpy array per attribute, plus
each domain; its constructors (:meth:`Table.from_frame`, :meth:`Table.from_csv`,
:meth:`Table.from_parquet`, :meth:`Table.from_dataset`) and the tables derived from one
(:meth:`Table.take`, :meth:`Table.resample`, :meth:`Table.with_roles`, ...).

How a file is read (:mod:`anonlab.table.reading`, :mod:`anonlab.table.chunked`), how a
column's type is decided (:mod:`anonlab.table.column_types`) and how roles and missing values
are checked (:mod:`anonlab.table.roles`) live beside this module; see :mod:`anonlab.table`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.hierarchy import leaf_label as _label
from anonlab.schema import Attribute, ColumnType, Kind, Role, Schema
from anonlab.table.chunked import TextChunk, from_chunks
from anonlab.table.column_types import (
    TextColumn,
    declared_types,
    encode_column,
    is_plain_text,
    mark_value_sets,
    with_automatic_hierarchy,
)
from anonlab.table.reading import (
    check_field_counts,
    check_input_path,
    check_unique_columns,
    csv_options,
    read_csv_header,
)
from anonlab.table.roles import (
    ALL_MISSING_MESSAGE,
    EMPTY_MESSAGE,
    check_missing,
    check_roles,
    dropped_columns,
    markers_of,
    missing_mask,
    missing_message,
    role_of,
    sensitive_names,
)

#: Rows per chunk of :meth:`Table.from_csv` / :meth:`Table.from_parquet`. A chunk of 500,000
#: rows of census-kdd-workers' 8 default columns is about 100-200 MB in pandas while it is
#: encoded; the codes kept per row are 1-4 bytes per column.
CHUNK_ROWS = 500_000


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
        names = self.sensitive_attributes
        sens = list(names) if len(names) > 1 else (names[0] if names else None)
        return (
            f"Table(rows={self.n_rows}, quasi_identifiers={list(self.quasi_identifiers)}, "
            f"sensitive={sens!r})"
        )

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return self.schema.quasi_identifiers

    @property
    def sensitive(self) -> str | None:
        """The sensitive attribute (None if none); raises when there are several
        (:attr:`Schema.sensitive <anonlab.schema.Schema.sensitive>`)."""
        return self.schema.sensitive

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        """Every sensitive attribute, in column order."""
        return self.schema.sensitive_attributes

    def for_sensitive(self, name: str) -> Table:
        """The same records (codes shared, not copied) with ``name`` the one sensitive
        attribute and the other sensitive attributes insensitive: what a step that reads one
        sensitive attribute (an attack, a check) sees when it runs for ``name``."""
        table = Table(self.schema.for_sensitive(name), self.codes, self.values, self.row_id,
                      self.dropped, self.types)  # fmt: skip
        table._leaf_cache = self._leaf_cache
        return table

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
        attributes = mark_value_sets(list(self.schema.attributes), names)
        table = Table(Schema(tuple(attributes)), self.codes, self.values, self.row_id, self.dropped)
        table.types = {k: dict(v) for k, v in self.types.items()}
        return table

    def to_frame(self) -> pd.DataFrame:
        """The decoded table as a DataFrame (columns in schema order)."""
        return pd.DataFrame({a.name: self.column(a.name) for a in self.schema.attributes})

    def with_roles(
        self,
        quasi_identifiers: Sequence[str],
        sensitive: str | Sequence[str] | None,
        hierarchies: Mapping[str, Hierarchy] | None = None,
    ) -> Table:
        """The same records with other roles; attributes with no role given are dropped. The
        records keep their input row ids (``row_id``)."""
        df = self.to_frame()
        kinds = {a.name: a.kind for a in self.schema.attributes}
        hier = {a.name: a.hierarchy for a in self.schema.attributes if a.hierarchy is not None}
        hier.update(hierarchies or {})
        keep_ins = [
            a
            for a in self.schema.insensitive
            if a not in quasi_identifiers and a not in sensitive_names(sensitive)
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
        # the types as read; a hierarchy given here replaces the automatic one a date had
        given = set(hierarchies or {})
        table.types = {
            k: {field: x for field, x in v.items() if field != "hierarchy" or k not in given}
            for k, v in self.types.items()
            if k in table.schema
        }
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
        sensitive: str | Sequence[str] | None = None,
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
        sensitive : str or sequence of str, optional
            The column whose value must not be inferred, or several (``["diagnosis",
            "insurer"]``): each is then protected, checked and attacked on its own.
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
            A column not declared is inferred from its values
            (:func:`anonlab.table.column_types._decide`): numbers are integer or decimal, text
            with a leading zero (``01656``) stays text, a mostly numeric column with a stray
            word (``thirty``) or any infinite value (``inf``, ``1e400``) is an error. Each
            decision is in :attr:`types`.
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
        sensitive = sensitive_names(sensitive)
        insensitive = list(insensitive)
        hierarchies = dict(hierarchies or {})
        columns = [str(c) for c in frame.columns]
        check_unique_columns(columns, "the DataFrame")
        frame = frame.set_axis(columns, axis=1)
        kept = check_roles(
            columns,
            quasi_identifiers,
            sensitive,
            insensitive,
            identifiers,
            hierarchies,
            unassigned,
        )
        declared = declared_types(kept, columns, numeric, types)
        extra = check_missing(missing, kept)
        if len(frame) == 0:
            raise AnonlabError(EMPTY_MESSAGE)
        sub = frame[kept]

        # Missing values: count, locate, then refuse or drop. A plain text column is judged on
        # its distinct cells (stripped, marker-tested and typed once per distinct cell, as
        # Table.from_csv does per chunk), every other column cell by cell.
        text = {name: TextColumn(sub[name], markers_of(name, extra)) for name in kept
                if is_plain_text(sub[name].dtype)}  # fmt: skip
        others = [name for name in kept if name not in text]
        other_missing = missing_mask(sub[others], extra=extra) if others else None
        missing = {
            name: text[name].missing if name in text else other_missing[name].to_numpy()
            for name in kept
        }
        row_id = np.arange(len(frame), dtype=np.int64)
        dropped = dropped_columns(columns, kept, identifiers)
        keep_rows = None
        if any(m.any() for m in missing.values()):
            bad = {c: int(m.sum()) for c, m in missing.items() if m.any()}
            if not drop_missing:
                first = {c: list(np.flatnonzero(missing[c])[:5] + 1) for c in bad}
                raise AnonlabError(missing_message(bad, first))
            keep_rows = ~np.logical_or.reduce(list(missing.values()))
            dropped["rows_with_missing"] = int((~keep_rows).sum())
            dropped["rows_with_missing_by_column"] = bad
            sub = sub[others][keep_rows]  # the text columns are taken from their codes
            row_id = row_id[keep_rows]
            if len(row_id) == 0:
                raise AnonlabError(ALL_MISSING_MESSAGE)

        attributes, codes, values, decisions = [], {}, {}, {}
        for name in kept:
            hier = hierarchies.get(name)
            if name in text:
                codes[name], values[name], decisions[name] = text.pop(name).encode(
                    name, declared[name], hier, row_id, keep_rows
                )
            else:
                codes[name], values[name], decisions[name] = encode_column(
                    sub[name], name, declared[name], hier, row_id
                )
            kind = ColumnType(decisions[name]["type"]).kind
            attributes.append(
                Attribute(name, role_of(name, quasi_identifiers, sensitive), kind, hier)
            )
        return cls._assemble(attributes, codes, values, row_id, dropped, decisions, value_sets)

    @classmethod
    def _assemble(
        cls, attributes, codes, values, row_id, dropped, types=None, value_sets=()
    ) -> Table:
        types = types or {}
        attributes = [with_automatic_hierarchy(a, values[a.name], types) for a in attributes]
        attributes = mark_value_sets(attributes, value_sets)
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
        :func:`from_chunks`), so the peak is the final codes plus one chunk. See
        :meth:`from_frame` for the keywords.
        """
        path = check_input_path(path)
        chunk_rows = _check_chunk_rows(chunk_rows)
        header = read_csv_header(path, sep)
        check_field_counts(path, sep, len(header))
        options = csv_options(sep, header)

        # Every cell as text (the types are decided on it), read as Python strings (dtype
        # object: pandas' ``str`` dtype would copy every cell into pyarrow) and factorized
        # once per chunk, so that the guard, blanks and missing markers are handled on each
        # chunk's distinct cells only (:class:`TextChunk`). Not pandas' ``category`` dtype:
        # it turns a chunk whose cells are all numbers into numbers (``01656`` -> 1656).
        options["dtype"] = object

        def chunks(kept: list[str]):
            positions = sorted(header.index(c) for c in kept)
            extra = check_missing(kwargs.get("missing"), kept)
            reader = pd.read_csv(path, usecols=positions, chunksize=chunk_rows, **options)
            with reader:
                for chunk in reader:
                    text = TextChunk(chunk, kept, extra)
                    del chunk
                    yield text

        value_sets = kwargs.pop("value_sets", ())
        return cls._assemble(*from_chunks(path, header, chunks, **kwargs), value_sets)

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

        value_sets = kwargs.pop("value_sets", ())
        return cls._assemble(*from_chunks(path, header, chunks, **kwargs), value_sets)

    @classmethod
    def from_dataset(
        cls,
        name: str,
        *,
        quasi_identifiers: Sequence[str] | None = None,
        sensitive: str | Sequence[str] | None = None,
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


def _check_chunk_rows(chunk_rows: object) -> int:
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int | np.integer):
        raise AnonlabError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    if chunk_rows < 1:
        raise AnonlabError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    return int(chunk_rows)
