"""Signatures: the distinct values of an attribute set, their supports and each record's.

Wong et al., "Can the Utility of Anonymized Data be used for Privacy Breaches?" (ACM TKDD
2011), Def. 1: the *signature* ``s(t)`` of a record ``t`` on an attribute set ``A`` is its
values on ``A``; the global distribution ``f_i = p(s_i : x)`` has one unknown per signature
``s_i`` (Eq. 4), and ``|s_i|``, its support, decides whether it is sufficient (Theorem 1).
Everything here depends on the quasi-identifiers alone, so it is computed once per distinct
quasi-identifier row (:class:`RowIndex`) and read back per record (docs/benchmarks.md, "Scale").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab.release import Release


def distinct_keys(
    columns: Sequence[np.ndarray], radices: Sequence[int], n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows given column by column (codes ``0 .. radix - 1``): the first row of each
    distinct row, in lexicographic order of the rows, each row's distinct-row index, and the
    counts. One mixed-radix int64 key per row instead of ``np.unique(axis=0)``, which sorts
    rows as structured records and was most of this attack's time; the key is renumbered
    densely whenever it would pass 2^62, so any number of columns works."""
    key = np.zeros(n, dtype=np.int64)
    space = 1
    for col, r in zip(columns, radices, strict=True):
        if space * int(r) >= 2**62:
            _, key = np.unique(key, return_inverse=True)  # dense, same order
            key = key.ravel().astype(np.int64)
            space = int(key.max()) + 1 if n else 1
        key = key * int(r) + np.asarray(col, dtype=np.int64)
        space *= int(r)
    _, first, inv, cnt = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    return first, inv.ravel(), cnt


def compact_index(index: np.ndarray, size: int) -> np.ndarray:
    """``index`` (values in ``0 .. size - 1``) in the smallest unsigned dtype holding them."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if size <= np.iinfo(dtype).max + 1:
            return index.astype(dtype)
    return index.astype(np.int64)


@dataclass(frozen=True, eq=False)
class RowIndex:
    """The distinct quasi-identifier rows of a release (over ``attributes``), their counts and
    each record's distinct row.

    Everything the attack derives from the quasi-identifiers alone (Apriori's counts, the
    signatures of an attribute set and their supports) depends on a record only through its
    row, so it is computed once per distinct row, weighted by the count, and read back per
    record through ``record_row`` where a per-record array is needed. Census data has far
    fewer distinct rows than records (every signature the attack solves for has at least ``J``
    records); a resampled table has at most as many as its source.
    """

    attributes: tuple[str, ...]
    rows: np.ndarray  # (D, |attributes|) int64 codes
    count: np.ndarray  # (D,) int64
    record_row: np.ndarray  # (n_rows,) smallest unsigned dtype
    radices: tuple[int, ...]

    @classmethod
    def of(cls, release: Release, attributes: tuple[str, ...]) -> RowIndex:
        table = release.table
        n = table.n_rows
        radices = tuple(int(table.domain_size(a)) for a in attributes)
        if not attributes or not n:
            rows = np.zeros((1 if n else 0, len(attributes)), dtype=np.int64)
            return cls(
                attributes,
                rows,
                np.full(len(rows), n, dtype=np.int64),
                np.zeros(n, dtype=np.uint8),
                radices,
            )
        columns = [table.codes[a] for a in attributes]
        first, inv, cnt = distinct_keys(columns, radices, n)
        rows = np.stack([np.asarray(c)[first] for c in columns], axis=1).astype(np.int64)
        return cls(attributes, rows, cnt.astype(np.int64), compact_index(inv, len(first)), radices)

    def signatures(self, attributes: tuple[str, ...]) -> Signatures:
        """The signatures of ``attributes`` (a subset of ``self.attributes``)."""
        if not attributes:
            m = 1 if len(self.rows) else 0
            return Signatures(
                np.zeros((m, 0), dtype=np.int64),
                np.zeros(len(self.rows), dtype=np.int64),
                self.record_row,
                np.full(m, int(self.count.sum()), dtype=np.int64),
                self,
            )
        cols = [self.attributes.index(a) for a in attributes]
        first, row_sig, _ = distinct_keys(
            [self.rows[:, j] for j in cols], [self.radices[j] for j in cols], len(self.rows)
        )
        support = np.bincount(row_sig, weights=self.count, minlength=len(first))
        return Signatures(
            self.rows[first][:, cols],
            row_sig,
            self.record_row,
            np.rint(support).astype(np.int64),
            self,
        )


@dataclass(frozen=True, eq=False)
class Signatures:
    """The signatures of one attribute set: their codes ``(m, |A|)``, the signature of each
    distinct row (``row_signature``), each record's row (``record_row``) and the supports."""

    codes: np.ndarray
    row_signature: np.ndarray
    record_row: np.ndarray
    support: np.ndarray
    index: RowIndex | None = None  # where row_signature can be recomputed from

    @classmethod
    def per_record(cls, codes: np.ndarray, record_signature: np.ndarray) -> Signatures:
        """Signatures given per record (every record its own "row")."""
        record_signature = np.asarray(record_signature)
        return cls(
            codes,
            np.arange(len(codes), dtype=np.int64),
            record_signature,
            np.bincount(record_signature, minlength=len(codes)).astype(np.int64),
        )

    def of(self, records: np.ndarray) -> np.ndarray:
        """Signature index (int64) of the given records."""
        return np.asarray(self.row_signature)[self.record_row[records]].astype(np.int64)


def release_signatures(
    release: Release, attributes: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """(codes of each distinct signature (m, |A|), per-record signature index)."""
    sig = RowIndex.of(release, attributes).signatures(attributes)
    return sig.codes, np.asarray(sig.row_signature)[sig.record_row].astype(np.int64)


def signature_labels(values: Sequence[np.ndarray], codes: np.ndarray) -> tuple:
    """Rows of ``codes`` as tuples of labels (``values[i]`` the labels of column ``i``)."""
    columns = []
    for i, vals in enumerate(values):
        col = np.asarray(vals)[codes[:, i]]
        items = col.tolist()  # Python scalars, as _plain gives
        columns.append([_plain(v) for v in items] if col.dtype == object else items)
    if not len(values):
        return tuple(() for _ in range(len(codes)))
    return tuple(zip(*columns, strict=True))


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
