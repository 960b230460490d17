"""The microdata table T: one integer-coded numpy array per attribute, plus each domain.

Everything downstream (anonymizers, checks, attacks, utility) works on the integer codes; pandas
is used only here, to read and write. Codes follow each attribute's natural order: numeric values
ascending, categorical values in their hierarchy's leaf order (depth-first, so every subtree is a
contiguous run of codes) or, without a hierarchy, sorted by label.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from anonlab.errors import AnonlabError
from anonlab.hierarchy import Hierarchy
from anonlab.hierarchy import _leaf_label as _label
from anonlab.schema import Attribute, Kind, Role, Schema

#: Strings read as a missing value (UCI's '?' among them).
MISSING_MARKERS = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None")


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
        What loading removed and why (rows with missing values, unused columns).
    """

    def __init__(
        self,
        schema: Schema,
        codes: Mapping[str, np.ndarray],
        values: Mapping[str, np.ndarray],
        row_id: np.ndarray | None = None,
        dropped: Mapping | None = None,
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
        return Table(
            self.schema,
            {k: c[rows] for k, c in self.codes.items()},
            self.values,
            self.row_id[rows],
            self.dropped,
        )

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
        )

    def to_frame(self) -> pd.DataFrame:
        """The decoded table as a DataFrame (columns in schema order)."""
        return pd.DataFrame({a.name: self.column(a.name) for a in self.schema.attributes})

    def with_roles(
        self,
        quasi_identifiers: Sequence[str],
        sensitive: str | None,
        hierarchies: Mapping[str, Hierarchy] | None = None,
    ) -> Table:
        """The same records with other roles; attributes with no role given are dropped."""
        df = self.to_frame()
        kinds = {a.name: a.kind for a in self.schema.attributes}
        hier = {a.name: a.hierarchy for a in self.schema.attributes if a.hierarchy is not None}
        hier.update(hierarchies or {})
        keep_ins = [
            a for a in self.schema.insensitive if a not in quasi_identifiers and a != sensitive
        ]
        return Table.from_frame(
            df,
            quasi_identifiers=quasi_identifiers,
            sensitive=sensitive,
            insensitive=keep_ins,
            numeric=[k for k, v in kinds.items() if v is Kind.NUMERIC],
            hierarchies=hier,
        )

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
            Columns published unchanged. Columns given no role are not kept; their names are
            recorded in ``dropped["columns"]``.
        identifiers : sequence of str
            Columns to remove (named so they are not reported as unused).
        numeric : iterable of str, optional
            Columns to treat as numeric; default: the columns with a numeric dtype.
        hierarchies : mapping of str to Hierarchy, optional
            Generalization hierarchies; every value of the column must be a leaf.
        drop_missing : bool
            If False (default), a missing value in a kept column raises an error that says how
            many there are and where. If True, those rows are removed and counted in
            ``dropped["rows_with_missing"]``.
        """
        if not isinstance(frame, pd.DataFrame):
            raise AnonlabError(f"expected a pandas DataFrame, got {type(frame).__name__}")
        quasi_identifiers = list(quasi_identifiers)
        insensitive = list(insensitive)
        hierarchies = dict(hierarchies or {})
        columns = [str(c) for c in frame.columns]
        frame = frame.set_axis(columns, axis=1)
        if not quasi_identifiers:
            raise AnonlabError("no quasi-identifier given; name at least one (--qi a,b,c)")
        wanted = (
            quasi_identifiers + ([sensitive] if sensitive else []) + insensitive + list(identifiers)
        )
        for name in wanted:
            if name not in columns:
                raise AnonlabError(f"unknown column {name!r}; the data has columns {columns}")
        for name in set(wanted):
            if wanted.count(name) > 1:
                raise AnonlabError(
                    f"column {name!r} is given more than one role (e.g. both quasi-identifier and "
                    "sensitive); give each column one role"
                )
        for name in hierarchies:
            if name not in columns:
                raise AnonlabError(f"hierarchy given for unknown column {name!r}")
        if len(frame) == 0:
            raise AnonlabError("the table is empty (0 rows); nothing to anonymize")
        kept = quasi_identifiers + ([sensitive] if sensitive else []) + insensitive
        sub = frame[kept]

        # Missing values: count, locate, then refuse or drop.
        missing = sub.isna()
        for name in kept:
            if not pd.api.types.is_numeric_dtype(sub[name]):
                missing[name] |= sub[name].astype(str).str.strip().isin(MISSING_MARKERS)
        row_id = np.arange(len(frame), dtype=np.int64)
        dropped: dict = {"columns": [c for c in columns if c not in kept and c not in identifiers]}
        if missing.to_numpy().any():
            per_col = missing.sum()
            bad = {c: int(v) for c, v in per_col.items() if v}
            if not drop_missing:
                first = {c: list(np.flatnonzero(missing[c].to_numpy())[:5] + 1) for c in bad}
                where = "; ".join(
                    f"column {c!r}: {n} missing (rows {', '.join(map(str, first[c]))}"
                    f"{', ...' if n > 5 else ''})"
                    for c, n in bad.items()
                )
                raise AnonlabError(
                    f"missing values in the data: {where}. Drop those rows with drop_missing=True "
                    "(CLI: --drop-missing), or fill them in"
                )
            keep_rows = ~missing.to_numpy().any(axis=1)
            dropped["rows_with_missing"] = int((~keep_rows).sum())
            dropped["rows_with_missing_by_column"] = bad
            sub = sub[keep_rows]
            row_id = row_id[keep_rows]
            if len(sub) == 0:
                raise AnonlabError("every row has a missing value; nothing is left to anonymize")

        numeric_set = (
            {c for c in kept if pd.api.types.is_numeric_dtype(sub[c])}
            if numeric is None
            else set(numeric) & set(kept)
        )
        attributes, codes, values = [], {}, {}
        for name in kept:
            role = (
                Role.QUASI_IDENTIFIER
                if name in quasi_identifiers
                else Role.SENSITIVE
                if name == sensitive
                else Role.INSENSITIVE
            )
            kind = Kind.NUMERIC if name in numeric_set else Kind.CATEGORICAL
            hier = hierarchies.get(name)
            codes[name], values[name] = _encode(sub[name], name, kind, hier)
            attributes.append(Attribute(name, role, kind, hier))
        table = cls(Schema(tuple(attributes)), codes, values, row_id, dropped)
        for a in attributes:  # every value must be a leaf of its hierarchy
            if a.hierarchy is not None:
                table.leaf_codes(a.name)
        return table

    @classmethod
    def from_csv(cls, path: str | os.PathLike, *, sep: str = ",", **kwargs) -> Table:
        """Read a CSV file with a header row; see :meth:`from_frame` for the keywords."""
        return cls.from_frame(read_frame(path, sep=sep), **kwargs)

    @classmethod
    def from_parquet(cls, path: str | os.PathLike, **kwargs) -> Table:
        """Read a Parquet file; see :meth:`from_frame` for the keywords."""
        return cls.from_frame(read_frame(path), **kwargs)

    @classmethod
    def from_dataset(
        cls,
        name: str,
        *,
        quasi_identifiers: Sequence[str] | None = None,
        sensitive: str | None = None,
        insensitive: Sequence[str] = (),
        hierarchy_set: str | None = None,
    ) -> Table:
        """A bundled dataset (see ``anonlab datasets``); default roles from its catalog entry."""
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
            numeric=info.numeric,
            hierarchies={k: v for k, v in hierarchies.items() if k in frame.columns},
        )
        table.dropped["columns"] = []  # a bundled dataset's unused columns are not "dropped" data
        return table


def read_frame(path: str | os.PathLike, sep: str = ",") -> pd.DataFrame:
    """Read CSV or Parquet (by extension) into a DataFrame, with a clear error on failure."""
    path = Path(path)
    if not path.exists():
        raise AnonlabError(f"file {str(path)!r} does not exist")
    if path.is_dir():
        raise AnonlabError(f"{str(path)!r} is a directory; give a CSV or Parquet file")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(path)
        return pd.read_csv(
            path,
            sep=sep,
            skipinitialspace=True,
            keep_default_na=False,
            na_values=list(MISSING_MARKERS),
        )
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise AnonlabError(f"cannot read {str(path)!r}: {exc}") from None


def _encode(
    col: pd.Series, name: str, kind: Kind, hierarchy: Hierarchy | None
) -> tuple[np.ndarray, np.ndarray]:
    if kind is Kind.NUMERIC:
        try:
            arr = pd.to_numeric(col, errors="raise").to_numpy()
        except (ValueError, TypeError):
            bad = col[pd.to_numeric(col, errors="coerce").isna()].iloc[0]
            raise AnonlabError(
                f"column {name!r} is numeric but holds the value {bad!r}; mark it categorical "
                "or fix the value"
            ) from None
        if (
            np.issubdtype(arr.dtype, np.floating)
            and np.all(np.mod(arr, 1) == 0)
            and np.all(np.abs(arr) <= 2**53)  # exactly representable in both types
        ):
            arr = arr.astype(np.int64)
        values, codes = np.unique(arr, return_inverse=True)
        return codes.astype(np.int32), values
    arr = col.astype(str).str.strip().to_numpy(dtype=object)
    codes, uniques = pd.factorize(arr, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    if hierarchy is not None:
        order = np.argsort(hierarchy.leaf_index(list(uniques), attribute=name), kind="stable")
    else:
        order = np.argsort(uniques.astype(str), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[codes].astype(np.int32), uniques[order]
