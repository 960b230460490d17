"""Mixed-radix int64 keys of rows, signatures and cells, and the counts keyed by them.

The map-reduce measures key their counts by *global* ids so that the blocks' arrays add up
exactly: a record's codes on an attribute set, read as one mixed-radix number (lexicographic
order). A row of many attributes is keyed by one such number per run of attributes whose key
space stays below 2^62 (:func:`key_chunks`), so that any row can be keyed; where one number is
needed (:func:`key_space`: a deFinetti joint cell), a key space that reaches 2^62 raises an
error naming the attributes. Also here: the distinct keys of a block with their counts
(:func:`unique_counts`, :func:`unique_rows`) and :func:`narrow`, the smallest unsigned type
counts travel in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from anonlab.errors import AnonlabError
from anonlab.table import Table

#: Largest key space of a mixed-radix int64 key (signature, cell or (group, signature) pair).
KEY_LIMIT = 1 << 62


def key_space(table: Table, attributes: Sequence[str], factor: int = 1, what: str = "") -> int:
    """Product of the domain sizes (times ``factor``); raises when an int64 key would overflow."""
    space = math.prod(int(table.domain_size(a)) for a in attributes)
    if space * max(int(factor), 1) >= KEY_LIMIT:
        raise AnonlabError(
            f"attribute set {list(attributes)} has too many value combinations "
            f"({space:,}{f' x {factor:,} groups' if factor > 1 else ''}) for a 62-bit key"
            f"{what}; use fewer attributes (parameter 'attributes' or 'max_attributes')"
        )
    return space


def radix_keys(table: Table, attributes: Sequence[str]) -> np.ndarray:
    """Mixed-radix int64 key of each record's codes on ``attributes`` (lexicographic order)."""
    key = np.zeros(table.n_rows, dtype=np.int64)
    for a in attributes:  # in place: no temporary array per attribute
        key *= int(table.domain_size(a))
        key += table.codes[a]
    return key


def key_chunks(table: Table, attributes: Sequence[str]) -> list[tuple[str, ...]]:
    """``attributes`` cut into consecutive runs whose mixed-radix key space stays below
    ``KEY_LIMIT`` (one run unless the domains are huge): a row is then keyed by one int64 per
    run (:func:`row_keys`), and the rows' lexicographic order is that of the key tuples."""
    chunks: list[tuple[str, ...]] = []
    current: list[str] = []
    space = 1
    for a in attributes:
        radix = int(table.domain_size(a))
        if current and space * radix >= KEY_LIMIT:
            chunks.append(tuple(current))
            current, space = [], 1
        current.append(a)
        space *= radix
    if current:
        chunks.append(tuple(current))
    return chunks


def row_keys(table: Table, chunks: Sequence[Sequence[str]]) -> np.ndarray:
    """(n_rows, len(chunks)) int64: each record's mixed-radix key on each run of
    :func:`key_chunks`."""
    if len(chunks) == 1:
        return radix_keys(table, chunks[0])[:, None]
    out = np.empty((table.n_rows, len(chunks)), dtype=np.int64)
    for j, chunk in enumerate(chunks):
        out[:, j] = radix_keys(table, chunk)
    return out


def unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of a 2-d int64 key array in lexicographic order, each row's index
    among them (int64) and their counts (int64).

    One key column (the usual case) is factorized by hashing (``pandas.factorize``, one pass)
    and only the distinct keys are sorted: about 4x faster than ``np.unique``, which sorts
    every key (16 vs 64 ms for 500,000 census keys). Several columns are sorted with
    ``np.lexsort``.
    """
    n = len(keys)
    if keys.shape[1] == 0:  # no attribute: every row is the same one
        m = 1 if n else 0
        return np.zeros((m, 0), np.int64), np.zeros(n, np.int64), np.full(m, n, np.int64)
    if keys.shape[1] == 1:
        import pandas as pd

        codes, unique = pd.factorize(keys[:, 0])
        order = np.argsort(unique, kind="stable")
        rank = np.empty(len(unique), dtype=np.int64)
        rank[order] = np.arange(len(unique))
        inverse = rank[codes]
        counts = np.bincount(inverse, minlength=len(unique)).astype(np.int64)
        return np.asarray(unique, dtype=np.int64)[order][:, None], inverse, counts
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new = np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)] if n else np.zeros(0, bool)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    return ordered[starts], inverse, np.diff(np.r_[starts, n]).astype(np.int64)


def decode_keys(keys: np.ndarray, radices: Sequence[int]) -> np.ndarray:
    """Inverse of :func:`radix_keys`: (m, len(radices)) int64 codes."""
    out = np.empty((len(keys), len(radices)), dtype=np.int64)
    rest = np.asarray(keys, dtype=np.int64).copy()
    for j in range(len(radices) - 1, -1, -1):
        rest, out[:, j] = np.divmod(rest, int(radices[j]))
    return out


#: :func:`unique_counts` counts with one ``bincount`` (no sort) when the key space is at most
#: this many times the number of keys (and at most ``DENSE_KEYS``).
DENSE_RATIO = 8

#: Largest key space :func:`unique_counts` counts densely (an int64 array of this length).
DENSE_KEYS = 1 << 24


def unique_counts(keys: np.ndarray, space: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (ascending) and how often each occurs (int64): a block's keyed
    counts, in the form ``merge_keyed_counts`` and ``map_reduce``'s ``"merge"`` add up.

    ``space``: keys lie in ``0 .. space - 1``; when that is small (``DENSE_RATIO`` times the
    keys, at most ``DENSE_KEYS``) they are counted with one ``bincount`` instead of a sort.
    """
    keys = np.asarray(keys)
    if space is not None and len(keys) and space <= min(DENSE_KEYS, DENSE_RATIO * len(keys)):
        counts = np.bincount(keys, minlength=int(space))
        unique = np.flatnonzero(counts)
        return unique.astype(np.int64, copy=False), counts[unique].astype(np.int64, copy=False)
    unique, counts = np.unique(keys, return_counts=True)
    return unique.astype(np.int64, copy=False), counts.astype(np.int64)


def narrow(counts: np.ndarray) -> np.ndarray:
    """Non-negative integers in the smallest unsigned dtype that holds them (what a worker
    sends the driver; the driver widens them back to int64, exactly)."""
    counts = np.asarray(counts)
    top = int(counts.max()) if counts.size else 0
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    return counts.astype(np.int64, copy=False)
